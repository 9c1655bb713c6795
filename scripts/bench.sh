#!/usr/bin/env bash
# Benchmark suite (issue 7): builds every objective with every tool under BUILD/bench and runs it.
#   bash scripts/bench.sh BUILD_DIR            full run: timings, table, SVG plot, bench/README.md
#   bash scripts/bench.sh BUILD_DIR --quick    small inputs, correctness checks only (make test)
# Then bench/inlining.py: the derivative-in-a-hot-loop row (issue 6), with and without inlining.
# Exit status: non-zero when a hand-written, finite-difference or ADOL-C check fails, or (quick mode)
# when a Synthase derivative disagrees; a Synthase variant that does not compile yet is reported as
# "not supported yet" and is not an error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: bench.sh BUILD_DIR [--quick]}
shift
args=(--update-readme)
for a in "$@"; do
  case "$a" in
    --quick) args=(--quick) ;;
    *) args+=("$a") ;;
  esac
done
command -v clang-22 >/dev/null || { echo "bench: clang-22 missing (make deps)" >&2; exit 1; }
[ -f /usr/include/adolc/adolc.h ] || { echo "bench: libadolc-dev missing (make deps)" >&2; exit 1; }
status=0
python3 "$root/bench/run.py" "$build" "${args[@]}" || status=$?
# Issue 6: a derivative in a hot loop with and without the inlining post-pass; its table is
# appended to the report (stdout, BUILD/bench/results.md, and the README in a full run).
inl=()
for a in "${args[@]}"; do
  case "$a" in --quick|--update-readme) inl+=("$a") ;; esac
done
python3 "$root/bench/inlining.py" "$build" "${inl[@]}" || status=1
exit $status

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
# Issue 3: forward-mode kernels (tangent and width-4 tangent of a dot product and a stencil).
mkdir -p "$build/bench"
if "$build/bin/synthase-cc" -O2 "$root/bench/forward/kernels.c" -o "$build/bench/forward-kernels" -lm; then
  n=100000; [ "${args[0]:-}" = "--quick" ] && n=2000
  {
    echo
    echo "### Forward mode (time ÷ primal; width 4 computes four directions in one pass)"
    echo
    echo "| kernel | primal | tangent ÷ primal | width-4 tangent ÷ primal |"
    echo "|---|---|---|---|"
    "$build/bench/forward-kernels" "$n"
  } | tee -a "$build/bench/results.md" || status=1
else
  echo "bench: forward kernels did not compile" >&2
  status=1
fi
exit $status

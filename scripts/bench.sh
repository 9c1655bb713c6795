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
# Issue 14: vector reverse mode, width 4 against four scalar reverse calls (GMM, stencil).
vr_size=1; [ "${args[0]:-}" = "--quick" ] && vr_size=0
vr_table=$(
  echo "### Vector reverse mode (enzyme_width 4: one forward sweep, one tape, 4 adjoint lanes)"
  echo
  echo "| objective | gradient | width-4 gradient | width-4 time per direction ÷ gradient |"
  echo "|---|---|---|---|"
  for o in GMM STENCIL; do
    if "$build/bin/synthase-cc" -O2 -DOBJ_$o "$root/bench/reverse/vector.c" "$root/bench/harness/util.c" \
        -o "$build/bench/vector-reverse-$o" -lm; then
      "$build/bench/vector-reverse-$o" $vr_size || echo "| $o FAILED | | | |"
    else
      echo "| $o: did not compile (FAILED) | | | |"
    fi
  done
)
printf '\n%s\n' "$vr_table" | tee -a "$build/bench/results.md"
grep -q "FAILED\|MISMATCH" <<<"$vr_table" && status=1
# Reverse mode's tape reuse: a gradient with a tape above 1 MB called in a loop (bench/tape/reuse.c).
# A full run also refreshes the section between the tape markers of bench/README.md.
if "$build/bin/synthase-cc" -O2 "$root/bench/tape/reuse.c" -o "$build/bench/tape-reuse" -lm; then
  sizes=("131072 1000" "4194304 20")
  [ "${args[0]:-}" = "--quick" ] && sizes=("131072 20")
  table=$(
    echo "### Tape reuse: a gradient called in a loop (time per call; page faults per gradient call)"
    echo
    echo "| kernel | primal | gradient | gradient ÷ primal | minor page faults per gradient call |"
    echo "|---|---|---|---|---|"
    for s in "${sizes[@]}"; do "$build/bench/tape-reuse" $s || echo "| tape-reuse $s FAILED | | | | |"; done
  )
  printf '\n%s\n' "$table" | tee -a "$build/bench/results.md"
  grep -q "FAILED\|MISMATCH" <<<"$table" && status=1
  if [ "${args[0]:-}" != "--quick" ]; then
    python3 - "$root/bench/README.md" "$table" <<'PY'
import sys, time
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
start, end = "<!-- tape:begin -->", "<!-- tape:end -->"
if start in text and end in text:
    new = f"{start}\n{time.strftime('%Y-%m-%d %H:%M')}\n\n{table}\n{end}"
    open(path, "w").write(text[:text.index(start)] + new + text[text.index(end) + len(end):])
PY
  fi
else
  echo "bench: tape reuse benchmark did not compile" >&2
  status=1
fi
# Issue 18: the distributed heat solver (examples/mpi_heat): gradient ÷ primal at 1, 2 and 4
# ranks, and each one's speed-up over 1 rank (full run only; needs mpirun).
if [ "${args[0]:-}" != "--quick" ] && command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
  if "$build/bin/synthase-cc" -O2 "$root/examples/mpi_heat/heat.c" -o "$build/bench/mpi-heat" \
      $(mpicc --showme:compile) $(mpicc --showme:link) -lm; then
    table=$(
      echo "### MPI heat solver (examples/mpi_heat: halo exchange + allreduce loss, gradient w.r.t. the initial field and kappa; $(nproc) cores)"
      echo
      echo "| cells × steps | ranks | primal | gradient | gradient ÷ primal | primal speed-up | gradient speed-up |"
      echo "|---|---|---|---|---|---|---|"
      # The first size's tape fits in cache; the second's streams 160 MB back from memory.
      for size in "20000 200" "200000 100"; do
        p1=""; g1=""
        for np in 1 2 4; do
          if line=$(mpirun --allow-run-as-root --oversubscribe -np $np "$build/bench/mpi-heat" bench $size); then
            read -r _ tp tg <<<"$line"
            [ -z "$p1" ] && p1=$tp && g1=$tg
            awk -v s="${size/ / × }" -v n=$np -v p=$tp -v g=$tg -v p1=$p1 -v g1=$g1 \
              'BEGIN { printf "| %s | %d | %.2f ms | %.2f ms | %.2f | %.2f | %.2f |\n", s, n, 1e3*p, 1e3*g, g/p, p1/p, g1/g }'
          else
            echo "| $size | $np FAILED | | | | | |"
          fi
        done
      done
    )
    printf '\n%s\n' "$table" | tee -a "$build/bench/results.md"
    grep -q "FAILED" <<<"$table" && status=1
  else
    echo "bench: the MPI heat solver did not compile" >&2
    status=1
  fi
fi
exit $status

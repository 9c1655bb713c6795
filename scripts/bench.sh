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
build=$(cd "${1:?usage: bench.sh BUILD_DIR [--quick]}" && pwd) # absolute: cargo runs elsewhere
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
# Issue 16: GMM ported to Rust (frontends/rust/examples/gmm.rs: release profile, fat LTO in lld
# with the plugin) next to the C objective differentiated by synthase-cc, on the same data; the
# two must print the same primal and gradient norm. A full run only: the Rust build is a fat-LTO
# link of std (tens of seconds), and `make test` already builds and checks the example.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:/root/.cargo/bin:$PATH"
if [ "${args[0]:-}" != "--quick" ] && command -v cargo >/dev/null; then
  rs_table=$(
    echo "### Rust port (GMM through the synthase crate, release) next to C"
    echo
    echo "| objective | language | primal | gradient | gradient ÷ primal |"
    echo "|---|---|---|---|---|"
    rlog=$build/bench/rust-gmm.log
    if "$build/bin/synthase-cc" -O2 "$root/bench/rust/gmm_c.c" "$root/bench/harness/util.c" \
         -o "$build/bench/gmm-c" -lm &&
       (cd "$root/frontends/rust" && CARGO_NET_OFFLINE=true CARGO_INCREMENTAL=0 \
          CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=clang-22 \
          CARGO_ENCODED_RUSTFLAGS=$(printf '%s\x1f%s\x1f%s' -Clinker-plugin-lto -Clink-arg=-fuse-ld=lld \
            "-Clink-arg=-Wl,--load-pass-plugin=$build/lib/Synthase.so") \
          cargo build --offline --release --target-dir "$build/rust-bench" --example gmm) >"$rlog" 2>&1; then
      c_out=$("$build/bench/gmm-c" 1) && r_out=$("$build/rust-bench/release/examples/gmm" --bench 1) || echo "| GMM FAILED | | | | |"
      grep '^|' <<<"$c_out"; grep '^|' <<<"$r_out"
      python3 - "$(grep '^check:' <<<"$c_out")" "$(grep '^check:' <<<"$r_out")" <<'PY' || echo "| GMM: Rust and C disagree (MISMATCH) | | | | |"
import sys
a, b = ([float(w) for w in s.split()[2::2]] for s in sys.argv[1:3])
sys.exit(0 if len(a) == 2 and all(abs(x - y) <= 1e-9 * max(1.0, abs(x)) for x, y in zip(a, b)) else 1)
PY
    else
      echo "| GMM: the Rust or C build FAILED (log: $rlog) | | | | |"
    fi
  )
  printf '\n%s\n' "$rs_table" | tee -a "$build/bench/results.md"
  grep -q "FAILED\|MISMATCH" <<<"$rs_table" && status=1
fi
# A Hessian-vector product by forward over reverse against the gradient it differentiates (k-means).
hvp_table=$(
  echo "### Hessian-vector product (forward over reverse) against the gradient"
  echo
  echo "| objective | primal | gradient | Hessian-vector product | HVP ÷ gradient | check |"
  echo "|---|---|---|---|---|---|"
  if "$build/bin/synthase-cc" -O2 "$root/bench/hvp/hvp.c" "$root/bench/harness/util.c" \
      -o "$build/bench/hvp" -lm; then
    for s in $vr_size $([ "${args[0]:-}" = "--quick" ] || echo 2); do
      "$build/bench/hvp" "$s" || echo "| k-means size $s FAILED | | | | | |"
    done
  else
    echo "| k-means: did not compile (FAILED) | | | | | |"
  fi
)
printf '\n%s\n' "$hvp_table" | tee -a "$build/bench/results.md"
grep -q "FAILED\|MISMATCH" <<<"$hvp_table" && status=1
# Compile time of a generated ~50,000-instruction function in each mode (bench/compile).
ct_args=(); [ "${args[0]:-}" = "--quick" ] && ct_args=(--quick)
ct_table=$(python3 "$root/bench/compile/run.py" "$build" "${ct_args[@]}") || status=1
printf '\n%s\n' "$ct_table" | tee -a "$build/bench/results.md"
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
# Issue 18: an OpenMP stencil, reverse-mode gradient ÷ primal at 1, 2 and 4 threads and the
# speed-up of each (full run only: the timings need the machine to itself).
if [ "${args[0]:-}" != "--quick" ]; then
  if "$build/bin/synthase-cc" -fopenmp -O2 "$root/bench/openmp/stencil.c" -o "$build/bench/openmp-stencil" -lm; then
    omp_table=$(
      echo "### OpenMP stencil: reverse mode ÷ primal and parallel speed-up (\`bench/openmp/stencil.c\`, $(nproc) cores)"
      echo
      echo "| kernel | primal | gradient | gradient ÷ primal | primal speed-up | gradient speed-up |"
      echo "|---|---|---|---|---|---|"
      "$build/bench/openmp-stencil" 1024 20 || echo "| OpenMP stencil FAILED | | | | | |"
    )
    printf '\n%s\n' "$omp_table" | tee -a "$build/bench/results.md"
    grep -q "FAILED\|MISMATCH" <<<"$omp_table" && status=1
    python3 - "$root/bench/README.md" "$omp_table" <<'PY'
import sys, time
path, table = sys.argv[1], sys.argv[2]
text = open(path).read()
start, end = "<!-- openmp:begin -->", "<!-- openmp:end -->"
if start in text and end in text:
    new = f"{start}\n{time.strftime('%Y-%m-%d %H:%M')}\n\n{table}\n{end}"
    open(path, "w").write(text[:text.index(start)] + new + text[text.index(end) + len(end):])
PY
  else
    echo "bench: OpenMP stencil did not compile" >&2
    status=1
  fi
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

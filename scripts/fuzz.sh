#!/usr/bin/env bash
# make fuzz N=... SEED=...: differential testing of Synthase on random programs.
#
#   bash scripts/fuzz.sh BUILD N SEED
#
# Generates N random functions with tools/fuzzgen/fuzzgen.py (FUZZ_BATCH functions per C file, 20
# by default, to keep compile overhead low), compiles every file with synthase-cc at -O0 and -O2,
# runs it (forward, reverse, vector forward and vector reverse mode against finite differences,
# scalar calls and the dot-product test), and
# prints one summary line:
#   fuzz: programs tried N (-O0 and -O2), mismatches M, crashes C, refused R
# A mismatch is a wrong derivative (or primal output) at one opt level; a crash is a compiler
# crash, a module that does not verify (or an "internal error" diagnostic), or a run that dies on a
# signal or times out; refused counts functions the plugin rejected with a diagnostic. Failing functions are attributed one
# by one (each file takes a function number as argument; fuzzgen --index writes a standalone
# reproducer) and listed with the command that regenerates them. Exit status 1 on any mismatch
# or crash. FUZZ_JOBS (default 2) compiles in parallel; FUZZ_KEEP=1 keeps the work directory;
# FUZZ_SANITIZE=1 builds with -fsanitize=address,undefined (a sanitizer report counts as a crash:
# leaked tapes, out-of-bounds shadows); FUZZ_OPTS overrides the opt levels ("-O0 -O2"; a comma
# joins flags of one level: "-O0 -O3,-march=native").
# Before any derivative is compared, each file's primals alone (-DFZ_PRIMAL_ONLY, plain clang-22,
# no plugin, about a second per file) run under ASan+UBSan: a report there is undefined behaviour
# in the generated program, a generator bug, counted as "primal UB" (exit status 1) and never as
# an engine mismatch. FUZZ_PRIMAL_UB=0 skips that step.
# FUZZ_MEM (fraction of functions with memory features: aligned allocators, a registered arena,
# enzyme_dup workspaces, struct copies, doubles moved through uint64_t; default fuzzgen's) and
# FUZZ_MEM_FEATURES (a comma-separated subset, "all" or "none") are passed to fuzzgen --mem and
# --mem-features. FUZZ_NESTED=1 (fuzzgen --nested) also checks second order: forward over reverse
# and reverse over forward of every function, against finite differences of its gradient.
set -uo pipefail
BUILD=${1:-build}
N=${2:-200}
SEED=${3:-1}
BATCH=${FUZZ_BATCH:-20}
JOBS=${FUZZ_JOBS:-2}
OPTS=${FUZZ_OPTS:-"-O0 -O2"}
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
CC="$BUILD/bin/synthase-cc"
SANFLAGS=""
if [ "${FUZZ_SANITIZE:-0}" = 1 ]; then
  SANFLAGS="-g -fsanitize=address,undefined -fno-sanitize-recover=all"
  export ASAN_OPTIONS=detect_leaks=1:exitcode=125 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=126
fi
GEN="$here/tools/fuzzgen/fuzzgen.py"
GENOPTS=()
[ -n "${FUZZ_MEM:-}" ] && GENOPTS+=(--mem "$FUZZ_MEM")
[ -n "${FUZZ_MEM_FEATURES:-}" ] && GENOPTS+=(--mem-features "$FUZZ_MEM_FEATURES")
[ "${FUZZ_NESTED:-0}" = 1 ] && GENOPTS+=(--nested)
work=$(mktemp -d "${TMPDIR:-/tmp}/synthase-fuzz.XXXXXX")
[ "${FUZZ_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

tried=0; mism=0; crash=0; refused=0; ub=0
failures=()
declare -A has_ub  # function index -> 1: its derivatives are not compared (the primal is wrong)

# primal_ub SRC BIN FIRST COUNT: runs the file's primals under ASan+UBSan; one failure line per
# function whose primal has undefined behaviour.
primal_ub() {
  local src=$1 bin=$2 first=$3 count=$4
  [ "${FUZZ_PRIMAL_UB:-1}" = 1 ] || return 0
  if ! clang-22 -O0 -g -fsanitize=address,undefined -fno-sanitize-recover=all -DFZ_PRIMAL_ONLY -w \
       "$src" -o "$bin" -lm >"$bin.log" 2>&1; then
    ub=$((ub + count)); failures+=("primal UB build failed for functions $first..$((first + count - 1)): $(head -1 "$bin.log")")
    return 0
  fi
  ASAN_OPTIONS=detect_leaks=1:exitcode=125 UBSAN_OPTIONS=halt_on_error=1:exitcode=126 \
    timeout 120 "$bin" >/dev/null 2>"$bin.err" && return 0
  for ((j = 0; j < count; ++j)); do
    ASAN_OPTIONS=detect_leaks=1:exitcode=125 UBSAN_OPTIONS=halt_on_error=1:exitcode=126 \
      timeout 120 "$bin" "$j" >/dev/null 2>"$bin.err" && continue
    ub=$((ub + 1)); has_ub[$((first + j))]=1
    failures+=("primal UB seed $SEED index $((first + j)): $(grep -m1 -oE 'runtime error.*|ERROR: [A-Za-z]+: [a-z-]+' "$bin.err" | cut -c1-160)$(grep -m1 -oE ' in f[0-9]+[A-Za-z0-9_]* [^ ]+' "$bin.err")")
  done
}

# compile SRC OUT OPT -> 0 ok, 1 refused (diagnostic), 2 crash
compile() {
  local src=$1 out=$2 opt=$3 log=$2.log
  if timeout 300 "$CC" ${opt//,/ } $SANFLAGS -w "$src" -o "$out" -lm >"$log" 2>&1; then return 0; fi
  # an "internal error" diagnostic (invalid derivative IR) is an engine bug, not a refusal
  if grep -qE "PLEASE submit a bug report|Stack dump|does not verify|Broken module|LLVM ERROR|Assertion|internal error" "$log" ||
     ! grep -q "synthase:" "$log"; then return 2; fi
  return 1
}

# run BIN [k] -> prints summary; sets rc
run_bin() { timeout 120 "$@" 2>&1; }

nb=$(( (N + BATCH - 1) / BATCH ))
for ((b = 0; b < nb; ++b)); do
  first=$((b * BATCH)); count=$BATCH
  [ $((first + count)) -gt "$N" ] && count=$((N - first))
  src="$work/b$b.c"
  python3 "$GEN" "${GENOPTS[@]}" --seed "$SEED" --first "$first" --count "$count" --out "$src" || { echo "fuzz: generator failed"; exit 2; }
  primal_ub "$src" "$work/b${b}primal" "$first" "$count"
  # compile the opt levels in parallel (at most JOBS at once)
  pids=(); i=0
  for opt in $OPTS; do
    ( compile "$src" "$work/b$b$opt" "$opt"; echo $? >"$work/b$b$opt.rc" ) &
    pids+=($!); i=$((i + 1))
    if [ "$i" -ge "$JOBS" ]; then wait "${pids[@]}"; pids=(); i=0; fi
  done
  wait "${pids[@]}" 2>/dev/null
  for opt in $OPTS; do
    tried=$((tried + count))
    crc=$(cat "$work/b$b$opt.rc")
    if [ "$crc" != 0 ]; then
      # attribute: compile each function on its own
      for ((k = first; k < first + count; ++k)); do
        one="$work/one$k.c"
        python3 "$GEN" "${GENOPTS[@]}" --seed "$SEED" --index "$k" --out "$one"
        compile "$one" "$work/one$k$opt" "$opt"; r=$?
        if [ $r = 1 ]; then refused=$((refused + 1)); failures+=("refused $opt seed $SEED index $k: $(grep -m1 'synthase:' "$work/one$k$opt.log")")
        elif [ $r = 2 ]; then crash=$((crash + 1)); failures+=("compile crash $opt seed $SEED index $k: $(grep -m1 -E 'error|ERROR|Assert|PLEASE' "$work/one$k$opt.log")")
        else
          [ -n "${has_ub[$k]:-}" ] && continue
          out=$(run_bin "$work/one$k$opt"); rr=$?
          if [ $rr -ge 124 ]; then crash=$((crash + 1)); failures+=("run crash (exit $rr) $opt seed $SEED index $k")
          elif [ $rr != 0 ]; then mism=$((mism + 1)); failures+=("mismatch $opt seed $SEED index $k: $(echo "$out" | grep -m1 FZMISMATCH)"); fi
        fi
      done
      continue
    fi
    out=$(run_bin "$work/b$b$opt"); rr=$?
    if [ $rr -ge 124 ]; then
      # a crash or timeout: run the functions one by one
      for ((j = 0; j < count; ++j)); do
        k=$((first + j))
        [ -n "${has_ub[$k]:-}" ] && continue
        o1=$(run_bin "$work/b$b$opt" "$j"); r1=$?
        if [ $r1 -ge 124 ]; then crash=$((crash + 1)); failures+=("run crash (exit $r1) $opt seed $SEED index $k")
        elif [ $r1 != 0 ]; then mism=$((mism + 1)); failures+=("mismatch $opt seed $SEED index $k: $(echo "$o1" | grep -m1 FZMISMATCH)"); fi
      done
      continue
    fi
    # mismatches: one line per failing function
    while read -r name; do
      [ -z "$name" ] && continue
      k=${name#f}
      [ -n "${has_ub[$k]:-}" ] && continue
      mism=$((mism + 1))
      failures+=("mismatch $opt seed $SEED index $k: $(echo "$out" | grep -m1 "FZMISMATCH $name ")")
    done < <(echo "$out" | grep FZMISMATCH | awk '{print $2}' | sort -u)
  done
done

for f in "${failures[@]}"; do echo "  $f"; done
[ ${#failures[@]} -gt 0 ] && echo "  reproduce: python3 tools/fuzzgen/fuzzgen.py ${GENOPTS[*]} --seed $SEED --index K --out rK.c && build/bin/synthase-cc -O2 rK.c -o rK -lm && ./rK"
echo "fuzz: programs tried $N (at $OPTS: $tried runs), mismatches $mism, crashes $crash, refused $refused, primal UB $ub"
[ $mism -eq 0 ] && [ $crash -eq 0 ] && [ $ub -eq 0 ]

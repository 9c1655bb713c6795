#!/usr/bin/env bash
# make test: the lit suite (IR-shape checks and numeric integration programs), the unit tests,
# then one summary line "N passed, N failed".
set -uo pipefail
BUILD=${1:-build}
LIT=/usr/lib/llvm-22/bin/lit
passed=0; failed=0
out=$(mktemp)

echo "== lit: test/lit and test/integration"
"$LIT" -sv -j2 "$BUILD/test" 2>&1 | tee "$out" | grep -E "^(FAIL|XPASS|UNRESOLVED|TIMEOUT):|^  (Passed|Failed|Unsupported|Expectedly)" || true
# lit's summary lines look like "  Passed: 82 (100.00%)"; count expected failures as passed.
count() { grep -E "^\s*($1)\s*:" "$out" | sed -E 's/^[^:]*: *([0-9]+).*/\1/' | awk '{s+=$1} END {print s+0}'; }
p=$(count "Passed|Expectedly Failed|Unsupported")
f=$(count "Failed|Unresolved|Timed Out|Unexpectedly Passed")
passed=$((passed + p)); failed=$((failed + f))
grep -q "^FAIL:" "$out" && grep -B2 -A40 "FAIL: " "$out" | head -150

if [ -x "$BUILD/bin/synthase-unittests" ]; then
  echo "== unit tests"
  # The exit status decides: --gtest_brief omits the "N tests failed" summary line.
  unit_rc=0; "$BUILD/bin/synthase-unittests" --gtest_brief=1 >"$out" 2>&1 || unit_rc=$?
  tail -5 "$out"
  p=$(grep -E "^\[  PASSED  \]" "$out" | awk '{print $4}'); p=${p:-0}
  f=$(grep -cE "^\[  FAILED  \] [A-Za-z_]" "$out" || true); f=${f:-0}
  [ "$unit_rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  passed=$((passed + p)); failed=$((failed + f))
fi

if [ -f scripts/bench.sh ]; then
  echo "== benchmarks (quick, correctness only)"
  if bash scripts/bench.sh "$BUILD" --quick >"$out" 2>&1; then passed=$((passed + 1)); tail -3 "$out"
  else failed=$((failed + 1)); tail -40 "$out"; fi
fi
rm -f "$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

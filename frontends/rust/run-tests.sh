#!/usr/bin/env bash
# Rust frontend tests: usage  frontends/rust/run-tests.sh BUILD_DIR   (BUILD_DIR holds lib/Synthase.so)
#
# 1. Builds that cannot differentiate must FAIL and say what to add:
#      fat LTO + linker-plugin LTO, no plugin        -> link error naming the missing flags
#      plugin, but rustc did the LTO itself (no -C linker-plugin-lto) -> the same link error
#      plugin + linker-plugin LTO, but ThinLTO        -> the undefined-symbol message (-O0) or
#                                                        the plugin's error asking for fat LTO
# 2. The plain-rustc recipe (rustc-recipe/main.rs, -O0 and -O2) and the examples built with cargo
#    in the dev and release profiles run with correct derivatives: each program checks them against
#    finite differences / analytic values and exits non-zero on a mismatch.
# Offline: the crate has no dependencies. Artifacts go to BUILD_DIR/rust-target.
set -u
if [ $# -lt 1 ]; then echo "usage: $0 BUILD_DIR" >&2; exit 2; fi
BUILD=$(cd "$1" && pwd) || exit 2
HERE=$(cd "$(dirname "$0")" && pwd)
PLUGIN=$BUILD/lib/Synthase.so
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:/root/.cargo/bin:$PATH"
if ! command -v cargo >/dev/null 2>&1; then
  echo "rust: SKIPPED (cargo not found)"; exit 0
fi
if [ ! -f "$PLUGIN" ]; then echo "rust: $PLUGIN does not exist (build the project first)" >&2; exit 1; fi
LINKER=${SYNTHASE_RUST_LINKER:-clang-22}
TARGET_ROOT=$BUILD/rust-target
LOGS=$TARGET_ROOT/logs
mkdir -p "$LOGS"
cd "$HERE" || exit 1

export CARGO_NET_OFFLINE=true
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=$LINKER
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0
SEP=$'\x1f'
flags() { local IFS=$SEP; echo "$*"; }
WITH_PLUGIN=$(flags -Clinker-plugin-lto -Clink-arg=-fuse-ld=lld "-Clink-arg=-Wl,--load-pass-plugin=$PLUGIN")
NO_PLUGIN=$(flags -Clinker-plugin-lto -Clink-arg=-fuse-ld=lld)
NO_LINKER_PLUGIN_LTO=$(flags -Clink-arg=-fuse-ld=lld "-Clink-arg=-Wl,--load-pass-plugin=$PLUGIN")

FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }

# cargo_build NAME LTO RUSTFLAGS PROFILE ARGS...  (log in $LOGS/NAME.log)
cargo_build() {
  local name=$1 lto=$2 rf=$3 profile=$4; shift 4
  # The plugin is not part of cargo's fingerprint: drop this crate's artifacts so that every run
  # links (and differentiates) again with the current Synthase.so. std is not rebuilt.
  [ -n "${NO_CLEAN:-}" ] ||
    cargo clean --offline -p synthase --profile "$profile" --target-dir "$TARGET_ROOT/$name" >/dev/null 2>&1
  CARGO_ENCODED_RUSTFLAGS=$rf CARGO_PROFILE_DEV_LTO=$lto CARGO_PROFILE_RELEASE_LTO=$lto \
    cargo build --offline --profile "$profile" --target-dir "$TARGET_ROOT/$name" "$@" \
    >"$LOGS/$name.log" 2>&1
}

# expect_failure NAME LTO RUSTFLAGS REGEX [PROFILE]: the build must fail and its output match REGEX.
expect_failure() {
  local name=$1 lto=$2 rf=$3 re=$4 profile=${5:-dev}
  if cargo_build "$name" "$lto" "$rf" "$profile" --example jvp; then
    fail "$name: the build succeeded, so derivatives would be wrong (log: $LOGS/$name.log)"
  elif ! grep -Eq -- "$re" "$LOGS/$name.log"; then
    fail "$name: failed without the expected message /$re/ (log: $LOGS/$name.log)"; tail -20 "$LOGS/$name.log"
  else
    echo "ok   $name: fails with: $(grep -Eo -m1 -- "$re.{0,60}" "$LOGS/$name.log" | head -1)"
  fi
}

expect_failure no-plugin fat "$NO_PLUGIN" \
  'undefined symbol: __enzyme_(autodiff|fwddiff): Synthase did not run\. Build with fat LTO and the plugin'
expect_failure no-linker-plugin-lto fat "$NO_LINKER_PLUGIN_LTO" \
  'undefined symbol: __enzyme_(autodiff|fwddiff): Synthase did not run\. Build with fat LTO and the plugin'
# ThinLTO: at -O0 lld's ThinLTO backend does not run the plugin (-> the undefined-symbol message);
# optimized, the plugin runs per ThinLTO module and must refuse.
expect_failure thin-lto off "$WITH_PLUGIN" '[Ff]at LTO|lto=fat'
expect_failure thin-lto-release off "$WITH_PLUGIN" '[Ff]at LTO|lto=fat' release

# The plain-rustc recipe (no cargo), unoptimized and optimized.
RDIR=$TARGET_ROOT/rustc-recipe
mkdir -p "$RDIR"
for opt in 0 2; do
  log=$LOGS/rustc-recipe-O$opt.log
  if rustc --crate-type proc-macro --crate-name synthase_macros --edition 2021 \
       macros/src/lib.rs -o "$RDIR/libsynthase_macros.so" >"$log" 2>&1 &&
     rustc --crate-type rlib --crate-name synthase --edition 2021 -C opt-level=$opt -C linker-plugin-lto \
       --extern "synthase_macros=$RDIR/libsynthase_macros.so" \
       src/lib.rs -o "$RDIR/libsynthase-O$opt.rlib" >>"$log" 2>&1 &&
     rustc --edition 2021 -C opt-level=$opt -C lto=fat -C linker-plugin-lto -C linker="$LINKER" \
       -C link-arg=-fuse-ld=lld "-C" "link-arg=-Wl,--load-pass-plugin=$PLUGIN" \
       --extern "synthase=$RDIR/libsynthase-O$opt.rlib" -L "$RDIR" rustc-recipe/main.rs -o "$RDIR/main-O$opt" >>"$log" 2>&1; then
    if out=$("$RDIR/main-O$opt" 2>&1); then echo "ok   rustc-recipe -O$opt"; else fail "rustc-recipe -O$opt: $out"; fi
  else
    fail "rustc-recipe -O$opt: build failed (log: $log)"; grep -E 'error' "$log" | head -10
  fi
done

# Diagnostics for Rust users (diagnostics/*.rs must fail to link): every `// EXPECT:` regex is
# found in the output (`// EXPECT-g:` only in the -g build, which has source locations), and no
# message or hint line names a C marker (enzyme_dup…) or the link-error text of the entry name.
for src in diagnostics/*.rs; do
  name=$(basename "$src" .rs)
  for opt in "0 -g" 2; do
    tag=diag-$name-O${opt%% *}
    log=$LOGS/$tag.log
    if [ ! -f "$RDIR/libsynthase-O${opt%% *}.rlib" ]; then fail "$tag: the recipe's rlib is missing"; continue; fi
    # shellcheck disable=SC2086
    if rustc --edition 2021 -C opt-level=$opt -C lto=fat -C linker-plugin-lto -C linker="$LINKER" \
         -C link-arg=-fuse-ld=lld "-C" "link-arg=-Wl,--load-pass-plugin=$PLUGIN" \
         --extern "synthase=$RDIR/libsynthase-O${opt%% *}.rlib" -L "$RDIR" "$src" -o "$RDIR/$tag" >"$log" 2>&1; then
      fail "$tag: linked, but must fail with a diagnostic"; continue
    fi
    ok=1
    while IFS= read -r re; do
      grep -Eq -- "$re" "$log" || { fail "$tag: no match for /$re/ (log: $log)"; ok=0; }
    done < <(sed -n 's|^// EXPECT: ||p' "$src"; [ "${opt#* }" = -g ] && sed -n 's|^// EXPECT-g: ||p' "$src")
    if grep -E '(synthase:|hint:)' "$log" | grep -Eq 'enzyme_[a-z]|did not run'; then
      fail "$tag: a message names C markers or the placeholder's link-error text"; ok=0
    fi
    [ $ok = 1 ] && echo "ok   $tag: $(grep -Eo -m1 'synthase: .{0,90}' "$log")"
    [ $ok = 1 ] || grep -E 'synthase:|hint:' "$log" | head -4 | cut -c1-300 | sed 's/^/    /'
  done
done

EXAMPLES=$(cd examples && ls *.rs | sed 's/\.rs$//')
for profile in dev release; do
  dir=$TARGET_ROOT/$profile/$([ "$profile" = dev ] && echo debug || echo release)/examples
  # All examples in one cargo build per profile (one shared target dir): a failing link is
  # reported with the example's name, and the others are still built and run.
  if ! cargo_build "$profile" fat "$WITH_PLUGIN" "$profile" --examples --keep-going; then
    fail "$profile: build failed (log: $LOGS/$profile.log)"
    grep -E '^error|error:' "$LOGS/$profile.log" | grep -v '^ *"' | head -8 | cut -c1-400 | sed 's/^/    /'
  fi
  for ex in $EXAMPLES; do
    if [ ! -x "$dir/$ex" ]; then
      fail "$profile/$ex: not built"
    elif out=$("$dir/$ex" 2>&1); then
      echo "ok   $profile/$ex: $(echo "$out" | tail -1)"
    else
      fail "$profile/$ex (exit $?)"; echo "$out" | grep -v '^ok ' | tail -20 | sed 's/^/    /'
    fi
  done
done

# The documented set-up, copied into a fresh project outside the source tree: setup.sh writes
# .cargo/config.toml with absolute paths, Cargo.toml gets the dependency line from the README.
FRESH=$(mktemp -d "${TMPDIR:-/tmp}/synthase-fresh.XXXXXX")
flog=$LOGS/fresh-project.log
if (cd "$FRESH" && cargo new --offline --vcs none --name fresh_ad app) >"$flog" 2>&1 &&
   printf 'synthase = { path = "%s" }\n' "$HERE" >>"$FRESH/app/Cargo.toml" &&
   SYNTHASE_PLUGIN=$PLUGIN "$HERE/setup.sh" "$FRESH/app" >>"$flog" 2>&1 &&
   cat >"$FRESH/app/src/main.rs" <<'RS' &&
synthase::autodiff! {
    #[autodiff_reverse(d_f, Duplicated, Active)]
    fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * v.sin()).sum() }
}
fn main() {
    let x = [0.5, 1.0, 2.0];
    let mut dx = [0.0; 3];
    let y = d_f(&x, &mut dx, 1.0);
    let ok = x.iter().zip(&dx).all(|(v, d)| (d - (v.sin() + v * v.cos())).abs() < 1e-12) && (y - f(&x)).abs() < 1e-14;
    println!("fresh project: {}", if ok { "gradient ok" } else { "WRONG gradient" });
    std::process::exit(if ok { 0 } else { 1 })
}
RS
   mkdir -p "$FRESH/app/benches" &&
   printf '\n[[bench]]\nname = "gradient"\nharness = false\n' >>"$FRESH/app/Cargo.toml" &&
   cat >"$FRESH/app/benches/gradient.rs" <<'RS' &&
// `cargo bench` on stable: a bench target with its own main (harness = false).
synthase::autodiff! {
    #[autodiff_reverse(d_f, Duplicated, Active)]
    fn f(x: &[f64]) -> f64 { x.iter().map(|v| v * v.sin()).sum() }
}
fn main() {
    let x: Vec<f64> = (0..1000).map(|i| i as f64 * 1e-3).collect();
    let mut dx = vec![0.0; x.len()];
    let t = std::time::Instant::now();
    for _ in 0..100 {
        dx.iter_mut().for_each(|d| *d = 0.0);
        d_f(&x, &mut dx, 1.0);
    }
    let ok = x.iter().zip(&dx).all(|(v, d)| (d - (v.sin() + v * v.cos())).abs() < 1e-12);
    println!("cargo bench: {:?} per gradient, {}", t.elapsed() / 100, if ok { "gradient ok" } else { "WRONG gradient" });
    std::process::exit(if ok { 0 } else { 1 })
}
RS
   (cd "$FRESH/app" && env -u CARGO_ENCODED_RUSTFLAGS -u CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER \
      CARGO_TARGET_DIR="$TARGET_ROOT/fresh" cargo run --offline --release) >>"$flog" 2>&1 &&
   (cd "$FRESH/app" && env -u CARGO_ENCODED_RUSTFLAGS -u CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER \
      CARGO_TARGET_DIR="$TARGET_ROOT/fresh" cargo bench --offline) >>"$flog" 2>&1 &&
   grep -q "cargo bench: .*gradient ok" "$flog"; then
  echo "ok   fresh project outside the tree: $(grep -m1 'fresh project:' "$flog"); $(grep -m1 'cargo bench:' "$flog")"
else
  fail "fresh project (log: $flog)"; tail -15 "$flog" | sed 's/^/    /'
fi
# cargo test in the same project: a unit test and a doc test (rustdoc links through the
# config's rustdocflags) both differentiate.
tlog=$LOGS/fresh-cargo-test.log
if cat >"$FRESH/app/src/lib.rs" <<'RS' &&
//! ```
//! let mut dx = [0.0; 2];
//! let y = fresh_ad::d_sumsq(&[1.0, 2.0], &mut dx, 1.0);
//! assert!(y == 5.0 && dx == [2.0, 4.0], "doc test: wrong gradient {dx:?}");
//! ```
synthase::autodiff! {
    #[autodiff_reverse(d_sumsq, Duplicated, Active)]
    pub fn sumsq(x: &[f64]) -> f64 { x.iter().map(|v| v * v).sum() }
}
#[cfg(test)]
mod tests {
    #[test]
    fn gradient() {
        let mut dx = [0.0; 2];
        super::d_sumsq(&[0.5, -1.5], &mut dx, 1.0);
        assert!((dx[0] - 1.0).abs() < 1e-12 && (dx[1] + 3.0).abs() < 1e-12, "unit test: wrong gradient {dx:?}");
    }
}
RS
   (cd "$FRESH/app" && env -u CARGO_ENCODED_RUSTFLAGS -u CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER \
      CARGO_TARGET_DIR="$TARGET_ROOT/fresh" cargo test --offline) >"$tlog" 2>&1 &&
   grep -q 'tests::gradient ... ok' "$tlog" && grep -q 'src/lib.rs - (line 1) ... ok' "$tlog"; then
  echo "ok   fresh project: cargo test (unit test and doc test)"
else
  fail "fresh project: cargo test (log: $tlog)"; grep -E 'error|panicked|FAILED' "$tlog" | head -8 | cut -c1-300 | sed 's/^/    /'
fi
rm -rf "$FRESH"

if [ $FAILED -ne 0 ]; then echo "rust: FAILED"; exit 1; fi
echo "rust: all passed"

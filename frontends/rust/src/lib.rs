//! Automatic differentiation for **stable** Rust, computed by the Synthase LLVM plugin at link time.
//!
//! ```ignore
//! synthase::autodiff! {
//!     #[autodiff_reverse(d_loss, Duplicated, Const, Active)]
//!     #[autodiff_forward(jvp_loss, Dual, Const, Dual)]
//!     fn loss(w: &[f64], data: &[f64]) -> f64 { /* ... */ }
//! }
//! // reverse: dw += ∂loss/∂w · seed, returns the primal value
//! let value = d_loss(&w, &mut dw, &data, 1.0);
//! // forward: returns (loss, ∂loss/∂w · v)
//! let (value, tangent) = jvp_loss(&w, &v, &data);
//! ```
//!
//! # How it works
//! [`autodiff!`] emits the function unchanged (marked `#[inline(never)]`) plus one *placeholder*
//! function per `#[autodiff_*]` attribute. A placeholder's body is a call to an entry point that is
//! declared but never defined: `__enzyme_autodiff…` (reverse) or `__enzyme_fwddiff…` (forward),
//! with operands in the convention of rustc's own autodiff (`compiler/rustc_codegen_llvm/src/builder/autodiff.rs`):
//! the function's address, then for each IR-level parameter an activity marker, the primal value
//! and its shadow(s). A slice `&[T]` is a `(ptr, len)` pair at IR level and is passed as
//! `enzyme_dup, ptr, shadow_ptr…, enzyme_const, len`. The markers are the addresses of the
//! `extern` statics `enzyme_dup`, `enzyme_const`, … (never defined either).
//!
//! Synthase runs inside `ld.lld` during **full** (fat) LTO, replaces every such call with a generated
//! derivative and removes the markers. The program therefore only links when rustc emits bitcode
//! (`-C linker-plugin-lto`), the bitcode is one merged module (`-C lto=fat`, or `lto = "fat"` in the
//! profile) and lld loads the plugin (`-C linker=clang-22 -C link-arg=-fuse-ld=lld
//! -C link-arg=-Wl,--load-pass-plugin=/path/to/Synthase.so`). Any other build fails at link time
//! with `undefined symbol: __enzyme_autodiff: Synthase did not run …` followed by the flags to add;
//! it never links a program that returns zero gradients.
//!
//! # Activities
//! `#[autodiff_reverse(NAME, ACTIVITY_PER_PARAMETER…, RETURN_ACTIVITY)]` and
//! `#[autodiff_forward(NAME, [WIDTH,] ACTIVITY_PER_PARAMETER…, RETURN_ACTIVITY)]`; the return activity
//! is omitted when the function returns nothing. Parameters must be by-value scalars (`f64`, `f32`,
//! integers, `bool`), references `&T` / `&mut T`, or slices `&[T]` / `&mut [T]`.
//!
//! | activity | mode | parameter kinds | placeholder takes | lowered to |
//! |---|---|---|---|---|
//! | `Const` | both | any | `x` | `enzyme_const` |
//! | `Active` | reverse | `f64`, `f32` | `x`; its adjoint is returned | `enzyme_out` |
//! | `Duplicated` | reverse | `&T`, `&mut T`, `&[T]`, `&mut [T]` | `x, dx: &mut …` (gradient is **added** into `dx`) | `enzyme_dup` |
//! | `DuplicatedOnly` | reverse | as `Duplicated` | as `Duplicated`; the primal result behind `x` is not needed | `enzyme_dupnoneed` |
//! | `Dual` | forward | `f64`, `f32`, references, slices | `x, dx` (same type; `[_; WIDTH]` when WIDTH > 1) | `enzyme_dup` |
//! | `DualOnly` | forward | as `Dual` | as `Dual`; the primal result behind `x` is not needed | `enzyme_dupnoneed` |
//!
//! Return activities. Reverse: `Active` (placeholder takes a trailing `seed` and returns
//! `(primal, adjoints…)`), `ActiveOnly` (takes `seed`, returns only the adjoints), `Const` (the return
//! is not differentiated; returns the adjoints). Forward: `Dual` (returns `(primal, tangent)`),
//! `DualOnly` (returns the tangent), `Const` (returns nothing; shadows of `&mut` outputs are written).
//! With WIDTH > 1 a tangent is `[T; WIDTH]`. Several values are returned as a tuple, one as itself,
//! none as `()`.
//!
//! Forward mode *overwrites* the shadows of outputs; reverse mode *adds* into shadows (zero them
//! first when you want the gradient alone).
#![no_std]

// Activity markers. Only their names matter: the engine recognises the operands by the global's
// name and deletes every use, so they are never defined.
#[allow(non_upper_case_globals)]
extern "C" {
    pub static enzyme_dup: i32;
    pub static enzyme_dupnoneed: i32;
    pub static enzyme_dupv: i32;
    pub static enzyme_dupnoneedv: i32;
    pub static enzyme_const: i32;
    pub static enzyme_out: i32;
    pub static enzyme_width: i32;
    pub static enzyme_primal_return: i32;
}

extern "C" {
    fn synthase_release_tape();
}

/// Frees the calling thread's cached reverse-mode tape buffer now. Reverse mode keeps its tape
/// buffer per thread from one gradient call to the next (so a gradient called in a loop allocates
/// nothing after the first call) and frees it when the thread exits; call this to give the memory
/// back earlier. The plugin defines the function during the LTO link.
pub fn release_tape() {
    unsafe { synthase_release_tape() }
}

/// What the link error says when the plugin did not run (the symbol name itself is the message).
#[macro_export]
#[doc(hidden)]
macro_rules! __synthase_entry_name {
    (reverse) => {
        "__enzyme_autodiff: Synthase did not run. Build with fat LTO and the plugin: \
         -C lto=fat (or lto=fat in the Cargo profile) -C linker-plugin-lto -C linker=clang-22 \
         -C link-arg=-fuse-ld=lld -C link-arg=-Wl,--load-pass-plugin=/path/to/Synthase.so \
         (see frontends/rust/.cargo/config.toml)"
    };
    (forward) => {
        "__enzyme_fwddiff: Synthase did not run. Build with fat LTO and the plugin: \
         -C lto=fat (or lto=fat in the Cargo profile) -C linker-plugin-lto -C linker=clang-22 \
         -C link-arg=-fuse-ld=lld -C link-arg=-Wl,--load-pass-plugin=/path/to/Synthase.so \
         (see frontends/rust/.cargo/config.toml)"
    };
}

/// Converts a by-value argument to the type C varargs carry (`f32` → `f64`, small integers → 32
/// bits); the engine converts it back to the parameter's type.
pub trait VarArg {
    type Out;
    fn to_vararg(self) -> Self::Out;
}
macro_rules! vararg_impls {
    ($($t:ty => $o:ty),* $(,)?) => { $(
        impl VarArg for $t {
            type Out = $o;
            #[inline(always)]
            fn to_vararg(self) -> $o { self as $o }
        }
    )* };
}
vararg_impls!(f64 => f64, f32 => f64, i64 => i64, u64 => u64, isize => isize, usize => usize,
              i32 => i32, u32 => u32, i16 => i32, u16 => u32, i8 => i32, u8 => u32, bool => u32);

/// Return types that can be `Const` in reverse mode without a seed operand. `f64` and `f32` are
/// handled by the macro (they get a zero seed) when written literally as `f64` / `f32`.
#[diagnostic::on_unimplemented(
    message = "a `Const` return of type `{Self}` in autodiff_reverse: write the float type literally as `f64` or `f32` in the signature",
    label = "not known to be a non-float type"
)]
pub trait NonFloatReturn {}
macro_rules! nonfloat_impls {
    ($($t:ty),*) => { $( impl NonFloatReturn for $t {} )* };
}
nonfloat_impls!((), bool, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

#[doc(hidden)]
#[inline(always)]
pub fn __assert_not_float<T: NonFloatReturn>() {}

#[doc(hidden)]
#[inline(always)]
pub fn __va<T: VarArg>(x: T) -> T::Out {
    x.to_vararg()
}

/// Differentiates functions at link time. See the crate documentation for the activities.
///
/// ```ignore
/// synthase::autodiff! {
///     #[autodiff_forward(d_f, 2, Dual, Const, DualOnly)]   // width 2: two tangents at once
///     #[autodiff_reverse(g_f, Active, Const, Active)]
///     pub fn f(x: f64, n: usize) -> f64 { (0..n).fold(x, |a, _| a.sin()) }
/// }
/// let [t0, t1] = d_f(1.0, [1.0, 0.5], 3);
/// let (y, dx) = g_f(1.0, 3, 1.0);
/// ```
#[macro_export]
macro_rules! autodiff {
    ($($t:tt)*) => { $crate::__synthase_attrs! { [] [] $($t)* } };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_attrs {
    ([] []) => {};
    ([$($ad:tt)*] [$($keep:tt)*] #[autodiff_reverse($($a:tt)*)] $($rest:tt)*) => {
        $crate::__synthase_attrs! { [$($ad)* {reverse $($a)*}] [$($keep)*] $($rest)* }
    };
    ([$($ad:tt)*] [$($keep:tt)*] #[autodiff_forward($($a:tt)*)] $($rest:tt)*) => {
        $crate::__synthase_attrs! { [$($ad)* {forward $($a)*}] [$($keep)*] $($rest)* }
    };
    ([$($ad:tt)*] [$($keep:tt)*] #[$m:meta] $($rest:tt)*) => {
        $crate::__synthase_attrs! { [$($ad)*] [$($keep)* #[$m]] $($rest)* }
    };
    // With a return type: collect its tokens up to the body (see __synthase_retty).
    ([$($ad:tt)*] [$($keep:tt)*] $vis:vis fn $name:ident ($($p:tt)*) -> $($rest:tt)*) => {
        $crate::__synthase_retty! { [$($ad)*] [$($keep)*] [$vis] $name ($($p)*) [] $($rest)* }
    };
    ([$($ad:tt)*] [$($keep:tt)*] $vis:vis fn $name:ident ($($p:tt)*) {$($body:tt)*} $($more:tt)*) => {
        $($keep)*
        #[inline(never)]
        $vis fn $name($($p)*) { $($body)* }
        $crate::__synthase_each! { [$($ad)*] [$vis] $name ($($p)*) [] }
        $crate::autodiff! { $($more)* }
    };
    ($($x:tt)*) => {
        ::core::compile_error!("synthase::autodiff!: expected `#[autodiff_reverse(...)]` / `#[autodiff_forward(...)]` attributes on a `fn` item with a body");
    };
}

/// Collects the return type's tokens (kept raw, so that `f64` / `f32` can be recognised later)
/// until the function body.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_retty {
    ($ad:tt [$($keep:tt)*] [$($vis:tt)*] $name:ident ($($p:tt)*) [$($r:tt)+] {$($body:tt)*} $($more:tt)*) => {
        $($keep)*
        #[inline(never)]
        $($vis)* fn $name($($p)*) -> $($r)+ { $($body)* }
        $crate::__synthase_each! { $ad [$($vis)*] $name ($($p)*) [$($r)+] }
        $crate::autodiff! { $($more)* }
    };
    ($ad:tt $keep:tt $vis:tt $name:ident $p:tt [$($r:tt)*] $t:tt $($rest:tt)*) => {
        $crate::__synthase_retty! { $ad $keep $vis $name $p [$($r)* $t] $($rest)* }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_each {
    ([$($ad:tt)*] $vis:tt $name:ident $params:tt $ret:tt) => {
        $( $crate::__synthase_one! { $ad $vis $name $params $ret } )*
    };
}

/// Starts the walk over (activity, parameter) pairs for one attribute.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_one {
    ({reverse $d:ident, $w:literal, $($rest:tt)*} $($x:tt)*) => {
        ::core::compile_error!("autodiff_reverse: vector width > 1 is only supported in forward mode");
    };
    ({reverse $d:ident $(, $act:ident)* $(,)?} $vis:tt $f:ident ($($p:tt)*) $ret:tt) => {
        $crate::__synthase_arg! { reverse [1 (_)] {$d $vis $f $ret}
            [] [] [] [] [$($act)*] [$($p)*] }
    };
    ({forward $d:ident, $w:tt, $($rest:tt)*} $($x:tt)*) => {
        $crate::__synthase_width! { $w {$d, $($rest)*} $($x)* }
    };
    ({forward $d:ident $(, $act:ident)* $(,)?} $vis:tt $f:ident ($($p:tt)*) $ret:tt) => {
        $crate::__synthase_arg! { forward [1 (_)] {$d $vis $f $ret}
            [] [] [] [] [$($act)*] [$($p)*] }
    };
    ($($x:tt)*) => {
        ::core::compile_error!("synthase: expected #[autodiff_forward(NAME, [WIDTH,] ACTIVITIES...)] or #[autodiff_reverse(NAME, ACTIVITIES...)]");
    };
}

/// Maps a vector width to its lane indices.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_width {
    (1 $($x:tt)*) => { $crate::__synthase_lanes! { [1 (_)] $($x)* } };
    (2 $($x:tt)*) => { $crate::__synthase_lanes! { [2 (0 1)] $($x)* } };
    (3 $($x:tt)*) => { $crate::__synthase_lanes! { [3 (0 1 2)] $($x)* } };
    (4 $($x:tt)*) => { $crate::__synthase_lanes! { [4 (0 1 2 3)] $($x)* } };
    (5 $($x:tt)*) => { $crate::__synthase_lanes! { [5 (0 1 2 3 4)] $($x)* } };
    (6 $($x:tt)*) => { $crate::__synthase_lanes! { [6 (0 1 2 3 4 5)] $($x)* } };
    (7 $($x:tt)*) => { $crate::__synthase_lanes! { [7 (0 1 2 3 4 5 6)] $($x)* } };
    (8 $($x:tt)*) => { $crate::__synthase_lanes! { [8 (0 1 2 3 4 5 6 7)] $($x)* } };
    (16 $($x:tt)*) => { $crate::__synthase_lanes! { [16 (0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)] $($x)* } };
    // not a width but the first activity
    ($act:ident {$d:ident, $($rest:tt)*} $($x:tt)*) => {
        $crate::__synthase_lanes! { [1 (_)] {$d, $act, $($rest)*} $($x)* }
    };
    ($w:tt $($x:tt)*) => {
        ::core::compile_error!("autodiff_forward: supported widths are 1 to 8 and 16");
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_lanes {
    ($lanes:tt {$d:ident $(, $act:ident)* $(,)?} $vis:tt $f:ident ($($p:tt)*) $ret:tt) => {
        $crate::__synthase_arg! { forward $lanes {$d $vis $f $ret}
            [] [] [] [] [$($act)*] [$($p)*] }
    };
}

/// `__s` for width 1, `__s[i]` otherwise.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_lane {
    ($s:ident _) => { $s };
    ($s:ident $i:tt) => { $s[$i] };
}

/// The type of a shadow or tangent: `T` for width 1, `[T; W]` otherwise.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_lanety {
    (1, $t:ty) => { $t };
    ($w:tt, $t:ty) => { [$t; $w] };
}

/// One step: classify the next parameter's shape.
/// State: mode lanes hdr [placeholder params] [prelude] [operands] [outs] [activities] [parameters]
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_arg {
    // Done: no parameters left, zero or one (return) activity left.
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [] []) => {
        $crate::__synthase_ret! { $mode $lanes $hdr $po $pre $ops $outs [] }
    };
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$r:ident] []) => {
        $crate::__synthase_ret! { $mode $lanes $hdr $po $pre $ops $outs [$r] }
    };
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$r:ident $($more:ident)+] []) => {
        ::core::compile_error!(::core::concat!("synthase: more activities than parameters (plus one for the return value): ",
            $(::core::stringify!($more), " "),+ ));
    };
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [] [$($p:tt)+]) => {
        ::core::compile_error!(::core::concat!("synthase: no activity given for parameter(s) ",
            ::core::stringify!($($p)+)));
    };
    // mut binding
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$act:ident $($acts:ident)*]
     [mut $a:ident : $($rest:tt)*]) => {
        ::core::compile_error!("synthase: `mut` parameter bindings are not supported by autodiff!; rebind inside the body");
    };
    // &mut [T]
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$act:ident $($acts:ident)*]
     [$a:ident : &mut [$t:ty] $(, $($rest:tt)*)?]) => {
        $crate::__synthase_act! { $mode $act {slice [&mut [$t]] [&mut [$t]]} $a $lanes $hdr $po $pre $ops $outs
            [$($acts)*] [$($($rest)*)?] }
    };
    // &mut T
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$act:ident $($acts:ident)*]
     [$a:ident : &mut $t:ty $(, $($rest:tt)*)?]) => {
        $crate::__synthase_act! { $mode $act {ptr [&mut $t] [&mut $t]} $a $lanes $hdr $po $pre $ops $outs
            [$($acts)*] [$($($rest)*)?] }
    };
    // &[T]
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$act:ident $($acts:ident)*]
     [$a:ident : & [$t:ty] $(, $($rest:tt)*)?]) => {
        $crate::__synthase_act! { $mode $act {slice [&[$t]] [&mut [$t]]} $a $lanes $hdr $po $pre $ops $outs
            [$($acts)*] [$($($rest)*)?] }
    };
    // &T
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$act:ident $($acts:ident)*]
     [$a:ident : & $t:ty $(, $($rest:tt)*)?]) => {
        $crate::__synthase_act! { $mode $act {ptr [&$t] [&mut $t]} $a $lanes $hdr $po $pre $ops $outs
            [$($acts)*] [$($($rest)*)?] }
    };
    // T by value
    ($mode:ident $lanes:tt $hdr:tt $po:tt $pre:tt $ops:tt $outs:tt [$act:ident $($acts:ident)*]
     [$a:ident : $t:ty $(, $($rest:tt)*)?]) => {
        $crate::__synthase_act! { $mode $act {val [$t] [$t]} $a $lanes $hdr $po $pre $ops $outs
            [$($acts)*] [$($($rest)*)?] }
    };
}

/// One step: append what one (activity, parameter) pair contributes, then continue the walk.
/// Shape: {kind [primal type] [reverse-mode shadow type]}.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_act {
    // ---- Const (both modes) ----
    ($mode:ident Const {val [$pt:ty] $rs:tt} $a:ident $lanes:tt $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { $mode $lanes $hdr [$($po)* $a: $pt,] $pre
            [$($ops)* &raw const $crate::enzyme_const, $crate::__va($a),] $outs $acts $ps }
    };
    ($mode:ident Const {slice [$pt:ty] $rs:tt} $a:ident $lanes:tt $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { $mode $lanes $hdr [$($po)* $a: $pt,] $pre
            [$($ops)* &raw const $crate::enzyme_const, $a.as_ptr(),
                      &raw const $crate::enzyme_const, $a.len(),] $outs $acts $ps }
    };
    ($mode:ident Const {ptr [$pt:ty] $rs:tt} $a:ident $lanes:tt $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { $mode $lanes $hdr [$($po)* $a: $pt,] $pre
            [$($ops)* &raw const $crate::enzyme_const, &raw const *$a,] $outs $acts $ps }
    };

    // ---- reverse mode ----
    (reverse Active {val [$pt:ty] $rs:tt} $a:ident $lanes:tt $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] [$($outs:tt)*] $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { reverse $lanes $hdr [$($po)* $a: $pt,] $pre
            [$($ops)* &raw const $crate::enzyme_out, $crate::__va($a),] [$($outs)* (__o $pt)] $acts $ps }
    };
    (reverse Active {$k:ident $pt:tt $rs:tt} $a:ident $($x:tt)*) => {
        ::core::compile_error!(::core::concat!("autodiff_reverse: `Active` is for by-value floats; use `Duplicated` for the reference or slice `",
            ::core::stringify!($a), "`"));
    };
    (reverse Duplicated $shape:tt $a:ident $($x:tt)*) => {
        $crate::__synthase_dup! { reverse enzyme_dup $shape $a $($x)* }
    };
    (reverse DuplicatedOnly $shape:tt $a:ident $($x:tt)*) => {
        $crate::__synthase_dup! { reverse enzyme_dupnoneed $shape $a $($x)* }
    };

    // ---- forward mode ----
    (forward Dual $shape:tt $a:ident $($x:tt)*) => {
        $crate::__synthase_dup! { forward enzyme_dup $shape $a $($x)* }
    };
    (forward DualOnly $shape:tt $a:ident $($x:tt)*) => {
        $crate::__synthase_dup! { forward enzyme_dupnoneed $shape $a $($x)* }
    };

    (reverse $act:ident $shape:tt $a:ident $($x:tt)*) => {
        ::core::compile_error!(::core::concat!("autodiff_reverse: activity `", ::core::stringify!($act),
            "` (parameter `", ::core::stringify!($a), "`) is not one of Const, Active, Duplicated, DuplicatedOnly"));
    };
    (forward $act:ident $shape:tt $a:ident $($x:tt)*) => {
        ::core::compile_error!(::core::concat!("autodiff_forward: activity `", ::core::stringify!($act),
            "` (parameter `", ::core::stringify!($a), "`) is not one of Const, Dual, DualOnly"));
    };
}

/// Parameters with a shadow: Duplicated/DuplicatedOnly (reverse), Dual/DualOnly (forward).
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_dup {
    // reverse: the shadow is the `&mut` version of the primal's type; one lane.
    (reverse $m:ident {val $pt:tt $rs:tt} $a:ident $($x:tt)*) => {
        ::core::compile_error!(::core::concat!("autodiff_reverse: `Duplicated` needs a reference or a slice; use `Active` for the scalar `",
            ::core::stringify!($a), "`"));
    };
    (reverse $m:ident {slice [$pt:ty] [$rs:ty]} $a:ident $lanes:tt $hdr:tt
     [$($po:tt)*] [$($pre:tt)*] [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { reverse $lanes $hdr [$($po)* $a: $pt, __s: $rs,]
            [$($pre)* ::core::assert!(__s.len() >= $a.len(), ::core::concat!("synthase: the shadow of `",
                ::core::stringify!($a), "` is shorter than the slice"));]
            [$($ops)* &raw const $crate::$m, $a.as_ptr(), __s.as_mut_ptr(),
                      &raw const $crate::enzyme_const, $a.len(),] $outs $acts $ps }
    };
    (reverse $m:ident {ptr [$pt:ty] [$rs:ty]} $a:ident $lanes:tt $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { reverse $lanes $hdr [$($po)* $a: $pt, __s: $rs,] $pre
            [$($ops)* &raw const $crate::$m, &raw const *$a, &raw mut *__s,] $outs $acts $ps }
    };
    // forward: the shadow has the primal's type, one per lane.
    (forward $m:ident {val [$pt:ty] $rs:tt} $a:ident [$w:tt ($($i:tt)*)] $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { forward [$w ($($i)*)] $hdr
            [$($po)* $a: $pt, __s: $crate::__synthase_lanety!($w, $pt),] $pre
            [$($ops)* &raw const $crate::$m, $crate::__va($a),
                      $( $crate::__va($crate::__synthase_lane!(__s $i)), )*] $outs $acts $ps }
    };
    (forward $m:ident {slice [$pt:ty] $rs:tt} $a:ident [$w:tt ($($i:tt)*)] $hdr:tt
     [$($po:tt)*] [$($pre:tt)*] [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { forward [$w ($($i)*)] $hdr
            [$($po)* $a: $pt, __s: $crate::__synthase_lanety!($w, $pt),]
            [$($pre)* $( ::core::assert!($crate::__synthase_lane!(__s $i).len() >= $a.len(),
                ::core::concat!("synthase: a tangent of `", ::core::stringify!($a), "` is shorter than the slice")); )*]
            [$($ops)* &raw const $crate::$m, $a.as_ptr(),
                      $( $crate::__synthase_lane!(__s $i).as_ptr(), )*
                      &raw const $crate::enzyme_const, $a.len(),] $outs $acts $ps }
    };
    (forward $m:ident {ptr [$pt:ty] $rs:tt} $a:ident [$w:tt ($($i:tt)*)] $hdr:tt
     [$($po:tt)*] $pre:tt [$($ops:tt)*] $outs:tt $acts:tt $ps:tt) => {
        $crate::__synthase_arg! { forward [$w ($($i)*)] $hdr
            [$($po)* $a: $pt, __s: $crate::__synthase_lanety!($w, $pt),] $pre
            [$($ops)* &raw const $crate::$m, &raw const *$a,
                      $( &raw const *$crate::__synthase_lane!(__s $i), )*] $outs $acts $ps }
    };
}

/// Last step: the return activity decides the leading/trailing operands and what comes back.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_ret {
    // ---- reverse ----
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident []} $po:tt $pre:tt $ops:tt [$($outs:tt)*] []) => {
        $crate::__synthase_emit! { reverse $vis $d $f $po $pre [] $ops [] [$($outs)*] }
    };
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident [$rt:ty]} [$($po:tt)*] $pre:tt $ops:tt [$($outs:tt)*] [Active]) => {
        $crate::__synthase_emit! { reverse $vis $d $f [$($po)* seed: $rt,] $pre
            [&raw const $crate::enzyme_primal_return,] $ops [$crate::__va(seed),] [(__p $rt) $($outs)*] }
    };
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident [$rt:ty]} [$($po:tt)*] $pre:tt $ops:tt [$($outs:tt)*] [ActiveOnly]) => {
        $crate::__synthase_emit! { reverse $vis $d $f [$($po)* seed: $rt,] $pre
            [] $ops [$crate::__va(seed),] [$($outs)*] }
    };
    // A Const float return must be seeded with 0 (the engine seeds an unseeded float return with 1).
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident [f64]} $po:tt $pre:tt $ops:tt [$($outs:tt)*] [Const]) => {
        $crate::__synthase_emit! { reverse $vis $d $f $po $pre [] $ops [0.0f64,] [$($outs)*] }
    };
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident [f32]} $po:tt $pre:tt $ops:tt [$($outs:tt)*] [Const]) => {
        $crate::__synthase_emit! { reverse $vis $d $f $po $pre [] $ops [0.0f64,] [$($outs)*] }
    };
    // Any other type: no seed; it must not be a float in disguise (a type alias of f64, say).
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident [$rt:ty]} $po:tt [$($pre:tt)*] $ops:tt [$($outs:tt)*] [Const]) => {
        $crate::__synthase_emit! { reverse $vis $d $f $po
            [$($pre)* $crate::__assert_not_float::<$rt>();] [] $ops [] [$($outs)*] }
    };
    // ---- forward ----
    (forward [$w:tt $i:tt] {$d:ident $vis:tt $f:ident []} $po:tt $pre:tt $ops:tt $outs:tt []) => {
        $crate::__synthase_front! { $w [] {forward $vis $d $f $po $pre} $ops [] [] }
    };
    (forward [$w:tt $i:tt] {$d:ident $vis:tt $f:ident [$rt:ty]} $po:tt $pre:tt $ops:tt $outs:tt [Dual]) => {
        $crate::__synthase_front! { $w [&raw const $crate::enzyme_primal_return,] {forward $vis $d $f $po $pre}
            $ops [] [(__p $rt) (__t $crate::__synthase_lanety!($w, $rt))] }
    };
    (forward [$w:tt $i:tt] {$d:ident $vis:tt $f:ident [$rt:ty]} $po:tt $pre:tt $ops:tt $outs:tt [DualOnly]) => {
        $crate::__synthase_front! { $w [] {forward $vis $d $f $po $pre}
            $ops [] [(__t $crate::__synthase_lanety!($w, $rt))] }
    };
    (forward [$w:tt $i:tt] {$d:ident $vis:tt $f:ident [$rt:ty]} $po:tt $pre:tt $ops:tt $outs:tt [Const]) => {
        $crate::__synthase_front! { $w [] {forward $vis $d $f $po $pre} $ops [] [] }
    };
    // ---- errors ----
    ($mode:ident $lanes:tt {$d:ident $vis:tt $f:ident []} $po:tt $pre:tt $ops:tt $outs:tt [$r:ident]) => {
        ::core::compile_error!(::core::concat!("synthase: `", ::core::stringify!($f),
            "` returns nothing, so there is no return activity; too many activities for `", ::core::stringify!($d), "`"));
    };
    ($mode:ident $lanes:tt {$d:ident $vis:tt $f:ident [$rt:ty]} $po:tt $pre:tt $ops:tt $outs:tt []) => {
        ::core::compile_error!(::core::concat!("synthase: `", ::core::stringify!($f),
            "` returns a value: give its activity last (reverse: Active, ActiveOnly or Const; forward: Dual, DualOnly or Const) in `",
            ::core::stringify!($d), "`"));
    };
    (reverse $lanes:tt {$d:ident $vis:tt $f:ident $rt:tt} $po:tt $pre:tt $ops:tt $outs:tt [$r:ident]) => {
        ::core::compile_error!(::core::concat!("autodiff_reverse: return activity `", ::core::stringify!($r),
            "` is not one of Active, ActiveOnly, Const"));
    };
    (forward $lanes:tt {$d:ident $vis:tt $f:ident $rt:tt} $po:tt $pre:tt $ops:tt $outs:tt [$r:ident]) => {
        ::core::compile_error!(::core::concat!("autodiff_forward: return activity `", ::core::stringify!($r),
            "` is not one of Dual, DualOnly, Const"));
    };
}

/// Appends the `enzyme_width, W` operands (nothing for width 1) to the leading operands.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_front {
    (1 [$($front:tt)*] {$($a:tt)*} $($rest:tt)*) => {
        $crate::__synthase_emit! { $($a)* [$($front)*] $($rest)* }
    };
    ($w:tt [$($front:tt)*] {$($a:tt)*} $($rest:tt)*) => {
        $crate::__synthase_emit! { $($a)* [$($front)* &raw const $crate::enzyme_width, ($w as i64),] $($rest)* }
    };
}

/// Emits the placeholder function.
#[doc(hidden)]
#[macro_export]
macro_rules! __synthase_emit {
    ($mode:ident [$($vis:tt)*] $d:ident $f:ident [$($po:tt)*] [$($pre:tt)*] [$($front:tt)*] [$($ops:tt)*]
     [$($tail:tt)*] [$(($id:ident $ty:ty))*]) => {
        #[allow(unused_parens, clippy::too_many_arguments, clippy::unused_unit)]
        $($vis)* fn $d($($po)*) -> ($($ty),*) {
            $($pre)*
            #[repr(C)]
            struct __Out($($ty),*);
            #[allow(improper_ctypes, clashing_extern_declarations)]
            extern "C-unwind" {
                #[link_name = $crate::__synthase_entry_name!($mode)]
                fn __ad(f: *const (), ...) -> __Out;
            }
            #[allow(unused_unsafe)]
            let __Out($($id),*) = unsafe { __ad($f as *const (), $($front)* $($ops)* $($tail)*) };
            ($($id),*)
        }
    };
}

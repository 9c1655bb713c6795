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
//! is omitted when the function returns nothing. Parameters are by-value scalars (`f64`, `f32`,
//! integers, `bool`, a generic `T`), references `&T` / `&mut T` (and `&self` / `&mut self`), slices
//! `&[T]` / `&mut [T]`, raw pointers, or structs and tuples by value (`Const` / `Active`; the macro
//! passes them by reference through a shim). WIDTH is 1 to 64, in both modes.
//!
//! | activity | mode | parameter kinds | placeholder takes | lowered to |
//! |---|---|---|---|---|
//! | `Const` | both | any | `x` | `enzyme_const` |
//! | `Active` | reverse | `f64`, `f32` | `x`; its adjoint is returned | `enzyme_out` |
//! | `Duplicated` | reverse | `&T`, `&mut T`, `&[T]`, `&mut [T]` | `x, dx: &mut …` (gradient is **added** into `dx`) | `enzyme_dup` |
//! | `DuplicatedOnly` | reverse | as `Duplicated` | as `Duplicated`; the primal result behind `x` is not needed | `enzyme_dupnoneed` |
//! | `Dual` | forward | `f64`, `f32`, references, slices | `x, dx` (same type; `[_; WIDTH]` when WIDTH > 1) | `enzyme_dup` |
//! | `DualOnly` | forward | as `Dual` | as `Dual`; the primal result behind `x` is not needed | `enzyme_dupnoneed` |
//! | `Dualv` | forward | slices, references | `x, dx`: one buffer for all lanes, lane l at `dx[l·len..]` (`&[T; WIDTH]` for `&T`) | `enzyme_dupv, size_of::<T>()·len` |
//! | `DualvOnly` | forward | as `Dualv` | as `Dualv`; the primal result behind `x` is not needed | `enzyme_dupnoneedv` |
//!
//! Return activities. Reverse: `Active` (placeholder takes a trailing `seed` and returns
//! `(primal, adjoints…)`), `ActiveOnly` (takes `seed`, returns only the adjoints), `Const` (the return
//! is not differentiated; returns the adjoints). Forward: `Dual` (returns `(primal, tangent)`),
//! `DualOnly` (returns the tangent), `Const` (returns nothing; shadows of `&mut` outputs are written).
//! With WIDTH > 1 a tangent is `[T; WIDTH]`. Several values are returned as a tuple, one as itself,
//! none as `()`. Reverse mode with WIDTH > 1 computes WIDTH gradients from one forward sweep: a
//! `Duplicated` shadow becomes `[&mut [T]; WIDTH]` / `[&mut T; WIDTH]` (one per lane), the seed of
//! an `Active` return `[T; WIDTH]`, and an `Active` argument's adjoint `[T; WIDTH]`.
//!
//! # Custom derivatives and inactive functions
//! `#[custom_reverse(AUG, REV)]`, `#[custom_forward(FWD)]` and `#[inactive]` on a free function
//! inside [`autodiff!`] register hand-written derivatives or mark it as carrying none (Enzyme's
//! `__enzyme_register_gradient_*`, `__enzyme_register_derivative_*`, `__enzyme_inactivefn`). The
//! user's functions take Rust types (a slice with its shadow slice, a float without a shadow); the
//! crate's README lists the convention.
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

pub use synthase_macros::autodiff;

// The entry point's results, in order, with C layout (the shape the engine returns them in).
macro_rules! out_structs {
    ($($name:ident($($t:ident),*);)*) => { $(
        #[doc(hidden)]
        #[repr(C)]
        pub struct $name<$($t),*>($(pub $t),*);
    )* };
}
out_structs! {
    __O1(A); __O2(A, B); __O3(A, B, C); __O4(A, B, C, D); __O5(A, B, C, D, E); __O6(A, B, C, D, E, F);
    __O7(A, B, C, D, E, F, G); __O8(A, B, C, D, E, F, G, H); __O9(A, B, C, D, E, F, G, H, I);
    __O10(A, B, C, D, E, F, G, H, I, J); __O11(A, B, C, D, E, F, G, H, I, J, K);
    __O12(A, B, C, D, E, F, G, H, I, J, K, L);
}

/// A registration static of `#[custom_reverse]` / `#[custom_forward]` / `#[inactive]`: the
/// function addresses the plugin reads (the same shape as Enzyme's `void *__enzyme_…[N]`).
#[doc(hidden)]
#[repr(transparent)]
pub struct __Registration<const N: usize>(pub [*const (); N]);
// Only addresses of functions, never dereferenced by Rust code.
unsafe impl<const N: usize> Sync for __Registration<N> {}

//! What a user tells the engine about a function: `#[custom_reverse(AUG, REV)]` and
//! `#[custom_forward(FWD)]` register hand-written derivatives, `#[inactive]` marks a function that
//! carries no derivative. Each becomes the registration static the plugin reads in every language
//! (`__enzyme_register_gradient_*`, `__enzyme_register_derivative_*`, `__enzyme_inactivefn_*`; the
//! plugin matches the name's part, so rustc's mangling around it does not matter).
//!
//! The engine calls registered functions in Enzyme's C convention at the level of LLVM parameters
//! (a slice is a pointer and a length, an integer is followed by itself, a pointer by its shadow).
//! The user writes them with Rust types instead; this module writes the `extern "C-unwind"` shims
//! between the two, so the user's functions never see raw pointers or the duplicated lengths.
use crate::gen::{classify, params, Kind, Param};
use crate::parse::{split_commas, text, FnSig};
use crate::{err, Error};
use proc_macro::{Span, TokenTree};

pub enum Custom {
    Reverse { aug: String, rev: String, span: Span },
    Forward { fwd: String, span: Span },
    Inactive { span: Span },
}

pub fn parse_attr(name: &str, args: Option<Vec<TokenTree>>, span: Span) -> Result<Custom, Error> {
    let parts: Vec<String> = args.as_deref().map(split_commas).unwrap_or_default().iter().map(|p| text(p)).collect();
    match (name, parts.len()) {
        ("inactive", 0) => Ok(Custom::Inactive { span }),
        ("custom_reverse", 2) => Ok(Custom::Reverse { aug: parts[0].clone(), rev: parts[1].clone(), span }),
        ("custom_forward", 1) => Ok(Custom::Forward { fwd: parts[0].clone(), span }),
        ("inactive", _) => err(span, "write `#[inactive]` (no arguments)"),
        ("custom_reverse", _) => err(span, "write `#[custom_reverse(AUGMENTED_FN, REVERSE_FN)]`"),
        _ => err(span, "write `#[custom_forward(FORWARD_FN)]`"),
    }
}

impl Custom {
    pub fn span(&self) -> Span {
        match self {
            Custom::Reverse { span, .. } | Custom::Forward { span, .. } | Custom::Inactive { span } => *span,
        }
    }
}

/// One parameter of f as the shims see it: the C-level parameters it becomes and how the user's
/// function receives it.
struct Shim {
    c_params: String, // declarations in the shim's parameter list
    prep: String,     // statements before the call
    primal: String,   // the argument passed for the primal
    shadow: Option<String>,
}

fn shim_param(p: &Param, i: usize, reverse: bool, span: Span) -> Result<Shim, Error> {
    let (x, d, n) = (format!("__x{i}"), format!("__d{i}"), format!("__n{i}"));
    let zeroed = "unsafe { ::core::mem::zeroed() }";
    Ok(match &p.kind {
        Kind::Scalar { float: true, generic: None } => {
            let ty = &p.ty;
            if reverse {
                Shim { c_params: format!("{x}: {ty}"), prep: String::new(), primal: x, shadow: None }
            } else {
                Shim { c_params: format!("{x}: {ty}, {d}: {ty}"), prep: String::new(), primal: x, shadow: Some(d) }
            }
        }
        Kind::Scalar { float: false, generic: None } => {
            let ty = &p.ty;
            Shim { c_params: format!("{x}: {ty}, _: {ty}"), prep: String::new(), primal: x, shadow: None }
        }
        Kind::Slice { elem } => {
            let (cm, mm) = if p.ty.contains("mut") { ("mut", "_mut") } else { ("const", "") };
            // The engine passes a null shadow for an argument it holds constant: the user's
            // function gets a zeroed scratch slice (a zero tangent; adjoints written to it vanish).
            let (dty, dmk) = if reverse || cm == "mut" { ("*mut", "_mut") } else { ("*const", "") };
            let prep = format!(
                "let mut __s{i}: ::std::vec::Vec<{elem}> = ::std::vec::Vec::new(); \
                 let {x} = unsafe {{ ::core::slice::from_raw_parts{mm}({x}, {n}) }}; \
                 let {d} = if {d}.is_null() {{ __s{i} = (0..{n}).map(|_| {zeroed}).collect(); &{amp}__s{i}[..] }} \
                           else {{ unsafe {{ ::core::slice::from_raw_parts{dmk}({d}, {n}) }} }}; ",
                amp = if dmk.is_empty() { "" } else { "mut " });
            Shim { c_params: format!("{x}: *{cm} {elem}, {d}: {dty} {elem}, {n}: usize, _: usize"), prep, primal: x, shadow: Some(d) }
        }
        Kind::Ref { mutable, inner } => {
            let cm = if *mutable { "mut" } else { "const" };
            let dm = reverse || *mutable;
            let prep = format!(
                "let mut __s{i} = ::core::mem::MaybeUninit::<{inner}>::zeroed(); \
                 let {x} = unsafe {{ &{xm}*{x} }}; \
                 let {d} = if {d}.is_null() {{ unsafe {{ &{dmut}*__s{i}.as_mut_ptr() }} }} else {{ unsafe {{ &{dmut}*{d} }} }}; ",
                xm = if *mutable { "mut " } else { "" }, dmut = if dm { "mut " } else { "" });
            Shim { c_params: format!("{x}: *{cm} {inner}, {d}: *{} {inner}", if dm { "mut" } else { "const" }), prep, primal: x, shadow: Some(d) }
        }
        Kind::Ptr { inner } => {
            let cm = if p.ty.contains("mut") { "mut" } else { "const" };
            Shim { c_params: format!("{x}: *{cm} {inner}, {d}: *mut {inner}"), prep: String::new(), primal: x, shadow: Some(d) }
        }
        _ => return err(span, format!(
            "synthase::autodiff!: a function with a custom derivative takes floats, integers, references, slices and raw pointers; `{}: {}` is none of these",
            p.name, p.ty)),
    })
}

/// The items for one `#[custom_*]` / `#[inactive]` attribute of the free function `sig`.
pub fn registration(sig: &FnSig, c: &Custom) -> Result<String, Error> {
    let fname = sig.name.to_string();
    if !sig.generics.is_empty() {
        return err(c.span(), "synthase::autodiff!: custom derivatives and `#[inactive]` need a function that is not generic (the registration names one function)");
    }
    let unit = "#[used] #[doc(hidden)] #[allow(non_upper_case_globals)]";
    let reg = |name: &str, fns: &[String]| {
        let n = fns.len();
        format!("{unit} static {name}: ::synthase::__Registration<{n}> = ::synthase::__Registration([{}]);\n",
            fns.iter().map(|f| format!("{f} as *const ()")).collect::<Vec<_>>().join(", "))
    };
    if let Custom::Inactive { .. } = c {
        return Ok(reg(&format!("__enzyme_inactivefn_{fname}"), &[fname]));
    }
    let ps = params(sig)?;
    if let Some(p) = ps.iter().find(|p| p.receiver) {
        return err(p.span, "synthase::autodiff!: custom derivatives are registered for free functions; call a free function from the method");
    }
    let ret = text(&sig.ret);
    let has_ret = !(ret.is_empty() || ret == "()");
    let rkind = if has_ret { Some(classify(&sig.ret, &[], c.span())?) } else { None };
    let ret_float = matches!(rkind, Some(Kind::Scalar { float: true, .. }));
    if has_ret && !matches!(rkind, Some(Kind::Scalar { generic: None, .. })) {
        return err(c.span(), format!("synthase::autodiff!: a function with a custom derivative returns a float, an integer or nothing; `{fname}` returns `{ret}`"));
    }
    let reverse = matches!(c, Custom::Reverse { .. });
    if has_ret && !ret_float {
        let attr = if reverse { "custom_reverse" } else { "custom_forward" };
        return err(c.span(), format!("synthase::autodiff!: `#[{attr}]` on `{fname}`, which returns the integer type `{ret}`: return it through a `&mut` parameter instead"));
    }
    let mut shims = Vec::new();
    for (i, p) in ps.iter().enumerate() {
        shims.push(shim_param(p, i, reverse, p.span)?);
    }
    let c_params: Vec<&str> = shims.iter().map(|s| s.c_params.as_str()).collect();
    let prep: String = shims.iter().map(|s| s.prep.as_str()).collect();
    let mut call: Vec<String> = Vec::new();
    for s in &shims {
        call.push(s.primal.clone());
        if let Some(d) = &s.shadow { call.push(d.clone()); }
    }
    let attrs = "#[doc(hidden)] #[inline(never)] #[allow(non_snake_case, unused_mut, unused_unsafe, unused_assignments, clippy::all)]";
    let rt = if has_ret { format!(" -> {ret}") } else { String::new() };
    let mut items = String::new();
    match c {
        Custom::Forward { fwd, .. } => {
            let s = format!("__synthase_fwd_{fname}");
            items += &format!("{attrs} extern \"C-unwind\" fn {s}({}){rt} {{ {prep} {fwd}({}) }}\n",
                c_params.join(", "), call.join(", "));
            items += &reg(&format!("__enzyme_register_derivative_{fname}"), &[fname.clone(), s]);
        }
        Custom::Reverse { aug, rev, .. } => {
            let (a, r) = (format!("__synthase_aug_{fname}"), format!("__synthase_rev_{fname}"));
            // The user's augmented function returns (result, tape); the tape rides on Synthase's
            // tape as a boxed pointer, which the reverse shim unboxes and hands over by value.
            // (The tape travels as an integer: `{tape, result}` returned in registers is an
            // integer and a float at the C level, and both shims must agree on the tape's type.)
            let boxed = "::std::boxed::Box::into_raw(::std::boxed::Box::new(__t)) as usize";
            let (aret, abody) = if has_ret {
                (format!(" -> ::synthase::__O2<usize, {ret}>"),
                 format!("let (__r, __t) = {aug}({}); ::synthase::__O2({boxed}, __r)", call.join(", ")))
            } else {
                (" -> usize".to_string(), format!("let __t = {aug}({}); {boxed}", call.join(", ")))
            };
            items += &format!("{attrs} extern \"C-unwind\" fn {a}({}){aret} {{ {prep} {abody} }}\n", c_params.join(", "));
            let mut rparams = c_params.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            let mut rcall = call.clone();
            if ret_float {
                rparams.push(format!("__dret: {ret}"));
                rcall.push("__dret".into());
            }
            rparams.push("__tape: usize".into());
            rcall.push("*unsafe { ::std::boxed::Box::from_raw(__tape as *mut _) }".into());
            let floats: Vec<&Param> = ps.iter().filter(|p| matches!(p.kind, Kind::Scalar { float: true, .. })).collect();
            let (rret, rbody) = match floats.len() {
                0 => (String::new(), format!("let () = {rev}({});", rcall.join(", "))),
                1 => (format!(" -> {}", floats[0].ty), format!("{rev}({})", rcall.join(", "))),
                n => {
                    let names: Vec<String> = (0..n).map(|k| format!("__a{k}")).collect();
                    let tys: Vec<&str> = floats.iter().map(|p| p.ty.as_str()).collect();
                    (format!(" -> ::synthase::__O{n}<{}>", tys.join(", ")),
                     format!("let ({}) = {rev}({}); ::synthase::__O{n}({})", names.join(", "), rcall.join(", "), names.join(", ")))
                }
            };
            items += &format!("{attrs} extern \"C-unwind\" fn {r}({}){rret} {{ {prep} {rbody} }}\n", rparams.join(", "));
            items += &reg(&format!("__enzyme_register_gradient_{fname}"), &[fname.clone(), a, r]);
        }
        Custom::Inactive { .. } => unreachable!(),
    }
    Ok(items)
}

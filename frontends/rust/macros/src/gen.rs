//! One placeholder (and, for by-value structs/tuples, a shim) per `#[autodiff_*]` attribute.
//!
//! Operands follow rustc's autodiff convention: markers are the addresses of the `extern` statics
//! `synthase::enzyme_*`; a slice is `ptr, shadow_ptr…, enzyme_const, len`. A by-value struct or
//! tuple (whose IR shape depends on rustc's ABI) is passed by reference to a *shim* that reads it
//! and calls the function; a struct or tuple result is written by the shim through an out pointer
//! whose shadow carries the seed (reverse) or receives the tangent (forward).
use crate::parse::{is_ident, is_punct, split_commas, text, AdAttr, Ctx, FnSig};
use crate::{err, Error};
use proc_macro::{Span, TokenTree};

const PRIMS: &[&str] = &["f64", "f32", "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize", "bool", "char"];
const MAX_WIDTH: u32 = 64;

#[derive(Clone, PartialEq)]
pub(crate) enum Kind {
    Scalar { float: bool, generic: Option<String> },
    Slice { elem: String },
    Ref { mutable: bool, inner: String },
    Ptr { inner: String },
    // `&dyn Trait` / `&mut dyn Trait`: (data, vtable) at IR level
    Dyn,
    Agg,
}

pub(crate) struct Param {
    pub name: String,   // as used in the placeholder's body (`self` for receivers)
    decl: String,   // as declared in the placeholder (`&self`, `x: &[f64]`)
    pub ty: String,     // the type (`&Self` for `&self`)
    pub kind: Kind,
    pub toks: Vec<TokenTree>, // the type's tokens
    #[allow(dead_code)]
    pub span: Span,
    pub receiver: bool,
}

pub(crate) fn classify(t: &[TokenTree], generic_types: &[String], span: Span) -> Result<Kind, Error> {
    if is_ident(t.first(), "impl") {
        return err(span, "synthase::autodiff!: `impl Trait` parameters cannot be named in the derivative; use a generic parameter `<F: Trait>`");
    }
    if is_punct(t.first(), '&') {
        let mut i = 1;
        if is_punct(t.get(i), '\'') {
            i += 2;
        }
        let mutable = is_ident(t.get(i), "mut");
        if mutable {
            i += 1;
        }
        let rest = &t[i..];
        if is_ident(rest.first(), "dyn") {
            return Ok(Kind::Dyn);
        }
        if let [TokenTree::Ident(s)] = rest {
            if s.to_string() == "str" {
                return Ok(Kind::Slice { elem: "u8".into() });
            }
        }
        if let [TokenTree::Group(g)] = rest {
            if g.delimiter() == proc_macro::Delimiter::Bracket && !g.stream().into_iter().any(|x| is_punct(Some(&x), ';')) {
                return Ok(Kind::Slice { elem: g.stream().to_string() });
            }
        }
        return Ok(Kind::Ref { mutable, inner: text(rest) });
    }
    if is_punct(t.first(), '*') && (is_ident(t.get(1), "const") || is_ident(t.get(1), "mut")) {
        return Ok(Kind::Ptr { inner: text(&t[2..]) });
    }
    if let [TokenTree::Ident(i)] = t {
        let s = i.to_string();
        if PRIMS.contains(&s.as_str()) {
            return Ok(Kind::Scalar { float: s == "f64" || s == "f32", generic: None });
        }
        if generic_types.contains(&s) {
            return Ok(Kind::Scalar { float: true, generic: Some(s) });
        }
    }
    Ok(Kind::Agg)
}

/// The owning containers and smart pointers of std whose data lives behind a pointer.
const HEAP: &[&str] = &["Vec", "VecDeque", "String", "Box", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap", "BTreeSet",
    "LinkedList", "BinaryHeap", "Cow", "NonNull"];

/// A by-value type whose floats are reached through a pointer (`Vec<f64>`, `(f64, &f64)`,
/// `Option<Box<T>>`): such a value has no adjoint of its own type to seed or return, since its
/// shadow would be a second allocation, which the engine makes itself and the seed cannot reach.
pub(crate) fn holds_pointer(t: &[TokenTree]) -> Option<String> {
    for (i, x) in t.iter().enumerate() {
        match x {
            TokenTree::Ident(id) if HEAP.contains(&id.to_string().as_str()) => return Some(id.to_string()),
            TokenTree::Punct(p) if p.as_char() == '&' => return Some("&".into()),
            TokenTree::Punct(p) if p.as_char() == '*' && (is_ident(t.get(i + 1), "const") || is_ident(t.get(i + 1), "mut")) => {
                return Some("raw pointer".into())
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                if let Some(h) = holds_pointer(&inner) { return Some(h); }
            }
            _ => {}
        }
    }
    None
}

/// `f64`, `f32`, or `Vec<..>` / `Box<..>` of those, nested: owned results whose tangent the
/// engine builds whole (the shadow buffer and the primal's length and capacity beside it).
fn owned_floats(t: &[TokenTree]) -> bool {
    match t {
        [TokenTree::Ident(f)] => matches!(f.to_string().as_str(), "f64" | "f32"),
        [TokenTree::Ident(c), TokenTree::Punct(l), inner @ .., TokenTree::Punct(r)]
            if matches!(c.to_string().as_str(), "Vec" | "Box") && l.as_char() == '<' && r.as_char() == '>' => owned_floats(inner),
        _ => false,
    }
}

pub(crate) fn params(sig: &FnSig) -> Result<Vec<Param>, Error> {
    let toks: Vec<TokenTree> = sig.params.stream().into_iter().collect();
    let mut out = Vec::new();
    for (n, p) in split_commas(&toks).into_iter().enumerate() {
        let span = p.first().map_or(sig.params.span(), |t| t.span());
        // Receivers: self, mut self, &self, &mut self, &'a self, &'a mut self, self: T.
        let colon = p.iter().position(|t| is_punct(Some(t), ':') );
        let head = &p[..colon.unwrap_or(p.len())];
        if head.iter().any(|t| is_ident(Some(t), "self")) {
            if let Some(c) = colon {
                let ty = &p[c + 1..];
                out.push(Param { name: "self".into(), decl: text(&p), ty: text(ty), kind: classify(ty, &sig.generic_types, span)?, toks: ty.to_vec(), span, receiver: true });
                continue;
            }
            let by_ref = is_punct(head.first(), '&');
            let mutable = head.iter().any(|t| is_ident(Some(t), "mut"));
            let (ty, kind) = if by_ref {
                (if mutable { "&mut Self" } else { "&Self" }.to_string(), Kind::Ref { mutable, inner: "Self".into() })
            } else {
                ("Self".to_string(), Kind::Agg)
            };
            let decl = if by_ref { text(head) } else { "self".to_string() };
            out.push(Param { name: "self".into(), decl, ty, kind, toks: vec![], span, receiver: true });
            continue;
        }
        let Some(c) = colon else { return err(span, "expected `name: Type`") };
        let name = match head {
            [TokenTree::Ident(i)] => i.to_string(),
            [m, TokenTree::Ident(i)] if is_ident(Some(m), "mut") => i.to_string(),
            _ => return err(span, "synthase::autodiff!: parameters must be plain names (`x: T` or `mut x: T`), not patterns"),
        };
        let name = if name == "_" { format!("__arg{n}") } else { name };
        let ty = &p[c + 1..];
        let kind = classify(ty, &sig.generic_types, span)?;
        out.push(Param { decl: format!("{name}: {}", text(ty)), name, ty: text(ty), kind, toks: ty.to_vec(), span, receiver: false });
    }
    Ok(out)
}

const C: &str = "&raw const ::synthase::enzyme_const";

fn lane(name: &str, w: u32, l: u32) -> String {
    if w == 1 { name.to_string() } else { format!("{name}[{l}]") }
}
/// Lane `l` of a `MaybeUninit<[T; W]>` (or of a `MaybeUninit<T>` at width 1) as `*mut T`.
fn lane_ptr(name: &str, ty: &str, w: u32, l: u32) -> String {
    if w == 1 { format!("{name}.as_mut_ptr()") } else { format!("unsafe {{ ({name}.as_mut_ptr() as *mut {ty}).add({l}) }}") }
}
/// A compile-time refusal of by-value adjoints for types that own heap memory: their zero or
/// seed would be a struct of dangling pointers, and no adjoint of that type reaches the shadow.
fn no_drop(ty: &str, what: &str, hint: &str) -> String {
    format!("const {{ ::core::assert!(!::core::mem::needs_drop::<{ty}>(), \"synthase: {} is `Active` but owns heap memory \
             (a Vec, Box or String inside), so it has no adjoint of its own type: {}\") }}; ", what.replace('"', "'"), hint)
}
fn lanety(ty: &str, w: u32) -> String {
    if w == 1 { ty.to_string() } else { format!("[{ty}; {w}]") }
}

pub fn derivative(sig: &FnSig, ad: &AdAttr, ctx: &Ctx) -> Result<String, Error> {
    let args = split_commas(&ad.args);
    let fname = sig.name.to_string();
    let mode = if ad.reverse { "autodiff_reverse" } else { "autodiff_forward" };
    let dname = match args.first().map(|a| a.as_slice()) {
        Some([TokenTree::Ident(i)]) => i.to_string(),
        _ => return err(ad.span, format!("{mode}: the first argument is the derivative's name")),
    };
    let mut rest = &args[1..];
    let mut width = 1u32;
    if let Some([TokenTree::Literal(l)]) = rest.first().map(|a| a.as_slice()) {
        let w: u32 = l.to_string().parse().unwrap_or(0);
        if !(1..=MAX_WIDTH).contains(&w) {
            return err(l.span(), format!("{mode}: the width must be an integer from 1 to {MAX_WIDTH}"));
        }
        width = w;
        rest = &rest[1..];
    }
    let mut acts = Vec::new();
    for a in rest {
        match a.as_slice() {
            [TokenTree::Ident(i)] => acts.push((i.to_string(), i.span())),
            other => return err(other.first().map_or(ad.span, |t| t.span()), format!("{mode}: expected an activity name")),
        }
    }
    let ps = params(sig)?;
    let ret = text(&sig.ret);
    let has_ret = !(ret.is_empty() || ret == "()");
    let want = ps.len() + has_ret as usize;
    if acts.len() != want {
        let names: Vec<&str> = ps.iter().map(|p| p.name.as_str()).collect();
        return err(acts.get(want).map_or(ad.span, |a| a.1), format!(
            "{mode}({dname}): {} activities given, {want} expected: one per parameter ({}){}",
            acts.len(), names.join(", "), if has_ret { " and one for the return value" } else { " (the function returns nothing)" }));
    }
    let mut po = Vec::new(); // placeholder parameters
    let mut pre = String::new();
    let mut ops = String::new();
    let mut post = String::new();
    let mut outs: Vec<(String, String)> = Vec::new(); // entry point results (name, type)
    let mut results: Vec<(String, String)> = Vec::new(); // placeholder results (expr, type)
    let mut bounds: Vec<String> = Vec::new();
    let mut shim = ps.iter().any(|p| p.kind == Kind::Agg);
    let va = |p: &Param, bounds: &mut Vec<String>, v: &str| {
        if let Kind::Scalar { generic: Some(g), .. } = &p.kind {
            let b = format!("{g}: ::synthase::VarArg");
            if !bounds.contains(&b) { bounds.push(b); }
        }
        format!("::synthase::__va({v})")
    };
    for (p, (act, aspan)) in ps.iter().zip(&acts) {
        let aspan = *aspan;
        let v = &p.name;
        let d = format!("d_{}", if p.receiver { "self" } else { v });
        po.push(p.decl.clone());
        let marker = match act.as_str() {
            "Duplicated" | "Dual" => "enzyme_dup",
            "DuplicatedOnly" | "DualOnly" => "enzyme_dupnoneed",
            _ => "",
        };
        let m = format!("&raw const ::synthase::{marker}");
        match (ad.reverse, act.as_str(), &p.kind) {
            (_, "Const", Kind::Scalar { .. }) => ops += &format!("{C}, {}, ", va(p, &mut bounds, v)),
            (_, "Const", Kind::Slice { .. }) => ops += &format!("{C}, {v}.as_ptr(), {C}, {v}.len(), "),
            (_, "Const", Kind::Ref { .. }) => ops += &format!("{C}, &raw const *{v}, "),
            (_, "Const", Kind::Ptr { .. }) => ops += &format!("{C}, {v}, "),
            (_, "Const", Kind::Dyn) => {
                pre += &format!("let __dyn_{v}: [*const (); 2] = unsafe {{ ::core::mem::transmute::<_, [*const (); 2]>({v}) }}; ");
                ops += &format!("{C}, __dyn_{v}[0], {C}, __dyn_{v}[1], ");
            }
            (_, _, Kind::Dyn) => return err(aspan, format!("synthase::autodiff!: `{v}` is a trait object; trait objects can only be `Const` (the functions behind a vtable are not differentiated through)")),
            (_, "Const", Kind::Agg) => {
                ops += &format!("{C}, &raw const {v}, ");
                post += &format!("::core::mem::forget({v}); ");
            }
            (true, "Active", Kind::Scalar { float: true, .. }) => {
                ops += &format!("&raw const ::synthase::enzyme_out, {}, ", va(p, &mut bounds, v));
                // The engine returns an active scalar's W adjoints in a row: `[T; W]`.
                outs.push((d.clone(), lanety(&p.ty, width)));
                results.push((d, lanety(&p.ty, width)));
            }
            (true, "Active", Kind::Agg) if holds_pointer(&p.toks).is_some() => return err(aspan, format!(
                "autodiff_reverse: `{v}: {}` holds its data behind a pointer ({}), so it has no adjoint of its own type: \
                 pass it by reference (`&[f64]`, `&T`) as `Duplicated`, or as `Const`", p.ty, holds_pointer(&p.toks).unwrap())),
            (true, "Active", Kind::Agg) => {
                pre += &format!("{} let mut {d}: {} = unsafe {{ ::core::mem::zeroed() }}; ", no_drop(&p.ty, &format!("argument `{v}`"), "pass it by reference as `Duplicated`, or as `Const`"), lanety(&p.ty, width));
                ops += &format!("&raw const ::synthase::enzyme_dup, &raw const {v}, ");
                for l in 0..width { ops += &format!("&raw mut {}, ", lane(&d, width, l)); }
                post += &format!("::core::mem::forget({v}); ");
                results.push((d, lanety(&p.ty, width)));
            }
            (true, "Active", _) => return err(aspan, format!("autodiff_reverse: `Active` is for floats and structs/tuples of floats passed by value; `{v}` is a reference, slice or pointer: use `Duplicated`")),
            // Width W > 1: one shadow per lane, `[&mut [T]; W]` (lane l's gradient goes to `d_x[l]`).
            (true, "Duplicated" | "DuplicatedOnly", Kind::Slice { elem }) => {
                po.push(format!("{d}: {}", lanety(&format!("&mut [{elem}]"), width)));
                ops += &format!("{m}, {v}.as_ptr(), ");
                for l in 0..width {
                    let s = lane(&d, width, l);
                    pre += &format!("::core::assert!({s}.len() >= {v}.len(), \"synthase: the shadow `{s}` is shorter than the slice `{v}`\"); ");
                    ops += &format!("{s}.as_mut_ptr(), ");
                }
                ops += &format!("{C}, {v}.len(), ");
            }
            (true, "Duplicated" | "DuplicatedOnly", Kind::Ref { inner, .. }) => {
                po.push(format!("{d}: {}", lanety(&format!("&mut {inner}"), width)));
                ops += &format!("{m}, &raw const *{v}, ");
                for l in 0..width { ops += &format!("&raw mut *{}, ", lane(&d, width, l)); }
            }
            (true, "Duplicated" | "DuplicatedOnly", Kind::Ptr { inner }) => {
                po.push(format!("{d}: {}", lanety(&format!("*mut {inner}"), width)));
                ops += &format!("{m}, {v}, ");
                for l in 0..width { ops += &format!("{}, ", lane(&d, width, l)); }
            }
            // Dualv: all lanes in one shadow buffer, lane l at element l·len (rustc's strided
            // convention: `enzyme_dupv, stride = size_of::<T>() · len, ptr, shadow, enzyme_const, len`).
            (false, "Dualv" | "DualvOnly", Kind::Slice { elem }) => {
                let vm = if act == "Dualv" { "enzyme_dupv" } else { "enzyme_dupnoneedv" };
                po.push(format!("{d}: {}", p.ty));
                pre += &format!("::core::assert!({d}.len() >= {width} * {v}.len(), \"synthase: the strided tangent `{d}` needs {width} × {v}.len() elements (lane l at l·len)\"); ");
                ops += &format!("&raw const ::synthase::{vm}, (::core::mem::size_of::<{elem}>() * {v}.len()) as i64, {v}.as_ptr(), {d}.as_ptr(), {C}, {v}.len(), ");
            }
            (false, "Dualv" | "DualvOnly", Kind::Ref { mutable, inner }) => {
                let vm = if act == "Dualv" { "enzyme_dupv" } else { "enzyme_dupnoneedv" };
                let amp = if *mutable { "&mut" } else { "&" };
                po.push(format!("{d}: {amp} [{inner}; {width}]"));
                ops += &format!("&raw const ::synthase::{vm}, (::core::mem::size_of::<{inner}>()) as i64, &raw const *{v}, {d}.as_ptr(), ");
            }
            (false, "Dualv" | "DualvOnly", _) => return err(aspan, format!("autodiff_forward: `{act}` (strided tangents in one buffer) is for slices and references; `{v}` is passed by value: use `Dual` (one tangent per lane)")),
            (true, "Dualv" | "DualvOnly", _) => return err(aspan, format!("autodiff_reverse: `{act}` is a forward-mode activity; in reverse mode use `Duplicated` with a width (one shadow per lane)")),
            (true, "Duplicated" | "DuplicatedOnly", _) => return err(aspan, format!("autodiff_reverse: `{act}` needs a reference, slice or raw pointer; `{v}` is passed by value: use `Active` (its adjoint is returned) or `Const`")),
            (false, "Dual" | "DualOnly", k) => {
                po.push(format!("{d}: {}", lanety(&p.ty, width)));
                ops += &format!("{m}, ");
                match k {
                    Kind::Scalar { .. } => {
                        ops += &format!("{}, ", va(p, &mut bounds, v));
                        for l in 0..width { ops += &format!("{}, ", va(p, &mut bounds, &lane(&d, width, l))); }
                    }
                    Kind::Slice { .. } => {
                        ops += &format!("{v}.as_ptr(), ");
                        for l in 0..width {
                            let s = lane(&d, width, l);
                            pre += &format!("::core::assert!({s}.len() >= {v}.len(), \"synthase: the tangent `{s}` is shorter than the slice `{v}`\"); ");
                            ops += &format!("{s}.as_ptr(), ");
                        }
                        ops += &format!("{C}, {v}.len(), ");
                    }
                    Kind::Ref { .. } => {
                        ops += &format!("&raw const *{v}, ");
                        for l in 0..width { ops += &format!("&raw const *{}, ", lane(&d, width, l)); }
                    }
                    Kind::Ptr { .. } => {
                        ops += &format!("{v}, ");
                        for l in 0..width { ops += &format!("{}, ", lane(&d, width, l)); }
                    }
                    Kind::Dyn => unreachable!("trait objects are Const"),
                    Kind::Agg => {
                        ops += &format!("&raw const {v}, ");
                        for l in 0..width { ops += &format!("&raw const {}, ", lane(&d, width, l)); }
                        post += &format!("::core::mem::forget({v}); ");
                    }
                }
            }
            (true, _, _) => return err(aspan, format!("autodiff_reverse: activity `{act}` (parameter `{v}`) is not one of Const, Active, Duplicated, DuplicatedOnly")),
            (false, _, _) => return err(aspan, format!("autodiff_forward: activity `{act}` (parameter `{v}`) is not one of Const, Dual, DualOnly, Dualv, DualvOnly")),
        }
    }
    // The return value.
    let mut front = String::new();
    let mut tail = String::new();
    let mut out_param = false;
    if has_ret {
        let (ract, rspan) = acts.last().unwrap().clone();
        let rkind = classify(&sig.ret, &sig.generic_types, rspan)?;
        let scalar_float = matches!(rkind, Kind::Scalar { float: true, .. });
        let literal_float = ret == "f64" || ret == "f32";
        let nonfloat = matches!(rkind, Kind::Scalar { float: false, .. });
        let generic = matches!(rkind, Kind::Scalar { generic: Some(_), .. });
        if let Kind::Scalar { generic: Some(g), .. } = &rkind {
            let b = format!("{g}: ::synthase::VarArg");
            if !bounds.contains(&b) { bounds.push(b); }
        }
        let by_value = matches!(rkind, Kind::Scalar { .. });
        match (ad.reverse, ract.as_str()) {
            (true, "Active" | "ActiveOnly") if holds_pointer(&sig.ret).is_some() => return err(rspan, format!(
                "autodiff_reverse: `{fname}` returns `{ret}`, which holds its data behind a pointer ({}): a seed of that type \
                 cannot reach the result's shadow. Write the result into a `&mut [f64]` (or `&mut T`) parameter marked \
                 `Duplicated` and seed its shadow, or return `Const`", holds_pointer(&sig.ret).unwrap())),
            (true, "Active" | "ActiveOnly") if nonfloat => return err(rspan, format!("autodiff_reverse: `{fname}` returns `{ret}`, which has no derivative: use `Const`")),
            (true, "Active" | "ActiveOnly") if scalar_float => {
                po.push(format!("seed: {}", lanety(&ret, width)));
                for l in 0..width { tail += &format!("::synthase::__va({}), ", lane("seed", width, l)); }
                if ract == "Active" {
                    front = "&raw const ::synthase::enzyme_primal_return, ".into();
                    outs.insert(0, ("__primal".into(), ret.clone()));
                    results.insert(0, ("__primal".into(), ret.clone()));
                }
            }
            (true, "Const") if literal_float => for _ in 0..width { tail += "0.0f64, "; },
            (true, "Const") if nonfloat => {}
            (true, "Active" | "ActiveOnly" | "Const") => {
                // struct / tuple / generic result: through the shim's out pointer
                out_param = true;
                let st = lanety(&ret, width);
                let mut ops_lanes = Vec::new();
                if ract == "Const" {
                    // A zeroed shadow the engine may write through; never read back, never dropped.
                    pre += &format!("let mut __dout = ::core::mem::MaybeUninit::<{st}>::zeroed(); ");
                    for l in 0..width { ops_lanes.push(lane_ptr("__dout", &ret, width, l)); }
                } else {
                    pre += &no_drop(&ret, "the result", "write it into a `&mut T` parameter marked `Duplicated` and seed its shadow, or return `Const`");
                    po.push(format!("seed: {st}"));
                    pre += &format!("let mut __dout: {st} = seed; ");
                    for l in 0..width { ops_lanes.push(format!("&raw mut {}", lane("__dout", width, l))); }
                    post += "::core::mem::forget(__dout); ";
                }
                pre += &format!("let mut __out = ::core::mem::MaybeUninit::<{ret}>::uninit(); ");
                ops += "&raw const ::synthase::enzyme_dup, __out.as_mut_ptr(), ";
                for o in ops_lanes.drain(..) { ops += &format!("{o}, "); }
                if ract == "Active" {
                    results.insert(0, ("unsafe { __out.assume_init() }".into(), ret.clone()));
                } else {
                    post += "unsafe { __out.assume_init_drop() }; ";
                }
            }
            (false, "Dual" | "DualOnly") if by_value || generic => {
                let tt = lanety(&ret, width);
                if ract == "Dual" {
                    front = "&raw const ::synthase::enzyme_primal_return, ".into();
                    outs.push(("__primal".into(), ret.clone()));
                    results.push(("__primal".into(), ret.clone()));
                }
                outs.push(("__tangent".into(), tt.clone()));
                results.push(("__tangent".into(), tt));
            }
            (false, "Const") if by_value => {}
            (false, "Dual" | "DualOnly" | "Const") => {
                out_param = true;
                let tt = lanety(&ret, width);
                // The tangent starts as zero bytes (a Vec's tangent is only valid once the engine
                // has written its shadow pointer), so it lives in a MaybeUninit until the call returns.
                pre += &format!("let mut __out = ::core::mem::MaybeUninit::<{ret}>::uninit(); let mut __tout = ::core::mem::MaybeUninit::<{tt}>::zeroed(); ");
                // Other types that own heap memory (a struct holding a Vec): in untyped Rust IR the
                // engine cannot tell their length and capacity from addresses, and the tangent's
                // would stay zero (an empty Vec): refused instead.
                if !owned_floats(&sig.ret) {
                    pre += &format!("const {{ ::core::assert!(!::core::mem::needs_drop::<{ret}>(), \"synthase: the result of `{fname}` \
                                     owns heap memory inside a struct or tuple, and its tangent cannot be built: return a `Vec<f64>` \
                                     of its own, or write the values into a `&mut [f64]` parameter marked `Dual`\") }}; ");
                }
                ops += "&raw const ::synthase::enzyme_dup, __out.as_mut_ptr(), ";
                for l in 0..width { ops += &format!("{}, ", lane_ptr("__tout", &ret, width, l)); }
                if ract == "Dual" {
                    results.push(("unsafe { __out.assume_init() }".into(), ret.clone()));
                } else {
                    post += "unsafe { __out.assume_init_drop() }; ";
                }
                if ract != "Const" { results.push(("unsafe { __tout.assume_init() }".into(), tt)); }
            }
            (true, _) => return err(rspan, format!("autodiff_reverse: return activity `{ract}` is not one of Active, ActiveOnly, Const")),
            (false, _) => return err(rspan, format!("autodiff_forward: return activity `{ract}` is not one of Dual, DualOnly, Const")),
        }
    }
    shim |= out_param;
    if width > 1 {
        front += &format!("&raw const ::synthase::enzyme_width, ({width} as i64), ");
    }
    // What the entry point differentiates: the function, or the shim around it.
    let prefix = if ctx.in_impl { "Self::".to_string() } else { String::new() };
    let primal_path = match (&ctx.trait_path, ctx.in_impl) {
        (Some(t), _) => format!("<Self as {t}>::{fname}{}", sig.turbofish),
        (None, true) => format!("Self::{fname}{}", sig.turbofish),
        (None, false) => format!("{fname}{}", sig.turbofish),
    };
    let mut items = String::new();
    let unsafety = if sig.is_unsafe { "unsafe " } else { "" };
    let mut where_preds: Vec<String> = Vec::new();
    if !sig.where_preds.is_empty() { where_preds.push(sig.where_preds.clone()); }
    let user_where = if where_preds.is_empty() { String::new() } else { format!("where {}", where_preds.join(", ")) };
    where_preds.extend(bounds);
    let where_ = if where_preds.is_empty() { String::new() } else { format!("where {}", where_preds.join(", ")) };
    let target = if shim {
        let sname = format!("__synthase_{dname}");
        let mut sp = Vec::new();
        let mut call = Vec::new();
        for (i, p) in ps.iter().enumerate() {
            if p.kind == Kind::Agg {
                sp.push(format!("__a{i}: &{}", p.ty));
                call.push(format!("::core::ptr::read(__a{i})"));
            } else {
                sp.push(format!("__a{i}: {}", p.ty));
                call.push(format!("__a{i}"));
            }
        }
        let body = format!("{primal_path}({})", call.join(", "));
        let (sret, body) = if out_param {
            sp.push(format!("__out: *mut {ret}"));
            (String::new(), format!("::core::ptr::write(__out, {body})"))
        } else if has_ret {
            (format!("-> {ret}"), body)
        } else {
            (String::new(), body)
        };
        items += &format!("#[doc(hidden)] #[inline(never)] #[allow(non_snake_case, clippy::all, unused_unsafe)]\n\
            {unsafety}fn {sname}{}({}) {sret} {user_where} {{ unsafe {{ {body} }} }}\n",
            sig.generics, sp.join(", "));
        format!("{prefix}{sname}{}", sig.turbofish)
    } else {
        primal_path
    };
    let name_msg = if ad.reverse { "__enzyme_autodiff" } else { "__enzyme_fwddiff" };
    let link_name = format!("{name_msg}: Synthase did not run. Build with fat LTO and the plugin: \
        -C lto=fat (or lto = \\\"fat\\\" in the Cargo profile) -C linker-plugin-lto -C linker=clang-22 \
        -C link-arg=-fuse-ld=lld -C link-arg=-Wl,--load-pass-plugin=/abs/path/to/Synthase.so \
        (see the synthase crate's README: .cargo/config.toml, SYNTHASE_PLUGIN)");
    let otys: Vec<&str> = outs.iter().map(|o| o.1.as_str()).collect();
    let onames: Vec<&str> = outs.iter().map(|o| o.0.as_str()).collect();
    let entry_ret = if outs.is_empty() { "()".to_string() } else { format!("::synthase::__O{}<{}>", outs.len(), otys.join(", ")) };
    let pat = if outs.is_empty() { "()".to_string() } else { format!("::synthase::__O{}({})", outs.len(), onames.join(", ")) };
    let rtys: Vec<&str> = results.iter().map(|r| r.1.as_str()).collect();
    let rexprs: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
    let kind = if ad.reverse { "Reverse" } else { "Forward" };
    items += &format!(
        "#[doc = \"{kind}-mode derivative of `{fname}` (written by `synthase::autodiff!`).\"]\n\
         #[allow(unused_parens, unused_mut, unused_unsafe, non_snake_case, improper_ctypes, improper_ctypes_definitions, clippy::all)]\n\
         {vis} {unsafety}fn {dname}{gen}({po}) -> ({rtys}) {where_} {{\n\
           {pre}\n\
           #[allow(improper_ctypes, clashing_extern_declarations)]\n\
           extern \"C-unwind\" {{ #[link_name = \"{link_name}\"] fn __ad(f: *const (), ...); }}\n\
           let {pat}: {entry_ret} = unsafe {{ (::core::mem::transmute::<unsafe extern \"C-unwind\" fn(*const (), ...), \
               unsafe extern \"C-unwind\" fn(*const (), ...) -> {entry_ret}>(__ad))({target} as *const (), {front}{ops}{tail}) }};\n\
           {post}\n\
           ({rexprs})\n\
         }}\n",
        vis = sig.vis, gen = sig.generics, po = po.join(", "), rtys = rtys.join(", "), rexprs = rexprs.join(", "));
    Ok(items)
}

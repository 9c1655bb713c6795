//! Items: attributes, `fn` signatures, `impl` blocks. Everything that is not differentiated is
//! passed through with its tokens (and spans) unchanged.
use crate::{custom, err, gen, Error};
use proc_macro::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

pub struct AdAttr {
    pub reverse: bool,
    pub args: Vec<TokenTree>,
    pub span: Span,
}

/// Where a function lives: free, in an inherent impl, or in a trait impl (`trait_path`).
pub struct Ctx {
    pub in_impl: bool,
    pub trait_path: Option<String>,
    pub generic_types: Vec<String>,
}

pub struct FnSig {
    pub name: Ident,
    pub vis: String,
    pub is_unsafe: bool,
    pub generics: String,
    pub generic_types: Vec<String>,
    pub turbofish: String,
    pub params: Group,
    pub ret: Vec<TokenTree>,
    pub where_preds: String,
}

pub fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}
pub fn is_ident(t: Option<&TokenTree>, s: &str) -> bool {
    matches!(t, Some(TokenTree::Ident(i)) if i.to_string() == s)
}
pub fn text(t: &[TokenTree]) -> String {
    t.iter().cloned().collect::<TokenStream>().to_string()
}
fn stream(t: &[TokenTree]) -> TokenStream {
    t.iter().cloned().collect()
}

/// Splits on top-level commas; `<...>` nesting is tracked (groups are single trees already).
pub fn split_commas(t: &[TokenTree]) -> Vec<Vec<TokenTree>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    let mut prev_dash = false;
    for tt in t {
        let mut dash = false;
        if let TokenTree::Punct(p) = tt {
            match p.as_char() {
                '<' => depth += 1,
                '>' if !prev_dash => depth -= 1,
                ',' if depth == 0 => {
                    out.push(Vec::new());
                    prev_dash = false;
                    continue;
                }
                '-' => dash = true,
                _ => {}
            }
        }
        prev_dash = dash;
        out.last_mut().unwrap().push(tt.clone());
    }
    if out.last().map_or(false, |v| v.is_empty()) {
        out.pop();
    }
    out
}

/// `<...>` starting at `pos` (which holds `<`): returns the tokens including both brackets.
fn angle(toks: &[TokenTree], pos: &mut usize) -> Vec<TokenTree> {
    let start = *pos;
    let mut depth = 0i32;
    let mut prev_dash = false;
    while *pos < toks.len() {
        let t = &toks[*pos];
        *pos += 1;
        let mut dash = false;
        if let TokenTree::Punct(p) = t {
            match p.as_char() {
                '<' => depth += 1,
                '>' if !prev_dash => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                '-' => dash = true,
                _ => {}
            }
        }
        prev_dash = dash;
    }
    toks[start..*pos].to_vec()
}

/// Type and const parameter names of `<...>` (for the turbofish) and the type names alone.
fn generic_names(g: &[TokenTree]) -> (Vec<String>, Vec<String>) {
    if g.len() < 2 {
        return (vec![], vec![]);
    }
    let (mut all, mut types) = (vec![], vec![]);
    for p in split_commas(&g[1..g.len() - 1]) {
        if is_punct(p.first(), '\'') {
            continue;
        }
        if is_ident(p.first(), "const") {
            if let Some(n) = p.get(1) {
                all.push(n.to_string());
            }
        } else if let Some(n) = p.first() {
            all.push(n.to_string());
            types.push(n.to_string());
        }
    }
    (all, types)
}

/// One item of the macro input (or of an impl block).
pub fn item(toks: &[TokenTree], pos: &mut usize) -> Result<TokenStream, Error> {
    item_in(toks, pos, None).map(|(ts, _)| ts)
}

/// Returns the item's tokens and, inside an impl, the derivatives to add to an inherent impl.
fn item_in(toks: &[TokenTree], pos: &mut usize, ctx: Option<&Ctx>) -> Result<(TokenStream, String), Error> {
    let mut keep: Vec<TokenTree> = Vec::new();
    let mut ads = Vec::new();
    let mut customs = Vec::new();
    while is_punct(toks.get(*pos), '#') {
        let Some(TokenTree::Group(g)) = toks.get(*pos + 1) else { break };
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let name = inner.first().map(|t| t.to_string()).unwrap_or_default();
        if name == "autodiff_reverse" || name == "autodiff_forward" {
            let args = match inner.get(1) {
                Some(TokenTree::Group(a)) if a.delimiter() == Delimiter::Parenthesis => a.stream().into_iter().collect(),
                _ => return err(inner[0].span(), format!("expected `#[{name}(NAME, ACTIVITIES...)]`")),
            };
            ads.push(AdAttr { reverse: name == "autodiff_reverse", args, span: inner[0].span() });
        } else if matches!(name.as_str(), "custom_reverse" | "custom_forward" | "inactive") {
            let args = match inner.get(1) {
                Some(TokenTree::Group(a)) if a.delimiter() == Delimiter::Parenthesis => Some(a.stream().into_iter().collect()),
                _ => None,
            };
            customs.push(custom::parse_attr(&name, args, inner[0].span())?);
        } else if name == "autodiff" {
            return err(inner[0].span(), "write `#[autodiff_reverse(...)]` or `#[autodiff_forward(...)]`");
        } else {
            keep.extend(toks[*pos..*pos + 2].iter().cloned());
        }
        *pos += 2;
    }
    // Qualifiers up to `fn` or `impl`.
    let start = *pos;
    let mut q = *pos;
    while q < toks.len() {
        match &toks[q] {
            TokenTree::Ident(i) if i.to_string() == "fn" => return fn_item(toks, pos, start, q, keep, ads, customs, ctx),
            TokenTree::Ident(i) if i.to_string() == "impl" && ctx.is_none() => {
                if let Some(a) = ads.first() {
                    return err(a.span, "put the autodiff attributes on the methods inside the impl block");
                }
                if let Some(c) = customs.first() {
                    return err(c.span(), "synthase::autodiff!: custom derivatives and `#[inactive]` go on free functions");
                }
                return impl_item(toks, pos, start, q, keep);
            }
            TokenTree::Ident(i) if matches!(i.to_string().as_str(), "pub" | "unsafe" | "const" | "async" | "extern" | "default") => q += 1,
            TokenTree::Literal(_) => q += 1, // extern "C"
            TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis && q > start => q += 1, // pub(crate)
            _ => break,
        }
    }
    if let Some(a) = ads.first() {
        return err(a.span, "synthase::autodiff!: the attribute must be on a `fn` item with a body");
    }
    if let Some(c) = customs.first() {
        return err(c.span(), "synthase::autodiff!: the attribute must be on a `fn` item with a body");
    }
    // Any other item: up to `;` or a closing brace group.
    while *pos < toks.len() {
        let t = &toks[*pos];
        *pos += 1;
        keep.push(t.clone());
        if is_punct(Some(t), ';') || matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) {
            break;
        }
    }
    Ok((stream(&keep), String::new()))
}

fn fn_item(toks: &[TokenTree], pos: &mut usize, start: usize, fn_at: usize, mut keep: Vec<TokenTree>,
           ads: Vec<AdAttr>, customs: Vec<custom::Custom>, ctx: Option<&Ctx>) -> Result<(TokenStream, String), Error> {
    let quals = &toks[start..fn_at];
    let mut vis = Vec::new();
    let mut is_unsafe = false;
    for (i, t) in quals.iter().enumerate() {
        match t.to_string().as_str() {
            "unsafe" => is_unsafe = true,
            "async" if !ads.is_empty() => return err(t.span(), "synthase::autodiff!: `async fn` cannot be differentiated"),
            "pub" => vis.push(t.clone()),
            _ if i > 0 && matches!(t, TokenTree::Group(_)) && vis.len() == 1 => vis.push(t.clone()),
            _ => {}
        }
    }
    let mut p = fn_at + 1;
    let name = match toks.get(p) {
        Some(TokenTree::Ident(i)) => i.clone(),
        other => return err(other.map_or(Span::call_site(), |t| t.span()), "expected the function's name"),
    };
    p += 1;
    let generics = if is_punct(toks.get(p), '<') { angle(toks, &mut p) } else { vec![] };
    let params = match toks.get(p) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g.clone(),
        other => return err(other.map_or(name.span(), |t| t.span()), "expected the parameter list"),
    };
    p += 1;
    let mut ret = Vec::new();
    if is_punct(toks.get(p), '-') && is_punct(toks.get(p + 1), '>') {
        p += 2;
        while p < toks.len() && !is_ident(toks.get(p), "where")
            && !matches!(&toks[p], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) && !is_punct(toks.get(p), ';') {
            if is_punct(toks.get(p), '<') {
                ret.extend(angle(toks, &mut p));
            } else {
                ret.push(toks[p].clone());
                p += 1;
            }
        }
    }
    let mut where_toks = Vec::new();
    if is_ident(toks.get(p), "where") {
        p += 1;
        while p < toks.len() && !matches!(&toks[p], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) && !is_punct(toks.get(p), ';') {
            where_toks.push(toks[p].clone());
            p += 1;
        }
    }
    match toks.get(p) {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {}
        other => {
            if let Some(a) = ads.first() {
                return err(other.map_or(a.span, |t| t.span()), "synthase::autodiff!: the function needs a body");
            }
        }
    }
    p += 1;
    let (all, types) = generic_names(&generics);
    let mut generic_types = types;
    if let Some(c) = ctx {
        generic_types.extend(c.generic_types.iter().cloned());
    }
    let sig = FnSig {
        name,
        vis: text(&vis),
        is_unsafe,
        generics: text(&generics),
        generic_types,
        turbofish: if all.is_empty() { String::new() } else { format!("::<{}>", all.join(", ")) },
        params,
        ret,
        where_preds: text(&where_toks).trim().trim_end_matches(',').to_string(),
    };
    if let (Some(c), Some(_)) = (customs.first(), ctx) {
        return err(c.span(), "synthase::autodiff!: custom derivatives and `#[inactive]` are registered for free functions; call a free function from the method");
    }
    // The engine replaces calls of the function (custom rules) or differentiates its calls: it
    // must reach the link as a function of its own.
    if !ads.is_empty() || !customs.is_empty() {
        keep.extend("#[inline(never)]".parse::<TokenStream>().unwrap());
    }
    keep.extend(toks[start..p.min(toks.len())].iter().cloned());
    *pos = p;
    let free = Ctx { in_impl: false, trait_path: None, generic_types: vec![] };
    let ctx = ctx.unwrap_or(&free);
    let mut extra = String::new();
    for a in &ads {
        extra.push_str(&gen::derivative(&sig, a, ctx)?);
    }
    for c in &customs {
        extra.push_str(&custom::registration(&sig, c)?);
    }
    let mut out = stream(&keep);
    if !ctx.in_impl {
        out.extend(parse_text(&extra, sig.name.span())?);
        extra.clear();
    }
    Ok((out, extra))
}

pub fn parse_text(s: &str, span: Span) -> Result<TokenStream, Error> {
    s.parse::<TokenStream>().or_else(|e| err(span, format!("synthase::autodiff! generated invalid code ({e}): {s}")))
}

fn impl_item(toks: &[TokenTree], pos: &mut usize, start: usize, impl_at: usize, mut keep: Vec<TokenTree>)
             -> Result<(TokenStream, String), Error> {
    let mut p = impl_at + 1;
    let generics = if is_punct(toks.get(p), '<') { angle(toks, &mut p) } else { vec![] };
    let head_start = p;
    let mut for_at = None;
    while p < toks.len() && !is_ident(toks.get(p), "where")
        && !matches!(&toks[p], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) {
        if is_punct(toks.get(p), '<') {
            angle(toks, &mut p);
            continue;
        }
        if is_ident(toks.get(p), "for") && !is_punct(toks.get(p + 1), '<') {
            for_at = Some(p);
        }
        p += 1;
    }
    let head_end = p;
    let where_start = p;
    while p < toks.len() && !matches!(&toks[p], TokenTree::Group(g) if g.delimiter() == Delimiter::Brace) {
        p += 1;
    }
    let where_toks = &toks[where_start..p];
    let Some(TokenTree::Group(body)) = toks.get(p) else {
        return err(toks[impl_at].span(), "expected the impl block's body");
    };
    let (trait_path, self_ty) = match for_at {
        Some(f) => (Some(text(&toks[head_start..f])), text(&toks[f + 1..head_end])),
        None => (None, text(&toks[head_start..head_end])),
    };
    let ctx = Ctx { in_impl: true, trait_path: trait_path.clone(), generic_types: generic_names(&generics).1 };
    let inner: Vec<TokenTree> = body.stream().into_iter().collect();
    let mut ip = 0;
    let mut items = TokenStream::new();
    let mut derivs = String::new();
    while ip < inner.len() {
        let (ts, d) = item_in(&inner, &mut ip, Some(&ctx))?;
        items.extend(ts);
        derivs.push_str(&d);
    }
    if trait_path.is_none() {
        items.extend(parse_text(&derivs, toks[impl_at].span())?);
    }
    let mut g = Group::new(Delimiter::Brace, items);
    g.set_span(body.span());
    keep.extend(toks[start..p].iter().cloned());
    keep.push(TokenTree::Group(g));
    *pos = p + 1;
    let mut out = stream(&keep);
    if trait_path.is_some() && !derivs.is_empty() {
        let s = format!("impl{} {} {} {{ {} }}", text(&generics), self_ty, text(where_toks), derivs);
        out.extend(parse_text(&s, toks[impl_at].span())?);
    }
    Ok((out, String::new()))
}

//! The `autodiff!` macro of the `synthase` crate: reads functions, methods in inherent and trait
//! impls, and their `#[autodiff_reverse]` / `#[autodiff_forward]` attributes, and writes the
//! placeholder functions whose body calls `__enzyme_autodiff…` / `__enzyme_fwddiff…`, which the
//! Synthase plugin replaces at link time. No dependencies (offline builds): the parser works on
//! `proc_macro` token trees and code is written as text; errors are `compile_error!` at the span
//! of the token that caused them.
extern crate proc_macro;

mod custom;
mod gen;
mod parse;

use proc_macro::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

pub(crate) struct Error {
    span: Span,
    msg: String,
}

pub(crate) fn err<T>(span: Span, msg: impl Into<String>) -> Result<T, Error> {
    Err(Error { span, msg: msg.into() })
}

impl Error {
    fn to_tokens(&self) -> TokenStream {
        let s = self.span;
        let mut lit = Literal::string(&self.msg);
        lit.set_span(s);
        let mut args = Group::new(Delimiter::Parenthesis, TokenStream::from(TokenTree::Literal(lit)));
        args.set_span(s);
        let mut semi = Punct::new(';', Spacing::Alone);
        semi.set_span(s);
        let mut bang = Punct::new('!', Spacing::Alone);
        bang.set_span(s);
        [
            TokenTree::Punct(colons(s, Spacing::Joint)),
            TokenTree::Punct(colons(s, Spacing::Alone)),
            TokenTree::Ident(Ident::new("core", s)),
            TokenTree::Punct(colons(s, Spacing::Joint)),
            TokenTree::Punct(colons(s, Spacing::Alone)),
            TokenTree::Ident(Ident::new("compile_error", s)),
            TokenTree::Punct(bang),
            TokenTree::Group(args),
            TokenTree::Punct(semi),
        ]
        .into_iter()
        .collect()
    }
}

fn colons(s: Span, sp: Spacing) -> Punct {
    let mut p = Punct::new(':', sp);
    p.set_span(s);
    p
}

/// Differentiates functions at link time; see the `synthase` crate documentation.
#[proc_macro]
pub fn autodiff(input: TokenStream) -> TokenStream {
    let toks: Vec<TokenTree> = input.into_iter().collect();
    let mut out = TokenStream::new();
    let mut pos = 0;
    while pos < toks.len() {
        match parse::item(&toks, &mut pos) {
            Ok(ts) => out.extend(ts),
            Err(e) => {
                out.extend(e.to_tokens());
                break;
            }
        }
    }
    out
}

// Enzyme's source attributes for clang-22 (loaded with -fplugin=Synthase.so): enzyme_inactive,
// enzyme_inactive_noblock, enzyme_nofree, enzyme_function_like("name") and enzyme_shadow(var). Without the plugin
// clang warns "unknown attribute ... ignored" and the gradient silently changes meaning, so each
// attribute is registered here and lowered to an `annotate` string, which clang emits into
// @llvm.global.annotations for definitions and declarations alike. The strings are Enzyme's own,
// so IR produced by Enzyme's clang plugin reads the same way; the pass turns them into the IR
// forms the engine reads (lib/Analysis/UserAnnotations.cpp).
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Mangle.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Lookup.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace {

/// One attribute: its spellings (GNU, C23 and C++11, plain and `enzyme::` scoped), whether it
/// also applies to global variables, and the annotation it becomes on functions / variables.
template <const char *Name, const char *Scoped, bool OnGlobals, bool TakesName>
struct EnzymeAttr : ParsedAttrInfo {
  const char *FnAnnotation;
  const char *VarAnnotation;
  EnzymeAttr(const char *Fn, const char *Var) : FnAnnotation(Fn), VarAnnotation(Var) {
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, Name},   {ParsedAttr::AS_C23, Name},
                                     {ParsedAttr::AS_C23, Scoped}, {ParsedAttr::AS_CXX11, Name},
                                     {ParsedAttr::AS_CXX11, Scoped}};
    Spellings = S;
    NumArgs = TakesName ? 1 : 0;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    if (auto *VD = dyn_cast<VarDecl>(D); OnGlobals && VD && VD->hasGlobalStorage())
      return true;
    S.Diag(A.getLoc(), diag::warn_attribute_wrong_decl_type_str)
        << A << (OnGlobals ? "functions and global variables" : "functions");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override {
    std::string Annotation = isa<FunctionDecl>(D) ? FnAnnotation : VarAnnotation;
    if (TakesName) {
      auto *Lit = A.getNumArgs() == 1 && A.isArgExpr(0)
                      ? dyn_cast<StringLiteral>(A.getArgAsExpr(0)->IgnoreParenCasts())
                      : nullptr;
      if (!Lit || Lit->getString().empty()) {
        unsigned ID = S.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error, "'%0' takes one string: the name of a function Synthase "
                                      "has a derivative rule for, e.g. \"log1p\"");
        S.Diag(A.getLoc(), ID) << Name;
        return AttributeNotApplied;
      }
      Annotation += "=" + Lit->getString().str();
    }
    D->addAttr(AnnotateAttr::Create(S.Context, Annotation, nullptr, 0, A.getRange()));
    return AttributeApplied;
  }
};

constexpr char InactiveName[] = "enzyme_inactive", InactiveScoped[] = "enzyme::inactive";
constexpr char NoblockName[] = "enzyme_inactive_noblock",
               NoblockScoped[] = "enzyme::inactive_noblock";
constexpr char NofreeName[] = "enzyme_nofree", NofreeScoped[] = "enzyme::nofree";
constexpr char LikeName[] = "enzyme_function_like", LikeScoped[] = "enzyme::function_like";

struct InactiveAttr : EnzymeAttr<InactiveName, InactiveScoped, true, false> {
  InactiveAttr() : EnzymeAttr("enzyme_inactivefn", "enzyme_inactive") {}
};
struct NoblockAttr : EnzymeAttr<NoblockName, NoblockScoped, true, false> {
  NoblockAttr() : EnzymeAttr("enzyme_inactivenoblockfn", "enzyme_inactive") {}
};
struct NofreeAttr : EnzymeAttr<NofreeName, NofreeScoped, true, false> {
  NofreeAttr() : EnzymeAttr("enzyme_nofree", "enzyme_nofree") {}
};
struct FunctionLikeAttr : EnzymeAttr<LikeName, LikeScoped, false, true> {
  FunctionLikeAttr() : EnzymeAttr("enzyme_function_like", "enzyme_function_like") {}
};

/// `__attribute__((enzyme_shadow(g_shadow))) double g;`: g_shadow is g's shadow. Lowered to the
/// annotation "enzyme_shadow=<symbol of g_shadow>", which the pass turns into Enzyme's IR form,
/// metadata !enzyme_shadow !{ptr @g_shadow} on @g.
struct ShadowAttr : ParsedAttrInfo {
  ShadowAttr() {
    static constexpr Spelling S[] = {{ParsedAttr::AS_GNU, "enzyme_shadow"},
                                     {ParsedAttr::AS_C23, "enzyme_shadow"},
                                     {ParsedAttr::AS_C23, "enzyme::shadow"},
                                     {ParsedAttr::AS_CXX11, "enzyme_shadow"},
                                     {ParsedAttr::AS_CXX11, "enzyme::shadow"}};
    Spellings = S;
    NumArgs = 1;
  }
  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A, const Decl *D) const override {
    if (auto *VD = dyn_cast<VarDecl>(D); VD && VD->hasGlobalStorage())
      return true;
    S.Diag(A.getLoc(), diag::warn_attribute_wrong_decl_type_str) << A << "global variables";
    return false;
  }
  AttrHandling handleDeclAttribute(Sema &S, Decl *D, const ParsedAttr &A) const override {
    VarDecl *Shadow = nullptr;
    if (A.getNumArgs() == 1 && A.isArgExpr(0))
      if (auto *DRE = dyn_cast<DeclRefExpr>(A.getArgAsExpr(0)->IgnoreParenImpCasts()))
        Shadow = dyn_cast<VarDecl>(DRE->getDecl());
    // A plain name is parsed as an identifier argument: look it up where the attribute stands.
    if (A.getNumArgs() == 1 && A.isArgIdent(0))
      if (IdentifierLoc *IL = A.getArgAsIdent(0))
        Shadow = dyn_cast_or_null<VarDecl>(
            S.LookupSingleName(S.getCurScope(), IL->getIdentifierInfo(), IL->getLoc(), Sema::LookupOrdinaryName));
    if (!Shadow || !Shadow->hasGlobalStorage() || Shadow->isStaticLocal()) {
      unsigned ID = S.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error, "'enzyme_shadow' takes one global variable declared before it: "
                                    "the shadow of this global, e.g. enzyme_shadow(g_shadow)");
      S.Diag(A.getLoc(), ID);
      return AttributeNotApplied;
    }
    std::string Symbol;
    llvm::raw_string_ostream OS(Symbol);
    std::unique_ptr<MangleContext> MC(S.Context.createMangleContext());
    if (MC->shouldMangleDeclName(Shadow))
      MC->mangleName(GlobalDecl(Shadow), OS);
    else
      OS << Shadow->getName();
    // Keeps the shadow emitted even where nothing else in the file reads it.
    Shadow->addAttr(UsedAttr::CreateImplicit(S.Context));
    D->addAttr(AnnotateAttr::Create(S.Context, "enzyme_shadow=" + Symbol, nullptr, 0, A.getRange()));
    return AttributeApplied;
  }
};

ParsedAttrInfoRegistry::Add<ShadowAttr> RegShadow("enzyme_shadow", "");
ParsedAttrInfoRegistry::Add<InactiveAttr> RegInactive("enzyme_inactive", "");
ParsedAttrInfoRegistry::Add<NoblockAttr> RegNoblock("enzyme_inactive_noblock", "");
ParsedAttrInfoRegistry::Add<NofreeAttr> RegNofree("enzyme_nofree", "");
ParsedAttrInfoRegistry::Add<FunctionLikeAttr> RegFunctionLike("enzyme_function_like", "");

} // namespace

// Structs passed by value to Enzyme's variadic entry points. The C calling convention splits a
// small struct of floats (`struct { double x, y; }` on x86-64) into one scalar argument per
// eightbyte, and the IR the pass sees pairs activities and tangents with those scalars: in
// `__enzyme_fwddiff(f, a, da)` a.y became a.x's tangent, a silent wrong derivative. Only the front
// end still knows that the scalars were one struct, so the call is refused here, where every
// field's tangent would be misplaced: any such argument of a forward call, and one after a marker
// that gives it a shadow or makes it constant in a reverse call (active scalars, the reverse
// default, keep one value per scalar and stay correct).
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

using namespace clang;

namespace {

bool hasFloatField(const RecordDecl *R) {
  for (const FieldDecl *F : R->fields()) {
    QualType T = F->getType().getCanonicalType();
    if (T->isRealFloatingType() || T->isComplexType())
      return true;
    if (const auto *A = dyn_cast<ConstantArrayType>(T.getTypePtr()); A && A->getElementType()->isRealFloatingType())
      return true;
    if (const auto *RT = T->getAs<RecordType>(); RT && hasFloatField(RT->getDecl()))
      return true;
  }
  return false;
}

/// A record the x86-64 convention passes in two registers: more than one eightbyte, at most two,
/// trivially copyable, holding floats.
bool splitByConvention(ASTContext &Ctx, QualType T) {
  const auto *RT = T.getCanonicalType()->getAs<RecordType>();
  if (!RT || T->isDependentType() || !RT->getDecl()->isCompleteDefinition())
    return false;
  if (const auto *CXX = dyn_cast<CXXRecordDecl>(RT->getDecl()); CXX && !CXX->isTriviallyCopyable())
    return false;
  uint64_t Bits = Ctx.getTypeSize(T);
  return Bits > 64 && Bits <= 128 && hasFloatField(RT->getDecl());
}

const char *markerName(const Expr *E) {
  const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!DR || !isa<VarDecl>(DR->getDecl()))
    return nullptr;
  StringRef N = DR->getDecl()->getName();
  for (const char *M : {"enzyme_dup", "enzyme_dupnoneed", "enzyme_const", "enzyme_dupv", "enzyme_dupnoneedv",
                        "enzyme_out"})
    if (N == M)
      return M;
  return nullptr;
}

class Visitor : public RecursiveASTVisitor<Visitor> {
  ASTContext &Ctx;
  DiagnosticsEngine &D;
  unsigned Id;

public:
  Visitor(ASTContext &C, DiagnosticsEngine &Diags)
      : Ctx(C), D(Diags),
        Id(Diags.getCustomDiagID(DiagnosticsEngine::Error,
                                 "%0 passed by value to %1: the C calling convention splits it into "
                                 "two scalar arguments, so its fields would be paired with the wrong "
                                 "%select{tangents|shadows or activities}2 (a silently wrong derivative); pass "
                                 "it by pointer (enzyme_dup, &a, &da) or use the C++ interface <enzyme/enzyme>")) {}

  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *F = CE->getDirectCallee();
    if (!F || !F->isVariadic() || !F->getIdentifier())
      return true;
    StringRef N = F->getName();
    bool Forward = N.starts_with("__enzyme_fwddiff") || N.starts_with("__enzyme_fwdsplit");
    bool Reverse = N.starts_with("__enzyme_autodiff") || N.starts_with("__enzyme_augmentfwd") ||
                   N.starts_with("__enzyme_reverse");
    if (!Forward && !Reverse)
      return true;
    for (unsigned K = 1; K < CE->getNumArgs(); ++K) {
      const Expr *A = CE->getArg(K)->IgnoreParenImpCasts();
      if (!splitByConvention(Ctx, A->getType()))
        continue;
      const char *Prev = markerName(CE->getArg(K - 1));
      if (Forward || (Prev && StringRef(Prev) != "enzyme_out")) {
        D.Report(A->getExprLoc(), Id) << A->getType() << N << (Forward ? 0 : 1) << A->getSourceRange();
        return true; // one error per call
      }
    }
    return true;
  }
};

class Consumer : public ASTConsumer {
public:
  void HandleTranslationUnit(ASTContext &Ctx) override {
    Visitor V(Ctx, Ctx.getDiagnostics());
    V.TraverseDecl(Ctx.getTranslationUnitDecl());
  }
};

class Action : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &, StringRef) override {
    return std::make_unique<Consumer>();
  }
  bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &) override { return true; }
  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static FrontendPluginRegistry::Add<Action> RegByValue("synthase-by-value-records",
                                                      "refuse structs split by the calling convention");

// Registration of the CBLAS runtime's derivatives (see BLAS.h and runtime/blas/SynthaseBLAS.c),
// for the double (cblas_d*) and single (cblas_s*) precision routines.
// The runtime's signatures follow from each routine's own by Enzyme's custom-derivative
// convention: the forward derivative takes every argument followed by its tangent; the
// augmented and reverse functions take integers and pointers followed by their shadows and
// floating-point values alone, and the reverse function returns those values' adjoints.
#include "Rules/BLAS.h"
#include "Rules/RuntimeRules.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstrTypes.h"

using namespace llvm;

namespace synthase {
namespace {

struct BLASRule {
  const char *Name; ///< the routine without its type letter: "dot" for cblas_ddot and cblas_sdot
  unsigned Params;  ///< its parameter count, as a check of the declaration
  bool ReturnsFloat;
};

const BLASRule Rules[] = {
    {"dot", 5, true},    {"nrm2", 3, true}, {"axpy", 6, false}, {"scal", 4, false}, {"gemv", 12, false},
    {"gemm", 14, false}, {"copy", 5, false}, {"swap", 5, false}, {"ger", 10, false},
};

/// The routine as the runtime was built for it: 32-bit integers (and enums), pointers, and
/// floating-point values of the routine's type.
bool matchesRuntime(const Function *F, const BLASRule &R, Type *FP) {
  FunctionType *FT = F->getFunctionType();
  if (FT->getNumParams() != R.Params || FT->isVarArg() ||
      (R.ReturnsFloat ? FT->getReturnType() != FP : !FT->getReturnType()->isVoidTy()))
    return false;
  for (Type *P : FT->params())
    if (!P->isPointerTy() && P != FP && !P->isIntegerTy(32))
      return false;
  return true;
}

} // namespace

void registerBLASDerivatives(Module &M) {
  if (!hasEntryPoints(M))
    return;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *Void = Type::getVoidTy(C);
  for (char Letter : {'d', 's'})
    for (const BLASRule &R : Rules) {
      Type *FP = Letter == 'd' ? Type::getDoubleTy(C) : Type::getFloatTy(C);
      std::string Name = ("cblas_" + Twine(Letter) + R.Name).str();
      Function *F = M.getFunction(Name);
      if (!F || !F->isDeclaration() || !matchesRuntime(F, R, FP) ||
          none_of(F->users(), [](User *U) { return isa<CallBase>(U); }))
        continue;
      SmallVector<Type *, 32> Tangents, Shadows;
      unsigned Outs = 0;
      for (Type *P : F->getFunctionType()->params()) {
        Tangents.append(2, P);
        Shadows.push_back(P);
        if (P == FP)
          ++Outs;
        else
          Shadows.push_back(P);
      }
      SmallVector<Type *, 32> RevParams(Shadows);
      if (R.ReturnsFloat)
        RevParams.push_back(FP);
      RevParams.push_back(Ptr);
      // Two values of the type, as the C runtime returns a struct of them: two registers for
      // doubles, one <2 x float> for floats.
      Type *Two = Letter == 'd' ? (Type *)StructType::get(C, {FP, FP}) : FixedVectorType::get(FP, 2);
      Type *FwdRet = R.ReturnsFloat ? Two : Void;
      Type *AugRet = R.ReturnsFloat ? StructType::get(C, {Ptr, FP}) : Ptr;
      Type *RevRet = Outs == 0 ? Void : Outs == 1 ? FP : Two;
      assert(Outs <= 2 && "a CBLAS routine takes at most alpha and beta");
      registerRuntimeRule(M, F, ("__synthase_blas_" + Twine(Letter) + R.Name).str(),
                          FunctionType::get(FwdRet, Tangents, false), FunctionType::get(AugRet, Shadows, false),
                          FunctionType::get(RevRet, RevParams, false));
    }
}

} // namespace synthase

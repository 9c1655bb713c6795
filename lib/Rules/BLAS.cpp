// Registration of the CBLAS runtime's derivatives (see BLAS.h and runtime/blas/SynthaseBLAS.c).
// The runtime's signatures follow from each routine's own by Enzyme's custom-derivative
// convention: the forward derivative takes every argument followed by its tangent; the
// augmented and reverse functions take integers and pointers followed by their shadows and
// doubles alone, and the reverse function returns the doubles' adjoints.
#include "Rules/BLAS.h"
#include "Rules/RuntimeRules.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/InstrTypes.h"

using namespace llvm;

namespace synthase {
namespace {

struct BLASRule {
  const char *Name; ///< the CBLAS function
  const char *Stem; ///< __synthase_blas_<Stem>_{fwd,aug,rev} in the runtime
  unsigned Params;  ///< its parameter count, as a check of the declaration
  bool ReturnsDouble;
};

const BLASRule Rules[] = {
    {"cblas_ddot", "ddot", 5, true},    {"cblas_dnrm2", "dnrm2", 3, true},  {"cblas_daxpy", "daxpy", 6, false},
    {"cblas_dscal", "dscal", 4, false}, {"cblas_dgemv", "dgemv", 12, false}, {"cblas_dgemm", "dgemm", 14, false},
    {"cblas_dcopy", "dcopy", 5, false}, {"cblas_dswap", "dswap", 5, false},  {"cblas_dger", "dger", 10, false},
};

/// The routine as the runtime was built for it: 32-bit integers (and enums), pointers, doubles.
bool matchesRuntime(const Function *F, const BLASRule &R) {
  FunctionType *FT = F->getFunctionType();
  if (FT->getNumParams() != R.Params || FT->isVarArg() ||
      (R.ReturnsDouble ? !FT->getReturnType()->isDoubleTy() : !FT->getReturnType()->isVoidTy()))
    return false;
  for (Type *P : FT->params())
    if (!P->isPointerTy() && !P->isDoubleTy() && !P->isIntegerTy(32))
      return false;
  return true;
}

} // namespace

void registerBLASDerivatives(Module &M) {
  if (!hasEntryPoints(M))
    return;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *D = Type::getDoubleTy(C), *Void = Type::getVoidTy(C);
  for (const BLASRule &R : Rules) {
    Function *F = M.getFunction(R.Name);
    if (!F || !F->isDeclaration() || !matchesRuntime(F, R) ||
        none_of(F->users(), [](User *U) { return isa<CallBase>(U); }))
      continue;
    SmallVector<Type *, 32> Tangents, Shadows, Outs;
    for (Type *P : F->getFunctionType()->params()) {
      Tangents.append(2, P);
      Shadows.push_back(P);
      if (P->isDoubleTy())
        Outs.push_back(P);
      else
        Shadows.push_back(P);
    }
    SmallVector<Type *, 32> RevParams(Shadows);
    if (R.ReturnsDouble)
      RevParams.push_back(D);
    RevParams.push_back(Ptr);
    Type *FwdRet = R.ReturnsDouble ? StructType::get(C, {D, D}) : Void;
    Type *AugRet = R.ReturnsDouble ? StructType::get(C, {Ptr, D}) : Ptr;
    Type *RevRet = Outs.empty() ? Void : Outs.size() == 1 ? Outs[0] : StructType::get(C, Outs);
    registerRuntimeRule(M, F, ("__synthase_blas_" + Twine(R.Stem)).str(), FunctionType::get(FwdRet, Tangents, false),
                        FunctionType::get(AugRet, Shadows, false), FunctionType::get(RevRet, RevParams, false));
  }
}

} // namespace synthase

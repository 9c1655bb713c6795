#include "Rules/RuntimeRules.h"
#include "Rules/CustomDerivatives.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"

using namespace llvm;

namespace synthase {

bool hasEntryPoints(const Module &M) {
  // contains, not starts_with: C++ without extern "C" mangles them (_Z17__enzyme_autodiffPvz).
  for (const Function &F : M)
    if (F.getName().contains("__enzyme_") && !F.use_empty())
      return true;
  return false;
}

static Function *runtimeFunction(Module &M, const Twine &Name, FunctionType *FT) {
  FunctionCallee C = M.getOrInsertFunction(Name.str(), FT);
  return dyn_cast<Function>(C.getCallee()->stripPointerCasts());
}

static void registration(Module &M, const Twine &Name, ArrayRef<Constant *> Fs) {
  auto *AT = ArrayType::get(PointerType::getUnqual(M.getContext()), Fs.size());
  auto *G = new GlobalVariable(M, AT, /*isConstant=*/true, GlobalValue::InternalLinkage,
                               ConstantArray::get(AT, Fs), Name);
  // Registered for every call in the module, differentiated or not: no "never used" warning.
  G->setMetadata(CustomUsedMD, MDNode::get(M.getContext(), {}));
}

static bool registered(const Module &M, const Function *F, StringRef Kind) {
  for (const GlobalVariable &G : M.globals())
    if (G.getName().contains(Kind) && G.hasInitializer())
      if (Constant *E = G.getInitializer()->getAggregateElement(0u))
        if (E->stripPointerCasts() == F)
          return true;
  return false;
}

void registerRuntimeRule(Module &M, Function *F, StringRef Base, FunctionType *Fwd, FunctionType *Aug,
                         FunctionType *Rev) {
  if (Fwd && !registered(M, F, "__enzyme_register_derivative"))
    if (Function *D = runtimeFunction(M, Base + "_fwd", Fwd))
      registration(M, "__enzyme_register_derivative_" + F->getName(), {F, D});
  if (Aug && Rev && !registered(M, F, "__enzyme_register_gradient")) {
    Function *A = runtimeFunction(M, Base + "_aug", Aug), *R = runtimeFunction(M, Base + "_rev", Rev);
    if (A && R)
      registration(M, "__enzyme_register_gradient_" + F->getName(), {F, A, R});
  }
}

} // namespace synthase

#include "Forward/StringShadows.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace synthase {

// The C++11-ABI strings: {char *data; size_t length; union {char local[16]; size_t capacity;}},
// so an object argument is a reference of exactly this size (`this`, `swap`'s other string) or
// the sret result (`substr`). Character pointers carry no dereferenceable size.
static bool isStringMember(StringRef N) {
  for (StringRef P : {"_ZNSt7__cxx1112basic_stringI", "_ZNKSt7__cxx1112basic_stringI"})
    if (N.starts_with(P))
      return true;
  return false;
}

void shareStringCharacters(CallBase *I, CallBase *C, IRBuilder<> &B, unsigned Lanes,
                           function_ref<Value *(Value *, unsigned)> Shadow) {
  Function *Callee = C->getCalledFunction();
  if (!Callee || !isStringMember(Callee->getName()))
    return;
  const DataLayout &DL = Callee->getDataLayout();
  uint64_t StringBytes = 3 * DL.getPointerSize() + 8;
  for (unsigned K = 0; K < C->arg_size(); ++K) {
    Value *Arg = C->getArgOperand(K);
    if (!Arg->getType()->isPointerTy())
      continue;
    if (!C->paramHasAttr(K, Attribute::StructRet) && C->getParamDereferenceableBytes(K) != StringBytes)
      continue;
    Value *Data = nullptr;
    for (unsigned l = 0; l < Lanes; ++l) {
      Value *S = Shadow(I->getArgOperand(K), l);
      if (!S || S == Arg)
        continue;
      if (!Data)
        Data = B.CreateAlignedLoad(B.getPtrTy(), Arg, DL.getPointerABIAlignment(0), "str.data");
      B.CreateAlignedStore(Data, S, DL.getPointerABIAlignment(0));
    }
  }
}

} // namespace synthase

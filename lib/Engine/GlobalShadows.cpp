// Shadows of global variables: which globals get one, what it initially holds, and the shadow sets
// that keep the shadows of distinct `__enzyme_context`s apart (lowering: Passes/GlobalShadowApi.cpp).
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/Analysis/ValueTracking.h"

using namespace llvm;

namespace synthase {

static bool holdsFloatData(Type *T) {
  if (T->isFPOrFPVectorTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), holdsFloatData);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return holdsFloatData(AT->getElementType());
  return false;
}

/// Untyped storage (`static unsigned char pool[1 << 16]`, an arena in a struct): a user allocator
/// may carve floats out of it, so it needs a shadow like typed float data. A zero-initialized
/// shadow costs no memory until written.
static bool holdsByteStorage(Type *T) {
  if (auto *AT = dyn_cast<ArrayType>(T))
    return (AT->getElementType()->isIntegerTy(8) && AT->getNumElements() >= 8) ||
           holdsByteStorage(AT->getElementType());
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), holdsByteStorage);
  return false;
}

static bool holdsPointers(Type *T) {
  if (T->isPtrOrPtrVectorTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), holdsPointers);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return holdsPointers(AT->getElementType());
  return false;
}

/// Whether the program may change what V points to: a store through it, or its address escaping
/// where the module cannot follow it. Annotation and llvm.used tables only name the global. With
/// OnlyPointers, whether it may put there a pointer a copy of the initializer cannot know: a stored
/// pointer other than a constant (a function, another global), a copy into it, or an escape;
/// stores of other values, memsets, copies out of it and address comparisons are fine.
static bool mayBeWritten(const Value *V, bool OnlyPointers = false) {
  for (const User *U : V->users()) {
    if (isa<LoadInst>(U))
      continue;
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      const Value *X = SI->getValueOperand();
      if (!OnlyPointers || SI->getPointerOperand() != V || (X->getType()->isPtrOrPtrVectorTy() && !isa<Constant>(X)))
        return true;
      continue;
    }
    if (isa<GEPOperator>(U) || isa<BitCastOperator>(U) || isa<AddrSpaceCastOperator>(U)) {
      if (mayBeWritten(U, OnlyPointers))
        return true;
      continue;
    }
    if (auto *CB = dyn_cast<CallBase>(U)) {
      if (Function *F = CB->getCalledFunction(); F && F->getName().contains("__enzyme_shadow"))
        continue; // the user's query of this very shadow
      auto *MT = dyn_cast<MemTransferInst>(CB);
      auto *II = dyn_cast<IntrinsicInst>(CB);
      if (OnlyPointers && (isa<MemSetInst>(CB) || (MT && MT->getRawSource() == V) ||
                           (II && II->isLifetimeStartOrEnd())))
        continue;
    }
    if (OnlyPointers && (isa<ICmpInst>(U) || isa<PtrToIntOperator>(U)))
      continue;
    if (isa<ConstantAggregate>(U)) {
      for (const User *AU : U->users())
        if (auto *GV = dyn_cast<GlobalVariable>(AU); !GV || !GV->getName().starts_with("llvm."))
          if (!isa<ConstantAggregate>(AU) || mayBeWritten(AU, OnlyPointers))
            return true;
      continue;
    }
    return true;
  }
  return false;
}

bool Engine::holdsRunTimePointers(const Value *Addr) {
  auto *G = dyn_cast<GlobalVariable>(const_cast<Value *>(getUnderlyingObject(Addr, 12)));
  if (!G || G->isConstant() || !holdsPointers(G->getValueType()))
    return false;
  auto [It, New] = RunTimePointers.try_emplace(G, false);
  if (New)
    It->second = !heapPointerGlobal(G) && heapPointerFields(G).empty() && mayBeWritten(G, /*OnlyPointers=*/true);
  return It->second;
}

/// A global gets a shadow when it holds float data (as before contexts existed: its pointer fields
/// start null unless they point into shadowed globals), or when it holds only pointers and
/// integers, keeps its initial value, and each pointer in it points into a global with a shadow:
/// then the shadow is the same structure over the pointees' shadows. A pointer stored at run time
/// (heap memory, another global) would leave the shadow pointing at the wrong place, so such a
/// global has no shadow and reads through it carry no derivative, as for any inactive pointer.
bool Engine::shadowable(GlobalVariable *G, SmallPtrSetImpl<GlobalVariable *> &Seen) {
  if (G->isConstant() || isInactiveGlobal(G))
    return false;
  if (heapPointerGlobal(G) || !heapPointerFields(G).empty())
    return true;
  Type *T = G->getValueType();
  if (holdsFloatData(T) || (holdsByteStorage(T) && !G->hasInitializer()) ||
      (holdsByteStorage(T) && G->getInitializer()->isNullValue()))
    return true;
  if (!holdsPointers(T) || !G->hasInitializer() || (!G->hasLocalLinkage() && !G->hasExactDefinition()))
    return false;
  if (!Seen.insert(G).second)
    return true; // a cycle of pointers: fine if the rest is
  if (mayBeWritten(G))
    return false;
  SmallVector<Constant *, 8> Work{G->getInitializer()};
  while (!Work.empty()) {
    Constant *C = Work.pop_back_val();
    if (C->getType()->isPointerTy()) {
      if (C->isNullValue())
        return false; // filled in at run time, e.g. a heap block: not followable
      Value *Base = C->stripInBoundsConstantOffsets();
      auto *PG = dyn_cast<GlobalVariable>(Base);
      if (!PG || !shadowable(PG, Seen))
        return false;
      continue;
    }
    if (isa<ConstantAggregate>(C))
      for (Use &U : C->operands())
        Work.push_back(cast<Constant>(U.get()));
  }
  return true;
}

Constant *Engine::shadowInit(Constant *C, unsigned Lane) {
  Type *T = C->getType();
  if (T->isPointerTy()) {
    Constant *S = C->isNullValue() ? nullptr : shadowConstant(C, Lane);
    return S ? S : Constant::getNullValue(T);
  }
  if (T->isIntOrIntVectorTy())
    return C; // sizes and indices the derivative code reads through the shadow
  if (!holdsPointers(T) || isa<ConstantAggregateZero>(C) || isa<UndefValue>(C) || !isa<ConstantAggregate>(C))
    return isa<ConstantDataSequential>(C) && !holdsFloatData(T) ? C : Constant::getNullValue(T);
  SmallVector<Constant *, 8> Ops;
  for (Use &U : C->operands())
    Ops.push_back(shadowInit(cast<Constant>(U.get()), Lane));
  if (auto *ST = dyn_cast<StructType>(T))
    return ConstantStruct::get(ST, Ops);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return ConstantArray::get(AT, Ops);
  return ConstantVector::get(Ops);
}

/// The shadow the user named with __attribute__((enzyme_shadow(s))) (metadata !enzyme_shadow).
static GlobalVariable *namedShadow(GlobalVariable *G) {
  auto *MD = dyn_cast_or_null<MDTuple>(G->getMetadata(MDShadowGlobal));
  if (!MD || MD->getNumOperands() != 1)
    return nullptr;
  auto *CAM = dyn_cast_or_null<ConstantAsMetadata>(MD->getOperand(0));
  return CAM ? dyn_cast<GlobalVariable>(CAM->getValue()->stripPointerCasts()) : nullptr;
}

GlobalVariable *Engine::shadowGlobal(GlobalVariable *G, unsigned Lane) {
  auto Key = std::make_tuple(G, Lane, Set, Order);
  if (auto It = Shadows.find(Key); It != Shadows.end())
    return It->second;
  if (G->isConstant() || isInactiveGlobal(G))
    return nullptr;
  if (GlobalVariable *US = Set == 0 && Order == 1 ? namedShadow(G) : nullptr) {
    if (Lane != 0) {
      reportModuleError(M, "global '" + G->getName() + "' names its shadow with enzyme_shadow, which "
                           "is one shadow: vector mode needs one per lane",
                        "differentiate one direction at a time, or use a context (__enzyme_context(width))");
      return Shadows[Key] = nullptr;
    }
    UserShadows.insert(US);
    return Shadows[Key] = US;
  }
  SmallPtrSet<GlobalVariable *, 4> Seen;
  if (!shadowable(G, Seen))
    return Shadows[Key] = nullptr;
  Type *T = G->getValueType();
  auto *SG = new GlobalVariable(M, T, false, GlobalValue::InternalLinkage, Constant::getNullValue(T),
                                G->getName() + ".synthase.shadow" + Twine(Lane) +
                                    (Set ? ".ctx" + Twine(Set) : Twine("")) +
                                    (Order > 1 ? ".order" + Twine(Order) : Twine("")));
  SG->setAlignment(G->getAlign());
  SG->setThreadLocalMode(G->getThreadLocalMode()); // a per-thread workspace keeps per-thread adjoints
  Shadows[Key] = SG; // before the initializer: pointer cycles find it
  if (Set == 0)
    ShadowGlobals.insert(SG); // fresh at each call
  else
    UserShadows.insert(SG); // a context's shadows are its owner's
  if (heapPointerGlobal(G)) {
    noteHeapShadow(G, SG);
  } else {
    if (G->hasInitializer() && holdsPointers(T))
      SG->setInitializer(shadowInit(G->getInitializer(), Lane));
    SmallVector<uint64_t, 2> Fields = heapPointerFields(G);
    for (uint64_t F : Fields)
      noteHeapShadow(G, SG, F);
    if (!Fields.empty())
      HeapFields[SG] = Fields;
  }
  return SG;
}

void Engine::selectShadowSet(unsigned N, unsigned Ord) {
  if (N != 0)
    Ord = 1; // a context's shadows are the ones its owner seeds and reads, at every order
  if (N == Set && Ord == Order)
    return;
  OtherSets[{Set, Order}] = {std::move(Tangents), std::move(Gradients)};
  auto &O = OtherSets[{N, Ord}];
  Tangents = std::move(O.first);
  Gradients = std::move(O.second);
  O = {};
  Set = N;
  Order = Ord;
}

SmallVector<GlobalVariable *, 8> Engine::shadowsOfSet(unsigned N) const {
  SmallVector<GlobalVariable *, 8> R;
  for (auto &KV : Shadows)
    if (std::get<2>(KV.first) == N && std::get<3>(KV.first) == 1 && KV.second && !is_contained(R, KV.second))
      R.push_back(KV.second);
  return R;
}

void Engine::resetShadow(IRBuilder<> &B, GlobalVariable *SG) {
  if (isHeapShadow(SG) && SG->getValueType()->isPointerTy())
    return syncHeapShadow(B, SG, /*Zero=*/true);
  const DataLayout &DL = M.getDataLayout();
  uint64_t Size = DL.getTypeAllocSize(SG->getValueType());
  if (auto It = HeapFields.find(SG); It != HeapFields.end()) {
    // Zero the bytes around the heap-pointer fields (adjoints, copies of integers), then the
    // fields' shadow blocks, which stay where they are.
    uint64_t From = 0;
    SmallVector<uint64_t, 4> Ends(It->second.begin(), It->second.end());
    Ends.push_back(Size);
    for (uint64_t F : Ends) {
      if (F > From)
        B.CreateMemSet(B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), SG, From), B.getInt8(0), F - From, MaybeAlign());
      From = F + DL.getPointerSize();
    }
    return syncHeapShadow(B, SG, /*Zero=*/true);
  }
  if (!SG->hasInitializer() || SG->getInitializer()->isNullValue()) {
    B.CreateMemSet(SG, B.getInt8(0), Size, SG->getAlign());
    return;
  }
  // Pointer fields point at other shadows and integers are copies: copy the whole initial image.
  std::string Name = (SG->getName() + ".initial").str();
  GlobalVariable *Img = M.getGlobalVariable(Name, true);
  if (!Img) {
    Img = new GlobalVariable(M, SG->getValueType(), true, GlobalValue::PrivateLinkage, SG->getInitializer(), Name);
    Img->setAlignment(SG->getAlign());
  }
  B.CreateMemCpy(SG, SG->getAlign(), Img, Img->getAlign(), Size);
}

} // namespace synthase

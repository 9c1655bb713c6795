// Memory intrinsics in reverse mode: the element type of raw memory, shadow copies in the forward
// sweep and the adjoint transfer of memcpy/memmove/memset.
#include "Support/RustNames.h"
#include "Reverse/GradientGen.h"
#include "Reverse/RelocationLog.h"

namespace synthase {
namespace gradient {

Type *GradientGen::floatElementType(Value *Ptr, Instruction *At) {
  const Value *U = getUnderlyingObject(Ptr, 12);
  SmallPtrSet<Type *, 2> Seen;
  if (auto *AI = dyn_cast<AllocaInst>(U)) {
    Type *T = AI->getAllocatedType();
    while (auto *AT = dyn_cast<ArrayType>(T))
      T = AT->getElementType();
    if (T->getScalarType()->isFloatingPointTy())
      Seen.insert(T->getScalarType());
  }
  SmallVector<const Value *, 16> Work{U};
  SmallPtrSet<const Value *, 32> Visited;
  while (!Work.empty() && Visited.size() < 512) {
    const Value *V = Work.pop_back_val();
    if (!Visited.insert(V).second)
      continue;
    for (const User *Us : V->users()) {
      if (auto *LI = dyn_cast<LoadInst>(Us)) {
        if (LI->getType()->getScalarType()->isFloatingPointTy())
          Seen.insert(LI->getType()->getScalarType());
      } else if (auto *SI = dyn_cast<StoreInst>(Us)) {
        if (SI->getPointerOperand() == V && SI->getValueOperand()->getType()->getScalarType()->isFloatingPointTy())
          Seen.insert(SI->getValueOperand()->getType()->getScalarType());
      } else if (isa<GetElementPtrInst>(Us) || isa<BitCastInst>(Us) || isa<PHINode>(Us) || isa<SelectInst>(Us)) {
        Work.push_back(Us);
      }
    }
  }
  if (Seen.empty()) {
    // Not accessed here (a copy inside `to_vec`, a realloc in `Vec::grow`): what the callers
    // pass and the callees it goes to do with it (accessLayout walks both).
    MemoryLayout L = accessLayout(DL, Ptr);
    if (auto *MT = dyn_cast<MemTransferInst>(At))
      L.merge(accessLayout(DL, MT->getSource()));
    for (Type *T : L.Floats)
      Seen.insert(T->getScalarType());
  }
  if (Seen.size() > 1) {
    fail(At, "cannot deduce the type of the memory this copies: it is accessed as floating-point "
             "values of different widths",
         "copy float and double data with separate memcpy calls, or assign element by element");
    return Type::getDoubleTy(Src->getContext());
  }
  return Seen.empty() ? Type::getDoubleTy(Src->getContext()) : *Seen.begin();
}

/// The struct type an object is indexed by (`getelementptr %struct.S, ptr %p, i64 %i`) when its
/// float fields have several widths: a copy of a run-time number of them moves each field's
/// adjoint at its own width. Null when there is no such single type.
static StructType *mixedStructElement(const DataLayout &DL, const Value *Ptr) {
  const Value *U = getUnderlyingObject(Ptr, 12);
  StructType *Found = nullptr;
  SmallVector<const Value *, 16> Work{U};
  SmallPtrSet<const Value *, 32> Visited;
  while (!Work.empty() && Visited.size() < 512) {
    const Value *V = Work.pop_back_val();
    if (!Visited.insert(V).second)
      continue;
    for (const User *Us : V->users()) {
      if (auto *G = dyn_cast<GetElementPtrInst>(Us)) {
        if (auto *ST = dyn_cast<StructType>(G->getSourceElementType()); ST && G->getNumIndices() >= 1) {
          if (Found && Found != ST)
            return nullptr;
          Found = ST;
        }
        Work.push_back(Us);
      } else if (isa<BitCastInst>(Us) || isa<PHINode>(Us) || isa<SelectInst>(Us)) {
        Work.push_back(Us);
      }
    }
  }
  if (!Found || Found->isOpaque())
    return nullptr;
  return Found;
}

/// The float fields of T with their byte offsets.
static void floatFields(const DataLayout &DL, Type *T, uint64_t Off, SmallVectorImpl<std::pair<uint64_t, Type *>> &Out) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      floatFields(DL, ST->getElementType(i), Off + SL->getElementOffset(i), Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t ES = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t i = 0; i < AT->getNumElements(); ++i)
      floatFields(DL, AT->getElementType(), Off + i * ES, Out);
  } else if (T->isFloatingPointTy()) {
    Out.push_back({Off, T});
  }
}

// A memmove's source and destination may overlap, or be the same bytes (odeint copies a state
// onto itself when it re-initializes a stepper), so the adjoint transfer Into[k] += From[k],
// From[k] = 0 must behave as if it went through a temporary: each element's adjoint is read and
// cleared before it is added (the same address then keeps its adjoint), and when Into lies above
// From the elements go from the last down, so that no From[k] is read after an earlier element's
// addition landed on it (the reverse of the direction memmove itself picks).

/// True at run time when Into starts above From.
static Value *intoAbove(IRBuilder<> &B, Value *Into, Value *From) {
  return B.CreateICmpUGT(B.CreatePtrToInt(Into, B.getInt64Ty()), B.CreatePtrToInt(From, B.getInt64Ty()));
}

/// Element K of N, counted from the end when Desc.
static Value *overlapSafeIndex(IRBuilder<> &B, Value *K, Value *N, Value *Desc) {
  return B.CreateSelect(Desc, B.CreateSub(B.CreateSub(N, B.getInt64(1)), K), K);
}

/// *PI += *PF; *PF = 0, correct when PI == PF.
static void moveAdjoint(IRBuilder<> &B, Type *T, Value *PF, Value *PI) {
  Value *DV = B.CreateAlignedLoad(T, PF, Align(1));
  B.CreateAlignedStore(ConstantFP::get(T, 0.0), PF, Align(1));
  B.CreateAlignedStore(B.CreateFAdd(B.CreateAlignedLoad(T, PI, Align(1)), DV), PI, Align(1));
}

/// Runs Body(I) for the Bytes / ES elements of a copy, I in an order that is correct when Into and
/// From overlap (a memmove's adjoint).
static void emitElementwiseTransfer(IRBuilder<> &Bd, uint64_t ES, Value *Into, Value *From, Value *Bytes,
                                    const Twine &Name, function_ref<void(IRBuilder<> &, Value *)> Body) {
  Function *F = Bd.GetInsertBlock()->getParent();
  BasicBlock *Pre = Bd.GetInsertBlock();
  Value *N = Bd.CreateUDiv(Bd.CreateZExtOrTrunc(Bytes, Bd.getInt64Ty()), Bd.getInt64(ES));
  Value *Desc = intoAbove(Bd, Into, From);
  BasicBlock *Loop = BasicBlock::Create(F->getContext(), Name, F);
  BasicBlock *After = BasicBlock::Create(F->getContext(), Name + ".done", F);
  Bd.CreateCondBr(Bd.CreateICmpEQ(N, Bd.getInt64(0)), After, Loop);
  IRBuilder<> LB(Loop);
  PHINode *K = LB.CreatePHI(LB.getInt64Ty(), 2);
  K->addIncoming(LB.getInt64(0), Pre);
  Body(LB, overlapSafeIndex(LB, K, N, Desc));
  Value *K1 = LB.CreateAdd(K, LB.getInt64(1));
  K->addIncoming(K1, Loop);
  LB.CreateCondBr(LB.CreateICmpULT(K1, N), Loop, After);
  Bd.SetInsertPoint(After);
}

/// Into[k].f += From[k].f; From[k].f = 0 for every float field f of the Bytes / sizeof(ST) elements.
static void emitStructAdjointTransfer(IRBuilder<> &Bd, const DataLayout &DL, Type *ST, Value *Into,
                                      Value *From, Value *Bytes) {
  SmallVector<std::pair<uint64_t, Type *>, 8> Fields;
  floatFields(DL, ST, 0, Fields);
  uint64_t ES = DL.getTypeAllocSize(ST);
  emitElementwiseTransfer(Bd, ES, Into, From, Bytes, "adjoint.copy.struct", [&](IRBuilder<> &LB, Value *I) {
    Value *Base = LB.CreateMul(I, LB.getInt64(ES));
    for (auto &[Off, T] : Fields) {
      Value *At = LB.CreateAdd(Base, LB.getInt64(Off));
      moveAdjoint(LB, T, LB.CreateGEP(LB.getInt8Ty(), From, At), LB.CreateGEP(LB.getInt8Ty(), Into, At));
    }
  });
}

/// The fields of T that may hold a pointer: pointers, and integers of a pointer's width (Rust
/// types a Vec as { [3 x i64] }, its data pointer among the integers).
static void pointerSlots(const DataLayout &DL, Type *T, uint64_t Off, SmallVectorImpl<std::pair<uint64_t, Type *>> &Out) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      pointerSlots(DL, ST->getElementType(i), Off + SL->getElementOffset(i), Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t ES = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t i = 0; i < AT->getNumElements(); ++i)
      pointerSlots(DL, AT->getElementType(), Off + i * ES, Out);
  } else if (T->isPointerTy() || (T->isIntegerTy() && T->getIntegerBitWidth() == DL.getPointerSizeInBits())) {
    Out.push_back({Off, T});
  }
}

/// The forward sweep of a copy of a run-time number of ET's (copiedElementType) in memory that
/// mixes kinds: the shadows of the pointer fields go along; float fields' shadows hold adjoints,
/// which this sweep leaves alone (they may be the caller's seeds).
static void emitElementShadowCopy(IRBuilder<> &B, const DataLayout &DL, Type *ET, Value *Into, Value *From,
                                  Value *Bytes, Align DA, Align SA) {
  SmallVector<std::pair<uint64_t, Type *>, 8> Ptrs, Floats;
  pointerSlots(DL, ET, 0, Ptrs);
  floatFields(DL, ET, 0, Floats);
  if (Ptrs.empty())
    return;
  if (Floats.empty()) {
    B.CreateMemMove(Into, DA, From, SA, Bytes);
    return;
  }
  uint64_t ES = DL.getTypeAllocSize(ET);
  emitElementwiseTransfer(B, ES, Into, From, Bytes, "shadow.copy.fields", [&](IRBuilder<> &LB, Value *I) {
    Value *Base = LB.CreateMul(I, LB.getInt64(ES));
    for (auto &[Off, T] : Ptrs) {
      Value *At = LB.CreateAdd(Base, LB.getInt64(Off));
      Value *V = LB.CreateAlignedLoad(T, LB.CreateGEP(LB.getInt8Ty(), From, At), Align(1));
      LB.CreateAlignedStore(V, LB.CreateGEP(LB.getInt8Ty(), Into, At), Align(1));
    }
  });
}

void GradientGen::emitAdjointTransfer(IRBuilder<> &Bd, Type *ET, Value *Into, Value *From, Value *Bytes) {
  emitElementwiseTransfer(Bd, DL.getTypeAllocSize(ET), Into, From, Bytes, "adjoint.copy",
                          [&](IRBuilder<> &LB, Value *I) {
                            moveAdjoint(LB, ET, LB.CreateGEP(ET, From, I), LB.CreateGEP(ET, Into, I));
                          });
}

bool GradientGen::refuseAmbiguousCopy(MemTransferInst *MT, const MemoryLayout &L, bool Report) {
  auto *CLen = dyn_cast<ConstantInt>(MT->getLength());
  if (!L.ambiguousWithin(DL, CLen ? CLen->getZExtValue() : UINT64_MAX / 2))
    return false;
  if (Report && speakingRust())
    fail(MT, "the bytes this copy moves are used both as a pointer and as an f64 (an enum whose "
             "variants put a Box, a Vec or a reference and an f64 at the same offset, such as "
             "`Leaf(f64)` next to `Node(Box<Tree>, Box<Tree>)`), and which one they hold here cannot be told",
         "give the f64 and the pointers fields of their own (a struct with a kind tag, e.g. `struct Node { "
         "value: f64, children: Option<(Box<Node>, Box<Node>)> }`), so that no byte is a pointer in one "
         "variant and an f64 in another");
  else if (Report)
    fail(MT, "the bytes this copy moves are used both as a pointer and as a floating-point value (a "
             "union, such as std::function's buffer holding a captured double), and which one they "
             "hold here cannot be told",
         "store the value in a variable of one type before copying it (for std::function, capture "
         "by reference or pass the value as an argument)");
  return true;
}

void GradientGen::augMemTransfer(MemTransferInst *MT, MemTransferInst *C, IRBuilder<> &B) {
  if (copiesNoDerivativeData(MT))
    return;
  if (MT->getMetadata(TapeGrowMD)) {
    // An inner gradient's tape moving out of its frame buffer: the bytes it pushed (pointers,
    // integers, floats) in any order. The float slots' adjoints are zero in this sweep, so the
    // shadow moves as bytes and the shadow pointers come along.
    B.CreateMemMove(needShadow(MT->getDest(), MT), Align(8), needShadow(MT->getSource(), MT), Align(8), C->getLength());
    return;
  }
  MemoryLayout L = copyLayout(MT);
  if (refuseAmbiguousCopy(MT, L, /*Report=*/true))
    return;
  if (!L.Floats.empty() && shadowed(MT->getSource()))
    stopIfNullAug(B, MT->getDest(), MT, MT->getSource());
  if (!L.Pointers)
    return; // floats only: their adjoints are all zero in this sweep
  if (!isa<ConstantInt>(MT->getLength()) && bytesHoldNoData(DL, MT->getSource()))
    return; // characters or counters: no shadow pointer to carry along
  Value *DS = needShadow(MT->getDest(), MT), *SS = needShadow(MT->getSource(), MT);
  auto *CLen = dyn_cast<ConstantInt>(MT->getLength());
  if (CLen && L.knownWithin(CLen->getZExtValue())) {
    uint64_t Len = CLen->getZExtValue(), Next = 0; // the end of the last field seen
    auto copyBytes = [&](uint64_t From, uint64_t To) {
      if (To > From)
        B.CreateMemCpy(B.CreateConstGEP1_64(B.getInt8Ty(), DS, From), Align(1),
                       B.CreateConstGEP1_64(B.getInt8Ty(), SS, From), Align(1), To - From);
    };
    for (auto &[Off, T] : L.Fields) {
      uint64_t Size = DL.getTypeStoreSize(T);
      if (Off < 0 || (uint64_t)Off + Size > Len)
        continue;
      // The bytes between fields are integers (a Vec's length and capacity, a buffer's count)
      // or padding: their shadow comes along as in forward mode, so that a shadow object moved
      // as a whole (`layer.cache = act`, `*out = local`) keeps its count.
      copyBytes(Next, Off);
      Next = std::max<uint64_t>(Next, Off + Size);
      if (T->isPointerTy()) {
        Value *P = B.CreateLoad(T, B.CreateConstGEP1_64(B.getInt8Ty(), SS, Off));
        B.CreateStore(P, B.CreateConstGEP1_64(B.getInt8Ty(), DS, Off));
      }
    }
    copyBytes(Next, Len);
    return;
  }
  if (!CLen && L.Complete && !L.Floats.empty()) {
    // A run-time length over memory whose every access is at a known offset (a key's characters
    // copied into a hash node that also holds the value): each pointer field wholly inside the
    // copied bytes takes its source's shadow pointer, decided at run time.
    Value *Len = B.CreateZExtOrTrunc(C->getLength(), B.getInt64Ty());
    for (auto &[Off, T] : L.Fields)
      if (T->isPointerTy() && Off >= 0) {
        Value *In = B.CreateICmpULE(B.getInt64(Off + DL.getTypeStoreSize(T)), Len);
        Value *PD = B.CreateConstGEP1_64(B.getInt8Ty(), DS, Off);
        Value *P = B.CreateLoad(T, B.CreateConstGEP1_64(B.getInt8Ty(), SS, Off));
        B.CreateStore(B.CreateSelect(In, P, B.CreateLoad(T, PD)), PD);
      }
    return;
  }
  if (Type *Elem = L.Floats.empty() ? nullptr : copiedElementType(DL, MT)) {
    // One array of Elem inside memory that mixes kinds (a B-tree node's keys, values or edges).
    emitElementShadowCopy(B, DL, Elem, DS, SS, C->getLength(), MT->getDestAlign().valueOrOne(),
                          MT->getSourceAlign().valueOrOne());
    return;
  }
  if (L.Floats.empty()) { // an array of pointers: its shadow is an array of shadow pointers
    Value *Len = C->getLength();
    if (NullShadows && (nullRoot(MT->getDest()).K != NullRoot::None ||
                        nullRoot(MT->getSource()).K != NullRoot::None))
      Len = lengthUnlessNullShadow(B, Len, {DS, SS});
    B.CreateMemMove(DS, MT->getDestAlign(), SS, MT->getSourceAlign(), Len);
    return;
  }
  fail(MT, "cannot tell which bytes of this copy hold pointers and which hold floating-point values",
       "copy structs that hold both pointers and floats field by field, or with a constant size");
}

/// A copy out of a block that may be the caller's and be freed later (a vector's contents
/// relocated as it grows), which the relocation log notes: one of a run-time length into memory
/// that is not a local or a global, or element by element (a constant length, or a loaded value
/// stored) into blocks this function allocated.
bool GradientGen::relocates(Value *Dst, Value *Src, bool RunTimeLength) {
  if (!E.releasesMemory() || !mayBeReleased(Src))
    return false;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Dst, Objs);
  if (RunTimeLength)
    return none_of(Objs, [](const Value *O) { return isa<AllocaInst>(O) || isa<GlobalValue>(O); });
  return all_of(Objs, [](const Value *O) {
    if (isa<ConstantPointerNull>(O)) // `n != 0 ? new T[n] : nullptr`: nothing is copied to the null
      return true;
    auto *CB = dyn_cast<CallBase>(O);
    return CB && isAllocator(CB->getCalledFunction());
  });
}

void GradientGen::reverseMemTransfer(MemIntrinsic *MI, BasicBlock *B, IRBuilder<> &Bd) {
  Value *Dst = MI->getDest();
  if (!shadowed(Dst) || copiesNoDerivativeData(MI))
    return;
  Value *DS = revShadow(Dst, B);
  Value *Len = revPrimal(MI->getLength(), B);
  if (NullShadows) {
    auto *MTI = dyn_cast<MemTransferInst>(MI);
    bool FromShadow = MTI && shadowed(MTI->getSource());
    if (nullRoot(Dst).K != NullRoot::None ||
        (FromShadow && nullRoot(MTI->getSource()).K != NullRoot::None)) {
      SmallVector<Value *, 2> Sh{DS};
      if (FromShadow)
        Sh.push_back(revShadow(MTI->getSource(), B));
      Len = lengthUnlessNullShadow(Bd, Len, Sh);
    }
  }
  if (auto *MT = dyn_cast<MemTransferInst>(MI); MT && MT->getMetadata(TapeGrowMD) && shadowed(MT->getSource())) {
    // The source buffer is never touched after the copy, so its float slots still hold zero
    // adjoints and its pointer slots the shadow pointers the destination got: moving the bytes
    // back adds each float's adjoint and leaves the pointers as they were.
    Bd.CreateMemMove(revShadow(MT->getSource(), B), Align(8), DS, Align(8), Len);
    Bd.CreateMemSet(DS, Bd.getInt8(0), Len, Align(8));
    return;
  }
  if (auto *MT = dyn_cast<MemTransferInst>(MI)) {
    MemoryLayout L = shadowed(MT->getSource()) ? copyLayout(MT) : MemoryLayout();
    if (refuseAmbiguousCopy(MT, L, /*Report=*/false)) // reported by the forward sweep
      return;
    auto *CLen = dyn_cast<ConstantInt>(MT->getLength());
    if (shadowed(MT->getSource()) && !CLen && bytesHoldNoData(DL, MT->getSource())) {
      // Bytes without derivative data (see augMemTransfer): what the destination held is gone.
      Bd.CreateMemSet(DS, Bd.getInt8(0), Len, MI->getDestAlign());
      return;
    }
    if (shadowed(MT->getSource()) && relocates(Dst, MT->getSource(), !CLen))
      emitMovedBytes(Bd, DS, revShadow(MT->getSource(), B), Len, !L.Pointers && !L.Floats.empty());
    if (shadowed(MT->getSource()) && CLen && L.knownWithin(CLen->getZExtValue()) && (L.Pointers || L.Floats.size() > 1)) {
      // A struct with pointers or mixed float widths: each float field at its own width.
      // Every adjoint is read and cleared before any is added: the copy may overlap itself.
      Value *SS = revShadow(MT->getSource(), B);
      SmallVector<std::tuple<Value *, Value *, Type *>, 8> Moves; // adjoint, source field, type
      for (auto &[Off, T] : L.Fields)
        if (T->isFloatingPointTy() && Off >= 0 && (uint64_t)Off + DL.getTypeStoreSize(T) <= CLen->getZExtValue()) {
          Value *PF = Bd.CreateConstGEP1_64(Bd.getInt8Ty(), DS, Off);
          Moves.push_back({Bd.CreateAlignedLoad(T, PF, Align(1)), Bd.CreateConstGEP1_64(Bd.getInt8Ty(), SS, Off), T});
          Bd.CreateAlignedStore(ConstantFP::get(T, 0.0), PF, Align(1));
        }
      for (auto &[DV, PI, T] : Moves)
        Bd.CreateAlignedStore(Bd.CreateFAdd(Bd.CreateAlignedLoad(T, PI, Align(1)), DV), PI, Align(1));
      return;
    }
    if (shadowed(MT->getSource()) && !CLen && L.Complete && L.Pointers && !L.Floats.empty()) {
      // The run-time length of augMemTransfer's field-wise case: each float field wholly inside
      // the copied bytes hands its adjoint back to the source.
      // As above, all reads and clears before the additions.
      Value *SS = revShadow(MT->getSource(), B);
      Value *N = Bd.CreateZExtOrTrunc(Len, Bd.getInt64Ty());
      SmallVector<std::tuple<Value *, Value *, Type *>, 8> Moves;
      for (auto &[Off, T] : L.Fields)
        if (T->isFloatingPointTy() && Off >= 0) {
          Value *In = Bd.CreateICmpULE(Bd.getInt64(Off + DL.getTypeStoreSize(T)), N);
          Value *PF = Bd.CreateConstGEP1_64(Bd.getInt8Ty(), DS, Off);
          Value *DV = Bd.CreateAlignedLoad(T, PF, Align(1));
          Value *Zero = ConstantFP::get(T, 0.0);
          Bd.CreateAlignedStore(Bd.CreateSelect(In, Zero, DV), PF, Align(1));
          Moves.push_back({Bd.CreateSelect(In, DV, Zero), Bd.CreateConstGEP1_64(Bd.getInt8Ty(), SS, Off), T});
        }
      for (auto &[DV, PI, T] : Moves)
        Bd.CreateAlignedStore(Bd.CreateFAdd(Bd.CreateAlignedLoad(T, PI, Align(1)), DV), PI, Align(1));
      // Bytes of the destination outside every listed field hold no derivative.
      return;
    }
    if (shadowed(MT->getSource()) && L.Pointers) {
      if (Type *Elem = L.Floats.empty() ? nullptr : copiedElementType(DL, MT)) {
        // One array of Elem inside memory that mixes kinds: the float fields' adjoints move back.
        SmallVector<std::pair<uint64_t, Type *>, 8> Floats;
        floatFields(DL, Elem, 0, Floats);
        if (Elem->isFloatingPointTy())
          emitAdjointTransfer(Bd, Elem, revShadow(MT->getSource(), B), DS, Len);
        else if (!Floats.empty())
          emitStructAdjointTransfer(Bd, DL, Elem, revShadow(MT->getSource(), B), DS, Len);
        return;
      }
      if (!L.Floats.empty())
        fail(MI, "cannot tell which bytes of this copy hold pointers and which hold floating-point values",
             "copy structs that hold both pointers and floats field by field, or with a constant size");
      return; // pointers only: no adjoints to move
    }
    if (shadowed(MT->getSource()) && L.Floats.size() > 1) {
      StructType *ST = mixedStructElement(DL, Dst);
      if (!ST)
        ST = mixedStructElement(DL, MT->getSource());
      if (ST) { // an array of struct {double; float;}: each field at its own width
        emitStructAdjointTransfer(Bd, DL, ST, revShadow(MT->getSource(), B), DS, Len);
        return;
      }
    }
    if (shadowed(MT->getSource())) {
      // d_src += d_dst; d_dst = 0, element by element.
      emitAdjointTransfer(Bd, floatElementType(Dst, MI), revShadow(MT->getSource(), B), DS, Len);
      return;
    }
  }
  // Overwritten memory: the adjoints of what it held before are gone.
  Bd.CreateMemSet(DS, Bd.getInt8(0), Len, MI->getDestAlign());
}


} // namespace gradient
} // namespace synthase

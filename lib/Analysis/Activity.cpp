#include "Analysis/Activity.h"
#include "Analysis/UserAnnotations.h"
#include "Analysis/MemoryLayout.h"
#include "Analysis/UnshadowedMemory.h"
#include "Analysis/InertMemory.h"
#include <map>
#include <string>
#include "Engine/Engine.h"
#include "Engine/FunctionShadows.h"
#include "Rules/Allocators.h"
#include "Rules/CustomDerivatives.h"
#include "Rules/Rules.h"
#include "Reverse/Tape.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/CFG.h"

using namespace llvm;

namespace synthase {

static bool isPtrDerivation(const Instruction *I) {
  return isa<GetElementPtrInst>(I) || isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
         isa<PHINode>(I) || isa<SelectInst>(I) || isa<FreezeInst>(I) || isa<ExtractElementInst>(I) ||
         isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I);
}

SmallPtrSet<const BasicBlock *, 32> returningBlocks(const Function &F) {
  SmallPtrSet<const BasicBlock *, 32> Seen;
  SmallVector<const BasicBlock *, 32> Work;
  for (const BasicBlock &BB : F)
    if (isa<ReturnInst>(BB.getTerminator()) && Seen.insert(&BB).second)
      Work.push_back(&BB);
  while (!Work.empty())
    for (const BasicBlock *P : predecessors(Work.pop_back_val()))
      if (Seen.insert(P).second)
        Work.push_back(P);
  return Seen;
}

const Instruction *launderedFloatBits(const Value *Bits, function_ref<bool(const Value *)> IsVaried,
                                      function_ref<bool(const Value *)> IsMovedBits) {
  SmallVector<const Value *, 16> Work{Bits};
  SmallPtrSet<const Value *, 32> Seen;
  while (!Work.empty()) {
    auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I || !Seen.insert(I).second || Seen.size() > 256)
      continue;
    if (isa<BitCastInst>(I) && I->getOperand(0)->getType()->isFPOrFPVectorTy())
      return IsVaried(I->getOperand(0)) ? I : nullptr;
    if (I != Bits && IsMovedBits(I))
      return I;
    if (I->isBinaryOp() || I->isCast() || isa<PHINode>(I) || isa<SelectInst>(I) ||
        isa<ExtractElementInst>(I) || isa<InsertElementInst>(I) || isa<ShuffleVectorInst>(I))
      for (const Use &U : I->operands())
        if (U->getType()->isIntOrIntVectorTy())
          Work.push_back(U.get());
  }
  return nullptr;
}

/// Whether the memory P points into may hold floats: one of its objects is not a local or heap
/// block of the function's own, or is accessed as floating point, copied into or handed to code
/// not seen. A String filled only by std's formatting holds bytes and its buffer's address.
static bool mayHoldFloats(const Value *P) {
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(P, Objs);
  for (const Value *O : Objs) {
    auto *CB = dyn_cast<CallBase>(O);
    if (!isa<AllocaInst>(O) && !(CB && isAllocator(CB->getCalledFunction())))
      return true;
    MemoryLayout Lay = accessLayout(cast<Instruction>(O)->getDataLayout(), O);
    if (!Lay.Floats.empty() || Lay.HiddenUse || Lay.CopiedInto)
      return true;
  }
  return false;
}

const LoadInst *pointerOrFloatBits(const Value *Bits, function_ref<bool(const Value *)> Shadowed) {
  SmallVector<const Value *, 16> Work{Bits};
  SmallPtrSet<const Value *, 32> Seen;
  while (!Work.empty()) {
    auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I || !Seen.insert(I).second || Seen.size() > 64)
      continue;
    if (auto *L = dyn_cast<LoadInst>(I)) {
      if (Shadowed(L->getPointerOperand()) && loadsPointerBits(L) && mayHoldFloats(L->getPointerOperand()))
        return L;
      continue;
    }
    if (I->isCast() || isa<PHINode>(I) || isa<SelectInst>(I) || isa<FreezeInst>(I))
      for (const Use &U : I->operands())
        if (U->getType()->isIntOrIntVectorTy())
          Work.push_back(U.get());
  }
  return nullptr;
}

std::optional<SmallVector<int, 16>> intMoveShuffleMask(const ShuffleVectorInst *SV, Type *FloatElt) {
  unsigned FB = FloatElt->getPrimitiveSizeInBits(), LB = SV->getType()->getScalarSizeInBits();
  ArrayRef<int> Mask = SV->getShuffleMask();
  SmallVector<int, 16> Out;
  if (LB % FB == 0) { // each lane holds R whole floats
    unsigned R = LB / FB;
    for (int M : Mask)
      for (unsigned i = 0; i < R; ++i)
        Out.push_back(M < 0 ? -1 : M * (int)R + (int)i);
    return Out;
  }
  if (FB % LB || Mask.size() % (FB / LB))
    return std::nullopt;
  unsigned R = FB / LB; // each float spans R lanes, which must move together and in order
  for (unsigned g = 0; g < Mask.size(); g += R) {
    int Base = -1;
    for (unsigned i = 0; i < R; ++i) {
      int M = Mask[g + i];
      if (M < 0)
        continue;
      if ((M - (int)i) % (int)R || (Base >= 0 && Base != M - (int)i))
        return std::nullopt;
      Base = M - (int)i;
    }
    Out.push_back(Base < 0 ? -1 : Base / (int)R);
  }
  return Out;
}

// One fixed point of activity, with the allocations in Inert left without a shadow.
static ActivityInfo propagate(Engine &E, Function &F, const std::vector<ArgKind> &Acts, bool RetActive,
                              const SmallPtrSetImpl<const Value *> &Inert) {
  ActivityInfo AI;
  auto shadowed = [&](const Value *V) {
    if (AI.Shadowed.count(V))
      return true;
    if (auto *C = dyn_cast<Constant>(V))
      return C->getType()->isPointerTy() && E.shadowConstant(const_cast<Constant *>(C)) != nullptr;
    return false;
  };
  DenseMap<const Function *, bool> Wrappers; // asked once per callee, not once per iteration
  auto allocationWrapper = [&](const Function *G) {
    auto It = Wrappers.find(G);
    return It != Wrappers.end() ? It->second : (Wrappers[G] = mayReturnAllocation(G));
  };
  for (Argument &A : F.args()) {
    ArgKind K = Acts[A.getArgNo()];
    if ((K == ArgKind::Dup || K == ArgKind::DupNoNeed) && A.getType()->isPointerTy())
      AI.Shadowed.insert(&A);
    if (K == ArgKind::Out)
      AI.Varied.insert(&A);
  }
  auto Live = returningBlocks(F);
  // Forward propagation to a fixed point: shadowed pointers and varied floats.
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Instruction &I : instructions(F)) {
      if (!Live.count(I.getParent()))
        continue;
      Type *T = I.getType();
      if (T->isPtrOrPtrVectorTy() && !AI.Shadowed.count(&I)) {
        bool S = false;
        if (isa<AllocaInst>(I))
          S = !Inert.count(&I);
        else if (auto *CB = dyn_cast<CallBase>(&I)) {
          // A pointer returned by a differentiated callee may point into derivative memory; the
          // generator then either handles it or says it cannot, never drops it silently.
          Function *G = CB->getCalledFunction();
          auto *TLA = dyn_cast<IntrinsicInst>(CB);
          S = (isAllocator(G) && !Inert.count(CB)) || isShadowedTapeTake(G) ||
              (TLA && TLA->getIntrinsicID() == Intrinsic::threadlocal_address && shadowed(TLA->getArgOperand(0))) ||
              (G && (!G->isDeclaration() || hasCustomDerivative(G)) && !isInactiveFunction(G) &&
               (any_of(CB->args(), [&](const Use &U) { return U->getType()->isPointerTy() && shadowed(U.get()); }) ||
                allocationWrapper(G)));
        }
        else if (auto *LI = dyn_cast<LoadInst>(&I))
          S = shadowed(LI->getPointerOperand()) && !onlyReachesCode(LI) && // a vtable pointer has no shadow
              !E.holdsRunTimePointers(LI->getPointerOperand());
        else if (auto *I2P = dyn_cast<IntToPtrInst>(&I))
          S = (intToPtrBase(I2P) && shadowed(intToPtrBase(I2P))) ||
              (loadedPointerBits(I2P) && shadowed(loadedPointerBits(I2P)->getPointerOperand())) ||
              // an address of derivative memory the generator cannot rebuild: it says so
              pointerBitsIn(I2P->getOperand(0), shadowed) ||
              (maskedPointerBits(I2P) && shadowed(maskedPointerBits(I2P)->getPointerOperand()));
        else if (isPtrDerivation(&I))
          S = any_of(I.operands(), [&](const Use &U) { return U->getType()->isPtrOrPtrVectorTy() && shadowed(U.get()); });
        if (S) {
          AI.Shadowed.insert(&I);
          Changed = true;
        }
      }
      if (T->isIntOrIntVectorTy() && !AI.Varied.count(&I)) {
        // Float data moved as integers keeps its derivative (typed as the float it holds).
        Type *MT = nullptr;
        if (auto *LI = dyn_cast<LoadInst>(&I)) {
          if (shadowed(LI->getPointerOperand()))
            MT = floatTypeOfIntMove(F.getParent()->getDataLayout(), LI);
        } else if (isa<PHINode>(I) || isa<SelectInst>(I) || isa<FreezeInst>(I)) {
          for (unsigned k = isa<SelectInst>(I) ? 1 : 0; k < I.getNumOperands(); ++k)
            if (Type *OT = AI.IntMoves.lookup(I.getOperand(k)))
              MT = OT;
        } else if (auto *BC = dyn_cast<BitCastInst>(&I)) {
          // A float's bits about to be stored as an integer (a store merged with a memcpy's).
          if (BC->getSrcTy()->isFPOrFPVectorTy() && AI.Varied.count(BC->getOperand(0)))
            MT = BC->getSrcTy();
        } else if (isa<ShuffleVectorInst>(I) || isa<ExtractElementInst>(I) || isa<InsertElementInst>(I)) {
          // Lanes of moved floats rearranged (a vectorized reverse or swap): the same float
          // element type in the result's shape.
          for (unsigned k = 0; k < 2 && k < I.getNumOperands(); ++k)
            if (Type *OT = AI.IntMoves.lookup(I.getOperand(k))) {
              Type *S = OT->getScalarType();
              if (S->getPrimitiveSizeInBits() == T->getScalarSizeInBits())
                MT = T->isVectorTy() ? (Type *)VectorType::get(S, cast<VectorType>(T)->getElementCount()) : S;
              else if (auto *SV = dyn_cast<ShuffleVectorInst>(&I))
                if (auto M = intMoveShuffleMask(SV, S))
                  MT = FixedVectorType::get(S, M->size());
            }
        }
        if (MT) {
          AI.Varied.insert(&I);
          AI.IntMoves[&I] = MT;
          Changed = true;
        }
      }
      if (carriesDerivative(T) && !AI.Varied.count(&I)) {
        bool V = false;
        if (auto *LI = dyn_cast<LoadInst>(&I))
          V = shadowed(LI->getPointerOperand());
        else if (classify(&I) == RuleClass::Inactive)
          V = false;
        else if (auto *CB = dyn_cast<CallBase>(&I))
          V = any_of(CB->args(), [&](const Use &U) { return AI.Varied.count(U.get()) || (U->getType()->isPointerTy() && shadowed(U.get())); });
        else
          V = any_of(I.operands(), [&](const Use &U) { return AI.Varied.count(U.get()) > 0; });
        if (V) {
          AI.Varied.insert(&I);
          Changed = true;
        }
      }
    }
  }
  // Backward propagation: what can reach an active output.
  SmallVector<const Value *, 64> Work;
  auto useful = [&](const Value *V) {
    if ((carriesDerivative(V->getType()) || AI.IntMoves.count(V)) && AI.Varied.count(V) && AI.Useful.insert(V).second)
      Work.push_back(V);
  };
  for (Instruction &I : instructions(F)) {
    if (!Live.count(I.getParent()))
      continue;
    if (auto *R = dyn_cast<ReturnInst>(&I)) {
      if (RetActive && R->getReturnValue())
        useful(R->getReturnValue());
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (shadowed(SI->getPointerOperand()))
        useful(SI->getValueOperand());
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) { // `#pragma omp atomic` x += v stores too
      if (shadowed(RMW->getPointerOperand()))
        useful(RMW->getValOperand());
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      Function *G = CB->getCalledFunction();
      if (!findLocalRule(&I) && !isAllocator(G) && !isInactiveFunction(G))
        for (Use &U : CB->args())
          useful(U.get());
    } else if (auto *IV = dyn_cast<InsertValueInst>(&I)) {
      (void)IV;
    }
  }
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    auto *I = dyn_cast<Instruction>(V);
    if (!I || isa<LoadInst>(I) || (isa<CallBase>(I) && !findLocalRule(I)))
      continue;
    if (auto *CB = dyn_cast<CallBase>(I)) {
      for (const Use &U : CB->args())
        useful(U.get());
      continue;
    }
    for (const Use &U : I->operands())
      useful(U.get());
  }
  return AI;
}

namespace {
// Checks of inert groups against an activity result; callees are asked once per activity pattern.
struct InertChecks {
  Engine &E;
  std::map<std::tuple<const Function *, std::string, unsigned>, bool> Callees;
  static constexpr unsigned MaxDepth = 3;

  bool holdsDerivative(const ActivityInfo &AI, const Value *V) {
    if (AI.Varied.count(V) || AI.IntMoves.count(V) || AI.Shadowed.count(V))
      return true;
    if (V->getType()->isIntOrIntVectorTy() &&
        (bitsFromShadowedMemory(AI, V) || pointerBitsIn(V, [&](const Value *P) { return shadowed(AI, P); })))
      return true; // a double's bytes, or the address of derivative memory kept as an integer
    if (auto *C = dyn_cast<Constant>(V))
      return C->getType()->isPtrOrPtrVectorTy() && !C->isNullValue() &&
             (!C->getType()->isPointerTy() || E.shadowConstant(const_cast<Constant *>(C)));
    return false;
  }
  // Integers read out of memory that has a shadow may be a double's bytes (a byte-wise copy)
  // even where activity did not recognise them as such; a buffer they are stored into is not
  // inert, so the copy reaches the diagnostics or the shadow that handle it.
  bool bitsFromShadowedMemory(const ActivityInfo &AI, const Value *V) {
    auto ShadowedLoad = [&](const Value *I) {
      auto *L = dyn_cast<LoadInst>(I);
      return L && shadowed(AI, L->getPointerOperand());
    };
    return ShadowedLoad(V) ||
           launderedFloatBits(V, [&](const Value *F) { return AI.Varied.count(F) > 0; }, ShadowedLoad);
  }
  bool shadowed(const ActivityInfo &AI, const Value *V) {
    if (AI.Shadowed.count(V))
      return true;
    auto *C = dyn_cast<Constant>(V);
    return C && C->getType()->isPointerTy() && E.shadowConstant(const_cast<Constant *>(C));
  }
  bool staysInert(const InertCandidates::Group &G, const ActivityInfo &AI, unsigned Depth) {
    for (StoreInst *S : G.Stores)
      if (holdsDerivative(AI, S->getValueOperand()))
        return false;
    for (MemTransferInst *M : G.Copies)
      if (shadowed(AI, M->getSource()))
        return false;
    for (auto [CB, K] : G.Calls)
      if (!calleeKeepsInert(CB, K, AI, Depth))
        return false;
    return true;
  }
  // The callee, differentiated with argument K constant and the others as this call passes
  // them, writes no derivative data through K (nor lets it escape).
  bool calleeKeepsInert(CallBase *CB, unsigned K, const ActivityInfo &AI, unsigned Depth) {
    if (Depth + 1 >= MaxDepth)
      return false;
    // The simplified clone the callee's derivative will be generated from, not the body clang
    // emitted (whose parameters still go through stack slots).
    Function *G = E.primalOf(CB->getCalledFunction());
    if (!G || G->arg_size() != CB->arg_size())
      return false;
    std::vector<ArgKind> Acts;
    std::string Key;
    for (unsigned A = 0; A < CB->arg_size(); ++A) {
      Value *V = CB->getArgOperand(A);
      ArgKind Kd = ArgKind::Const;
      if (A != K && V->getType()->isPointerTy() && shadowed(AI, V))
        Kd = ArgKind::Dup;
      else if (A != K && carriesDerivative(V->getType()) && AI.Varied.count(V))
        Kd = ArgKind::Out;
      Acts.push_back(Kd);
      Key += char('0' + int(Kd));
    }
    auto Id = std::make_tuple((const Function *)G, Key, K);
    if (auto It = Callees.find(Id); It != Callees.end())
      return It->second;
    Callees[Id] = false; // a call cycle back here stays conservative
    bool Keeps = false;
    run(*G, Acts, false, Depth + 1, G->getArg(K), &Keeps);
    return Callees[Id] = Keeps;
  }
  // Activity of F with as many allocations inert as agree with it: every allocation starts
  // inert; each round drops the groups the result contradicts, until none is dropped. Dropping
  // only adds shadows and varied values, so the rounds end, and the groups left are consistent.
  ActivityInfo run(Function &F, const std::vector<ArgKind> &Acts, bool RetActive, unsigned Depth,
                   Argument *InertArg = nullptr, bool *ArgStaysInert = nullptr) {
    SmallPtrSet<const Value *, 1> None;
    if (Depth >= MaxDepth)
      return propagate(E, F, Acts, RetActive, None);
    InertCandidates C = findInertCandidates(F, returningBlocks(F), InertArg);
    while (true) {
      auto Roots = C.roots();
      ActivityInfo AI = propagate(E, F, Acts, RetActive, Roots);
      bool Dropped = false;
      for (InertCandidates::Group &G : C.Groups)
        if (G.Alive && !staysInert(G, AI, Depth)) {
          if (getenv("SYNTHASE_DEBUG_INERT"))
            errs() << "inert: " << F.getName() << " depth " << Depth << " drops " << *G.Roots[0] << "\n";
          G.Alive = false;
          Dropped = true;
        }
      if (!Dropped) {
        if (getenv("SYNTHASE_DEBUG_INERT"))
          for (InertCandidates::Group &G : C.Groups)
            if (G.Alive)
              errs() << "inert: " << F.getName() << " depth " << Depth << " keeps " << *G.Roots[0] << "\n";
        if (ArgStaysInert)
          *ArgStaysInert = !C.Groups.empty() && C.Groups.back().Alive;
        return AI;
      }
    }
  }
};
} // namespace

ActivityInfo analyzeActivity(Engine &E, Function &F, const std::vector<ArgKind> &Acts, bool RetActive,
                             bool InertMemory) {
  static const bool Off = getenv("SYNTHASE_NO_INERT_MEMORY") != nullptr;
  if (Off || !InertMemory) {
    SmallPtrSet<const Value *, 1> None;
    return propagate(E, F, Acts, RetActive, None);
  }
  InertChecks C{E, {}};
  return C.run(F, Acts, RetActive, 0);
}

} // namespace synthase

#include "Analysis/ConditionalAllocations.h"
#include "Rules/Allocators.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

/// The allocation call merged with null by P (its only non-null incoming value), or null.
static CallInst *allocationOrNull(PHINode *P) {
  CallInst *One = nullptr;
  for (Value *In : P->incoming_values()) {
    if (isa<ConstantPointerNull>(In))
      continue;
    auto *C = dyn_cast<CallInst>(In);
    if (!C || (One && One != C))
      return nullptr;
    std::optional<Allocator> A = allocatorFor(C->getCalledFunction());
    if (!A || A->Role != AllocRole::Alloc || A->Out >= 0 || A->Mapping)
      return nullptr;
    One = C;
  }
  return One;
}

/// V as a value available at At: itself when it dominates At, else a copy of the cheap pure
/// arithmetic that computes it (the byte count `n << 3`, computed on the allocating path).
static Value *availableAt(Value *V, Instruction *At, DominatorTree &DT, unsigned Depth,
                          SmallVectorImpl<Instruction *> &Made) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || DT.dominates(I, At))
    return V;
  if (Depth == 0 || !(I->isBinaryOp() || I->isCast() || isa<CmpInst>(I) || isa<SelectInst>(I)) ||
      !isSafeToSpeculativelyExecute(I))
    return nullptr;
  Instruction *Cl = I->clone();
  for (Use &U : Cl->operands()) {
    Value *Op = availableAt(U.get(), At, DT, Depth - 1, Made);
    if (!Op) {
      Cl->deleteValue();
      return nullptr;
    }
    U.set(Op);
  }
  Cl->insertBefore(At->getIterator());
  Made.push_back(Cl);
  return Cl;
}

static Value *stripCasts(Value *V) {
  while (auto *C = dyn_cast<CastInst>(V))
    V = C->getOperand(0);
  return V;
}

/// Whether Size is Count times a constant: Count itself, or Count through casts,
/// multiplications and shifts (`n << 3`, `n * 24`).
static bool scalesWith(Value *Size, Value *Count, unsigned Depth = 6) {
  Size = stripCasts(Size);
  if (Size == stripCasts(Count))
    return true;
  auto *B = dyn_cast<BinaryOperator>(Size);
  if (!B || Depth == 0)
    return false;
  if (B->getOpcode() == Instruction::Mul)
    return (isa<ConstantInt>(B->getOperand(1)) && scalesWith(B->getOperand(0), Count, Depth - 1)) ||
           (isa<ConstantInt>(B->getOperand(0)) && scalesWith(B->getOperand(1), Count, Depth - 1));
  return B->getOpcode() == Instruction::Shl && isa<ConstantInt>(B->getOperand(1)) &&
         scalesWith(B->getOperand(0), Count, Depth - 1);
}

/// Whether the branch that decides between the allocation and null tests the allocation's size
/// for zero (`n != 0 ? new T[n] : nullptr`), so that the null stands for an empty block. With a
/// size that does not follow the test (`n ? malloc(8) : NULL`, a list's `return NULL`), null is a
/// value of its own: a block in its place changes which path the program takes.
static bool nullMeansEmpty(CallInst *C, Instruction *Decider) {
  auto *Br = dyn_cast<BranchInst>(Decider);
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  if (!Cmp)
    return false;
  // The test must split zero from the positive counts: `n != 0`, `n > 0`, `n < 1`, not `n > 1`.
  auto *K = dyn_cast<ConstantInt>(Cmp->getOperand(1));
  if (!K)
    return false;
  bool AtZero = K->isZero() && (Cmp->isEquality() || Cmp->getPredicate() == CmpInst::ICMP_SGT ||
                                Cmp->getPredicate() == CmpInst::ICMP_UGT || Cmp->getPredicate() == CmpInst::ICMP_SLE ||
                                Cmp->getPredicate() == CmpInst::ICMP_ULE);
  bool AtOne = K->isOne() && (Cmp->getPredicate() == CmpInst::ICMP_SLT || Cmp->getPredicate() == CmpInst::ICMP_ULT ||
                              Cmp->getPredicate() == CmpInst::ICMP_SGE || Cmp->getPredicate() == CmpInst::ICMP_UGE);
  if (!AtZero && !AtOne)
    return false;
  Value *Count = Cmp->getOperand(0);
  return any_of(C->args(), [&](Use &U) { return scalesWith(U.get(), Count); });
}

/// Whether V (the merged pointer, or a load of where it was kept) is compared with null other
/// than to skip freeing it (`if (p) free(p)`, which a zero-byte block passes through as well).
/// A sanitizer's own checks (`!nosanitize`) do not count: they take the same path either way.
static bool testedForNull(Value *V) {
  for (User *U : V->users()) {
    auto *Cmp = dyn_cast<ICmpInst>(U);
    if (!Cmp || Cmp->hasMetadata(LLVMContext::MD_nosanitize) ||
        !(isa<ConstantPointerNull>(Cmp->getOperand(0)) || isa<ConstantPointerNull>(Cmp->getOperand(1))))
      continue;
    for (User *CU : Cmp->users()) {
      auto *Br = dyn_cast<BranchInst>(CU);
      if (!Br || !Br->isConditional())
        return true;
      BasicBlock *NonNull = Br->getSuccessor(Cmp->getPredicate() == CmpInst::ICMP_EQ ? 1 : 0);
      for (Instruction &I : *NonNull) {
        if (I.isTerminator() || I.isDebugOrPseudoInst())
          continue;
        auto *CB = dyn_cast<CallBase>(&I);
        std::optional<Allocator> A = CB ? allocatorFor(CB->getCalledFunction()) : std::nullopt;
        if (!A || A->Role != AllocRole::Free)
          return true;
      }
    }
  }
  return false;
}

/// Whether a load in F may read the pointer stored by S and is tested for null (`s->buf = n ?
/// malloc(..) : NULL; ... if (s->buf)`): one at the same offset from the same base, or from a
/// base that is not a distinct object of its own.
static bool testedThroughMemory(Function &F, StoreInst &S) {
  const DataLayout &DL = F.getDataLayout();
  APInt Off(DL.getIndexTypeSizeInBits(S.getPointerOperandType()), 0);
  const Value *Base = S.getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
  for (Instruction &I : instructions(F)) {
    auto *L = dyn_cast<LoadInst>(&I);
    if (!L || !L->getType()->isPointerTy())
      continue;
    APInt LOff(Off.getBitWidth(), 0);
    const Value *LBase = L->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, LOff, true);
    bool Same = LBase == Base ? LOff == Off
                              : !(isIdentifiedObject(getUnderlyingObject(LBase)) &&
                                  isIdentifiedObject(getUnderlyingObject(Base)) &&
                                  getUnderlyingObject(LBase) != getUnderlyingObject(Base));
    if (Same && testedForNull(L))
      return true;
  }
  return false;
}

/// Whether code may tell the null from a block: the merged pointer tested for null (directly or
/// through memory), returned for the caller to test (`opt_buf(n) ? ... : ...`), or handed to a
/// callee that may test it.
static bool nullIsObserved(PHINode &P) {
  if (testedForNull(&P))
    return true;
  for (User *U : P.users()) {
    if (isa<ReturnInst>(U))
      return true;
    if (auto *CB = dyn_cast<CallBase>(U)) {
      if (!isa<IntrinsicInst>(CB) && !allocatorFor(CB->getCalledFunction()))
        return true;
    } else if (auto *S = dyn_cast<StoreInst>(U)) {
      if (S->getValueOperand() == &P && testedThroughMemory(*P.getFunction(), *S))
        return true;
    }
  }
  return false;
}

bool hoistConditionalAllocations(Function &F) {
  if (F.isDeclaration())
    return false;
  DominatorTree DT(F);
  LoopInfo LI(DT);
  bool Changed = false;
  for (BasicBlock &BB : F)
    for (PHINode &P : make_early_inc_range(BB.phis())) {
      if (!P.getType()->isPointerTy())
        continue;
      CallInst *C = allocationOrNull(&P);
      if (!C || C->getParent() == &BB)
        continue;
      // Where every path into the phi has passed: the common dominator of the allocation and
      // the edges that bring null.
      BasicBlock *D = C->getParent();
      for (unsigned i = 0; i < P.getNumIncomingValues(); ++i)
        if (isa<ConstantPointerNull>(P.getIncomingValue(i)))
          D = DT.findNearestCommonDominator(D, P.getIncomingBlock(i));
      // A diamond inside one loop iteration, not a list built in a loop (`head = phi [null, m]`
      // at a loop header, where hoisting would make one block serve every iteration).
      if (!D || D == C->getParent() || LI.isLoopHeader(&BB) || LI.getLoopFor(D) != LI.getLoopFor(&BB) ||
          LI.getLoopFor(C->getParent()) != LI.getLoopFor(&BB))
        continue;
      Instruction *At = D->getTerminator();
      if (!nullMeansEmpty(C, At) || nullIsObserved(P))
        continue;
      SmallVector<Instruction *, 4> Made;
      SmallVector<Value *, 2> Args;
      for (Use &U : C->args())
        Args.push_back(availableAt(U.get(), At, DT, 4, Made));
      if (is_contained(Args, nullptr)) {
        for (Instruction *I : reverse(Made))
          I->eraseFromParent();
        continue;
      }
      for (unsigned i = 0; i < Args.size(); ++i)
        C->setArgOperand(i, Args[i]);
      C->moveBefore(At->getIterator());
      P.replaceAllUsesWith(C);
      P.eraseFromParent();
      Changed = true;
    }
  return Changed;
}

} // namespace synthase

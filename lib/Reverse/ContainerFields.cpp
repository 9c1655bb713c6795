// Where a duplicated argument's containers keep their float data (ContainerFields.h): the
// pointer fields the relocation log reads before and after a top-level call, to tell which of
// the caller's containers were handed a new block.
#include "Reverse/ContainerFields.h"
#include "Analysis/MemoryLayout.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include <algorithm>
#include <map>
#include <optional>

using namespace llvm;

namespace synthase {

/// Loads of a pointer from Base + Off in F.
static SmallVector<const LoadInst *, 4> fieldLoads(const DataLayout &DL, const Function &F, const Value *Base,
                                                   int64_t Off) {
  SmallVector<const LoadInst *, 4> Loads;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->getType()->isPointerTy()) {
        int64_t O = 0;
        if (GetPointerBaseWithConstantOffset(LI->getPointerOperand(), O, DL) == Base && O == Off)
          Loads.push_back(LI);
      }
  return Loads;
}

/// Whether the function accesses what the loads return as floating-point data only.
static bool floatsOnly(const DataLayout &DL, ArrayRef<const LoadInst *> Loads) {
  MemoryLayout Pointee;
  for (const LoadInst *LI : Loads)
    Pointee.merge(accessLayout(DL, LI));
  return !Loads.empty() && !Pointee.Pointers && !Pointee.Floats.empty();
}

/// The largest of the constant byte offsets V may add (a constant, a select of constants: a
/// debug build's `it + (it == end ? 0 : 24)`), or 0.
static int64_t constantStep(const Value *V) {
  if (auto *C = dyn_cast<ConstantInt>(V))
    return C->getSExtValue();
  if (auto *S = dyn_cast<SelectInst>(V))
    return std::max(constantStep(S->getTrueValue()), constantStep(S->getFalseValue()));
  return 0;
}

/// Whether the pointer G feeds a phi (directly or through selects): a loop's step, not a field.
static bool stepsPhi(const Value *G) {
  for (const User *U : G->users())
    if (isa<PHINode>(U) || (isa<SelectInst>(U) && stepsPhi(U)))
      return true;
  return false;
}

/// The element pointers of an array behind the loaded pointers (everything derived from them
/// by GEPs, phis and selects), with the element size: indexed as elements of a struct type
/// (`&g[i]`), or stepped through by a pointer that advances by a constant (`for (auto &r : g)`).
static std::pair<SmallVector<const Value *, 16>, int64_t> arrayElements(const DataLayout &DL,
                                                                         ArrayRef<const LoadInst *> Loads) {
  SmallVector<const Value *, 16> Elts(Loads.begin(), Loads.end());
  SmallPtrSet<const Value *, 16> Seen(Loads.begin(), Loads.end());
  int64_t Stride = 0;
  for (unsigned K = 0; K < Elts.size() && Elts.size() < 64; ++K)
    for (const User *U : Elts[K]->users()) {
      if (auto *G = dyn_cast<GetElementPtrInst>(U)) {
        if (G->getPointerOperand() != Elts[K])
          continue;
        if (G->getNumIndices() == 1 && isa<StructType>(G->getSourceElementType()) && !isa<Constant>(G->idx_begin()->get()))
          Stride = std::max<int64_t>(Stride, DL.getTypeAllocSize(G->getSourceElementType()));
        else if (G->getNumIndices() == 1 && G->getSourceElementType()->isIntegerTy(8) && stepsPhi(G))
          Stride = std::max(Stride, constantStep(G->idx_begin()->get()));
      } else if (!isa<PHINode>(U) && !isa<SelectInst>(U)) {
        continue;
      }
      if (Seen.insert(U).second)
        Elts.push_back(U);
    }
  return {Elts, Stride};
}

/// An array of containers behind the loaded pointers (a vector of vectors): the element size
/// and the offset in an element of a float-data pointer.
static std::optional<std::pair<int64_t, int64_t>> containerArray(const DataLayout &DL, const Function &F,
                                                                 ArrayRef<const LoadInst *> Loads) {
  auto [Elts, Stride] = arrayElements(DL, Loads);
  if (Stride < 8)
    return std::nullopt;
  // The pointers loaded from an element, by their offset in it.
  SmallPtrSet<const Value *, 16> EltSet(Elts.begin(), Elts.end());
  std::map<int64_t, SmallVector<const LoadInst *, 4>> ByOffset;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->getType()->isPointerTy()) {
        int64_t O = 0;
        if (EltSet.count(GetPointerBaseWithConstantOffset(LI->getPointerOperand(), O, DL)) && O >= 0 && O + 8 <= Stride)
          ByOffset[O].push_back(LI);
      }
  for (auto &[Off, Inner] : ByOffset) {
    if (floatsOnly(DL, Inner))
      return std::make_pair(Stride, Off);
  }
  return std::nullopt;
}

/// Whether V is N scaled by Stride bytes (a multiply, a shift, an overflow-checked multiply).
static bool scaledBy(const Value *V, const Value *N, int64_t Stride) {
  using namespace PatternMatch;
  const APInt *C;
  if (match(V, m_ExtractValue<0>(m_Intrinsic<Intrinsic::umul_with_overflow>(m_Specific(N), m_APInt(C)))))
    return C->getSExtValue() == Stride;
  if (match(V, m_Mul(m_Specific(N), m_APInt(C))))
    return C->getSExtValue() == Stride;
  if (match(V, m_Shl(m_Specific(N), m_APInt(C))))
    return C->getZExtValue() < 62 && (int64_t(1) << C->getZExtValue()) == Stride;
  return false;
}

/// An integer field of Base near the array pointer at Off that counts its Stride-byte elements:
/// loaded and scaled by the element size, or used as an element index (the array's end,
/// `len * 24`), or the bound of a loop indexing the array.
/// Whether the integer V (through an increment and extensions) is an induction variable that
/// indexes the array behind Loads: `for (i = 0; i < g->n; i++) g->rows[i]`.
static bool indexesArray(const Value *V, ArrayRef<const LoadInst *> Loads) {
  using namespace PatternMatch;
  const Value *X = nullptr;
  if (match(V, m_Add(m_Value(X), m_ConstantInt())))
    V = X;
  auto *P = dyn_cast<PHINode>(V);
  if (!P)
    return false;
  SmallVector<const Value *, 4> Indexes{P};
  for (const User *U : P->users())
    if (isa<SExtInst>(U) || isa<ZExtInst>(U))
      Indexes.push_back(U);
  for (const Value *I : Indexes)
    for (const User *U : I->users())
      if (auto *G = dyn_cast<GetElementPtrInst>(U); G && G->getNumIndices() == 1 && G->idx_begin()->get() == I &&
                                                    is_contained(Loads, G->getPointerOperand()))
        return true;
  return false;
}

static std::optional<int64_t> countField(const DataLayout &DL, const Function &F, const Value *Base, int64_t Off,
                                         int64_t Stride, ArrayRef<const LoadInst *> Loads) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      auto *LI = dyn_cast<LoadInst>(&I);
      if (!LI || !LI->getType()->isIntegerTy(64))
        continue;
      int64_t O = 0;
      if (GetPointerBaseWithConstantOffset(LI->getPointerOperand(), O, DL) != Base || O == Off || O < Off - 16 ||
          O > Off + 16)
        continue;
      for (const User *U : LI->users()) {
        if (scaledBy(U, LI, Stride))
          return O;
        if (auto *G = dyn_cast<GetElementPtrInst>(U); G && G->getNumIndices() == 1 && G->idx_begin()->get() == LI &&
                                                      (int64_t)DL.getTypeAllocSize(G->getSourceElementType()) == Stride)
          return O;
        for (const User *UU : U->users()) // through umul.with.overflow's result
          if (scaledBy(UU, LI, Stride))
            return O;
        // The bound of a loop over the elements (a C struct's {Row *rows; long n;}).
        if (auto *C = dyn_cast<ICmpInst>(U); C && indexesArray(C->getOperand(C->getOperand(0) == LI ? 1 : 0), Loads))
          return O;
      }
    }
  return std::nullopt;
}

/// The paths from Base (see containerFields), at most Depth pointer hops deep.
static void collectContainerPaths(const DataLayout &DL, const Function &F, const Value *Base, unsigned Depth,
                                  SmallVectorImpl<int64_t> &Prefix, std::vector<ContainerPath> &Out) {
  MemoryLayout L = accessLayout(DL, Base);
  for (auto &[Off, T] : L.Fields) {
    if (!T->isPointerTy() || Off < 0 || Out.size() >= 8)
      continue;
    SmallVector<const LoadInst *, 4> Loads = fieldLoads(DL, F, Base, Off);
    if (Loads.empty())
      continue;
    Prefix.push_back(Off);
    if (floatsOnly(DL, Loads)) {
      Out.push_back({std::vector<int64_t>(Prefix.begin(), Prefix.end()), 0, 0});
    } else if (auto Arr = containerArray(DL, F, Loads)) {
      // std::vector's {begin, end, capacity}: the elements can be counted before the call.
      auto pointerAt = [&](int64_t O) {
        auto It = L.Fields.find(O);
        return It != L.Fields.end() && It->second->isPointerTy();
      };
      int64_t End = pointerAt(Off + 8) ? Off + 8 : -1, Cap = End >= 0 && pointerAt(Off + 16) ? Off + 16 : -1;
      bool Counts = false;
      if (End < 0) // a Rust Vec's {capacity, data, length}: the length scaled by the element size
        if (std::optional<int64_t> N = countField(DL, F, Base, Off, Arr->first, Loads)) {
          End = *N;
          Counts = true;
        }
      Out.push_back({std::vector<int64_t>(Prefix.begin(), Prefix.end()), Arr->first, Arr->second, End, Cap, Counts});
    } else if (Depth > 0) { // a pointer to a container (`struct { vector<double> *v; }`)
      collectContainerPaths(DL, F, Loads.front(), Depth - 1, Prefix, Out);
    }
    Prefix.pop_back();
  }
}

std::vector<ContainerPath> containerFields(const DataLayout &DL, const Argument *A) {
  std::vector<ContainerPath> Out;
  if (!A->getType()->isPointerTy())
    return Out;
  SmallVector<int64_t, 4> Prefix;
  collectContainerPaths(DL, *A->getParent(), A, 2, Prefix, Out);
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

} // namespace synthase

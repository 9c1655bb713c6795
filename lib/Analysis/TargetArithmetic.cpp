#include "Analysis/TargetArithmetic.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"

using namespace llvm;

namespace synthase {

/// Eigen's packet FMA and min/max in inline asm (clang passes for GCC < 6.3, so Eigen takes its
/// asm paths), recognized by their exact strings and constraints and rewritten as the same
/// arithmetic in generic IR. AT&T operand order, the call's arguments are $1, $2, ... in order:
///   vfmadd231p{d,s} $1, $2, $0  "=x,x,x,0"  $0 = $1 * $2 + $0 (the third argument)
///   minp{d,s} $1, $0            "=x,x,0"    $0 = $0 < $1 ? $0 : $1 (x86: the source on NaN)
///   vminp{d,s} $1, $2, $0       "=x,x,x"    $0 = $2 < $1 ? $2 : $1
/// and max likewise, so both take the second argument when it compares strictly before the first.
static Value *asPlainArithmetic(CallInst *CI) {
  auto *IA = cast<InlineAsm>(CI->getCalledOperand());
  StringRef Asm = StringRef(IA->getAsmString()).trim();
  StringRef Cons = IA->getConstraintString();
  Type *T = CI->getType();
  if (!T->isFPOrFPVectorTy() || any_of(CI->args(), [&](Use &U) { return U->getType() != T; }))
    return nullptr;
  // Only the clobbers clang adds for x86 asm may follow the operands.
  auto Operands = [&](StringRef Want) {
    if (!Cons.consume_front(Want))
      return false;
    for (StringRef Rest = Cons; !Rest.empty();) {
      auto [Item, Tail] = Rest.split(',');
      if (!Item.empty() && !Item.starts_with("~{"))
        return false;
      Rest = Tail;
    }
    return true;
  };
  IRBuilder<> B(CI);
  Value *A0 = CI->arg_size() > 0 ? CI->getArgOperand(0) : nullptr;
  Value *A1 = CI->arg_size() > 1 ? CI->getArgOperand(1) : nullptr;
  if ((Asm == "vfmadd231pd $1, $2, $0" || Asm == "vfmadd231ps $1, $2, $0") && CI->arg_size() == 3 &&
      Operands("=x,x,x,0"))
    return B.CreateIntrinsic(Intrinsic::fma, {T}, {A0, A1, CI->getArgOperand(2)});
  bool Min = Asm == "minpd $1, $0" || Asm == "minps $1, $0" || Asm == "vminpd $1, $2, $0" ||
             Asm == "vminps $1, $2, $0";
  bool Max = Asm == "maxpd $1, $0" || Asm == "maxps $1, $0" || Asm == "vmaxpd $1, $2, $0" ||
             Asm == "vmaxps $1, $2, $0";
  if ((!Min && !Max) || CI->arg_size() != 2 || !Operands(Asm.starts_with("v") ? "=x,x,x" : "=x,x,0"))
    return nullptr;
  Value *Before = Min ? B.CreateFCmpOLT(A1, A0) : B.CreateFCmpOGT(A1, A0);
  return B.CreateSelect(Before, A1, A0);
}

/// haddp{s,d}(a, b): within each 128-bit lane, the sums of adjacent pairs of a, then of b.
static Value *asHorizontal(CallInst *CI) {
  bool Sub;
  switch (CI->getIntrinsicID()) {
  case Intrinsic::x86_sse3_hadd_ps:
  case Intrinsic::x86_sse3_hadd_pd:
  case Intrinsic::x86_avx_hadd_ps_256:
  case Intrinsic::x86_avx_hadd_pd_256:
    Sub = false;
    break;
  case Intrinsic::x86_sse3_hsub_ps:
  case Intrinsic::x86_sse3_hsub_pd:
  case Intrinsic::x86_avx_hsub_ps_256:
  case Intrinsic::x86_avx_hsub_pd_256:
    Sub = true;
    break;
  default:
    return nullptr;
  }
  auto *VT = cast<FixedVectorType>(CI->getType());
  unsigned N = VT->getNumElements();
  unsigned PerLane = 128 / VT->getScalarSizeInBits(); // elements per 128-bit lane
  SmallVector<int, 8> Even, Odd;
  for (unsigned L = 0; L < N; L += PerLane)
    for (unsigned Src = 0; Src < 2; ++Src) // a's pairs, then b's (b's elements start at N)
      for (unsigned k = 0; k < PerLane; k += 2) {
        Even.push_back(Src * N + L + k);
        Odd.push_back(Src * N + L + k + 1);
      }
  IRBuilder<> B(CI);
  Value *A = CI->getArgOperand(0), *Bv = CI->getArgOperand(1);
  Value *E = B.CreateShuffleVector(A, Bv, Even), *O = B.CreateShuffleVector(A, Bv, Odd);
  return Sub ? B.CreateFSub(E, O) : B.CreateFAdd(E, O);
}

void lowerTargetArithmetic(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && (CI->isInlineAsm() || CI->getIntrinsicID() != Intrinsic::not_intrinsic))
      Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    Value *R = CI->isInlineAsm() ? asPlainArithmetic(CI) : asHorizontal(CI);
    if (!R)
      continue;
    R->takeName(CI);
    CI->replaceAllUsesWith(R);
    CI->eraseFromParent();
  }
}

} // namespace synthase

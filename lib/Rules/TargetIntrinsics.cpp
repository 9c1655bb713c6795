// x86 intrinsics on float vectors that <immintrin.h> code and -march=native leave in the IR
// (clang lowers most of them to generic IR; these are the ones it keeps): horizontal add/sub,
// addsub, dot products, blendv, min/max with x86 semantics, and rsqrt/rcp approximations when a
// Newton step refines them. Leaves are vector lanes, operand after operand.
#include "Rules/CallJacobians.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {
namespace {

StringRef x86Name(const CallBase *CB) {
  const Function *F = CB->getCalledFunction();
  if (!F || !F->isIntrinsic())
    return "";
  StringRef N = F->getName();
  return N.consume_front("llvm.x86.") ? N : "";
}

unsigned lanesOf(const Value *V) {
  auto *VT = dyn_cast<FixedVectorType>(V->getType());
  return VT ? VT->getNumElements() : 0;
}

unsigned lanesPerBlock(const JacobianCtx &C) { return 128 / C.T->getPrimitiveSizeInBits(); }

// [a0±a1, a2±a3, b0±b1, b2±b3] in each 128-bit block.
template <bool Sub> void horizontal(JacobianCtx &C) {
  unsigned N = lanesOf(C.CB->getArgOperand(0)), E = lanesPerBlock(C);
  for (unsigned o = 0; o < N; ++o) {
    unsigned Block = o / E * E, j = o % E;
    unsigned Src = j < E / 2 ? Block + 2 * j : N + Block + 2 * (j - E / 2);
    C.set(o, Src, C.c(1.0));
    C.set(o, Src + 1, C.c(Sub ? -1.0 : 1.0));
  }
}

void addsub(JacobianCtx &C) {
  unsigned N = lanesOf(C.CB->getArgOperand(0));
  for (unsigned o = 0; o < N; ++o) {
    C.set(o, o, C.c(1.0));
    C.set(o, N + o, C.c(o % 2 ? 1.0 : -1.0));
  }
}

// dpps: imm bits 4..7 choose the products summed, bits 0..3 the result lanes that receive the sum
// (per 128-bit block for the 256-bit form); dppd uses bits 4..5 and 0..1.
void dot(JacobianCtx &C) {
  auto *Imm = dyn_cast<ConstantInt>(C.CB->getArgOperand(2));
  unsigned Mask = Imm ? Imm->getZExtValue() : 0xff;
  unsigned N = lanesOf(C.CB->getArgOperand(0)), E = lanesPerBlock(C);
  for (unsigned o = 0; o < N; ++o) {
    unsigned Block = o / E * E;
    if (!(Mask >> (o % E) & 1))
      continue;
    for (unsigned i = 0; i < E; ++i)
      if (Mask >> (4 + i) & 1) {
        C.set(o, Block + i, C.x(N + Block + i));
        C.set(o, N + Block + i, C.x(Block + i));
      }
  }
}

// blendv(a, b, m): lane k is b_k when m_k's sign bit is set. The mask's leaves carry no derivative.
void blendv(JacobianCtx &C) {
  unsigned N = lanesOf(C.CB->getArgOperand(0));
  Type *IT = C.B.getIntNTy(C.T->getPrimitiveSizeInBits());
  for (unsigned o = 0; o < N; ++o) {
    Value *PickB = C.B.CreateICmpSLT(C.B.CreateBitCast(C.x(2 * N + o), IT), ConstantInt::get(IT, 0));
    C.set(o, o, C.B.CreateSelect(PickB, C.c(0.0), C.c(1.0)));
    C.set(o, N + o, C.B.CreateSelect(PickB, C.c(1.0), C.c(0.0)));
  }
}

// x86 max(a, b) = a > b ? a : b and min(a, b) = a < b ? a : b: equal operands or a NaN give b.
// The scalar forms (.ss/.sd) compute lane 0 and pass the other lanes of a through.
template <bool Max> void minmax(JacobianCtx &C) {
  unsigned N = lanesOf(C.CB->getArgOperand(0));
  bool Scalar = x86Name(C.CB).ends_with(".ss") || x86Name(C.CB).ends_with(".sd");
  for (unsigned o = 0; o < N; ++o) {
    if (Scalar && o > 0) {
      C.set(o, o, C.c(1.0));
      continue;
    }
    Value *PickA = Max ? C.B.CreateFCmpOGT(C.x(o), C.x(N + o)) : C.B.CreateFCmpOLT(C.x(o), C.x(N + o));
    C.set(o, o, C.B.CreateSelect(PickA, C.c(1.0), C.c(0.0)));
    C.set(o, N + o, C.B.CreateSelect(PickA, C.c(0.0), C.c(1.0)));
  }
}

// The derivative of the exact function: after a Newton step y1 = g(x, y0), the error of y0 only
// enters through ∂g/∂y0, which vanishes at the fixed point, so the refined result's derivative is
// right to second order in the approximation's error.
template <bool Rsqrt> void approx(JacobianCtx &C) {
  unsigned N = lanesOf(C.CB->getArgOperand(0));
  bool Scalar = x86Name(C.CB).ends_with(".ss");
  for (unsigned o = 0; o < N; ++o) {
    if (Scalar && o > 0) {
      C.set(o, o, C.c(1.0));
      continue;
    }
    Value *X = C.x(o);
    Value *D = Rsqrt ? C.B.CreateFMul(X, C.B.CreateUnaryIntrinsic(Intrinsic::sqrt, X)) : C.B.CreateFMul(X, X);
    C.set(o, o, C.B.CreateFDiv(C.c(Rsqrt ? -0.5 : -1.0), D));
  }
}

void sqrtLanes(JacobianCtx &C) {
  for (unsigned o = 0; o < C.NOut; ++o)
    C.set(o, o, C.B.CreateFDiv(C.c(0.5), C.y(o)));
}

enum class Fam { None, HAdd, HSub, AddSub, Dot, Blendv, Max, Min, Rsqrt, Rcp, Sqrt };

Fam familyOf(StringRef N) {
  return StringSwitch<Fam>(N)
      .Cases({"sse3.hadd.ps", "sse3.hadd.pd", "avx.hadd.ps.256", "avx.hadd.pd.256"}, Fam::HAdd)
      .Cases({"sse3.hsub.ps", "sse3.hsub.pd", "avx.hsub.ps.256", "avx.hsub.pd.256"}, Fam::HSub)
      .Cases({"sse3.addsub.ps", "sse3.addsub.pd", "avx.addsub.ps.256", "avx.addsub.pd.256"}, Fam::AddSub)
      .Cases({"sse41.dpps", "sse41.dppd", "avx.dp.ps.256"}, Fam::Dot)
      .Cases({"sse41.blendvps", "sse41.blendvpd", "avx.blendv.ps.256", "avx.blendv.pd.256"}, Fam::Blendv)
      .Cases({"sse.max.ps", "sse2.max.pd", "avx.max.ps.256", "avx.max.pd.256", "sse.max.ss", "sse2.max.sd",
              "avx512.max.ps.512", "avx512.max.pd.512"},
             Fam::Max)
      .Cases({"sse.min.ps", "sse2.min.pd", "avx.min.ps.256", "avx.min.pd.256", "sse.min.ss", "sse2.min.sd",
              "avx512.min.ps.512", "avx512.min.pd.512"},
             Fam::Min)
      .Cases({"sse.rsqrt.ps", "avx.rsqrt.ps.256", "sse.rsqrt.ss"}, Fam::Rsqrt)
      .Cases({"sse.rcp.ps", "avx.rcp.ps.256", "sse.rcp.ss"}, Fam::Rcp)
      .Cases({"avx512.sqrt.ps.512", "avx512.sqrt.pd.512"}, Fam::Sqrt)
      .Default(Fam::None);
}

/// A Newton step reads the approximation y0 together with its input x within a few arithmetic
/// operations (y0·(1.5 - 0.5·x·y0²), y0·(2 - x·y0)).
bool refinedByNewton(const CallBase *CB) {
  const Value *X = CB->getArgOperand(0);
  // The input, or the input scaled by a constant (0.5·x is often formed first).
  SmallPtrSet<const Value *, 4> Input{X};
  for (const User *U : X->users())
    if (auto *BO = dyn_cast<BinaryOperator>(U); BO && BO->getOpcode() == Instruction::FMul &&
                                                (isa<Constant>(BO->getOperand(0)) || isa<Constant>(BO->getOperand(1))))
      Input.insert(BO);
  SmallVector<std::pair<const Value *, unsigned>, 16> Work{{CB, 0}};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty()) {
    auto [V, Depth] = Work.pop_back_val();
    if (!Seen.insert(V).second || Depth > 3)
      continue;
    for (const User *U : V->users()) {
      auto *I = dyn_cast<Instruction>(U);
      if (!I)
        continue;
      bool Arith = isa<BinaryOperator>(I) || isa<UnaryOperator>(I) || isa<ShuffleVectorInst>(I);
      if (auto *II = dyn_cast<IntrinsicInst>(I))
        Arith |= II->getIntrinsicID() == Intrinsic::fma || II->getIntrinsicID() == Intrinsic::fmuladd;
      if (!Arith)
        continue;
      if (any_of(I->operands(), [&](const Use &Op) { return Input.count(Op.get()) > 0; }))
        return true;
      Work.push_back({I, Depth + 1});
    }
  }
  return false;
}

} // namespace

JacobianFn targetJacobian(const CallBase *CB) {
  StringRef N = x86Name(CB);
  if (N.empty())
    return nullptr;
  switch (familyOf(N)) {
  case Fam::HAdd: return horizontal<false>;
  case Fam::HSub: return horizontal<true>;
  case Fam::AddSub: return addsub;
  case Fam::Dot: return dot;
  case Fam::Blendv: return blendv;
  case Fam::Max: return minmax<true>;
  case Fam::Min: return minmax<false>;
  case Fam::Rsqrt: return refinedByNewton(CB) ? approx<true> : nullptr;
  case Fam::Rcp: return refinedByNewton(CB) ? approx<false> : nullptr;
  case Fam::Sqrt: return sqrtLanes;
  case Fam::None: return nullptr;
  }
  return nullptr;
}

bool isInactiveTargetIntrinsic(const CallBase *CB) {
  StringRef N = x86Name(CB);
  if (N.empty())
    return false;
  if (!CB->getType()->isFPOrFPVectorTy())
    return true; // sign masks (movmsk), tests (vtestz), conversions to integers
  return N.contains(".cmp.") || N.contains(".round.") || N.contains(".rndscale.");
}

bool explainMissingCallRule(const CallBase *CB, std::string &Msg, std::string &Hint) {
  StringRef N = x86Name(CB);
  if (N.empty())
    return false;
  Fam F = familyOf(N);
  if (F == Fam::Rsqrt || F == Fam::Rcp) {
    Msg = ("the approximation llvm.x86." + N + " is used without a Newton refinement step").str();
    Hint = "its derivative would be that of a 12-bit approximation; refine the result with a Newton "
           "step (y*(1.5f - 0.5f*x*y*y) for rsqrt, y*(2 - x*y) for rcp) or use sqrt/division";
    return true;
  }
  Msg = ("no derivative rule for the x86 target intrinsic llvm.x86." + N).str();
  Hint = "write the operation with portable vector code or the generic intrinsics, or compile this "
         "function without the -m flag (or -march=native) that enables it";
  return true;
}

} // namespace synthase

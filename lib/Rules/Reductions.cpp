// llvm.vector.reduce.f*: what loop vectorizers leave after a sum, product, max or min loop
// (Rust's fold(f64::NEG_INFINITY, f64::max) in release builds, C at -O3 -march=native).
// fadd and fmul carry a start value as their first leaf; ordered and reassociating forms have the
// same derivative.
#include "Rules/CallJacobians.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

static void reduceAdd(JacobianCtx &C) {
  for (unsigned i = 0; i < C.NIn; ++i)
    C.set(0, i, C.c(1.0));
}

// d/dv_k of s·Π v_j is s·Π_{j≠k} v_j, built from prefix and suffix products so that a zero lane
// gives the right (nonzero) partial for itself instead of 0/0.
static void reduceMul(JacobianCtx &C) {
  unsigned N = C.NIn; // leaf 0 is the start value
  SmallVector<Value *, 16> Prefix(N + 1), Suffix(N + 1);
  Prefix[0] = C.c(1.0);
  for (unsigned i = 0; i < N; ++i)
    Prefix[i + 1] = i == 0 ? C.x(0) : C.B.CreateFMul(Prefix[i], C.x(i));
  Suffix[N] = C.c(1.0);
  for (unsigned i = N; i-- > 0;)
    Suffix[i] = i == N - 1 ? C.x(i) : C.B.CreateFMul(Suffix[i + 1], C.x(i));
  for (unsigned i = 0; i < N; ++i)
    C.set(0, i, i == 0 ? Suffix[1] : i == N - 1 ? Prefix[i] : C.B.CreateFMul(Prefix[i], Suffix[i + 1]));
}

// The adjoint goes to the first lane that equals the result: ties are broken the same way in
// both modes, and a NaN result (fmaximum) gives no lane anything.
static void reduceSelect(JacobianCtx &C) {
  Value *Taken = C.B.getFalse();
  for (unsigned i = 0; i < C.NIn; ++i) {
    Value *Hit = C.B.CreateAnd(C.B.CreateFCmpOEQ(C.x(i), C.y(0)), C.B.CreateNot(Taken));
    C.set(0, i, C.B.CreateSelect(Hit, C.c(1.0), C.c(0.0)));
    Taken = C.B.CreateOr(Taken, Hit);
  }
}

JacobianFn reductionJacobian(const CallBase *CB) {
  auto *II = dyn_cast<IntrinsicInst>(CB);
  if (!II)
    return nullptr;
  switch (II->getIntrinsicID()) {
  case Intrinsic::vector_reduce_fadd:
    return reduceAdd;
  case Intrinsic::vector_reduce_fmul:
    return reduceMul;
  case Intrinsic::vector_reduce_fmax:
  case Intrinsic::vector_reduce_fmin:
  case Intrinsic::vector_reduce_fmaximum:
  case Intrinsic::vector_reduce_fminimum:
    return reduceSelect;
  default:
    return nullptr;
  }
}

} // namespace synthase

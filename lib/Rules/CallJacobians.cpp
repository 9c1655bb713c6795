// The generic half of Jacobian rules: splitting arguments and results into float leaves, and
// applying a rule's matrix forwards (J·ẋ) and backwards (Jᵀ·ȳ).
#include "Rules/CallJacobians.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace synthase {

static JacobianFn lookup(const CallBase *CB) {
  if (JacobianFn F = reductionJacobian(CB))
    return F;
  if (JacobianFn F = complexJacobian(CB))
    return F;
  if (JacobianFn F = complexInverseJacobian(CB))
    return F;
  return targetJacobian(CB);
}

/// Appends the leaves of a value of type Ty; false for a shape rules do not read (a nested
/// aggregate, a pointer) or a float type different from T.
static bool leavesOf(Type *Ty, unsigned Arg, Type *&T, SmallVectorImpl<JacobianCtx::Leaf> &Out) {
  auto scalar = [&](Type *S) {
    if (!S->isFloatingPointTy())
      return false;
    if (T && T != S)
      return false;
    T = S;
    return true;
  };
  if (Ty->isFloatingPointTy()) {
    if (!scalar(Ty))
      return false;
    Out.push_back({Arg, -1, false});
    return true;
  }
  if (auto *VT = dyn_cast<FixedVectorType>(Ty)) {
    if (!scalar(VT->getElementType()))
      return false;
    for (unsigned k = 0; k < VT->getNumElements(); ++k)
      Out.push_back({Arg, (int)k, true});
    return true;
  }
  if (auto *ST = dyn_cast<StructType>(Ty)) {
    for (unsigned k = 0; k < ST->getNumElements(); ++k) {
      if (!scalar(ST->getElementType(k)))
        return false;
      Out.push_back({Arg, (int)k, false});
    }
    return ST->getNumElements() > 0;
  }
  return false;
}

/// Fills the leaf lists; false when an argument or the result has a shape rules do not read.
static bool layOut(const CallBase *CB, JacobianCtx &C) {
  for (unsigned a = 0; a < CB->arg_size(); ++a) {
    Type *Ty = CB->getArgOperand(a)->getType();
    if (Ty->isFPOrFPVectorTy() || Ty->isStructTy())
      if (!leavesOf(Ty, a, C.T, C.In))
        return false;
  }
  if (!leavesOf(CB->getType(), 0, C.T, C.Out))
    return false;
  C.NIn = C.In.size();
  C.NOut = C.Out.size();
  return C.NIn && C.NOut;
}

static Value *extractLeaf(IRBuilder<> &B, Value *Agg, const JacobianCtx::Leaf &L) {
  if (L.Index < 0)
    return Agg;
  if (L.Vector)
    return B.CreateExtractElement(Agg, B.getInt32(L.Index));
  return B.CreateExtractValue(Agg, (unsigned)L.Index);
}

static Value *insertLeaf(IRBuilder<> &B, Value *Agg, Value *V, const JacobianCtx::Leaf &L) {
  if (L.Index < 0)
    return V;
  if (L.Vector)
    return B.CreateInsertElement(Agg, V, B.getInt32(L.Index));
  return B.CreateInsertValue(Agg, V, (unsigned)L.Index);
}

Value *JacobianCtx::x(unsigned i) {
  if (!XCache[i])
    XCache[i] = extractLeaf(B, P(CB->getArgOperand(In[i].Arg)), In[i]);
  return XCache[i];
}

Value *JacobianCtx::y(unsigned k) {
  if (!YAgg)
    YAgg = P(const_cast<CallBase *>(CB));
  if (!YCache[k])
    YCache[k] = extractLeaf(B, YAgg, Out[k]);
  return YCache[k];
}

void JacobianCtx::holomorphic(unsigned O, unsigned I, Value *U, Value *V) {
  // d(Re f)/d(Re z) = U, d(Re f)/d(Im z) = -V, d(Im f)/d(Re z) = V, d(Im f)/d(Im z) = U.
  set(O, I, U);
  set(O, I + 1, B.CreateFNeg(V));
  set(O + 1, I, V);
  set(O + 1, I + 1, U);
}

bool hasJacobianRule(const CallBase *CB) {
  if (!lookup(CB))
    return false;
  SmallVector<JacobianCtx::Leaf, 16> In, Out;
  Type *T = nullptr;
  for (unsigned a = 0; a < CB->arg_size(); ++a) {
    Type *Ty = CB->getArgOperand(a)->getType();
    if ((Ty->isFPOrFPVectorTy() || Ty->isStructTy()) && !leavesOf(Ty, a, T, In))
      return false;
  }
  return leavesOf(CB->getType(), 0, T, Out) && !In.empty();
}

/// Builds the matrix of CB's rule at B.
static bool buildJacobian(JacobianCtx &C) {
  if (!layOut(C.CB, C))
    return false;
  C.XCache.assign(C.NIn, nullptr);
  C.YCache.assign(C.NOut, nullptr);
  C.J.assign(C.NOut, SmallVector<Value *, 8>(C.NIn, nullptr));
  lookup(C.CB)(C);
  return true;
}

SmallVector<Value *, 4> jacobianTangents(const CallBase *CB, IRBuilder<> &B, PrimalFn Primal, unsigned W,
                                         function_ref<Value *(unsigned, unsigned)> ArgTangent) {
  JacobianCtx C{B, CB, Primal};
  SmallVector<Value *, 4> Lanes;
  if (!buildJacobian(C))
    return Lanes;
  for (unsigned l = 0; l < W; ++l) {
    SmallVector<Value *, 16> Dx(C.NIn, nullptr);
    for (unsigned i = 0; i < C.NIn; ++i)
      if (Value *A = ArgTangent(C.In[i].Arg, l))
        Dx[i] = extractLeaf(B, A, C.In[i]);
    Value *Res = Constant::getNullValue(CB->getType());
    for (unsigned o = 0; o < C.NOut; ++o) {
      Value *Acc = nullptr;
      for (unsigned i = 0; i < C.NIn; ++i)
        if (C.J[o][i] && Dx[i]) {
          Value *Term = B.CreateFMul(C.J[o][i], Dx[i]);
          Acc = Acc ? B.CreateFAdd(Acc, Term) : Term;
        }
      Res = insertLeaf(B, Res, Acc ? Acc : C.c(0.0), C.Out[o]);
    }
    Lanes.push_back(Res);
  }
  return Lanes;
}

void jacobianAdjoints(const CallBase *CB, IRBuilder<> &B, PrimalFn Primal, Value *DRes,
                      function_ref<bool(unsigned)> Wants, function_ref<void(unsigned, Value *)> Accumulate) {
  JacobianCtx C{B, CB, Primal};
  if (!buildJacobian(C))
    return;
  SmallVector<Value *, 16> Dy;
  for (unsigned o = 0; o < C.NOut; ++o)
    Dy.push_back(extractLeaf(B, DRes, C.Out[o]));
  DenseMap<unsigned, Value *> ArgAdj;
  for (unsigned i = 0; i < C.NIn; ++i) {
    unsigned A = C.In[i].Arg;
    if (!Wants(A))
      continue;
    Value *Acc = nullptr;
    for (unsigned o = 0; o < C.NOut; ++o)
      if (C.J[o][i]) {
        Value *Term = B.CreateFMul(C.J[o][i], Dy[o]);
        Acc = Acc ? B.CreateFAdd(Acc, Term) : Term;
      }
    Value *&Agg = ArgAdj[A];
    if (!Agg)
      Agg = Constant::getNullValue(CB->getArgOperand(A)->getType());
    Agg = insertLeaf(B, Agg, Acc ? Acc : C.c(0.0), C.In[i]);
  }
  for (unsigned a = 0; a < CB->arg_size(); ++a)
    if (Value *D = ArgAdj.lookup(a))
      Accumulate(a, D);
}

} // namespace synthase

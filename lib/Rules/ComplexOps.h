// Complex arithmetic on (re, im) pairs of IR values, shared by the complex Jacobian rules
// (ComplexRules.cpp, ComplexInverse.cpp), and the name under which a call gets a complex rule.
#pragma once
#include "Rules/CallJacobians.h"

namespace synthase {

struct Cx {
  llvm::Value *Re, *Im;
};

struct CxOps {
  JacobianCtx &C;
  llvm::IRBuilder<> &B;
  explicit CxOps(JacobianCtx &C) : C(C), B(C.B) {}
  Cx z(unsigned i) { return {C.x(i), C.x(i + 1)}; }
  Cx y() { return {C.y(0), C.y(1)}; }
  Cx add(Cx a, Cx b) { return {B.CreateFAdd(a.Re, b.Re), B.CreateFAdd(a.Im, b.Im)}; }
  Cx sub(Cx a, Cx b) { return {B.CreateFSub(a.Re, b.Re), B.CreateFSub(a.Im, b.Im)}; }
  Cx real(double V) { return {C.c(V), C.c(0.0)}; }
  Cx mul(Cx a, Cx b) {
    return {B.CreateFSub(B.CreateFMul(a.Re, b.Re), B.CreateFMul(a.Im, b.Im)),
            B.CreateFAdd(B.CreateFMul(a.Re, b.Im), B.CreateFMul(a.Im, b.Re))};
  }
  llvm::Value *norm2(Cx a) { return B.CreateFAdd(B.CreateFMul(a.Re, a.Re), B.CreateFMul(a.Im, a.Im)); }
  /// 1/a = conj(a)/|a|²
  Cx recip(Cx a) {
    llvm::Value *N = norm2(a);
    return {B.CreateFDiv(a.Re, N), B.CreateFNeg(B.CreateFDiv(a.Im, N))};
  }
  Cx div(Cx a, Cx b) { return mul(a, recip(b)); }
  Cx neg(Cx a) { return {B.CreateFNeg(a.Re), B.CreateFNeg(a.Im)}; }
  Cx log(Cx a) {
    llvm::Value *R = B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, norm2(a));
    return {B.CreateUnaryIntrinsic(llvm::Intrinsic::log, R),
            B.CreateBinaryIntrinsic(llvm::Intrinsic::atan2, a.Im, a.Re)};
  }
  /// The principal square root (the branch csqrt takes), without the cancellation of
  /// sqrt((|a| - Re a)/2) for Re a < 0: t = sqrt((|a| + |Re a|)/2) is one component, b/(2t) the other.
  Cx sqrt(Cx a);
  llvm::Value *un(llvm::Intrinsic::ID Id, llvm::Value *V) { return B.CreateUnaryIntrinsic(Id, V); }
  void holo(unsigned In, Cx D) { C.holomorphic(0, In, D.Re, D.Im); }
};

/// The C name whose complex rule a call takes: a declaration's own name, or for the unpacking
/// wrapper of a call that passes its complex operands in memory (ComplexByval.cpp) the name of
/// the function it wraps. Empty for anything else.
llvm::StringRef complexCalleeName(const llvm::CallBase *CB);

} // namespace synthase

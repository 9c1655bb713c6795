// The one table of local derivatives, shared by forward, reverse and vector mode.
//
// For an instruction y = f(x0, x1, ...) a rule gives the partial derivative dy/dxi as IR built from
// primal values. Forward mode forms  ẏ = Σ (dy/dxi)·ẋi,  reverse mode  x̄i += (dy/dxi)·ȳ,  and vector
// mode maps the same partials over every lane. Values are fetched through a callback so each mode
// decides where a primal comes from (the live value in the forward sweep, the tape in reverse).
#pragma once
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instruction.h"

namespace synthase {

struct LocalRule;

/// How the engine treats an instruction's derivative.
enum class RuleClass {
  Inactive,   ///< carries no derivative (fcmp, rounding, integer ops, loads of indices, ...)
  Local,      ///< an entry of the local-derivative table below
  Structural, ///< linear data movement or memory/calls: each mode's generator handles it
  Unknown,    ///< no rule: a float-carrying instruction or callee we cannot differentiate
};

RuleClass classify(const llvm::Instruction *I);

/// The table entry for I (fp arithmetic, an intrinsic, or a bodiless libm function), or null.
const LocalRule *findLocalRule(const llvm::Instruction *I);

/// Operand positions (call argument index for calls) whose derivative the rule defines.
llvm::SmallVector<unsigned, 3> differentiableOperands(const LocalRule *R, const llvm::Instruction *I);

/// The operand at a rule position (call argument for calls, instruction operand otherwise).
llvm::Value *ruleOperand(const llvm::Instruction *I, unsigned Pos);

using PrimalFn = llvm::function_ref<llvm::Value *(llvm::Value *)>;

/// Builds dy/dx_Pos at B's insertion point. Primal(V) maps a value of the original function
/// (an operand of I, or I itself for its result) to the value usable at B.
llvm::Value *localPartial(const LocalRule *R, const llvm::Instruction *I, unsigned Pos,
                          llvm::IRBuilder<> &B, PrimalFn Primal);

/// True when dy/dx_Pos can be infinite or NaN at finite operands (a pole such as sqrt'(0) or
/// log'(0), or a 0/0 such as atan2 at the origin), so that partial · 0 would be NaN.
bool partialMayBeSingular(const LocalRule *R, const llvm::Instruction *I, unsigned Pos);

/// partial · incoming (a tangent lane in forward mode, the result's adjoint in reverse mode), the
/// one place both modes form a rule's contribution. Zero times infinity is zero: for a partial
/// that may be singular, an incoming 0 gives +0 instead of NaN (a select on the incoming value,
/// emitted without fast-math flags so it survives -ffast-math). Other partials get a plain fmul.
llvm::Value *scalePartial(const LocalRule *R, const llvm::Instruction *I, unsigned Pos,
                          llvm::Value *Partial, llvm::Value *Incoming, llvm::IRBuilder<> &B);

/// Canonical libm name for a declared function ("sinf" → "sin"), or "" if it is not libm.
llvm::StringRef canonicalMathName(const llvm::Function *F);
/// The same for a bare name ("log1pf" → "log1p"), or "" when the table has no such function.
llvm::StringRef canonicalMathName(llvm::StringRef Name);
/// How many leading floating-point arguments the rule for a canonical name differentiates
/// (0 for functions whose derivative is zero, such as floor).
unsigned mathRuleArity(llvm::StringRef Canonical);

/// True for calls that never carry derivatives and can be ignored by every mode
/// (debug info, lifetime markers, assumes, ...).
bool isIgnorableIntrinsic(const llvm::Instruction *I);

} // namespace synthase

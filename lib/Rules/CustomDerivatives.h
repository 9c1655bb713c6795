// User-registered derivatives, in Enzyme's C convention:
//   void *__enzyme_register_gradient_NAME[3]   = {f, augmented_f, reverse_f};   reverse mode
//   void *__enzyme_register_derivative_NAME[2] = {f, forward_f};                forward mode
// The registrations are read and checked once per module into a table the engine owns. A call of
// f inside differentiated code then goes to a small generated wrapper that has the signature the
// generators use for any callee (fwddiffe_f, or augmented_f + reverse_f sharing the tape) and
// calls the user's functions with their own argument convention.
#pragma once
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

namespace synthase {

class Engine;
struct Signature;
struct GradientPair;
enum class Stage;

/// String attributes set on f by a valid registration. The inliner of the preprocessing, the
/// activity analysis and both generators read them: f stays a call, and counts as a callee with
/// a derivative even without a body.
constexpr const char *CustomForwardAttr = "synthase-custom-forward";
constexpr const char *CustomReverseAttr = "synthase-custom-reverse";
inline bool hasCustomForward(const llvm::Function *F) { return F && F->hasFnAttribute(CustomForwardAttr); }
inline bool hasCustomReverse(const llvm::Function *F) { return F && F->hasFnAttribute(CustomReverseAttr); }
inline bool hasCustomDerivative(const llvm::Function *F) { return hasCustomForward(F) || hasCustomReverse(F); }

/// Set on a registration once a derivative used it (kept across clang's two runs of the pass).
constexpr const char *CustomUsedMD = "synthase.custom.used";

/// How a user function returns its parts. Index -1: the part is absent; Whole: the whole return
/// value is that part.
struct ReturnLayout {
  static constexpr int Whole = -2;
  llvm::Type *Type = nullptr; ///< the logical return type (the sret type for an sret function)
  bool SRet = false;
  int Tape = -1, Primal = -1, Shadow = -1;
};

struct CustomRule {
  llvm::GlobalVariable *Reg = nullptr;
  llvm::Function *Fn = nullptr;
  llvm::Function *Fwd = nullptr;                  ///< forward registration
  llvm::Function *Aug = nullptr, *Rev = nullptr;  ///< gradient registration
  ReturnLayout FwdRet, AugRet;                    ///< FwdRet.Shadow is the tangent
  ReturnLayout RevRet;                            ///< Type: the adjoints as the user returns them
  bool RevTakesTape = false;
  llvm::Type *TapeTy = nullptr;
};

class CustomDerivatives {
public:
  /// Reads every registration of M, reports malformed ones (once per global), and marks the
  /// registered functions. In a compile step the registrations are kept for the LTO link.
  void read(llvm::Module &M, Stage When);
  /// After lowering: outside a compile step the registrations have served, and go.
  void finish(llvm::Module &M, Stage When);

  const CustomRule *forwardRule(const llvm::Function *F) const {
    auto It = Fwd.find(F);
    return It == Fwd.end() ? nullptr : &It->second;
  }
  const CustomRule *reverseRule(const llvm::Function *F) const {
    auto It = Rev.find(F);
    return It == Rev.end() ? nullptr : &It->second;
  }
  /// fwddiffe_f for a registered f (same signature as Engine::tangentFunction), or null after
  /// a diagnostic.
  llvm::Function *tangent(Engine &E, const Signature &S);
  /// augmented_f / reverse_f for a registered f (same signatures as Engine::gradientPair).
  GradientPair gradient(Engine &E, const Signature &S);

private:
  llvm::DenseMap<const llvm::Function *, CustomRule> Fwd, Rev;
  llvm::SmallVector<llvm::GlobalVariable *, 4> Regs;
};

} // namespace synthase

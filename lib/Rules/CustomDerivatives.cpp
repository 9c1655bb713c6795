// Reading and checking custom-derivative registrations (the wrappers that call them are in
// CustomWrappers.cpp). The convention is Enzyme's, at the level of LLVM parameters:
//   augmented_f, reverse_f: each parameter of f, followed by its shadow unless it is floating
//     point; reverse_f then takes the return adjoint when f returns a float, and the tape last.
//   augmented_f returns f's result, {tape, result, shadow}, {result, shadow} (two equal types),
//     {tape, result}, nothing, or anything else as the tape alone.
//   reverse_f returns the adjoints of f's floating-point parameters: nothing, one value, or a
//     struct in parameter order.
//   forward_f: each parameter followed by its tangent; returns the tangent, or {result, tangent}.
#include "Rules/CustomDerivatives.h"
#include "Support/Diagnostics.h"
#include "synthase/Synthase.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace synthase {
namespace {

enum class Kind { Gradient, Derivative, Split };

std::optional<Kind> registrationKind(StringRef N) {
  if (N.contains("__enzyme_register_gradient"))
    return Kind::Gradient;
  if (N.contains("__enzyme_register_derivative"))
    return Kind::Derivative;
  if (N.contains("__enzyme_register_splitderivative"))
    return Kind::Split;
  return std::nullopt;
}

const char *Convention =
    "Enzyme's convention: augmented and reverse functions take each argument of f followed by its "
    "shadow unless it is floating point; the reverse function then takes the return adjoint (when "
    "f returns a float) and the tape last, and returns the adjoints of f's float arguments (one "
    "value or a struct in order); a forward derivative takes each argument followed by its "
    "tangent and returns the tangent, or {result, tangent}";

/// The parameters a user function declares, without a leading sret buffer.
SmallVector<Type *, 8> declaredParams(Function *F) {
  SmallVector<Type *, 8> P(F->getFunctionType()->params());
  if (!P.empty() && F->hasParamAttribute(0, Attribute::StructRet))
    P.erase(P.begin());
  return P;
}

/// The return type a user function declares: the sret buffer's type when it has one.
std::pair<Type *, bool> declaredReturn(Function *F) {
  if (F->arg_size() && F->hasParamAttribute(0, Attribute::StructRet))
    return {F->getParamStructRetType(0), true};
  return {F->getReturnType(), false};
}

void fpLeaves(const DataLayout &DL, Type *T, uint64_t At, SmallVectorImpl<std::pair<uint64_t, Type *>> &Out) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      fpLeaves(DL, ST->getElementType(i), At + SL->getElementOffset(i), Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    for (uint64_t i = 0; i < AT->getNumElements(); ++i)
      fpLeaves(DL, AT->getElementType(), At + i * DL.getTypeAllocSize(AT->getElementType()), Out);
  } else if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    for (unsigned i = 0; i < VT->getNumElements(); ++i)
      fpLeaves(DL, VT->getElementType(), At + i * DL.getTypeAllocSize(VT->getElementType()), Out);
  } else if (T->isFloatingPointTy()) {
    Out.push_back({At, T});
  }
}

/// Two types hold the same bytes the same way, as far as derivatives go: a C struct returned as
/// LLVM chose to lower it ({float, float} as <2 x float>, ...) matches the struct.
bool sameLayout(const DataLayout &DL, Type *A, Type *B) {
  if (A == B)
    return true;
  if (!A->isSized() || !B->isSized() || DL.getTypeAllocSize(A) != DL.getTypeAllocSize(B))
    return false;
  SmallVector<std::pair<uint64_t, Type *>, 8> LA, LB;
  fpLeaves(DL, A, 0, LA);
  fpLeaves(DL, B, 0, LB);
  return LA == LB;
}

std::string typeList(ArrayRef<Type *> Ts) {
  std::string S = "(";
  for (unsigned i = 0; i < Ts.size(); ++i)
    S += (i ? ", " : "") + printType(Ts[i]);
  return S + ")";
}

class Reader {
public:
  Reader(Module &M, GlobalVariable &G) : M(M), G(G), DL(M.getDataLayout()) {}
  bool Bad = false;

  void error(const Twine &Why) {
    if (Bad)
      return;
    Bad = true;
    G.setMetadata("synthase.malformed", MDNode::get(M.getContext(), {}));
    reportModuleError(M, "custom derivative registration '" + G.getName() + "' is malformed: " + Why,
                      Convention);
  }

  /// The entries, as functions; null after an error.
  SmallVector<Function *, 3> entries(unsigned Want, const char *Shape) {
    SmallVector<Function *, 3> Fs;
    auto *AT = dyn_cast<ArrayType>(G.getValueType());
    unsigned N = AT ? AT->getNumElements() : isa<StructType>(G.getValueType()) ? G.getValueType()->getStructNumElements() : 1;
    if (N != Want) {
      error("it has " + Twine(N) + " entr" + (N == 1 ? "y" : "ies") + ", expected " + Twine(Want) + ": " + Shape);
      return {};
    }
    Constant *Init = G.getInitializer();
    for (unsigned i = 0; i < Want; ++i) {
      Constant *E = Init->getAggregateElement(i);
      Function *F = E ? dyn_cast<Function>(E->stripPointerCastsAndAliases()) : nullptr;
      if (!F) {
        error("entry " + Twine(i + 1) + " is not a function: " + Shape);
        return {};
      }
      Fs.push_back(F);
    }
    return Fs;
  }

  void expectParams(Function *F, const char *Role, Function *Fn, ArrayRef<Type *> Want, bool MayTakeTape = false) {
    SmallVector<Type *, 8> Have = declaredParams(F);
    ArrayRef<Type *> Head(Have);
    if (MayTakeTape && Have.size() == Want.size() + 1)
      Head = Head.drop_back();
    if (Head != Want || F->isVarArg())
      error(Twine("the ") + Role + " '" + displayName(F->getName()) + "' takes " + typeList(Have) +
            ", but for '" + displayName(Fn->getName()) + "' " + printType(Fn->getFunctionType()) +
            " it must take " + typeList(Want) + (MayTakeTape ? " (and the tape last)" : ""));
  }

  void returnError(Function *F, const char *Role, Function *Fn, const Twine &Forms) {
    error(Twine("the ") + Role + " '" + displayName(F->getName()) + "' returns " +
          printType(declaredReturn(F).first) + ", but for '" + displayName(Fn->getName()) +
          "' it must return " + Forms);
  }

  bool sizeOf(Type *T, Type *Of) {
    return T->isSized() && Of->isSized() && DL.getTypeAllocSize(T) == DL.getTypeAllocSize(Of);
  }

  void readGradient(CustomRule &R) {
    Function *Fn = R.Fn;
    FunctionType *FT = Fn->getFunctionType();
    Type *RT = FT->getReturnType();
    SmallVector<Type *, 8> Args, Outs;
    for (Type *P : FT->params()) {
      Args.push_back(P);
      if (!P->isFPOrFPVectorTy())
        Args.push_back(P);
      else
        Outs.push_back(P);
    }
    expectParams(R.Aug, "augmented function", Fn, Args);
    // What the augmented function returns, by Enzyme's rules in Enzyme's order.
    ReturnLayout &L = R.AugRet;
    std::tie(L.Type, L.SRet) = declaredReturn(R.Aug);
    auto *ST = dyn_cast<StructType>(L.Type);
    if (L.Type->isVoidTy()) {
    } else if (!RT->isVoidTy() && L.Type == RT) {
      L.Primal = ReturnLayout::Whole;
    } else if (ST && ST->getNumElements() == 3) {
      L.Tape = 0, L.Primal = 1, L.Shadow = 2;
    } else if (ST && ST->getNumElements() == 2 && ST->getElementType(0) == ST->getElementType(1)) {
      L.Primal = 0, L.Shadow = 1;
    } else if (ST && ST->getNumElements() == 2) {
      L.Tape = 0, L.Primal = 1;
    } else {
      L.Tape = ReturnLayout::Whole;
    }
    for (int K : {L.Primal, L.Shadow})
      if (K >= 0 && (RT->isVoidTy() || !sizeOf(ST->getElementType(K), RT)))
        returnError(R.Aug, "augmented function", Fn,
                    RT->isVoidTy() ? Twine("nothing, or a tape") : "the result " + printType(RT) +
                                         ", {tape, result}, {tape, result, shadow} or {result, shadow}");
    if (L.Tape != -1)
      R.TapeTy = L.Tape == ReturnLayout::Whole ? L.Type : ST->getElementType(L.Tape);
    // The reverse function.
    if (RT->isFPOrFPVectorTy())
      Args.push_back(RT);
    expectParams(R.Rev, "reverse function", Fn, Args, /*MayTakeTape=*/true);
    SmallVector<Type *, 8> Have = declaredParams(R.Rev);
    R.RevTakesTape = Have.size() == Args.size() + 1;
    if (!Bad && R.RevTakesTape && R.TapeTy && Have.back() != R.TapeTy)
      error("the reverse function '" + displayName(R.Rev->getName()) + "' takes a tape of type " +
            printType(Have.back()) + ", but the augmented function returns a tape of type " + printType(R.TapeTy));
    ReturnLayout &RL = R.RevRet;
    std::tie(RL.Type, RL.SRet) = declaredReturn(R.Rev);
    bool OK = Outs.empty() ? RL.Type->isVoidTy()
                           : (Outs.size() == 1 && sameLayout(DL, RL.Type, Outs[0])) ||
                                 sameLayout(DL, RL.Type, StructType::get(M.getContext(), Outs));
    if (!OK)
      returnError(R.Rev, "reverse function", Fn,
                  Outs.empty() ? Twine("void (f has no floating-point argument)")
                               : "the adjoints of its floating-point arguments " + typeList(Outs) +
                                     (Outs.size() == 1 ? " as one value" : " as a struct"));
  }

  void readDerivative(CustomRule &R) {
    Function *Fn = R.Fn;
    FunctionType *FT = Fn->getFunctionType();
    Type *RT = FT->getReturnType();
    SmallVector<Type *, 8> Args;
    for (Type *P : FT->params())
      Args.push_back(P), Args.push_back(P);
    expectParams(R.Fwd, "forward derivative", Fn, Args);
    ReturnLayout &L = R.FwdRet;
    std::tie(L.Type, L.SRet) = declaredReturn(R.Fwd);
    if (RT->isVoidTy())
      return; // the derivative writes its tangents through the shadows; a value it returns is ignored
    if (L.Type == RT)
      L.Shadow = ReturnLayout::Whole;
    else if (sameLayout(DL, L.Type, StructType::get(RT, RT)))
      L.Primal = 0, L.Shadow = 1;
    else
      returnError(R.Fwd, "forward derivative", Fn,
                  "the tangent " + printType(RT) + " or {result, tangent} " +
                      printType(StructType::get(RT, RT)));
  }

private:
  Module &M;
  GlobalVariable &G;
  const DataLayout &DL;
};

} // namespace

void CustomDerivatives::read(Module &M, Stage When) {
  for (GlobalVariable &G : M.globals()) {
    std::optional<Kind> K = registrationKind(G.getName());
    if (!K || !G.hasInitializer())
      continue;
    if (*K == Kind::Split) {
      // Enzyme uses it only with __enzyme_fwdsplit (split forward mode), which is refused.
      if (!G.getMetadata("synthase.malformed")) {
        G.setMetadata("synthase.malformed", MDNode::get(M.getContext(), {}));
        M.getContext().diagnose(DiagnosticInfoGeneric(
            ("synthase: '" + G.getName() + "' registers a split forward derivative, used only by "
             "__enzyme_fwdsplit, which Synthase does not support; it is ignored").str(),
            DS_Warning));
      }
      continue;
    }
    if (G.getMetadata("synthase.malformed"))
      continue; // clang runs the pass twice: each error is reported once
    Reader Rd(M, G);
    const char *Shape = *K == Kind::Gradient ? "{(void *)f, (void *)augmented_f, (void *)reverse_f}"
                                             : "{(void *)f, (void *)forward_f}";
    SmallVector<Function *, 3> Fs = Rd.entries(*K == Kind::Gradient ? 3 : 2, Shape);
    if (Fs.empty())
      continue;
    CustomRule R;
    R.Reg = &G;
    R.Fn = Fs[0];
    auto &Table = *K == Kind::Gradient ? Rev : Fwd;
    if (auto It = Table.find(R.Fn); It != Table.end()) {
      Rd.error("'" + displayName(R.Fn->getName()) + "' already has a " +
               (*K == Kind::Gradient ? "gradient" : "forward derivative") + " registered by '" +
               It->second.Reg->getName() + "'");
      continue;
    }
    if (*K == Kind::Gradient) {
      R.Aug = Fs[1], R.Rev = Fs[2];
      Rd.readGradient(R);
    } else {
      R.Fwd = Fs[1];
      Rd.readDerivative(R);
    }
    if (Rd.Bad)
      continue;
    R.Fn->addFnAttr(*K == Kind::Gradient ? CustomReverseAttr : CustomForwardAttr);
    // An LTO compile inlines after this pass: f must reach the link as a call to be replaced.
    if (When == Stage::Compile && !R.Fn->isDeclaration()) {
      R.Fn->removeFnAttr(Attribute::AlwaysInline);
      R.Fn->addFnAttr(Attribute::NoInline);
    }
    Table[R.Fn] = R;
    Regs.push_back(&G);
  }
}

void CustomDerivatives::finish(Module &M, Stage When) {
  if (When == Stage::Compile) {
    // A static registration would be dropped as unused before the link that needs it. One
    // written in a header and compiled into several LTO objects would clash at the link as
    // a duplicate symbol: each belongs to its own translation unit (its functions are static).
    for (GlobalVariable *G : Regs)
      if (!G->isDeclaration() && !G->hasLocalLinkage())
        G->setLinkage(GlobalValue::InternalLinkage);
    SmallVector<GlobalValue *, 4> Keep(Regs.begin(), Regs.end());
    if (!Keep.empty())
      appendToCompilerUsed(M, Keep);
    return;
  }
  SmallPtrSet<Constant *, 4> Gone(Regs.begin(), Regs.end());
  // A registration of a function nothing calls is harmless, but probably not what was meant.
  for (auto *Table : {&Fwd, &Rev})
    for (auto &[F, R] : *Table)
      if (!R.Reg->getMetadata(CustomUsedMD) &&
          none_of(F->users(), [](const User *U) { return isa<CallBase>(U); }))
        M.getContext().diagnose(DiagnosticInfoGeneric(
            ("synthase: custom derivative registration '" + R.Reg->getName() + "' is for '" +
             displayName(F->getName()) + "', which is never called in this module")
                .str(),
            DS_Warning));
  if (!Gone.empty())
    removeFromUsedLists(M, [&](Constant *C) { return Gone.count(C) > 0; });
  for (GlobalVariable *G : Regs) {
    G->removeDeadConstantUsers();
    if (G->use_empty())
      G->eraseFromParent();
  }
  Regs.clear();
}

} // namespace synthase

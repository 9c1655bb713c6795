// Split reverse mode. The tape of a split call is the engine's ordinary LIFO tape, kept off the
// augmented call's frame so that any user code may run before the reverse call: its state
// {ptr base, i64 top, i64 capacity} heads a block that also holds the first bytes of the tape.
//
//   heap form (the default): augmentfwd mallocs header + inline bytes and returns the block;
//     reverse pops from it and frees it (unless enzyme_nofree: the caller frees it with free()).
//   caller storage (enzyme_allocated N, enzyme_tape p): the header sits at p rounded up to 8,
//     the inline bytes after it; N must be a constant of at least the header's size.
//
// A tape that outgrows its inline bytes continues in a heap buffer (the tape's usual growth);
// the reverse call frees that buffer in both forms. `__enzyme_augmentsize` returns the bytes of
// caller storage that keep a tape of known size entirely inline.
#include "Reverse/RelocationLog.h"
#include "Passes/SplitMode.h"
#include "CallSite/DiffCall.h"
#include "Engine/Engine.h"
#include "Passes/CallChecks.h"
#include "Passes/Lowering.h"
#include "Reverse/Tape.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace synthase {

namespace {
enum class SplitKind { Augment, Reverse, Size };

/// Bytes of tape state at the head of a split tape block.
constexpr uint64_t HeaderBytes = 24;
/// Caller storage may be unaligned: the header is placed at the next multiple of 8.
constexpr uint64_t AlignSlack = 8;

struct SplitOptions {
  ConstantInt *Allocated = nullptr; ///< enzyme_allocated N
  Value *TapeArg = nullptr;         ///< enzyme_tape p, or the trailing tape of __enzyme_reverse
  bool NoFree = false;              ///< enzyme_nofree
};
} // namespace

static std::optional<SplitKind> splitKind(StringRef Name) {
  if (Name.contains("__enzyme_augmentfwd"))
    return SplitKind::Augment;
  if (Name.contains("__enzyme_augmentsize"))
    return SplitKind::Size;
  if (Name.contains("__enzyme_reverse"))
    return SplitKind::Reverse;
  return std::nullopt;
}

bool isSplitEntryName(StringRef Name) { return splitKind(Name).has_value(); }

static Function *splitEntryOf(CallBase *CB) {
  auto *F = dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
  return F && F->isDeclaration() && splitKind(F->getName()) ? F : nullptr;
}

bool isSplitCall(CallBase *CB) { return splitEntryOf(CB) != nullptr; }

std::vector<CallBase *> collectSplitCalls(Module &M) {
  std::vector<CallBase *> Calls;
  for (Function &F : M) {
    if (!F.isDeclaration() || !splitKind(F.getName()))
      continue;
    for (User *U : F.users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand()->stripPointerCasts() == &F)
        Calls.push_back(CB);
  }
  return Calls;
}

static const char *kindName(SplitKind K) {
  return K == SplitKind::Augment ? "__enzyme_augmentfwd" : K == SplitKind::Reverse ? "__enzyme_reverse" : "__enzyme_augmentsize";
}

/// Bytes of the tape kept inline after the header: all of it when its size is known and small,
/// otherwise as much as the frame buffer of a combined call would hold.
static uint64_t inlineBytes(Engine &E, const GradientPair &GP) {
  if (!sweepsUseTape(E, GP))
    return 0;
  if (std::optional<uint64_t> Bound = E.tapeBound(GP.Augmented))
    return std::min<uint64_t>(alignTo(*Bound, 8), InlineTapeBytes);
  return InlineTapeBytes;
}

/// Caller storage rounded up to 8 bytes, as a GEP so the pointer keeps its provenance.
static Value *alignedHeader(IRBuilder<> &B, Value *P) {
  Value *Pad = B.CreateAnd(B.CreateNeg(B.CreatePtrToInt(P, B.getInt64Ty())), B.getInt64(7));
  return B.CreateGEP(B.getInt8Ty(), P, Pad, "split.tape");
}

/// A call that only differs from CB by the split options (and a reverse call's trailing tape)
/// removed, so that the ordinary call-site parser reads activities, shadows and the seed. The
/// returned call must be erased once parsed.
static CallInst *withoutSplitOptions(CallBase *CB, SplitKind K, SplitOptions &O, bool &OK) {
  OK = false;
  Function *Caller = CB->getFunction();
  unsigned First = CB->arg_size() > 0 && CB->paramHasAttr(0, Attribute::StructRet) ? 1 : 0;
  SmallVector<Value *, 16> Ops;
  SmallVector<AttributeSet, 16> Attrs;
  AttributeList AL = CB->getAttributes();
  for (unsigned i = 0; i < CB->arg_size(); ++i) {
    Value *V = CB->getArgOperand(i);
    StringRef M = i > First ? markerName(V) : "";
    if (M == "enzyme_allocated" || M == "enzyme_tape") {
      if (i + 1 >= CB->arg_size()) {
        reportError(Caller, CB, Twine(kindName(K)) + ": " + M + " must be followed by a value",
                    "enzyme_allocated, size_in_bytes, enzyme_tape, pointer_to_the_storage");
        return nullptr;
      }
      Value *Next = CB->getArgOperand(++i);
      if (M == "enzyme_tape") {
        O.TapeArg = Next;
        continue;
      }
      O.Allocated = dyn_cast<ConstantInt>(Next);
      if (!O.Allocated) {
        reportError(Caller, CB, Twine(kindName(K)) + ": the size after enzyme_allocated must be a compile-time constant",
                    "pass the size __enzyme_augmentsize returns as a constant, or leave out enzyme_allocated "
                    "and let __enzyme_augmentfwd allocate the tape");
        return nullptr;
      }
      continue;
    }
    if (M == "enzyme_nofree") {
      O.NoFree = true;
      continue;
    }
    Ops.push_back(V);
    Attrs.push_back(AL.getParamAttrs(i));
  }
  if (K == SplitKind::Reverse && !O.TapeArg) {
    if (Ops.size() <= First + 1 || !Ops.back()->getType()->isPointerTy() || !markerName(Ops.back()).empty()) {
      reportError(Caller, CB, "__enzyme_reverse: the last argument must be the tape __enzyme_augmentfwd returned",
                  "__enzyme_reverse((void *)f, <the same arguments as __enzyme_augmentfwd>, [seed of the "
                  "return adjoint], tape), or enzyme_tape, pointer before the arguments");
      return nullptr;
    }
    O.TapeArg = Ops.pop_back_val();
    Attrs.pop_back();
  }
  if (O.Allocated && !O.TapeArg && K != SplitKind::Size) {
    reportError(Caller, CB, Twine(kindName(K)) + ": enzyme_allocated without enzyme_tape",
                "enzyme_allocated, size_in_bytes, enzyme_tape, pointer_to_the_storage");
    return nullptr;
  }
  if (O.TapeArg && !O.Allocated && K == SplitKind::Augment) {
    reportError(Caller, CB, "__enzyme_augmentfwd: enzyme_tape without enzyme_allocated",
                "caller storage needs its size: enzyme_allocated, size_in_bytes, enzyme_tape, pointer; "
                "without both, __enzyme_augmentfwd returns a tape it allocated");
    return nullptr;
  }
  CallInst *T = CallInst::Create(CB->getFunctionType(), CB->getCalledOperand(), Ops, "", CB->getIterator());
  T->setAttributes(AttributeList::get(CB->getContext(), AL.getFnAttrs(), AL.getRetAttrs(), Attrs));
  T->setDebugLoc(CB->getDebugLoc());
  OK = true;
  return T;
}

/// `__enzyme_augmentsize(f, enzyme_dup, enzyme_const, ...)`: one marker per parameter, no values.
static std::optional<DiffCall> markersOnly(CallInst *T) {
  unsigned First = T->arg_size() > 0 && T->paramHasAttr(0, Attribute::StructRet) ? 1 : 0;
  if (T->arg_size() <= First + 1)
    return std::nullopt;
  DiffCall DC;
  DC.Call = T;
  DC.Fn = differentiatedFunction(T->getArgOperand(First));
  if (!DC.Fn || T->arg_size() - First - 1 != DC.Fn->arg_size())
    return std::nullopt;
  for (unsigned i = First + 1; i < T->arg_size(); ++i) {
    StringRef M = markerName(T->getArgOperand(i));
    ArgSpec A;
    if (M == "enzyme_dup") A.Kind = ArgKind::Dup;
    else if (M == "enzyme_dupnoneed") A.Kind = ArgKind::DupNoNeed;
    else if (M == "enzyme_out") A.Kind = ArgKind::Out;
    else if (M == "enzyme_const") A.Kind = ArgKind::Const;
    else return std::nullopt;
    DC.Args.push_back(A);
  }
  return DC;
}

static GradientPair pairFor(Engine &E, const DiffCall &DC, Signature &S) {
  Type *RT = DC.Fn->getReturnType();
  S = Signature{DC.Fn, DiffMode::Reverse, {}, DC.Width, false, carriesDerivative(RT)};
  for (const ArgSpec &A : DC.Args)
    S.Acts.push_back(A.Kind);
  return E.gradientPair(S); // not TopLevel: user code may write memory between the sweeps
}

static bool checkAllocated(CallBase *CB, const SplitOptions &O, SplitKind K) {
  if (!O.Allocated || O.Allocated->getZExtValue() >= HeaderBytes + AlignSlack)
    return true;
  reportError(CB->getFunction(), CB,
              Twine(kindName(K)) + ": enzyme_allocated " + Twine(O.Allocated->getZExtValue()) +
                  " bytes is smaller than a tape's header (" + Twine(HeaderBytes + AlignSlack) + " bytes)",
              "allocate the size __enzyme_augmentsize returns for the same function and activities");
  return false;
}

static void lowerAugment(Engine &E, CallBase *CB, DiffCall &DC, const SplitOptions &O) {
  Signature S;
  GradientPair GP = pairFor(E, DC, S);
  if (!GP.Augmented || !GP.Reverse)
    return;
  IRBuilder<> B(CB);
  B.SetCurrentDebugLocation(CB->getDebugLoc());
  Module &M = E.module();
  StructType *TT = E.tapeType();
  uint64_t Inline = inlineBytes(E, GP);
  Value *H, *Cap;
  if (O.Allocated) {
    H = alignedHeader(B, O.TapeArg);
    // What is left of the storage after padding and header, whole slots only, at most what the
    // growth code treats as inline (a larger capacity would be taken for a heap buffer).
    Value *Pad = B.CreatePtrDiff(B.getInt8Ty(), H, O.TapeArg);
    Value *Left = B.CreateSub(B.getInt64(O.Allocated->getZExtValue() - HeaderBytes), Pad);
    Left = B.CreateAnd(Left, B.getInt64(~uint64_t(7)));
    Cap = B.CreateBinaryIntrinsic(Intrinsic::umin, Left, B.getInt64(InlineTapeBytes));
  } else {
    FunctionCallee Malloc = M.getOrInsertFunction("malloc", B.getPtrTy(), B.getInt64Ty());
    H = B.CreateCall(Malloc, {B.getInt64(HeaderBytes + Inline)}, "split.tape");
    Cap = B.getInt64(Inline);
  }
  B.CreateStore(B.CreateConstGEP1_64(B.getInt8Ty(), H, HeaderBytes), B.CreateStructGEP(TT, H, 0));
  B.CreateStore(B.getInt64(0), B.CreateStructGEP(TT, H, 1));
  B.CreateStore(Cap, B.CreateStructGEP(TT, H, 2));
  for (GlobalVariable *G : E.shadowGlobals())
    E.resetShadow(B, G);
  E.syncUserHeapShadows(B);
  SmallVector<Value *, 16> Args = DC.primalsAndShadows();
  Args.push_back(H);
  CallInst *Primal = B.CreateCall(GP.Augmented, Args);

  // Enzyme's layout: the tape (unless caller storage holds it), then the primal result.
  SmallVector<Value *, 2> Parts;
  if (!O.Allocated)
    Parts.push_back(H);
  if (!Primal->getType()->isVoidTy())
    Parts.push_back(Primal);
  Type *Declared = DC.SRet ? CB->getParamStructRetType(0) : CB->getType();
  if (Declared->isVoidTy())
    return;
  if (!O.Allocated && Declared->isPointerTy() && !DC.SRet)
    Parts.resize(1); // `void *tape = __enzyme_augmentfwd(...)`: the primal result is not wanted
  bool Fits = Parts.empty(); // nothing to return: whatever was declared reads as zero
  if (Parts.size() == 1 && !DC.SRet)
    Fits = Parts[0]->getType() == Declared || (Parts[0]->getType()->isFloatingPointTy() && Declared->isFloatingPointTy());
  if (auto *ST = dyn_cast<StructType>(Declared); ST && ST->getNumElements() == Parts.size()) {
    Fits = true;
    for (unsigned i = 0; i < Parts.size(); ++i)
      Fits &= ST->getElementType(i) == Parts[i]->getType();
    if (!Fits && Parts.size() == 2 && Parts[0]->getType() != Parts[1]->getType() &&
        ST->getElementType(0) == Parts[1]->getType() && ST->getElementType(1) == Parts[0]->getType()) {
      // `struct { double x; void *tape; }` (Enzyme's own tests declare it so): the two parts
      // differ in type, so each field takes the part of its type.
      std::swap(Parts[0], Parts[1]);
      Fits = true;
    }
  }
  if (!Fits) {
    std::string What;
    for (Value *V : Parts)
      What += (What.empty() ? "" : ", ") + printType(V->getType());
    reportError(CB->getFunction(), CB,
                "__enzyme_augmentfwd: the declared result '" + printType(Declared) + "' does not hold what the call "
                "produces: {" + What + "}",
                "declare it `void *` (the tape alone), or a struct of the tape (unless enzyme_allocated) and then "
                "the function's result");
    return;
  }
  deliverResult(DC, Parts, B);
}

static void lowerReverse(Engine &E, CallBase *CB, DiffCall &DC, const SplitOptions &O) {
  if (!checkResultShape(DC))
    return;
  Signature S;
  GradientPair GP = pairFor(E, DC, S);
  if (!GP.Augmented || !GP.Reverse)
    return;
  IRBuilder<> B(CB);
  B.SetCurrentDebugLocation(CB->getDebugLoc());
  Module &M = E.module();
  StructType *TT = E.tapeType();
  Value *H = O.Allocated ? alignedHeader(B, O.TapeArg) : O.TapeArg;
  SmallVector<Value *, 16> Args = DC.primalsAndShadows();
  Type *RT = DC.Fn->getReturnType();
  if (S.RetActive && DC.Width == 1)
    Args.push_back(DC.DRet ? DC.DRet : ConstantFP::get(RT, 1.0));
  else if (S.RetActive) // vector mode: a seed per lane, 1 in every lane unless passed
    for (unsigned L = 0; L < DC.Width; ++L)
      Args.push_back(!DC.DRetLanes.empty() ? DC.DRetLanes[L] : DC.DRet ? DC.DRet : ConstantFP::get(RT, 1.0));
  Args.push_back(H);
  CallInst *Adj = B.CreateCall(GP.Reverse, Args);
  if (relocationLogUsed(M))
    emitRelocationFrame(nullptr, Adj, {});
  // A tape that outgrew its inline bytes ended in a heap buffer: release it in both forms.
  FunctionCallee Free = M.getOrInsertFunction("free", B.getVoidTy(), B.getPtrTy());
  Value *Base = B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, H, 0));
  Value *Grown = B.CreateICmpNE(Base, B.CreateConstGEP1_64(B.getInt8Ty(), H, HeaderBytes));
  B.CreateCall(Free, {B.CreateSelect(Grown, Base, ConstantPointerNull::get(B.getPtrTy()))});
  if (!O.Allocated && !O.NoFree)
    B.CreateCall(Free, {H});
  SmallVector<Value *, 8> Parts;
  if (auto *AST = dyn_cast<StructType>(Adj->getType())) {
    for (unsigned i = 0; i < AST->getNumElements(); ++i)
      Parts.push_back(B.CreateExtractValue(Adj, i));
  } else if (!Adj->getType()->isVoidTy()) {
    Parts.push_back(Adj);
  }
  deliverResult(DC, Parts, B);
}

static void lowerSize(Engine &E, CallBase *CB, DiffCall &DC) {
  Signature S;
  GradientPair GP = pairFor(E, DC, S);
  if (!GP.Augmented || !GP.Reverse)
    return;
  uint64_t Bytes = HeaderBytes + AlignSlack + inlineBytes(E, GP);
  Type *T = CB->getType();
  if (T->isIntegerTy())
    CB->replaceAllUsesWith(ConstantInt::get(T, Bytes));
  else if (T->isFloatingPointTy())
    CB->replaceAllUsesWith(ConstantFP::get(T, double(Bytes)));
  else if (!T->isVoidTy())
    reportError(CB->getFunction(), CB, "__enzyme_augmentsize: the declared result '" + printType(T) + "' is not an integer",
                "declare it `size_t __enzyme_augmentsize(void *, ...);`");
}

void lowerSplitCall(Engine &E, CallBase *CB) {
  SplitKind K = *splitKind(splitEntryOf(CB)->getName());
  SplitOptions O;
  bool OK;
  CallInst *T = withoutSplitOptions(CB, K, O, OK);
  if (!OK || !checkAllocated(CB, O, K)) {
    if (T)
      T->eraseFromParent();
    return;
  }
  std::optional<DiffCall> DC = K == SplitKind::Size ? markersOnly(T) : std::nullopt;
  if (!DC)
    DC = parseDiffCall(T, DiffMode::Reverse);
  if (DC) {
    DC->Call = CB;
    if (DC->ReturnPrimal || DC->ShadowSet) {
      reportError(CB->getFunction(), CB,
                  Twine(kindName(K)) + ": " + (DC->ShadowSet ? "enzyme_context" : "enzyme_primal_return") +
                      " is not available in split mode",
                  DC->ReturnPrimal ? "__enzyme_augmentfwd returns the primal result when its declared result "
                                     "has room for it"
                                   : "call split mode once per direction");
      DC.reset();
    }
  }
  if (DC && K != SplitKind::Size && !checkShadowTypes(*DC, E))
    DC.reset();
  // The parser's casts sit before T, hence before CB: T itself can go.
  T->eraseFromParent();
  if (!DC)
    return;
  if (K == SplitKind::Augment)
    lowerAugment(E, CB, *DC, O);
  else if (K == SplitKind::Reverse)
    lowerReverse(E, CB, *DC, O);
  else
    lowerSize(E, CB, *DC);
}

} // namespace synthase

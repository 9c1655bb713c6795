// Matching the placeholder's IR arguments to the source-level activities (the seed's match_args).
//
// Activities describe source-level arguments; the IR can have more. A duplicated slice `&[T]`
// arrives as (ptr, len) followed by one (shadow ptr, shadow len) per lane, and its activity is
// followed by FakeActivitySize standing for the length. The engine wants
//   marker, [stride,] ptr, shadow ptr × lanes, enzyme_const, len
// so the walk below consumes IR arguments through a cursor that names what it expected whenever
// the placeholder runs short or an argument has the wrong type.
#include "Bridge/EnzymeCall.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace synthase::bridge {
namespace {

std::string typeName(Type *T) {
  std::string S;
  raw_string_ostream OS(S);
  T->print(OS);
  return S;
}

Error itemError(StringRef Label, const Twine &Msg) {
  return createStringError(Label + ": " + Msg);
}

/// Walks the placeholder's arguments left to right.
class OuterArgCursor {
  ArrayRef<Value *> Args;
  size_t Pos = 0;
  StringRef Label;

public:
  OuterArgCursor(ArrayRef<Value *> Args, StringRef Label) : Args(Args), Label(Label) {}

  size_t remaining() const { return Args.size() - Pos; }
  ArrayRef<Value *> rest() const { return Args.drop_front(Pos); }

  enum class Want { Any, Pointer, Integer };

  /// The next argument, which must be `What` for activity #Index.
  Expected<Value *> take(Want W, const Twine &What, unsigned Index, const DiffActivity &A) {
    if (Pos >= Args.size())
      return itemError(Label, "too few placeholder arguments: the activities need " + What +
                                  " for input #" + Twine(Index) + " (" + A.str() +
                                  ") at position " + Twine(Pos) + ", but the placeholder has " +
                                  Twine(Args.size()));
    Value *V = Args[Pos];
    bool Ok = W == Want::Any || (W == Want::Pointer && V->getType()->isPointerTy()) ||
              (W == Want::Integer && V->getType()->isIntegerTy());
    if (!Ok)
      return itemError(Label, What + " for input #" + Twine(Index) + " (" + A.str() +
                                  ") must be " + (W == Want::Pointer ? "a pointer" : "an integer") +
                                  ", but placeholder argument " + Twine(Pos) + " has type " +
                                  typeName(V->getType()));
    ++Pos;
    return V;
  }
};

PlannedOperand marker(StringRef M) {
  PlannedOperand O;
  O.K = PlannedOperand::Kind::Marker;
  O.Marker = M;
  return O;
}

PlannedOperand value(Value *V) {
  PlannedOperand O;
  O.V = V;
  return O;
}

PlannedOperand i64(uint64_t C) {
  PlannedOperand O;
  O.Constant = C;
  return O;
}

PlannedOperand stride(uint64_t ElemSize, Value *Len) {
  PlannedOperand O;
  O.K = PlannedOperand::Kind::Stride;
  O.ElemSize = ElemSize;
  O.V = Len;
  return O;
}

#define TRY_TAKE(Var, Expr)                                                                        \
  auto Var##OrErr = (Expr);                                                                        \
  if (!Var##OrErr)                                                                                 \
    return Var##OrErr.takeError();                                                                 \
  Value *Var = *Var##OrErr;

/// Activity I is duplicated and I+1 is its FakeActivitySize: a slice and its shadow slice(s).
Error matchSlice(PreparedCall &P, OuterArgCursor &C, const AutoDiffAttrs &Attrs, unsigned I) {
  using Want = OuterArgCursor::Want;
  const DiffActivity &A = Attrs.Inputs[I];
  const DiffActivity &Size = Attrs.Inputs[I + 1];
  TRY_TAKE(Ptr, C.take(Want::Pointer, "the slice pointer", I, A));
  TRY_TAKE(Len, C.take(Want::Integer, "the slice length", I, A));
  // Dualv keeps all lanes in one buffer `stride` bytes apart, so it has a single shadow slice.
  unsigned Lanes = A.isStrided() ? 1 : Attrs.Width;
  SmallVector<Value *, 4> ShadowPtrs;
  for (unsigned L = 0; L < Lanes; ++L) {
    std::string Lane = Lanes > 1 ? (" of lane " + Twine(L)).str() : "";
    TRY_TAKE(SPtr, C.take(Want::Pointer, "the shadow slice pointer" + Lane, I, A));
    TRY_TAKE(SLen, C.take(Want::Integer, "the shadow slice length" + Lane, I, A));
    ShadowPtrs.push_back(SPtr);
    P.Checks.push_back({Len, SLen, A.isStrided() ? Attrs.Width : 1, I, L});
  }
  P.Operands.push_back(marker(enzymeMarker(A)));
  if (A.isStrided())
    P.Operands.push_back(stride(*Size.ElemSize, Len));
  P.Operands.push_back(value(Ptr));
  for (Value *S : ShadowPtrs)
    P.Operands.push_back(value(S));
  P.Operands.push_back(marker(enzymeMarker(Size)));
  P.Operands.push_back(value(Len));
  return Error::success();
}

/// A duplicated scalar or pointer: the primal, then one shadow per lane.
Error matchShadowed(PreparedCall &P, OuterArgCursor &C, const AutoDiffAttrs &Attrs, unsigned I) {
  using Want = OuterArgCursor::Want;
  const DiffActivity &A = Attrs.Inputs[I];
  // Reverse mode accumulates adjoints through memory, so both sides must be pointers; forward
  // mode also carries tangents of scalars by value, which must then match the primal's type.
  bool ByPointer =
      A.Kind == ActivityKind::Duplicated || A.Kind == ActivityKind::DuplicatedOnly;
  TRY_TAKE(Primal, C.take(ByPointer ? Want::Pointer : Want::Any, "the primal", I, A));
  P.Operands.push_back(marker(enzymeMarker(A)));
  P.Operands.push_back(value(Primal));
  for (unsigned L = 0; L < Attrs.Width; ++L) {
    std::string Lane = Attrs.Width > 1 ? (" of lane " + Twine(L)).str() : "";
    TRY_TAKE(Shadow, C.take(ByPointer ? Want::Pointer : Want::Any, "the shadow" + Lane, I, A));
    if (Shadow->getType() != Primal->getType())
      return itemError(P.Label, "the shadow" + Lane + " of input #" + Twine(I) + " (" + A.str() +
                                    ") has type " + typeName(Shadow->getType()) +
                                    ", but its primal has type " + typeName(Primal->getType()));
    P.Operands.push_back(value(Shadow));
  }
  return Error::success();
}

Error checkActivities(const AutoDiffAttrs &Attrs, StringRef Label) {
  if (Attrs.Mode != DiffMode::Forward && Attrs.Mode != DiffMode::Reverse)
    return itemError(Label, "unknown mode (value " + Twine(static_cast<int>(Attrs.Mode)) +
                                "); expected forward or reverse");
  if (Attrs.Width == 0)
    return itemError(Label, "width must be at least 1");
  StringRef Mode = modeName(Attrs.Mode);
  if (!isValidReturnActivity(Attrs.Mode, Attrs.Ret))
    return itemError(Label, "return activity " + Attrs.Ret.str() + " is not valid in " + Mode +
                                " mode");
  for (unsigned I = 0; I < Attrs.Inputs.size(); ++I) {
    const DiffActivity &A = Attrs.Inputs[I];
    if (A.Kind == ActivityKind::None)
      return itemError(Label, "None is not a valid input activity (input #" + Twine(I) +
                                  "); use Const for an argument that is not differentiated");
    if (!isValidInputActivity(Attrs.Mode, A))
      return itemError(Label, "input activity " + A.str() + " (input #" + Twine(I) +
                                  ") is not valid in " + Mode + " mode");
    if (A.isStrided()) {
      bool SizedNext = I + 1 < Attrs.Inputs.size() &&
                       Attrs.Inputs[I + 1].Kind == ActivityKind::FakeActivitySize &&
                       Attrs.Inputs[I + 1].ElemSize;
      if (!SizedNext)
        return itemError(Label, A.str() + " (input #" + Twine(I) +
                                    ") must be followed by FakeActivitySize(<element bytes>): "
                                    "its stride is element size × slice length");
    }
  }
  return Error::success();
}

} // namespace

Expected<PreparedCall> prepareEnzymeCall(Module &M, Function *FnToDiff, StringRef OuterName,
                                         Type *RetTy, ArrayRef<Value *> OuterArgs,
                                         const AutoDiffAttrs &Attrs, StringRef Label) {
  PreparedCall P;
  P.Label = Label.str();
  P.FnToDiff = FnToDiff;
  P.RetTy = RetTy;
  if (!FnToDiff)
    return itemError(Label, "no function to differentiate");
  if (!RetTy)
    return itemError(Label, "no return type for the engine call");
  if (Error E = checkActivities(Attrs, Label))
    return std::move(E);
  P.EntryName =
      ((Attrs.Mode == DiffMode::Forward ? "__enzyme_fwddiff" : "__enzyme_autodiff") + OuterName)
          .str();
  if (GlobalValue *GV = M.getNamedValue(P.EntryName)) {
    auto *F = dyn_cast<Function>(GV);
    if (!F || !F->isDeclaration())
      return itemError(Label, "'" + P.EntryName +
                                  "' already exists and is not a declaration of the entry point");
  }

  if (Attrs.wantsPrimalReturn())
    P.Operands.push_back(marker("enzyme_primal_return"));
  if (Attrs.Width > 1) {
    P.Operands.push_back(marker("enzyme_width"));
    P.Operands.push_back(i64(Attrs.Width));
  }

  OuterArgCursor C(OuterArgs, Label);
  for (unsigned I = 0; I < Attrs.Inputs.size();) {
    const DiffActivity &A = Attrs.Inputs[I];
    bool IsSlice = A.hasShadow() && I + 1 < Attrs.Inputs.size() &&
                   Attrs.Inputs[I + 1].Kind == ActivityKind::FakeActivitySize;
    if (IsSlice) {
      if (Error E = matchSlice(P, C, Attrs, I))
        return std::move(E);
      I += 2;
    } else if (A.hasShadow()) {
      if (Error E = matchShadowed(P, C, Attrs, I))
        return std::move(E);
      I += 1;
    } else {
      // Const, Active, or the length of a slice that is itself not duplicated.
      TRY_TAKE(V, C.take(OuterArgCursor::Want::Any, "an argument", I, A));
      P.Operands.push_back(marker(enzymeMarker(A)));
      P.Operands.push_back(value(V));
      I += 1;
    }
  }

  // Rust's reverse-mode wrappers take the seed of the return adjoint last.
  bool ActiveReturn = Attrs.Mode == DiffMode::Reverse &&
                      (Attrs.Ret.Kind == ActivityKind::Active ||
                       Attrs.Ret.Kind == ActivityKind::ActiveOnly);
  if (ActiveReturn && C.remaining() == 1 && C.rest()[0]->getType()->isFloatingPointTy()) {
    P.Operands.push_back(value(C.rest()[0]));
  } else if (C.remaining() != 0) {
    return itemError(Label, "too many placeholder arguments: " + Twine(C.remaining()) +
                                " left after matching " + Twine(Attrs.Inputs.size()) +
                                " input activities (a slice needs FakeActivitySize after its "
                                "activity; only a reverse-mode Active return takes a trailing "
                                "seed)");
  }
  return P;
}

} // namespace synthase::bridge

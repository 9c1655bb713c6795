#include "Passes/CallChecks.h"
#include "Engine/Engine.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include <string>

using namespace llvm;

namespace synthase {

static const char *entryName(const DiffCall &DC) {
  return DC.Mode == DiffMode::Reverse ? "__enzyme_autodiff" : "__enzyme_fwddiff";
}

static const char *cTypeName(Type *T) {
  if (T->isDoubleTy()) return "double";
  if (T->isFloatTy()) return "float";
  if (T->isX86_FP80Ty() || T->isFP128Ty()) return "long double";
  return nullptr;
}

namespace {
struct Leaf {
  uint64_t Offset;
  Type *T;
  bool operator==(const Leaf &O) const { return Offset == O.Offset && T == O.T; }
};
} // namespace

/// The scalars of T with their byte offsets: what a load of T reads from where.
static void leaves(const DataLayout &DL, Type *T, uint64_t Base, SmallVectorImpl<Leaf> &Out) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      leaves(DL, ST->getElementType(i), Base + SL->getElementOffset(i), Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t Size = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t i = 0; i < AT->getNumElements(); ++i)
      leaves(DL, AT->getElementType(), Base + i * Size, Out);
  } else if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t Bits = DL.getTypeSizeInBits(VT->getElementType());
    for (unsigned i = 0; i < VT->getNumElements(); ++i)
      Out.push_back({Base + i * Bits / 8, VT->getElementType()});
  } else {
    Out.push_back({Base, T});
  }
}

/// Whether the call's result is used as a value of its declared type (as C code does), rather
/// than only reinterpreted bytes: rustc returns a `#[repr(C)]` pair of f32 as a `double`, then
/// bitcasts it (optimized) or spills it and reloads two floats (-O0).
static bool usedAsDeclared(CallBase *CB) {
  for (User *U : CB->users()) {
    if (isa<BitCastInst>(U))
      continue;
    // A bridge placeholder only passes the value on to callers that know its real type.
    if (isa<ReturnInst>(U) && CB->getFunction()->hasFnAttribute("enzyme_marker"))
      continue;
    auto *SI = dyn_cast<StoreInst>(U);
    if (!SI || SI->getValueOperand() != CB)
      return true;
    auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(SI->getPointerOperand()));
    if (!AI)
      return true;
    SmallVector<const Value *, 8> Work{AI};
    SmallPtrSet<const Value *, 8> Seen{AI};
    while (!Work.empty())
      for (const User *AU : Work.pop_back_val()->users()) {
        if (auto *LI = dyn_cast<LoadInst>(AU); LI && LI->getType() == CB->getType())
          return true;
        if ((isa<GetElementPtrInst>(AU) || isa<CastInst>(AU)) && Seen.insert(AU).second)
          Work.push_back(AU);
      }
  }
  return false;
}

/// Whether the declared type holds the parts' natural struct: the same scalars at the same
/// offsets, allowing the lowerings other front ends use for the same C struct. A byte array
/// (rustc's sret type) only shows its size. A `double` that covers two floats is one SSE
/// eightbyte as rustc lowers it; as the whole declared type it is only accepted when the caller
/// does not use the result as a double (a C prototype declaring `double` for two float
/// adjoints does).
static bool sameLayout(const DataLayout &DL, StructType *Natural, Type *Declared, CallBase *CB) {
  SmallVector<Leaf, 16> Want, Got;
  leaves(DL, Natural, 0, Want);
  leaves(DL, Declared, 0, Got);
  if (Want == Got)
    return true;
  if (all_of(Got, [](const Leaf &L) { return L.T->isIntegerTy(8); }))
    return DL.getTypeAllocSize(Natural) == DL.getTypeAllocSize(Declared);
  unsigned W = 0;
  bool Merged = false;
  for (const Leaf &G : Got) {
    if (W < Want.size() && Want[W] == G) {
      ++W;
      continue;
    }
    Type *F = Type::getFloatTy(CB->getContext());
    if (G.T->isDoubleTy() && G.Offset % 8 == 0 && W + 1 < Want.size() && Want[W] == Leaf{G.Offset, F} &&
        Want[W + 1] == Leaf{G.Offset + 4, F}) {
      W += 2;
      Merged = true;
      continue;
    }
    return false;
  }
  if (W != Want.size())
    return false;
  return !Merged || !Declared->isDoubleTy() || !usedAsDeclared(CB);
}

bool checkResultShape(const DiffCall &DC) {
  CallBase *CB = DC.Call;
  Type *RT = DC.Fn->getReturnType();
  bool RetActive = carriesDerivative(RT);
  SmallVector<Type *, 8> Parts;
  SmallVector<std::string, 8> Names;
  if (DC.ReturnPrimal && !RT->isVoidTy()) {
    Parts.push_back(RT);
    Names.push_back("the primal");
  }
  if (DC.Mode == DiffMode::Forward) {
    if (RetActive && DC.ReturnDerivative)
      for (unsigned L = 0; L < DC.Width; ++L) {
        Parts.push_back(RT);
        Names.push_back(DC.Width > 1 ? "the tangent of lane " + std::to_string(L) : "the tangent");
      }
  } else {
    for (unsigned i = 0; i < DC.Args.size(); ++i)
      if (DC.Args[i].Kind == ArgKind::Out)
        for (unsigned L = 0; L < DC.Width; ++L) { // Enzyme's [width x T] per argument
          Parts.push_back(DC.Fn->getArg(i)->getType());
          Names.push_back("the adjoint of argument " + std::to_string(i) +
                          (DC.Width > 1 ? " in lane " + std::to_string(L) : std::string()));
        }
  }
  Type *Declared = DC.SRet ? CB->getParamStructRetType(0) : CB->getType();
  if (!Declared)
    return true;
  // A call that produces nothing may still be declared `double` (Enzyme's usual prototype), and
  // a void function with any result type: the result is 0. An aggregate declared for nothing
  // where something could have been produced is a mistake in the markers.
  if (Parts.empty() && (RT->isVoidTy() || Declared->isVoidTy() ||
                        (Declared->isSingleValueType() && !Declared->isVectorTy())))
    return true;
  // Enzyme's own tests and headers declare entry points `void` and ignore what the call
  // produces (the shadows' increments are what they want): the values are dropped.
  if (Declared->isVoidTy() && !DC.SRet)
    return true;
  if (!DC.SRet && Parts.size() == 1 &&
      (Parts[0] == Declared || (Parts[0]->isFloatingPointTy() && Declared->isFloatingPointTy())))
    return true;
  const DataLayout &DL = CB->getModule()->getDataLayout();
  auto *Natural = StructType::get(CB->getContext(), Parts);
  if (!Declared->isVoidTy() && sameLayout(DL, Natural, Declared, CB))
    return true;

  std::string What;
  raw_string_ostream OS(What);
  if (Parts.empty()) {
    OS << "nothing (no enzyme_out argument" << (DC.Mode == DiffMode::Forward ? " and no active return" : "")
       << ")";
  } else {
    OS << Parts.size() << (Parts.size() == 1 ? " value: " : " values: ");
    for (unsigned i = 0; i < Parts.size(); ++i) {
      std::string T;
      raw_string_ostream TS(T);
      Parts[i]->print(TS);
      OS << (i ? ", " : "") << Names[i] << " (" << T << ")";
    }
    if (Parts.size() > 1)
      OS << ", laid out as '" << printType(Natural) << "'";
  }
  std::string Example;
  const char *CName = Parts.empty() ? nullptr : cTypeName(Parts[0]);
  if (CName && all_of(Parts, [&](Type *T) { return T == Parts[0]; }))
    Example = Parts.size() == 1 ? std::string(", e.g. `") + CName + " " + entryName(DC) + "(void *, ...);`"
                                : ", e.g. `typedef struct { " + std::string(CName) + " d[" +
                                      std::to_string(Parts.size()) + "]; } R; R " + entryName(DC) +
                                      "(void *, ...);`";
  std::string Fix = DC.Mode == DiffMode::Forward
                        ? "; or pass enzyme_width equal to the number of lanes the result type holds"
                        : "; or mark each argument whose adjoint you want enzyme_out and the others "
                          "enzyme_const";
  reportError(CB->getFunction(), CB,
              Twine(entryName(DC)) + ": the call produces " + What + " but the entry point is declared to return '" +
                  (Declared->isVoidTy() ? std::string("void") : printType(Declared)) + "'" +
                  (DC.SRet ? " (through sret)" : ""),
              "declare the entry point's result with exactly these values in this order (the primal "
              "first with enzyme_primal_return, then " +
                  Twine(DC.Mode == DiffMode::Forward ? "one tangent per lane" : "one adjoint per enzyme_out argument") +
                  ")" + Example + Fix);
  return false;
}

/// The one float type of the scalars in T, or null when it has none or several.
static Type *soleFloatType(Type *T) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    Type *Found = nullptr;
    for (Type *E : ST->elements())
      if (Type *F = soleFloatType(E)) {
        if (Found && Found != F)
          return nullptr;
        Found = F;
      } else if (floatLeafCount(E)) {
        return nullptr;
      }
    return Found;
  }
  if (auto *AT = dyn_cast<ArrayType>(T))
    return soleFloatType(AT->getElementType());
  if (auto *VT = dyn_cast<VectorType>(T))
    return soleFloatType(VT->getElementType());
  return T->isFloatingPointTy() ? T : nullptr;
}

/// The float type of the object a pointer visibly points to (a local or global variable).
static Type *objectFloatType(const Value *P) {
  const Value *O = getUnderlyingObject(P, 0);
  if (auto *AI = dyn_cast<AllocaInst>(O))
    return soleFloatType(AI->getAllocatedType());
  if (auto *GV = dyn_cast<GlobalVariable>(O))
    return soleFloatType(GV->getValueType());
  return nullptr;
}

/// The float type the function loads and stores through pointer argument A (following GEPs,
/// casts, phis and selects), or null when it uses none or several.
static Type *accessFloatType(Argument *A) {
  SmallVector<const Value *, 16> Work{A};
  SmallPtrSet<const Value *, 16> Seen{A};
  Type *Found = nullptr;
  bool Mixed = false;
  auto note = [&](Type *T) {
    Type *F = T->getScalarType();
    if (!F->isFloatingPointTy())
      return;
    Mixed |= Found && Found != F;
    Found = F;
  };
  while (!Work.empty() && !Mixed) {
    const Value *V = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const User *Us = U.getUser();
      if (auto *LI = dyn_cast<LoadInst>(Us)) {
        note(LI->getType());
      } else if (auto *SI = dyn_cast<StoreInst>(Us)) {
        if (U.getOperandNo() == SI->getPointerOperandIndex())
          note(SI->getValueOperand()->getType());
      } else if ((isa<GetElementPtrInst>(Us) && U.getOperandNo() == 0) || isa<CastInst>(Us) ||
                 isa<PHINode>(Us) || isa<SelectInst>(Us)) {
        if (Us->getType()->isPointerTy() && Seen.insert(Us).second)
          Work.push_back(Us);
      }
    }
  }
  return Mixed ? nullptr : Found;
}

bool checkShadowTypes(const DiffCall &DC, Engine &E) {
  Function *Clone = nullptr;
  for (unsigned i = 0; i < DC.Args.size(); ++i) {
    const ArgSpec &AS = DC.Args[i];
    if ((AS.Kind != ArgKind::Dup && AS.Kind != ArgKind::DupNoNeed) ||
        !DC.Fn->getArg(i)->getType()->isPointerTy())
      continue;
    SmallVector<Type *, 4> ShadowTs;
    bool AnyTyped = false;
    for (Value *Sh : AS.Shadows) {
      ShadowTs.push_back(objectFloatType(Sh));
      AnyTyped |= ShadowTs.back() != nullptr;
    }
    if (!AnyTyped)
      continue;
    // The function's own view decides; the simplified clone has the parameter's accesses
    // in SSA form (clang -O0 spills parameters to the stack) and its callees inlined.
    if (!Clone)
      Clone = E.primalOf(DC.Fn);
    const char *Why = "the function reads or writes it as";
    Type *PrimalT = Clone ? accessFloatType(Clone->getArg(i)) : nullptr;
    if (!PrimalT) {
      PrimalT = objectFloatType(AS.Primal);
      Why = "the primal points to memory of type";
    }
    unsigned Lane = 0;
    while (Lane < ShadowTs.size() && (!ShadowTs[Lane] || ShadowTs[Lane] == PrimalT))
      ++Lane;
    if (!PrimalT || Lane == ShadowTs.size())
      continue;
    Type *ShadowT = ShadowTs[Lane];
    std::string P, S;
    raw_string_ostream PS(P), SS(S);
    PrimalT->print(PS);
    ShadowT->print(SS);
    reportError(DC.Call->getFunction(), DC.Call,
                Twine(entryName(DC)) + ": the shadow of argument " + Twine(i) + " of '" +
                    DC.Fn->getName() + "'" +
                    (AS.Shadows.size() > 1 ? " (lane " + Twine(Lane) + ")" : Twine("")) +
                    " points to memory of element type " + S + ", but " + Why + " " + P,
                "a shadow must have the primal's layout: declare it with the same element type "
                "as the primal (e.g. double d_x[N] for double x[N])");
    return false;
  }
  return true;
}

} // namespace synthase

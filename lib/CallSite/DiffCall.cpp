#include "CallSite/DiffCall.h"
#include "Passes/GlobalShadowApi.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

const char *argKindName(ArgKind K) {
  switch (K) {
  case ArgKind::Const: return "enzyme_const";
  case ArgKind::Out: return "enzyme_out";
  case ArgKind::Dup: return "enzyme_dup";
  case ArgKind::DupNoNeed: return "enzyme_dupnoneed";
  }
  return "?";
}

std::optional<DiffMode> entryPointMode(StringRef Name) {
  if (Name.contains("__enzyme_autodiff"))
    return DiffMode::Reverse;
  if (Name.contains("__enzyme_fwddiff"))
    return DiffMode::Forward;
  return std::nullopt;
}

static StringRef markerOfGlobal(const Value *V) {
  V = V->stripPointerCasts();
  if (auto *GV = dyn_cast<GlobalVariable>(V))
    if (GV->getName().starts_with("enzyme_"))
      return GV->getName();
  return "";
}

StringRef markerName(const Value *V) {
  if (auto *MV = dyn_cast<MetadataAsValue>(V))
    if (auto *S = dyn_cast<MDString>(MV->getMetadata()))
      return S->getString();
  if (auto *LI = dyn_cast<LoadInst>(V))
    return markerOfGlobal(LI->getPointerOperand());
  if (auto *CE = dyn_cast<ConstantExpr>(V))
    if (CE->getOpcode() == Instruction::PtrToInt)
      return markerOfGlobal(CE->getOperand(0));
  if (auto *PI = dyn_cast<PtrToIntInst>(V))
    return markerOfGlobal(PI->getOperand(0));
  if (V->getType()->isPointerTy())
    return markerOfGlobal(V);
  return "";
}

Value *throughSpilledLocal(Value *V) {
  V = V->stripPointerCasts();
  auto *LI = dyn_cast<LoadInst>(V);
  auto *AI = LI ? dyn_cast<AllocaInst>(LI->getPointerOperand()->stripPointerCasts()) : nullptr;
  if (!AI)
    return V;
  Value *Stored = nullptr;
  for (User *U : AI->users())
    if (auto *SI = dyn_cast<StoreInst>(U)) {
      if (SI->getPointerOperand() != AI || (Stored && Stored != SI->getValueOperand()))
        return nullptr;
      Stored = SI->getValueOperand();
    } else if (!isa<LoadInst>(U) && !isa<IntrinsicInst>(U)) {
      return nullptr; // the variable escapes: something else may write it
    }
  return Stored ? Stored->stripPointerCasts() : nullptr;
}

Function *differentiatedFunction(Value *V) {
  V = V->stripPointerCasts();
  if (auto *GA = dyn_cast<GlobalAlias>(V))
    V = GA->getAliasee()->stripPointerCasts();
  // At -O0 a function pointer may be spilled to a local first: follow a single store.
  // A load from anything else (an element of a table of function pointers) is not followed: the
  // function is only known at run time.
  if (isa<LoadInst>(V)) {
    Value *Stored = throughSpilledLocal(V);
    return Stored && Stored != V ? differentiatedFunction(Stored) : nullptr;
  }
  // A C++ lambda converted to a function pointer: the conversion operator returns a constant.
  if (auto *CI = dyn_cast<CallInst>(V))
    if (Function *Conv = CI->getCalledFunction(); Conv && !Conv->isDeclaration()) {
      Function *Found = nullptr;
      for (BasicBlock &BB : *Conv)
        if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
          auto *G = R->getReturnValue() ? dyn_cast<Function>(R->getReturnValue()->stripPointerCasts()) : nullptr;
          if (!G || (Found && Found != G))
            return nullptr;
          Found = G;
        }
      return Found;
    }
  return dyn_cast<Function>(V);
}

/// Whether F accesses floats or pointers through its parameter A (loads and stores of values
/// derived from it, through GEPs, casts and an -O0 spill slot), or hands it to a call.
static bool accessesDataThrough(const Argument *A) {
  SmallVector<const Value *, 8> Work{A};
  SmallPtrSet<const Value *, 16> Seen{A};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *L = dyn_cast<LoadInst>(U)) {
        if (!L->getType()->isIntOrIntVectorTy())
          return true;
      } else if (auto *S = dyn_cast<StoreInst>(U)) {
        if (S->getValueOperand() == V) { // spilled (-O0): follow the slot's loads
          auto *Slot = dyn_cast<AllocaInst>(S->getPointerOperand());
          if (!Slot)
            return true;
          for (const User *SU : Slot->users())
            if (isa<LoadInst>(SU) && Seen.insert(SU).second)
              Work.push_back(SU);
        } else if (!S->getValueOperand()->getType()->isIntOrIntVectorTy()) {
          return true;
        }
      } else if (isa<GetElementPtrInst>(U) || isa<CastInst>(U) || isa<PHINode>(U) || isa<SelectInst>(U)) {
        if (Seen.insert(U).second)
          Work.push_back(U);
      } else if (isa<CallBase>(U) || isa<AtomicRMWInst>(U) || isa<AtomicCmpXchgInst>(U)) {
        auto *II = dyn_cast<IntrinsicInst>(U);
        if (!II || !II->isLifetimeStartOrEnd())
          return true;
      }
    }
  }
  return false;
}

/// Converts an operand to the parameter type the callee expects, undoing C's default argument
/// promotions; returns null when no lossless-by-intent conversion exists.
Value *convertTo(IRBuilder<> &B, Value *V, Type *To) {
  Type *From = V->getType();
  if (From == To)
    return V;
  if (From->isFloatingPointTy() && To->isFloatingPointTy())
    return B.CreateFPCast(V, To);
  // An integer literal passed for a float parameter converts like a prototype would convert it.
  if (From->isIntegerTy() && To->isFloatingPointTy())
    return B.CreateSIToFP(V, To);
  if (From->isIntegerTy() && To->isIntegerTy())
    return B.CreateSExtOrTrunc(V, To);
  if (From->isPointerTy() && To->isPointerTy())
    return B.CreatePointerCast(V, To);
  if (From->isIntegerTy() && To->isPointerTy())
    return B.CreateIntToPtr(V, To);
  if (From->isPointerTy() && To->isIntegerTy())
    return B.CreatePtrToInt(V, To);
  if (B.GetInsertBlock()->getModule()->getDataLayout().getTypeStoreSize(From) ==
          B.GetInsertBlock()->getModule()->getDataLayout().getTypeStoreSize(To) &&
      CastInst::isBitCastable(From, To))
    return B.CreateBitCast(V, To);
  return nullptr;
}

static bool isFloatLike(Type *T) {
  if (T->isFPOrFPVectorTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return all_of(ST->elements(), isFloatLike);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return isFloatLike(AT->getElementType());
  return false;
}

/// The scalar leaves of a value (struct fields, array and vector elements, in memory order).
static void flattenValue(IRBuilder<> &B, Value *V, SmallVectorImpl<Value *> &Out) {
  Type *T = V->getType();
  if (auto *ST = dyn_cast<StructType>(T)) {
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      flattenValue(B, B.CreateExtractValue(V, i), Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    for (unsigned i = 0; i < AT->getNumElements(); ++i)
      flattenValue(B, B.CreateExtractValue(V, i), Out);
  } else if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    for (unsigned i = 0; i < VT->getNumElements(); ++i)
      Out.push_back(B.CreateExtractElement(V, i));
  } else {
    Out.push_back(V);
  }
}

/// Builds a value of type T from scalar leaves in memory order; null when they do not fit.
static Value *assemble(IRBuilder<> &B, Type *T, ArrayRef<Value *> Leaves, unsigned &K) {
  if (isa<StructType>(T) || isa<ArrayType>(T)) {
    unsigned N = isa<StructType>(T) ? cast<StructType>(T)->getNumElements() : cast<ArrayType>(T)->getNumElements();
    Value *Agg = PoisonValue::get(T);
    for (unsigned i = 0; i < N; ++i) {
      Type *ET = isa<StructType>(T) ? cast<StructType>(T)->getElementType(i) : cast<ArrayType>(T)->getElementType();
      Value *E = assemble(B, ET, Leaves, K);
      if (!E)
        return nullptr;
      Agg = B.CreateInsertValue(Agg, E, i);
    }
    return Agg;
  }
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    Value *Vec = PoisonValue::get(VT);
    for (unsigned i = 0; i < VT->getNumElements(); ++i) {
      if (K >= Leaves.size() || Leaves[K]->getType() != VT->getElementType())
        return nullptr;
      Vec = B.CreateInsertElement(Vec, Leaves[K++], i);
    }
    return Vec;
  }
  if (K >= Leaves.size() || Leaves[K]->getType() != T)
    return nullptr;
  return Leaves[K++];
}

/// Floating-point scalars in T (struct fields, array and vector elements, recursively).
unsigned floatLeafCount(Type *T) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    unsigned N = 0;
    for (Type *E : ST->elements())
      N += floatLeafCount(E);
    return N;
  }
  if (auto *AT = dyn_cast<ArrayType>(T))
    return AT->getNumElements() * floatLeafCount(AT->getElementType());
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return VT->getNumElements() * floatLeafCount(VT->getElementType());
  return T->isFloatingPointTy() ? 1 : 0;
}

/// Operands the C ABI made of a seed of type RT: a float, a float vector, a struct split into its
/// registers, or a pointer to a by-value copy (`byval`). An operand without any float can only
/// be part of one when RT itself has non-float fields.
static bool looksLikeSeed(CallBase *CB, unsigned Op, Type *RT) {
  SmallVector<Type *, 8> Scalars{RT};
  bool RTHasOther = false;
  while (!Scalars.empty()) {
    Type *T = Scalars.pop_back_val();
    if (auto *ST = dyn_cast<StructType>(T))
      Scalars.append(ST->element_begin(), ST->element_end());
    else if (auto *AT = dyn_cast<ArrayType>(T))
      Scalars.push_back(AT->getElementType());
    else
      RTHasOther |= !T->getScalarType()->isFloatingPointTy();
  }
  bool AnyFloat = false;
  for (unsigned i = Op; i < CB->arg_size(); ++i) {
    if (!markerName(CB->getArgOperand(i)).empty())
      return false;
    Type *T = CB->isByValArgument(i) ? CB->getParamByValType(i) : CB->getArgOperand(i)->getType();
    bool Float = floatLeafCount(T) > 0;
    if (!Float && !RTHasOther)
      return false;
    AnyFloat |= Float;
  }
  return AnyFloat;
}

/// T with V (converted) in its only float field and zero elsewhere.
static Value *soleFloatField(IRBuilder<> &B, Type *T, Value *V) {
  if (T->isFloatingPointTy())
    return convertTo(B, V, T);
  Value *Agg = Constant::getNullValue(T);
  if (auto *ST = dyn_cast<StructType>(T)) {
    for (unsigned i = 0; i < ST->getNumElements(); ++i)
      if (floatLeafCount(ST->getElementType(i)))
        return B.CreateInsertValue(Agg, soleFloatField(B, ST->getElementType(i), V), i);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    return B.CreateInsertValue(Agg, soleFloatField(B, AT->getElementType(), V), 0);
  } else if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    return B.CreateInsertElement(Agg, convertTo(B, V, VT->getElementType()), uint64_t(0));
  }
  return nullptr;
}

/// The float leaves of the operands from Op on (byval aggregates read from memory), in order.
static SmallVector<Value *, 8> trailingLeaves(IRBuilder<> &B, CallBase *CB, unsigned Op) {
  SmallVector<Value *, 8> Leaves;
  for (unsigned i = Op, N = CB->arg_size(); i < N; ++i) {
    Value *V = CB->getArgOperand(i);
    if (CB->isByValArgument(i))
      V = B.CreateLoad(CB->getParamByValType(i), V);
    flattenValue(B, V, Leaves);
  }
  return Leaves;
}

/// The seed of the return adjoint from the trailing operands, converted to the return type RT:
/// one float for a return with one float field, or a value of RT's own type however the C ABI
/// passed it.
static Value *parseSeed(IRBuilder<> &B, CallBase *CB, unsigned Op, Type *RT) {
  unsigned NOps = CB->arg_size();
  if (Op + 1 == NOps && floatLeafCount(RT) == 1 && CB->getArgOperand(Op)->getType()->isFloatingPointTy())
    return soleFloatField(B, RT, CB->getArgOperand(Op));
  SmallVector<Value *, 8> Leaves = trailingLeaves(B, CB, Op);
  unsigned K = 0;
  Value *Seed = assemble(B, RT, Leaves, K);
  return Seed && K == Leaves.size() ? Seed : nullptr;
}

/// Width seeds from the trailing operands: Width floats for a return with one float field, or
/// the leaves of Width values of RT in lane order.
static bool parseSeedLanes(IRBuilder<> &B, CallBase *CB, unsigned Op, Type *RT, unsigned Width,
                           SmallVectorImpl<Value *> &Out) {
  unsigned NOps = CB->arg_size();
  if (NOps - Op == Width && floatLeafCount(RT) == 1 &&
      all_of(drop_begin(CB->args(), Op), [](Use &U) { return U->getType()->isFloatingPointTy(); })) {
    for (unsigned i = Op; i < NOps; ++i)
      Out.push_back(soleFloatField(B, RT, CB->getArgOperand(i)));
    return all_of(Out, [](Value *V) { return V != nullptr; });
  }
  SmallVector<Value *, 8> Leaves = trailingLeaves(B, CB, Op);
  unsigned K = 0;
  for (unsigned L = 0; L < Width; ++L) {
    Value *Seed = assemble(B, RT, Leaves, K);
    if (!Seed)
      return false;
    Out.push_back(Seed);
  }
  return K == Leaves.size();
}

/// Enzyme's flags that may stand anywhere among the arguments and take no operand. Synthase's
/// derivatives already behave as they ask, or they only license an optimization, so all but
/// enzyme_runtime_activity are accepted and dropped:
///  - enzyme_nocache / enzyme_not_overwritten: the argument's memory need not be cached; Synthase
///    decides what to tape on its own (taping more is always right).
///  - enzyme_strong_zero: 0 times an infinite or NaN partial is 0, which every rule already does.
///  - enzyme_nofree: Enzyme's split-mode flag; a combined call frees nothing the caller sees.
/// enzyme_runtime_activity asks for a duplicated pointer whose shadow is its primal to count as
/// constant; Passes/Lowering.cpp decides that at the call site. Returns whether any was skipped.
static bool skipCallFlags(CallBase *CB, unsigned &Op, DiffCall &DC) {
  bool Any = false;
  for (unsigned N = CB->arg_size(); Op < N; ++Op) {
    StringRef M = markerName(CB->getArgOperand(Op));
    if (M == "enzyme_runtime_activity")
      DC.RuntimeActivity = true;
    else if (M != "enzyme_nocache" && M != "enzyme_not_overwritten" && M != "enzyme_strong_zero" &&
             M != "enzyme_nofree")
      break;
    Any = true;
  }
  return Any;
}

std::optional<DiffCall> parseDiffCall(CallBase *CB, DiffMode Mode) {
  Function *Caller = CB->getFunction();
  std::string Entry = Mode == DiffMode::Reverse ? "__enzyme_autodiff" : "__enzyme_fwddiff";
  // Split mode parses its calls here too; its messages name its own entry point.
  if (Function *Called = CB->getCalledFunction())
    for (const char *Split : {"__enzyme_augmentfwd", "__enzyme_reverse", "__enzyme_augmentsize"})
      if (Called->getName().contains(Split))
        Entry = Split;
  auto fail = [&](const Twine &Msg, const Twine &Hint = "") -> std::optional<DiffCall> {
    reportError(Caller, CB, Twine(Entry) + ": " + Msg, Hint);
    return std::nullopt;
  };
  DiffCall DC;
  unsigned First = 0;
  if (CB->arg_size() > 0 && CB->paramHasAttr(0, Attribute::StructRet)) {
    DC.SRet = CB->getArgOperand(0);
    First = 1;
  }
  if (CB->arg_size() <= First)
    return fail("no function to differentiate was passed",
                "the first argument must be the function, e.g. (void*)f");
  DC.Call = CB;
  DC.Mode = Mode;
  DC.Fn = differentiatedFunction(CB->getArgOperand(First));
  if (!DC.Fn)
    return fail("the first argument is not a function known at compile time",
                "pass the function itself, e.g. (void*)f, not a pointer computed at run time");
  if (DC.Fn->isVarArg())
    return fail("cannot differentiate variadic function '" + DC.Fn->getName() + "'");

  IRBuilder<> B(CB);
  unsigned Op = First + 1, NOps = CB->arg_size();
  // Leading options: enzyme_primal_return / enzyme_noret, the return activity
  // (enzyme_const_return, enzyme_active_return, enzyme_dup_return), enzyme_width N, enzyme_context
  // ctx (any order). <enzyme/enzyme> opens every call with a return activity and one of the first two.
  bool ExplicitWidth = false;
  while (Op < NOps) {
    StringRef M = markerName(CB->getArgOperand(Op));
    if (M == "enzyme_primal_return" || M == "enzyme_noret") {
      DC.ReturnPrimal = M == "enzyme_primal_return";
      ++Op;
    } else if (M == "enzyme_const_return" || M == "enzyme_active_return" || M == "enzyme_dup_return") {
      if (M == "enzyme_active_return" && Mode == DiffMode::Forward)
        return fail("enzyme_active_return is a reverse-mode marker",
                    "in forward mode the return is enzyme_dup_return (its tangent is returned) or "
                    "enzyme_const_return");
      if (M == "enzyme_dup_return" && Mode == DiffMode::Reverse)
        return fail("enzyme_dup_return (a duplicated return) is not supported in reverse mode",
                    "return a float with enzyme_active_return, or write the result through an "
                    "enzyme_dup pointer argument and mark the return enzyme_const_return");
      if (M == "enzyme_active_return" && !isFloatLike(DC.Fn->getReturnType()))
        return fail("enzyme_active_return, but '" + DC.Fn->getName() + "' returns '" +
                        printType(DC.Fn->getReturnType()) + "', which is not floating point",
                    "mark the return enzyme_const_return (enzyme::Const<T> in C++)");
      DC.ReturnDerivative = M != "enzyme_const_return";
      ++Op;
    } else if (M == "enzyme_width") {
      if (Op + 1 >= NOps)
        return fail("enzyme_width must be followed by the width");
      auto *W = dyn_cast<ConstantInt>(CB->getArgOperand(Op + 1));
      if (!W || W->isZero() || W->getZExtValue() > 64)
        return fail("enzyme_width must be followed by a constant between 1 and 64");
      if (DC.ShadowSet && DC.Width != W->getZExtValue())
        return fail("enzyme_width " + Twine(W->getZExtValue()) + " differs from the width of the context (" +
                    Twine(DC.Width) + ")");
      DC.Width = W->getZExtValue();
      ExplicitWidth = true;
      Op += 2;
    } else if (M == "enzyme_context") {
      GlobalVariable *Ctx = Op + 1 < NOps ? contextOf(CB->getArgOperand(Op + 1)) : nullptr;
      if (!Ctx)
        return fail("enzyme_context must be followed by a context known at compile time",
                    "create it with void *ctx = __enzyme_context(width); in this function and pass "
                    "that variable directly");
      if (ExplicitWidth && DC.Width != contextWidth(Ctx))
        return fail("enzyme_width " + Twine(DC.Width) + " differs from the width of the context (" +
                    Twine(contextWidth(Ctx)) + ")");
      DC.Width = contextWidth(Ctx); // a context of width w differentiates w directions at once
      DC.ShadowSet = contextSet(Ctx);
      Op += 2;
    } else if (!skipCallFlags(CB, Op, DC)) {
      break;
    }
  }

  for (Argument &A : DC.Fn->args()) {
    Type *PT = A.getType();
    ArgSpec AS;
    skipCallFlags(CB, Op, DC);
    StringRef M = Op < NOps ? markerName(CB->getArgOperand(Op)) : "";
    bool Vectorized = false;
    std::optional<ArgKind> Kind;
    if (!M.empty()) {
      if (M == "enzyme_const") Kind = ArgKind::Const;
      else if (M == "enzyme_out") Kind = ArgKind::Out;
      else if (M == "enzyme_dup") Kind = ArgKind::Dup;
      else if (M == "enzyme_dupnoneed") Kind = ArgKind::DupNoNeed;
      else if (M == "enzyme_dupv") { Kind = ArgKind::Dup; Vectorized = true; }
      else if (M == "enzyme_dupnoneedv") { Kind = ArgKind::DupNoNeed; Vectorized = true; }
      else if (M == "enzyme_width" || M == "enzyme_primal_return" || M == "enzyme_noret" ||
               M == "enzyme_context" || M.ends_with("_return"))
        return fail("marker '" + M + "' must come before the first argument");
      else
        return fail("unknown marker '" + M + "' before argument " + Twine(A.getArgNo()) + " of '" +
                        DC.Fn->getName() + "'",
                    "known markers: enzyme_dup, enzyme_dupnoneed, enzyme_dupv, enzyme_const, "
                    "enzyme_out, enzyme_width, enzyme_primal_return, enzyme_noret, "
                    "enzyme_const_return, enzyme_active_return, enzyme_dup_return, enzyme_context");
      ++Op;
    }
    if (Vectorized) {
      if (Op >= NOps)
        return fail("enzyme_dupv must be followed by a byte stride");
      Value *Stride = CB->getArgOperand(Op++);
      if (!Stride->getType()->isIntegerTy() || !markerName(Stride).empty())
        return fail("the byte stride after " + M + " must be an integer (argument " +
                        Twine(A.getArgNo()) + " of '" + DC.Fn->getName() + "')",
                    "enzyme_dupv, stride_in_bytes, primal, shadow_buffer");
      AS.StrideBytes = B.CreateSExtOrTrunc(Stride, B.getInt64Ty());
    }
    if (Op >= NOps)
      return fail("too few arguments: '" + DC.Fn->getName() + "' has " + Twine(DC.Fn->arg_size()) +
                      " parameters but argument " + Twine(A.getArgNo()) + " is missing",
                  "pass every parameter of the function, each with its shadow where needed");
    Value *P = CB->getArgOperand(Op++);
    if (!markerName(P).empty())
      return fail("marker '" + markerName(P) + "' where argument " + Twine(A.getArgNo()) +
                  " of '" + DC.Fn->getName() + "' was expected (two markers in a row?)");
    AS.Primal = convertTo(B, P, PT);
    // A struct too large for registers is returned through a hidden first parameter, which the
    // C prototype does not show: the caller has to pass that buffer and its shadow itself.
    if (!AS.Primal && A.hasStructRetAttr())
      return fail("'" + DC.Fn->getName() + "' returns '" + printType(A.getParamStructRetType()) +
                      "' through a hidden sret pointer (its argument 0), and argument 0 here is " +
                      printInstruction(P),
                  "pass the result buffer and its shadow first: enzyme_dup, &out, &d_out, then the "
                  "arguments; in reverse mode d_out holds the seed of each field, in forward mode "
                  "it receives the tangent");
    if (!AS.Primal)
      return fail("argument " + Twine(A.getArgNo()) + " has type " + "'" +
                  std::string([&] { std::string s; raw_string_ostream o(s); P->getType()->print(o); return s; }()) +
                  "' which does not match parameter type of '" + DC.Fn->getName() + "'");
    if (!Kind) {
      if (isFloatLike(PT))
        Kind = Mode == DiffMode::Reverse ? ArgKind::Out : ArgKind::Dup;
      else if (PT->isPointerTy())
        // Enzyme's default, unless the operand after it cannot be a shadow (an integer) and the
        // function reads no float or pointer through it: `int *len` passed bare, as Enzyme's
        // type analysis makes it constant.
        Kind = Op < NOps && !CB->getArgOperand(Op)->getType()->isPointerTy() && markerName(CB->getArgOperand(Op)).empty() &&
                       !accessesDataThrough(&A)
                   ? ArgKind::Const
                   : ArgKind::Dup;
      else
        Kind = ArgKind::Const;
    }
    AS.Kind = *Kind;
    if (AS.Kind == ArgKind::Out) {
      if (Mode == DiffMode::Forward)
        return fail("enzyme_out is a reverse-mode marker (argument " + Twine(A.getArgNo()) + ")",
                    "in forward mode pass the tangent after the value (enzyme_dup)");
      if (!isFloatLike(PT))
        return fail("enzyme_out on argument " + Twine(A.getArgNo()) +
                        " which is not a floating-point value",
                    "pointers take enzyme_dup with a shadow; integers are enzyme_const");
    }
    if (AS.Kind == ArgKind::Dup || AS.Kind == ArgKind::DupNoNeed) {
      if (Mode == DiffMode::Reverse && !PT->isPointerTy())
        return fail("enzyme_dup on argument " + Twine(A.getArgNo()) +
                        " which is not a pointer (reverse mode)",
                    "use enzyme_out for an active scalar, enzyme_const for an inactive one");
      if (!PT->isPointerTy() && !isFloatLike(PT))
        return fail("a shadow was passed for integer argument " + Twine(A.getArgNo()) + " of '" +
                        DC.Fn->getName() + "'",
                    "integers cannot carry derivatives: mark the argument enzyme_const");
      unsigned NShadows = Vectorized ? 1 : DC.Width;
      for (unsigned L = 0; L < NShadows; ++L) {
        if (Op >= NOps)
          return fail("missing shadow for argument " + Twine(A.getArgNo()) + " of '" + displayName(DC.Fn->getName()) +
                          "'" + (DC.Width > 1 ? " (width " + Twine(DC.Width) + ")" : Twine("")),
                      A.hasByValAttr()
                          ? "the argument is a struct passed by value (in memory): pass a second struct after it, "
                            "which receives its gradient (reverse mode) or holds its tangent (forward mode)"
                          : "");
        Value *S = CB->getArgOperand(Op++);
        if (!markerName(S).empty())
          return fail("marker '" + markerName(S) + "' where the shadow of argument " +
                      Twine(A.getArgNo()) + " was expected");
        Value *C = convertTo(B, S, PT);
        if (!C || (PT->isPointerTy() && !S->getType()->isPointerTy() && !S->getType()->isIntegerTy()))
          return fail("the shadow of argument " + Twine(A.getArgNo()) +
                      " does not have the argument's type");
        AS.Shadows.push_back(C);
      }
      if (Vectorized) {
        if (!PT->isPointerTy())
          return fail("enzyme_dupv needs a pointer argument (argument " + Twine(A.getArgNo()) + ")");
        Value *Base = AS.Shadows[0];
        AS.Shadows.clear();
        for (unsigned L = 0; L < DC.Width; ++L)
          AS.Shadows.push_back(B.CreateGEP(B.getInt8Ty(), Base,
                                           B.CreateMul(AS.StrideBytes, B.getInt64(L))));
      }
    }
    DC.Args.push_back(std::move(AS));
  }
  Type *RT = DC.Fn->getReturnType();
  if (Op < NOps) {
    if (Mode == DiffMode::Reverse && DC.ReturnDerivative && floatLeafCount(RT) > 0 && looksLikeSeed(CB, Op, RT) &&
        DC.Width > 1) {
      if (!parseSeedLanes(B, CB, Op, RT, DC.Width, DC.DRetLanes))
        return fail("the seeds of the return adjoint (the operands after the last argument of '" +
                        DC.Fn->getName() + "') are not " + Twine(DC.Width) + " values of its return type '" +
                        printType(RT) + "'",
                    "with enzyme_width N pass N seeds, one per lane, or none (every lane is seeded with 1)");
      Op = NOps;
    } else if (Mode == DiffMode::Reverse && DC.ReturnDerivative && floatLeafCount(RT) > 0 &&
               looksLikeSeed(CB, Op, RT)) {
      DC.DRet = parseSeed(B, CB, Op, RT);
      if (!DC.DRet)
        return fail("the seed of the return adjoint (the operands after the last argument of '" +
                        DC.Fn->getName() + "') does not match its return type '" + printType(RT) + "'",
                    "pass one value of the function's return type, e.g. the same struct type it "
                    "returns with the weight of each field");
      Op = NOps;
    } else {
      StringRef Extra = markerName(CB->getArgOperand(Op));
      if (Extra == "enzyme_width" || Extra == "enzyme_primal_return" || Extra == "enzyme_noret" ||
          Extra.ends_with("_return"))
        return fail("marker '" + Extra + "' must come before the first argument");
      return fail("too many arguments: '" + DC.Fn->getName() + "' has " +
                      Twine(DC.Fn->arg_size()) + " parameters; extra operand " +
                      printInstruction(CB->getArgOperand(Op)),
                  "check the markers: each enzyme_dup argument is followed by exactly one shadow "
                  "per lane");
    }
  }
  // A constant return contributes nothing to the adjoints: its seed is 0.
  if (Mode == DiffMode::Reverse && !DC.ReturnDerivative && floatLeafCount(RT) > 0)
    DC.DRet = Constant::getNullValue(RT);
  // Seeding every field with 1 would return the derivative of the sum of the fields, which is
  // rarely what was meant: a return with several float fields needs its seed spelled out.
  if (Mode == DiffMode::Reverse && !DC.DRet && DC.DRetLanes.empty() && floatLeafCount(RT) > 1)
    return fail("'" + DC.Fn->getName() + "' returns '" + printType(RT) + "' with " +
                    Twine(floatLeafCount(RT)) +
                    " floating-point fields, and no seed for the return adjoint was passed",
                "pass the seed as a last argument of the return type: the weight of each field "
                "in the derivative, e.g. `R seed = {1, 0}; __enzyme_autodiff((void *)f, x, y, "
                "seed)` for the gradient of the first field (R is the function's return type)");
  return DC;
}

} // namespace synthase

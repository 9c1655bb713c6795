// Derivatives of libstdc++'s node-linking helpers (see NodeLinks.h).
//
// The tree helpers read the nodes' colours as well as their links, and the shadow tree's colours
// are not kept by the code around them: an inline copy of a colour (a std::map copied by _M_copy)
// is an integer the engine does not mirror into shadow memory. So before each tree helper runs on
// the shadow structure, the colours it is going to read are copied from the primal nodes into
// their shadows, walking both trees in step (the links are mirrored, so the walk is the same):
// for an insertion, the path from the parent to the root and the sibling of each node on it; for
// an erase, the path from the erased node's successor (or the node) to the root, the children of
// its lowest node, and each sibling on the path with its children and grandchildren (what the
// rebalancing reads, rotations included); for a decrement, the node itself (the header test).
// That is O(log n) per call, and the shadow call then takes exactly the primal call's steps.
#include "Rules/NodeLinks.h"
#include "Analysis/UserAnnotations.h"
#include "Engine/Engine.h"
#include "Rules/CustomDerivatives.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include <optional>

using namespace llvm;

namespace synthase {
namespace {

enum class Link { RbInsert, RbErase, RbIncrement, RbDecrement, List };

struct Helper {
  const char *Name;
  Link K;
  unsigned Params;
};

const Helper Helpers[] = {
    {"_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_", Link::RbInsert, 4},
    {"_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_", Link::RbErase, 2},
    {"_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base", Link::RbIncrement, 1},
    {"_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base", Link::RbIncrement, 1},
    {"_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base", Link::RbDecrement, 1},
    {"_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base", Link::RbDecrement, 1},
    {"_ZNSt8__detail15_List_node_base7_M_hookEPS0_", Link::List, 2},
    {"_ZNSt8__detail15_List_node_base9_M_unhookEv", Link::List, 1},
    {"_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_", Link::List, 3},
    {"_ZNSt8__detail15_List_node_base10_M_reverseEv", Link::List, 1},
    {"_ZNSt8__detail15_List_node_base4swapERS0_S1_", Link::List, 2},
};

std::optional<Link> linkKind(const Function *F) {
  if (!F || !F->isDeclaration())
    return std::nullopt;
  for (const Helper &H : Helpers) {
    if (F->getName() != H.Name)
      continue;
    FunctionType *FT = F->getFunctionType();
    if (FT->getNumParams() != H.Params || FT->isVarArg())
      return std::nullopt;
    for (unsigned i = 0; i < H.Params; ++i) // only the insertion's first parameter (bool left) is not a node
      if (FT->getParamType(i)->isPointerTy() != !(H.K == Link::RbInsert && i == 0))
        return std::nullopt;
    bool ReturnsNode = H.K == Link::RbErase || H.K == Link::RbIncrement || H.K == Link::RbDecrement;
    if (ReturnsNode ? !FT->getReturnType()->isPointerTy() : !FT->getReturnType()->isVoidTy())
      return std::nullopt;
    return H.K;
  }
  return std::nullopt;
}

bool hasShadowArg(ArgKind K) { return K == ArgKind::Dup || K == ArgKind::DupNoNeed; }

/// _Rb_tree_node_base { _Rb_tree_color color; ptr parent, left, right; }
struct NodeLayout {
  uint64_t Parent, Left, Right;
  explicit NodeLayout(const DataLayout &DL) {
    uint64_t P = DL.getPointerSize();
    Parent = std::max<uint64_t>(P, 4), Left = Parent + P, Right = Left + P;
  }
};

Value *field(IRBuilder<> &B, Value *Node, uint64_t Off) {
  return B.CreateLoad(B.getPtrTy(), B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Node, Off));
}

void copyColour(IRBuilder<> &B, Value *Node, Value *Shadow) {
  B.CreateStore(B.CreateLoad(B.getInt32Ty(), Node), Shadow);
}

/// A helper of this file's own (colour copies): internal, kept out of line, and inactive for an
/// outer derivative (nested AD over code that holds a std::map), since it moves integers only.
Function *syncFunction(Module &M, StringRef Name, ArrayRef<Type *> Params,
                       function_ref<void(IRBuilder<> &, Function *)> Body) {
  if (Function *F = M.getFunction(Name))
    return F;
  LLVMContext &C = M.getContext();
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(C), Params, false), GlobalValue::InternalLinkage,
                                 Name, M);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(AttrInactive);
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  Body(B, F);
  return F;
}

/// sync_subtree(n, s, depth): the colours of n's subtree down to `depth` levels below n.
Function *syncSubtree(Module &M) {
  Type *Ptr = PointerType::getUnqual(M.getContext()), *I32 = Type::getInt32Ty(M.getContext());
  return syncFunction(M, "synthase.rb.sync_subtree", {Ptr, Ptr, I32}, [&](IRBuilder<> &B, Function *F) {
    NodeLayout L(M.getDataLayout());
    LLVMContext &C = M.getContext();
    Value *N = F->getArg(0), *S = F->getArg(1), *D = F->getArg(2);
    auto *Copy = BasicBlock::Create(C, "copy", F), *Down = BasicBlock::Create(C, "down", F),
         *Done = BasicBlock::Create(C, "done", F);
    B.CreateCondBr(B.CreateOr(B.CreateIsNull(N), B.CreateIsNull(S)), Done, Copy);
    B.SetInsertPoint(Copy);
    copyColour(B, N, S);
    B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), Done, Down);
    B.SetInsertPoint(Down);
    Value *D1 = B.CreateSub(D, B.getInt32(1));
    for (uint64_t Off : {L.Left, L.Right})
      B.CreateCall(F, {field(B, N, Off), field(B, S, Off), D1});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  });
}

/// sync_path(n, s, header, depth): the colours of n and of each of its ancestors up to the root,
/// and of each one's sibling subtree down to `depth`.
Function *syncPath(Module &M) {
  Type *Ptr = PointerType::getUnqual(M.getContext()), *I32 = Type::getInt32Ty(M.getContext());
  Function *Sub = syncSubtree(M);
  return syncFunction(M, "synthase.rb.sync_path", {Ptr, Ptr, Ptr, I32}, [&](IRBuilder<> &B, Function *F) {
    NodeLayout L(M.getDataLayout());
    LLVMContext &C = M.getContext();
    Value *N0 = F->getArg(0), *S0 = F->getArg(1), *Hdr = F->getArg(2), *D = F->getArg(3);
    BasicBlock *Entry = B.GetInsertBlock();
    auto *Head = BasicBlock::Create(C, "head", F), *Body = BasicBlock::Create(C, "body", F),
         *Sib = BasicBlock::Create(C, "sibling", F), *Next = BasicBlock::Create(C, "next", F),
         *Done = BasicBlock::Create(C, "done", F);
    B.CreateBr(Head);
    B.SetInsertPoint(Head);
    PHINode *N = B.CreatePHI(Ptr, 2), *S = B.CreatePHI(Ptr, 2);
    // The root's parent is the header: the walk stops there.
    B.CreateCondBr(B.CreateOr(B.CreateICmpEQ(N, Hdr), B.CreateIsNull(S)), Done, Body);
    B.SetInsertPoint(Body);
    copyColour(B, N, S);
    Value *Par = field(B, N, L.Parent), *SPar = field(B, S, L.Parent);
    B.CreateCondBr(B.CreateICmpEQ(Par, Hdr), Next, Sib); // the header's links are not children
    B.SetInsertPoint(Sib);
    Value *PL = field(B, Par, L.Left);
    Value *IsLeft = B.CreateICmpEQ(PL, N);
    Value *Sibling = B.CreateSelect(IsLeft, field(B, Par, L.Right), PL);
    Value *SSibling = B.CreateSelect(IsLeft, field(B, SPar, L.Right), field(B, SPar, L.Left));
    B.CreateCall(Sub, {Sibling, SSibling, D});
    B.CreateBr(Next);
    B.SetInsertPoint(Next);
    N->addIncoming(N0, Entry), N->addIncoming(Par, Next);
    S->addIncoming(S0, Entry), S->addIncoming(SPar, Next);
    B.CreateBr(Head);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  });
}

/// sync_erase(z, sz, header): what _Rb_tree_rebalance_for_erase(z, header) reads. Its lowest
/// node is z's successor when z has two children (else z); the child that replaces it, the path
/// up, and each sibling with two levels below (the rotations of the red-sibling case look there).
Function *syncErase(Module &M) {
  Type *Ptr = PointerType::getUnqual(M.getContext());
  Function *Path = syncPath(M), *Sub = syncSubtree(M);
  return syncFunction(M, "synthase.rb.sync_erase", {Ptr, Ptr, Ptr}, [&](IRBuilder<> &B, Function *F) {
    NodeLayout L(M.getDataLayout());
    LLVMContext &C = M.getContext();
    Value *Z = F->getArg(0), *SZ = F->getArg(1), *Hdr = F->getArg(2);
    BasicBlock *Entry = B.GetInsertBlock();
    auto *Two = BasicBlock::Create(C, "two", F), *Head = BasicBlock::Create(C, "head", F),
         *Step = BasicBlock::Create(C, "step", F), *Low = BasicBlock::Create(C, "lowest", F);
    Value *ZR = field(B, Z, L.Right);
    Value *HasTwo = B.CreateAnd(B.CreateIsNotNull(field(B, Z, L.Left)), B.CreateIsNotNull(ZR));
    B.CreateCondBr(B.CreateAnd(HasTwo, B.CreateIsNotNull(SZ)), Two, Low);
    B.SetInsertPoint(Two);
    Value *SZR = field(B, SZ, L.Right);
    B.CreateBr(Head);
    B.SetInsertPoint(Head); // the leftmost node of z's right subtree, in both trees
    PHINode *N = B.CreatePHI(Ptr, 2), *S = B.CreatePHI(Ptr, 2);
    Value *NL = field(B, N, L.Left);
    B.CreateCondBr(B.CreateAnd(B.CreateIsNotNull(NL), B.CreateIsNotNull(S)), Step, Low);
    B.SetInsertPoint(Step);
    Value *SL = field(B, S, L.Left);
    N->addIncoming(ZR, Two), N->addIncoming(NL, Step);
    S->addIncoming(SZR, Two), S->addIncoming(SL, Step);
    B.CreateBr(Head);
    B.SetInsertPoint(Low);
    PHINode *D = B.CreatePHI(Ptr, 2), *SD = B.CreatePHI(Ptr, 2);
    D->addIncoming(Z, Entry), D->addIncoming(N, Head);
    SD->addIncoming(SZ, Entry), SD->addIncoming(S, Head);
    auto *Kids = BasicBlock::Create(C, "children", F), *Done = BasicBlock::Create(C, "done", F);
    B.CreateCondBr(B.CreateIsNull(SD), Done, Kids);
    B.SetInsertPoint(Kids);
    B.CreateCall(Path, {D, SD, Hdr, B.getInt32(2)});
    for (uint64_t Off : {L.Left, L.Right})
      B.CreateCall(Sub, {field(B, D, Off), field(B, SD, Off), B.getInt32(0)});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
    B.CreateRetVoid();
  });
}

/// Before the primal call: the colours the helper will read, into the lane's shadow tree.
void emitColourSync(IRBuilder<> &B, Link K, ArrayRef<Value *> P, ArrayRef<Value *> Sh) {
  Module &M = *B.GetInsertBlock()->getModule();
  switch (K) {
  case Link::RbInsert: // (left, x, p, header): x is new and coloured by the call itself
    B.CreateCall(syncPath(M), {P[2], Sh[2], P[3], B.getInt32(0)});
    return;
  case Link::RbErase: // (z, header)
    B.CreateCall(syncErase(M), {P[0], Sh[0], P[1]});
    return;
  case Link::RbDecrement: // the header is recognised by its colour
    copyColour(B, P[0], Sh[0]);
    return;
  case Link::RbIncrement:
  case Link::List:
    return;
  }
}

/// Arguments of one call of the helper, per parameter: the primal and each lane's shadow (none
/// for a parameter without a shadow).
struct Args {
  SmallVector<Value *, 4> Primal;
  SmallVector<SmallVector<Value *, 4>, 4> Shadow;
};

/// The calls: for each lane whose shadows are all there and non-null, the colours it will read;
/// the primal call; then the call on each such lane's shadows. Returns the primal result and each
/// lane's shadow result (null on a lane that was skipped), or nothing for a void helper.
std::pair<Value *, SmallVector<Value *, 4>> emitLinkedCalls(IRBuilder<> &B, Function *H, Link K, const Args &A,
                                                            unsigned W) {
  LLVMContext &C = B.getContext();
  Function *F = B.GetInsertBlock()->getParent();
  FunctionType *FT = H->getFunctionType();
  SmallVector<Value *, 4> Ready(W, nullptr);
  for (unsigned l = 0; l < W; ++l) {
    Value *All = B.getTrue();
    for (unsigned i = 0; i < FT->getNumParams(); ++i) {
      if (!FT->getParamType(i)->isPointerTy())
        continue;
      if (A.Shadow[i].empty()) { // no shadow structure at all (checkNodeLinkCall refuses a mix)
        All = B.getFalse();
        break;
      }
      All = B.CreateAnd(All, B.CreateIsNotNull(A.Shadow[i][l]));
    }
    Ready[l] = All;
  }
  auto laneArgs = [&](unsigned l) {
    SmallVector<Value *, 4> V;
    for (unsigned i = 0; i < FT->getNumParams(); ++i)
      V.push_back(FT->getParamType(i)->isPointerTy() ? A.Shadow[i][l] : A.Primal[i]);
    return V;
  };
  // Runs Body(lane) only when the lane is ready; returns its value (or null) after the join.
  auto onReadyLane = [&](unsigned l, function_ref<Value *()> Body) -> Value * {
    if (auto *CI = dyn_cast<ConstantInt>(Ready[l]); CI && CI->isZero())
      return nullptr;
    auto *Then = BasicBlock::Create(C, "shadow.links", F), *Join = BasicBlock::Create(C, "shadow.links.done", F);
    BasicBlock *From = B.GetInsertBlock();
    B.CreateCondBr(Ready[l], Then, Join);
    B.SetInsertPoint(Then);
    Value *V = Body();
    BasicBlock *ThenEnd = B.GetInsertBlock();
    B.CreateBr(Join);
    B.SetInsertPoint(Join);
    if (!V)
      return nullptr;
    PHINode *P = B.CreatePHI(V->getType(), 2);
    P->addIncoming(Constant::getNullValue(V->getType()), From);
    P->addIncoming(V, ThenEnd);
    return P;
  };
  if (K == Link::RbInsert || K == Link::RbErase || K == Link::RbDecrement)
    for (unsigned l = 0; l < W; ++l)
      onReadyLane(l, [&]() -> Value * {
        SmallVector<Value *, 4> Sh = laneArgs(l);
        emitColourSync(B, K, A.Primal, Sh);
        return nullptr;
      });
  CallInst *Primal = B.CreateCall(H, A.Primal);
  SmallVector<Value *, 4> Shadows;
  for (unsigned l = 0; l < W; ++l) {
    Value *R = onReadyLane(l, [&]() -> Value * {
      CallInst *SC = B.CreateCall(H, laneArgs(l));
      return H->getReturnType()->isVoidTy() ? nullptr : SC;
    });
    if (!H->getReturnType()->isVoidTy())
      Shadows.push_back(R ? R : Constant::getNullValue(H->getReturnType()));
  }
  return {H->getReturnType()->isVoidTy() ? nullptr : Primal, Shadows};
}

struct Wrapper {
  Function *NF;
  Args A;
  SmallVector<Value *, 2> Extra;
};

/// (args, each Dup argument followed by W shadows, Extra) -> RT, as the generators call a callee.
Wrapper makeWrapper(Engine &E, const Signature &S, ArrayRef<Type *> Extra, Type *RT, const Twine &Name) {
  FunctionType *FT = S.Fn->getFunctionType();
  SmallVector<Type *, 12> Params;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    Params.push_back(FT->getParamType(i));
    if (hasShadowArg(S.Acts[i]))
      Params.append(S.Width, FT->getParamType(i));
  }
  Params.append(Extra.begin(), Extra.end());
  Wrapper W{Function::Create(FunctionType::get(RT, Params, false), GlobalValue::InternalLinkage, Name, E.module()),
            {}, {}};
  W.NF->addFnAttr(Attribute::NoUnwind);
  unsigned Pos = 0;
  for (unsigned i = 0; i < FT->getNumParams(); ++i) {
    W.A.Primal.push_back(W.NF->getArg(Pos++));
    W.A.Shadow.emplace_back();
    if (hasShadowArg(S.Acts[i]))
      for (unsigned l = 0; l < S.Width; ++l)
        W.A.Shadow.back().push_back(W.NF->getArg(Pos++));
  }
  for (; Pos < W.NF->arg_size(); ++Pos)
    W.Extra.push_back(W.NF->getArg(Pos));
  BasicBlock::Create(E.module().getContext(), "entry", W.NF);
  E.noteGenerated(W.NF);
  return W;
}

Type *joined(LLVMContext &C, ArrayRef<Type *> Parts) {
  return Parts.empty() ? Type::getVoidTy(C) : Parts.size() == 1 ? Parts[0] : StructType::get(C, Parts);
}

void returnParts(IRBuilder<> &B, ArrayRef<Value *> Parts) {
  if (Parts.empty())
    B.CreateRetVoid();
  else if (Parts.size() == 1)
    B.CreateRet(Parts[0]);
  else
    B.CreateAggregateRet(const_cast<Value **>(Parts.data()), Parts.size());
}

bool valid(Engine &E, Function *F, Function *Source) {
  if (E.verifyGenerated(F, Source))
    return true;
  F->deleteBody();
  F->setLinkage(GlobalValue::ExternalLinkage);
  return false;
}

} // namespace

bool isNodeLinkHelper(const Function *F) { return linkKind(F).has_value(); }

void markNodeLinkHelpers(Module &M) {
  if (!usesEnzymeApi(M))
    return;
  for (Function &F : M)
    if (isNodeLinkHelper(&F)) {
      F.addFnAttr(CustomForwardAttr);
      F.addFnAttr(CustomReverseAttr);
    }
}

Function *nodeLinkTangent(Engine &E, const Signature &S) {
  LLVMContext &C = E.module().getContext();
  Type *RT = S.Fn->getReturnType();
  SmallVector<Type *, 5> Parts;
  if (!RT->isVoidTy()) {
    if (S.RetPrimal)
      Parts.push_back(RT);
    if (S.RetActive)
      Parts.append(S.Width, RT);
  }
  Wrapper W = makeWrapper(E, S, {}, joined(C, Parts), "fwddiffe_links_" + S.Fn->getName());
  IRBuilder<> B(&W.NF->getEntryBlock());
  auto [Primal, Shadows] = emitLinkedCalls(B, S.Fn, *linkKind(S.Fn), W.A, S.Width);
  SmallVector<Value *, 5> Out;
  if (!RT->isVoidTy()) {
    if (S.RetPrimal)
      Out.push_back(Primal);
    if (S.RetActive)
      Out.append(Shadows.begin(), Shadows.end());
  }
  returnParts(B, Out);
  return valid(E, W.NF, S.Fn) ? W.NF : nullptr;
}

GradientPair nodeLinkGradient(Engine &E, const Signature &S) {
  LLVMContext &C = E.module().getContext();
  Type *RT = S.Fn->getReturnType(), *TapeP = PointerType::getUnqual(C);
  SmallVector<Type *, 5> Parts;
  if (!RT->isVoidTy()) {
    Parts.push_back(RT);
    if (S.RetShadow)
      Parts.append(S.Width, RT);
  }
  Wrapper A = makeWrapper(E, S, {TapeP}, joined(C, Parts), "augmented_links_" + S.Fn->getName());
  IRBuilder<> B(&A.NF->getEntryBlock());
  auto [Primal, Shadows] = emitLinkedCalls(B, S.Fn, *linkKind(S.Fn), A.A, S.Width);
  SmallVector<Value *, 5> Out;
  if (!RT->isVoidTy()) {
    Out.push_back(Primal);
    if (S.RetShadow)
      Out.append(Shadows.begin(), Shadows.end());
  }
  returnParts(B, Out);
  // Nothing to undo: the generators do not even call it (CallAdjoints), but a pair has two halves.
  SmallVector<Type *, 2> Extra;
  if (S.RetActive) // never: no helper returns a float
    Extra.append(S.Width, RT);
  Extra.push_back(TapeP);
  Wrapper R = makeWrapper(E, S, Extra, Type::getVoidTy(C), "reverse_links_" + S.Fn->getName());
  IRBuilder<>(&R.NF->getEntryBlock()).CreateRetVoid();
  if (!valid(E, A.NF, S.Fn) || !valid(E, R.NF, S.Fn))
    return {};
  GradientPair GP;
  GP.Augmented = A.NF;
  GP.Reverse = R.NF;
  GP.RetShadowMaybeNull = S.ShadowArgsMaybeNull; // a null shadow out only for a null shadow in
  return GP;
}

bool checkNodeLinkCall(const Function *Caller, const CallBase *CB, ArrayRef<ArgKind> Acts, bool Reverse) {
  const Function *G = CB->getCalledFunction();
  if (Reverse && G && G->getName().starts_with("_ZNSt8_Rb_tree") && G->getName().contains("7_M_copy") &&
      any_of(Acts, hasShadowArg)) {
    reportError(Caller, CB,
                "copying a std::map or std::set (libstdc++'s _Rb_tree::_M_copy) is not supported in reverse "
                "mode: the values are copied as bytes whose types that function does not show, so their "
                "adjoints would not reach the original",
                "build the copy from the elements instead (std::map<K, V> b(a.begin(), a.end()), or insert "
                "them one by one), or use forward mode");
    return false;
  }
  if (!isNodeLinkHelper(G))
    return true;
  bool With = false, Without = false;
  for (const Use &U : CB->args())
    if (U->getType()->isPointerTy())
      (hasShadowArg(Acts[U.getOperandNo()]) ? With : Without) = true;
  if (!(With && Without))
    return true;
  reportError(Caller, CB,
              "'" + displayName(CB->getCalledFunction()->getName()) +
                  "' links nodes of a std::map, std::set or std::list where only some of them have derivative "
                  "memory (shadows), so the shadow container could not follow the primal one",
              "build the container inside the differentiated function with the default allocator (a custom "
              "allocator whose memory has no shadow is not supported), and pass a container that gets new "
              "nodes with enzyme_dup and a shadow container of the same shape (a copy), not enzyme_const");
  return false;
}

} // namespace synthase

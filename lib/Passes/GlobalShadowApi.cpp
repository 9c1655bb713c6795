#include "Passes/GlobalShadowApi.h"
#include "CallSite/DiffCall.h"
#include "Engine/Engine.h"
#include "Support/Diagnostics.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace synthase {

static constexpr const char *MDContext = "synthase.context";

static SmallVector<CallBase *, 4> callsOf(Module &M, StringRef Name) {
  SmallVector<CallBase *, 4> R;
  for (Function &F : M)
    if (F.isDeclaration() && F.getName() == Name)
      for (User *U : F.users())
        if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == &F)
          R.push_back(CB);
  return R;
}

static void replaceCall(CallBase *CB, Value *V) {
  if (!CB->getType()->isVoidTy())
    CB->replaceAllUsesWith(V ? V : PoisonValue::get(CB->getType()));
  if (auto *II = dyn_cast<InvokeInst>(CB))
    BranchInst::Create(II->getNormalDest(), II->getIterator());
  CB->eraseFromParent();
}

bool lowerContexts(Module &M) {
  unsigned Next = 1;
  for (GlobalVariable &G : M.globals())
    if (MDNode *MD = G.getMetadata(MDContext))
      Next = std::max<unsigned>(Next, mdconst::extract<ConstantInt>(MD->getOperand(0))->getZExtValue() + 1);
  SmallVector<CallBase *, 4> Calls = callsOf(M, "__enzyme_context");
  for (CallBase *CB : Calls) {
    auto *W = CB->arg_size() == 1 ? dyn_cast<ConstantInt>(CB->getArgOperand(0)) : nullptr;
    if (!W || W->isZero() || W->getZExtValue() > 64) {
      reportError(CB->getFunction(), CB, "__enzyme_context takes the vector width, a constant between 1 and 64",
                  "write void *ctx = __enzyme_context(1);");
      replaceCall(CB, nullptr);
      continue;
    }
    // The descriptor holds the width, so the context is a valid, distinct pointer at run time too.
    auto *I32 = Type::getInt32Ty(M.getContext());
    auto *G = new GlobalVariable(M, I32, true, GlobalValue::InternalLinkage,
                                 ConstantInt::get(I32, W->getZExtValue()), "synthase.context." + Twine(Next));
    G->setMetadata(MDContext, MDNode::get(M.getContext(), {ConstantAsMetadata::get(ConstantInt::get(I32, Next)),
                                                           ConstantAsMetadata::get(W)}));
    ++Next;
    replaceCall(CB, G);
  }
  return !Calls.empty();
}

GlobalVariable *contextOf(Value *V) {
  V = throughSpilledLocal(V);
  auto *G = dyn_cast_or_null<GlobalVariable>(V);
  return G && G->getMetadata(MDContext) ? G : nullptr;
}

unsigned contextSet(const GlobalVariable *Ctx) {
  return mdconst::extract<ConstantInt>(Ctx->getMetadata(MDContext)->getOperand(0))->getZExtValue();
}
unsigned contextWidth(const GlobalVariable *Ctx) {
  return mdconst::extract<ConstantInt>(Ctx->getMetadata(MDContext)->getOperand(1))->getZExtValue();
}

static const char *ContextHint = "create the context with void *ctx = __enzyme_context(width); in the "
                                 "function that uses it and pass that variable directly: Synthase "
                                 "resolves contexts at compile time";

/// Shadows reachable from SG's pointers become the user's too: the user reaches them through it.
static void markUserShadows(Engine &E, Constant *C, SmallPtrSetImpl<Constant *> &Seen) {
  if (!Seen.insert(C).second)
    return;
  if (auto *SG = dyn_cast<GlobalVariable>(C)) {
    E.markUserShadow(SG);
    if (SG->hasInitializer())
      markUserShadows(E, SG->getInitializer(), Seen);
    return;
  }
  for (Use &U : C->operands())
    if (auto *Op = dyn_cast<Constant>(U.get()))
      markUserShadows(E, Op, Seen);
}

static Value *shadowQuery(CallBase *CB, Engine &E) {
  auto fail = [&](const Twine &Msg, const Twine &Hint) -> Value * {
    reportError(CB->getFunction(), CB, "__enzyme_shadow: " + Msg, Hint);
    return nullptr;
  };
  if (CB->arg_size() != 3)
    return fail("expects (ctx, &global, lane) or (&global, width, lane)",
                "write __enzyme_shadow(ctx, &g, 0) or __enzyme_shadow(&g, 1, 0)");
  bool WithCtx = CB->getArgOperand(1)->getType()->isPointerTy();
  unsigned Set = 0, Width;
  if (WithCtx) {
    GlobalVariable *Ctx = contextOf(CB->getArgOperand(0));
    if (!Ctx)
      return fail("the context is not one known at compile time", ContextHint);
    Set = contextSet(Ctx);
    Width = contextWidth(Ctx);
  } else {
    auto *W = dyn_cast<ConstantInt>(CB->getArgOperand(1));
    if (!W || W->isZero() || W->getZExtValue() > 64)
      return fail("the width must be a constant between 1 and 64", "write __enzyme_shadow(&g, 1, 0)");
    Width = W->getZExtValue();
  }
  auto *Lane = dyn_cast<ConstantInt>(CB->getArgOperand(2));
  if (!Lane || Lane->getZExtValue() >= Width)
    return fail("the lane must be a constant below the width (" + Twine(Width) + ")",
                "lanes count from 0");
  auto *Addr = dyn_cast<Constant>(CB->getArgOperand(WithCtx ? 1 : 0)->stripPointerCasts());
  auto *G = Addr ? dyn_cast<GlobalVariable>(Addr->stripInBoundsConstantOffsets()) : nullptr;
  if (!G)
    return fail("the address is not that of a global variable (or of a field of one) known at compile time",
                "pass &g or &g.field of a global g");
  E.selectShadowSet(Set);
  Constant *S = E.shadowConstant(Addr, Lane->getZExtValue());
  if (S) {
    SmallPtrSet<Constant *, 8> Seen;
    GlobalVariable *SG = E.shadowGlobal(G, Lane->getZExtValue());
    markUserShadows(E, SG, Seen);
    // A heap block's shadow is made at run time: the pointer the user reads must be current.
    IRBuilder<> B(CB);
    E.syncHeapShadow(B, SG, /*Zero=*/false);
  }
  E.selectShadowSet(0);
  if (S)
    return S;
  if (G->isConstant())
    return fail("'" + G->getName() + "' is constant, so it has no shadow", "a constant carries no derivative");
  return fail("'" + G->getName() + "' has no shadow Synthase can follow: it holds no floating-point data, and "
              "a pointer in it is set at run time to something other than a whole heap block from "
              "malloc/calloc/aligned_alloc/new (e.g. a pointer into a block, or to a local), or points "
              "outside the module's globals",
              "store the allocator's result itself in the global, pass the memory to the derivative as "
              "enzyme_dup arguments, or initialise the pointer with the address of another global");
}

bool lowerShadowQueries(Module &M, Engine &E) {
  SmallVector<CallBase *, 4> Calls = callsOf(M, "__enzyme_shadow");
  for (CallBase *CB : Calls)
    replaceCall(CB, shadowQuery(CB, E));
  return !Calls.empty();
}

bool lowerZeroShadows(Module &M, Engine &E) {
  SmallVector<CallBase *, 4> Calls = callsOf(M, "__enzyme_zero_shadows");
  for (CallBase *CB : Calls) {
    GlobalVariable *Ctx = CB->arg_size() == 1 ? contextOf(CB->getArgOperand(0)) : nullptr;
    if (!Ctx) {
      reportError(CB->getFunction(), CB, "__enzyme_zero_shadows: the context is not one known at compile time",
                  ContextHint);
    } else {
      IRBuilder<> B(CB);
      for (GlobalVariable *SG : E.shadowsOfSet(contextSet(Ctx)))
        E.resetShadow(B, SG);
    }
    replaceCall(CB, nullptr);
  }
  return !Calls.empty();
}

} // namespace synthase

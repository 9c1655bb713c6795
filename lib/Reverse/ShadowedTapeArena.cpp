// The shadowed tape arena: where the inner tape of a forward-over-reverse derivative (a Hessian-
// vector product) lives between calls. The inner gradient's tape is ordinary memory of the
// function being differentiated, so the tangent has a shadow of it as large as the tape. Without
// an arena both were regrown from the frame buffer and freed on every call, and each call faulted
// fresh pages for both (k-means, medium: 160,000 minor faults, HVP 19x the gradient).
//
// The arena holds a buffer pair, primal and shadow, of one capacity: { ptr buffer, i64 capacity,
// i64 release registered, ptr shadow, ptr pending shadow }. In the clone that a width-1 forward
// derivative reads, each lowered reverse call site's take and give-back go to the helpers below;
// the tangent generator gives each one its shadow half (emitShadowedTapeTangent). Every other
// clone (reverse mode, vector forward mode, and the outer level of a deeper nest, which would
// need a shadow of the shadow) privatizes both arenas: the inner tape then starts in its frame
// buffer and is freed at the end, shadowed like any local memory.
#include "Reverse/RelocationLog.h"
#include "Reverse/Tape.h"
#include "Reverse/TapeArenaRuntime.h"
#include "Reverse/ShadowCache.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace synthase {

static constexpr const char *PlainArenaName = "__synthase_tape_arena_v1";
static constexpr const char *PlainTakeName = "__synthase_tape_take_v1";
static constexpr const char *PlainPutName = "__synthase_tape_put_v1";
static constexpr const char *ArenaName = "__synthase_tape_shadowed_arena_v1";
static constexpr const char *CapName = "__synthase_tape_shadowed_cap_v1";
static constexpr const char *TakeName = "__synthase_tape_shadowed_take_v1";
static constexpr const char *TakeShadowName = "__synthase_tape_shadowed_take_shadow_v1";
static constexpr const char *PutShadowName = "__synthase_tape_shadowed_put_shadow_v1";
static constexpr const char *PutName = "__synthase_tape_shadowed_put_v1";
static constexpr const char *AtExitName = "__synthase_tape_shadowed_at_thread_exit_v1";

enum Field { Buf, Cap, Registered, Shadow, Pending };

static StructType *arenaType(LLVMContext &C) {
  Type *P = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  return StructType::get(C, {P, I64, I64, P, P});
}

static Value *field(Module &M, IRBuilder<> &B, Field K) {
  StructType *T = arenaType(M.getContext());
  return B.CreateStructGEP(T, B.CreateThreadLocalAddress(tapeArenaGlobal(M, ArenaName, T)), K);
}

/// Frees both buffers and leaves the arena empty.
static void emitRelease(Module &M, IRBuilder<> &B) {
  for (Field K : {Buf, Shadow}) {
    Value *P = field(M, B, K);
    Value *Old = B.CreateLoad(B.getPtrTy(), P);
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), P);
    B.CreateCall(tapeFreeFn(M), {Old});
  }
  B.CreateStore(B.getInt64(0), field(M, B, Cap));
}

static Function *atThreadExit(Module &M) {
  LLVMContext &C = M.getContext();
  auto *FT = FunctionType::get(Type::getVoidTy(C), {PointerType::getUnqual(C)}, false);
  return tapeRuntimeHelper(M, AtExitName, FT, [&](IRBuilder<> &B, Function *) {
    B.CreateStore(B.getInt64(0), field(M, B, Registered)); // a later destructor may register again
    emitRelease(M, B);
    B.CreateRetVoid();
  });
}

/// A helper that moves one pointer out of the arena (take, take_shadow): returns it, leaves null.
static Function *takeFn(Module &M, StringRef Name, Field K) {
  LLVMContext &C = M.getContext();
  Function *F = tapeRuntimeHelper(M, Name, FunctionType::get(PointerType::getUnqual(C), false),
                                  [&](IRBuilder<> &B, Function *) {
                                    Value *P = field(M, B, K);
                                    Value *V = B.CreateLoad(B.getPtrTy(), P);
                                    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), P);
                                    if (K == Buf)
                                      B.CreateStore(B.getInt64(0), field(M, B, Cap));
                                    B.CreateRet(V);
                                  });
  F->addRetAttr(Attribute::NoAlias); // nothing else points to a buffer once it is taken
  return F;
}

static Function *capFn(Module &M) {
  return tapeRuntimeHelper(M, CapName, FunctionType::get(Type::getInt64Ty(M.getContext()), false),
                           [&](IRBuilder<> &B, Function *) {
                             B.CreateRet(B.CreateLoad(B.getInt64Ty(), field(M, B, Cap)));
                           });
}

/// `put_shadow(shadow)` runs right before `put(buffer, capacity)`, which decides for both.
static Function *putShadowFn(Module &M) {
  LLVMContext &C = M.getContext();
  auto *FT = FunctionType::get(Type::getVoidTy(C), {PointerType::getUnqual(C)}, false);
  return tapeRuntimeHelper(M, PutShadowName, FT, [&](IRBuilder<> &B, Function *F) {
    B.CreateStore(F->getArg(0), field(M, B, Pending));
    B.CreateRetVoid();
  });
}

/// Keeps the pair if it is larger than what the arena holds (a pair a re-entrant call gave back
/// meanwhile) and has a shadow, frees the other pair, and registers the thread-exit release the
/// first time. The arena so only ever holds whole pairs.
static Function *putFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *PtrTy = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  auto *FT = FunctionType::get(Type::getVoidTy(C), {PtrTy, I64}, false);
  return tapeRuntimeHelper(M, PutName, FT, [&](IRBuilder<> &B, Function *F) {
    Value *PendP = field(M, B, Pending), *BufP = field(M, B, Buf), *CapP = field(M, B, Cap);
    Value *ShP = field(M, B, Shadow);
    Value *Sh = B.CreateLoad(PtrTy, PendP);
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), PendP);
    Value *CurBuf = B.CreateLoad(PtrTy, BufP), *CurSh = B.CreateLoad(PtrTy, ShP), *CurCap = B.CreateLoad(I64, CapP);
    Value *Keep = B.CreateAnd(B.CreateICmpUGT(F->getArg(1), CurCap), B.CreateIsNotNull(Sh));
    B.CreateStore(B.CreateSelect(Keep, F->getArg(0), CurBuf), BufP);
    B.CreateStore(B.CreateSelect(Keep, Sh, CurSh), ShP);
    B.CreateStore(B.CreateSelect(Keep, F->getArg(1), CurCap), CapP);
    B.CreateCall(tapeFreeFn(M), {B.CreateSelect(Keep, CurBuf, F->getArg(0))});
    B.CreateCall(tapeFreeFn(M), {B.CreateSelect(Keep, CurSh, Sh)});
    emitRegisterThreadExit(M, B, F, field(M, B, Registered), [&] { return atThreadExit(M); });
    B.CreateRetVoid();
  });
}

bool isShadowedTapeTake(const Function *F) { return F && F->getName() == TakeName; }

void emitShadowedTapeRelease(Module &M, IRBuilder<> &B) { emitRelease(M, B); }

Value *emitShadowedTapeTangent(CallBase *Primal, Value *BufShadow) {
  Function *F = Primal->getCalledFunction();
  Module &M = *Primal->getModule();
  if (F->getName() == TakeName) {
    IRBuilder<> B(Primal->getNextNode());
    return B.CreateCall(takeFn(M, TakeShadowName, Shadow), {}, "tape.cached.shadow");
  }
  if (F->getName() == PutName) {
    IRBuilder<> B(Primal);
    // Without a shadow (none reached the give-back) the put frees the buffer instead of keeping it.
    B.CreateCall(putShadowFn(M), {BufShadow ? BufShadow : ConstantPointerNull::get(B.getPtrTy())});
  }
  return nullptr;
}

/// Where a use of the plain arena's address reads or writes it, as a byte offset; or nothing
/// when it is not a plain load or store (an optimized call site): the caller then privatizes.
static bool collectArenaAccesses(Value *Addr, uint64_t Off, const DataLayout &DL,
                                 SmallVectorImpl<std::pair<Instruction *, uint64_t>> &Out) {
  for (User *U : Addr->users()) {
    if (auto *GEP = dyn_cast<GEPOperator>(U)) {
      APInt O(64, 0);
      if (GEP->getPointerOperand() != Addr || !isa<Instruction>(GEP) || !GEP->accumulateConstantOffset(DL, O) ||
          !collectArenaAccesses(GEP, Off + O.getZExtValue(), DL, Out))
        return false;
      Out.push_back({cast<Instruction>(GEP), ~0ull});
    } else if (auto *LI = dyn_cast<LoadInst>(U)) {
      Out.push_back({LI, Off});
    } else if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getPointerOperand() == Addr) {
      Out.push_back({SI, Off});
    } else {
      return false;
    }
  }
  return true;
}

/// The plain arena's sites become the shadowed arena's: its capacity through `cap()`, the take and
/// put through the shadowed helpers, and the inline give-back (two stores when nothing was given
/// back meanwhile) always through `put`, which the tangent can pair with the shadow's. Returns
/// false, changing nothing, when a site does not have the shape Lowering gives it.
static bool toShadowedArena(Function &F, ArrayRef<CallInst *> Arenas, ArrayRef<CallInst *> Takes,
                            ArrayRef<CallInst *> Puts) {
  Module &M = *F.getParent();
  const DataLayout &DL = M.getDataLayout();
  SmallVector<std::pair<Instruction *, uint64_t>, 16> Acc;
  for (CallInst *A : Arenas)
    if (!collectArenaAccesses(A, 0, DL, Acc))
      return false;
  // Offsets of the plain arena { ptr buffer, i64 capacity, i64 registered }.
  for (auto &[I, Off] : Acc) {
    if (auto *LI = dyn_cast<LoadInst>(I)) {
      if (Off == 8 && LI->getType()->isIntegerTy(64))
        continue;
      if (Off != 0 || !LI->getType()->isPointerTy())
        return false;
      for (User *U : LI->users()) {
        auto *Cmp = dyn_cast<ICmpInst>(U);
        if (!Cmp || !Cmp->isEquality() || !isa<ConstantPointerNull>(Cmp->getOperand(1)))
          return false;
      }
    } else if (auto *SI = dyn_cast<StoreInst>(I); SI && Off != 0 && Off != 8) {
      return false;
    }
  }
  Function *CapF = capFn(M), *TakeF = takeFn(M, TakeName, Buf), *PutF = putFn(M);
  for (auto &[I, Off] : Acc) {
    if (auto *LI = dyn_cast<LoadInst>(I)) {
      if (Off == 8) {
        LI->replaceAllUsesWith(CallInst::Create(CapF, "tape.cached.cap", LI->getIterator()));
      } else {
        // "Was a buffer given back meanwhile?": say yes, so that the give-back takes the way
        // through `put`, never the two inline stores.
        for (User *U : make_early_inc_range(LI->users())) {
          auto *Cmp = cast<ICmpInst>(U);
          Cmp->replaceAllUsesWith(ConstantInt::getBool(F.getContext(), Cmp->getPredicate() == ICmpInst::ICMP_NE));
          Cmp->eraseFromParent();
        }
      }
    }
  }
  for (auto &[I, Off] : Acc) // users first: GEPs were collected after their users
    if (!isa<GetElementPtrInst>(I))
      I->eraseFromParent();
  for (auto &[I, Off] : Acc)
    if (isa<GetElementPtrInst>(I))
      I->eraseFromParent();
  for (CallInst *A : Arenas)
    A->eraseFromParent();
  for (CallInst *CI : Takes)
    CI->setCalledFunction(TakeF);
  for (CallInst *CI : Puts)
    CI->setCalledFunction(PutF);
  return true;
}

bool prepareTapeArenas(Function &F, bool Shadowed) {
  Module &M = *F.getParent();
  privatizeShadowCache(F); // the same in either clone
  privatizeRelocationLog(F);
  GlobalVariable *A = M.getNamedGlobal(PlainArenaName);
  Function *Take = M.getFunction(PlainTakeName), *Put = M.getFunction(PlainPutName);
  SmallVector<CallInst *, 4> Arenas, Takes, Puts, Inner;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      Function *G = CI->getCalledFunction();
      if (A && CI->getIntrinsicID() == Intrinsic::threadlocal_address && CI->getArgOperand(0) == A)
        Arenas.push_back(CI);
      else if (G && G == Take)
        Takes.push_back(CI);
      else if (G && G == Put)
        Puts.push_back(CI);
      else if (G && G->hasFnAttribute(TapeRuntimeAttr) && G->getName().starts_with("__synthase_tape_shadowed_"))
        Inner.push_back(CI);
    }
  // A forward-over-reverse derivative inside this function: its pair would need shadows of its
  // own here, so its tapes start in their frame buffers (take: null) and are freed at the end.
  for (CallInst *CI : Inner) {
    StringRef N = CI->getCalledFunction()->getName();
    if (N == PutName || N == PutShadowName)
      CallInst::Create(tapeFreeFn(M), {CI->getArgOperand(0)}, "", CI->getIterator());
    if (!CI->getType()->isVoidTy())
      CI->replaceAllUsesWith(Constant::getNullValue(CI->getType()));
    CI->eraseFromParent();
  }
  if (Arenas.empty() && Takes.empty() && Puts.empty())
    return !Inner.empty();
  if (!Shadowed || !toShadowedArena(F, Arenas, Takes, Puts))
    privatizeTapeArena(F);
  return true;
}

} // namespace synthase

// Where the tape's memory lives between gradient calls: a per-thread arena that every module of
// the program shares. A gradient called in a loop takes the buffer the previous call gave back, so
// after the first call it neither calls the allocator nor touches fresh pages for its tape.
//
// The arena and its helpers are linkonce_odr under reserved names: each translation unit (and each
// LTO module) that needs them carries a copy, and the linker keeps one, so every module of the
// program uses the same per-thread buffer. The arena is empty while a call uses its buffer: a
// derivative called while another one is running (nested AD, or code run by a forward sweep)
// starts from its own inline buffer and gives back whatever it grew, the larger buffer is kept.
#include "Reverse/Tape.h"
#include "Reverse/TapeArenaRuntime.h"
#include "Reverse/ShadowCache.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

namespace synthase {

// Versioned, so that modules built by a plugin with another layout never share a definition.
static constexpr const char *ArenaName = "__synthase_tape_arena_v1";
static constexpr const char *TakeName = "__synthase_tape_take_v1";
static constexpr const char *PutName = "__synthase_tape_put_v1";
static constexpr const char *AtExitName = "__synthase_tape_at_thread_exit_v1";

/// { ptr buffer, i64 capacity, i64 thread-exit release registered }
static StructType *arenaType(LLVMContext &C) {
  return StructType::get(C, {PointerType::getUnqual(C), Type::getInt64Ty(C), Type::getInt64Ty(C)});
}

void shareTapeRuntime(Module &M, GlobalObject *GO) {
  GO->setLinkage(GlobalValue::LinkOnceODRLinkage);
  if (Triple(M.getTargetTriple()).supportsCOMDAT())
    GO->setComdat(M.getOrInsertComdat(GO->getName()));
}

GlobalVariable *tapeArenaGlobal(Module &M, StringRef Name, StructType *T) {
  GlobalVariable *Old = M.getNamedGlobal(Name);
  if (Old && !Old->isDeclaration())
    return Old;
  auto *G = new GlobalVariable(M, T, false, GlobalValue::LinkOnceODRLinkage, Constant::getNullValue(T),
                               Name, nullptr, GlobalValue::GeneralDynamicTLSModel);
  G->setAlignment(Align(8));
  // A module may declare it (with its own struct type) to look at it, as the tests do.
  if (Old) {
    G->takeName(Old);
    Old->replaceAllUsesWith(G);
    Old->eraseFromParent();
  }
  shareTapeRuntime(M, G);
  return G;
}

static GlobalVariable *arena(Module &M) { return tapeArenaGlobal(M, ArenaName, arenaType(M.getContext())); }

FunctionCallee tapeFreeFn(Module &M) {
  LLVMContext &C = M.getContext();
  return M.getOrInsertFunction("free", Type::getVoidTy(C), PointerType::getUnqual(C));
}

Function *tapeRuntimeHelper(Module &M, StringRef Name, FunctionType *FT,
                            function_ref<void(IRBuilder<> &, Function *)> Body) {
  Function *F = M.getFunction(Name);
  if (F && (!F->isDeclaration() || F->getFunctionType() != FT))
    return F;
  if (!F)
    F = Function::Create(FT, GlobalValue::ExternalLinkage, Name, M);
  shareTapeRuntime(M, F);
  F->addFnAttr(TapeRuntimeAttr);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::NoInline); // cold, and one copy per program keeps code small
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
  Body(B, F);
  return F;
}

/// Frees the arena's buffer and leaves the arena empty.
static void emitRelease(Module &M, IRBuilder<> &B, Value *A) {
  StructType *T = arenaType(M.getContext());
  Value *BaseP = B.CreateStructGEP(T, A, 0);
  Value *Buf = B.CreateLoad(B.getPtrTy(), BaseP);
  B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), BaseP);
  B.CreateStore(B.getInt64(0), B.CreateStructGEP(T, A, 1));
  B.CreateCall(tapeFreeFn(M), {Buf});
}

/// Runs at thread exit (glibc's thread-local destructors; for the main thread, inside exit()).
static Function *atThreadExit(Module &M) {
  LLVMContext &C = M.getContext();
  auto *FT = FunctionType::get(Type::getVoidTy(C), {PointerType::getUnqual(C)}, false);
  return tapeRuntimeHelper(M, AtExitName, FT, [&](IRBuilder<> &B, Function *) {
    Value *A = B.CreateThreadLocalAddress(arena(M));
    // A destructor that runs later and calls a gradient registers the release again; glibc runs
    // destructors registered while it is running them.
    B.CreateStore(B.getInt64(0), B.CreateStructGEP(arenaType(C), A, 2));
    emitRelease(M, B, A);
    B.CreateRetVoid();
  });
}

/// `put(buffer, capacity)`: the slow way of giving a heap buffer back. Keeps the larger of it and
/// whatever the arena holds (a buffer a nested call gave back meanwhile), frees the other, and
/// registers the thread-exit release the first time this thread keeps a buffer.
static Function *putFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *PtrTy = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  auto *FT = FunctionType::get(Type::getVoidTy(C), {PtrTy, I64}, false);
  return tapeRuntimeHelper(M, PutName, FT, [&](IRBuilder<> &B, Function *F) {
    F->addFnAttr(Attribute::Cold);
    StructType *T = arenaType(C);
    Value *A = B.CreateThreadLocalAddress(arena(M));
    Value *BaseP = B.CreateStructGEP(T, A, 0), *CapP = B.CreateStructGEP(T, A, 1);
    Value *Cur = B.CreateLoad(PtrTy, BaseP), *CurCap = B.CreateLoad(I64, CapP);
    Value *Larger = B.CreateICmpUGT(F->getArg(1), CurCap);
    B.CreateStore(B.CreateSelect(Larger, F->getArg(0), Cur), BaseP);
    B.CreateStore(B.CreateSelect(Larger, F->getArg(1), CurCap), CapP);
    B.CreateCall(tapeFreeFn(M), {B.CreateSelect(Larger, Cur, F->getArg(0))});
    emitRegisterThreadExit(M, B, F, B.CreateStructGEP(T, A, 2), [&] { return atThreadExit(M); });
    B.CreateRetVoid();
  });
}

void emitRegisterThreadExit(Module &M, IRBuilder<> &B, Function *F, Value *RegP, function_ref<Function *()> AtExit) {
  LLVMContext &C = M.getContext();
  Type *PtrTy = PointerType::getUnqual(C), *I64 = Type::getInt64Ty(C);
  BasicBlock *Reg = BasicBlock::Create(C, "register", F), *Done = BasicBlock::Create(C, "done", F);
  B.CreateCondBr(B.CreateICmpEQ(B.CreateLoad(I64, RegP), B.getInt64(0)), Reg, Done);
  B.SetInsertPoint(Reg);
  B.CreateStore(B.getInt64(1), RegP);
  // glibc's hook behind C++ thread_local destructors (Rust's std uses it too). Weak: on a C
  // library without it the buffer is simply not released at thread exit.
  Function *Hook = M.getFunction("__cxa_thread_atexit_impl");
  if (!Hook) {
    Hook = Function::Create(FunctionType::get(B.getInt32Ty(), {PtrTy, PtrTy, PtrTy}, false),
                            GlobalValue::ExternalWeakLinkage, "__cxa_thread_atexit_impl", M);
  }
  // The handle names the DSO whose code runs at exit, so dlclose waits for it; crtbegin defines
  // it in every executable and shared object (weak: null means the main program to glibc).
  GlobalVariable *Dso = M.getNamedGlobal("__dso_handle");
  if (!Dso) {
    Dso = new GlobalVariable(M, B.getInt8Ty(), false, GlobalValue::ExternalWeakLinkage, nullptr, "__dso_handle");
    Dso->setVisibility(GlobalValue::HiddenVisibility);
  }
  BasicBlock *Call = BasicBlock::Create(C, "hook", F);
  B.CreateCondBr(B.CreateIsNotNull(Hook), Call, Done);
  B.SetInsertPoint(Call);
  B.CreateCall(Hook->getFunctionType(), Hook, {AtExit(), ConstantPointerNull::get(B.getPtrTy()), Dso});
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

/// `take()`: the cached buffer (or null), leaving the arena empty while it is in use, so that a
/// derivative that runs meanwhile does not get the same buffer. Once it returns, nothing else
/// points to the buffer, which is what `noalias` on a result promises: like a fresh allocation
/// (as the frame buffer and realloc's result are), the tape is known not to alias the user's
/// memory, and the sweeps optimize as well as with a tape of their own.
static Function *takeFn(Module &M) {
  LLVMContext &C = M.getContext();
  auto *FT = FunctionType::get(PointerType::getUnqual(C), false);
  Function *F = tapeRuntimeHelper(M, TakeName, FT, [&](IRBuilder<> &B, Function *) {
    StructType *T = arenaType(C);
    Value *A = B.CreateThreadLocalAddress(arena(M));
    Value *BaseP = B.CreateStructGEP(T, A, 0);
    Value *Buf = B.CreateLoad(B.getPtrTy(), BaseP);
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), BaseP);
    B.CreateStore(B.getInt64(0), B.CreateStructGEP(T, A, 1));
    B.CreateRet(Buf);
  });
  F->addRetAttr(Attribute::NoAlias);
  return F;
}

TapeLease emitTakeTapeBuffer(Module &M, IRBuilder<> &B, Value *InlineBuf) {
  StructType *T = arenaType(M.getContext());
  TapeLease L;
  L.Arena = B.CreateThreadLocalAddress(arena(M));
  Value *Cap = B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(T, L.Arena, 1), "tape.cached.cap");
  Value *Buf = B.CreateCall(takeFn(M), {}, "tape.cached");
  L.TookHeap = B.CreateIsNotNull(Buf, "tape.reused");
  L.Base = B.CreateSelect(L.TookHeap, Buf, InlineBuf);
  L.Cap = B.CreateSelect(L.TookHeap, Cap, B.getInt64(InlineTapeBytes));
  return L;
}

void emitGiveBackTapeBuffer(Engine &E, Instruction *Before, Value *Tape, const TapeLease &L) {
  Module &M = E.module();
  StructType *TT = E.tapeType(), *T = arenaType(M.getContext());
  IRBuilder<> B(Before);
  Value *Buf = B.CreateLoad(B.getPtrTy(), B.CreateStructGEP(TT, Tape, 0));
  Value *Cap = B.CreateLoad(B.getInt64Ty(), B.CreateStructGEP(TT, Tape, 2));
  Value *BaseP = B.CreateStructGEP(T, L.Arena, 0);
  // The common case: this call took the cached buffer (so this thread's release is registered)
  // and nothing was given back while it ran: put the buffer, perhaps grown, back as it is.
  Value *Fast = B.CreateAnd(L.TookHeap, B.CreateIsNull(B.CreateLoad(B.getPtrTy(), BaseP)));
  MDBuilder MDB(M.getContext());
  Instruction *ThenT, *ElseT;
  SplitBlockAndInsertIfThenElse(Fast, Before, &ThenT, &ElseT, MDB.createLikelyBranchWeights());
  B.SetInsertPoint(ThenT);
  B.CreateStore(Buf, BaseP);
  B.CreateStore(Cap, B.CreateStructGEP(T, L.Arena, 1));
  // Otherwise only a heap buffer goes back (the inline one dies with the frame).
  B.SetInsertPoint(ElseT);
  Instruction *Put = SplitBlockAndInsertIfThen(B.CreateICmpUGT(Cap, B.getInt64(InlineTapeBytes)), ElseT, false,
                                               MDB.createUnlikelyBranchWeights());
  B.SetInsertPoint(Put);
  B.CreateCall(putFn(M), {Buf, Cap});
}

/// A personality for the function: its own, or else any in the module (Rust's std brings
/// rust_eh_personality; C++ the C++ one, which runs cleanups for foreign exceptions too).
static Constant *findPersonality(Function *F) {
  if (F->hasPersonalityFn())
    return F->getPersonalityFn();
  for (Function &G : *F->getParent())
    if (G.hasPersonalityFn())
      return G.getPersonalityFn();
  return nullptr;
}

bool emitGiveBackOnUnwind(Engine &E, CallBase *Entry, MutableArrayRef<CallBase *> Calls, Value *Tape,
                          const TapeLease &L) {
  SmallVector<CallBase **, 2> Unwinding;
  for (CallBase *&CI : Calls)
    if (Function *G = CI->getCalledFunction(); G && !G->doesNotThrow() && isa<CallInst>(CI))
      Unwinding.push_back(&CI);
  Function *F = Entry->getFunction();
  auto *II = dyn_cast<InvokeInst>(Entry);
  LandingPadInst *OrigLP = II ? II->getLandingPadInst() : nullptr;
  Constant *Personality = findPersonality(F);
  if (Unwinding.empty() || (II && !OrigLP) || !Personality) // funclet EH: not handled
    return false;
  F->setPersonalityFn(Personality);
  LLVMContext &C = F->getContext();
  Type *LPTy = OrigLP ? OrigLP->getType()
                      : StructType::get(C, {PointerType::getUnqual(C), Type::getInt32Ty(C)});
  BasicBlock *Pad = BasicBlock::Create(C, "synthase.tape.unwind", F);
  IRBuilder<> B(Pad);
  LandingPadInst *LP = B.CreateLandingPad(LPTy, OrigLP ? OrigLP->getNumClauses() : 0);
  // Always stop here; the entry's own clauses keep catching what they caught.
  LP->setCleanup(true);
  if (OrigLP)
    for (unsigned I = 0; I < OrigLP->getNumClauses(); ++I)
      LP->addClause(OrigLP->getClause(I));
  BasicBlock *UD = II ? II->getUnwindDest() : nullptr, *Cont = nullptr;
  // For the entry's landing pad: its block is split after the `landingpad`, and the values it
  // defines reach the rest through phis that the cleanup pad joins (as LLVM's inliner joins
  // landing pads). Each phi and what it takes from the pad.
  SmallVector<std::pair<PHINode *, Value *>, 4> Joins;
  Instruction *End;
  if (UD) {
    Cont = UD->splitBasicBlock(OrigLP->getNextNode(), "synthase.lpad.cont");
    IRBuilder<> CB(Cont, Cont->begin());
    SmallVector<Instruction *, 4> Defs{OrigLP};
    for (PHINode &P : UD->phis())
      Defs.push_back(&P);
    for (Instruction *D : Defs) {
      PHINode *NP = CB.CreatePHI(D->getType(), 2);
      D->replaceUsesOutsideBlock(NP, UD);
      NP->addIncoming(D, UD);
      Joins.push_back({NP, D == OrigLP ? (Value *)LP : cast<PHINode>(D)->getIncomingValueForBlock(II->getParent())});
    }
    End = B.CreateBr(Cont);
  } else {
    End = B.CreateResume(LP);
  }
  emitGiveBackTapeBuffer(E, End, Tape, L);
  for (auto &[NP, V] : Joins)
    NP->addIncoming(V, End->getParent()); // the give-back split the pad
  for (CallBase **CI : Unwinding) {
    BasicBlock *BB = (*CI)->getParent();
    changeToInvokeAndSplitBasicBlock(cast<CallInst>(*CI), Pad);
    *CI = cast<InvokeInst>(BB->getTerminator());
  }
  return true;
}

/// The tape argument (the last) of a sweep is used for more than handing it to generated callees
/// that ignore it too.
static bool touchesTape(Engine &E, Function *F, SmallPtrSetImpl<Function *> &Seen) {
  if (!F || F->arg_empty() || !Seen.insert(F).second)
    return false;
  for (Use &U : F->getArg(F->arg_size() - 1)->uses()) {
    auto *CB = dyn_cast<CallBase>(U.getUser());
    Function *G = CB ? CB->getCalledFunction() : nullptr;
    if (!G || !E.generated().count(G) || !CB->isArgOperand(&U) ||
        CB->getArgOperandNo(&U) != G->arg_size() - 1 || touchesTape(E, G, Seen))
      return true;
  }
  return false;
}

bool sweepsUseTape(Engine &E, const GradientPair &GP) {
  SmallPtrSet<Function *, 8> Seen;
  return touchesTape(E, GP.Augmented, Seen) || touchesTape(E, GP.Reverse, Seen);
}

void privatizeTapeArena(Function &F) {
  Module &M = *F.getParent();
  GlobalVariable *A = M.getNamedGlobal(ArenaName);
  Function *Put = M.getFunction(PutName), *Take = M.getFunction(TakeName);
  SmallVector<CallInst *, 4> Arenas, Puts, Takes;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (A && CI->getIntrinsicID() == Intrinsic::threadlocal_address && CI->getArgOperand(0) == A)
        Arenas.push_back(CI);
      else if (Put && CI->getCalledFunction() == Put)
        Puts.push_back(CI);
      else if (Take && CI->getCalledFunction() == Take)
        Takes.push_back(CI);
    }
  for (CallInst *CI : Takes) {
    CI->replaceAllUsesWith(ConstantPointerNull::get(PointerType::getUnqual(M.getContext())));
    CI->eraseFromParent();
  }
  if (!Arenas.empty()) {
    StructType *T = arenaType(M.getContext());
    IRBuilder<> EB(&*F.getEntryBlock().getFirstInsertionPt());
    AllocaInst *Local = EB.CreateAlloca(T, nullptr, "tape.arena.local");
    EB.CreateStore(Constant::getNullValue(T), Local);
    for (CallInst *CI : Arenas) {
      CI->replaceAllUsesWith(Local);
      CI->eraseFromParent();
    }
  }
  for (CallInst *CI : Puts) {
    IRBuilder<> B(CI);
    B.CreateCall(tapeFreeFn(M), {CI->getArgOperand(0)});
    CI->eraseFromParent();
  }
}

bool defineTapeRelease(Module &M) {
  Function *F = M.getFunction(TapeReleaseName);
  if (!F || !F->isDeclaration() || !F->getReturnType()->isVoidTy() || F->arg_size() != 0)
    return false;
  F->setMetadata(LLVMContext::MD_dbg, nullptr); // -g: the declaration's subprogram is not a definition's
  tapeRuntimeHelper(M, TapeReleaseName, F->getFunctionType(), [&](IRBuilder<> &B, Function *) {
    emitRelease(M, B, B.CreateThreadLocalAddress(arena(M)));
    emitShadowedTapeRelease(M, B);
    emitShadowCacheRelease(M, B);
    B.CreateRetVoid();
  });
  // Users call it: inlining is fine.
  F->removeFnAttr(Attribute::NoInline);
  return true;
}

} // namespace synthase

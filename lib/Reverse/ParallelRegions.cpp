// Reverse mode of OpenMP parallel regions. A region is an outlined function that
// `__kmpc_fork_call` runs on every thread of a team; its gradient pair is generated like any
// callee's (Signature::Parallel), and:
// - the forward sweep forks the region's augmented sweep. Each thread records on a tape of its
//   own, found by its thread number in a block of tapes the caller allocates, so no LIFO tape is
//   shared across threads. What a thread did (its static chunk, the chunks a dynamic schedule
//   handed it, its thread number) is on its tape, so the reverse needs no schedule to repeat.
// - the reverse sweep forks the region's reverse sweep on a team of the same size; thread t pops
//   tape t. Adjoints flow into shared shadows with atomic adds (atomicAccumulate); a region's
//   own locals are private to the thread and keep plain adds.
// - barriers and critical sections are mirrored in the reverse region (CallAdjoints.cpp), a
//   reduction takes the atomic path (Rules/OpenMP.cpp) whose adjoint is a broadcast.
#include "Reverse/GradientGen.h"
#include "Rules/OpenMP.h"

namespace synthase {
namespace gradient {

namespace {
/// Bytes per thread in the block of tapes (a cache line: threads never share one). The first
/// line holds the capacity (i32) and the team size the forward region ran with (i32).
constexpr uint64_t SlotBytes = 64;
constexpr uint64_t FirstTapeBytes = 1 << 16;

FunctionCallee runtime(Module &M, StringRef Name, Type *Ret, ArrayRef<Type *> Params) {
  return M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, false));
}

/// The per-thread function the fork runs: finds the thread's tape, calls the region's sweep
/// (Callee takes each captured value followed by its shadows, then the tape), and in the forward
/// sweep starts the tape; in the reverse sweep frees it.
Function *threadFunction(Engine &E, Function *Callee, const Twine &Name, ArrayRef<Type *> Prim,
                         ArrayRef<ArgKind> Acts, unsigned W, bool Reverse) {
  Module &M = E.module();
  LLVMContext &Ctx = M.getContext();
  Type *PtrT = PointerType::getUnqual(Ctx), *I32 = Type::getInt32Ty(Ctx), *I64 = Type::getInt64Ty(Ctx);
  SmallVector<Type *, 12> Params{PtrT, PtrT};
  Params.append(Prim.begin(), Prim.end());
  unsigned NSh = 0;
  for (unsigned K = 0; K < Prim.size(); ++K)
    if (Acts[2 + K] == ArgKind::Dup)
      NSh += W;
  for (unsigned K = 0; K < NSh; ++K)
    Params.push_back(PtrT);
  Params.push_back(PtrT); // the block of tapes
  Function *Fn = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), Params, false), GlobalValue::InternalLinkage,
                                  Name, M);
  Fn->addFnAttr(Attribute::NoUnwind);
  Value *Tapes = Fn->getArg(Fn->arg_size() - 1);
  BasicBlock *Entry = BasicBlock::Create(Ctx, "entry", Fn), *Run = BasicBlock::Create(Ctx, "run", Fn),
             *Bad = BasicBlock::Create(Ctx, "team.mismatch", Fn);
  IRBuilder<> B(Entry);
  Value *Tid = B.CreateCall(runtime(M, "omp_get_thread_num", I32, {}), {}, "tid");
  Value *Cap = B.CreateLoad(I32, Tapes, "tapes.cap");
  Value *Ok = B.CreateICmpULT(Tid, Cap);
  if (Reverse) { // the reverse team must be the forward team: thread t pops what thread t pushed
    Value *Ran = B.CreateLoad(I32, B.CreateConstGEP1_64(B.getInt8Ty(), Tapes, 4), "team.forward");
    Value *Now = B.CreateCall(runtime(M, "omp_get_num_threads", I32, {}), {}, "team.reverse");
    Ok = B.CreateAnd(Ok, B.CreateICmpEQ(Ran, Now));
  }
  B.CreateCondBr(Ok, Run, Bad);
  B.SetInsertPoint(Bad);
  const char *Msg = "synthase: the reverse sweep of an OpenMP parallel region got a team of another size than its "
                    "forward sweep (OMP_DYNAMIC or a thread limit?)\n";
  B.CreateCall(runtime(M, "write", I64, {I32, PtrT, I64}),
               {B.getInt32(2), B.CreateGlobalString(Msg, "synthase.omp.team.msg"), B.getInt64(strlen(Msg))});
  B.CreateCall(runtime(M, "abort", Type::getVoidTy(Ctx), {}));
  B.CreateUnreachable();

  B.SetInsertPoint(Run);
  Value *Off = B.CreateMul(B.CreateZExt(B.CreateAdd(Tid, B.getInt32(1)), I64), B.getInt64(SlotBytes));
  Value *Slot = B.CreateGEP(B.getInt8Ty(), Tapes, Off, "tape");
  StructType *TT = E.tapeType();
  // Each thread keeps its last tape buffer (grown to what the region needed) for the next fork,
  // so a gradient called in a loop neither allocates nor faults fresh pages in the region.
  StructType *CacheTy = StructType::get(PtrT, I64);
  GlobalVariable *Cache = M.getGlobalVariable("synthase.omp.tape.cache", true);
  if (!Cache) {
    Cache = new GlobalVariable(M, CacheTy, false, GlobalValue::InternalLinkage, Constant::getNullValue(CacheTy),
                               "synthase.omp.tape.cache", nullptr, GlobalValue::GeneralDynamicTLSModel);
  }
  Value *CacheP = B.CreateThreadLocalAddress(Cache);
  Value *CacheBase = B.CreateStructGEP(CacheTy, CacheP, 0), *CacheCap = B.CreateStructGEP(CacheTy, CacheP, 1);
  if (!Reverse) {
    Value *Kept = B.CreateLoad(PtrT, CacheBase), *KeptCap = B.CreateLoad(I64, CacheCap);
    BasicBlock *Fresh = BasicBlock::Create(Ctx, "tape.fresh", Fn), *Start = BasicBlock::Create(Ctx, "tape.start", Fn);
    BasicBlock *From = B.GetInsertBlock();
    B.CreateCondBr(B.CreateIsNull(Kept), Fresh, Start);
    B.SetInsertPoint(Fresh);
    Value *Buf = B.CreateCall(runtime(M, "malloc", PtrT, {I64}), {B.getInt64(FirstTapeBytes)});
    B.CreateBr(Start);
    B.SetInsertPoint(Start);
    PHINode *Base = B.CreatePHI(PtrT, 2), *Capacity = B.CreatePHI(I64, 2);
    Base->addIncoming(Kept, From);
    Base->addIncoming(Buf, Fresh);
    Capacity->addIncoming(KeptCap, From);
    Capacity->addIncoming(B.getInt64(FirstTapeBytes), Fresh);
    B.CreateStore(ConstantPointerNull::get(cast<PointerType>(PtrT)), CacheBase);
    B.CreateStore(Base, B.CreateStructGEP(TT, Slot, 0));
    B.CreateStore(B.getInt64(0), B.CreateStructGEP(TT, Slot, 1));
    B.CreateStore(Capacity, B.CreateStructGEP(TT, Slot, 2));
  }
  SmallVector<Value *, 12> Args{Fn->getArg(0), Fn->getArg(1)};
  unsigned NextShadow = 2 + Prim.size();
  for (unsigned K = 0; K < Prim.size(); ++K) {
    Args.push_back(Fn->getArg(2 + K));
    if (Acts[2 + K] == ArgKind::Dup)
      for (unsigned L = 0; L < W; ++L)
        Args.push_back(Fn->getArg(NextShadow++));
  }
  Args.push_back(Slot);
  B.CreateCall(Callee, Args);
  if (Reverse) { // keep the buffer for this thread's next fork, unless it already keeps one
    Value *Buf = B.CreateLoad(PtrT, B.CreateStructGEP(TT, Slot, 0));
    Value *Capacity = B.CreateLoad(I64, B.CreateStructGEP(TT, Slot, 2));
    BasicBlock *Keep = BasicBlock::Create(Ctx, "tape.keep", Fn), *Drop = BasicBlock::Create(Ctx, "tape.drop", Fn),
               *Done = BasicBlock::Create(Ctx, "done", Fn);
    B.CreateCondBr(B.CreateIsNull(B.CreateLoad(PtrT, CacheBase)), Keep, Drop);
    B.SetInsertPoint(Keep);
    B.CreateStore(Buf, CacheBase);
    B.CreateStore(Capacity, CacheCap);
    B.CreateBr(Done);
    B.SetInsertPoint(Drop);
    B.CreateCall(runtime(M, "free", Type::getVoidTy(Ctx), {PtrT}), {Buf});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
  } else {
    Value *Team = B.CreateCall(runtime(M, "omp_get_num_threads", I32, {}), {});
    B.CreateStore(Team, B.CreateConstGEP1_64(B.getInt8Ty(), Tapes, 4)); // every thread writes the same value
  }
  B.CreateRetVoid();
  return Fn;
}
} // namespace

void GradientGen::augFork(CallBase *CB, Instruction *C) {
  Function *F = forkMicrotask(CB);
  if (!F || F->isDeclaration())
    return fail(CB, "the function of this OpenMP parallel region is not known",
                "the region's outlined function must be in the same module");
  Signature CS{F, DiffMode::Reverse, {ArgKind::Const, ArgKind::Const}, Sig.Width, false, false};
  CS.Parallel = true;
  SmallVector<Value *, 8> Prim, Shadows;
  SmallVector<Type *, 8> PrimTy;
  for (unsigned K = 3; K < CB->arg_size(); ++K) {
    Value *A = CB->getArgOperand(K);
    Prim.push_back(augOf(A));
    PrimTy.push_back(A->getType());
    if (A->getType()->isPointerTy() && shadowed(A)) {
      CS.Acts.push_back(ArgKind::Dup);
      for (unsigned L = 0; L < width(); ++L)
        Shadows.push_back(inLane(L, [&] { return augShadow(A); }));
    } else if (carriesDerivative(A->getType()) && Act.Varied.count(A)) {
      return fail(CB, "a value captured by an OpenMP parallel region carries a derivative but is not passed by reference",
                  "make the variable shared (the default) so clang passes its address");
    } else {
      CS.Acts.push_back(ArgKind::Const);
    }
  }
  if (Shadows.empty())
    return; // nothing active crosses the region: it runs as it is, once, in the forward sweep
  if (F->arg_size() != CS.Acts.size())
    return fail(CB, "this OpenMP parallel region's function does not take the captured values the fork passes");
  bool Reduction = false;
  if (const Instruction *Bad = orderDependentCriticalUpdate(*E.primalOf(F), Reduction)) {
    if (Lane == 0) {
      if (Reduction)
        reportError(F, Bad, "reverse mode: the OpenMP construct 'reduction' with an operator other than + (max, min, *) is not supported",
                    "use reduction(+:...), or compute the max/min/product after the parallel loop; forward mode supports it");
      else
        reportError(F, Bad, "reverse mode: this OpenMP critical section updates shared data other than by adding to it; "
                            "its adjoint would depend on the order in which the threads entered it",
                    "write the update as s += v (or s -= v), or use forward mode");
    }
    Failed = true;
    return;
  }
  GradientPair GP = E.gradientPair(CS);
  if (!GP.Augmented || !GP.Reverse) {
    Failed = true;
    return;
  }
  Function *AugFn = threadFunction(E, GP.Augmented, F->getName() + ".augmented.fork", PrimTy, CS.Acts, width(), false);
  Function *RevFn = threadFunction(E, GP.Reverse, F->getName() + ".reverse.fork", PrimTy, CS.Acts, width(), true);

  Module &M = E.module();
  IRBuilder<> B(C);
  Type *I32 = B.getInt32Ty();
  // Room for every thread the team may have: the default team, or the num_threads clause's.
  Value *Cap = B.CreateCall(runtime(M, "omp_get_max_threads", I32, {}), {});
  for (Instruction *P = CB->getPrevNode(); P; P = P->getPrevNode())
    if (auto *PC = dyn_cast<CallBase>(P); PC && PC->getCalledFunction() &&
                                           PC->getCalledFunction()->getName() == "__kmpc_push_num_threads") {
      Value *N = augOf(PC->getArgOperand(2));
      Cap = B.CreateSelect(B.CreateICmpSGT(N, Cap), N, Cap);
      break;
    }
  Value *Tapes = B.CreateCall(runtime(M, "calloc", B.getPtrTy(), {B.getInt64Ty(), B.getInt64Ty()}),
                              {B.CreateZExt(B.CreateAdd(Cap, B.getInt32(1)), B.getInt64Ty()), B.getInt64(SlotBytes)},
                              "omp.tapes");
  B.CreateStore(Cap, Tapes);
  SmallVector<Value *, 12> Args{augOf(CB->getArgOperand(0)), B.getInt32(Prim.size() + Shadows.size() + 1), AugFn};
  Args.append(Prim.begin(), Prim.end());
  Args.append(Shadows.begin(), Shadows.end());
  Args.push_back(Tapes);
  auto *FC = cast<CallBase>(C);
  CallInst *NC = B.CreateCall(FC->getFunctionType(), FC->getCalledOperand(), Args);
  NC->setDebugLoc(C->getDebugLoc());
  C->eraseFromParent();
  VA[CB] = nullptr;
  Forks[CB] = {Tapes, RevFn};
}

void GradientGen::reverseFork(CallBase *CB, BasicBlock *B, IRBuilder<> &Bd) {
  auto It = Forks.find(CB);
  if (It == Forks.end() || !lastLane())
    return; // nothing active crossed the region
  Module &M = E.module();
  Type *I32 = Bd.getInt32Ty(), *PtrT = Bd.getPtrTy();
  Value *Tapes = pushAndPop(It->second.first, PtrT, B);
  Value *Loc = revPrimal(CB->getArgOperand(0), B);
  Value *Team = Bd.CreateLoad(I32, Bd.CreateConstGEP1_64(Bd.getInt8Ty(), Tapes, 4), "omp.team");
  Value *Gtid = Bd.CreateCall(runtime(M, "__kmpc_global_thread_num", I32, {PtrT}), {Loc});
  Bd.CreateCall(runtime(M, "__kmpc_push_num_threads", Bd.getVoidTy(), {PtrT, I32, I32}), {Loc, Gtid, Team});
  SmallVector<Value *, 8> Prim, Shadows;
  for (unsigned K = 3; K < CB->arg_size(); ++K) {
    Value *A = CB->getArgOperand(K);
    Prim.push_back(revPrimal(A, B));
    if (A->getType()->isPointerTy() && shadowed(A))
      for (unsigned L = 0; L < width(); ++L)
        Shadows.push_back(inLane(L, [&] { return revShadow(A, B); }));
  }
  SmallVector<Value *, 12> Args{Loc, Bd.getInt32(Prim.size() + Shadows.size() + 1), It->second.second};
  Args.append(Prim.begin(), Prim.end());
  Args.append(Shadows.begin(), Shadows.end());
  Args.push_back(Tapes);
  Bd.CreateCall(CB->getFunctionType(), CB->getCalledOperand(), Args);
  Bd.CreateCall(runtime(M, "free", Bd.getVoidTy(), {PtrT}), {Tapes});
}

void GradientGen::reverseAtomicUpdate(Instruction *I, BasicBlock *B, IRBuilder<> &Bd) {
  auto *RMW = cast<AtomicRMWInst>(I);
  Value *P = RMW->getPointerOperand(), *V = RMW->getValOperand();
  if (!shadowed(P) || !active(V))
    return;
  // x += v: v's adjoint is x's, which every thread reads and none writes until a barrier.
  Type *AT = Act.adjointType(V);
  Value *D = Bd.CreateAlignedLoad(AT, guardRev(Bd, revShadow(P, B), P, B, AT, false), RMW->getAlign());
  if (RMW->getOperation() == AtomicRMWInst::FSub)
    D = Bd.CreateFNeg(D);
  accumulate(Bd, V, D);
}

bool GradientGen::atomicAccumulate(IRBuilder<> &Bd, const Value *SrcPtr, Value *Addr, Value *D, Align A) {
  if (isa<AllocaInst>(getUnderlyingObject(SrcPtr, 16)))
    return false; // the region's own local: one thread's
  // Scalars add with one atomic each; vectors and aggregates element by element.
  std::function<bool(Value *, Value *, uint64_t)> Add = [&](Value *At, Value *Val, uint64_t Off) -> bool {
    Type *T = Val->getType();
    if (T->isFloatingPointTy()) {
      Value *P = Off ? Bd.CreateConstGEP1_64(Bd.getInt8Ty(), At, Off) : At;
      Bd.CreateAtomicRMW(AtomicRMWInst::FAdd, P, Val, commonAlignment(A, Off), AtomicOrdering::Monotonic);
      return true;
    }
    if (auto *VT = dyn_cast<FixedVectorType>(T)) {
      uint64_t ES = DL.getTypeAllocSize(VT->getElementType());
      for (unsigned K = 0; K < VT->getNumElements(); ++K)
        if (!Add(At, Bd.CreateExtractElement(Val, Bd.getInt32(K)), Off + K * ES))
          return false;
      return true;
    }
    if (auto *ST = dyn_cast<StructType>(T)) {
      const StructLayout *SL = DL.getStructLayout(ST);
      for (unsigned K = 0; K < ST->getNumElements(); ++K)
        if (!Add(At, Bd.CreateExtractValue(Val, K), Off + SL->getElementOffset(K)))
          return false;
      return true;
    }
    if (auto *AT = dyn_cast<ArrayType>(T)) {
      uint64_t ES = DL.getTypeAllocSize(AT->getElementType());
      for (unsigned K = 0; K < AT->getNumElements(); ++K)
        if (!Add(At, Bd.CreateExtractValue(Val, K), Off + K * ES))
          return false;
      return true;
    }
    return !carriesDerivative(T); // integers and pointers in an aggregate carry nothing
  };
  return Add(Addr, D, 0);
}

} // namespace gradient
} // namespace synthase

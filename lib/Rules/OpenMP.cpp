// The OpenMP runtime as differentiated code meets it (see OpenMP.h).
#include "Rules/OpenMP.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;

namespace synthase {

bool isForkCall(const CallBase *CB) {
  const Function *G = CB ? CB->getCalledFunction() : nullptr;
  return G && G->getName() == "__kmpc_fork_call" && CB->arg_size() >= 3;
}

Function *forkMicrotask(const CallBase *CB) {
  return dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts());
}

bool isInactiveOpenMPCall(StringRef N) {
  if (N.starts_with("__kmpc_for_static_init_") || N.starts_with("__kmpc_dispatch_init_") ||
      N.starts_with("__kmpc_dispatch_next_") || N.starts_with("__kmpc_dispatch_fini_"))
    return true;
  return StringSwitch<bool>(N)
      .Cases({"__kmpc_global_thread_num", "__kmpc_for_static_fini", "__kmpc_dispatch_deinit"}, true)
      .Cases({"__kmpc_barrier", "__kmpc_critical", "__kmpc_end_critical", "__kmpc_flush"}, true)
      .Cases({"__kmpc_single", "__kmpc_end_single", "__kmpc_master", "__kmpc_end_master"}, true)
      .Cases({"__kmpc_masked", "__kmpc_end_masked", "__kmpc_push_num_threads", "__kmpc_push_proc_bind"}, true)
      .Cases({"__kmpc_serialized_parallel", "__kmpc_end_serialized_parallel", "__kmpc_ok_to_fork"}, true)
      .Cases({"__kmpc_global_num_threads", "__kmpc_bound_thread_num", "__kmpc_bound_num_threads"}, true)
      .Cases({"__kmpc_in_parallel", "omp_get_thread_num", "omp_get_num_threads", "omp_get_max_threads"}, true)
      .Cases({"omp_get_num_procs", "omp_in_parallel", "omp_get_wtime", "omp_get_wtick", "omp_get_level"}, true)
      .Cases({"omp_get_team_size", "omp_get_ancestor_thread_num", "omp_get_dynamic", "omp_get_nested"}, true)
      .Cases({"omp_set_num_threads", "omp_set_dynamic", "omp_get_thread_limit", "omp_get_active_level"}, true)
      .Default(false);
}

static const char *unsupportedName(StringRef N) {
  if (N.starts_with("__kmpc_omp_taskwait"))
    return "taskwait";
  if (N.starts_with("__kmpc_omp_task") || N.starts_with("__kmpc_omp_reg_task"))
    return "task";
  if (N.starts_with("__kmpc_taskloop"))
    return "taskloop";
  if (N.starts_with("__kmpc_taskgroup") || N.starts_with("__kmpc_end_taskgroup"))
    return "taskgroup";
  if (N.starts_with("__kmpc_task_reduction") || N.starts_with("__kmpc_taskred"))
    return "task reduction";
  if (N.starts_with("__tgt_"))
    return "target offload";
  if (N.starts_with("__kmpc_doacross"))
    return "ordered(n) (doacross loop)";
  if (N == "__kmpc_ordered" || N == "__kmpc_end_ordered")
    return "ordered";
  if (N.starts_with("__kmpc_fork_teams") || N.starts_with("__kmpc_push_num_teams"))
    return "teams";
  if (N.starts_with("__kmpc_cancel"))
    return "cancel";
  if (N == "__kmpc_copyprivate")
    return "single copyprivate";
  if (N.starts_with("__kmpc_threadprivate"))
    return "threadprivate";
  if (N == "__kmpc_fork_call_if")
    return "parallel with an if clause (__kmpc_fork_call_if)";
  if (N == "__kmpc_critical_with_hint")
    return "critical with a hint";
  if (N.starts_with("__kmpc_reduce") || N.starts_with("__kmpc_end_reduce"))
    return "reduction outside a parallel region";
  if (N.starts_with("omp_set_lock") || N.starts_with("omp_unset_lock") || N.starts_with("omp_test_lock") ||
      N.starts_with("omp_set_nest_lock") || N.starts_with("omp_unset_nest_lock") || N.starts_with("omp_test_nest_lock"))
    return "OpenMP locks (omp_set_lock)";
  if (N == "__kmpc_alloc" || N == "omp_alloc" || N == "__kmpc_aligned_alloc")
    return "OpenMP allocators";
  return nullptr;
}

const char *unsupportedOpenMPConstruct(const CallBase *CB) {
  const Function *G = CB->getCalledFunction();
  const char *What = G ? unsupportedName(G->getName()) : nullptr;
  // A taskloop opens a taskgroup first: name the construct the user wrote.
  if (What && StringRef(What) == "taskgroup")
    for (const BasicBlock &BB : *CB->getFunction())
      for (const Instruction &I : BB)
        if (auto *C = dyn_cast<CallBase>(&I))
          if (C->getCalledFunction() && C->getCalledFunction()->getName().starts_with("__kmpc_taskloop"))
            return "taskloop";
  return What;
}

/// Whether the atomic path of the reduction R (case 2 of the switch on its result) uses only the
/// atomic updates the generators differentiate (a floating-point add or subtract).
static bool atomicPathDifferentiable(CallInst *R) {
  for (User *U : R->users()) {
    auto *SI = dyn_cast<SwitchInst>(U);
    if (!SI)
      continue;
    BasicBlock *Merge = SI->getDefaultDest(), *Case2 = nullptr;
    for (auto &C : SI->cases())
      if (C.getCaseValue()->equalsInt(2))
        Case2 = C.getCaseSuccessor();
    if (!Case2)
      return false;
    SmallVector<BasicBlock *, 8> Work{Case2};
    SmallPtrSet<BasicBlock *, 8> Seen{Case2};
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      for (Instruction &I : *BB)
        if (I.isAtomic() && !isSupportedAtomicUpdate(&I))
          return false; // max, min, * or a user-defined combiner: a compare-exchange loop
      for (BasicBlock *S : successors(BB))
        if (S != Merge && Seen.insert(S).second)
          Work.push_back(S);
    }
  }
  return true;
}

void rewriteOpenMPReductions(Function &F) {
  SmallVector<CallInst *, 4> Reduce, EndNowait, End;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (Function *G = CI->getCalledFunction()) {
          StringRef N = G->getName();
          if (N == "__kmpc_reduce" || N == "__kmpc_reduce_nowait")
            Reduce.push_back(CI);
          else if (N == "__kmpc_end_reduce_nowait")
            EndNowait.push_back(CI);
          else if (N == "__kmpc_end_reduce")
            End.push_back(CI);
        }
  if (Reduce.empty())
    return;
  // Sums take the atomic path (2). Other operators take the combining path (1), which reads and
  // writes the shared variable with plain loads and stores: every thread takes it, one at a time
  // in a critical section on the reduction's lock, and the reverse mirrors that section.
  bool Atomic = all_of(Reduce, atomicPathDifferentiable);
  Module &M = *F.getParent();
  Type *PtrT = PointerType::getUnqual(M.getContext()), *I32 = Type::getInt32Ty(M.getContext());
  Type *VoidT = Type::getVoidTy(M.getContext());
  FunctionCallee Bar = M.getOrInsertFunction("__kmpc_barrier", VoidT, PtrT, I32);
  FunctionCallee Enter = M.getOrInsertFunction("__kmpc_critical", VoidT, PtrT, I32, PtrT);
  FunctionCallee Leave = M.getOrInsertFunction("__kmpc_end_critical", VoidT, PtrT, I32, PtrT);
  for (CallInst *CI : Reduce) {
    if (!Atomic) { // (loc, gtid, n, size, data, combiner, lock)
      CallInst *C = IRBuilder<>(CI).CreateCall(Enter, {CI->getArgOperand(0), CI->getArgOperand(1), CI->getArgOperand(6)});
      C->setMetadata("synthase.omp.reduction", MDNode::get(M.getContext(), {}));
    }
    CI->replaceAllUsesWith(ConstantInt::get(CI->getType(), Atomic ? 2 : 1));
    CI->eraseFromParent();
  }
  // The end calls take (loc, gtid, lock). The blocking form ends with a barrier, after which
  // every thread may read the result.
  for (CallInst *CI : EndNowait) {
    if (!Atomic)
      IRBuilder<>(CI).CreateCall(Leave, {CI->getArgOperand(0), CI->getArgOperand(1), CI->getArgOperand(2)});
    CI->eraseFromParent();
  }
  for (CallInst *CI : End) {
    IRBuilder<> B(CI);
    if (!Atomic)
      B.CreateCall(Leave, {CI->getArgOperand(0), CI->getArgOperand(1), CI->getArgOperand(2)});
    B.CreateCall(Bar, {CI->getArgOperand(0), CI->getArgOperand(1)});
    CI->eraseFromParent();
  }
}

/// The same address computed twice (clang reloads a captured pointer before the store).
static bool samePointer(const Value *A, const Value *B) {
  if (A == B)
    return true;
  if (auto *LA = dyn_cast<LoadInst>(A))
    if (auto *LB = dyn_cast<LoadInst>(B))
      return LA->getType() == LB->getType() && samePointer(LA->getPointerOperand(), LB->getPointerOperand());
  auto *GA = dyn_cast<GetElementPtrInst>(A), *GB = dyn_cast<GetElementPtrInst>(B);
  if (!GA || !GB || GA->getSourceElementType() != GB->getSourceElementType() || GA->getNumOperands() != GB->getNumOperands() ||
      !samePointer(GA->getPointerOperand(), GB->getPointerOperand()))
    return false;
  for (unsigned K = 1; K < GA->getNumOperands(); ++K)
    if (GA->getOperand(K) != GB->getOperand(K))
      return false;
  return true;
}

/// The load of the old value when V is `old + x`, `x + old`, `old - x` or fmuladd/fma(a, b, old).
/// A float accumulator updated in double (`float s; s += (double)v`) is `trunc(ext(old) + x)`:
/// both conversions have derivative 1, so the update is as order-free as a plain sum.
static LoadInst *additiveOld(Value *V, const Value *Ptr) {
  if (auto *T = dyn_cast<FPTruncInst>(V))
    V = T->getOperand(0);
  SmallVector<Value *, 2> Cands;
  if (auto *BO = dyn_cast<BinaryOperator>(V)) {
    if (BO->getOpcode() == Instruction::FAdd)
      Cands = {BO->getOperand(0), BO->getOperand(1)};
    else if (BO->getOpcode() == Instruction::FSub)
      Cands = {BO->getOperand(0)};
  } else if (auto *II = dyn_cast<IntrinsicInst>(V)) {
    if (II->getIntrinsicID() == Intrinsic::fmuladd || II->getIntrinsicID() == Intrinsic::fma)
      Cands = {II->getArgOperand(2)};
  }
  for (Value *C : Cands) {
    if (auto *X = dyn_cast<FPExtInst>(C); X && X->hasOneUse())
      C = X->getOperand(0);
    if (auto *L = dyn_cast<LoadInst>(C); L && L->hasOneUse() && samePointer(L->getPointerOperand(), Ptr))
      return L;
  }
  return nullptr;
}

const Instruction *orderDependentCriticalUpdate(Function &F, bool &Reduction) {
  auto named = [](const Instruction &I, StringRef N) {
    auto *CB = dyn_cast<CallBase>(&I);
    return CB && CB->getCalledFunction() && CB->getCalledFunction()->getName() == N;
  };
  auto shared = [](const Value *P) { return !isa<AllocaInst>(getUnderlyingObject(P, 16)); };
  for (BasicBlock &BB : F)
    for (Instruction &Start : BB) {
      if (!named(Start, "__kmpc_critical"))
        continue;
      // The section: what runs from the entry to every end reached first.
      SmallVector<StoreInst *, 4> Stores;
      SmallVector<LoadInst *, 8> Loads;
      SmallVector<BasicBlock::iterator, 8> Work{std::next(Start.getIterator())};
      SmallPtrSet<BasicBlock *, 8> Seen;
      while (!Work.empty()) {
        BasicBlock::iterator It = Work.pop_back_val();
        BasicBlock *B = It->getParent();
        bool Ended = false;
        for (; It != B->end(); ++It) {
          if (named(*It, "__kmpc_end_critical")) {
            Ended = true;
            break;
          }
          if (auto *S = dyn_cast<StoreInst>(&*It); S && S->getValueOperand()->getType()->isFPOrFPVectorTy() &&
                                                   shared(S->getPointerOperand()))
            Stores.push_back(S);
          if (auto *L = dyn_cast<LoadInst>(&*It); L && L->getType()->isFPOrFPVectorTy() && shared(L->getPointerOperand()))
            Loads.push_back(L);
        }
        if (!Ended)
          for (BasicBlock *S : successors(B))
            if (Seen.insert(S).second)
              Work.push_back(S->begin());
      }
      Reduction = Start.getMetadata("synthase.omp.reduction") != nullptr;
      SmallPtrSet<const Value *, 4> Accumulators;
      SmallPtrSet<const LoadInst *, 4> Additive;
      for (StoreInst *S : Stores) {
        LoadInst *Old = additiveOld(S->getValueOperand(), S->getPointerOperand());
        if (!Old || !is_contained(Loads, Old))
          return S;
        Additive.insert(Old);
        Accumulators.insert(getUnderlyingObject(S->getPointerOperand(), 16));
      }
      // Reading an accumulator for anything else sees a value that depends on the order.
      for (LoadInst *L : Loads)
        if (!Additive.count(L) && Accumulators.count(getUnderlyingObject(L->getPointerOperand(), 16)))
          return L;
    }
  return nullptr;
}

void captureScalarsByReference(Function &F) {
  SmallVector<CallBase *, 4> Forks;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I); CB && isForkCall(CB))
        if (any_of(drop_begin(CB->args(), 3), [](const Use &U) { return !U->getType()->isPointerTy(); }))
          Forks.push_back(CB);
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  Type *PtrT = PointerType::getUnqual(Ctx);
  for (CallBase *CB : Forks) {
    Function *Region = forkMicrotask(CB);
    if (!Region || Region->isDeclaration() || Region->arg_size() != CB->arg_size() - 1)
      continue; // the generators report it
    std::string Name = (Region->getName() + ".byref").str();
    Function *Wrap = M.getFunction(Name);
    if (!Wrap) {
      SmallVector<Type *, 8> Params(Region->arg_size(), PtrT);
      Wrap = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), Params, false), GlobalValue::InternalLinkage,
                              Name, M);
      Wrap->addFnAttr(Attribute::NoUnwind);
      IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Wrap));
      SmallVector<Value *, 8> Args;
      for (Argument &A : Region->args()) {
        Value *P = Wrap->getArg(A.getArgNo());
        Args.push_back(A.getType()->isPointerTy() ? P : B.CreateLoad(A.getType(), P));
      }
      B.CreateCall(Region, Args);
      B.CreateRetVoid();
    }
    IRBuilder<> EB(&*F.getEntryBlock().getFirstInsertionPt());
    IRBuilder<> B(CB);
    CB->setArgOperand(2, Wrap);
    for (unsigned K = 3; K < CB->arg_size(); ++K) {
      Value *V = CB->getArgOperand(K);
      if (V->getType()->isPointerTy())
        continue;
      AllocaInst *Slot = EB.CreateAlloca(V->getType(), nullptr, "omp.captured");
      B.CreateStore(V, Slot);
      CB->setArgOperand(K, Slot);
    }
  }
}

static Value *currentGtid(IRBuilder<> &B, Value *Loc) {
  FunctionCallee G = B.GetInsertBlock()->getModule()->getOrInsertFunction("__kmpc_global_thread_num", B.getInt32Ty(), B.getPtrTy());
  return B.CreateCall(G, {Loc});
}

bool emitOpenMPReverseSync(IRBuilder<> &B, const CallBase *I, function_ref<Value *(Value *)> Replay) {
  const Function *G = I->getCalledFunction();
  if (!G)
    return false;
  StringRef N = G->getName();
  Module *M = B.GetInsertBlock()->getModule();
  // loc and the lock are globals, valid in the reverse sweep as they are; the thread id is asked
  // again, since the reverse region runs on a new team.
  if (N != "__kmpc_barrier" && N != "__kmpc_critical" && N != "__kmpc_end_critical")
    return false;
  Value *Loc = Replay(I->getArgOperand(0));
  if (N == "__kmpc_barrier") {
    FunctionCallee F = M->getOrInsertFunction(N, B.getVoidTy(), B.getPtrTy(), B.getInt32Ty());
    B.CreateCall(F, {Loc, currentGtid(B, Loc)});
    return true;
  }
  if (N == "__kmpc_critical" || N == "__kmpc_end_critical") {
    StringRef Mirror = N == "__kmpc_critical" ? "__kmpc_end_critical" : "__kmpc_critical";
    FunctionCallee F = M->getOrInsertFunction(Mirror, B.getVoidTy(), B.getPtrTy(), B.getInt32Ty(), B.getPtrTy());
    B.CreateCall(F, {Loc, currentGtid(B, Loc), Replay(I->getArgOperand(2))});
    return true;
  }
  return false;
}

bool isSupportedAtomicUpdate(const Instruction *I) {
  auto *RMW = dyn_cast<AtomicRMWInst>(I);
  return RMW && (RMW->getOperation() == AtomicRMWInst::FAdd || RMW->getOperation() == AtomicRMWInst::FSub) &&
         RMW->use_empty();
}

} // namespace synthase

// The relocation log: where the adjoints of a caller's block go when the differentiated call
// moves a caller's container to a block of its own and frees the old one. A std::vector grown
// past its capacity, a Rust Vec grown by realloc, `u = std::move(next)` all end the call with the
// caller's container (and, through the mirrored pointer stores, its shadow) pointing at a new
// block, while the reverse sweep adds the adjoints of the values the caller passed into the old
// block's shadow, which the caller no longer reaches. So the reverse sweep notes, per top-level
// call:
//   - released blocks: the shadow of each block a deallocation or realloc frees (its reverse
//     runs before the reverse of anything that read the block, so the shadow ends up holding
//     every adjoint of the block's contents);
//   - moves: each copy out of a released block (element by element too, coalesced), with where
//     the copied bytes end up when the call returns. A copy into a block that is itself released
//     later (a vector grown twice) composes with the moves already noted out of that block (the
//     reverse sweep sees the later copy first);
//   - allocations: a block allocated in the call is not the caller's, so its release note is
//     dropped (and, for a block that outlived its allocating function, its shadow freed, which
//     nothing did before); a block that may outlive the call is kept: only moves into kept
//     blocks count, since a move into any other block (the caller's own, a local) says nothing
//     about where the caller's container went.
// When the top-level reverse sweep returns, each move into a kept block out of a block still noted as
// released (the caller's) puts the adjoint bytes where the caller now finds them; a container of
// the caller's whose data pointer went from such a block to a kept one with nothing copied gets
// them by index (the lowering reads those pointers before and after the sweeps); the caller's
// old shadow is then freed with the deallocator the primal used. Nothing is noted outside a
// frame (code run from a parallel region's worker, a derivative called by the user's own
// threads), so those keep the old behaviour. Relocation by member-by-member copies is not seen.
//
// The log is per thread, linkonce_odr under a versioned name like the tape arena, and empty
// between top-level calls (its arrays are freed when the outermost frame closes).
#include "Reverse/RelocationLog.h"
#include "Reverse/Tape.h"
#include "Reverse/TapeArenaRuntime.h"
#include "Rules/Allocators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include <algorithm>
#include <optional>

using namespace llvm;

namespace synthase {

static constexpr const char *LogName = "__synthase_relocs_v1";
static constexpr const char *OpenName = "__synthase_relocs_open_v1";
static constexpr const char *CloseName = "__synthase_relocs_close_v2";
static constexpr const char *SnapshotName = "__synthase_relocs_snapshot_v1";
static constexpr const char *ReleasedName = "__synthase_relocs_released_v1";
static constexpr const char *MovedName = "__synthase_relocs_moved_v2";
static constexpr const char *AllocatedName = "__synthase_relocs_allocated_v1";

static constexpr StringLiteral LostGradientText =
    "synthase: warning: a container passed with its shadow was given memory inside the differentiated call "
    "that the call did not allocate (another of the caller's blocks); the gradient of the values it held "
    "before is lost\n";

enum LogField { Rel, NRel, CapRel, Moves, NMoves, CapMoves, Depth, BaseRel, BaseMoves, Kept, NKept, CapKept, BaseKept };
enum RelField { RStart, RBytes, RFree, RNArgs, RArg1, RArg2, RMovedOut };
enum MoveField { MFrom, MBytes, MTo, MFloatsOnly };

static StructType *logType(LLVMContext &C) {
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return StructType::get(C, {P, I, I, P, I, I, I, I, I, P, I, I, I});
}
/// A block allocated in the frame that may outlive the call: {ptr start, i64 bytes}.
static StructType *keptType(LLVMContext &C) {
  return StructType::get(C, {PointerType::getUnqual(C), Type::getInt64Ty(C)});
}
static StructType *releasedType(LLVMContext &C) {
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return StructType::get(C, {P, I, P, I, I, I, I});
}
static StructType *moveType(LLVMContext &C) {
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return StructType::get(C, {P, I, P, I});
}

namespace {
/// Builds a helper's body: the log's fields, loops and appends.
struct HelperBody {
  Module &M;
  Function *F;
  IRBuilder<> &B;
  LLVMContext &C = M.getContext();
  StructType *LT = logType(C), *RT = releasedType(C), *MT = moveType(C), *KT = keptType(C);
  Type *I64 = B.getInt64Ty(), *PtrTy = B.getPtrTy();
  Value *Log = B.CreateThreadLocalAddress(tapeArenaGlobal(M, LogName, LT));

  Value *fieldPtr(unsigned K) { return B.CreateStructGEP(LT, Log, K); }
  Value *get(unsigned K) { return B.CreateLoad(K == Rel || K == Moves || K == Kept ? PtrTy : I64, fieldPtr(K)); }
  void set(unsigned K, Value *V) { B.CreateStore(V, fieldPtr(K)); }
  Value *released(Value *I, unsigned K) { return B.CreateInBoundsGEP(RT, get(Rel), {I, B.getInt32(K)}); }
  Value *move(Value *I, unsigned K) { return B.CreateInBoundsGEP(MT, get(Moves), {I, B.getInt32(K)}); }
  Value *releasedField(Value *I, unsigned K) { return B.CreateLoad(RT->getElementType(K), released(I, K)); }
  Value *moveField(Value *I, unsigned K) { return B.CreateLoad(MT->getElementType(K), move(I, K)); }
  Value *keptField(Value *I, unsigned K) {
    return B.CreateLoad(KT->getElementType(K), B.CreateInBoundsGEP(KT, get(Kept), {I, B.getInt32(K)}));
  }
  Value *addr(Value *P) { return B.CreatePtrToInt(P, I64); }

  BasicBlock *block(const char *Name) { return BasicBlock::Create(C, Name, F); }
  /// Returns from the helper (void, or Ret) when Cond holds.
  void returnIf(Value *Cond) {
    BasicBlock *Out = block("out"), *Go = block("go");
    B.CreateCondBr(Cond, Out, Go);
    B.SetInsertPoint(Out);
    B.CreateRetVoid();
    B.SetInsertPoint(Go);
  }
  void ifThen(Value *Cond, function_ref<void()> Then) {
    BasicBlock *T = block("then"), *J = block("join");
    B.CreateCondBr(Cond, T, J);
    B.SetInsertPoint(T);
    Then();
    B.CreateBr(J);
    B.SetInsertPoint(J);
  }
  /// for (i = Lo; i < Hi; ++i) Body(i), Hi read once.
  void loop(Value *Lo, Value *Hi, function_ref<void(Value *)> Body) {
    BasicBlock *Pre = B.GetInsertBlock(), *H = block("loop"), *Bd = block("body"), *X = block("done");
    B.CreateBr(H);
    B.SetInsertPoint(H);
    PHINode *I = B.CreatePHI(I64, 2);
    I->addIncoming(Lo, Pre);
    B.CreateCondBr(B.CreateICmpULT(I, Hi), Bd, X);
    B.SetInsertPoint(Bd);
    Body(I);
    I->addIncoming(B.CreateAdd(I, B.getInt64(1)), B.GetInsertBlock());
    B.CreateBr(H);
    B.SetInsertPoint(X);
  }
  /// Appends an entry of type ET to the array at field Arr (count NField, capacity CapField).
  void append(unsigned Arr, unsigned NField, unsigned CapField, StructType *ET, ArrayRef<Value *> Fields) {
    Value *N = get(NField), *Cap = get(CapField);
    ifThen(B.CreateICmpEQ(N, Cap), [&] {
      Value *NewCap = B.CreateSelect(B.CreateICmpEQ(Cap, B.getInt64(0)), B.getInt64(16), B.CreateShl(Cap, 1));
      Value *Bytes = B.CreateMul(NewCap, B.getInt64(M.getDataLayout().getTypeAllocSize(ET)));
      FunctionCallee Realloc = M.getOrInsertFunction("realloc", PtrTy, PtrTy, I64);
      set(Arr, B.CreateCall(Realloc, {get(Arr), Bytes}));
      set(CapField, NewCap);
    });
    for (unsigned K = 0; K < Fields.size(); ++K)
      B.CreateStore(Fields[K], B.CreateInBoundsGEP(ET, get(Arr), {N, B.getInt32(K)}));
    set(NField, B.CreateAdd(N, B.getInt64(1)));
  }
  /// The index of the released block (this frame's) that holds address P, or -1. Exact: the
  /// block that starts at P.
  Value *findReleased(Value *P, bool Exact) {
    AllocaInst *Found = slot("found");
    B.CreateStore(B.getInt64(-1), Found);
    Value *A = addr(P);
    loop(get(BaseRel), get(NRel), [&](Value *I) {
      Value *S = addr(releasedField(I, RStart));
      Value *In = Exact ? B.CreateICmpEQ(A, S)
                        : B.CreateAnd(B.CreateICmpUGE(A, S),
                                      B.CreateICmpULT(A, B.CreateAdd(S, releasedField(I, RBytes))));
      B.CreateStore(B.CreateSelect(In, I, B.CreateLoad(I64, Found)), Found);
    });
    return B.CreateLoad(I64, Found);
  }
  /// The index of the kept block (this frame's) that holds address P, or -1.
  Value *findKept(Value *P) {
    AllocaInst *Found = slot("kept.found");
    B.CreateStore(B.getInt64(-1), Found);
    Value *A = addr(P);
    loop(get(BaseKept), get(NKept), [&](Value *I) {
      Value *S = addr(keptField(I, 0));
      Value *In = B.CreateAnd(B.CreateICmpUGE(A, S), B.CreateICmpULT(A, B.CreateAdd(S, keptField(I, 1))));
      B.CreateStore(B.CreateSelect(In, I, B.CreateLoad(I64, Found)), Found);
    });
    return B.CreateLoad(I64, Found);
  }
  AllocaInst *slot(const char *Name) {
    IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
    return EB.CreateAlloca(I64, nullptr, Name);
  }
  /// Writes Text to standard error.
  void warn(StringRef Text) {
    FunctionCallee Write = M.getOrInsertFunction("write", I64, B.getInt32Ty(), PtrTy, I64);
    B.CreateCall(Write, {B.getInt32(2), B.CreateGlobalString(Text, "synthase.relocs.lost"), B.getInt64(Text.size())});
  }
  /// Frees the released block I's shadow with the primal's deallocator, if it has one.
  void release(Value *I) {
    Value *Fn = releasedField(I, RFree);
    ifThen(B.CreateIsNotNull(Fn), [&] {
      Value *P = releasedField(I, RStart), *N = releasedField(I, RNArgs);
      Value *A1 = releasedField(I, RArg1), *A2 = releasedField(I, RArg2);
      Type *V = B.getVoidTy();
      ifThen(B.CreateICmpEQ(N, B.getInt64(0)), [&] { B.CreateCall(FunctionType::get(V, {PtrTy}, false), Fn, {P}); });
      ifThen(B.CreateICmpEQ(N, B.getInt64(1)),
             [&] { B.CreateCall(FunctionType::get(V, {PtrTy, I64}, false), Fn, {P, A1}); });
      ifThen(B.CreateICmpEQ(N, B.getInt64(2)),
             [&] { B.CreateCall(FunctionType::get(V, {PtrTy, I64, I64}, false), Fn, {P, A1, A2}); });
    });
  }
};
} // namespace

static Function *helper(Module &M, StringRef Name, ArrayRef<Type *> Params,
                        function_ref<void(HelperBody &)> Body) {
  auto *FT = FunctionType::get(Type::getVoidTy(M.getContext()), Params, false);
  return tapeRuntimeHelper(M, Name, FT, [&](IRBuilder<> &B, Function *F) {
    HelperBody H{M, F, B};
    Body(H);
    B.CreateRetVoid();
  });
}

/// open(save): a frame starts at the log's current ends; the enclosing frame's bases go to save.
static Function *openFn(Module &M) {
  Type *P = PointerType::getUnqual(M.getContext());
  return helper(M, OpenName, {P}, [](HelperBody &H) {
    IRBuilder<> &B = H.B;
    Value *Save = H.F->getArg(0);
    B.CreateStore(H.get(BaseRel), Save);
    B.CreateStore(H.get(BaseMoves), B.CreateConstGEP1_64(H.I64, Save, 1));
    B.CreateStore(H.get(BaseKept), B.CreateConstGEP1_64(H.I64, Save, 2));
    H.set(BaseRel, H.get(NRel));
    H.set(BaseMoves, H.get(NMoves));
    H.set(BaseKept, H.get(NKept));
    H.set(Depth, B.CreateAdd(H.get(Depth), B.getInt64(1)));
  });
}

/// close(save, fields, shapes, n): settles the frame (moves from the caller's blocks into kept ones,
/// then the caller's containers that now point elsewhere, then the caller's old shadows freed)
/// and restores the enclosing frame. fields holds n pairs {shadow data pointer before the call,
/// after it}, shapes n pairs {0, 0} (float data) or {element size, offset of the element's data
/// pointer} (an array of containers).
static Function *closeFn(Module &M) {
  Type *P = PointerType::getUnqual(M.getContext()), *I64T = Type::getInt64Ty(M.getContext());
  return helper(M, CloseName, {P, P, I64T, P}, [&](HelperBody &H) {
    IRBuilder<> &B = H.B;
    Value *Save = H.F->getArg(0), *Pairs = H.F->getArg(1);
    // A move counts when it ends in a block the call allocated that may outlive it: a move into
    // any other block (the caller's own, a local) says nothing about where the container went.
    H.loop(H.get(BaseMoves), H.get(NMoves), [&](Value *I) {
      Value *From = H.moveField(I, MFrom), *N = H.moveField(I, MBytes), *To = H.moveField(I, MTo);
      Value *K = H.findReleased(From, false), *J = H.findKept(To);
      H.ifThen(B.CreateAnd(B.CreateICmpSGE(K, B.getInt64(0)), B.CreateICmpSGE(J, B.getInt64(0))), [&] {
        // Floats keep their index in the container (an insert that grew the vector shifted
        // the values, but the caller's gradient of v[i] is that of the v[i] it passed, as when
        // the capacity sufficed); bytes with pointers follow the copy, so that the shadow
        // structure keeps matching the primal's.
        Value *Off = B.CreateSub(H.addr(From), H.addr(H.releasedField(K, RStart)));
        Value *Fits = B.CreateICmpULE(B.CreateAdd(Off, N), H.keptField(J, 1));
        Value *ByIndex = B.CreateAnd(Fits, B.CreateICmpNE(H.moveField(I, MFloatsOnly), B.getInt64(0)));
        Value *Dst = B.CreateSelect(ByIndex, B.CreateGEP(B.getInt8Ty(), H.keptField(J, 0), Off), To);
        B.CreateMemMove(Dst, Align(1), From, Align(1), N);
        B.CreateStore(B.getInt64(1), H.released(K, RMovedOut));
      });
    });
    // A container of the caller's that holds another block now (`u = std::move(next)`, Rust's
    // `*u = next`): nothing was copied out of its old block, which held the values passed, so
    // their adjoints go to the new block by index, if that block was allocated in the call.
    // Returns (in Room) how many bytes the new block has from New on; 0: not such a pair.
    AllocaInst *Room = H.slot("room");
    auto replaced = [&](Value *Old, Value *New, bool CopyBytes) {
      B.CreateStore(B.getInt64(0), Room);
      H.ifThen(B.CreateAnd(B.CreateICmpNE(Old, New), B.CreateAnd(B.CreateIsNotNull(Old), B.CreateIsNotNull(New))), [&] {
        Value *K = H.findReleased(Old, true);
        H.ifThen(B.CreateICmpSGE(K, B.getInt64(0)), [&] {
          H.ifThen(B.CreateICmpEQ(H.releasedField(K, RMovedOut), B.getInt64(0)), [&] {
            Value *J = H.findKept(New);
            H.ifThen(B.CreateICmpSGE(J, B.getInt64(0)), [&] {
              Value *End = B.CreateAdd(H.addr(H.keptField(J, 0)), H.keptField(J, 1));
              B.CreateStore(B.CreateSub(End, H.addr(New)), Room);
            });
            Value *Room0 = B.CreateLoad(H.I64, Room), *Had = H.releasedField(K, RBytes);
            H.ifThen(B.CreateICmpNE(Room0, B.getInt64(0)), [&] {
              Value *N = B.CreateSelect(B.CreateICmpULT(Had, Room0), Had, Room0);
              if (CopyBytes)
                B.CreateMemMove(New, Align(1), Old, Align(1), N);
              B.CreateStore(N, Room);
              B.CreateStore(B.getInt64(1), H.released(K, RMovedOut));
            });
            // The container now holds memory the call did not allocate (another of the caller's
            // blocks): the gradient of what it held has no place the caller can reach. Said at
            // run time rather than left as a silent zero.
            H.ifThen(B.CreateICmpEQ(Room0, B.getInt64(0)), [&] { H.warn(LostGradientText); });
          });
        });
      });
    };
    Value *Shapes = H.F->getArg(3);
    auto shape = [&](Value *I, unsigned K) {
      return B.CreateLoad(H.I64, B.CreateGEP(H.I64, Shapes, B.CreateAdd(B.CreateShl(I, 2), B.getInt64(K))));
    };
    H.loop(B.getInt64(0), H.F->getArg(2), [&](Value *I) {
      Value *Old = B.CreateLoad(H.PtrTy, B.CreateGEP(H.PtrTy, Pairs, B.CreateShl(I, 1)));
      Value *New = B.CreateLoad(H.PtrTy, B.CreateGEP(H.PtrTy, Pairs, B.CreateAdd(B.CreateShl(I, 1), B.getInt64(1))));
      Value *Stride = shape(I, 0), *Inner = shape(I, 1);
      BasicBlock *Direct = H.block("floats"), *Nested = H.block("containers"), *Next = H.block("paired");
      B.CreateCondBr(B.CreateICmpEQ(Stride, B.getInt64(0)), Direct, Nested);
      B.SetInsertPoint(Direct);
      replaced(Old, New, true);
      B.CreateBr(Next);
      // An array of containers (a vector of vectors replaced): the old outer block's shadow
      // holds pointers, not adjoints, so element by element its inner blocks pair with the new
      // ones by index.
      B.SetInsertPoint(Nested);
      replaced(Old, New, false);
      Value *Bytes = B.CreateLoad(H.I64, Room);
      H.loop(B.getInt64(0), B.CreateUDiv(Bytes, Stride), [&](Value *E) {
        Value *At = B.CreateAdd(B.CreateMul(E, Stride), Inner);
        Value *IO = B.CreateLoad(H.PtrTy, B.CreateGEP(B.getInt8Ty(), Old, At));
        Value *IN = B.CreateLoad(H.PtrTy, B.CreateGEP(B.getInt8Ty(), New, At));
        replaced(IO, IN, true);
      });
      // Elements given new blocks one by one (`for (auto &r : g) r = std::move(nr)`), the outer
      // block kept or moved: the outer shadow holds the new inner pointers by now, so the old
      // ones come from the snapshot taken before the forward sweep. (Pairs settled above, and
      // elements that kept their block, are skipped by `replaced`.)
      Value *Snap = B.CreateIntToPtr(shape(I, 2), H.PtrTy), *EndAfter = shape(I, 3);
      H.ifThen(B.CreateAnd(B.CreateIsNotNull(Snap), B.CreateIsNotNull(New)), [&] {
        Value *Span = B.CreateSub(EndAfter, H.addr(New));
        Value *Whole = B.CreateAnd(B.CreateICmpUGE(EndAfter, H.addr(New)),
                                   B.CreateICmpEQ(B.CreateURem(Span, Stride), B.getInt64(0)));
        Value *After = B.CreateSelect(Whole, B.CreateUDiv(Span, Stride), B.getInt64(0));
        Value *Before = B.CreateLoad(H.I64, Snap);
        Value *Both = B.CreateSelect(B.CreateICmpULT(Before, After), Before, After);
        auto oldInner = [&](Value *E) {
          return B.CreateLoad(H.PtrTy, B.CreateGEP(H.PtrTy, Snap, B.CreateAdd(E, B.getInt64(1))));
        };
        H.loop(B.getInt64(0), Both, [&](Value *E) {
          Value *At = B.CreateAdd(B.CreateMul(E, Stride), Inner);
          replaced(oldInner(E), B.CreateLoad(H.PtrTy, B.CreateGEP(B.getInt8Ty(), New, At)), true);
        });
        // Elements the call removed (pop_back): their old blocks' shadows, freed with them, are
        // out of the caller's reach too.
        H.loop(Both, Before, [&](Value *E) {
          Value *K = H.findReleased(oldInner(E), true);
          H.ifThen(B.CreateICmpSGE(K, B.getInt64(0)), [&] { B.CreateStore(B.getInt64(1), H.released(K, RMovedOut)); });
        });
      });
      B.CreateBr(Next);
      B.SetInsertPoint(Next);
      Value *SnapDone = B.CreateIntToPtr(shape(I, 2), H.PtrTy);
      H.ifThen(B.CreateIsNotNull(SnapDone), [&] { B.CreateCall(tapeFreeFn(M), {SnapDone}); });
    });
    // An old shadow whose adjoints moved is unreachable now; one whose adjoints stayed (a
    // function that frees a buffer it was given) is still the caller's to read.
    H.loop(H.get(BaseRel), H.get(NRel), [&](Value *I) {
      H.ifThen(B.CreateICmpNE(H.releasedField(I, RMovedOut), B.getInt64(0)), [&] { H.release(I); });
    });
    H.set(NRel, H.get(BaseRel));
    H.set(NMoves, H.get(BaseMoves));
    H.set(NKept, H.get(BaseKept));
    H.set(BaseRel, B.CreateLoad(H.I64, Save));
    H.set(BaseMoves, B.CreateLoad(H.I64, B.CreateConstGEP1_64(H.I64, Save, 1)));
    H.set(BaseKept, B.CreateLoad(H.I64, B.CreateConstGEP1_64(H.I64, Save, 2)));
    Value *D = B.CreateSub(H.get(Depth), B.getInt64(1));
    H.set(Depth, D);
    H.ifThen(B.CreateICmpEQ(D, B.getInt64(0)), [&] {
      FunctionCallee Free = tapeFreeFn(M);
      for (unsigned A : {Rel, Moves, Kept}) {
        B.CreateCall(Free, {H.get(A)});
        H.set(A, ConstantPointerNull::get(B.getPtrTy()));
      }
      for (unsigned A : {CapRel, CapMoves, CapKept})
        H.set(A, B.getInt64(0));
    });
  });
}

/// released(shadow, bytes or -1, deallocator or null, number of its extra arguments, a1, a2)
static Function *releasedFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return helper(M, ReleasedName, {P, I, P, I, I, I}, [&](HelperBody &H) {
    IRBuilder<> &B = H.B;
    Function *F = H.F;
    H.returnIf(B.CreateOr(B.CreateICmpEQ(H.get(Depth), B.getInt64(0)), B.CreateIsNull(F->getArg(0))));
    FunctionCallee Usable = M.getOrInsertFunction("malloc_usable_size", I, P);
    Value *Bytes = F->getArg(1);
    BasicBlock *Ask = H.block("ask"), *Known = H.block("known"), *Here = B.GetInsertBlock();
    B.CreateCondBr(B.CreateICmpSLT(Bytes, B.getInt64(0)), Ask, Known);
    B.SetInsertPoint(Ask);
    Value *Asked = B.CreateCall(Usable, {F->getArg(0)});
    B.CreateBr(Known);
    B.SetInsertPoint(Known);
    PHINode *N = B.CreatePHI(I, 2);
    N->addIncoming(Bytes, Here);
    N->addIncoming(Asked, Ask);
    H.append(Rel, NRel, CapRel, H.RT,
             {F->getArg(0), N, F->getArg(2), F->getArg(3), F->getArg(4), F->getArg(5), B.getInt64(0)});
  });
}

/// moved(to, from, bytes, floats only)
static Function *movedFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return helper(M, MovedName, {P, P, I, I}, [&](HelperBody &H) {
    IRBuilder<> &B = H.B;
    Value *To = H.F->getArg(0), *From = H.F->getArg(1), *N = H.F->getArg(2), *Floats = H.F->getArg(3);
    H.returnIf(B.CreateOr(B.CreateICmpEQ(H.get(Depth), B.getInt64(0)),
                          B.CreateOr(B.CreateICmpEQ(H.get(NRel), H.get(BaseRel)), B.CreateICmpEQ(N, B.getInt64(0)))));
    H.returnIf(B.CreateICmpSLT(H.findReleased(From, false), B.getInt64(0)));
    Value *ToReleased = B.CreateICmpSGE(H.findReleased(To, false), B.getInt64(0));
    BasicBlock *Compose = H.block("compose"), *Direct = H.block("direct"), *Done = H.block("noted");
    B.CreateCondBr(ToReleased, Compose, Direct);
    B.SetInsertPoint(Compose);
    // The destination is released later: its bytes end where the moves out of it say. A
    // released block's extent may be the primal's usable size, larger than its shadow: a
    // destination that no move leaves from is a block of its own just past that shadow.
    Value *T = H.addr(To), *TEnd = B.CreateAdd(T, N);
    AllocaInst *Composed = H.slot("composed");
    B.CreateStore(B.getInt64(0), Composed);
    H.loop(H.get(BaseMoves), H.get(NMoves), [&](Value *K) {
      Value *S = H.addr(H.moveField(K, MFrom)), *SEnd = B.CreateAdd(S, H.moveField(K, MBytes));
      Value *Lo = B.CreateSelect(B.CreateICmpUGT(T, S), T, S);
      Value *Hi = B.CreateSelect(B.CreateICmpULT(TEnd, SEnd), TEnd, SEnd);
      H.ifThen(B.CreateICmpULT(Lo, Hi), [&] {
        Value *NewFrom = B.CreateGEP(B.getInt8Ty(), From, B.CreateSub(Lo, T));
        Value *NewTo = B.CreateGEP(B.getInt8Ty(), H.moveField(K, MTo), B.CreateSub(Lo, S));
        H.append(Moves, NMoves, CapMoves, H.MT,
                 {NewFrom, B.CreateSub(Hi, Lo), NewTo, B.CreateAnd(Floats, H.moveField(K, MFloatsOnly))});
        B.CreateStore(B.getInt64(1), Composed);
      });
    });
    B.CreateCondBr(B.CreateICmpNE(B.CreateLoad(B.getInt64Ty(), Composed), B.getInt64(0)), Done, Direct);
    B.SetInsertPoint(Direct);
    // A relocation loop copies element after element (the reverse sweep sees them backwards):
    // an element next to the last move, on both sides, extends it.
    BasicBlock *Extend = H.block("extend"), *Fresh = H.block("fresh");
    Value *NM = H.get(NMoves);
    B.CreateCondBr(B.CreateICmpUGT(NM, H.get(BaseMoves)), H.block("look"), Fresh);
    B.SetInsertPoint(&H.F->back());
    Value *LastI = B.CreateSub(NM, B.getInt64(1));
    Value *LF = H.addr(H.moveField(LastI, MFrom)), *LT = H.addr(H.moveField(LastI, MTo));
    Value *Below = B.CreateAnd(B.CreateICmpEQ(B.CreateAdd(H.addr(From), N), LF),
                               B.CreateICmpEQ(B.CreateAdd(H.addr(To), N), LT));
    Value *Same = B.CreateICmpEQ(H.moveField(LastI, MFloatsOnly), Floats);
    B.CreateCondBr(B.CreateAnd(Below, Same), Extend, Fresh);
    B.SetInsertPoint(Extend);
    B.CreateStore(From, H.move(LastI, MFrom));
    B.CreateStore(To, H.move(LastI, MTo));
    B.CreateStore(B.CreateAdd(H.moveField(LastI, MBytes), N), H.move(LastI, MBytes));
    B.CreateBr(Done);
    B.SetInsertPoint(Fresh);
    H.append(Moves, NMoves, CapMoves, H.MT, {From, N, To, Floats});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
  });
}

/// allocated(shadow, bytes, outlives)
static Function *allocatedFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return helper(M, AllocatedName, {P, I, I}, [&](HelperBody &H) {
    IRBuilder<> &B = H.B;
    Value *Sh = H.F->getArg(0), *N = H.F->getArg(1), *Outlives = B.CreateICmpNE(H.F->getArg(2), B.getInt64(0));
    H.returnIf(B.CreateOr(B.CreateICmpEQ(H.get(Depth), B.getInt64(0)), B.CreateIsNull(Sh)));
    H.returnIf(B.CreateAnd(B.CreateNot(Outlives), B.CreateAnd(B.CreateICmpEQ(H.get(NRel), H.get(BaseRel)),
                                                              B.CreateICmpEQ(H.get(NMoves), H.get(BaseMoves)))));
    Value *K = H.findReleased(Sh, true);
    BasicBlock *Ours = H.block("ours"), *NotOurs = H.block("kept"), *Done = H.block("settled");
    B.CreateCondBr(B.CreateICmpSGE(K, B.getInt64(0)), Ours, NotOurs);
    // Released in the call but allocated in it too: not the caller's. Its shadow goes here if
    // the allocating function left it alive; the moves out of it have been composed.
    B.SetInsertPoint(Ours);
    Value *S = H.addr(Sh), *SEnd = B.CreateAdd(S, H.releasedField(K, RBytes));
    H.ifThen(Outlives, [&] { H.release(K); });
    Value *Last = B.CreateSub(H.get(NRel), B.getInt64(1));
    for (unsigned F = RStart; F <= RMovedOut; ++F)
      B.CreateStore(H.releasedField(Last, F), H.released(K, F));
    H.set(NRel, Last);
    AllocaInst *J = H.slot("kept");
    B.CreateStore(H.get(BaseMoves), J);
    H.loop(H.get(BaseMoves), H.get(NMoves), [&](Value *I) {
      Value *A = H.addr(H.moveField(I, MFrom));
      Value *Inside = B.CreateAnd(B.CreateICmpUGE(A, S), B.CreateICmpULT(A, SEnd));
      H.ifThen(B.CreateNot(Inside), [&] {
        Value *JV = B.CreateLoad(H.I64, J);
        for (unsigned F = MFrom; F <= MFloatsOnly; ++F)
          B.CreateStore(H.moveField(I, F), H.move(JV, F));
        B.CreateStore(B.CreateAdd(JV, B.getInt64(1)), J);
      });
    });
    H.set(NMoves, B.CreateLoad(H.I64, J));
    B.CreateBr(Done);
    // A block of the call that may outlive it: moves into it say where the caller's contents went.
    B.SetInsertPoint(NotOurs);
    H.ifThen(Outlives, [&] { H.append(Kept, NKept, CapKept, H.KT, {Sh, N}); });
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
  });
}

bool moduleReleasesMemory(const Module &M) {
  for (const Function &F : M) {
    std::optional<Allocator> A = allocatorFor(&F);
    if (!A || A->Role == AllocRole::Alloc)
      continue;
    // The engine's own: a tape's growth, the arenas' helpers.
    for (const User *U : F.users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && !CB->getMetadata(TapeGrowMD) &&
                                            !CB->getFunction()->hasFnAttribute(TapeRuntimeAttr))
        return true;
  }
  return false;
}

static Value *asI64(IRBuilder<> &B, Value *V) {
  return V->getType()->isPointerTy() ? B.CreatePtrToInt(V, B.getInt64Ty()) : B.CreateZExtOrTrunc(V, B.getInt64Ty());
}

void emitReleasedBlock(IRBuilder<> &B, Value *Shadow, Value *Bytes, Value *Release, ArrayRef<Value *> ReleaseArgs) {
  Module &M = *B.GetInsertBlock()->getModule();
  Value *A[2] = {B.getInt64(0), B.getInt64(0)};
  for (unsigned K = 0; K < ReleaseArgs.size() && K < 2; ++K)
    A[K] = asI64(B, ReleaseArgs[K]);
  B.CreateCall(releasedFn(M), {Shadow, Bytes ? asI64(B, Bytes) : B.getInt64(-1),
                               Release ? Release : ConstantPointerNull::get(B.getPtrTy()),
                               B.getInt64(Release ? ReleaseArgs.size() : 0), A[0], A[1]});
}

void emitMovedBytes(IRBuilder<> &B, Value *To, Value *From, Value *Bytes, bool FloatsOnly) {
  Module &M = *B.GetInsertBlock()->getModule();
  B.CreateCall(movedFn(M), {To, From, asI64(B, Bytes), B.getInt64(FloatsOnly)});
}

void emitAllocatedBlock(IRBuilder<> &B, Value *Shadow, Value *Bytes, bool Outlives) {
  Module &M = *B.GetInsertBlock()->getModule();
  B.CreateCall(allocatedFn(M), {Shadow, asI64(B, Bytes), B.getInt64(Outlives)});
}

bool relocationLogUsed(const Module &M) {
  const Function *F = M.getFunction(ReleasedName);
  return F && !F->use_empty();
}

/// snapshot(begin, end, capacity, stride, inner, out): *out = a malloc'd {count, the count
/// elements' pointers at inner}, or null when the three pointers do not bound whole elements.
static Function *snapshotFn(Module &M) {
  LLVMContext &C = M.getContext();
  Type *P = PointerType::getUnqual(C), *I = Type::getInt64Ty(C);
  return helper(M, SnapshotName, {P, P, P, I, I, P}, [&](HelperBody &H) {
    IRBuilder<> &B = H.B;
    Function *F = H.F;
    Value *Begin = H.addr(F->getArg(0)), *End = H.addr(F->getArg(1)), *Cap = H.addr(F->getArg(2));
    Value *Stride = F->getArg(3), *Out = F->getArg(5);
    B.CreateStore(ConstantPointerNull::get(B.getPtrTy()), Out);
    Value *Span = B.CreateSub(End, Begin);
    Value *Bad = B.CreateOr(B.CreateICmpEQ(Begin, B.getInt64(0)),
                            B.CreateOr(B.CreateICmpULT(End, Begin), B.CreateICmpULT(Cap, End)));
    Bad = B.CreateOr(Bad, B.CreateICmpNE(B.CreateURem(Span, Stride), B.getInt64(0)));
    Value *N = B.CreateUDiv(Span, Stride);
    H.returnIf(B.CreateOr(Bad, B.CreateICmpUGT(N, B.getInt64(1 << 24))));
    FunctionCallee Malloc = M.getOrInsertFunction("malloc", H.PtrTy, H.I64);
    Value *Buf = B.CreateCall(Malloc, {B.CreateShl(B.CreateAdd(N, B.getInt64(1)), 3)});
    H.returnIf(B.CreateIsNull(Buf));
    B.CreateStore(N, Buf);
    H.loop(B.getInt64(0), N, [&](Value *E) {
      Value *At = B.CreateAdd(B.CreateMul(E, Stride), F->getArg(4));
      Value *Elt = B.CreateLoad(H.PtrTy, B.CreateGEP(B.getInt8Ty(), F->getArg(0), At));
      B.CreateStore(Elt, B.CreateGEP(H.PtrTy, Buf, B.CreateAdd(E, B.getInt64(1))));
    });
    B.CreateStore(Buf, Out);
  });
}

void emitRelocationFrame(CallInst *Aug, CallInst *Rev, ArrayRef<std::pair<Value *, ContainerPath>> Fields) {
  Module &M = *Rev->getModule();
  Function *Caller = Rev->getFunction();
  IRBuilder<> EB(&*Caller->getEntryBlock().getFirstInsertionPt());
  Type *PtrTy = EB.getPtrTy(), *I64 = EB.getInt64Ty();
  size_t N = std::max<size_t>(1, 2 * Fields.size());
  AllocaInst *Save = EB.CreateAlloca(ArrayType::get(I64, 3), nullptr, "synthase.relocs.frame");
  AllocaInst *Pairs = EB.CreateAlloca(ArrayType::get(PtrTy, N), nullptr, "synthase.relocs.fields");
  AllocaInst *Shapes = EB.CreateAlloca(ArrayType::get(I64, 2 * N), nullptr, "synthase.relocs.shapes");
  // A hop through a null shadow pointer reads zeros here instead.
  int64_t Reach = 8;
  for (auto &F : Fields) {
    for (int64_t Off : F.second.Hops)
      Reach = std::max<int64_t>(Reach, Off + 8);
    Reach = std::max<int64_t>(Reach, std::max(F.second.End, F.second.Cap) + 8);
  }
  AllocaInst *Zeros = EB.CreateAlloca(ArrayType::get(EB.getInt8Ty(), Reach), nullptr, "synthase.relocs.none");
  auto readField = [&](IRBuilder<> &B, Value *Shadow, ArrayRef<int64_t> Path) {
    Value *P = Shadow;
    for (unsigned K = 0; K < Path.size(); ++K) {
      Value *At = B.CreateConstGEP1_64(B.getInt8Ty(), B.CreateSelect(B.CreateIsNull(P), Zeros, P), Path[K]);
      P = B.CreateLoad(PtrTy, At);
    }
    return P;
  };
  // The caller's shadow containers' data pointers before the forward sweep redirects them.
  IRBuilder<> B(Aug ? Aug : Rev);
  if (!Fields.empty())
    B.CreateMemSet(Zeros, B.getInt8(0), Reach, Align(1));
  // An array's end (and capacity) pointer, read like its data pointer.
  auto sidePath = [](const ContainerPath &CP, int64_t Off) {
    std::vector<int64_t> Path = CP.Hops;
    Path.back() = Off;
    return Path;
  };
  // The array's end: its end pointer, or its data pointer and its element count (the count
  // word read as a pointer, since readField loads pointers).
  auto endOf = [&](IRBuilder<> &B, Value *Shadow, const ContainerPath &CP, Value *Data) -> Value * {
    Value *E = readField(B, Shadow, sidePath(CP, CP.End));
    if (!CP.Counts)
      return E;
    Value *N = B.CreatePtrToInt(E, I64);
    N = B.CreateSelect(B.CreateICmpULE(N, B.getInt64(1 << 24)), N, B.getInt64(0));
    return B.CreateGEP(B.getInt8Ty(), Data, B.CreateMul(N, B.getInt64(CP.Stride)));
  };
  auto Pairs2 = [&](IRBuilder<> &B, unsigned K) {
    return B.CreateLoad(PtrTy, B.CreateConstGEP1_64(PtrTy, Pairs, 2 * K + 1));
  };
  for (unsigned K = 0; K < Fields.size(); ++K) {
    const ContainerPath &CP = Fields[K].second;
    Value *Data = readField(B, Fields[K].first, CP.Hops);
    B.CreateStore(Data, B.CreateConstGEP1_64(PtrTy, Pairs, 2 * K));
    B.CreateStore(B.getInt64(CP.Stride), B.CreateConstGEP1_64(I64, Shapes, 4 * K));
    B.CreateStore(B.getInt64(CP.Inner), B.CreateConstGEP1_64(I64, Shapes, 4 * K + 1));
    Value *Snap = B.CreateConstGEP1_64(I64, Shapes, 4 * K + 2);
    if (CP.End < 0) {
      B.CreateStore(B.getInt64(0), Snap);
    } else {
      Value *End = endOf(B, Fields[K].first, CP, Data);
      Value *Cap = CP.Cap < 0 ? End : readField(B, Fields[K].first, sidePath(CP, CP.Cap));
      B.CreateCall(snapshotFn(M), {Data, End, Cap, B.getInt64(CP.Stride), B.getInt64(CP.Inner), Snap});
    }
  }
  B.SetInsertPoint(Rev);
  B.CreateCall(openFn(M), {Save});
  B.SetInsertPoint(Rev->getNextNode());
  for (unsigned K = 0; K < Fields.size(); ++K) {
    const ContainerPath &CP = Fields[K].second;
    B.CreateStore(readField(B, Fields[K].first, CP.Hops), B.CreateConstGEP1_64(PtrTy, Pairs, 2 * K + 1));
    Value *EndAfter =
        CP.End < 0 ? B.getInt64(0) : B.CreatePtrToInt(endOf(B, Fields[K].first, CP, Pairs2(B, K)), I64);
    B.CreateStore(EndAfter, B.CreateConstGEP1_64(I64, Shapes, 4 * K + 3));
  }
  B.CreateCall(closeFn(M), {Save, Pairs, B.getInt64(Fields.size()), Shapes});
}


void privatizeRelocationLog(Function &F) {
  SmallVector<CallInst *, 8> Calls;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *G = CI->getCalledFunction(); G && G->hasFnAttribute(TapeRuntimeAttr) &&
                                                  G->getName().starts_with("__synthase_relocs_"))
        Calls.push_back(CI);
  for (CallInst *CI : Calls)
    CI->eraseFromParent();
}

} // namespace synthase

#include "Rules/Allocators.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {
namespace {

enum : uint8_t { Zeroed = 1, SizeOfString = 2, Rust = 4, Mapping = 8 };
constexpr AllocRole A = AllocRole::Alloc, R = AllocRole::Realloc, F = AllocRole::Free;

struct Entry {
  const char *Name;
  AllocRole Role;
  int8_t Size, Count, Align, Out, Ptr, OldSize;
  uint8_t Flags;
  const char *Free;     ///< Alloc/Realloc: the deallocator of a block
  const char *FreeArgs; ///< its arguments: -1 the block, k the allocation's argument k
};

// Argument positions; -1: none. Every aligned `new` is released by the aligned `delete` of the
// same form with the same alignment; every other `new` by the plain `delete` of its form.
const Entry Table[] = {
    // name                                 role size cnt algn out ptr old flags
    {"malloc",                                 A, 0, -1, -1, -1, -1, -1, 0, "free", "-1"},
    {"calloc",                                 A, 0, 1, -1, -1, -1, -1, Zeroed, "free", "-1"},
    {"aligned_alloc",                          A, 1, -1, 0, -1, -1, -1, 0, "free", "-1"},
    {"memalign",                               A, 1, -1, 0, -1, -1, -1, 0, "free", "-1"},
    {"posix_memalign",                         A, 2, -1, 1, 0, -1, -1, 0, "free", "-1"},
    {"valloc",                                 A, 0, -1, -1, -1, -1, -1, 0, "free", "-1"},
    {"pvalloc",                                A, 0, -1, -1, -1, -1, -1, 0, "free", "-1"},
    {"strdup",                                 A, -1, -1, -1, -1, -1, -1, SizeOfString, "free", "-1"},
    {"strndup",                                A, -1, -1, -1, -1, -1, -1, SizeOfString, "free", "-1"},
    {"realloc",                                R, 1, -1, -1, -1, 0, -1, 0, "free", "-1"},
    {"reallocarray",                           R, 1, 2, -1, -1, 0, -1, 0, "free", "-1"},
    {"free",                                   F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    // mmap(addr, length, prot, flags, fd, offset): scratch memory; munmap(block, length).
    {"mmap",                                   A, 1, -1, -1, -1, -1, -1, Zeroed | Mapping, "munmap", "-1,1"},
    {"mmap64",                                 A, 1, -1, -1, -1, -1, -1, Zeroed | Mapping, "munmap", "-1,1"},
    {"munmap",                                 F, 1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_Znwm",                                  A, 0, -1, -1, -1, -1, -1, 0, "_ZdlPv", "-1"},
    {"_ZnwmRKSt9nothrow_t",                    A, 0, -1, -1, -1, -1, -1, 0, "_ZdlPv", "-1"},
    {"_ZnwmSt11align_val_t",                   A, 0, -1, 1, -1, -1, -1, 0, "_ZdlPvSt11align_val_t", "-1,1"},
    {"_ZnwmSt11align_val_tRKSt9nothrow_t",     A, 0, -1, 1, -1, -1, -1, 0, "_ZdlPvSt11align_val_t", "-1,1"},
    {"_Znam",                                  A, 0, -1, -1, -1, -1, -1, 0, "_ZdaPv", "-1"},
    {"_ZnamRKSt9nothrow_t",                    A, 0, -1, -1, -1, -1, -1, 0, "_ZdaPv", "-1"},
    {"_ZnamSt11align_val_t",                   A, 0, -1, 1, -1, -1, -1, 0, "_ZdaPvSt11align_val_t", "-1,1"},
    {"_ZnamSt11align_val_tRKSt9nothrow_t",     A, 0, -1, 1, -1, -1, -1, 0, "_ZdaPvSt11align_val_t", "-1,1"},
    {"_ZdlPv",                                 F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdlPvm",                                F, 1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdlPvRKSt9nothrow_t",                   F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdlPvSt11align_val_t",                  F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdlPvmSt11align_val_t",                 F, 1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdlPvSt11align_val_tRKSt9nothrow_t",    F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdaPv",                                 F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdaPvm",                                F, 1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdaPvRKSt9nothrow_t",                   F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdaPvSt11align_val_t",                  F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdaPvmSt11align_val_t",                 F, 1, -1, -1, -1, 0, -1, 0, "", ""},
    {"_ZdaPvSt11align_val_tRKSt9nothrow_t",    F, -1, -1, -1, -1, 0, -1, 0, "", ""},
    // Rust's allocator shims: (size, align), realloc (ptr, old size, align, new size),
    // dealloc (ptr, size, align). `Free` names a sibling shim with the same mangling.
    {"__rust_alloc",                           A, 0, -1, 1, -1, -1, -1, Rust, "__rust_dealloc", "-1,0,1"},
    {"__rust_alloc_zeroed",                    A, 0, -1, 1, -1, -1, -1, Rust | Zeroed, "__rust_dealloc", "-1,0,1"},
    {"__rust_realloc",                         R, 3, -1, 2, -1, 0, 1, Rust, "__rust_dealloc", "-1,3,2"},
    {"__rust_dealloc",                         F, 1, -1, -1, -1, 0, -1, Rust, "", ""},
};

// Rust v0 mangling spells an identifier as its decimal length, a '_' when it starts with '_' or
// a digit, then the bytes: rustc 1.95 emits `_RNvCs<crate hash>_7___rustc12___rust_alloc`.
std::string v0Identifier(StringRef Id) {
  std::string S = std::to_string(Id.size());
  if (!Id.empty() && (Id[0] == '_' || isDigit(Id[0])))
    S += '_';
  return S + Id.str();
}

// "-1,2": the deallocator's arguments (-1 the block, k the allocation's argument k). Anything
// that is not a list of numbers (Enzyme users write "free") means the block alone.
SmallVector<int, 3> parseIndices(StringRef S) {
  SmallVector<int, 3> Out;
  SmallVector<StringRef, 4> Parts;
  S.split(Parts, ',');
  for (StringRef P : Parts) {
    int K;
    if (P.trim().getAsInteger(10, K))
      return {-1};
    Out.push_back(K);
  }
  return Out;
}

Allocator fromEntry(const Entry &E, StringRef Prefix) {
  Allocator Al;
  Al.Role = E.Role;
  Al.Size = E.Size;
  Al.Count = E.Count;
  Al.Align = E.Align;
  Al.Out = E.Out;
  Al.Ptr = E.Ptr;
  Al.OldSize = E.OldSize;
  Al.Zeroed = E.Flags & Zeroed;
  Al.SizeOfString = E.Flags & SizeOfString;
  Al.Rust = E.Flags & Rust;
  Al.Mapping = E.Flags & Mapping;
  auto sibling = [&](StringRef Base) {
    return Prefix.empty() ? Base.str() : Prefix.str() + v0Identifier(Base);
  };
  if (*E.Free) {
    Al.Free = Al.Rust ? sibling(E.Free) : E.Free;
    Al.FreeArgs = parseIndices(E.FreeArgs);
  }
  if (E.Role == AllocRole::Realloc)
    Al.ZeroedAlloc = Al.Rust ? sibling("__rust_alloc_zeroed") : "calloc";
  return Al;
}

constexpr StringLiteral AttrSize = "synthase-alloc-size", AttrFree = "synthase-alloc-free",
                        AttrFreeArgs = "synthase-alloc-free-args", AttrFreePtr = "synthase-free-ptr";

std::optional<Allocator> userAllocator(const Function *Fn) {
  if (Fn->hasFnAttribute(AttrFreePtr)) {
    Allocator Al;
    Al.User = true;
    Al.Role = AllocRole::Free;
    Fn->getFnAttribute(AttrFreePtr).getValueAsString().getAsInteger(10, Al.Ptr);
    return Al;
  }
  if (!Fn->hasFnAttribute(AttrSize))
    return std::nullopt;
  Allocator Al;
  Al.User = true;
  Fn->getFnAttribute(AttrSize).getValueAsString().getAsInteger(10, Al.Size);
  Al.Free = Fn->getFnAttribute(AttrFree).getValueAsString().str();
  Al.FreeArgs = parseIndices(Fn->getFnAttribute(AttrFreeArgs).getValueAsString());
  return Al;
}

Value *castArg(IRBuilder<> &B, Value *V, Type *T) {
  if (V->getType() == T)
    return V;
  if (V->getType()->isIntegerTy() && T->isIntegerTy())
    return B.CreateZExtOrTrunc(V, T);
  return B.CreateBitOrPointerCast(V, T);
}

CallInst *callByName(IRBuilder<> &B, StringRef Name, Type *Ret, SmallVectorImpl<Value *> &Args) {
  Module *M = B.GetInsertBlock()->getModule();
  FunctionType *FT;
  Function *Known = M->getFunction(Name);
  if (Known && Known->arg_size() == Args.size()) {
    FT = Known->getFunctionType(); // a user's deallocator keeps its own signature
  } else {
    SmallVector<Type *, 4> Tys;
    for (Value *V : Args)
      Tys.push_back(V->getType());
    FT = FunctionType::get(Ret, Tys, false);
  }
  for (unsigned i = 0; i < Args.size(); ++i)
    Args[i] = castArg(B, Args[i], FT->getParamType(i));
  return B.CreateCall(M->getOrInsertFunction(Name, FT), Args);
}

} // namespace

std::optional<Allocator> allocatorFor(const Function *Fn) {
  if (!Fn)
    return std::nullopt;
  static const StringMap<const Entry *> ByName = [] {
    StringMap<const Entry *> M;
    for (const Entry &E : Table)
      M[E.Name] = &E;
    return M;
  }();
  StringRef N = Fn->getName();
  if (auto It = ByName.find(N); It != ByName.end())
    return fromEntry(*It->second, "");
  static const std::vector<std::pair<std::string, const Entry *>> RustIds = [] {
    std::vector<std::pair<std::string, const Entry *>> V;
    for (const Entry &E : Table)
      if (E.Flags & Rust)
        V.push_back({v0Identifier(E.Name), &E});
    return V;
  }();
  if (N.starts_with("_R"))
    for (const auto &[Id, E] : RustIds)
      // The length must not be the tail of a longer number ("112___rust_alloc").
      if (N.ends_with(Id) && N.size() > Id.size() && !isDigit(N[N.size() - Id.size() - 1]))
        return fromEntry(*E, N.drop_back(Id.size()));
  return userAllocator(Fn);
}

void registerUserAllocators(Module &M) {
  for (GlobalVariable &G : M.globals()) {
    // clang runs the pass at the start and at the end of its pipeline: report each error once.
    if (!G.getName().starts_with("__enzyme_allocation_like") || !G.hasInitializer() ||
        G.getMetadata("synthase.malformed"))
      continue;
    auto bad = [&](const Twine &Why) {
      G.setMetadata("synthase.malformed", MDNode::get(M.getContext(), {}));
      reportModuleError(M, "'" + G.getName() + "' is malformed: " + Why,
                        "write {(void *)alloc, (void *)SIZE_ARG_INDEX, (void *)\"-1\" (or the "
                        "deallocator's argument indices, -1 for the pointer), (void *)dealloc}");
    };
    auto *Init = dyn_cast<ConstantAggregate>(G.getInitializer());
    if (!Init || Init->getNumOperands() != 4) {
      bad("it must be an array of four pointers");
      continue;
    }
    auto *Alloc = dyn_cast<Function>(Init->getOperand(0)->stripPointerCastsAndAliases());
    auto *Dealloc = dyn_cast<Function>(Init->getOperand(3)->stripPointerCastsAndAliases());
    if (!Alloc || !Dealloc) {
      bad(Twine(!Alloc ? "the first" : "the fourth") + " entry is not a function");
      continue;
    }
    int64_t SizeIdx = -1;
    Constant *SizeC = Init->getOperand(1);
    if (SizeC->isNullValue())
      SizeIdx = 0;
    else if (auto *CE = dyn_cast<ConstantExpr>(SizeC); CE && CE->getOpcode() == Instruction::IntToPtr)
      if (auto *CI = dyn_cast<ConstantInt>(CE->getOperand(0)))
        SizeIdx = CI->getSExtValue();
    if (SizeIdx < 0 || SizeIdx >= (int64_t)Alloc->arg_size() ||
        !Alloc->getArg(SizeIdx)->getType()->isIntegerTy()) {
      bad("the second entry must be the index of an integer (size) argument of '" +
          Alloc->getName() + "'");
      continue;
    }
    StringRef How;
    if (!getConstantStringInfo(Init->getOperand(2), How)) {
      bad("the third entry must be a string");
      continue;
    }
    SmallVector<int, 3> FreeArgs = parseIndices(How);
    auto PtrPos = find(FreeArgs, -1);
    bool ArgsOK = PtrPos != FreeArgs.end() &&
                  all_of(FreeArgs, [&](int K) { return K >= -1 && K < (int)Alloc->arg_size(); }) &&
                  (Dealloc->isVarArg() || Dealloc->arg_size() == FreeArgs.size());
    if (!ArgsOK) {
      bad("the deallocator's arguments \"" + How + "\" do not fit '" + Dealloc->getName() +
          "' (list -1 for the pointer and k for the allocator's k-th argument)");
      continue;
    }
    std::string Args;
    for (int K : FreeArgs)
      Args += (Args.empty() ? "" : ",") + std::to_string(K);
    Alloc->addFnAttr(AttrSize, std::to_string(SizeIdx));
    Alloc->addFnAttr(AttrFree, Dealloc->getName());
    Alloc->addFnAttr(AttrFreeArgs, Args);
    Dealloc->addFnAttr(AttrFreePtr, std::to_string(PtrPos - FreeArgs.begin()));
    // Inlined before the link (an LTO compile inlines after this pass), an allocator would
    // reach the full-LTO link as plain pointer arithmetic with no allocation left to see.
    for (Function *Fn : {Alloc, Dealloc})
      if (!Fn->hasFnAttribute(Attribute::AlwaysInline))
        Fn->addFnAttr(Attribute::NoInline);
  }
}

Value *allocationBytes(IRBuilder<> &B, const Allocator &A, AllocArgFn Arg) {
  Value *N = B.CreateZExtOrTrunc(Arg(A.Size), B.getInt64Ty());
  if (A.Count >= 0)
    N = B.CreateMul(N, B.CreateZExtOrTrunc(Arg(A.Count), B.getInt64Ty()));
  return N;
}

Value *emitShadowAllocation(IRBuilder<> &B, CallBase *C, const Allocator &A, Value *OutShadow,
                            const Twine &Name) {
  SmallVector<Value *, 4> Args(C->args());
  if (A.Out >= 0)
    Args[A.Out] = OutShadow;
  if (A.Mapping && Args.size() == 6) {
    // Whatever the primal maps (a file, a fixed address, read-only pages), the shadow is fresh
    // private anonymous memory of the same length: zero-filled, writable, never the file itself.
    // Linux values: PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS.
    Args[0] = Constant::getNullValue(Args[0]->getType());
    Args[2] = ConstantInt::get(Args[2]->getType(), 0x3);
    Args[3] = ConstantInt::get(Args[3]->getType(), 0x22);
    Args[4] = ConstantInt::get(Args[4]->getType(), -1, true);
    Args[5] = ConstantInt::get(Args[5]->getType(), 0);
  }
  CallInst *S = B.CreateCall(C->getFunctionType(), C->getCalledOperand(), Args,
                             A.Out >= 0 ? Twine() : Name);
  S->setAttributes(C->getAttributes());
  S->setCallingConv(C->getCallingConv());
  Value *Block = A.Out >= 0 ? B.CreateLoad(B.getPtrTy(), OutShadow, Name) : (Value *)S;
  if (A.Zeroed)
    return Block;
  Value *Bytes;
  if (A.SizeOfString) {
    // A copy of a string: the bytes are not derivatives, the terminator bounds the block.
    Type *SizeT = B.GetInsertBlock()->getModule()->getDataLayout().getIntPtrType(B.getContext());
    SmallVector<Value *, 1> SArgs{Block};
    Bytes = B.CreateAdd(callByName(B, "strlen", SizeT, SArgs), ConstantInt::get(SizeT, 1));
  } else {
    Bytes = allocationBytes(B, A, [&](unsigned K) { return Args[K]; });
  }
  B.CreateMemSet(Block, B.getInt8(0), Bytes, MaybeAlign());
  return Block;
}

void emitShadowFree(IRBuilder<> &B, const Allocator &A, Value *Block, AllocArgFn Arg) {
  SmallVector<Value *, 3> Args;
  for (int K : A.FreeArgs)
    Args.push_back(K < 0 ? Block : Arg(K));
  callByName(B, A.Free, B.getVoidTy(), Args);
}

Value *emitZeroedBlock(IRBuilder<> &B, const Allocator &A, Value *Bytes, AllocArgFn Arg,
                       const Twine &Name) {
  SmallVector<Value *, 2> Args{Bytes, A.Rust ? Arg(A.Align) : B.getInt64(1)};
  CallInst *S = callByName(B, A.ZeroedAlloc, B.getPtrTy(), Args);
  S->setName(Name);
  return S;
}

static bool allocatesWithin(const Function *F, unsigned Depth, SmallPtrSetImpl<const Function *> &Seen) {
  if (!Seen.insert(F).second)
    return false;
  for (const BasicBlock &BB : *F)
    for (const Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (const Function *G = CB->getCalledFunction()) {
          std::optional<Allocator> A = allocatorFor(G);
          if (A && A->Role != AllocRole::Free && A->Out < 0)
            return true;
          if (!A && Depth > 0 && !G->isDeclaration() && G->getReturnType()->isPointerTy() &&
              allocatesWithin(G, Depth - 1, Seen))
            return true;
        }
  return false;
}

bool mayReturnAllocation(const Function *F) {
  if (!F || F->isDeclaration() || !F->getReturnType()->isPointerTy() || isAllocator(F))
    return false;
  SmallPtrSet<const Function *, 8> Seen;
  return allocatesWithin(F, 4, Seen);
}

} // namespace synthase

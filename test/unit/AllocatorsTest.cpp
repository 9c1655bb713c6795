// The allocator table (lib/Rules/Allocators): every C, C++ and Rust spelling maps to the right
// size, alignment, out-argument and deallocator; Rust's v0-mangled shims are matched by their
// identifier; `__enzyme_allocation_like` registrations are read, and malformed ones reported.
#include "Rules/Allocators.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>

using namespace llvm;
using namespace synthase;

namespace {

struct Mod {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::string Errors;
  explicit Mod(StringRef Text) {
    Ctx.setDiagnosticHandlerCallBack(
        [](const DiagnosticInfo *DI, void *Out) {
          raw_string_ostream OS(*static_cast<std::string *>(Out));
          DiagnosticPrinterRawOStream DP(OS);
          DI->print(DP);
          OS << "\n";
        },
        &Errors);
    SMDiagnostic Err;
    M = parseAssemblyString(Text, Err, Ctx);
    if (!M) {
      std::string S;
      raw_string_ostream OS(S);
      Err.print("AllocatorsTest", OS);
      ADD_FAILURE() << S;
    }
  }
  std::optional<Allocator> of(StringRef Name) { return allocatorFor(M->getFunction(Name)); }
};

/// A module declaring one function of each name (the signature does not matter to the table).
std::optional<Allocator> lookup(StringRef Name) {
  Mod D(("declare ptr @\"" + Name + "\"(i64, i64)\n").str());
  return D.of(Name);
}

TEST(AllocatorsTest, CAllocators) {
  auto M = lookup("malloc");
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Role, AllocRole::Alloc);
  EXPECT_EQ(M->Size, 0);
  EXPECT_FALSE(M->Zeroed);
  EXPECT_EQ(M->Free, "free");
  EXPECT_EQ(M->FreeArgs, (SmallVector<int, 3>{-1}));

  auto C = lookup("calloc");
  EXPECT_TRUE(C && C->Zeroed && C->Size == 0 && C->Count == 1);
  // aligned_alloc(alignment, size): the size is the second argument, not the first.
  for (StringRef N : {"aligned_alloc", "memalign"}) {
    auto A = lookup(N);
    EXPECT_TRUE(A && A->Size == 1 && A->Align == 0) << N.str();
  }
  auto P = lookup("posix_memalign");
  EXPECT_TRUE(P && P->Out == 0 && P->Align == 1 && P->Size == 2);
  for (StringRef N : {"valloc", "pvalloc"})
    EXPECT_TRUE(lookup(N) && lookup(N)->Size == 0) << N.str();
  for (StringRef N : {"strdup", "strndup"})
    EXPECT_TRUE(lookup(N) && lookup(N)->SizeOfString) << N.str();
  auto R = lookup("realloc");
  EXPECT_TRUE(R && R->Role == AllocRole::Realloc && R->Ptr == 0 && R->Size == 1 && R->Count == -1);
  EXPECT_EQ(R->ZeroedAlloc, "calloc");
  auto RA = lookup("reallocarray");
  EXPECT_TRUE(RA && RA->Role == AllocRole::Realloc && RA->Size == 1 && RA->Count == 2);
  auto F = lookup("free");
  EXPECT_TRUE(F && F->Role == AllocRole::Free && F->Ptr == 0);
  EXPECT_FALSE(lookup("my_malloc"));
  EXPECT_FALSE(allocatorFor(nullptr));
}

TEST(AllocatorsTest, CxxNewPairsWithItsDelete) {
  struct Case {
    const char *New, *Delete;
    int Align;
  } Cases[] = {
      {"_Znwm", "_ZdlPv", -1},
      {"_ZnwmRKSt9nothrow_t", "_ZdlPv", -1},
      {"_ZnwmSt11align_val_t", "_ZdlPvSt11align_val_t", 1},
      {"_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZdlPvSt11align_val_t", 1},
      {"_Znam", "_ZdaPv", -1},
      {"_ZnamRKSt9nothrow_t", "_ZdaPv", -1},
      {"_ZnamSt11align_val_t", "_ZdaPvSt11align_val_t", 1},
      {"_ZnamSt11align_val_tRKSt9nothrow_t", "_ZdaPvSt11align_val_t", 1},
  };
  for (const Case &C : Cases) {
    auto A = lookup(C.New);
    ASSERT_TRUE(A) << C.New;
    EXPECT_EQ(A->Role, AllocRole::Alloc);
    EXPECT_EQ(A->Size, 0);
    EXPECT_EQ(A->Align, C.Align) << C.New;
    EXPECT_EQ(A->Free, C.Delete) << C.New;
    // The aligned delete gets the allocation's alignment argument.
    EXPECT_EQ(A->FreeArgs, C.Align < 0 ? (SmallVector<int, 3>{-1}) : (SmallVector<int, 3>{-1, 1}));
  }
  for (const char *D : {"_ZdlPv", "_ZdlPvm", "_ZdlPvRKSt9nothrow_t", "_ZdlPvSt11align_val_t",
                        "_ZdlPvmSt11align_val_t", "_ZdlPvSt11align_val_tRKSt9nothrow_t", "_ZdaPv",
                        "_ZdaPvm", "_ZdaPvRKSt9nothrow_t", "_ZdaPvSt11align_val_t",
                        "_ZdaPvmSt11align_val_t", "_ZdaPvSt11align_val_tRKSt9nothrow_t"}) {
    auto A = lookup(D);
    EXPECT_TRUE(A && A->Role == AllocRole::Free && A->Ptr == 0) << D;
  }
}

TEST(AllocatorsTest, RustShimsPlainAndMangled) {
  // rustc 1.95 (debug and release): _RNvCs<hash>_7___rustc12___rust_alloc and siblings.
  const std::string P = "_RNvCsfLfy6EI15iL_7___rustc";
  auto A = lookup(P + "12___rust_alloc");
  ASSERT_TRUE(A);
  EXPECT_TRUE(A->Rust && A->Role == AllocRole::Alloc && A->Size == 0 && A->Align == 1);
  EXPECT_EQ(A->Free, P + "14___rust_dealloc");
  EXPECT_EQ(A->FreeArgs, (SmallVector<int, 3>{-1, 0, 1}));
  auto Z = lookup(P + "19___rust_alloc_zeroed");
  EXPECT_TRUE(Z && Z->Zeroed && Z->Free == P + "14___rust_dealloc");
  auto R = lookup(P + "14___rust_realloc");
  ASSERT_TRUE(R);
  EXPECT_TRUE(R->Role == AllocRole::Realloc && R->Ptr == 0 && R->OldSize == 1 && R->Align == 2 &&
              R->Size == 3);
  EXPECT_EQ(R->ZeroedAlloc, P + "19___rust_alloc_zeroed");
  EXPECT_EQ(R->FreeArgs, (SmallVector<int, 3>{-1, 3, 2}));
  auto D = lookup(P + "14___rust_dealloc");
  EXPECT_TRUE(D && D->Role == AllocRole::Free && D->Ptr == 0);
  // Unmangled (older rustc) spellings.
  auto U = lookup("__rust_alloc");
  EXPECT_TRUE(U && U->Free == "__rust_dealloc");
  // Not the shim: another identifier ending the same way, or a longer length prefix.
  EXPECT_FALSE(lookup(P + "14my__rust_alloc"));
  EXPECT_FALSE(lookup(P + "112___rust_alloc"));
  EXPECT_FALSE(lookup("_ZN5alloc5alloc5alloc17h0123456789abcdefE"));
  EXPECT_FALSE(lookup(P + "11___rdl_alloc"));
}

TEST(AllocatorsTest, EnzymeAllocationLike) {
  Mod D(R"(
@.free = private constant [5 x i8] c"free\00"
@.idx = private constant [5 x i8] c"-1,0\00"
@__enzyme_allocation_like = global [4 x ptr] [ptr @arena_alloc, ptr inttoptr (i64 1 to ptr), ptr @.free, ptr @arena_free]
@__enzyme_allocation_like2 = global [4 x ptr] [ptr @pool_alloc, ptr null, ptr @.idx, ptr @pool_free]
define ptr @arena_alloc(ptr %a, i64 %n) {
  ret ptr null
}
define void @arena_free(ptr %p) {
  ret void
}
declare ptr @pool_alloc(i64)
declare void @pool_free(ptr, i64)
)");
  EXPECT_FALSE(D.of("arena_alloc")); // unknown until the registrations are read
  registerUserAllocators(*D.M);
  EXPECT_EQ(D.Errors, "");
  auto A = D.of("arena_alloc");
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Role, AllocRole::Alloc);
  EXPECT_EQ(A->Size, 1);
  EXPECT_EQ(A->Free, "arena_free");
  EXPECT_EQ(A->FreeArgs, (SmallVector<int, 3>{-1}));
  auto F = D.of("arena_free");
  EXPECT_TRUE(F && F->Role == AllocRole::Free && F->Ptr == 0);
  auto P = D.of("pool_alloc");
  EXPECT_TRUE(P && P->Size == 0 && P->Free == "pool_free");
  EXPECT_EQ(P->FreeArgs, (SmallVector<int, 3>{-1, 0}));
  auto PF = D.of("pool_free");
  EXPECT_TRUE(PF && PF->Role == AllocRole::Free && PF->Ptr == 0);
}

TEST(AllocatorsTest, MalformedRegistrationsAreReported) {
  Mod D(R"(
@.free = private constant [5 x i8] c"free\00"
@.bad = private constant [4 x i8] c"0,1\00"
@__enzyme_allocation_like_a = global [4 x ptr] [ptr @alloc1, ptr inttoptr (i64 3 to ptr), ptr @.free, ptr @free1]
@__enzyme_allocation_like_b = global [4 x ptr] [ptr @alloc1, ptr null, ptr @.bad, ptr @free1]
@__enzyme_allocation_like_c = global [2 x ptr] [ptr @alloc1, ptr null]
@__enzyme_allocation_like_d = global [4 x ptr] [ptr @alloc1, ptr null, ptr @.free, ptr null]
declare ptr @alloc1(i64)
declare void @free1(ptr)
)");
  registerUserAllocators(*D.M);
  EXPECT_NE(D.Errors.find("__enzyme_allocation_like_a' is malformed: the second entry"), std::string::npos) << D.Errors;
  EXPECT_NE(D.Errors.find("__enzyme_allocation_like_b' is malformed: the deallocator's arguments"), std::string::npos) << D.Errors;
  EXPECT_NE(D.Errors.find("__enzyme_allocation_like_c' is malformed: it must be an array of four"), std::string::npos) << D.Errors;
  EXPECT_NE(D.Errors.find("__enzyme_allocation_like_d' is malformed: the fourth entry"), std::string::npos) << D.Errors;
  EXPECT_FALSE(D.of("alloc1"));
}

} // namespace

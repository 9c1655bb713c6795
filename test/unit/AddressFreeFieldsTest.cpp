// storesIntoAddressFreeField (lib/Analysis/AddressFreeFields): in a local record that keeps an
// address as an integer and is also reached through a merged pointer (hashbrown's table in a
// Rust release build), counters made of constants, of one another and of small hash bytes are
// told from the address field; anything made from a pointer's bits, a parameter, other memory
// or a field that may hold an address is not. Integers narrower than an address made of no wide
// value are counts anywhere (a B-tree node's u16 length).
#include "Analysis/UnshadowedMemory.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include <gtest/gtest.h>

using namespace llvm;
using namespace synthase;

namespace {

// %t: { i64 address, i64 mask, i64 left, i64 items }. %m merges %t+8 with a constant; %p merges
// %t with another object and a pointer is loaded through it, at an offset the walk cannot name.
const char *Table = R"(
declare ptr @malloc(i64)
define void @f(i1 %c, i64 %arg, ptr %other, i8 %hash) {
entry:
  %t = alloca [32 x i8], align 8
  %mask = getelementptr inbounds i8, ptr %t, i64 8
  %left = getelementptr inbounds i8, ptr %t, i64 16
  %items = getelementptr inbounds i8, ptr %t, i64 24
  %buf = call ptr @malloc(i64 64)
  %bits = ptrtoint ptr %buf to i64
  store i64 %bits, ptr %t, align 8
  store i64 15, ptr %mask, align 8
  store i64 0, ptr %items, align 8
  %p = select i1 %c, ptr %t, ptr %other
  %q = load ptr, ptr %p, align 8
  br label %body
body:
  %m = phi ptr [ %mask, %entry ]
  %old = load i64, ptr %m, align 8
  %n = load i64, ptr %items, align 8
  %grown = shl i64 %old, 1
  %mask2 = or i64 %grown, 1
  store i64 %mask2, ptr %mask, align 8, !id !0
  %h = and i8 %hash, 1
  %hz = zext i8 %h to i64
  %cap = udiv i64 %mask2, 8
  %l = sub i64 %cap, %n
  %l2 = sub i64 %l, %hz
  store i64 %l2, ptr %left, align 8, !id !1
  %n1 = add i64 %n, 1
  store i64 %n1, ptr %items, align 8, !id !2
  %a = load i64, ptr %t, align 8
  %a8 = add i64 %a, 8
  store i64 %a8, ptr %left, align 8, !id !3
  %fromarg = add i64 %arg, 1
  store i64 %fromarg, ptr %items, align 8, !id !4
  ret void
}
!0 = !{!"mask"}
!1 = !{!"left"}
!2 = !{!"items"}
!3 = !{!"address into left"}
!4 = !{!"parameter into items"}
)";

struct Parsed {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  explicit Parsed(const char *Text) {
    SMDiagnostic Err;
    M = parseAssemblyString(Text, Err, Ctx);
    if (!M)
      ADD_FAILURE() << Err.getMessage().str();
  }
  const StoreInst *store(StringRef Id) {
    for (Instruction &I : instructions(*M->getFunction("f")))
      if (MDNode *N = I.getMetadata("id"))
        if (cast<MDString>(N->getOperand(0))->getString() == Id)
          return cast<StoreInst>(&I);
    ADD_FAILURE() << "no store " << Id.str();
    return nullptr;
  }
};

TEST(AddressFreeFields, CountersBesideAnAddressAreIntegers) {
  Parsed P(Table);
  ASSERT_TRUE(P.M);
  // The address itself, shifted by 8, is stored into `left`: then `left` may hold one, and so
  // may everything computed from it. Only `mask` (from itself and constants) stays clean.
  EXPECT_TRUE(storesIntoAddressFreeField(P.store("mask")));
  EXPECT_FALSE(storesIntoAddressFreeField(P.store("address into left")));
  EXPECT_FALSE(storesIntoAddressFreeField(P.store("left")));
  EXPECT_FALSE(storesIntoAddressFreeField(P.store("parameter into items")));
  EXPECT_FALSE(storesIntoAddressFreeField(P.store("items")));
}

TEST(AddressFreeFields, WithoutTheAddressStoresTheCountersAreClean) {
  std::string Text = Table;
  auto Drop = [&](StringRef Line) {
    size_t At = Text.find(Line.str());
    ASSERT_NE(At, std::string::npos);
    Text.erase(At, Text.find('\n', At) - At);
  };
  Drop("store i64 %a8, ptr %left");
  Drop("store i64 %fromarg, ptr %items");
  Parsed P(Text.c_str());
  ASSERT_TRUE(P.M);
  EXPECT_TRUE(storesIntoAddressFreeField(P.store("mask")));
  EXPECT_TRUE(storesIntoAddressFreeField(P.store("left")));
  EXPECT_TRUE(storesIntoAddressFreeField(P.store("items")));
}

// Narrower than an address: a node's u16 length incremented in place is a count wherever it
// lives; a truncated address or a truncated wide load is not known to be one.
TEST(AddressFreeFields, NarrowCountsAnywhere) {
  Parsed P(R"(
define void @f(ptr %node, ptr %q) {
  %lenp = getelementptr inbounds i8, ptr %node, i64 8
  %len = load i16, ptr %lenp, align 2
  %len1 = add i16 %len, 1
  store i16 %len1, ptr %lenp, align 2, !id !0
  %bits = ptrtoint ptr %q to i64
  %lo = trunc i64 %bits to i32
  store i32 %lo, ptr %node, align 4, !id !1
  %w = load i64, ptr %q, align 8
  %wlo = trunc i64 %w to i32
  store i32 %wlo, ptr %node, align 4, !id !2
  ret void
}
!0 = !{!"len"}
!1 = !{!"address half"}
!2 = !{!"wide half"}
)");
  ASSERT_TRUE(P.M);
  EXPECT_TRUE(storesIntoAddressFreeField(P.store("len")));
  EXPECT_FALSE(storesIntoAddressFreeField(P.store("address half")));
  EXPECT_FALSE(storesIntoAddressFreeField(P.store("wide half")));
}

} // namespace

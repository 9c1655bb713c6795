// At -O0 (and for extern templates at any level) the members of std::string, std::locale and the
// stream classes are out-of-line calls without a body in the module, on objects that hold
// pointers. No float passes through them, so they carry no derivative; without this list every
// local std::string in a differentiated function is refused. The entries are Itanium-mangled
// prefixes of whole classes whose members handle characters, sizes and flags only. Members
// that parse a floating-point value into memory (istream::_M_extract<double>) are NOT listed:
// the value they write has no derivative and its shadow would keep a stale one.
#include "Rules/InactiveLibraryCalls.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace synthase {

/// 'd', 'f' or 'e' (double, float, long double) for istream::_M_extract<T>(T&) and
/// operator>>(T&) of those T, else 0.
static char parsedFloatCode(StringRef N) {
  for (const char *P : {"_ZNSi10_M_extractI", "_ZNSirsER", "_ZNSt13basic_istreamIwSt11char_traitsIwEE10_M_extractI",
                        "_ZNSt13basic_istreamIwSt11char_traitsIwEErsER"})
    if (N.consume_front(P))
      return !N.empty() && StringRef("dfe").contains(N[0]) ? N[0] : 0;
  return 0;
}

Type *floatParsedByLibraryCall(LLVMContext &C, StringRef N) {
  switch (parsedFloatCode(N)) {
  case 'd':
    return Type::getDoubleTy(C);
  case 'f':
    return Type::getFloatTy(C);
  case 'e':
    return Type::getX86_FP80Ty(C);
  default:
    return nullptr;
  }
}

static bool isFloatExtraction(StringRef N) { return parsedFloatCode(N) != 0; }

/// The argument holding the format of a scanf-family function, or -1.
static int scanfFormatArg(StringRef N) {
  N.consume_front("__isoc99_") || N.consume_front("__isoc23_");
  if (N == "sscanf" || N == "fscanf")
    return 1;
  return N == "scanf" ? 0 : -1;
}

std::optional<SmallVector<ParsedFloat, 4>> floatsParsedByCall(const CallBase &CB) {
  const Function *G = CB.getCalledFunction();
  if (!G)
    return std::nullopt;
  if (Type *T = floatParsedByLibraryCall(CB.getContext(), G->getName()))
    return SmallVector<ParsedFloat, 4>{{1, T}};
  int FmtArg = scanfFormatArg(G->getName());
  StringRef Fmt;
  if (FmtArg < 0 || (unsigned)FmtArg >= CB.arg_size() || !getConstantStringInfo(CB.getArgOperand(FmtArg), Fmt))
    return std::nullopt;
  SmallVector<ParsedFloat, 4> Out;
  LLVMContext &C = CB.getContext();
  unsigned Arg = FmtArg + 1;
  for (size_t K = 0; K < Fmt.size(); ++K) {
    if (Fmt[K] != '%')
      continue;
    if (++K < Fmt.size() && Fmt[K] == '%')
      continue;
    bool Suppressed = K < Fmt.size() && Fmt[K] == '*';
    K += Suppressed;
    while (K < Fmt.size() && isDigit(Fmt[K]))
      ++K;
    unsigned Longs = 0;
    bool LongDouble = false;
    while (K < Fmt.size() && StringRef("hljztLqm").contains(Fmt[K])) {
      Longs += Fmt[K] == 'l';
      LongDouble |= Fmt[K] == 'L' || Fmt[K] == 'q';
      ++K;
    }
    // A conversion this does not know (a positional `%1$lf`, a misspelling) may write a float
    // where it cannot tell: the call is then not taken as a parse, and stays refused.
    if (K >= Fmt.size() || !StringRef("diouxXnaAeEfFgGscp[").contains(Fmt[K]))
      return std::nullopt;
    char Conv = Fmt[K];
    if (Conv == '[')
      K = Fmt.find(']', K + 2); // a leading ']' belongs to the set
    if (K == StringRef::npos)
      return std::nullopt;
    if (Suppressed)
      continue;
    if (StringRef("aAeEfFgG").contains(Conv) && Arg < CB.arg_size())
      Out.push_back({Arg, LongDouble ? Type::getX86_FP80Ty(C) : Longs ? Type::getDoubleTy(C) : Type::getFloatTy(C)});
    ++Arg;
  }
  return Out;
}

/// Rust's text formatting: `format!`, `write!`, `println!` and `to_string` on numbers reach
/// these with an `fmt::Arguments` that points at the (maybe active) values and at their
/// formatter functions. They only read those values and write bytes (a String's buffer, stdout),
/// so no derivative passes through; differentiated, they would drag in std's float printing,
/// backtrace printing and every formatter behind the vtables.
static bool isRustFormatting(StringRef N) {
  if (!(N.starts_with("_R") || N.starts_with("_ZN")) || !(N.contains("3fmt") || N.contains("5stdio")))
    return false;
  std::string D = llvm::demangle(N.str());
  StringRef S(D);
  for (StringRef P : {"core::fmt::", "alloc::fmt::", "std::io::stdio::_print", "std::io::stdio::_eprint",
                      "<f64 as core::fmt::", "<f32 as core::fmt::", "std::io::Write::write_fmt",
                      "<alloc::string::String as core::fmt::Write>::write_fmt"})
    if (S.starts_with(P))
      return true;
  return false;
}

/// Statics of Rust's standard library (stdout/stderr locks, the output-capture slot, thread
/// handles, hash seeds): bytes and pointers of std's own bookkeeping, never a user's floats. Rust
/// emits them untyped, as byte storage, which would otherwise get a shadow like a user's arena,
/// and the atomics of the locks inlined around `eprintln!` would then touch shadowed memory.
bool isInactiveLibraryGlobal(StringRef N) {
  bool Legacy = N.starts_with("_ZN") && N.ends_with("E") && N.size() > 20 && N.drop_back(17).ends_with("17h");
  if (!N.starts_with("_R") && !Legacy)
    return false;
  std::string D = llvm::demangle(N.str());
  StringRef S(D);
  return S.starts_with("std::") || S.starts_with("core::") || S.starts_with("alloc::");
}

bool isInactiveLibraryCall(StringRef N) {
  if (isFloatExtraction(N))
    return false;
  if (isRustFormatting(N))
    return true;
  // std::__throw_length_error and friends: "_ZSt" <length> "__throw_".
  if (N.consume_front("_ZSt")) {
    StringRef Rest = N.drop_while(isDigit);
    if (Rest.size() != N.size() && Rest.starts_with("__throw_"))
      return true;
    // operator<< only formats its operands; operator>> into strings and characters parses no
    // float (into std::complex it does).
    if (N.starts_with("ls") || (N.starts_with("rs") && !N.contains("7complex")))
      return true;
    static const char *const StdFree[] = {
        "9use_facet", "9has_facet", "4endl", "4ends", "5flush", "16__ostream_insert",
        "11_Hash_bytes", "15_Fnv_hash_bytes"};
    // Not the red-black tree's helpers (_Rb_tree_insert_and_rebalance, _Rb_tree_increment, ...):
    // they move node pointers, and are repeated on the shadow tree (Rules/NodeLinks.cpp).
    for (const char *P : StdFree)
      if (N.starts_with(P))
        return true;
    return false;
  }
  static const char *const Classes[] = {
      // std::string / std::wstring, both ABIs
      "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE",
      "_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE",
      "_ZNSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEE",
      "_ZNKSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEE", "_ZNSs", "_ZNKSs",
      // their allocators (construction and destruction are out of line: extern templates)
      "_ZNSaIcE", "_ZNSaIwE",
      // std::random_device: entropy for seeds
      "_ZNSt13random_device", "_ZNKSt13random_device",
      // locale, ios_base, basic_ios, ctype
      "_ZNSt6locale", "_ZNKSt6locale", "_ZNSt8ios_base", "_ZNKSt8ios_base", "_ZNSt9basic_ios",
      "_ZNKSt9basic_ios", "_ZNKSt5ctypeIcE", "_ZNKSt5ctypeIwE",
      // stream buffers and the stream classes' construction, state and character I/O
      "_ZNSt15basic_streambuf", "_ZNKSt15basic_streambuf", "_ZNSt13basic_filebuf",
      "_ZNSt12__basic_file", "_ZNKSt12__basic_file", // the C file a filebuf holds
      "_ZNKSt13basic_filebuf", "_ZNSt7__cxx1115basic_stringbuf", "_ZNKSt7__cxx1115basic_stringbuf",
      "_ZNSt7__cxx1118basic_stringstream", "_ZNKSt7__cxx1118basic_stringstream",
      "_ZNSt7__cxx1119basic_istringstream", "_ZNKSt7__cxx1119basic_istringstream",
      "_ZNSt7__cxx1119basic_ostringstream", "_ZNKSt7__cxx1119basic_ostringstream",
      "_ZNSt14basic_ifstream", "_ZNKSt14basic_ifstream", "_ZNSt14basic_ofstream",
      "_ZNKSt14basic_ofstream", "_ZNSt13basic_fstream", "_ZNKSt13basic_fstream",
      "_ZNSo", "_ZNSi", "_ZNSd", "_ZNSt13basic_ostreamIwSt11char_traitsIwEE",
      "_ZNSt13basic_istreamIwSt11char_traitsIwEE",
      // unordered containers' growth policy (sizes only)
      "_ZNKSt8__detail20_Prime_rehash_policy", "_ZNSt8__detail20_Prime_rehash_policy",
      // std::to_string of a number: vsnprintf into a new string (variadic, so never differentiated)
      "_ZN9__gnu_cxx12__to_xstring",
      // static locals' guards
      "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_atexit"};
  for (const char *P : Classes)
    if (N.starts_with(P))
      return true;
  return false;
}

bool isInactiveSyscall(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  if (!F || F->getName() != "syscall" || CB.arg_size() == 0)
    return false;
  auto *N = dyn_cast<ConstantInt>(CB.getArgOperand(0));
  if (!N)
    return false;
  // x86-64 numbers: sched_yield 24, getpid 39, gettid 186, futex 202, getrandom 318.
  switch (N->getSExtValue()) {
  case 24:
  case 39:
  case 186:
  case 202:
  case 318:
    return true;
  default:
    return false;
  }
}

std::optional<LibraryRead> libraryReadOf(StringRef Name) {
  if (Name == "read" || Name == "pread" || Name == "pread64" || Name == "recv" || Name == "__read_chk")
    return LibraryRead{1, -1};
  if (Name == "fread" || Name == "fread_unlocked")
    return LibraryRead{0, 1};
  // std::istream::read(char *, n) returns the stream: the n bytes asked for are what it may
  // write (a binary file read into a double); readsome and the buffer's sgetn count them.
  if (Name == "_ZNSi4readEPcl")
    return LibraryRead{1, -1, 2};
  if (Name == "_ZNSi8readsomeEPcl" || Name == "_ZNSt15basic_streambufIcSt11char_traitsIcEE5sgetnEPcl")
    return LibraryRead{1};
  return std::nullopt;
}

Value *bytesRead(IRBuilder<> &B, const LibraryRead &R, Value *Result, function_ref<Value *(unsigned)> Arg) {
  Value *N = B.CreateSExtOrTrunc(R.Count >= 0 ? Arg(R.Count) : Result, B.getInt64Ty());
  N = B.CreateBinaryIntrinsic(Intrinsic::smax, N, B.getInt64(0)); // -1: nothing was written
  if (R.ItemSize >= 0)
    N = B.CreateMul(N, B.CreateZExtOrTrunc(Arg(R.ItemSize), B.getInt64Ty()));
  return N;
}

} // namespace synthase

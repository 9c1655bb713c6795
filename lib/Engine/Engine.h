// The engine: one generated function per (function, mode, activities, width), cached in the module,
// plus what forward and reverse generation share (shadow globals, the simplifier, type tests).
#pragma once
#include "CallSite/DiffCall.h"
#include "Analysis/Preprocess.h"
#include "Rules/CustomDerivatives.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include <map>
#include <optional>
#include <tuple>

namespace synthase {

/// True when values of this type carry derivatives (floats, float vectors, aggregates of them).
bool carriesDerivative(llvm::Type *T);

struct Signature {
  llvm::Function *Fn;
  DiffMode Mode;
  std::vector<ArgKind> Acts;
  unsigned Width;
  bool RetPrimal;  // forward: return the primal too
  bool RetActive;  // forward: return the tangent; reverse: the return value is active
  /// Reverse mode called straight from the user's call site: nothing runs between the two sweeps,
  /// so memory the function never writes still holds the same values in the reverse sweep.
  bool TopLevel = false;
  /// Reverse mode: the function returns a pointer whose shadow the caller needs; the augmented
  /// sweep then returns {primal, shadow}.
  bool RetShadow = false;
  /// Reverse mode: the function runs on several threads at once (an OpenMP region and its
  /// callees), so adjoints are added into shared shadow memory atomically.
  bool Parallel = false;
  /// The caller may pass a null shadow for a Dup argument, or memory behind one that holds null
  /// shadow pointers (a const pointer stored into a struct the callee reads): every access through
  /// an argument or a loaded pointer is then guarded (see mayStoreNullShadows).
  bool ShadowArgsMaybeNull = false;
  /// Reverse mode, below the top level: bit k says that what pointer argument k points to holds
  /// the same values from the call until the callee's reverse sweep (the callers up to the top
  /// level never write it), so the callee may re-read it instead of taping what it loads.
  uint64_t UnchangedArgs = 0;
  bool operator<(const Signature &O) const {
    return std::tie(Fn, Mode, Acts, Width, RetPrimal, RetActive, TopLevel, RetShadow, Parallel, ShadowArgsMaybeNull,
                    UnchangedArgs) <
           std::tie(O.Fn, O.Mode, O.Acts, O.Width, O.RetPrimal, O.RetActive, O.TopLevel, O.RetShadow, O.Parallel,
                    O.ShadowArgsMaybeNull, O.UnchangedArgs);
  }
};

/// Reverse mode splits every function in two sharing one tape: the augmented forward sweep runs
/// the primal and records what the reverse sweep needs; the reverse sweep pops it backwards.
struct GradientPair {
  llvm::Function *Augmented = nullptr; ///< (args+shadows, tape*) -> primal return
  llvm::Function *Reverse = nullptr;   ///< (args+shadows, [dret], tape*) -> adjoints of Out args
  /// With RetShadow: the returned shadow may be null (the pointer may point into constant data).
  /// Unknown while the pair is being generated (recursion), so true until then.
  bool RetShadowMaybeNull = true;
};

class Engine {
public:
  explicit Engine(llvm::Module &M);

  /// Forward mode: (args, each Dup argument followed by Width shadows) ->
  /// {primal if RetPrimal, Width tangents if RetActive} (a single value is returned unwrapped).
  llvm::Function *tangentFunction(const Signature &S);
  /// Reverse mode pair, see GradientPair.
  GradientPair gradientPair(const Signature &S);

  /// The simplified clone of F that generators read (cached). ShadowedTapes: the clone a
  /// width-1 forward derivative reads, whose nested reverse call sites keep their tapes in the
  /// shadowed arena (Reverse/ShadowedTapeArena.cpp); the same clone when F has no such site.
  llvm::Function *primalOf(llvm::Function *F, bool ShadowedTapes = false);

  /// The shadow (one per vector lane, per shadow set) of a writable global holding float data, or
  /// pointers into such globals: floats start at zero, integers and pointers are copied, each
  /// pointer redirected to its pointee's shadow (lib/Engine/GlobalShadows.cpp).
  llvm::GlobalVariable *shadowGlobal(llvm::GlobalVariable *G, unsigned Lane = 0);
  /// Shadow sets: 0 is the context-free set; each `__enzyme_context` call site has its own.
  /// Generated functions are cached per set, since they name the set's shadow globals. Order is
  /// the derivative's order: a derivative of code that runs a first-order derivative (a Hessian-
  /// vector product) is of order 2 and needs shadows of its own, apart from the first-order
  /// shadows (the adjoints it differentiates), or the two would share memory. A context's set
  /// has one order: its owner seeds and reads those very shadows.
  void selectShadowSet(unsigned Set, unsigned Order = 1);
  unsigned shadowSet() const { return Set; }
  /// Makes the shadow of G (current set) the user's: it is no longer reset at each call.
  void markUserShadow(llvm::GlobalVariable *SG) { ShadowGlobals.erase(SG); UserShadows.insert(SG); }
  /// Every shadow of one set (for __enzyme_zero_shadows).
  llvm::SmallVector<llvm::GlobalVariable *, 8> shadowsOfSet(unsigned Set) const;
  /// Gives SG its initial contents again: zeros, or its initializer where it holds pointers.
  void resetShadow(llvm::IRBuilder<> &B, llvm::GlobalVariable *SG);
  /// A writable pointer global that only ever holds null or a block a known allocator returned
  /// (set before the derivative runs, as flang does for ALLOCATE): its shadow is a pointer to a
  /// zeroed block of the same size, made when the shadow is first needed and again whenever the
  /// global points to another block (lib/Engine/HeapShadows.cpp).
  bool heapPointerGlobal(llvm::GlobalVariable *G) const;
  /// The byte offsets of the pointer fields of a writable aggregate global (a workspace struct)
  /// that are heap-pointer fields in the same sense: only ever assigned null or a whole heap block
  /// through constant offsets, never read or written as anything else, starting null; every other
  /// pointer field is never assigned. Empty when the global is not of that kind.
  llvm::SmallVector<uint64_t, 2> heapPointerFields(llvm::GlobalVariable *G) const;
  /// Whether Addr points into a writable global that holds pointers the program may assign at run
  /// time (a workspace struct's buffer, `node.next = &other`), other than a heap-pointer global:
  /// its shadow's copies of those pointers stay null, so a pointer loaded from it has no shadow.
  bool holdsRunTimePointers(const llvm::Value *Addr);
  bool isHeapShadow(llvm::GlobalVariable *SG) const { return HeapShadows.count(SG); }
  /// Points SG (the shadow of a heap-pointer global) at the shadow block of the global's current
  /// block, making one if needed; with Zero, also zeroes the shadow block.
  void syncHeapShadow(llvm::IRBuilder<> &B, llvm::GlobalVariable *SG, bool Zero);
  /// syncHeapShadow for every heap shadow the user owns (queried or a context's): before a
  /// top-level derivative call, whose code reads them.
  void syncUserHeapShadows(llvm::IRBuilder<> &B);
  /// The shadow of a constant pointer expression (a global or a constant GEP into one), or null.
  llvm::Constant *shadowConstant(llvm::Constant *C, unsigned Lane = 0);
  /// A shadow address that may be derived from a null shadow pointer (see mayStoreNullShadows),
  /// redirected when null: reads see zeros, writes go to a sink nobody reads. RootShadow is the
  /// shadow pointer the address was derived from; without one, an address in the first 64 KiB
  /// (never mapped on Linux) counts as null.
  llvm::Value *guardNullShadow(llvm::IRBuilder<> &B, llvm::Value *Addr, llvm::Value *RootShadow,
                               llvm::Type *AccessTy, bool Write);
  /// Whether that shadow address is null at run time (an i1, or one per lane of a vector).
  llvm::Value *shadowIsNull(llvm::IRBuilder<> &B, llvm::Value *Addr, llvm::Value *RootShadow);
  /// Stops the program when a derivative is written through such an address while it is null
  /// (IsNull, from shadowIsNull):
  /// the pointer was kept in memory without its shadow (enzyme_const or constant data), so what
  /// I writes there has no derivative memory and would be lost. The static refusal of a write
  /// into memory without a shadow, for the pointers only the running program can tell apart.
  void stopIfNullShadow(llvm::IRBuilder<> &B, llvm::Value *IsNull, const llvm::Function *Fn,
                        const llvm::Instruction *I);
  /// Every shadow global a generated function (and its callees) may touch that the user cannot see
  /// (reset at each top-level call).
  const llvm::SmallPtrSet<llvm::GlobalVariable *, 4> &shadowGlobals() const { return ShadowGlobals; }

  /// Functions this engine generated (issue: inlining post-pass identifies them by this record).
  const llvm::SmallPtrSet<llvm::Function *, 16> &generated() const { return Generated; }
  void noteGenerated(llvm::Function *F) { Generated.insert(F); }

  Simplifier &simplifier() { return S; }
  /// Verifies a freshly generated function before it is optimized; an internal error becomes a
  /// diagnostic naming the function instead of a crash further down the pipeline.
  bool verifyGenerated(llvm::Function *F, llvm::Function *Source);
  llvm::Module &module() { return M; }
  /// Registered custom derivatives (Rules/CustomDerivatives.h).
  CustomDerivatives &customs() { return Custom; }
  /// Forgets failed generations (their errors were captured, see FunctionShadows.cpp), so a
  /// later request generates again and reports.
  void forgetFailed();
  /// Drops the simplified clones once lowering is done.
  void cleanup();

  /// The tape's runtime state type: { ptr base, i64 top, i64 capacity }.
  llvm::StructType *tapeType();
  /// The most bytes one run of an augmented sweep can push, when that is known (no loop, no
  /// generated callee). A tape that surely fits the caller's frame buffer stays there, where it
  /// folds into registers, and never meets the thread's arena.
  std::optional<uint64_t> tapeBound(llvm::Function *Aug) const {
    auto It = TapeBounds.find(Aug);
    return It == TapeBounds.end() ? std::nullopt : std::optional<uint64_t>(It->second);
  }
  void setTapeBound(llvm::Function *Aug, uint64_t Bytes) { TapeBounds[Aug] = Bytes; }

  /// Whether the module frees or reallocates memory anywhere: only then do reverse sweeps keep
  /// the relocation log (Reverse/RelocationLog.h). Decided when the engine is made, before any
  /// generated code (whose shadow frees would say yes) is in the module.
  bool releasesMemory() const { return ReleasesMemory; }

private:
  llvm::Module &M;
  Simplifier S;
  std::map<Signature, llvm::Function *> Tangents;
  std::map<Signature, GradientPair> Gradients;
  llvm::DenseMap<llvm::Function *, llvm::Function *> Primals, ShadowedTapePrimals;
  /// (global, lane, set, order) -> shadow.
  std::map<std::tuple<llvm::GlobalVariable *, unsigned, unsigned, unsigned>, llvm::GlobalVariable *> Shadows;
  llvm::SmallPtrSet<llvm::GlobalVariable *, 4> ShadowGlobals;
  llvm::SmallPtrSet<llvm::GlobalVariable *, 4> UserShadows;
  /// Heap shadows: the shadow global -> the primal global, and the function keeping it current.
  llvm::DenseMap<llvm::GlobalVariable *, std::pair<llvm::GlobalVariable *, llvm::SmallVector<llvm::Function *, 1>>>
      HeapShadows;
  /// The sync function of a heap-pointer global, or of one heap-pointer field (at byte Field) of
  /// an aggregate one: SG gets one per field.
  void noteHeapShadow(llvm::GlobalVariable *G, llvm::GlobalVariable *SG, std::optional<uint64_t> Field = std::nullopt);
  /// The heap-pointer fields of the aggregate shadow SG, whose reset must leave them alone.
  llvm::DenseMap<llvm::GlobalVariable *, llvm::SmallVector<uint64_t, 2>> HeapFields;
  llvm::DenseMap<const llvm::GlobalVariable *, bool> RunTimePointers;
  unsigned Set = 0, Order = 1;
  std::map<std::pair<unsigned, unsigned>, std::pair<std::map<Signature, llvm::Function *>, std::map<Signature, GradientPair>>> OtherSets;
  bool shadowable(llvm::GlobalVariable *G, llvm::SmallPtrSetImpl<llvm::GlobalVariable *> &Seen);
  llvm::Constant *shadowInit(llvm::Constant *C, unsigned Lane);
  llvm::SmallPtrSet<llvm::Function *, 16> Generated;
  llvm::StructType *TapeTy = nullptr;
  llvm::DenseMap<llvm::Function *, uint64_t> TapeBounds;
  bool ReleasesMemory;
  CustomDerivatives Custom;
};

/// Kinds of external callee the engine knows to carry no derivative (I/O, clocks, RNG, aborts).
bool isKnownInactiveCallee(llvm::StringRef Name);
/// Those callees, where the module has their bodies (std::endl, the stream and string members
/// available to the optimizer from -O1 on), are declared inactive: their bodies reach virtual
/// calls into the library and were refused, and what they do is the same with or without one.
void markInactiveLibraryDefinitions(llvm::Module &M);
/// Some function of M whose name holds `__enzyme_` is used (an entry point, a registration):
/// the module asks for derivatives, so the library's code may be prepared for them.
bool usesEnzymeApi(const llvm::Module &M);
/// G runs as primal code only: declared inactive, or a bodiless callee of that list.
bool isInactiveCallee(const llvm::Function *G);

} // namespace synthase

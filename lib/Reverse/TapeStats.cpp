// Measuring the tape: with -mllvm -synthase-tape-stats, every reverse call site records the
// tape's high-water mark in a program-wide counter, so a benchmark can print how many bytes the
// derivative stored (bench/harness/driver.c reads it) next to what a hand-written adjoint stores.
// Off by default: shipped code carries no counter.
#include "Reverse/Tape.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

static cl::opt<bool> TapeStats("synthase-tape-stats", cl::Hidden,
                               cl::desc("Benchmarking: record the largest tape of any reverse call in "
                                        "the global __synthase_tape_peak_v1 (bytes)"));

static cl::opt<bool> TapeReport("synthase-tape-report", cl::Hidden,
                                cl::desc("Print, for every gradient, which values each block of its "
                                         "forward sweep pushes (to find what could be recomputed)"));

namespace synthase {

void reportTapePushes(const Function &Aug,
                      ArrayRef<std::pair<BasicBlock *, SmallVector<Value *, 8>>> Pushes) {
  // SYNTHASE_TAPE_REPORT=1 too: lld parses -mllvm options before it loads the plugin.
  if (!TapeReport && !getenv("SYNTHASE_TAPE_REPORT"))
    return;
  const DataLayout &DL = Aug.getParent()->getDataLayout();
  // The loop depth says how often a block's pushes repeat.
  DominatorTree DT(const_cast<Function &>(Aug));
  LoopInfo LI(DT);
  errs() << "tape of " << Aug.getName() << ":\n";
  for (auto &[BB, Vals] : Pushes) {
    uint64_t Bytes = 0;
    for (Value *V : Vals)
      Bytes += tapeSlotSize(DL, V->getType());
    errs() << "  block " << BB->getName() << " (" << Bytes << " bytes):";
    if (unsigned D = LI.getLoopDepth(BB))
      errs() << " in loop depth " << D;
    errs() << "\n";
    for (Value *V : Vals)
      errs() << "   " << *V << "\n";
  }
}

void emitTapeStats(Module &M, IRBuilder<> &B, Value *Tape) {
  if (!TapeStats)
    return;
  Type *I64 = B.getInt64Ty();
  GlobalVariable *G = M.getNamedGlobal(TapePeakName);
  if (!G || G->isDeclaration()) {
    auto *New = new GlobalVariable(M, I64, false, GlobalValue::LinkOnceODRLinkage, ConstantInt::get(I64, 0),
                                   TapePeakName);
    if (G) { // declared by the program (`extern long __synthase_tape_peak_v1;`)
      New->takeName(G);
      G->replaceAllUsesWith(New);
      G->eraseFromParent();
    }
    G = New;
    G->setAlignment(Align(8));
    if (Triple(M.getTargetTriple()).supportsCOMDAT())
      G->setComdat(M.getOrInsertComdat(G->getName()));
  }
  // Only the augmented sweep pushes, so the top right after it is this call's high-water mark.
  Value *Top = B.CreateLoad(I64, B.CreateStructGEP(StructType::get(B.getPtrTy(), I64, I64), Tape, 1), "tape.top");
  Value *Old = B.CreateLoad(I64, G, "tape.peak");
  B.CreateStore(B.CreateBinaryIntrinsic(Intrinsic::umax, Old, Top), G);
}

} // namespace synthase

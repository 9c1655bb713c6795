// Shared helpers for the bridge's unit tests: IR from text, and a call's operands as a short
// string so a test states the expected engine call in one line.
#pragma once
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <memory>
#include <string>

namespace synthase::bridge::test {

inline std::unique_ptr<llvm::Module> parseIR(llvm::LLVMContext &Ctx, llvm::StringRef Text) {
  llvm::SMDiagnostic Err;
  auto M = llvm::parseAssemblyString(Text, Err, Ctx);
  if (!M) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    Err.print("test", OS);
    ADD_FAILURE() << S;
  }
  return M;
}

/// "@f, !enzyme_dup, %x, %dx, i64 2, mul(8, %n)".
inline std::string renderOperand(const llvm::Value *V) {
  using namespace llvm;
  if (auto *MV = dyn_cast<MetadataAsValue>(V))
    if (auto *S = dyn_cast<MDString>(MV->getMetadata()))
      return "!" + S->getString().str();
  if (auto *F = dyn_cast<Function>(V))
    return "@" + F->getName().str();
  if (auto *CI = dyn_cast<ConstantInt>(V))
    return "i" + std::to_string(CI->getBitWidth()) + " " + std::to_string(CI->getSExtValue());
  if (auto *BO = dyn_cast<BinaryOperator>(V))
    return std::string(BO->getOpcodeName()) + "(" + renderOperand(BO->getOperand(0)) + ", " +
           renderOperand(BO->getOperand(1)) + ")";
  if (auto *C = dyn_cast<CastInst>(V))
    return renderOperand(C->getOperand(0)); // zext of a length is not interesting
  if (V->hasName())
    return "%" + V->getName().str();
  std::string S;
  llvm::raw_string_ostream OS(S);
  V->printAsOperand(OS, /*PrintType=*/false);
  return S;
}

inline std::string renderCall(const llvm::CallBase *CB) {
  std::string S;
  for (unsigned I = 0; I < CB->arg_size(); ++I)
    S += (I ? ", " : "") + renderOperand(CB->getArgOperand(I));
  return S;
}

} // namespace synthase::bridge::test

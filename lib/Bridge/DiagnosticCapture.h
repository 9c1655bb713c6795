// While alive, turns error diagnostics raised on an LLVMContext into text instead of letting them
// reach the host's handler. Without a handler LLVMContext::diagnose exit()s on an error, which a
// library caller (a front end using differentiate() or the C API) must never see.
#pragma once
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/LLVMContext.h"
#include <memory>
#include <string>

namespace synthase::bridge {

class DiagnosticCapture {
public:
  /// With DropWarnings, warnings are dropped too (they concern code that may never run).
  explicit DiagnosticCapture(llvm::LLVMContext &Ctx, bool DropWarnings = false);
  ~DiagnosticCapture();
  DiagnosticCapture(const DiagnosticCapture &) = delete;
  DiagnosticCapture &operator=(const DiagnosticCapture &) = delete;

  unsigned errors() const { return *NumErrors; }
  /// Every captured error message, one per line.
  const std::string &messages() const { return *Text; }

private:
  llvm::LLVMContext &Ctx;
  std::unique_ptr<llvm::DiagnosticHandler> Previous;
  std::shared_ptr<std::string> Text = std::make_shared<std::string>();
  std::shared_ptr<unsigned> NumErrors = std::make_shared<unsigned>(0);
};

} // namespace synthase::bridge

#include "Bridge/DiagnosticCapture.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace synthase::bridge {
namespace {

struct CapturingHandler : DiagnosticHandler {
  DiagnosticHandler *Previous;
  std::shared_ptr<std::string> Text;
  std::shared_ptr<unsigned> NumErrors;
  bool DropWarnings;

  CapturingHandler(DiagnosticHandler *Previous, std::shared_ptr<std::string> Text,
                   std::shared_ptr<unsigned> NumErrors, bool DropWarnings)
      : Previous(Previous), Text(std::move(Text)), NumErrors(std::move(NumErrors)), DropWarnings(DropWarnings) {}

  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Warning && DropWarnings)
      return true;
    if (DI.getSeverity() != DS_Error)
      return Previous && Previous->handleDiagnostics(DI);
    raw_string_ostream OS(*Text);
    DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    OS << "\n";
    ++*NumErrors;
    return true;
  }
};

} // namespace

DiagnosticCapture::DiagnosticCapture(LLVMContext &Ctx, bool DropWarnings) : Ctx(Ctx) {
  Previous = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(std::make_unique<CapturingHandler>(Previous.get(), Text, NumErrors, DropWarnings));
}

DiagnosticCapture::~DiagnosticCapture() { Ctx.setDiagnosticHandler(std::move(Previous)); }

} // namespace synthase::bridge

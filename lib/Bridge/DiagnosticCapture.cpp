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

  CapturingHandler(DiagnosticHandler *Previous, std::shared_ptr<std::string> Text,
                   std::shared_ptr<unsigned> NumErrors)
      : Previous(Previous), Text(std::move(Text)), NumErrors(std::move(NumErrors)) {}

  bool handleDiagnostics(const DiagnosticInfo &DI) override {
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

DiagnosticCapture::DiagnosticCapture(LLVMContext &Ctx) : Ctx(Ctx) {
  Previous = Ctx.getDiagnosticHandler();
  Ctx.setDiagnosticHandler(std::make_unique<CapturingHandler>(Previous.get(), Text, NumErrors));
}

DiagnosticCapture::~DiagnosticCapture() { Ctx.setDiagnosticHandler(std::move(Previous)); }

} // namespace synthase::bridge

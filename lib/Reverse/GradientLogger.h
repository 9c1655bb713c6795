// Enzyme's gradient logger: a program that defines
//   void enzymeLogGrad(double adjoint, const char *opcode, const char *callee, const char *module,
//                      const char *function, unsigned block, unsigned instruction);
// has it called by the reverse sweep once per active instruction, with that instruction's adjoint,
// to trace where a gradient goes wrong. Without the definition nothing is emitted.
#pragma once
#include "llvm/IR/IRBuilder.h"

namespace synthase {

/// Calls the program's enzymeLogGrad (if it defines one) with the adjoint D of instruction I.
void emitGradientLog(llvm::IRBuilder<> &B, const llvm::Instruction *I, llvm::Value *D);

} // namespace synthase

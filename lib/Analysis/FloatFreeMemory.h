// Memory that can hold no derivative data: a local or global object of integer type (a char
// buffer, a counter, a flag) that no float value, float bits or copied bytes ever reach. Handing
// such memory to a function without a body moves no derivative, so the call needs no derivative
// either (`std::cerr << '\n'` passes the address of a local `char` to libstdc++).
#pragma once
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Value.h"

namespace synthase {

/// True when P points into such an object. IsVaried tells whether a stored value carries a
/// derivative (as a float or as a float's bits moved through an integer).
bool pointsToFloatFreeMemory(const llvm::Value *P, llvm::function_ref<bool(const llvm::Value *)> IsVaried);

} // namespace synthase

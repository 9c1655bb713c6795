// Where a reverse sweep's adjoint slots get their initial zero (SlotInits.cpp).
#pragma once
namespace llvm {
class Function;
}
namespace synthase {
/// Moves each adjoint slot's zero initialisation out of the entry block, down to where the slot is
/// used, before the generated function is promoted to SSA.
void placeSlotInits(llvm::Function &F);
} // namespace synthase

// A caller's containers as the relocation log reads them (ContainerFields.cpp).
#pragma once
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Argument.h"
#include <cstdint>
#include <vector>

namespace synthase {

/// Where a duplicated argument's container keeps its data: the pointer reached by loading at
/// each of Hops in turn (byte offsets) points to float data (Stride 0), or to an array of
/// Stride-byte containers whose float-data pointer sits at Inner (a vector of vectors). End and
/// Cap (arrays only; -1: none): the offsets, beside the last hop, of the array's end and
/// capacity pointers (std::vector's layout), or with Counts, End holds the number of elements
/// (a Rust Vec's length), so that the elements can be counted.
struct ContainerPath {
  std::vector<int64_t> Hops;
  int64_t Stride = 0, Inner = 0, End = -1, Cap = -1;
  bool Counts = false;
  auto operator<=>(const ContainerPath &) const = default;
};

/// Where A's containers keep float data (at most eight paths): a pointer field of A (or of what a
/// pointer field of A points to, two hops at most) whose pointee the function accesses as
/// floating-point data only (a std::vector's or Rust Vec's data pointer, a {double *p; long n}'s,
/// the vector a context struct points to), or as an array of such containers.
std::vector<ContainerPath> containerFields(const llvm::DataLayout &DL, const llvm::Argument *A);

} // namespace synthase

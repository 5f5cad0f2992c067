//===- passes/core/Provenance.h - What object a device pointer derives from -----===//
//
// The OOB check compares an access against the bounds of the object its
// pointer was derived from. This analysis walks a pointer back through GEPs,
// casts, phis, selects and -O0's single-store stack slots to that object.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_PROVENANCE_H
#define KOSAN_PASSES_PROVENANCE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Value.h"
#include <cstdint>
#include <optional>

namespace llvm {
class DataLayout;
class Argument;
class Function;
} // namespace llvm

namespace kosan {

struct Provenance {
  enum Kind {
    KernelArg,     // pointer parameter of the kernel: bounds from the launch
    StaticObject,  // static shared array, local array, __device__ global, byval param
    DynamicShared, // extern __shared__ array: size known at launch
    Constant,      // constant or parameter memory: never written, not checked
    Unknown,       // anything else: checked against the table of all buffers
  };
  Kind kind = Unknown;
  llvm::Value *base = nullptr;     // the object (argument, global, alloca)
  unsigned argIndex = 0;           // KernelArg
  uint64_t size = 0;               // StaticObject
  unsigned space = 0;              // kosan_space
  // Constant byte offset of the pointer from base, when known.
  std::optional<int64_t> constOffset;
};

class ProvenanceAnalysis {
public:
  // kernel: the kernel whose pointer arguments have launch-time bounds, or
  // nullptr in device functions (their pointer arguments are Unknown).
  ProvenanceAnalysis(const llvm::DataLayout &DL, const llvm::Function *kernel)
      : DL(DL), kernel(kernel) {}
  Provenance resolve(llvm::Value *ptr);

private:
  Provenance resolveBase(llvm::Value *v, unsigned depth);
  Provenance classify(llvm::Value *base);
  const llvm::DataLayout &DL;
  const llvm::Function *kernel;
  llvm::DenseMap<llvm::Value *, Provenance> cache;
  llvm::SmallPtrSet<llvm::Value *, 16> inProgress;
};

} // namespace kosan

#endif

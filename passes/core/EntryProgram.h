//===- passes/core/EntryProgram.h - A kernel's entry test, for the host ---===//
//
// A test a kernel clone computes at its entry from nothing but the launch
// (kernel parameters, the launch info, blockIdx, blockDim, gridDim) can be
// decided by the host at each launch instead, for whole boxes of blocks
// (runtime/host/core/entry_test.h): serializeEntryTest turns the test's
// instructions into the program the host evaluates (abi.h,
// kosan_entry_op), and the clone then only compares its block's index
// with the box the host proved (blockInBox).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_ENTRYPROGRAM_H
#define KOSAN_PASSES_CORE_ENTRYPROGRAM_H

#include "kosan/abi.h"

#include "llvm/IR/IRBuilder.h"

#include <optional>
#include <vector>

namespace llvm {
class Argument;
class DataLayout;
class Value;
} // namespace llvm

namespace kosan {

class Target;

struct EntryProgram {
  std::vector<kosan_entry_op> ops;
  uint32_t dims = 0; // the dimensions of blockIdx it reads (bit d)
};

// The program of `test` (an i1), or nothing when it reads anything the host
// does not know at the launch (memory other than the launch info `info`,
// the thread's index, a global's address, an operation the program lacks).
std::optional<EntryProgram> serializeEntryTest(llvm::Value *test, const llvm::Argument *info,
                                               const Target &T, const llvm::DataLayout &DL);

// Whether the block's index lies in the box the host proved for the
// launch (kosan_launch_info::fast_lo, fast_n), in each dimension of dims
// (x where dims is 0), read where B stands.
llvm::Value *blockInBox(llvm::IRBuilderBase &B, const Target &T, llvm::Argument *info,
                        uint32_t dims);

// "the program as text", one operation a line: what -kosan-print-entry-tests prints.
std::string printEntryProgram(const EntryProgram &P);

} // namespace kosan

#endif // KOSAN_PASSES_CORE_ENTRYPROGRAM_H

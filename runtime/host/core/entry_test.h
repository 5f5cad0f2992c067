//===- entry_test.h - Which blocks pass a kernel's entry test --*- C++ -*-===//
//
// A kernel the OOB check copied whole runs as compiled in the blocks that
// pass its entry test, and checked access by access in the others. The
// test reads nothing but the launch (kernel parameters, the launch info,
// the grid and block sizes) and the block's index, so the host decides it
// at each launch: it evaluates the kernel's entry program (kosan_entry_op,
// abi.h) over boxes of block indices in interval arithmetic and finds a
// box where the test holds for every block. Each block then only compares
// its index with the box (kosan_launch_info::fast_lo, fast_n).
//
// Sound by construction: a box is returned only when the evaluation over
// the whole box proved the test (every operation's result interval holds
// every value the operation can take there). The search for a large box
// assumes nothing of the program; a test whose blocks do not pass in one
// box (an unusual kernel) gets a smaller box, or none, and its other
// blocks run checked.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_ENTRY_TEST_H
#define KOSAN_RUNTIME_HOST_ENTRY_TEST_H

#include "kosan/abi.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kosan::rt {

// What a launch gives the program's leaves.
struct EntryLaunch {
  void *const *args = nullptr;  // the launch's kernel parameters (cudaLaunchKernel's)
  size_t nargs = 0;
  const uint8_t *info = nullptr;  // the launch info, as the clone receives it
  size_t infoBytes = 0;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
};

// The blocks that take the fast copy: [lo[d], lo[d] + n[d]) in each
// dimension of dims; n all 0 when there is none.
struct FastBlocks {
  uint32_t lo[3] = {0, 0, 0}, n[3] = {0, 0, 0};
  bool any() const { return n[0] && n[1] && n[2]; }
};

// Why a program cannot be evaluated (malformed: an operand after its
// operation, an unknown opcode, a width outside 1..64, a parameter the
// kernel does not have or wider than it, a launch-info field outside the
// launch info), or "" when it can. paramSizes: the bytes of each of the
// kernel's parameters (an evaluation reads no byte beyond them).
std::string checkEntryProgram(std::span<const kosan_entry_op> ops,
                              std::span<const size_t> paramSizes, size_t infoBytes);

// The test's value over one box of block indices (lo[d]..hi[d]): 1 when it
// holds for every block of the box, 0 when for none, -1 when the interval
// evaluation cannot tell. The program must have passed checkEntryProgram.
int evalEntryProgram(std::span<const kosan_entry_op> ops, const EntryLaunch &launch,
                     const uint32_t lo[3], const uint32_t hi[3]);

// A box of blocks where the test holds (dimensions outside dims span the
// whole grid), as large as a search that proves each step finds. The
// program must have passed checkEntryProgram.
FastBlocks fastBlocks(std::span<const kosan_entry_op> ops, uint32_t dims,
                      const EntryLaunch &launch);

// The leaf values a program reads at a launch, with the grid: two launches
// with the same leaves get the same FastBlocks (the runtime keeps the last
// answer per kernel).
std::vector<uint64_t> entryLeaves(std::span<const kosan_entry_op> ops, const EntryLaunch &launch);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_ENTRY_TEST_H

//===- kosan/bounds.h - The bounds rules the instrumentation applies -------===//
//
// Header-only and freestanding: compiled into the host runtime (the bounds it
// passes per argument) and the unit tests. The pass emits the inline and
// pitched-row tests as IR (OOBSanitizer.cpp: instrumentFunction, emitReport);
// inBounds and inPitchedBounds are the reference those IR sequences
// implement, pinned by test/unit/bounds_test.cpp: change one, change both.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_BOUNDS_H
#define KOSAN_BOUNDS_H

#include "kosan/abi.h"

#ifdef __cplusplus
namespace kosan {

// The instrumented code's inline test (two compares).
inline bool inBounds(uint64_t addr, uint64_t size, uint64_t begin, uint64_t end) {
  return addr >= begin && addr + size <= end;
}

// A pitched buffer: inside [begin, begin + pitch * rows) and inside the
// first row_bytes of its row. shape = rows << 32 | row_bytes.
inline uint64_t pitchedEnd(uint64_t begin, uint64_t pitch, uint64_t shape) {
  return begin + pitch * (shape >> 32);
}
// The row test uses 32-bit division: a 64-bit one is a long software
// routine whose registers every instrumented kernel would pay for. Offsets
// past 4 GiB into a pitched allocation get the allocation test only.
inline bool inPitchedBounds(uint64_t addr, uint64_t size, uint64_t begin,
                            uint64_t pitch, uint64_t shape) {
  uint64_t rowBytes = shape & 0xffffffffu;
  if (addr < begin || addr + size > pitchedEnd(begin, pitch, shape))
    return false;
  uint64_t offset = addr - begin;
  if (offset > 0xffffffffu || pitch > 0xffffffffu)
    return true;
  return uint32_t(offset) % uint32_t(pitch) + size <= rowBytes;
}

// Bounds the host passes for a buffer; see kosan_arg_bounds.
inline kosan_arg_bounds unboundedArg() { return {0, ~0ull, 0, 0}; }
inline kosan_arg_bounds bufferArg(uint64_t begin, uint64_t end, uint64_t pitch,
                                  uint64_t rowBytes) {
  if (pitch == 0)
    return {begin, end, 0, 0};
  // The inline test covers the allocation; pitch != 0 sends every access to
  // the runtime as well, which checks the row.
  return {begin, end, pitch, ((end - begin) / pitch) << 32 | rowBytes};
}

} // namespace kosan
#endif

#endif // KOSAN_BOUNDS_H

//===- kosan/bounds.h - The bounds the host passes for each argument -------===//
//
// Header-only: the host runtime builds each launch's kosan_arg_bounds with
// these, and reports tell a misaligned access by accessAlignment. What the instrumented code does with them (two compares, and for
// a pitched buffer a 32-bit row test in the report) is emitted by the pass
// as IR and pinned by test/lit/pass/kernel_arg.ll; the GPU tests
// (test/gpu/oob_*.cu, oob_pitch.cu) check it on the device.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_BOUNDS_H
#define KOSAN_BOUNDS_H

#include "kosan/abi.h"

#ifdef __cplusplus
namespace kosan {

// Bounds the host passes for a buffer; see kosan_arg_bounds.
// An argument kosan knows no buffer for: every access goes ahead.
inline kosan_arg_bounds unboundedArg() { return {0, ~0ull, 0, 0}; }
// A buffer [begin, end); pitch != 0: a pitched buffer whose rows hold
// rowBytes bytes each, as shape = rows << 32 | rowBytes.
inline kosan_arg_bounds bufferArg(uint64_t begin, uint64_t end, uint64_t pitch,
                                  uint64_t rowBytes) {
  if (pitch == 0)
    return {begin, end, 0, 0};
  // The inline test covers the allocation; pitch != 0 sends every access to
  // the report as well, which checks the row.
  return {begin, end, pitch, ((end - begin) / pitch) << 32 | rowBytes};
}

// The alignment an access of `size` bytes needs on the GPU, as the OOB
// pass tests it (that or a divisor of it): the size rounded down to a power
// of two, at most 16 bytes, the widest access.
inline uint64_t accessAlignment(uint64_t size) {
  uint64_t alignment = 1;
  while (alignment < 16 && alignment * 2 <= size)
    alignment *= 2;
  return alignment;
}

} // namespace kosan
#endif

#endif // KOSAN_BOUNDS_H

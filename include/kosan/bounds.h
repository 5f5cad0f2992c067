//===- kosan/bounds.h - The bounds the host passes for each argument -------===//
//
// Header-only: the host runtime builds each launch's kosan_arg_bounds with
// these. What the instrumented code does with them (two compares, and for
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

} // namespace kosan
#endif

#endif // KOSAN_BOUNDS_H

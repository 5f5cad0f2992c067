//===- passes/checks/precision/PrecisionSanitizer.h - fp64 shadow execution -----*- C++ -*-===//
//
// checks=precision: every floating-point value an instrumented function
// computes (f32, f16, bf16, and f64 values derived from them) gets an fp64
// shadow computed by the same operations; where a value leaves the kernel
// (stores to global memory, atomics) and where it is narrowed, the device
// runtime records how far the real value strayed from its shadow, per site.
// An operation that turns finite operands into NaN or Inf reports its site.
//
// Half and bf16 arithmetic from cuda_fp16.h/cuda_bf16.h reaches the IR as
// inline PTX on i16/i32 registers (cvt.rn.f16.f32, add.f16, fma.rn.f16x2,
// ...): those templates are parsed and shadowed like IR arithmetic.
//
// Shadows start (are "seeded") from the real value wherever a value comes
// from outside what the function computes: loads (global and shared
// memory alike), shuffles, parameters, results of calls that are not
// inlined, inline asm that is not understood.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_PRECISIONSANITIZER_H
#define KOSAN_PASSES_PRECISIONSANITIZER_H

#include "core/SiteTable.h"

#include "llvm/IR/Module.h"

namespace kosan {

struct PrecisionCounts {
  unsigned shadowed = 0;   // operations given a shadow
  unsigned asmOps = 0;     // of which inline-asm half/bf16 operations
  unsigned sinks = 0;      // stores and atomics recorded
  unsigned narrowings = 0; // narrowing conversions recorded
  unsigned seeded = 0;     // values whose shadow starts from the real value
  unsigned copies = 0;     // stores of such values as they are: exact, not recorded
};

// Instruments one cloned function. state/launchId: the values the clone
// reads its launch context from (kosan_device_state address, launch id).
PrecisionCounts instrumentPrecision(llvm::Function &F, llvm::Value *state,
                                    llvm::Value *launchId, SiteTable &sites);

// Parsed form of a one-instruction PTX template of cuda_fp16.h/cuda_bf16.h,
// exposed for tests: e.g. "{add.f16 $0,$1,$2;\n}" -> op "add", type f16.
struct PtxHalfOp {
  enum Kind {
    None,
    Convert,   // cvt between f32 and f16/bf16 (also f16 <-> f64)
    Arith,     // add, sub, mul, fma, neg, abs, min, max, div
    Pack,      // mov.b32 $0, {$1,$2}
    Unpack,    // mov.b32 {$0,$1}, $2
    Exp,       // hexp-style template (ex2.approx with log2(e) scaling)
    Exp2,      // hexp2-style template
  };
  Kind kind = None;
  std::string op;          // "add", "fma", "cvt"...
  uint32_t dtype = 0;      // kosan_dtype of the real result (f16/bf16/f32)
  uint32_t fromDtype = 0;  // Convert: the source type
  unsigned lanes = 1;      // 2 for f16x2/bf16x2
};
PtxHalfOp parsePtxHalfOp(llvm::StringRef asmText);

} // namespace kosan

#endif

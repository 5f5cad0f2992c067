//===- passes/core/PtxHalf.h - Half/bf16 PTX templates of CUDA's headers -*- C++ -*-===//
//
// cuda_fp16.h and cuda_bf16.h write their conversions and arithmetic as
// inline PTX on i16/i32 registers (cvt.rn.f16.f32, add.f16, fma.rn.f16x2,
// mov.b32 {$0,$1},$2, ...). The checks that follow floating-point values
// (precision, order) read those templates here, and find the integer
// registers that hold halves.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_PTXHALF_H
#define KOSAN_PASSES_PTXHALF_H

#include "kosan/abi.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Instruction;
class Value;
} // namespace llvm

namespace kosan {

// Parsed form of a one-instruction PTX template of cuda_fp16.h/cuda_bf16.h,
// e.g. "{add.f16 $0,$1,$2;\n}" -> op "add", type f16.
struct PtxHalfOp {
  enum Kind {
    None,
    Convert,   // cvt between f32 and f16/bf16 (also f16 <-> f64)
    Arith,     // add, sub, mul, fma, neg, abs, min, max
    Pack,      // mov.b32 $0, {$1,$2}
    Unpack,    // mov.b32 {$0,$1}, $2
    Exp,       // hexp-style template (ex2.approx with log2(e) scaling)
    Exp2,      // hexp2-style template
  };
  Kind kind = None;
  std::string op;          // "add", "fma", "cvt.rn.f16.f32"...
  std::string mnemonic;    // the whole mnemonic: "add.rz.f16", "cvt.rn.f16.f32"
  uint32_t dtype = 0;      // kosan_dtype of the real result (f16/bf16/f32)
  uint32_t fromDtype = 0;  // Convert: the source type
  unsigned lanes = 1;      // 2 for f16x2/bf16x2
  bool nearest = true;     // rounds to nearest even, no saturation or relu
};

// anyRounding: also the templates that round otherwise (.rz, .rm, .rp) or
// saturate (.sat, .relu); without it they parse as None.
PtxHalfOp parsePtxHalfOp(llvm::StringRef asmText, bool anyRounding = false);

// What an integer register holds: f16 or bf16, one or two lanes.
struct HalfKind {
  uint32_t dtype = KOSAN_DTYPE_UNKNOWN;
  unsigned lanes = 1;
  explicit operator bool() const { return dtype != KOSAN_DTYPE_UNKNOWN; }
};
using HalfRegisters = llvm::DenseMap<llvm::Value *, HalfKind>;

// The i16/i32 registers among `order` (a function's instructions) that hold
// f16/bf16 values: results and operands of the templates, the phis and
// selects that carry them, and what pack moves. anyRounding as for
// parsePtxHalfOp.
void markHalfRegisters(llvm::ArrayRef<llvm::Instruction *> order, HalfRegisters &regs,
                       bool anyRounding = false);

} // namespace kosan

#endif

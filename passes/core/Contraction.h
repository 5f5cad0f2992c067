//===- passes/core/Contraction.h - The backend's fused multiply-adds, in IR -*- C++ -*-===//
//
// A clone must compute the bits its original computes. NVPTX fuses a
// multiply and the add or subtract that uses it into one fma (rounded once)
// during instruction selection, which sees one basic block at a time: a
// check the instrumentation places between the two would leave the clone a
// separate multiply and add (rounded twice) where the original has an fma.
// So before any check instruments a clone, the pairs the backend would fuse
// in the original are written as llvm.fma in the clone, following the rules
// of LLVM 19's DAG combiner for a target with aggressive fusion
// (DAGCombiner::visitFADDForFMACombine, visitFSUBForFMACombine):
//
// - a multiply and an add or subtract fuse when both sit in one basic block
//   and both may be contracted: marked `contract`, or any multiply and add
//   when the module is compiled with -ffp-contract=fast (the backend's
//   AllowFPOpFusion=Fast; clang's default for CUDA);
// - every add of a multiply is fused, whatever the multiply's other uses;
// - of an add of two multiplies, the multiply with fewer uses is fused, the
//   first on a tie; the combiner visits a block's adds last to first, and an
//   add fused away no longer counts as a use;
// - negations in the same block are looked through as the combiner does
//   (a + -b is a - b, a - -b is a + b, -(x * y) - z is fma(-x, y, -z)).
//
// Not reproduced: the reassociating folds of fast-math code (an fma's
// addend fused with a following add), fusion through fpext, and blocks that
// code generation merges before instruction selection. Those pairs are left
// as they are.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_CONTRACTION_H
#define KOSAN_PASSES_CORE_CONTRACTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/ValueHandle.h"

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace kosan {

// How the backend decides what may be fused (TargetOptions::AllowFPOpFusion).
enum class FPFusion {
  Infer,    // Fast when any instruction of the module is marked contract
  Standard, // only a multiply and an add both marked contract
  Fast,     // any multiply and add (-ffp-contract=fast, -ffast-math)
};

// FPFusion::Infer resolved for M.
FPFusion resolveFPFusion(FPFusion mode, const llvm::Module &M);

// Writes the multiply-add pairs that instruction selection would fuse in F
// as calls of llvm.fma (mode: Standard or Fast); returns how many.
unsigned formBackendFMAs(llvm::Function &F, FPFusion mode);

// ptxas, too, fuses: div.approx.f32 is a reciprocal and a multiply in the
// machine code, and ptxas folds that multiply into an add or subtract that
// is the quotient's only use (1 - __fdividef(a, b): one fma, rounded once).
// In a clone the checks use the quotient as well, and the multiply stays
// alone. So such an add or subtract is found in the clone before it is
// instrumented (findAssemblerFMAs: a quotient with one use, an add or
// subtract of its block, where the backend leaves adds contractable,
// FPFusion::Fast), and once the checks are done, written as the assembler
// writes it (formAssemblerFMAs): fma(+-a, rcp.approx.ftz(b), +-c), a and b
// scaled by 2^24 first where |b| is below the smallest normal float
// (div.approx without .ftz). The checks keep seeing the quotient and the
// add as the program wrote them, so that the quotient stays the root cause.
struct AssemblerFMA {
  llvm::WeakTrackingVH quotient, add;
};
void findAssemblerFMAs(llvm::Function &F, FPFusion mode,
                       llvm::SmallVectorImpl<AssemblerFMA> &found);
unsigned formAssemblerFMAs(llvm::ArrayRef<AssemblerFMA> found);

} // namespace kosan

#endif

//===- core/Barriers.h - Block barriers of the clones -----------*- C++ -*-===//
//
// A clone calls the device runtime, whose functions hold warp-level
// operations (match, vote, shuffles) and atomics. ptxas then no longer
// proves that a warp reaches the clone's block barriers converged, and
// compiles each non-aligned barrier (barrier.sync: cooperative groups'
// thread_block::sync, __barrier_sync) with a second path for a diverged
// warp (BRA.DIV to WARPSYNC.COLLECTIVE + BAR.SYNC R, R), which its
// original, calling nothing, does not have. On the H200 a clone with that
// path computed other results than its original (the dot products of
// test/gpu/precision_shared_reduce.cu, built with the precision check, lost
// a quarter of their sum); the same kernel with bar.sync (__syncthreads)
// computed the original's.
//
// A barrier that every warp reaches converged (no branch on a divergent
// condition decides whether a thread gets there) means the same aligned or
// not: such barriers are written in their aligned form in the clones
// (barrier.sync 0 -> bar.sync 0, as __syncthreads), which ptxas compiles as
// it compiles __syncthreads: no diverged-warp path. A barrier with a thread
// count (warp-specialised code) is left as written.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/PassManager.h"

namespace llvm {
class Function;
}

namespace kosan {

class Target;

// Rewrites the non-aligned block barriers of kernel clone F that every warp
// reaches converged in their aligned form (Target::alignBarrier); returns
// how many. F's control flow is unchanged.
unsigned alignConvergedBarriers(llvm::Function &F, const Target &T,
                                llvm::FunctionAnalysisManager &FAM);

} // namespace kosan

//===- passes/core/DeferredClones.h - Clones compiled at their first launch ===//
//
// A clone compiled with its module costs the build what compiling its
// kernel again, with the checks, costs: ptxas's time on a module of
// template instances (cuda-samples reduction: 213 kernels) grows 4-6 times,
// for clones of which a run launches a few. deferClones moves each
// kernel's clone out of the device module into a PTX module of its own,
// kept compressed in the plain module (abi.h, KOSAN_DEFERRED_SYMBOL); the
// runtime has the driver compile it at the kernel's first checked launch,
// and the driver caches the result on disk for later runs.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_DEFERREDCLONES_H
#define KOSAN_PASSES_CORE_DEFERREDCLONES_H

#include "core/Contraction.h"

namespace llvm {
class Module;
}

namespace kosan {

// Defers every clone of M that can be: an NVPTX kernel's clone whose code
// reaches the module's globals only as memory (no textures, surfaces or
// managed variables). Others stay in M. Returns whether M changed; the
// remark kosan-defer says per module how many were deferred and why not.
bool deferClones(llvm::Module &M, FPFusion fusion);

} // namespace kosan

#endif // KOSAN_PASSES_CORE_DEFERREDCLONES_H

//===- passes/core/DeferredClones.h - Clones compiled at their first launch ===//
//
// A clone compiled with its module costs the build what compiling its
// kernel again, with the checks, costs: ptxas's time on a module of
// template instances (cuda-samples reduction: 213 kernels) grows 4-6 times,
// for clones of which a run launches a few. deferClones moves each
// kernel's clone out of the device module into a module of its own, kept
// compressed in the plain module (abi.h, KOSAN_DEFERRED_SYMBOL) as bitcode
// or PTX; at the kernel's first checked launch the runtime makes it PTX
// (libkosan_codegen.so, runtime/codegen) and has the driver compile that.
// Both keep what they made on disk for later runs. Kept as bitcode, the
// build pays neither LLVM's code generation of the clones nor ptxas's.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_DEFERREDCLONES_H
#define KOSAN_PASSES_CORE_DEFERREDCLONES_H

#include "KosanPasses.h"
#include "core/Contraction.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace kosan {

// Defers every clone of M that can be: an NVPTX kernel's clone whose code
// reaches the module's globals only as memory (no textures, surfaces or
// managed variables). Others stay in M. Returns whether M changed; the
// remark kosan-defer says per module how many were deferred and why not.
// codegenArgs: the build's -mllvm -nvptx-* options, which the clones'
// code generation at run time must see too.
bool deferClones(llvm::Module &M, DeferClones code, FPFusion fusion,
                 const std::vector<std::string> &codegenArgs);

} // namespace kosan

#endif // KOSAN_PASSES_CORE_DEFERREDCLONES_H

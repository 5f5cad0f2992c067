//===- passes/core/KernelCloner.h - The instrumented copies of kernels -*- C++ -*-===//
//
// kosan never changes the code a program was compiled to: every kernel K
// gets a clone K__kosan that takes one more parameter, the launch info (a
// kosan_launch_info by value, filled by the host per launch), and every
// device function F a clone F__kosan that takes the launch context as four
// trailing arguments. The clones call each other's clones; the checks
// instrument the clones only, so a launch with checks off runs the
// original, uninstrumented code.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_KERNELCLONER_H
#define KOSAN_PASSES_CORE_KERNELCLONER_H

#include "core/LaunchContext.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Module.h"

namespace kosan {

class Target;

class KernelCloner {
public:
  KernelCloner(llvm::Module &M, const Target &T) : M(M), T(T) {}

  // Clones every kernel and device function (before any is instrumented).
  void cloneAll(llvm::ArrayRef<llvm::Function *> kernels,
                llvm::ArrayRef<llvm::Function *> deviceFunctions);
  // Relocatable device code: declares the clones of the device functions
  // that `callers` call and another unit defines.
  void declareExternalClones(llvm::ArrayRef<llvm::Function *> callers);
  // Makes the clone's calls of device functions call their clones, passing
  // on its launch context.
  void redirectCalls(llvm::Function &clone, const LaunchContext &ctx);

  llvm::Function *cloneOf(llvm::Function *original) const { return clones.lookup(original); }

private:
  llvm::Function *cloneWithExtraParams(llvm::Function &F, llvm::ArrayRef<llvm::Type *> extra);
  llvm::Function *cloneKernel(llvm::Function &F);
  llvm::Function *cloneDeviceFunction(llvm::Function &F);

  llvm::Module &M;
  const Target &T;
  llvm::DenseMap<llvm::Function *, llvm::Function *> clones;
};

} // namespace kosan

#endif

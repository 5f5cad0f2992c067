//===- passes/compat/CudaCompat.h - Device code that computes what nvcc's does -*- C++ -*-===//
//
// The compiler half of the CUDA compatibility layer (docs/driver.md): where
// clang 19 compiles device code to different results than nvcc, this pass
// repairs it. It instruments nothing and runs in every kosan build,
// --kosan-plain included, so that plain, instrumented and nvcc builds agree.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CUDACOMPAT_H
#define KOSAN_PASSES_CUDACOMPAT_H

#include "llvm/IR/PassManager.h"

namespace kosan {

// On NVPTX modules: libdevice's square roots rounded as nvcc's -prec-sqrt
// option decides (see CudaCompat.cpp). Other modules are left alone.
struct CudaCompatPass : llvm::PassInfoMixin<CudaCompatPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
  void printPipeline(llvm::raw_ostream &OS,
                     llvm::function_ref<llvm::StringRef(llvm::StringRef)>);
};

} // namespace kosan

#endif

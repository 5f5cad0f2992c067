//===- passes/core/ClonePtx.h - The PTX of a deferred clone's module -*- C++ -*-===//
//
// One code generator for a deferred clone's module (DeferredClones.h),
// wherever its PTX is made: in the pass (--kosan-defer-clones=ptx, PTX at
// build time) or in libkosan_codegen.so (the default: the module is kept as
// bitcode and made PTX at the kernel's first checked launch). The module
// carries what its code generation needs beyond its IR: the floating-point
// fusion of the build (TargetOptions::AllowFPOpFusion) and the -mllvm
// -nvptx-* options the build was given (kosan-nvcc's -prec-div=false,
// --use_fast_math), so that the clone's arithmetic is the plain kernel's.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_CORE_CLONEPTX_H
#define KOSAN_PASSES_CORE_CLONEPTX_H

#include "core/Contraction.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace kosan {

// Records in M (named metadata kosan.codegen) the fusion (Standard or
// Fast) and the code generator's options ("-nvptx-prec-divf32=0", ...).
void recordCodegen(llvm::Module &M, FPFusion fusion, const std::vector<std::string> &args);

class PtxEmitter {
public:
  PtxEmitter();
  ~PtxEmitter();
  // The PTX of M (a module recordCodegen annotated), or empty with *whyNot
  // set. The -nvptx-* options it records hold while it is compiled and
  // are reset after (applyOptions: the pass's own process already has the
  // build's).
  std::string emit(llvm::Module &M, std::string &whyNot, bool applyOptions);

private:
  std::unique_ptr<llvm::TargetMachine> TM;
  std::string tmKey; // triple, cpu, features, fusion and level TM was made for
};

} // namespace kosan

#endif // KOSAN_PASSES_CORE_CLONEPTX_H

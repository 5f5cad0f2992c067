//===- passes/target/Target.cpp - The target of a device module -----------===//
#include "target/Target.h"
#include "KosanPasses.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace kosan {

const Target *Target::forModule(const Module &M) {
  Triple T(M.getTargetTriple());
  if (T.isNVPTX())
    return &nvptxTarget();
  if (T.isAMDGCN())
    return &amdgpuTarget();
  return nullptr;
}

bool isDeviceModule(const Module &M) {
  Triple T(M.getTargetTriple());
  return T.isNVPTX() || T.isAMDGPU();
}

bool isKernel(const Function &F) {
  if (F.isDeclaration())
    return false;
  const Target *T = Target::forModule(*F.getParent());
  return T && T->isKernel(F);
}

} // namespace kosan

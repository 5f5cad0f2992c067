//===- passes/KernelInfo.cpp - Which module is device code, which function a kernel ===//
#include "KosanPasses.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace kosan {

bool isDeviceModule(const Module &M) {
  Triple T(M.getTargetTriple());
  return T.isNVPTX() || T.isAMDGPU();
}

// LLVM 19's NVPTX marks kernels with !nvvm.annotations {ptr @f, !"kernel", i32 1};
// the calling conventions cover AMDGPU and later NVPTX.
bool isKernel(const Function &F) {
  if (F.isDeclaration())
    return false;
  CallingConv::ID CC = F.getCallingConv();
  if (CC == CallingConv::PTX_Kernel || CC == CallingConv::AMDGPU_KERNEL)
    return true;
  const NamedMDNode *Annotations = F.getParent()->getNamedMetadata("nvvm.annotations");
  if (!Annotations)
    return false;
  for (const MDNode *Op : Annotations->operands()) {
    if (Op->getNumOperands() < 3)
      continue;
    auto *V = dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0));
    auto *Key = dyn_cast_or_null<MDString>(Op->getOperand(1));
    if (!V || V->getValue() != &F || !Key || Key->getString() != "kernel")
      continue;
    if (auto *C = mdconst::dyn_extract<ConstantInt>(Op->getOperand(2)))
      if (C->isOne())
        return true;
  }
  return false;
}

} // namespace kosan

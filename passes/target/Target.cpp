//===- passes/target/Target.cpp - The target of a device module -----------===//
#include "target/Target.h"
#include "KosanPasses.h"

#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace kosan {

const Target *Target::forModule(const Module &M) {
  Triple T(M.getTargetTriple());
#define KOSAN_TARGET_IF_HANDLES(name)                                                              \
  if (name##Target().handles(T))                                                                   \
    return &name##Target();
  KOSAN_TARGETS(KOSAN_TARGET_IF_HANDLES)
#undef KOSAN_TARGET_IF_HANDLES
  return nullptr;
}

void Target::boundThreadIds(Function &clone, const Function &original) const {
  uint64_t bounds[3];
  bool any = false;
  for (unsigned dim = 0; dim < 3; ++dim) {
    bounds[dim] = threadIdBound(original, dim);
    any |= bounds[dim] != 0;
  }
  if (!any)
    return;
  for (Instruction &I : instructions(clone)) {
    auto *II = dyn_cast<IntrinsicInst>(&I);
    if (!II || !II->getType()->isIntegerTy())
      continue;
    for (unsigned dim = 0; dim < 3; ++dim) {
      if (II->getIntrinsicID() != indexIntrinsics().thread[dim] || !bounds[dim])
        continue;
      unsigned bits = II->getType()->getIntegerBitWidth();
      if (bounds[dim] >= (uint64_t(1) << std::min(bits, 63u)))
        continue;
      ConstantRange range(APInt(bits, 0), APInt(bits, bounds[dim]));
      if (std::optional<ConstantRange> carried = II->getRange())
        range = range.intersectWith(*carried);
      II->removeRetAttr(Attribute::Range);
      II->addRetAttr(Attribute::get(II->getContext(), Attribute::Range, range));
    }
  }
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

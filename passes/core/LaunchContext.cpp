//===- passes/core/LaunchContext.cpp - The launch context of a clone ------===//
#include "core/LaunchContext.h"
#include "target/Target.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kosan {

Instruction *markNoSanitize(Instruction *I) {
  I->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(I->getContext(), {}));
  return I;
}

LaunchContext LaunchContext::forKernel(Function &clone, unsigned numArgs) {
  LaunchContext ctx;
  ctx.kernel = true;
  ctx.info = clone.getArg(numArgs);
  // After the entry block's allocas, which the backend wants first.
  BasicBlock::iterator at = clone.getEntryBlock().getFirstInsertionPt();
  while (isa<AllocaInst>(*at))
    ++at;
  IRBuilder<> B(&*at);
  auto field = [&](uint64_t offset, Type *T, const char *name) {
    Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), ctx.info, offset);
    Align align(T->getPrimitiveSizeInBits() / 8);
    return markNoSanitize(B.CreateAlignedLoad(T, p, align, name));
  };
  ctx.state = field(LaunchInfoLayout::state, B.getInt64Ty(), "kosan.state");
  ctx.launchId = field(LaunchInfoLayout::launchId, B.getInt32Ty(), "kosan.launch_id");
  ctx.flags = field(LaunchInfoLayout::flags, B.getInt32Ty(), "kosan.flags");
  ctx.dynSmem = field(LaunchInfoLayout::dynSmem, B.getInt64Ty(), "kosan.dyn_smem");
  return ctx;
}

LaunchContext LaunchContext::forDeviceFunction(Function &clone, unsigned n) {
  LaunchContext ctx;
  ctx.state = clone.getArg(n);
  ctx.launchId = clone.getArg(n + 1);
  ctx.flags = clone.getArg(n + 2);
  ctx.dynSmem = clone.getArg(n + 3);
  return ctx;
}

SmallVector<Type *, 4> LaunchContext::deviceFunctionParams(LLVMContext &Ctx) {
  Type *I64 = Type::getInt64Ty(Ctx), *I32 = Type::getInt32Ty(Ctx);
  return {I64, I32, I32, I64};
}

void LaunchContext::nameDeviceFunctionParams(Function &clone, unsigned n) {
  clone.getArg(n)->setName("kosan.state");
  clone.getArg(n + 1)->setName("kosan.launch_id");
  clone.getArg(n + 2)->setName("kosan.flags");
  clone.getArg(n + 3)->setName("kosan.dyn_smem");
}

} // namespace kosan

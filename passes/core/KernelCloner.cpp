//===- passes/core/KernelCloner.cpp - The instrumented copies of kernels ---===//
#include "core/KernelCloner.h"
#include "DeviceRuntime.h"
#include "KosanPasses.h"
#include "target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <memory>
#include <vector>

using namespace llvm;

namespace kosan {
namespace {

// Function objects allocated (and freed) before cloning: see cloneAll().
constexpr unsigned kAddressFillers = 4096;

// The clone calls into the runtime, which writes memory the original never
// touched and may trap: attributes promising otherwise must go.
void dropPromises(Function &F) {
  F.removeFnAttr(Attribute::Memory);
  F.removeFnAttr(Attribute::NoSync);
  F.removeFnAttr(Attribute::NoFree);
  F.removeFnAttr(Attribute::WillReturn);
  F.removeFnAttr(Attribute::NoRecurse);
}

} // namespace

// A copy of F named F__kosan that takes `extra` parameters after its own.
Function *KernelCloner::cloneWithExtraParams(Function &F, ArrayRef<Type *> extra) {
  FunctionType *FT = F.getFunctionType();
  SmallVector<Type *, 8> params(FT->param_begin(), FT->param_end());
  params.append(extra.begin(), extra.end());
  auto *NewFT = FunctionType::get(FT->getReturnType(), params, FT->isVarArg());
  Function *NewF = Function::Create(NewFT, F.getLinkage(), F.getAddressSpace(),
                                    F.getName() + KOSAN_CLONE_SUFFIX, &M);
  ValueToValueMapTy VMap;
  for (unsigned i = 0; i < F.arg_size(); ++i) {
    NewF->getArg(i)->setName(F.getArg(i)->getName());
    VMap[F.getArg(i)] = NewF->getArg(i);
  }
  SmallVector<ReturnInst *, 4> returns;
  CloneFunctionInto(NewF, &F, VMap, CloneFunctionChangeType::LocalChangesOnly, returns);
  dropPromises(*NewF);
  T.prepareClone(*NewF);
  return NewF;
}

Function *KernelCloner::cloneKernel(Function &F) {
  LLVMContext &Ctx = M.getContext();
  Function *NewF =
      cloneWithExtraParams(F, {PointerType::get(Ctx, T.launchInfoAddressSpace())});
  unsigned infoArg = F.arg_size();
  // The launch info: a .param array the host fills per launch.
  Type *infoTy = ArrayType::get(Type::getInt64Ty(Ctx), LaunchInfoLayout::words(F.arg_size()));
  NewF->addParamAttr(infoArg, Attribute::get(Ctx, T.launchInfoPassing(), infoTy));
  NewF->addParamAttr(infoArg, Attribute::getWithAlignment(Ctx, Align(8)));
  NewF->getArg(infoArg)->setName("kosan.launch_info");
  NewF->setCallingConv(T.kernelCallingConv());
  T.copyKernelAttributes(F, *NewF);
  return NewF;
}

Function *KernelCloner::cloneDeviceFunction(Function &F) {
  Function *NewF =
      cloneWithExtraParams(F, LaunchContext::deviceFunctionParams(M.getContext()));
  LaunchContext::nameDeviceFunctionParams(*NewF, F.arg_size());
  return NewF;
}

void KernelCloner::cloneAll(ArrayRef<Function *> kernels, ArrayRef<Function *> deviceFunctions) {
  // LLVM 19's NVPTX backend caches each function's nvvm.annotations by
  // the Function's address and never forgets a deleted one: a clone
  // allocated where an inlined-and-deleted function lived would inherit
  // that function's (empty) annotations and lose its launch bounds and
  // register limit. Taking the freed Function-sized blocks first makes
  // the clones land on addresses no annotation was ever cached for.
  std::vector<std::unique_ptr<Function>> fillers;
  FunctionType *filler = FunctionType::get(Type::getVoidTy(M.getContext()), false);
  for (unsigned i = 0; i < kAddressFillers; ++i)
    fillers.emplace_back(Function::Create(filler, GlobalValue::InternalLinkage));
  for (Function *F : kernels)
    clones[F] = cloneKernel(*F);
  for (Function *F : deviceFunctions)
    clones[F] = cloneDeviceFunction(*F);
}

void KernelCloner::redirectCalls(Function &clone, const LaunchContext &ctx) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<CallInst *, 8> calls;
  for (Instruction &I : instructions(clone))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *callee = CI->getCalledFunction())
        if (clones.count(callee) && !isKernel(*callee))
          calls.push_back(CI);
  for (CallInst *CI : calls) {
    Function *target = clones[CI->getCalledFunction()];
    SmallVector<Value *, 8> args(CI->args());
    ctx.appendArgs(args);
    SmallVector<OperandBundleDef, 1> bundles;
    CI->getOperandBundlesAsDefs(bundles);
    CallInst *NewCI = CallInst::Create(target, args, bundles, "", CI);
    NewCI->takeName(CI);
    NewCI->setCallingConv(CI->getCallingConv());
    NewCI->setTailCallKind(CI->getTailCallKind());
    NewCI->setDebugLoc(CI->getDebugLoc());
    // Parameter attributes of the original arguments still apply.
    AttributeList attrs = CI->getAttributes();
    NewCI->setAttributes(AttributeList::get(
        Ctx, attrs.getFnAttrs(), attrs.getRetAttrs(),
        [&] {
          SmallVector<AttributeSet, 8> p;
          for (unsigned i = 0; i < CI->arg_size(); ++i)
            p.push_back(attrs.getParamAttrs(i));
          return p;
        }()));
    NewCI->removeFnAttr(Attribute::Memory);
    CI->replaceAllUsesWith(NewCI);
    CI->eraseFromParent();
  }
}

// Device functions this unit calls but another defines: their clones are
// there too (every unit of an rdc link is compiled by kosan), so the
// clones here call those. CUDA's own device-side functions (printf, malloc,
// assert, the device runtime API) and libdevice stay as they are.
void KernelCloner::declareExternalClones(ArrayRef<Function *> instrumented) {
  SmallPtrSet<Function *, 16> callers(instrumented.begin(), instrumented.end());
  auto isSystem = [](StringRef name) {
    for (StringRef prefix : {"llvm.", "__nv", "__kosan", "__cuda", "cuda", "__assert",
                             "vprintf", "malloc", "free", "__ockl", "__ocml"})
      if (name.starts_with(prefix))
        return true;
    return false;
  };
  for (Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic() || F.hasLocalLinkage() ||
        isSystem(F.getName()) || F.getName().ends_with(KOSAN_CLONE_SUFFIX) ||
        F.getCallingConv() == T.kernelCallingConv() || F.isVarArg())
      continue;
    bool called = any_of(F.users(), [&](User *U) {
      auto *CI = dyn_cast<CallInst>(U);
      return CI && CI->getCalledFunction() == &F && callers.count(CI->getFunction());
    });
    if (!called)
      continue;
    FunctionType *FT = F.getFunctionType();
    SmallVector<Type *, 8> params(FT->param_begin(), FT->param_end());
    params.append(LaunchContext::deviceFunctionParams(M.getContext()));
    Function *decl = Function::Create(FunctionType::get(FT->getReturnType(), params, false),
                                      GlobalValue::ExternalLinkage, F.getAddressSpace(),
                                      F.getName() + KOSAN_CLONE_SUFFIX, &M);
    decl->setCallingConv(F.getCallingConv());
    clones[&F] = decl;
  }
}

} // namespace kosan

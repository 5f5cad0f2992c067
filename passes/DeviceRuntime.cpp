//===- passes/DeviceRuntime.cpp - Link the embedded device runtime ---------===//
//
// The device runtime is bitcode embedded in the plugin at build time, once
// for nvptx64 and once for amdgcn (empty when kosan was built without the
// ROCm device libraries).
// It is linked after instrumentation, so its functions are never instrumented,
// and only the entry points the module calls come along. Made internal, they
// cannot clash between translation units, and they take the module's target
// attributes so that one GPU target covers the whole module.
//
//===----------------------------------------------------------------------===//
#include "DeviceRuntime.h"
#include "KosanPasses.h"

#include "kosan/abi.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace {
const unsigned char kDeviceRuntimeNVPTX[] = {
#include "kosan_device_nvptx.inc"
};
// One byte more than the bitcode, so that the array is never empty.
const unsigned char kDeviceRuntimeAMDGCN[] = {
#include "kosan_device_amdgcn.inc"
    0};
} // namespace

namespace kosan {

bool hasDeviceRuntime(const Module &M) {
  Triple T(M.getTargetTriple());
  return T.isNVPTX() || (T.isAMDGCN() && sizeof(kDeviceRuntimeAMDGCN) > 1);
}

bool linkDeviceRuntime(Module &M) {
  Triple T(M.getTargetTriple());
  if (!hasDeviceRuntime(M))
    return false;
  StringRef bytes = T.isNVPTX() ? StringRef(reinterpret_cast<const char *>(kDeviceRuntimeNVPTX),
                                            sizeof(kDeviceRuntimeNVPTX))
                                : StringRef(reinterpret_cast<const char *>(kDeviceRuntimeAMDGCN),
                                            sizeof(kDeviceRuntimeAMDGCN) - 1);
  Expected<std::unique_ptr<Module>> runtime =
      parseBitcodeFile(MemoryBufferRef(bytes, "kosan-device-runtime"),
                       M.getContext());
  if (!runtime) {
    consumeError(runtime.takeError());
    return false;
  }
  (*runtime)->setTargetTriple(M.getTargetTriple());
  (*runtime)->setDataLayout(M.getDataLayout());

  // Target attributes of the module's own code, to give the runtime.
  Attribute cpu, features;
  for (Function &F : M)
    if (!F.isDeclaration() && F.hasFnAttribute("target-cpu")) {
      cpu = F.getFnAttribute("target-cpu");
      features = F.getFnAttribute("target-features");
      break;
    }

  if (Linker::linkModules(M, std::move(*runtime), Linker::LinkOnlyNeeded))
    return false;

  for (Function &F : M) {
    // Kernels of kosan's own (the unit marker of relocatable device code)
    // are not the runtime's.
    if (F.isDeclaration() || !F.getName().starts_with(rt::Prefix) ||
        F.getCallingConv() == CallingConv::PTX_Kernel ||
        F.getCallingConv() == CallingConv::AMDGPU_KERNEL)
      continue;
    F.setLinkage(GlobalValue::InternalLinkage);
    // AMDGPU: what the attributor concluded for the runtime's own build
    // (no dispatch pointer, ...) is left to the backend to conclude again.
    SmallVector<StringRef, 16> inferred;
    for (const Attribute &A : F.getAttributes().getFnAttrs())
      if (A.isStringAttribute() && A.getKindAsString().starts_with("amdgpu-no-"))
        inferred.push_back(A.getKindAsString());
    for (StringRef name : inferred)
      F.removeFnAttr(name);
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
    if (cpu.isValid())
      F.addFnAttr(cpu);
    if (features.isValid())
      F.addFnAttr(features);
  }
  // The entries whose every call is replaced by their body.
  SetVector<Function *> callers;
  for (const rt::Entry &entry : rt::Entries) {
    if (!entry.inlined)
      continue;
    Function *F = M.getFunction(entry.name);
    if (!F || F->isDeclaration())
      continue;
    SmallVector<CallBase *, 16> calls;
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledFunction() == F)
        calls.push_back(CB);
    for (CallBase *CB : calls) {
      callers.insert(CB->getFunction());
      InlineFunctionInfo IFI;
      if (!InlineFunction(*CB, IFI).isSuccess())
        return false;
    }
    if (F->use_empty())
      F->eraseFromParent();
  }
  // What the inlined bodies read and write of their callers' locals (the
  // precision check's per-thread tallies, kosan_prec_tally) goes into
  // registers: the backend lowers a memset of them into a loop of byte
  // stores before its own SROA would. Optimised functions only (at -O0
  // they are optnone and keep every local in memory anyway).
  if (!callers.empty()) {
    PassBuilder PB;
    FunctionAnalysisManager FAM;
    PB.registerFunctionAnalyses(FAM);
    SROAPass sroa(SROAOptions::ModifyCFG);
    for (Function *F : callers)
      if (!F->hasOptNone())
        sroa.run(*F, FAM);
  }
  return true;
}

} // namespace kosan

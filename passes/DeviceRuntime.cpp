//===- passes/DeviceRuntime.cpp - Link the embedded device runtime ---------===//
//
// The device runtime is nvptx64 bitcode embedded in the plugin at build time.
// It is linked after instrumentation, so its functions are never instrumented,
// and only the entry points the module calls come along. Made internal, they
// cannot clash between translation units, and they take the module's target
// attributes so that one PTX target covers the whole module.
//
//===----------------------------------------------------------------------===//
#include "DeviceRuntime.h"
#include "KosanPasses.h"

#include "kosan/abi.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace {
const unsigned char kDeviceRuntimeNVPTX[] = {
#include "kosan_device_nvptx.inc"
};
} // namespace

namespace kosan {

bool linkDeviceRuntime(Module &M) {
  if (!Triple(M.getTargetTriple()).isNVPTX())
    return false;
  StringRef bytes(reinterpret_cast<const char *>(kDeviceRuntimeNVPTX),
                  sizeof(kDeviceRuntimeNVPTX));
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
        F.getCallingConv() == CallingConv::PTX_Kernel)
      continue;
    F.setLinkage(GlobalValue::InternalLinkage);
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
    if (cpu.isValid())
      F.addFnAttr(cpu);
    if (features.isValid())
      F.addFnAttr(features);
  }
  return true;
}

} // namespace kosan

//===- plugin/Plugin.cpp - kosan's one plugin, loaded every way clang allows ===//
//
//   opt -load-pass-plugin=libkosan.so -passes=kosan-<check>  (tests: kosan-oob,
//                                                           kosan-order-ops, ... one per
//                                                           name of KOSAN_CHECKS, abi.h)
//   opt -load-pass-plugin=libkosan.so -passes=kosan        (what clang runs)
//   opt -load-pass-plugin=libkosan.so -passes=kosan-compat
//   opt -load-pass-plugin=libkosan.so -passes='kosan-mutate<list>'   (or <id=ID>)
//   clang -fpass-plugin=libkosan.so                        (default options: clang 19
//                                                           parses -mllvm before it loads
//                                                           the plugin, so -kosan-* need
//                                                           -fplugin or -Xclang -load)
//   clang -fplugin=libkosan.so -fplugin-arg-kosan-checks=oob
//
// The frontend plugin does not replace code generation: it registers the
// same passes through CodeGenOptions::PassBuilderCallbacks, so both routes
// build the same pipeline. Instrumentation runs at the end of the optimizer
// pipeline (after inlining, so provenance is visible across inlined calls),
// at every -O level. The compatibility pass runs at its start, whatever the
// checks (none, for --kosan-plain builds), before libdevice is inlined.
//
//===----------------------------------------------------------------------===//
#include "Plugin.h"

#include "compat/CudaCompat.h"
#include "kosan/abi.h"
#include "kosan/checks.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

namespace kosan {
bool gFrontendRegistered = false;

void registerPasses(PassBuilder &PB, PassOptions opts, bool fromFrontend) {
  PB.registerPipelineStartEPCallback(
      [opts](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(kosan::CudaCompatPass());
        // Mutants are made of the code as written, before the optimizer
        // and the checks see it (passes/mutate/Mutator.h).
        if (opts.mutate.active())
          MPM.addPass(kosan::MutatorPass(opts.mutate));
      });
  PB.registerOptimizerLastEPCallback(
      [opts](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(kosan::KosanPass(opts));
      });
  if (fromFrontend)
    return;
  PB.registerPipelineParsingCallback(
      [](StringRef name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        kosan::PassOptions o = kosan::PassOptions::fromCommandLine();
        if (name == "kosan") {
          MPM.addPass(kosan::KosanPass(o));
          return true;
        }
        // One check each, for tests: kosan-<name> instruments that check
        // (or variant) alone, whatever -kosan-checks says.
        for (const kosan::CheckName &c : kosan::kCheckNames)
          if (name == "kosan-" + std::string(c.name)) {
            o.checks = c.bits;
            MPM.addPass(kosan::InstrumentPass(o));
            return true;
          }
        if (name.consume_front("kosan-mutate")) {
          // kosan-mutate<list> lists to stdout; kosan-mutate<id=ID> applies.
          kosan::MutateOptions m = o.mutate;
          if (name.consume_front("<") && name.consume_back(">")) {
            if (name == "list")
              m.listFile = std::string(1, '-');
            else if (name.consume_front("id="))
              m.apply = name.str();
            else
              return false;
          } else if (!name.empty())
            return false;
          MPM.addPass(kosan::MutatorPass(m));
          return true;
        }
        if (name == "kosan-compat") {
          MPM.addPass(kosan::CudaCompatPass());
          return true;
        }
        if (name == "kosan-host") {
          MPM.addPass(kosan::HostHooksPass(o));
          return true;
        }
        return false;
      });
}
} // namespace kosan

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "kosan", "0.1.0", [](PassBuilder &PB) {
            if (kosan::gFrontendRegistered)
              return;
            kosan::registerPasses(PB, kosan::PassOptions::fromCommandLine(),
                                  /*fromFrontend=*/false);
          }};
}

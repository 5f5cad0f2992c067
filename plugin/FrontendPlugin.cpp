//===- plugin/FrontendPlugin.cpp - kosan as a clang frontend plugin --------===//
//
// Loaded by clang (-fplugin=libkosan.so) this registers a PluginASTAction whose
// only job is to read -fplugin-arg-kosan-* and hand kosan's passes to code
// generation through CodeGenOptions::PassBuilderCallbacks.
//
// The same library is loaded by opt, which has no clang in it. This file's
// object is therefore linked with all its symbols weakened (see
// plugin/CMakeLists.txt): in opt its references to clang stay unresolved but
// harmless, because nothing here runs unless the registry function is found
// in the process.
//
//===----------------------------------------------------------------------===//
#include "Plugin.h"

#include "kosan/abi.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Passes/PassBuilder.h"

#include <dlfcn.h>

using namespace llvm;

namespace {

// What the trace records of how a module was compiled: the options that
// change floating-point results or the code the checks see.
std::string compileFlags(const clang::CompilerInstance &CI) {
  const clang::LangOptions &LO = CI.getLangOpts();
  const clang::CodeGenOptions &CG = CI.getCodeGenOpts();
  std::string out = "-O" + std::to_string(CG.OptimizationLevel);
  switch (LO.getDefaultFPContractMode()) {
  case clang::LangOptions::FPM_Off:
    out += " -ffp-contract=off";
    break;
  case clang::LangOptions::FPM_On:
    out += " -ffp-contract=on";
    break;
  default:
    out += " -ffp-contract=fast";
    break;
  }
  if (LO.FastMath)
    out += " -ffast-math";
  if (LO.FiniteMathOnly)
    out += " -ffinite-math-only";
  if (CG.getDebugInfo() == llvm::codegenoptions::DebugLineTablesOnly)
    out += " -gline-tables-only";
  else if (CG.getDebugInfo() >= llvm::codegenoptions::LimitedDebugInfo)
    out += " -g";
  if (LO.CUDAIsDevice && LO.GPUDeviceApproxTranscendentals)
    out += " -fgpu-approx-transcendentals";
  return out;
}

class KosanFrontendAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, StringRef) override {
    kosan::PassOptions o = opts;
    o.compileFlags = compileFlags(CI);
    o.rdc |= CI.getLangOpts().GPURelocatableDeviceCode;
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [o](PassBuilder &PB) { kosan::registerPasses(PB, o, /*fromFrontend=*/true); });
    kosan::gFrontendRegistered = true;
    return std::make_unique<clang::ASTConsumer>();
  }

  bool ParseArgs(const clang::CompilerInstance &CI,
                 const std::vector<std::string> &args) override {
    opts = kosan::PassOptions::fromCommandLine();
    clang::DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &arg : args) {
      StringRef a(arg), key, value;
      std::tie(key, value) = a.split('=');
      if (key == "checks") {
        std::string bad;
        if (!kosan::PassOptions::parseChecks(value, opts.checks, &bad)) {
          D.Report(D.getCustomDiagID(
              clang::DiagnosticsEngine::Error,
              "kosan: unknown check '%0' in -fplugin-arg-kosan-checks "
              "(valid: oob, precision, order, order-ops, all, none)"))
              << bad;
          return false;
        }
      } else if (key == "debug-func") {
        opts.debugFunction = value.str();
      } else {
        D.Report(D.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                   "kosan: unknown plugin argument '%0' "
                                   "(valid: checks=, debug-func=)"))
            << arg;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }

private:
  kosan::PassOptions opts;
};

using Registry = clang::FrontendPluginRegistry;

std::unique_ptr<clang::PluginASTAction> makeAction() {
  return std::make_unique<KosanFrontendAction>();
}

Registry::entry gEntry("kosan", "kosan: instrument GPU kernels", makeAction);
Registry::node gNode(gEntry);

// What FrontendPluginRegistry::Add does, but only where clang is present.
__attribute__((constructor)) void registerFrontendPlugin() {
  using AddNode = void (*)(Registry::node *);
  auto addNode = reinterpret_cast<AddNode>(dlsym(
      RTLD_DEFAULT,
      "_ZN4llvm8RegistryIN5clang15PluginASTActionEE8add_nodeEPNS3_4nodeE"));
  if (addNode)
    addNode(&gNode);
}
} // namespace

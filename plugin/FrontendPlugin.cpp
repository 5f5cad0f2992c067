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
#include "kosan/checks.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/HeaderSearchOptions.h"
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

// What the backend will fuse into fmas: clang's TargetOptions::AllowFPOpFusion
// (Fast for -ffp-contract=fast, or with every fast-math flag).
kosan::FPFusion fpFusion(const clang::CompilerInstance &CI) {
  const clang::LangOptions &LO = CI.getLangOpts();
  auto contract = LO.getDefaultFPContractMode();
  bool unsafeMath = LO.AllowFPReassoc && LO.AllowRecip && LO.NoSignedZero && LO.ApproxFunc &&
                    (contract == clang::LangOptions::FPM_Fast ||
                     contract == clang::LangOptions::FPM_FastHonorPragmas);
  return contract == clang::LangOptions::FPM_Fast || unsafeMath ? kosan::FPFusion::Fast
                                                                : kosan::FPFusion::Standard;
}

// Where clang finds system and toolkit headers (its own, CUDA's, kosan's
// compatibility layer): code defined there is not the user's to mutate.
std::vector<std::string> systemHeaderDirectories(const clang::CompilerInstance &CI) {
  const clang::HeaderSearchOptions &HS = CI.getHeaderSearchOpts();
  std::vector<std::string> dirs = {"/usr/include/"};
  if (!HS.ResourceDir.empty())
    dirs.push_back(HS.ResourceDir + "/");
  for (const clang::HeaderSearchOptions::Entry &E : HS.UserEntries)
    if (E.Group != clang::frontend::Quoted && E.Group != clang::frontend::Angled)
      dirs.push_back(E.Path + "/");
  return dirs;
}

// The line of source a diagnostic points at, or "".
StringRef sourceLine(const clang::Diagnostic &Info) {
  if (!Info.getLocation().isValid() || !Info.hasSourceManager())
    return "";
  const clang::SourceManager &SM = Info.getSourceManager();
  clang::SourceLocation loc = SM.getExpansionLoc(Info.getLocation());
  bool invalid = false;
  StringRef buffer = SM.getBufferData(SM.getFileID(loc), &invalid);
  if (invalid)
    return "";
  unsigned offset = SM.getFileOffset(loc);
  size_t begin = buffer.rfind('\n', offset);
  begin = begin == StringRef::npos ? 0 : begin + 1;
  size_t end = buffer.find('\n', offset);
  return buffer.slice(begin, end == StringRef::npos ? buffer.size() : end);
}

// Some CUDA that nvcc accepts clang 19 cannot compile, and its error does not
// say so. After such an error the user also reads why and what both
// compilers accept (docs/driver.md, "What clang cannot compile"). Everything
// else passes through to clang's own consumer untouched.
class ExplainingConsumer : public clang::DiagnosticConsumer {
public:
  ExplainingConsumer(clang::DiagnosticConsumer &target,
                     std::unique_ptr<clang::DiagnosticConsumer> owned)
      : target(target), owned(std::move(owned)) {}

  void BeginSourceFile(const clang::LangOptions &LO, const clang::Preprocessor *PP) override {
    target.BeginSourceFile(LO, PP);
  }
  void EndSourceFile() override { target.EndSourceFile(); }
  void finish() override { target.finish(); }
  void clear() override {
    target.clear();
    DiagnosticConsumer::clear();
  }
  bool IncludeInDiagnosticCounts() const override {
    return target.IncludeInDiagnosticCounts();
  }
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(level, Info);
    target.HandleDiagnostic(level, Info);
    if (level < clang::DiagnosticsEngine::Error)
      return;
    const char *why = explanation(Info);
    if (!why)
      return;
    std::string where;
    if (Info.getLocation().isValid() && Info.hasSourceManager()) {
      const clang::SourceManager &SM = Info.getSourceManager();
      clang::PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(Info.getLocation()));
      std::string line = P.isValid() ? std::string(P.getFilename()) + ":" +
                                           std::to_string(P.getLine())
                                     : "";
      if (!line.empty() && line == lastExplained)
        return; // once per source line
      lastExplained = line;
      where = Info.getLocation().printToString(SM) + ": ";
    }
    llvm::errs() << where << "note: kosan: " << why << "\n";
  }

private:
  static const char *explanation(const clang::Diagnostic &Info) {
    StringRef line = sourceLine(Info);
    switch (Info.getID()) {
    case clang::diag::err_shared_var_init:
      return "clang (unlike nvcc) cannot compile a __shared__ variable whose type has a "
             "constructor or non-empty destructor, such as cuda::barrier or "
             "cuda::pipeline_shared_state; keep raw aligned storage in __shared__ and "
             "use it through a reference (docs/driver.md, \"What clang cannot compile\")";
    case clang::diag::err_attributes_not_allowed:
      if (line.contains("__shared__") && line.contains("alignas"))
        return "clang (unlike nvcc) takes alignas only before __shared__: write "
               "'alignas(N) __shared__', which nvcc accepts too";
      return nullptr;
    default:
      if (line.contains("<< <") || line.contains(">> >"))
        return "clang (unlike nvcc) reads a kernel launch only as '<<<' and '>>>' "
               "without spaces: write 'kernel<<<grid, block>>>(...)'";
      return nullptr;
    }
  }

  clang::DiagnosticConsumer &target;
  std::unique_ptr<clang::DiagnosticConsumer> owned;
  std::string lastExplained;
};

class KosanFrontendAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, StringRef) override {
    kosan::PassOptions o = opts;
    o.compileFlags = compileFlags(CI);
    o.fpFusion = fpFusion(CI);
    o.rdc |= CI.getLangOpts().GPURelocatableDeviceCode;
    for (const std::string &arg : CI.getFrontendOpts().LLVMArgs)
      if (StringRef(arg).starts_with("-nvptx-"))
        o.codegenArgs.push_back(arg);
    if (o.mutate.active())
      o.mutate.skipPrefixes = systemHeaderDirectories(CI);
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [o](PassBuilder &PB) { kosan::registerPasses(PB, o, /*fromFrontend=*/true); });
    kosan::gFrontendRegistered = true;
    return std::make_unique<clang::ASTConsumer>();
  }

  bool ParseArgs(const clang::CompilerInstance &CI,
                 const std::vector<std::string> &args) override {
    opts = kosan::PassOptions::fromCommandLine();
    clang::DiagnosticsEngine &D = CI.getDiagnostics();
    if (clang::DiagnosticConsumer *client = D.getClient()) {
      std::unique_ptr<clang::DiagnosticConsumer> owned = D.takeClient();
      D.setClient(new ExplainingConsumer(*client, std::move(owned)), /*ShouldOwnClient=*/true);
    }
    for (const std::string &arg : args) {
      StringRef a(arg), key, value;
      std::tie(key, value) = a.split('=');
      if (key == "checks") {
        std::string bad;
        if (!kosan::PassOptions::parseChecks(value, opts.checks, &bad)) {
          D.Report(D.getCustomDiagID(
              clang::DiagnosticsEngine::Error,
              "kosan: unknown check '%0' in -fplugin-arg-kosan-checks (valid: %1)"))
              << bad << kosan::checkNameList(false);
          return false;
        }
      } else if (key == "defer") {
        if (value != "0" && value != "1" && value != "ptx") {
          D.Report(D.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                     "kosan: -fplugin-arg-kosan-defer takes 0, 1 or ptx, not '%0'"))
              << value;
          return false;
        }
        opts.deferClones = value == "0"   ? kosan::DeferClones::Off
                           : value == "1" ? kosan::DeferClones::Bitcode
                                          : kosan::DeferClones::Ptx;
      } else if (key == "debug-func") {
        opts.debugFunction = value.str();
      } else if (key == "mutate") {
        opts.mutate.apply = value.str();
      } else if (key == "mutate-list") {
        opts.mutate.listFile = value.str();
      } else if (key == "mutate-report") {
        opts.mutate.reportFile = value.str();
      } else {
        D.Report(D.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                   "kosan: unknown plugin argument '%0' "
                                   "(valid: checks=, defer=, debug-func=, mutate=, "
                                   "mutate-list=, mutate-report=)"))
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

//===- passes/KosanPass.cpp - Dispatch by module and the pass options ------===//
#include "KosanPasses.h"

#include "kosan/abi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

// Hidden options for opt and -mllvm; -fplugin-arg-kosan-* overrides them.
static cl::opt<std::string>
    ClChecks("kosan-checks", cl::desc("kosan: checks to instrument (oob,precision,order,order-ops|all|none)"),
             cl::Hidden, cl::init("oob"));
static cl::opt<bool> ClLinkRuntime(
    "kosan-link-runtime",
    cl::desc("kosan: link the device runtime into instrumented device modules"),
    cl::Hidden, cl::init(true));
static cl::opt<bool> ClRdc(
    "kosan-rdc",
    cl::desc("kosan: the device module is relocatable device code (-fgpu-rdc), linked "
             "with others by nvlink; set by the frontend plugin from clang's options"),
    cl::Hidden, cl::init(false));
static cl::opt<std::string>
    ClDebugFunction("kosan-debug-func",
                    cl::desc("kosan: instrument only this function (for bisection)"),
                    cl::Hidden);

namespace kosan {

bool PassOptions::parseChecks(StringRef text, uint32_t &bits, std::string *bad) {
  bits = 0;
  SmallVector<StringRef, 4> words;
  text.split(words, ',', -1, /*KeepEmpty=*/false);
  for (StringRef w : words) {
    w = w.trim();
    if (w == "oob")
      bits |= KOSAN_CHECK_OOB;
    else if (w == "precision")
      bits |= KOSAN_CHECK_PRECISION;
    else if (w == "order")
      bits |= KOSAN_CHECK_ORDER;
    else if (w == "order-ops")
      bits |= KOSAN_CHECK_ORDER | KOSAN_CHECK_ORDER_OPS;
    else if (w == "all")
      bits |= KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION | KOSAN_CHECK_ORDER;
    else if (w == "none")
      bits = 0;
    else {
      if (bad)
        *bad = w.str();
      return false;
    }
  }
  return true;
}

PassOptions PassOptions::fromCommandLine() {
  PassOptions o;
  std::string bad;
  if (!parseChecks(ClChecks, o.checks, &bad))
    report_fatal_error("kosan: unknown check '" + Twine(bad) +
                           "' in -kosan-checks (valid: oob, precision, order, order-ops, all, none)",
                       false);
  o.linkRuntime = ClLinkRuntime;
  o.debugFunction = ClDebugFunction;
  o.rdc = ClRdc;
  return o;
}

PreservedAnalyses KosanPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (isDeviceModule(M)) {
    // On the kernels as written, before any clone exists.
    OrderAnalysisPass(opts).run(M, MAM);
    return OOBSanitizerPass(opts).run(M, MAM);
  }
  if (opts.checks == 0)
    return PreservedAnalyses::all();
  return HostHooksPass().run(M, MAM);
}

void KosanPass::printPipeline(raw_ostream &OS,
                              function_ref<StringRef(StringRef)> MapClassName) {
  OS << "kosan";
}

} // namespace kosan

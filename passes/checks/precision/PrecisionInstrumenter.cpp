//===- passes/checks/precision/PrecisionInstrumenter.cpp - checks=precision ===//
//
// The precision check as an Instrumenter: the fp64 shadow of
// PrecisionSanitizer.cpp in each clone, its remark (-Rpass=kosan-precision)
// and the sm_70 gate of its device runtime.
//
//===----------------------------------------------------------------------===//
#include "checks/precision/PrecisionSanitizer.h"
#include "core/Instrumenter.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

#define DEBUG_TYPE "kosan-precision"

STATISTIC(NumFunctions, "Functions given fp64 shadows");
STATISTIC(NumShadowed, "Operations shadowed in fp64");
STATISTIC(NumSinks, "Stores and atomics whose error is recorded");
STATISTIC(NumNarrowings, "Narrowing conversions recorded");

namespace kosan {
namespace {

class PrecisionInstrumenter final : public Instrumenter {
public:
  using Instrumenter::Instrumenter;
  StringRef name() const override { return "precision"; }

  // The precision runtime groups a warp's lanes with match.any.sync, which
  // needs sm_70: older targets are checked for out-of-bounds accesses only.
  bool begin(ArrayRef<Function *> kernels, ArrayRef<Function *> deviceFunctions) override {
    Function *first = kernels.empty() ? deviceFunctions.front() : kernels.front();
    StringRef cpu = first->getFnAttribute("target-cpu").getValueAsString();
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    unsigned sm = 0;
    if (cpu.consume_front("sm_") && !cpu.take_while(digit).getAsInteger(10, sm) && sm < 70) {
      errs() << "kosan: warning: the precision check needs sm_70 or newer; "
             << S.M.getSourceFileName() << " compiled for sm_" << sm
             << " is not checked for precision\n";
      return false;
    }
    shared.emplace(S.M, S.sharedShadowBytesLeft);
    return true;
  }

  void instrument(Function &clone, const Function &original, const LaunchContext &ctx,
                  FunctionAnalysisManager &) override {
    PrecisionCounts c = instrumentPrecision(clone, ctx.state, ctx.launchId, S.sites, *shared);
    ++NumFunctions;
    NumShadowed += c.shadowed;
    NumSinks += c.sinks;
    NumNarrowings += c.narrowings;
    // -Rpass=kosan-precision: what the shadow covers in each function.
    OptimizationRemarkEmitter ORE(&clone);
    ORE.emit([&] {
      OptimizationRemark R(DEBUG_TYPE, "Shadowed", &clone);
      R << (ctx.kernel ? "kernel '" : "device function '")
        << ore::NV("Function", demangle(original.getName())) << "': "
        << ore::NV("Shadowed", c.shadowed) << " operations shadowed in fp64 ("
        << ore::NV("Asm", c.asmOps) << " half/bf16 inline-asm operations), "
        << ore::NV("Sinks", c.sinks) << " stores and atomics";
      if (c.tallied)
        R << " (" << ore::NV("Tallied", c.tallied) << " in loops, tallied per thread)";
      R << " and "
        << ore::NV("Narrowings", c.narrowings) << " narrowing conversions recorded, "
        << ore::NV("Seeded", c.seeded) << " shadows seeded from loads, parameters or calls";
      if (c.sharedStores || c.sharedLoads)
        R << ", " << ore::NV("SharedStores", c.sharedStores) << " shared-memory stores and "
          << ore::NV("SharedLoads", c.sharedLoads) << " loads carrying shadows";
      if (c.copies)
        R << ", " << ore::NV("Copies", c.copies)
          << " stores of copied values left out (exact)";
      return R;
    });
  }

private:
  std::optional<SharedValueShadows> shared;
};

} // namespace

std::unique_ptr<Instrumenter> makePrecisionInstrumenter(ModuleState &S) {
  return std::make_unique<PrecisionInstrumenter>(S);
}

} // namespace kosan

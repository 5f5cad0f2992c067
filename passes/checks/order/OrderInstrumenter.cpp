//===- passes/checks/order/OrderInstrumenter.cpp - checks=order -----------===//
//
// The order check as an Instrumenter: the static analysis of each kernel as
// written (OrderAnalysis.cpp, once per kernel, its remark under
// -Rpass=kosan-order and its findings in the site table), then the
// fingerprints of OrderSanitizer.cpp in each clone (remark under
// -Rpass-analysis=kosan-order).
//
//===----------------------------------------------------------------------===//
#include "checks/order/OrderAnalysis.h"
#include "checks/order/OrderSanitizer.h"
#include "DeviceRuntime.h"
#include "KosanPasses.h"
#include "core/Instrumenter.h"
#include "target/Target.h"

#include "kosan/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <optional>

using namespace llvm;

#define DEBUG_TYPE "kosan-order"

STATISTIC(NumKernelsAnalyzed, "Kernels analyzed for order risks");
STATISTIC(NumFunctions, "Functions given fingerprints");
STATISTIC(NumOperations, "Operations given a fingerprint");
STATISTIC(NumAtomics, "Float atomics logged or folded");

namespace kosan {
namespace {

// Whether an instrumented kernel may log a float atomic on global memory:
// it calls the log itself, or calls a function that might (a device
// function's clone, or through a pointer).
bool mayLogOrderAtomics(const Function &clone) {
  for (const BasicBlock &BB : clone)
    for (const Instruction &I : BB) {
      const auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isInlineAsm())
        continue;
      const Function *callee = CB->getCalledFunction();
      if (!callee)
        return true;
      StringRef name = callee->getName();
      if (name == rt::OrderAtomic || name.ends_with(KOSAN_CLONE_SUFFIX))
        return true;
    }
  return false;
}

class OrderInstrumenter final : public Instrumenter {
public:
  using Instrumenter::Instrumenter;
  StringRef name() const override { return "order"; }

  // -Rpass=kosan-order: every kernel's findings, before anything is cloned.
  void analyzeModule(FunctionAnalysisManager &FAM) override {
    for (Function &F : S.M) {
      if (F.isDeclaration() || !S.target.isKernel(F) ||
          F.getName().ends_with(KOSAN_CLONE_SUFFIX))
        continue;
      OrderFindings &f = findings[&F] = analyzeOrder(F, FAM, S.target);
      ++NumKernelsAnalyzed;
      OptimizationRemarkEmitter ORE(&F);
      ORE.emit([&] {
        OptimizationRemark R(DEBUG_TYPE, "OrderRisks", &F);
        R << "kernel '" << demangle(F.getName().str()) << "': " << f.describe();
        return R;
      });
    }
  }

  bool begin(ArrayRef<Function *>, ArrayRef<Function *>) override {
    shared.emplace(S.M, S.sharedShadowBytesLeft);
    logOps = S.opts.checks & KOSAN_CHECK_ORDER_OPS;
    flags = KOSAN_KERNEL_ORDER_FINGERPRINTS | (logOps ? uint32_t(KOSAN_KERNEL_ORDER_OPS) : 0u) |
            shared->dynamicFactor() << KOSAN_KERNEL_DYNSMEM_SHADOW_SHIFT;
    return true;
  }

  void instrument(Function &clone, const Function &original, const LaunchContext &ctx,
                  FunctionAnalysisManager &) override {
    OrderCounts c = instrumentOrder(
        clone, {ctx.state, ctx.launchId, ctx.flags, ctx.dynSmem, ctx.kernel, logOps, &S.target}, S.sites,
        *shared);
    ++NumFunctions;
    NumOperations += c.operations;
    NumAtomics += c.atomics;
    // -Rpass-analysis=kosan-order: what the fingerprints cover in each function.
    OptimizationRemarkEmitter ORE(&clone);
    ORE.emit([&] {
      OptimizationRemarkAnalysis R(DEBUG_TYPE, "Fingerprints", &clone);
      R << (ctx.kernel ? "kernel '" : "device function '")
        << ore::NV("Function", demangle(original.getName())) << "': fingerprints for "
        << ore::NV("Operations", c.operations) << " operations, "
        << ore::NV("Leaves", c.leaves) << " loads from kernel arguments, "
        << ore::NV("Shared", c.sharedAccesses) << " shared-memory accesses, "
        << ore::NV("Shuffles", c.shuffles) << " shuffles; "
        << ore::NV("Stores", c.stores) << " stores and "
        << ore::NV("Atomics", c.atomics) << " float atomics recorded; "
        << ore::NV("Content", c.contentLeaves)
        << " values of other origin labelled by their bits";
      if (c.loggedOps)
        R << "; " << ore::NV("LoggedOps", c.loggedOps) << " operations logged (order-ops)";
      return R;
    });
  }

  uint32_t kernelFlags(const Function &original, const Function &clone) const override {
    uint32_t atomicLog = mayLogOrderAtomics(clone) ? uint32_t(KOSAN_KERNEL_ORDER_ATOMIC_LOG) : 0u;
    return flags | atomicLog | findingsOf(original).flags();
  }
  std::string kernelNotes(const Function &original) const override {
    return findingsOf(original).describe();
  }

private:
  const OrderFindings &findingsOf(const Function &F) const {
    return findings.find(&F)->second;
  }

  DenseMap<const Function *, OrderFindings> findings;
  std::optional<SharedShadows> shared;
  bool logOps = false;
  uint32_t flags = 0;
};

} // namespace

std::unique_ptr<Instrumenter> makeOrderInstrumenter(ModuleState &S) {
  return std::make_unique<OrderInstrumenter>(S);
}

} // namespace kosan

//===- passes/checks/order/OrderAnalysis.h - Where a kernel's reduction order can vary --===//
//
// The static half of checks=order (see OrderAnalysis.cpp): what in a kernel
// can make its results depend on the order of arrival, the launch or the
// batch. OrderInstrumenter.cpp runs it once per kernel, prints it as a
// remark and puts it in the site table, which carries it to the trace.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_ORDERANALYSIS_H
#define KOSAN_PASSES_ORDERANALYSIS_H

#include "llvm/IR/PassManager.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kosan {

class Target;

struct OrderFindings {
  // Source locations ("file:line"), each list without repeats.
  std::vector<std::string> atomics, shuffles, shared, loops;
  uint32_t flags() const;        // KOSAN_KERNEL_* order bits
  std::string describe() const;  // the remark's text
};

OrderFindings analyzeOrder(llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
                           const Target &T);

} // namespace kosan

#endif

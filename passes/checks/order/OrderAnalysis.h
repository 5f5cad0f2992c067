//===- passes/OrderAnalysis.h - Where a kernel's reduction order can vary --===//
//
// The static half of checks=order (see OrderAnalysis.cpp): what in a kernel
// can make its results depend on the order of arrival, the launch or the
// batch. The remark pass prints it; the site table carries it to the trace.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_ORDERANALYSIS_H
#define KOSAN_PASSES_ORDERANALYSIS_H

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace kosan {

struct OrderFindings {
  // Source locations ("file:line"), each list without repeats.
  std::vector<std::string> atomics, shuffles, shared, loops;
  uint32_t flags() const;        // KOSAN_KERNEL_* order bits
  std::string describe() const;  // the remark's text
};

OrderFindings analyzeOrder(llvm::Function &F);

} // namespace kosan

#endif

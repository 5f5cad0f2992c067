//===- runtime/host/checks/oob/oob_collector.h - checks=oob on the host ---===//
//
// The bounds of each launch's pointer arguments (from the allocation table,
// the quarantine, or the driver), the device's copy of the table for
// accesses the compiler could not tie to a parameter, and the reports of
// the events the device logged: aggregated per (launch, site), printed
// once per site, and written to the trace.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CHECKS_OOB_OOB_COLLECTOR_H
#define KOSAN_RUNTIME_HOST_CHECKS_OOB_OOB_COLLECTOR_H

#include "core/collector.h"

#include <set>
#include <utility>

namespace kosan::rt {

class OobCollector : public Collector {
public:
  using Collector::Collector;
  void beforeLaunch(LaunchContext &c) override;
  bool drain(bool deviceIdle) override;
  void exitRecord(TraceEnd &end) override;
  void exitReport() override;
  void deviceReset() override;
  void fatalSignal() override;

  // Collects the OOB events (mu held); returns whether it synchronised the
  // device.
  // noCuda: read the mapped log only (a signal handler: the device may be
  // busy for ever or gone).
  bool drainEvents(bool deviceIdle, bool noCuda = false);
  void printSummary();
  // The bounds of a pointer argument (mu held): its buffer's, empty for a
  // freed buffer (recorded in ls), unbounded when unknown.
  kosan_arg_bounds boundsFor(uint64_t value, LaunchState &ls);

private:
  bool oob() const { return enabled(KOSAN_CHECK_OOB); }
  void syncTable();
  void handleEvent(const kosan_oob_event &first, uint64_t count);

  uint64_t *dTable = nullptr;           // device memory
  size_t dTableCap = 0;
  uint64_t tableGeneration = ~0ull;
  std::set<std::pair<uint32_t, uint32_t>> reportedSites; // (module, site)
  unsigned long reports = 0, printed = 0, suppressed = 0;
  unsigned long badAccesses = 0;        // this check's part of errors
  unsigned long dropped = 0, unresolvedArgs = 0;
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CHECKS_OOB_OOB_COLLECTOR_H

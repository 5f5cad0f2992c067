//===- runtime/host/checks/race/race_collector.h - checks=race on the host ===//
//
// The race log (mapped host memory), the shared memory each launch of a
// race-checked clone needs for its shadow (added after the program's own
// dynamic shared memory, and the order check's), and the reports: one per
// pair of sites, aggregated per (launch, site, other site), written to the
// trace as "oob" records of kind "data-race".
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CHECKS_RACE_RACE_COLLECTOR_H
#define KOSAN_RUNTIME_HOST_CHECKS_RACE_RACE_COLLECTOR_H

#include "core/collector.h"

#include <set>
#include <tuple>

namespace kosan::rt {

class RaceCollector : public Collector {
public:
  using Collector::Collector;
  void setUp(kosan_device_state &st) override;
  void beforeLaunch(LaunchContext &c) override;
  bool drain(bool deviceIdle) override;
  void exitCollect() override;
  void exitRecord(TraceEnd &end) override;
  void exitReport() override;
  void deviceReset() override;
  void fatalSignal() override;

private:
  bool race() const { return enabled(KOSAN_CHECK_RACE); }
  // Reports what the race log holds and empties it; after a race stopped a
  // kernel, says so and marks the device unusable. noCuda: read the mapped
  // log only (the device may be busy or gone). Returns whether the device
  // is idle.
  bool collect(bool deviceIdle, bool noCuda);
  void handleEvent(const kosan_race_event &first, uint64_t count);

  kosan_race_event *log_ = nullptr;    // mapped host memory
  kosan_host_flag *flag = nullptr;     // mapped: dirty after an event, halted after a trap
  uint32_t capacity = 0;
  int optInLimit = -1;                 // the device's largest dynamic shared memory
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> reportedPairs; // (module, site, other)
  std::set<const KernelInfo *> warnedKernels;
  unsigned long races = 0, records = 0, printed = 0, dropped = 0, unchecked = 0;
  unsigned long stopped = 0;           // kernels a race stopped
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CHECKS_RACE_RACE_COLLECTOR_H

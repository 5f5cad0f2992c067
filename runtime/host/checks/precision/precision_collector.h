//===- runtime/host/checks/precision/precision_collector.h ----------------===//
//
// checks=precision on the host. The device aggregates per site in device
// memory (kosan_prec_slot): each module gets a range of slots when it is
// first launched, and the host collects and zeroes them at the sync points
// that follow launches, writes one trace record per site, and prints the
// sites worst first at exit.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CHECKS_PRECISION_PRECISION_COLLECTOR_H
#define KOSAN_RUNTIME_HOST_CHECKS_PRECISION_PRECISION_COLLECTOR_H

#include "core/collector.h"

#include <optional>

namespace kosan::rt {

class PrecisionCollector : public Collector {
public:
  using Collector::Collector;
  void setUp(kosan_device_state &st) override;
  void moduleLoaded(ModuleInfo *m,
                    const std::vector<std::pair<std::string, uint32_t>> &units) override;
  void afterLaunch(LaunchContext &c) override;
  bool drain(bool deviceIdle) override;
  void exitCollect() override;
  void exitReport() override;
  void deviceReset() override;

private:
  bool precision() const { return enabled(KOSAN_CHECK_PRECISION); }
  void setUpPrecision(kosan_device_state &st);
  void assignPrecisionSlots(ModuleInfo *m, uint32_t nsites,
                            const std::vector<std::pair<std::string, uint32_t>> &units);
  // Collects the precision slots (mu held): when launches ran since the last
  // collection, or always with force.
  void harvestPrecision(bool deviceIdle, bool force);
  std::optional<PrecisionRecord> precisionRecord(const kosan_prec_slot &slot,
                                                 const ModuleInfo &m, uint32_t siteId);
  void printPrecisionReport();

  // The state and its slots, in device memory.
  kosan_precision_state *dPrecision = nullptr;
  kosan_prec_slot *dPrecSlots = nullptr;
  uint32_t precCapacity = 0;
  uint32_t precNextBase = 0;             // slots handed out to modules so far
  bool warnedPrecFull = false;
  bool precModuleSeen = false;           // a launched module has precision sites
  // Instrumented launches since the last collection (0: none).
  uint32_t precFirstLaunch = 0, precLastLaunch = 0;
  std::vector<PrecisionRecord> precTotals; // per site over the whole run, worst first
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CHECKS_PRECISION_PRECISION_COLLECTOR_H

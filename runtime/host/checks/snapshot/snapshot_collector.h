//===- runtime/host/checks/snapshot/snapshot_collector.h - snapshot=1 -----===//
//
// Output snapshots (snapshot=1, poison=1): before a launch, the buffers its
// kernel may write are hashed (those it also reads) or poisoned; after it,
// their contents go to the trace, for kosan-diff.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CHECKS_SNAPSHOT_SNAPSHOT_COLLECTOR_H
#define KOSAN_RUNTIME_HOST_CHECKS_SNAPSHOT_SNAPSHOT_COLLECTOR_H

#include "core/collector.h"

namespace kosan::rt {

// A snapshot being taken: the record, filled before the launch (poison,
// pre-launch hash) and completed after it.
struct PendingSnapshot {
  SnapshotRecord record;
  uint64_t bytes = 0;
};

class SnapshotCollector : public Collector {
public:
  using Collector::Collector;
  void beforeLaunch(LaunchContext &c) override;
  void afterLaunch(LaunchContext &c) override;

private:
  std::vector<PendingSnapshot> prepareSnapshots(KernelInfo *k, void **args,
                                                uint32_t launchId, cudaStream_t stream);
  void finishSnapshots(std::vector<PendingSnapshot> &snapshots, cudaStream_t stream);

  std::vector<PendingSnapshot> pending; // of the launch under way
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CHECKS_SNAPSHOT_SNAPSHOT_COLLECTOR_H

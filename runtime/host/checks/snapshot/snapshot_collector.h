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

#include <functional>

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
  void deviceReset() override;
  void exitReport() override;

private:
  // Copies `bytes` from device address `src` chunk by chunk (chunkBytes
  // each, the last may be shorter) into pinned staging buffers on kosan's
  // own stream (the driver's cuMemcpyDtoHAsync), and hands each chunk, as
  // its copy lands, to use(index, data) on the trace's worker threads, so
  // that the next copies overlap it.
  // Returns when every chunk was used; false if a copy failed (chunks
  // after it are not used).
  bool streamChunks(uint64_t src, uint64_t bytes, uint64_t chunkBytes,
                    const std::function<void(uint64_t, const char *)> &use);
  bool ensureStaging(uint64_t slotBytes, size_t slots);
  // snapshotHash of a device buffer, through streamChunks; 0 if it cannot
  // be copied.
  uint64_t deviceHash(uint64_t src, uint64_t bytes, uint64_t chunkBytes);
  bool fill(uint64_t ptr, uint64_t pattern, uint32_t elem, uint64_t count, cudaStream_t stream);

  // The staging ring, reused across launches.
  CUstream copyStream = nullptr;
  std::vector<char *> slots;
  std::vector<CUevent> slotEvents; // one per slot, or none
  uint64_t slotBytes = 0;
  bool stagingFailed = false; // pinned memory or the stream cannot be had

  std::vector<PendingSnapshot> prepareSnapshots(KernelInfo *k, void **args,
                                                uint32_t launchId, cudaStream_t stream);
  void finishSnapshots(std::vector<PendingSnapshot> &snapshots, cudaStream_t stream);

  std::vector<PendingSnapshot> pending; // of the launch under way

  // snapshot_stats=1: this process's totals, in nanoseconds of
  // steady_clock (the worker threads' own are the trace writer's,
  // TraceWriter::snapshotStats).
  struct Stats {
    uint64_t launches = 0, snapshots = 0, bytes = 0;
    uint64_t addedNs = 0;      // in the launch hooks, less kernelWaitNs
    uint64_t firstAddedNs = 0; // of it, the first launch's (allocations, threads)
    uint64_t kernelWaitNs = 0; // synchronising with the launch's stream
    uint64_t copyWaitNs = 0;   // waiting for a copy into a staging buffer
    uint64_t slotWaitNs = 0;   // waiting for a worker to free a staging buffer
    uint64_t drainWaitNs = 0;  // waiting for the workers' last chunks
    size_t staging = 0;        // staging buffers used at most
    uint64_t stagingBytes = 0; // bytes each
  } stats;
  // gpu.synchronize(stream), timed into stats.kernelWaitNs.
  cudaError_t syncTimed(cudaStream_t stream);
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CHECKS_SNAPSHOT_SNAPSHOT_COLLECTOR_H

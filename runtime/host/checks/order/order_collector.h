//===- runtime/host/checks/order/order_collector.h - checks=order on the host ===//
//
// The order logs (stores, float atomics, and with order-ops builds every
// floating-point operation) and the shadows of launch outputs in device
// memory; the static findings of each module's kernels; after each launch
// of a fingerprinting kernel, its records turned into the trace's order
// records; at exit, the kernels whose results depend on the order float
// atomics land in.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CHECKS_ORDER_ORDER_COLLECTOR_H
#define KOSAN_RUNTIME_HOST_CHECKS_ORDER_ORDER_COLLECTOR_H

#include "core/collector.h"

#include <algorithm>
#include <bit>
#include <map>

namespace kosan::rt {

class OrderCollector : public Collector {
public:
  using Collector::Collector;
  void setUp(kosan_device_state &st) override;
  void moduleRecorded(const ModuleInfo *m) override;
  void beforeLaunch(LaunchContext &c) override;
  void afterLaunch(LaunchContext &c) override;
  void exitReport() override;
  void deviceReset() override;

private:
  bool order() const { return enabled(KOSAN_CHECK_ORDER); }
  void setUpOrder(kosan_device_state &st);
  // The operation log, made at the first launch of an order-ops kernel
  // (mu held); false when it cannot be had.
  bool ensureOpLog();
  bool readOrderCounts(uint32_t counts[3 * KOSAN_ORDER_SHARDS]);
  struct Shadows;
  // Gives the parameters of launch k(args) that `access` sites write
  // through (KOSAN_ACCESS_ORDER_STORE: outputs; KOSAN_ACCESS_ORDER_ATOMIC:
  // float atomics, without a trace) their shadows, on the launch's stream
  // (mu held).
  void prepareShadows(Shadows &set, uint32_t access, const KernelInfo *k, void **args,
                      cudaStream_t stream);
  // Empties the device's table of `set` after a launch that used it.
  void clearShadowTable(Shadows &set);
  // Collects the order logs of launch ls (mu held; waits for the device).
  void harvestOrder(const LaunchState &ls, void **args);
  void printOrderReport();
  // The value of order_stores (0), order_atomics (1) or order_ops (2) that
  // would have kept every record: records go to shards by SM, so what
  // counts is the fullest shard; rounded up to a power of two.
  uint64_t neededCapacity(int log) const {
    return std::bit_ceil(std::max<uint64_t>(orderNeeded[log], 1));
  }

  // The logs, in device memory.
  kosan_order_state *dOrder = nullptr;
  kosan_order_state orderState{};        // what dOrder holds
  bool orderFailed = false;
  struct OrderFinding {
    std::string kernel, findings, buffers;
    uint64_t locations = 0, launches = 0;
    uint32_t firstLaunch = 0;
  };
  std::map<std::string, OrderFinding> orderFindings; // by kernel: order-dependent atomics
  uint64_t orderDroppedStores = 0, orderDroppedAtomics = 0, orderLaunches = 0;
  uint64_t orderDroppedOps = 0;
  // Per log (stores, atomics, operations): the capacity that would have kept
  // every record of the busiest launch (its fullest shard, times the shards).
  uint64_t orderNeeded[3] = {0, 0, 0};
  bool opLogFailed = false;
  // Shadows of this launch's parameters (kosan_order_dense), in one pool
  // of device memory kept from launch to launch, and the device table
  // (kosan_order_state's dense or atomic_dense) that points at them.
  struct DenseOutput {
    uint32_t arg = 0;
    uint64_t shadow = 0, elements = 0;
  };
  struct Shadows {
    const char *what;    // for warnings: "launch outputs", "float atomics"
    uint64_t table = 0;  // device address of kosan_order_dense[KOSAN_ORDER_DENSE_ARGS]
    uint64_t slotsAfter; // 8-byte words after each shadow's elements
    std::vector<DenseOutput> outputs;
    uint64_t pool = 0;
    size_t poolBytes = 0;
    bool tableUsed = false, warned = false;
  };
  Shadows dense{"launch outputs", 0, 0, {}};      // stores, with a trace
  Shadows atomicDense{"float atomics", 0, 1, {}}; // float atomics, without one:
                                                  // one word more, the count
                                                  // of order-dependent locations
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CHECKS_ORDER_ORDER_COLLECTOR_H

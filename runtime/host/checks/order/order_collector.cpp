//===- runtime/host/checks/order/order_collector.cpp - checks=order on the host ===//
#include "checks/order/order_collector.h"

#include "kosan/order_log.h"

#include <cinttypes>
#include <cstring>

namespace kosan::rt {

std::unique_ptr<Collector> makeOrderCollector(Runtime &rt) {
  return std::make_unique<OrderCollector>(rt);
}

void OrderCollector::setUp(kosan_device_state &st) {
  if (order())
    setUpOrder(st);
}

void OrderCollector::moduleRecorded(const ModuleInfo *m) {
  if (trace) {
    // The static half of the order check, before any launch of the module.
    std::vector<std::pair<std::string, const KernelSummaryInfo *>> sorted;
    for (auto &[name, info] : m->summaries)
      if (info.flags & KOSAN_KERNEL_ORDER_FINGERPRINTS)
        sorted.push_back({name, &info});
    std::sort(sorted.begin(), sorted.end());
    for (auto &[name, info] : sorted) {
      KernelOrderInfo ko;
      ko.module = m->id;
      ko.mangled = name;
      ko.kernel = demangle(name);
      ko.float_atomics = info->flags & KOSAN_KERNEL_FLOAT_ATOMICS;
      ko.shuffle_reduction = info->flags & KOSAN_KERNEL_SHUFFLE_REDUCTION;
      ko.shared_reduction = info->flags & KOSAN_KERNEL_SHARED_REDUCTION;
      ko.launch_dependent_loop = info->flags & KOSAN_KERNEL_LAUNCH_DEPENDENT_LOOP;
      ko.fingerprints = true;
      ko.findings = info->orderFindings;
      trace->write(ko);
    }
  }
}

void OrderCollector::beforeLaunch(LaunchContext &c) {
  KernelInfo *k = c.k;
  size_t shmem = c.shmem;
  kosan_launch_info *hdr = c.info;
  // checks=order keeps the fingerprints of dynamic shared memory after
  // the program's own bytes.
  size_t launchShmem = shmem;
  if (k->summary && (k->summary->flags & KOSAN_KERNEL_ORDER_FINGERPRINTS)) {
    if ((k->summary->flags & KOSAN_KERNEL_ORDER_OPS) && order())
      ensureOpLog();
    if (opts.order_leaves == "value")
      hdr->flags |= KOSAN_LAUNCH_ORDER_VALUE_LEAVES;
    if (order() && orderState.store_capacity) {
      hdr->flags |= KOSAN_LAUNCH_ORDER_STORES;
      // A graph's replays find the table empty and log their stores.
      if (!c.capturing)
        prepareShadows(dense, KOSAN_ACCESS_ORDER_STORE, k, c.args, c.stream);
    }
    // Without a trace, float atomics fold into shadows: only whether a
    // location depends on the order they land in is wanted.
    if (order() && atomicDense.table && !c.capturing &&
        (k->summary->flags & KOSAN_KERNEL_ORDER_ATOMIC_LOG))
      prepareShadows(atomicDense, KOSAN_ACCESS_ORDER_ATOMIC, k, c.args, c.stream);
    unsigned factor = (k->summary->flags & KOSAN_KERNEL_DYNSMEM_SHADOW_MASK) >>
                      KOSAN_KERNEL_DYNSMEM_SHADOW_SHIFT;
    if (factor && shmem) {
      launchShmem = ((shmem + 7) & ~size_t(7)) + factor * shmem;
      if (launchShmem > 48 * 1024 && int(launchShmem) > k->dynSmemOptIn && k->hasClone()) {
        if (gpu.setFunctionAttribute(k->instrumented, k->hipClone,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     int(launchShmem)) == cudaSuccess)
          k->dynSmemOptIn = int(launchShmem);
      }
    }
  }
  c.launchShmem = launchShmem;
}

void OrderCollector::afterLaunch(LaunchContext &c) {
  KernelInfo *k = c.k;
  // Without a trace only float atomics are logged: a kernel that logs none
  // leaves nothing to collect, and its launch does not wait.
  if (order() && dOrder && !c.capturing && k->summary &&
      (k->summary->flags & KOSAN_KERNEL_ORDER_FINGERPRINTS)) {
    ++orderLaunches;
    if (trace || (k->summary->flags & KOSAN_KERNEL_ORDER_ATOMIC_LOG))
      harvestOrder(c.ls, c.args);
  }
}

void OrderCollector::exitReport() {
  if (order())
    printOrderReport();
}

void OrderCollector::deviceReset() {
  dOrder = nullptr;
  // The reset freed the shadows' pools with everything else.
  for (Shadows *set : {&dense, &atomicDense}) {
    set->outputs.clear();
    set->pool = set->table = 0;
    set->poolBytes = 0;
    set->tableUsed = false;
  }
}

// The order state and its two logs. Without them the order check records
// nothing and everything else runs on.
void OrderCollector::setUpOrder(kosan_device_state &st) {
  // Per shard, rounded up; stores only when they have a trace to go to.
  uint32_t stores = uint32_t((uint64_t(opts.order_stores) + KOSAN_ORDER_SHARDS - 1) /
                             KOSAN_ORDER_SHARDS);
  uint32_t atomics = uint32_t((uint64_t(opts.order_atomics) + KOSAN_ORDER_SHARDS - 1) /
                              KOSAN_ORDER_SHARDS);
  if (!trace)
    stores = 0;
  size_t countsBytes = KOSAN_ORDER_COUNT_WORDS * sizeof(uint32_t);
  // Two tables: stores (used with a trace), float atomics (without one).
  size_t denseBytes = 2 * sizeof(kosan_order_dense) * KOSAN_ORDER_DENSE_ARGS;
  size_t bytes = sizeof(kosan_order_state) + countsBytes + denseBytes +
                 KOSAN_ORDER_SHARDS * (size_t(stores) * sizeof(kosan_order_store) +
                                       size_t(atomics) * sizeof(kosan_order_atomic));
  char *mem = nullptr;
  if (gpu.alloc(reinterpret_cast<void **>(&mem), bytes) != cudaSuccess) {
    gpu.clearError();
    log("kosan: warning: cannot allocate %zu MiB for the order logs (order_stores, "
        "order_atomics); the order check records nothing\n", bytes >> 20);
    orderFailed = true;
    return;
  }
  kosan_order_state os{};
  os.counts = reinterpret_cast<uint64_t>(mem + sizeof(kosan_order_state));
  os.dense = os.counts + countsBytes;
  os.atomic_dense = trace ? 0 : os.dense + denseBytes / 2;
  os.stores = os.dense + denseBytes;
  os.atomics = os.stores + uint64_t(KOSAN_ORDER_SHARDS) * stores * sizeof(kosan_order_store);
  os.store_capacity = stores;
  os.atomic_capacity = atomics;
  if (gpu.toDevice(mem, &os, sizeof os) != cudaSuccess ||
      gpu.memset(mem + sizeof os, 0, countsBytes + denseBytes) != cudaSuccess) {
    log("kosan: warning: cannot initialise the order logs; the order check records "
        "nothing\n");
    orderFailed = true;
    return;
  }
  dOrder = reinterpret_cast<kosan_order_state *>(mem);
  orderState = os;
  dense.table = os.dense;
  atomicDense.table = os.atomic_dense;
  st.order = reinterpret_cast<uint64_t>(dOrder);
  if (opts.verbosity >= 1)
    log("kosan: order logs: %u stores and %u atomics, %zu MiB of device memory\n",
        stores * KOSAN_ORDER_SHARDS, atomics * KOSAN_ORDER_SHARDS, bytes >> 20);
}

bool OrderCollector::ensureOpLog() {
  if (orderState.op_capacity)
    return true;
  if (opLogFailed || !dOrder || !trace)
    return false;
  uint32_t ops = uint32_t((uint64_t(opts.order_ops) + KOSAN_ORDER_SHARDS - 1) /
                          KOSAN_ORDER_SHARDS);
  size_t bytes = size_t(KOSAN_ORDER_SHARDS) * ops * sizeof(kosan_order_op);
  void *mem = nullptr;
  if (gpu.alloc(&mem, bytes) != cudaSuccess) {
    gpu.clearError();
    log("kosan: warning: cannot allocate %zu MiB for the operation log (order_ops); "
        "order-ops kernels record fingerprints but no operations\n", bytes >> 20);
    opLogFailed = true;
    return false;
  }
  kosan_order_state os = orderState;
  os.ops = reinterpret_cast<uint64_t>(mem);
  os.op_capacity = ops;
  if (gpu.toDevice(dOrder, &os, sizeof os) != cudaSuccess) {
    gpu.free(mem);
    log("kosan: warning: cannot initialise the operation log; order-ops kernels record "
        "no operations\n");
    opLogFailed = true;
    return false;
  }
  orderState = os;
  if (opts.verbosity >= 1)
    log("kosan: operation log (order-ops): %u operations, %zu MiB of device memory\n",
        ops * KOSAN_ORDER_SHARDS, bytes >> 20);
  return true;
}

// Each parameter the kernel stores floats through (or, for float atomics,
// adds to) gets a shadow of its buffer, from the parameter's value to the
// buffer's end, zeroed: the device writes each element's fingerprint there
// (abi.h). What does not fit in order_shadow_mb, or whose buffer is
// unknown, goes to the log.
void OrderCollector::prepareShadows(Shadows &set, uint32_t access, const KernelInfo *k,
                                    void **args, cudaStream_t stream) {
  set.outputs.clear();
  std::map<uint32_t, uint32_t> shiftOf; // parameter -> log2 of its element's size
  for (const kosan_site &s : kernelSites(k)) {
    if (s.access != access || s.arg_index < 0 || s.arg_index >= KOSAN_ORDER_DENSE_ARGS ||
        size_t(s.arg_index) >= k->paramSizes.size() || k->paramSizes[s.arg_index] != 8)
      continue;
    DType dtype = s.size <= uint32_t(DType::Bool) ? DType(s.size) : DType::Unknown;
    // Element sizes are powers of two.
    uint32_t size = std::max<uint32_t>(dtypeSize(dtype), 1);
    shiftOf.emplace(uint32_t(s.arg_index), uint32_t(std::bit_width(size) - 1));
  }
  uint64_t limit = uint64_t(opts.order_shadow_mb) << 20, used = 0;
  for (auto [arg, shift] : shiftOf) {
    uint64_t value = 0;
    std::memcpy(&value, args[arg], 8);
    ArgBuffer buffer = argBuffer(k, arg, value);
    if (!value || buffer.end <= value)
      continue;
    uint64_t elements = (buffer.end - value) >> shift;
    uint64_t bytes = ((elements + set.slotsAfter) * 8 + 255) & ~uint64_t(255);
    // Memory from an allocator kosan does not see is bounded by the
    // driver's allocation, which may be a pool's whole segment: zeroing and
    // copying a large shadow of it at every launch costs more than logging
    // the stores.
    constexpr uint64_t kInexactShadowLimit = 64ull << 20;
    if (!elements || used + bytes > limit || (!buffer.exact && bytes > kInexactShadowLimit))
      continue;
    set.outputs.push_back({arg, used, elements});
    used += bytes;
  }
  if (used > set.poolBytes) {
    if (set.pool)
      gpu.free(reinterpret_cast<void *>(set.pool));
    set.pool = 0;
    set.poolBytes = 0;
    void *mem = nullptr;
    if (gpu.alloc(&mem, used) != cudaSuccess) {
      gpu.clearError();
      if (!set.warned)
        log("kosan: warning: cannot allocate %" PRIu64 " MiB for the order shadows of "
            "%s; they go to the device log\n", used >> 20, set.what);
      set.warned = true;
      set.outputs.clear();
      used = 0;
    } else {
      set.pool = reinterpret_cast<uint64_t>(mem);
      set.poolBytes = used;
    }
  }
  if (set.outputs.empty() && !set.tableUsed)
    return;
  // A pageable copy: the asynchronous copy has read it when it returns.
  kosan_order_dense table[KOSAN_ORDER_DENSE_ARGS] = {};
  for (DenseOutput &d : set.outputs) {
    d.shadow += set.pool;
    table[d.arg] = {d.shadow, d.elements, uint32_t(0), 0u};
  }
  for (auto [arg, shift] : shiftOf)
    table[arg].shift = shift;
  if ((used && gpu.memsetAsync(reinterpret_cast<void *>(set.pool), 0, used, stream) !=
                   cudaSuccess) ||
      gpu.toDeviceAsync(reinterpret_cast<void *>(set.table), table, sizeof table, stream) !=
          cudaSuccess) {
    gpu.clearError();
    log("kosan: warning: cannot prepare the order shadows of %s\n", set.what);
    set.outputs.clear();
  }
  set.tableUsed = !set.outputs.empty();
}

void OrderCollector::clearShadowTable(Shadows &set) {
  set.outputs.clear();
  if (set.tableUsed) {
    // Launches this one does not prepare (graph replays) use the log.
    gpu.memset(reinterpret_cast<void *>(set.table), 0,
               sizeof(kosan_order_dense) * KOSAN_ORDER_DENSE_ARGS);
    set.tableUsed = false;
  }
}

// The device's counts of the three logs, per shard: stores, then atomics,
// then operations.
bool OrderCollector::readOrderCounts(uint32_t counts[3 * KOSAN_ORDER_SHARDS]) {
  std::vector<uint32_t> words(KOSAN_ORDER_COUNT_WORDS);
  if (gpu.toHost(words.data(), reinterpret_cast<void *>(orderState.counts),
                 words.size() * sizeof(uint32_t)) != cudaSuccess)
    return false;
  for (int log = 0; log < 3; ++log)
    for (int s = 0; s < KOSAN_ORDER_SHARDS; ++s)
      counts[log * KOSAN_ORDER_SHARDS + s] = words[KOSAN_ORDER_COUNT(log, s)];
  return true;
}

// The records of one sharded log (shard s holds counts[s] records from
// s * capacity on); *claimed: the records the device claimed in all.
template <typename Record>
static std::vector<Record> readShards(const DeviceApi &gpu, uint64_t base, uint32_t capacity,
                                      const uint32_t *counts, uint64_t *claimed) {
  *claimed = 0;
  uint32_t widest = 0;
  for (int s = 0; s < KOSAN_ORDER_SHARDS; ++s) {
    *claimed += counts[s];
    widest = std::max(widest, std::min(counts[s], capacity));
  }
  std::vector<Record> out;
  if (!widest)
    return out;
  // One copy of the first `widest` records of every shard.
  std::vector<Record> rows(size_t(KOSAN_ORDER_SHARDS) * widest);
  if (gpu.toHost2D(rows.data(), widest * sizeof(Record), reinterpret_cast<void *>(base),
                   size_t(capacity) * sizeof(Record), widest * sizeof(Record),
                   KOSAN_ORDER_SHARDS) != cudaSuccess)
    return out;
  for (int s = 0; s < KOSAN_ORDER_SHARDS; ++s) {
    uint32_t n = std::min(counts[s], capacity);
    out.insert(out.end(), rows.begin() + size_t(s) * widest,
               rows.begin() + size_t(s) * widest + n);
  }
  return out;
}

void OrderCollector::harvestOrder(const LaunchState &ls, void **args) {
  KernelInfo *k = ls.kernel;
  cudaError_t e = gpu.synchronize();
  if (e != cudaSuccess) {
    log("kosan: warning: launch #%u of '%s' failed (%s); its order records are lost\n",
        ls.record.id, k->name.c_str(), gpu.errorString(e));
    return;
  }
  uint32_t counts[3 * KOSAN_ORDER_SHARDS];
  if (!readOrderCounts(counts)) {
    log("kosan: warning: cannot read the order logs of launch #%u\n", ls.record.id);
    return;
  }
  uint64_t storeCount = 0, atomicCount = 0;
  std::vector<kosan_order_store> stores = readShards<kosan_order_store>(
      gpu, orderState.stores, orderState.store_capacity, counts, &storeCount);
  std::vector<kosan_order_atomic> atomics = readShards<kosan_order_atomic>(
      gpu, orderState.atomics, orderState.atomic_capacity, counts + KOSAN_ORDER_SHARDS, &atomicCount);
  uint64_t opCount = 0;
  std::vector<kosan_order_op> ops;
  if (orderState.op_capacity)
    ops = readShards<kosan_order_op>(gpu, orderState.ops, orderState.op_capacity,
                                     counts + 2 * KOSAN_ORDER_SHARDS, &opCount);
  gpu.memset(reinterpret_cast<void *>(orderState.counts), 0,
             KOSAN_ORDER_COUNT_WORDS * sizeof(uint32_t));
  for (int log = 0; log < 3; ++log) {
    uint32_t fullest = *std::max_element(counts + log * KOSAN_ORDER_SHARDS,
                                         counts + (log + 1) * KOSAN_ORDER_SHARDS);
    orderNeeded[log] = std::max(orderNeeded[log], uint64_t(fullest) * KOSAN_ORDER_SHARDS);
  }
  OrderLaunch launch;
  launch.launch = ls.record.id;
  launch.valueLeaves = opts.order_leaves == "value";
  for (size_t i = 0; i < k->paramSizes.size(); ++i) {
    uint64_t value = 0;
    if (k->paramSizes[i] == 8)
      std::memcpy(&value, args[i], 8);
    ArgBuffer buffer = argBuffer(k, i, value);
    launch.argValues.push_back(value);
    launch.argEnds.push_back(buffer.end);
    launch.argNames.push_back(std::move(buffer.name));
    launch.argDtypes.push_back(k->summary && i < k->summary->params.size()
                                   ? k->summary->params[i].dtype
                                   : uint32_t(KOSAN_DTYPE_UNKNOWN));
  }
  for (const kosan_site &s : kernelSites(k)) {
    if (s.access != KOSAN_ACCESS_ORDER_STORE && s.access != KOSAN_ACCESS_ORDER_ATOMIC)
      continue;
    OrderLaunch::Site site;
    site.arg = s.arg_index;
    site.access = s.access;
    site.dtype = s.size;
    site.op = k->module->str(s.object_str);
    site.location = k->module->location(s);
    launch.sites.push_back(std::move(site));
  }
  for (const DenseOutput &d : dense.outputs) {
    OrderLaunch::Dense dense;
    dense.arg = d.arg;
    dense.fps.resize(d.elements);
    if (gpu.toHost(dense.fps.data(), reinterpret_cast<void *>(d.shadow), d.elements * 8) !=
        cudaSuccess) {
      gpu.clearError();
      log("kosan: warning: cannot read the order shadow of '%s' of launch #%u\n",
          launch.argNames[d.arg].c_str(), ls.record.id);
      continue;
    }
    launch.dense.push_back(std::move(dense));
  }
  clearShadowTable(dense);
  // Float atomics folded into shadows: each shadow's count of
  // order-dependent locations (a location of fmin or fmax depends on no
  // order).
  uint64_t folded = 0;
  std::string foldedBuffers;
  for (const DenseOutput &d : atomicDense.outputs) {
    uint64_t dependent = 0;
    if (gpu.toHost(&dependent, reinterpret_cast<void *>(d.shadow + d.elements * 8), 8) !=
        cudaSuccess) {
      gpu.clearError();
      log("kosan: warning: cannot read the float-atomic shadow of '%s' of launch #%u\n",
          launch.argNames[d.arg].c_str(), ls.record.id);
      continue;
    }
    bool orderFree = false;
    for (const OrderLaunch::Site &s : launch.sites)
      orderFree |= s.access == KOSAN_ACCESS_ORDER_ATOMIC && s.arg == int32_t(d.arg) &&
                   !atomicOrderMatters(s.op);
    if (!dependent || orderFree)
      continue;
    folded += dependent;
    foldedBuffers += (foldedBuffers.empty() ? "'" : ", '") + launch.argNames[d.arg] + "'";
  }
  clearShadowTable(atomicDense);
  OrderRecords recs = buildOrderRecords(stores.data(), stores.size(), storeCount,
                                        atomics.data(), atomics.size(), atomicCount, launch);
  recs.summary.order_dependent_locations += folded;
  orderDroppedStores += recs.summary.dropped_stores;
  orderDroppedAtomics += recs.summary.dropped_atomics;
  if (recs.summary.order_dependent_locations) {
    OrderFinding &f = orderFindings[k->mangled];
    if (!f.launches) {
      f.kernel = k->name;
      f.firstLaunch = ls.record.id;
      f.findings = k->summary ? k->summary->orderFindings : "";
      for (const OrderAtomicRecord &a : recs.atomics)
        f.buffers += (f.buffers.empty() ? "'" : ", '") + a.name + "'";
      if (!foldedBuffers.empty())
        f.buffers += (f.buffers.empty() ? "" : ", ") + foldedBuffers;
    }
    ++f.launches;
    f.locations = std::max(f.locations, recs.summary.order_dependent_locations);
  }
  bool logsOps = k->summary && (k->summary->flags & KOSAN_KERNEL_ORDER_OPS) &&
                 orderState.op_capacity;
  if (logsOps) {
    recs.summary.ops = opCount;
    recs.summary.dropped_ops = opCount - ops.size();
    orderDroppedOps += recs.summary.dropped_ops;
  }
  if (trace) {
    for (const OrderStoreRecord &r : recs.stores)
      trace->write(r);
    for (const OrderAtomicRecord &r : recs.atomics)
      trace->write(r);
    if (logsOps) {
      const ModuleInfo *m = k->module;
      trace->write(buildOrderOpsRecord(ops.data(), ops.size(), launch, [&](uint32_t id) {
        OrderOpSite site;
        if (m && id < m->sites.size() && m->sites[id].access == KOSAN_ACCESS_ORDER_OP) {
          const kosan_site &s = m->sites[id];
          site.op = m->str(s.object_str);
          site.location = m->location(s);
        } else {
          site.op = "?";
        }
        return site;
      }));
    }
    trace->write(recs.summary);
  }
}

void OrderCollector::printOrderReport() {
  if (orderFailed)
    return;
  if (!orderLaunches) {
    if (!launches.empty())
      log("kosan: order: nothing recorded: no kernel launched was compiled with the order "
          "check (kosan-clang++ --kosan-checks=oob,order)\n");
    return;
  }
  // Launches kosan did not see (graph replays) leave records no launch
  // collected.
  if (dOrder && deviceReady) {
    uint32_t counts[3 * KOSAN_ORDER_SHARDS];
    if (readOrderCounts(counts)) {
      uint64_t stray = 0;
      for (uint32_t c : counts)
        stray += c;
      if (stray)
        log("kosan: note: order: %" PRIu64 " records of launches replayed from CUDA graphs "
            "were not collected (the order check collects after each launch it sees)\n",
            stray);
    } else {
      gpu.clearError();
    }
  }
  for (auto &[mangled, f] : orderFindings)
    log("kosan: order: kernel '%s': %" PRIu64 " locations of %s depend on the order "
        "float atomics land in (launch #%u%s; %" PRIu64 " launches); its results may differ "
        "from run to run\n",
        f.kernel.c_str(), f.locations, f.buffers.c_str(), f.firstLaunch,
        f.findings.empty() ? "" : ("; " + f.findings).c_str(), f.launches);
  if (orderDroppedStores)
    log("kosan: warning: order: %" PRIu64 " store records were dropped because the device "
        "log was full (order_stores=%d; order_stores=%" PRIu64 " keeps them all)\n",
        orderDroppedStores, opts.order_stores, neededCapacity(0));
  if (orderDroppedAtomics)
    log("kosan: warning: order: %" PRIu64 " atomic records were dropped because the device "
        "log was full (order_atomics=%d; order_atomics=%" PRIu64 " keeps them all)\n",
        orderDroppedAtomics, opts.order_atomics, neededCapacity(1));
  if (orderDroppedOps)
    log("kosan: warning: order: %" PRIu64 " operation records were dropped because the "
        "device log was full (order_ops=%d; order_ops=%" PRIu64 " keeps them all); "
        "kosan-diff may not find where two runs part\n",
        orderDroppedOps, opts.order_ops, neededCapacity(2));
  if (orderFindings.empty() && opts.verbosity >= 1)
    log("kosan: order: %" PRIu64 " launches fingerprinted; no result depends on the order "
        "atomics land in\n", orderLaunches);
}

} // namespace kosan::rt

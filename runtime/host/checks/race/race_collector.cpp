//===- runtime/host/checks/race/race_collector.cpp - checks=race on the host ===//
#include "checks/race/race_collector.h"

#include "kosan/race.h"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>

namespace kosan::rt {

std::unique_ptr<Collector> makeRaceCollector(Runtime &rt) {
  return std::make_unique<RaceCollector>(rt);
}

namespace {
// From sm_80 on the block's window starts with a KiB the system reserves;
// the program's static shared memory follows, then its dynamic shared
// memory at an alignment of at most this.
constexpr size_t kReservedSharedBytes = 1024;
constexpr size_t kDynamicAlignment = 256;

size_t alignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

std::string dim(uint32_t x, uint32_t y, uint32_t z) {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}
} // namespace

void RaceCollector::setUp(kosan_device_state &st) {
  if (!race())
    return;
  uint32_t n = 64;
  while (n < uint32_t(opts.log_capacity))
    n <<= 1;
  // The header (the flag, the settings), then the events, in mapped host
  // memory: read without a copy.
  static_assert(sizeof(kosan_race_log_header) <= KOSAN_RACE_LOG_EVENTS);
  size_t bytes = KOSAN_RACE_LOG_EVENTS + size_t(n) * sizeof(kosan_race_event);
  void *mapped = nullptr, *device = nullptr;
  if (gpu.allocMapped(&mapped, bytes) != cudaSuccess ||
      gpu.mappedAddress(&device, mapped) != cudaSuccess) {
    gpu.clearError();
    log("kosan: warning: cannot allocate mapped host memory for the race log; "
        "no kernel is checked for races\n");
    return;
  }
  std::memset(mapped, 0, bytes);
  auto *header = static_cast<kosan_race_log_header *>(mapped);
  header->halt_on_error = opts.halt_on_error ? 1 : 0;
  flag = &header->flag;
  log_ = reinterpret_cast<kosan_race_event *>(static_cast<char *>(mapped) +
                                               KOSAN_RACE_LOG_EVENTS);
  capacity = n;
  st.race_flag = reinterpret_cast<uint64_t>(device);
  st.race_events = reinterpret_cast<uint64_t>(device) + KOSAN_RACE_LOG_EVENTS;
  st.race_capacity = n;
  st.race_count = 0;
  // HIP programs (whose kernels are not race-checked) make no CUDA call.
  int dev = 0;
  cudaDeviceProp prop{};
  if (!gpu.isHip() && cudart().cudaGetDevice(&dev) == cudaSuccess &&
      cudart().cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    optInLimit = int(prop.sharedMemPerBlockOptin);
}

void RaceCollector::beforeLaunch(LaunchContext &c) {
  KernelInfo *k = c.k;
  if (!race() || !log_ || !k->summary || !(k->summary->flags & KOSAN_KERNEL_RACE))
    return;
  auto skip = [&](const std::string &why) {
    ++unchecked;
    if (warnedKernels.insert(k).second)
      log("kosan: warning: kernel '%s' is not checked for races: %s\n", k->name.c_str(),
          why.c_str());
  };
  int staticBytes = 0;
  if (!drv.funcGetAttribute ||
      drv.funcGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->instrumented) !=
          CUDA_SUCCESS)
    return skip("the driver does not say how much static shared memory it has");
  unsigned shift = (k->summary->flags & KOSAN_KERNEL_RACE_SHIFT_MASK) >>
                   KOSAN_KERNEL_RACE_SHIFT_SHIFT;
  const Dim3 &b = c.ls.record.block;
  size_t threads = size_t(b.x) * b.y * b.z;
  // Granules cover every offset the program's shared memory may have.
  size_t programEnd = c.launchShmem;
  size_t covered = kReservedSharedBytes + size_t(staticBytes) + kDynamicAlignment + programEnd;
  size_t granules = (covered + (size_t(1) << shift) - 1) >> shift;
  size_t shadow = alignUp(programEnd, 16);
  size_t clocks = shadow + 8 * granules;
  size_t header = alignUp(clocks + 4 * threads, 8);
  size_t total = header + sizeof(kosan_race_header);
  if (optInLimit >= 0 && size_t(staticBytes) + total > size_t(optInLimit))
    return skip("its shadow would take its shared memory to " +
                std::to_string(size_t(staticBytes) + total) + " bytes, past the " +
                std::to_string(optInLimit) + " a block may have");
  if (total > 48 * 1024 && int(total) > k->dynSmemOptIn) {
    if (gpu.setFunctionAttribute(k->instrumented, k->hipClone,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 int(total)) != cudaSuccess)
      return skip("the driver refused " + std::to_string(total) +
                  " bytes of dynamic shared memory for its shadow");
    k->dynSmemOptIn = int(total);
  }
  c.info->race_layout = uint64_t(shadow) | uint64_t(granules) << 32;
  c.info->flags |= KOSAN_LAUNCH_RACE;
  c.launchShmem = total;
}

bool RaceCollector::drain(bool deviceIdle) {
  if (!flag || !(flag->dirty || flag->halted))
    return deviceIdle;
  return collect(deviceIdle, false);
}

bool RaceCollector::collect(bool deviceIdle, bool noCuda) {
  // After a trap (a race stopped the kernel) the context is gone: the log,
  // in mapped host memory, is read without a CUDA call, up to its capacity
  // (its unused entries have no key).
  bool halted = flag->halted;
  uint32_t claimed = capacity;
  if (!halted && !noCuda) {
    if (!deviceIdle)
      deviceIdle = gpu.synchronize() == cudaSuccess;
    halted = flag->halted; // the kernel may have stopped while the host waited
    uint32_t count = 0;
    const char *counter =
        reinterpret_cast<const char *>(dState) + offsetof(kosan_device_state, race_count);
    if (!halted && gpu.toHost(&count, counter, sizeof count) == cudaSuccess)
      claimed = count;
  }
  flag->dirty = 0;
  uint32_t n = std::min(claimed, capacity);
  if (claimed > capacity)
    dropped += claimed - capacity;
  // Per (launch, site, other site): the first claimed, and how many.
  std::map<std::pair<uint64_t, uint32_t>, std::pair<kosan_race_event, uint64_t>> byPair;
  for (uint32_t i = 0; i < n; ++i) {
    const kosan_race_event &e = log_[i];
    if (!e.key)
      continue;
    auto [it, inserted] = byPair.try_emplace({e.key, e.other_site}, e, 0);
    ++it->second.second;
  }
  for (auto &[key, agg] : byPair)
    handleEvent(agg.first, agg.second);
  std::memset(log_, 0, size_t(n) * sizeof(kosan_race_event));
  if (halted) {
    flag->halted = 0;
    if (opts.halt_on_error)
      log("kosan: the kernel was stopped at its first race (halt_on_error=1); the CUDA "
          "context is unusable afterwards\n");
    else
      log("kosan: a kernel was stopped after %d racing accesses (stop_after): the CUDA "
          "context is unusable afterwards (stop_after=0 lets such kernels run on)\n",
          opts.stop_after);
    ++stopped;
    deviceReady = false;
    deviceFailed = true;
    return deviceIdle;
  }
  if (noCuda)
    return deviceIdle;
  uint32_t zero = 0;
  gpu.toDevice(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, race_count), &zero,
               sizeof zero);
  return deviceIdle;
}

// A kernel stopped at another check's error leaves the device unusable
// before this collector's turn to drain: what the race log holds is read
// without CUDA.
void RaceCollector::exitCollect() {
  if (!deviceReady && flag && (flag->dirty || flag->halted))
    collect(true, true);
}

void RaceCollector::fatalSignal() {
  if (flag && (flag->dirty || flag->halted))
    collect(false, true);
  exitReport();
}

void RaceCollector::handleEvent(const kosan_race_event &r, uint64_t count) {
  uint32_t launchId = uint32_t((r.key - 1) >> 32);
  uint32_t siteId = uint32_t((r.key - 1) & 0xffffffffu);
  const LaunchState *ls =
      launchId >= 1 && launchId <= launches.size() ? &launches[launchId - 1] : nullptr;
  ModuleInfo *mod = ls && ls->kernel ? ls->kernel->module : nullptr;
  if (mod)
    loadSites(mod);
  auto siteOf = [&](uint32_t id) -> const kosan_site * {
    return mod && id < mod->sites.size() ? &mod->sites[id] : nullptr;
  };
  const kosan_site *site = siteOf(siteId);
  const kosan_site *other =
      r.other_site == KOSAN_RACE_SITE_UNKNOWN ? nullptr : siteOf(r.other_site);
  auto accessName = [](bool write) { return write ? "WRITE" : "READ"; };

  OobEvent e;
  e.kind = "data-race";
  e.launch = launchId;
  e.site_id = siteId;
  e.count = count;
  e.access = accessName(r.kinds & 1u);
  e.size = site ? site->size : 0;
  e.address = r.offset;
  e.block = {r.block[0], r.block[1], r.block[2]};
  e.thread = {r.thread[0], r.thread[1], r.thread[2]};
  e.space = "shared";
  if (site) {
    e.site = mod->sourceLoc(*site);
    e.buffer_name = demangle(mod->str(site->object_str));
  }
  std::string conflict = std::string(accessName(r.kinds & 2u));
  if (other) {
    conflict += " of size " + std::to_string(other->size) + " at " +
                std::string(mod->str(other->file_str)) + ":" + std::to_string(other->line) +
                ":" + std::to_string(other->column) + " in " +
                demangle(mod->str(other->function_str));
    if (e.buffer_name.empty())
      e.buffer_name = demangle(mod->str(other->object_str));
  } else {
    conflict += " at a site kosan could not name";
  }
  if (r.other_thread == KOSAN_RACE_THREAD_UNKNOWN || !ls) {
    conflict += " by another thread of the block";
  } else {
    const Dim3 &b = ls->record.block;
    uint32_t t = r.other_thread;
    uint32_t bx = std::max(b.x, 1u), by = std::max(b.y, 1u);
    conflict += " by thread " + dim(t % bx, t / bx % by, t / (bx * by));
  }
  e.conflict = conflict;

  errors += count;
  races += count;
  ++records;
  if (trace)
    trace->write(e);
  std::tuple<uint32_t, uint32_t, uint32_t> pair{mod ? mod->id : 0, siteId, r.other_site};
  if (!reportedPairs.insert(pair).second)
    return;
  if (opts.print_limit > 0 && printed >= unsigned(opts.print_limit))
    return;
  ++printed;
  writeRaw(formatOobReport(e, ls ? &ls->record : nullptr, getpid()));
}

// After the OOB collector's: the end record counts every report and every
// dropped event.
void RaceCollector::exitRecord(TraceEnd &end) {
  end.reports += records;
  end.dropped += dropped;
}

void RaceCollector::exitReport() {
  if (!race())
    return;
  if (dropped)
    log("kosan: note: %lu racing accesses were not logged because the race log was "
        "full (log_capacity); the counts are lower bounds\n", dropped);
  if (unchecked && opts.verbosity >= 1)
    log("kosan: note: %lu launches were not checked for races\n", unchecked);
  if (opts.print_summary && (races || opts.verbosity >= 1))
    log("kosan: %lu racing %s at %zu %s of sites\n", races, races == 1 ? "access" : "accesses",
        reportedPairs.size(), reportedPairs.size() == 1 ? "pair" : "pairs");
  if (stopped)
    log("kosan: %lu %s stopped at a race (%s); %s\n", stopped,
        stopped == 1 ? "kernel was" : "kernels were",
        opts.halt_on_error ? "halt_on_error=1" : "stop_after",
        stopped == 1 ? "it did not finish" : "they did not finish");
}

void RaceCollector::deviceReset() {
  flag = nullptr;
  log_ = nullptr;
  capacity = 0;
}

} // namespace kosan::rt

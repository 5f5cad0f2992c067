//===- runtime/host/checks/precision/precision_collector.cpp --------------===//
#include "checks/precision/precision_collector.h"

#include "kosan/precision.h"
#include "kosan/precision_verdict.h"

#include <algorithm>
#include <bit>
#include <iterator>

namespace kosan::rt {

std::unique_ptr<Collector> makePrecisionCollector(Runtime &rt) {
  return std::make_unique<PrecisionCollector>(rt);
}

void PrecisionCollector::setUp(kosan_device_state &st) {
  if (precision())
    setUpPrecision(st);
}

void PrecisionCollector::moduleLoaded(
    ModuleInfo *m, const std::vector<std::pair<std::string, uint32_t>> &units) {
  if (precision() && !m->sites.empty())
    assignPrecisionSlots(m, m->sites.size(), units);
}

void PrecisionCollector::afterLaunch(LaunchContext &c) {
  if (precision()) {
    if (!precFirstLaunch)
      precFirstLaunch = c.ls.record.id;
    precLastLaunch = c.ls.record.id;
  }
  // snapshot=1 waits for each launch anyway: collecting after it gives
  // kosan-diff the precision records of exactly this launch.
  if (precision() && opts.snapshot && trace && !c.capturing)
    harvestPrecision(false, false);
}

bool PrecisionCollector::drain(bool deviceIdle) {
  harvestPrecision(deviceIdle, false);
  return deviceIdle;
}

void PrecisionCollector::exitCollect() {
  // Graph launches and kernels launched before a sync point kosan does not
  // see may have recorded since the last collection.
  if (deviceReady)
    harvestPrecision(false, true);
}

void PrecisionCollector::exitReport() {
  if (precision() && (dPrecision || !precTotals.empty()))
    printPrecisionReport();
}

void PrecisionCollector::deviceReset() {
  dPrecision = nullptr;
  dPrecSlots = nullptr;
  precCapacity = precNextBase = 0;
  precFirstLaunch = precLastLaunch = 0;
}

// The precision state and its slots, zeroed: a slot counts nothing until a
// value is recorded in it. Without them the precision check records nothing
// and everything else runs on.
void PrecisionCollector::setUpPrecision(kosan_device_state &st) {
  uint32_t capacity = uint32_t(opts.precision_sites);
  constexpr size_t kSlotsAt = 256; // keeps the slots apart from the state's line
  size_t bytes = kSlotsAt + size_t(capacity) * KOSAN_PREC_SHARDS * sizeof(kosan_prec_slot);
  char *mem = nullptr;
  if (gpu.alloc(reinterpret_cast<void **>(&mem), bytes) != cudaSuccess ||
      gpu.memset(mem, 0, bytes) != cudaSuccess) {
    gpu.clearError();
    if (mem)
      gpu.free(mem);
    log("kosan: warning: cannot allocate %zu bytes for %u precision sites "
        "(precision_sites); the precision check records nothing\n", bytes, capacity);
    return;
  }
  dPrecision = reinterpret_cast<kosan_precision_state *>(mem);
  dPrecSlots = reinterpret_cast<kosan_prec_slot *>(mem + kSlotsAt);
  kosan_precision_state ps{};
  ps.slots = reinterpret_cast<uint64_t>(dPrecSlots);
  ps.capacity = capacity;
  if (gpu.toDevice(dPrecision, &ps, sizeof ps) != cudaSuccess) {
    gpu.clearError();
    gpu.free(mem);
    dPrecision = nullptr;
    dPrecSlots = nullptr;
    log("kosan: warning: cannot initialise the precision slots; the precision check "
        "records nothing\n");
    return;
  }
  precCapacity = capacity;
  precNextBase = 0;
  st.precision = reinterpret_cast<uint64_t>(dPrecision);
}

// Gives the module's sites their slots and tells the module where they
// start (its KOSAN_PREC_BASE_SYMBOL global). A module compiled without the
// precision check has no such global and gets none.
void PrecisionCollector::assignPrecisionSlots(ModuleInfo *m, uint32_t nsites,
                                   const std::vector<std::pair<std::string, uint32_t>> &units) {
  if (!dPrecision || nsites == 0)
    return;
  // Each unit's base symbol and where in the module's sites the unit's start.
  std::vector<std::pair<uint64_t, uint32_t>> bases;
  for (const auto &[suffix, first] : units) {
    uint64_t basePtr = 0;
    size_t bytes = 0;
    if (moduleGlobal(m, KOSAN_PREC_BASE_SYMBOL + suffix, basePtr, bytes) &&
        bytes == sizeof(uint32_t))
      bases.push_back({basePtr, first});
  }
  if (bases.empty())
    return;
  precModuleSeen = true;
  uint32_t base = precCapacity; // past the end: the device records nothing
  if (uint64_t(precNextBase) + nsites <= precCapacity) {
    base = precNextBase;
    precNextBase += nsites;
    m->precBase = base;
    m->precSlots = nsites;
  } else if (!warnedPrecFull) {
    warnedPrecFull = true;
    log("kosan: warning: the precision check has room for %u sites (precision_sites) "
        "and %u are taken; a module with %u more is not checked for precision\n",
        precCapacity, precNextBase, nsites);
  }
  bool written = true;
  for (auto [basePtr, first] : bases) {
    // Past the end stays past the end: the device records nothing.
    uint32_t unitBase = base == precCapacity ? base : base + first;
    written &= writeModuleGlobal(basePtr, &unitBase, sizeof unitBase);
  }
  if (!written) {
    m->precSlots = 0;
    log("kosan: warning: cannot set a module's precision slots; its sites are not "
        "checked for precision\n");
  }
}

void PrecisionCollector::harvestPrecision(bool deviceIdle, bool force) {
  if (!dPrecision || !precision())
    return;
  // Nothing ran since the last collection that kosan launched; after a
  // synchronisation of the whole device the flag is cheap to read, and
  // catches graph launches.
  if (!force && !precFirstLaunch && !deviceIdle)
    return;
  // The slots are read and zeroed with no kernel running, so that no update
  // is lost between the two. A failed synchronisation leaves its (sticky)
  // error for the program to see.
  if (!deviceIdle && gpu.synchronize() != cudaSuccess)
    return;
  uint32_t dirty = 0;
  if (gpu.toHost(&dirty, &dPrecision->dirty, sizeof dirty) != cudaSuccess)
    return;
  uint32_t firstLaunch = precFirstLaunch, lastLaunch = precLastLaunch;
  precFirstLaunch = precLastLaunch = 0;
  if (!dirty)
    return;
  uint32_t used = std::min(precNextBase, precCapacity);
  std::vector<kosan_prec_slot> shards(size_t(used) * KOSAN_PREC_SHARDS);
  size_t usedBytes = shards.size() * sizeof(kosan_prec_slot);
  if (used && gpu.toHost(shards.data(), dPrecSlots, usedBytes) != cudaSuccess)
    return;
  std::vector<kosan_prec_slot> slots(used);
  for (uint32_t site = 0; site < used; ++site)
    slots[site] = kosan::prec::mergeShards(&shards[size_t(site) * KOSAN_PREC_SHARDS], KOSAN_PREC_SHARDS);
  // Zeroed on the legacy stream, which every blocking stream waits for, and
  // waited for, so that the next kernel on any stream starts from zero.
  if ((used && gpu.memset(dPrecSlots, 0, usedBytes) != cudaSuccess) ||
      gpu.memset(&dPrecision->dirty, 0, sizeof(uint32_t)) != cudaSuccess ||
      gpu.synchronize(nullptr) != cudaSuccess)
    return;

  std::vector<const ModuleInfo *> owners;
  for (const auto &[handle, m] : modules)
    if (m->precSlots)
      owners.push_back(m.get());
  std::sort(owners.begin(), owners.end(),
            [](const ModuleInfo *a, const ModuleInfo *b) { return a->precBase < b->precBase; });
  std::vector<PrecisionRecord> collected;
  for (const ModuleInfo *m : owners) {
    for (uint32_t site = 0; site < m->precSlots; ++site) {
      const kosan_prec_slot &slot = slots[m->precBase + site];
      if (!slot.count && !slot.nans && !slot.overflows && !slot.underflows)
        continue;
      std::optional<PrecisionRecord> r = precisionRecord(slot, *m, site);
      if (!r)
        continue;
      // The launches since the last collection; with graphs (whose launches
      // kosan does not see) at least the one the worst value came from.
      r->launch_first = firstLaunch ? firstLaunch : slot.worst_launch;
      r->launch_last = std::max(lastLaunch, slot.worst_launch);
      if (slot.worst_launch && slot.worst_launch < r->launch_first)
        r->launch_first = slot.worst_launch;
      writeHeaderOnce();
      if (trace)
        trace->write(*r);
      collected.push_back(std::move(*r));
    }
  }
  if (collected.empty())
    return;
  collected.insert(collected.begin(), precTotals.begin(), precTotals.end());
  precTotals = precisionBySite(collected);
}

std::optional<PrecisionRecord> PrecisionCollector::precisionRecord(const kosan_prec_slot &slot,
                                                        const ModuleInfo &m,
                                                        uint32_t siteId) {
  if (siteId >= m.sites.size())
    return std::nullopt;
  const kosan_site &site = m.sites[siteId];
  PrecisionRecord r;
  switch (site.access) {
  case KOSAN_ACCESS_PREC_STORE: r.kind = "store"; break;
  case KOSAN_ACCESS_PREC_ATOMIC: r.kind = "atomic"; break;
  case KOSAN_ACCESS_PREC_NARROW: r.kind = "narrow"; break;
  case KOSAN_ACCESS_PREC_NONFINITE: r.kind = "nonfinite"; break;
  default: return std::nullopt; // not a precision site
  }
  auto dtype = [](int64_t t) {
    return t > 0 && t <= int64_t(DType::Bool) ? static_cast<DType>(t) : DType::Unknown;
  };
  r.op = m.str(site.object_str);
  r.dtype = dtype(site.size);
  if (site.access == KOSAN_ACCESS_PREC_NARROW) {
    r.from_dtype = dtype(site.arg_index & 0xff);
    r.to_shared = site.arg_index & KOSAN_PREC_NARROW_TO_SHARED;
  }
  auto where = [&](const kosan_site &s) {
    return SourceLoc{m.str(s.file_str), s.line, s.column, demangle(m.str(s.function_str)),
                     m.str(s.inlined_at_str)};
  };
  r.site = where(site);
  r.site_id = siteId;
  r.module = m.id;
  r.count = slot.count;
  r.mean_rel_err = slot.count ? slot.sum_rel_err / double(slot.count) : 0;
  r.max_rel_err = std::bit_cast<double>(slot.max_rel_err_bits);
  r.max_ulp_err = std::bit_cast<double>(slot.max_ulp_err_bits);
  r.bits_lost = prec::bitsLost(r.max_ulp_err);
  std::copy(std::begin(slot.hist), std::end(slot.hist), r.hist.begin());
  r.overflows = slot.overflows;
  r.underflows = slot.underflows;
  r.nans = slot.nans;
  r.worst.real = slot.worst_real;
  r.worst.shadow = slot.worst_shadow;
  r.worst.block = {slot.worst_block[0], slot.worst_block[1], slot.worst_block[2]};
  r.worst.thread = {slot.worst_thread[0], slot.worst_thread[1], slot.worst_thread[2]};
  r.worst.launch = slot.worst_launch;
  r.max_abs_err = std::bit_cast<double>(slot.max_abs_err_bits);
  r.scale = std::bit_cast<double>(slot.max_scale_bits);
  r.scaled_bits = scaledBits(r.max_abs_err, r.scale);
  uint32_t cause = slot.worst_cause_slot - m.precBase;
  if (slot.worst_cause_code && slot.worst_cause_slot >= m.precBase && cause < m.sites.size()) {
    const kosan_site &c = m.sites[cause];
    r.cause.kind = c.access == KOSAN_ACCESS_PREC_NARROW ? "narrow" : "op";
    r.cause.op = m.str(c.object_str);
    r.cause.dtype = dtype(c.size);
    if (c.access == KOSAN_ACCESS_PREC_NARROW)
      r.cause.from_dtype = dtype(c.arg_index & 0xff);
    r.cause.site = where(c);
    r.cause.local_log2 = prec::causeLog2(slot.worst_cause_code);
  }
  return r;
}

// The sites worst first, one line each as kosan-report prints them, and a
// summary line.
void PrecisionCollector::printPrecisionReport() {
  if (precTotals.empty() && !precModuleSeen) {
    if (opts.print_summary)
      log("kosan: precision: nothing recorded: no kernel launched was compiled with "
          "the precision check (kosan-clang++ --kosan-checks=oob,precision)\n");
    return;
  }
  // The findings (precision_verdict.h); the other sites are in the trace.
  double threshold = opts.precision_threshold;
  std::vector<PrecisionRecord> findings = precisionFindings(precTotals, threshold);
  size_t shown = 0;
  for (const PrecisionRecord &r : findings) {
    if (opts.print_limit > 0 && shown >= size_t(opts.print_limit))
      break;
    writeRaw(formatPrecisionLine(r, threshold) + "\n");
    ++shown;
  }
  if (shown < findings.size())
    log("kosan: %zu further precision findings were not printed (print_limit=%d)\n",
        findings.size() - shown, opts.print_limit);
  if (opts.print_summary)
    writeRaw(formatPrecisionSummary(precTotals, threshold) + "\n");
}

} // namespace kosan::rt

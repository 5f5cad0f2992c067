//===- runtime/host/checks/oob/oob_collector.cpp - checks=oob on the host -===//
#include "checks/oob/oob_collector.h"

#include "kosan/bounds.h"

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>

namespace kosan::rt {

std::unique_ptr<Collector> makeOobCollector(Runtime &rt) {
  return std::make_unique<OobCollector>(rt);
}

void OobCollector::beforeLaunch(LaunchContext &c) {
  // Without checks=oob the clone still runs (it holds the other checks)
  // but bounds nothing: every argument is unbounded and the table of
  // buffers stays empty.
  if (!c.capturing && oob())
    syncTable();
  c.info->flags |= opts.halt_on_error ? uint32_t(KOSAN_LAUNCH_HALT_ON_ERROR) : 0u;
  if (uninit())
    c.info->flags |= KOSAN_LAUNCH_UNINIT;
  const KernelInfo *k = c.k;
  for (size_t i = 0; i < k->paramSizes.size(); ++i) {
    if (oob() && k->paramSizes[i] == 8) {
      uint64_t value;
      std::memcpy(&value, c.args[i], 8);
      c.bounds[i] = boundsFor(value, c.ls);
    }
  }
}

bool OobCollector::drain(bool deviceIdle) {
  if (hostFlag->dirty || hostFlag->halted)
    deviceIdle = drainEvents(deviceIdle) || deviceIdle;
  return deviceIdle;
}

void OobCollector::exitRecord(TraceEnd &end) {
  end.errors = errors;
  end.reports = reports;
  end.dropped = dropped;
  end.unresolved_accesses = unresolvedArgs;
}

void OobCollector::exitReport() {
  printSummary();
  if (opts.verbosity >= 1 && unresolvedArgs)
    log("kosan: note: %lu pointer arguments pointed to no known buffer; their accesses "
        "were not bounded\n", unresolvedArgs);
}

void OobCollector::deviceReset() {
  dTable = nullptr;
  dTableCap = 0;
  tableGeneration = ~0ull;
}

void OobCollector::fatalSignal() {
  if (deviceReady && hostFlag && events)
    drainEvents(false, /*noCuda=*/true);
  printSummary();
}

kosan_arg_bounds OobCollector::boundsFor(uint64_t value, LaunchState &ls) {
  kosan_arg_bounds b = unboundedArg();
  if (const Buffer *buf = table.find(value))
    return bufferArg(buf->begin, buf->end, buf->pitch, buf->row_bytes);
  // Small integers (sizes, counts) share 8-byte parameter slots with
  // pointers; no device allocation lives in the low 4 GiB of the unified
  // address space, so they need no driver call.
  if (value < (1ull << 32))
    return b;
  // A pointer into a freed buffer: empty bounds, so that every access
  // through it is reported (and none goes ahead), as a use after free.
  if (const FreedBuffer *f = quarantine.find(value)) {
    ls.freedArgs[f->buffer.begin] = *f;
    return bufferArg(f->buffer.begin, f->buffer.begin, 0, 0);
  }
  // Memory from an allocator kosan does not see (an uninstrumented library):
  // the driver still knows the allocation's extent.
  uint64_t base = 0, size = 0;
  if (gpu.addressRange(value, base, size))
    return bufferArg(base, base + size, 0, 0);
  ++unresolvedArgs;
  return b;
}

void OobCollector::syncTable() {
  if (table.generation() == tableGeneration)
    return;
  tableGeneration = table.generation();
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  if (opts.check_unresolved)
    ranges = table.flatRanges();
  if (ranges.size() > dTableCap) {
    if (dTable)
      gpu.free(dTable);
    dTableCap = ranges.size() * 2;
    if (gpu.alloc(reinterpret_cast<void **>(&dTable), dTableCap * 16) != cudaSuccess) {
      dTable = nullptr;
      dTableCap = 0;
      ranges.clear();
    }
  }
  if (!ranges.empty())
    gpu.toDevice(dTable, ranges.data(), ranges.size() * 16);
  uint64_t tablePtr = reinterpret_cast<uint64_t>(dTable);
  uint32_t len = ranges.size();
  gpu.toDevice(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, table),
               &tablePtr, sizeof tablePtr);
  gpu.toDevice(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, table_len),
               &len, sizeof len);
}

// Where a buffer was allocated, and the variable the allocation filled when
// it is not the name the report gives the buffer ("d_y" for parameter 'y').
static std::string allocationSite(const Buffer &buf, const std::string &shownName) {
  std::string site = buf.site;
  if (!buf.name.empty() && buf.origin != BufferOrigin::Registered && buf.name != shownName)
    site += (site.empty() ? "" : " ") + std::string("as '") + buf.name + "'";
  return site;
}

namespace {
// An event inside its bounds is the pass's alignment test: the address is
// not a multiple of what the access needs (its size, at most 16 bytes; the
// pass tests that or a divisor of it), and the GPU would have faulted.
bool misalignedInBounds(const kosan_oob_event &slot) {
  if (slot.size < 2 || slot.addr < slot.begin)
    return false;
  bool inside = slot.end > slot.begin ? slot.addr + slot.size <= slot.end : slot.pitch != 0;
  return inside && (slot.addr & (accessAlignment(slot.size) - 1)) != 0;
}
} // namespace

void OobCollector::handleEvent(const kosan_oob_event &slot, uint64_t count) {
  uint32_t launchId = uint32_t((slot.key - 1) >> 32);
  uint32_t siteId = uint32_t((slot.key - 1) & 0xffffffffu);
  // uninit=1: a load that read the fill pattern, recorded at its site.
  bool uninitRead = siteId & KOSAN_SITE_UNINIT_BIT;
  siteId &= ~KOSAN_SITE_UNINIT_BIT;
  const LaunchState *ls =
      launchId >= 1 && launchId <= launches.size() ? &launches[launchId - 1] : nullptr;
  ModuleInfo *mod = ls && ls->kernel ? ls->kernel->module : nullptr;
  if (mod)
    loadSites(mod);
  const kosan_site *site =
      mod && siteId < mod->sites.size() ? &mod->sites[siteId] : nullptr;

  OobEvent e;
  e.launch = launchId;
  e.site_id = siteId;
  e.count = count;
  e.size = slot.size;
  e.address = slot.addr;
  e.block = {slot.block[0], slot.block[1], slot.block[2]};
  e.thread = {slot.thread[0], slot.thread[1], slot.thread[2]};
  e.buffer_begin = slot.begin;
  e.buffer_end = slot.end;
  e.pitch = slot.pitch;
  // Without its site (a module whose site table kosan could not read),
  // an event bounded by a buffer the table holds was an
  // access through the argument that points to it; what kind of access is
  // not known.
  const Buffer *bounding = site || slot.end <= slot.begin ? nullptr : table.find(slot.begin);
  if (bounding && bounding->begin != slot.begin)
    bounding = nullptr;
  uint32_t space = site ? site->space : bounding ? KOSAN_SPACE_GLOBAL : KOSAN_SPACE_UNKNOWN;
  uint32_t access = site ? site->access : KOSAN_ACCESS_LOAD;
  e.access = !site                                                             ? "ACCESS"
             : access == KOSAN_ACCESS_STORE || access == KOSAN_ACCESS_MEMCPY_DST ? "WRITE"
             : access == KOSAN_ACCESS_ATOMIC                                   ? "ATOMIC"
                                                                               : "READ";
  static const char *spaces[] = {"global", "shared", "local", "unknown", "param"};
  e.space = space < 5 ? spaces[space] : "unknown";
  if (site)
    e.site = mod->sourceLoc(*site);
  std::string object = site ? demangle(mod->str(site->object_str)) : "";
  // A freed buffer: the launch gave its pointer empty bounds (boundsFor),
  // or the table check found the address in one.
  const FreedBuffer *freed = nullptr;
  if (ls && slot.begin == slot.end)
    if (auto it = ls->freedArgs.find(slot.begin); it != ls->freedArgs.end())
      freed = &it->second;
  if (!freed && !uninitRead && (space == KOSAN_SPACE_UNKNOWN || (slot.begin == 0 && slot.end == 0)) &&
      !table.find(slot.addr))
    freed = quarantine.find(slot.addr);
  if (uninitRead) {
    e.kind = "use-of-uninitialized-value";
    e.access = "READ";
    if (const Buffer *buf = table.find(slot.addr)) {
      e.buffer_begin = buf->begin;
      e.buffer_end = buf->end;
      e.buffer_name = buf->name.empty() && buf->origin != BufferOrigin::Registered ? object : buf->name;
      e.allocated_at = buf->site;
    } else {
      e.buffer_begin = e.buffer_end = 0;
      e.buffer_name = object;
    }
  } else if (freed) {
    e.kind = "heap-use-after-free";
    e.buffer_begin = freed->buffer.begin;
    e.buffer_end = freed->buffer.end;
    e.buffer_name = freed->buffer.origin == BufferOrigin::Registered || object.empty()
                        ? freed->buffer.name : object;
    e.allocated_at = allocationSite(freed->buffer, e.buffer_name);
    e.freed_at = freed->freed_at.empty() && freed->buffer.origin == BufferOrigin::Registered
                     ? "its allocator (the buffer was returned)" : freed->freed_at;
    e.space = "global";
  } else if (slot.flags & KOSAN_EVENT_SHARED_WINDOW) {
    // Through a pointer the compiler could not follow, past the block's
    // shared memory.
    e.kind = "shared-buffer-overflow";
    e.space = "shared";
    e.buffer_name = "shared memory window of the block";
  } else if (space == KOSAN_SPACE_UNKNOWN || (slot.begin == 0 && slot.end == 0)) {
    e.kind = "unknown-address";
    // The table check failed: say which buffer the address is nearest to.
    if (const Buffer *near = table.nearest(slot.addr)) {
      e.buffer_begin = near->begin;
      e.buffer_end = near->end;
      e.buffer_name = near->name;
      e.allocated_at = near->site;
      e.kind = "global-buffer-overflow";
    } else {
      e.buffer_begin = e.buffer_end = 0;
    }
  } else {
    e.kind = misalignedInBounds(slot)     ? "misaligned-access"
             : space == KOSAN_SPACE_SHARED ? "shared-buffer-overflow"
             : space == KOSAN_SPACE_LOCAL  ? "local-buffer-overflow"
                                           : "global-buffer-overflow";
    e.buffer_name = object;
    if (space == KOSAN_SPACE_GLOBAL || space == KOSAN_SPACE_PARAM) {
      if (const Buffer *buf = table.find(slot.begin); buf && buf->begin == slot.begin) {
        // No site names the parameter: the buffer goes by its own name.
        if ((buf->origin == BufferOrigin::Registered || !site) && !buf->name.empty())
          e.buffer_name = buf->name;
        e.allocated_at = allocationSite(*buf, e.buffer_name);
        e.row_bytes = buf->row_bytes;
      }
    }
  }
  errors += count;
  badAccesses += count;
  ++reports;
  if (trace)
    trace->write(e);
  std::pair<uint32_t, uint32_t> key{mod ? mod->id : 0,
                                    siteId | (uninitRead ? KOSAN_SITE_UNINIT_BIT : 0)};
  if (!reportedSites.insert(key).second)
    return; // this site was reported already: counted, not printed again
  if (opts.print_limit > 0 && printed >= unsigned(opts.print_limit)) {
    ++suppressed;
    return;
  }
  ++printed;
  writeRaw(formatOobReport(e, ls ? &ls->record : nullptr, getpid()));
}

bool OobCollector::drainEvents(bool deviceIdle, bool noCuda) {
  bool halted = hostFlag->halted;
  bool synced = false;
  uint32_t claimed = eventCapacity;
  if (!halted && !noCuda) {
    if (!deviceIdle)
      synced = gpu.synchronize() == cudaSuccess;
    // After the trap of halt_on_error=1 the context is gone; otherwise the
    // claimed count tells how many events were lost to a full log.
    kosan_device_state st{};
    if (gpu.toHost(&st, dState, sizeof st) == cudaSuccess)
      claimed = st.event_count;
  }
  hostFlag->dirty = 0;
  // Aggregate per (launch, site); the first offender is the first claimed.
  std::map<uint64_t, std::pair<kosan_oob_event, uint64_t>> byKey;
  uint32_t n = std::min(claimed, eventCapacity);
  for (uint32_t i = 0; i < n; ++i) {
    const kosan_oob_event &e = events[i];
    if (!e.key)
      continue;
    auto [it, inserted] = byKey.try_emplace(e.key, e, 0);
    ++it->second.second;
  }
  // Without checks=oob the clones bound no argument, but code compiled with
  // the OOB check still checks shared and local objects: not asked for, not
  // reported.
  if (oob()) {
    if (claimed > eventCapacity)
      dropped += claimed - eventCapacity;
    for (auto &[key, agg] : byKey)
      handleEvent(agg.first, agg.second);
  }
  if (noCuda) {
    std::memset(events, 0, size_t(n) * sizeof(kosan_oob_event));
    return false;
  }
  if (halted) {
    hostFlag->halted = 0;
    if (opts.halt_on_error)
      log("kosan: the kernel was stopped at the first error (halt_on_error=1)\n");
    else
      log("kosan: a kernel was stopped after %d bad accesses (stop_after): it kept "
          "failing, as a loop whose bound a bad read turned around does; the CUDA context "
          "is unusable afterwards (stop_after=0 lets such kernels run on)\n",
          opts.stop_after);
    deviceReady = false;
    deviceFailed = true;
    return synced;
  }
  std::memset(events, 0, size_t(n) * sizeof(kosan_oob_event));
  uint32_t zero = 0;
  gpu.toDevice(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, event_count),
               &zero, sizeof zero);
  return synced;
}

void OobCollector::printSummary() {
  if (dropped)
    log("kosan: warning: %lu events were dropped because the device log was full "
        "(raise log_capacity)\n", dropped);
  if (suppressed)
    log("kosan: %lu further error sites were not printed (print_limit=%d)\n", suppressed,
        opts.print_limit);
  // errors counts every check's; the races have their own line.
  if (opts.print_summary && (badAccesses || opts.verbosity >= 1))
    log("kosan: %lu bad %s at %zu %s in %zu %s (%lu uninstrumented)\n", badAccesses,
        badAccesses == 1 ? "access" : "accesses", reportedSites.size(),
        reportedSites.size() == 1 ? "site" : "sites", launches.size(),
        launches.size() == 1 ? "launch" : "launches", plainLaunches);
}

} // namespace kosan::rt

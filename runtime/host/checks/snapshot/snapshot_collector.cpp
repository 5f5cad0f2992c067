//===- runtime/host/checks/snapshot/snapshot_collector.cpp - snapshot=1 ---===//
#include "checks/snapshot/snapshot_collector.h"

#include "kosan/worker_pool.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace kosan::rt {

std::unique_ptr<Collector> makeSnapshotCollector(Runtime &rt) {
  return std::make_unique<SnapshotCollector>(rt);
}

namespace {
using Clock = std::chrono::steady_clock;
uint64_t nsSince(Clock::time_point t) {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count());
}
} // namespace

cudaError_t SnapshotCollector::syncTimed(cudaStream_t stream) {
  const Clock::time_point t = Clock::now();
  cudaError_t e = gpu.synchronize(stream);
  stats.kernelWaitNs += nsSince(t);
  return e;
}

// The time a hook spends is what snapshots add to a launch, less the waits
// for the kernels (which the program would also wait for at its next
// synchronisation).
void SnapshotCollector::beforeLaunch(LaunchContext &c) {
  pending.clear();
  if (opts.snapshot && trace && !c.capturing) {
    const Clock::time_point t = Clock::now();
    const uint64_t waited = stats.kernelWaitNs;
    pending = prepareSnapshots(c.k, c.args, c.ls.record.id, c.stream);
    stats.addedNs += nsSince(t) - (stats.kernelWaitNs - waited);
  }
}

void SnapshotCollector::afterLaunch(LaunchContext &c) {
  if (!pending.empty()) {
    const Clock::time_point t = Clock::now();
    const uint64_t waited = stats.kernelWaitNs;
    finishSnapshots(pending, c.stream);
    stats.addedNs += nsSince(t) - (stats.kernelWaitNs - waited);
    if (stats.launches++ == 0)
      stats.firstAddedNs = stats.addedNs;
  }
  pending.clear();
}

void SnapshotCollector::exitReport() {
  if (!opts.snapshot_stats || !opts.snapshot || !trace)
    return;
  const SnapshotWriteStats &w = trace->snapshotStats();
  auto ms = [](uint64_t ns) { return double(ns) / 1e6; };
  const double mib = double(stats.bytes) / 1048576.0;
  const unsigned threads = trace->snapshotPool().size();
  log("kosan: snapshot stats: %" PRIu64 " snapshots (%.1f MiB) in %" PRIu64
      " launches; %u worker threads, %" PRIu64 " payload files\n",
      stats.snapshots, mib, stats.launches, threads, w.files.load());
  log("kosan: snapshot stats: added to the launches %.1f ms (%.2f GB/s of snapshot), "
      "of which the first launch %.1f ms; besides %.1f ms waiting for the kernels\n",
      ms(stats.addedNs), stats.addedNs ? double(stats.bytes) / double(stats.addedNs) : 0.0,
      ms(stats.firstAddedNs), ms(stats.kernelWaitNs));
  log("kosan: snapshot stats: launching thread waited %.1f ms for copies from the device, "
      "%.1f ms for a free staging buffer (%zu of %.0f MiB), %.1f ms for the last chunks\n",
      ms(stats.copyWaitNs), ms(stats.slotWaitNs), stats.staging,
      double(stats.stagingBytes) / 1048576.0, ms(stats.drainWaitNs));
  const uint64_t busy = w.hash_ns + w.compress_ns + w.write_ns;
  log("kosan: snapshot stats: worker threads, summed: hash %.1f ms, compress %.1f ms, "
      "write %.1f ms (%" PRIu64 " chunks, %.1f MiB to payload files, %.1f MiB of it "
      "mapped); each thread busy %.0f%% of the added time\n",
      ms(w.hash_ns), ms(w.compress_ns), ms(w.write_ns), w.chunks.load(),
      double(w.payload_bytes) / 1048576.0, double(w.mapped_bytes) / 1048576.0,
      stats.addedNs ? 100.0 * double(busy) / double(threads) / double(stats.addedNs) : 0.0);
}

void SnapshotCollector::deviceReset() {
  // The pinned buffers, the events and the stream went with the context.
  copyStream = nullptr;
  slots.clear();
  slotEvents.clear();
  slotBytes = 0;
}

// Pinned staging buffers and a copy stream of kosan's own, through CUDA's
// driver; where there is none (HIP programs), snapshots are copied through
// pageable memory. Each buffer gets an event where the driver has them
// (slotEvents then has one per slot; else it is empty).
bool SnapshotCollector::ensureStaging(uint64_t bytes, size_t count) {
  if (stagingFailed || rt.isHip())
    return false;
  if (!drv.streamCreate || !drv.streamSynchronize || !drv.memcpyDtoHAsync ||
      !drv.memFreeHost) {
    stagingFailed = true;
    return false;
  }
  if (!copyStream && drv.streamCreate(&copyStream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    copyStream = nullptr;
    stagingFailed = true;
    return false;
  }
  if (bytes > slotBytes) {
    for (char *slot : slots)
      drv.memFreeHost(slot);
    slots.clear();
    slotBytes = bytes;
  }
  while (slots.size() < count) {
    void *p = nullptr;
    if (cudart().cudaHostAlloc(&p, slotBytes, cudaHostAllocDefault) != cudaSuccess) {
      cudart().cudaGetLastError();
      break;
    }
    slots.push_back(static_cast<char *>(p));
  }
  if (slots.size() < 2) {
    log("kosan: warning: snapshots are copied through pageable memory: cannot "
        "allocate pinned host memory\n");
    stagingFailed = true;
    return false;
  }
  const bool haveEvents = drv.eventCreate && drv.eventRecord && drv.eventSynchronize &&
                          drv.eventDestroy;
  while (haveEvents && slotEvents.size() < slots.size()) {
    CUevent e = nullptr;
    if (drv.eventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) {
      for (CUevent made : slotEvents)
        drv.eventDestroy(made);
      slotEvents.clear();
      break;
    }
    slotEvents.push_back(e);
  }
  return true;
}

// With events, the copies of as many chunks as there are free staging
// buffers are queued at once, so that the copy engine goes from one to the
// next without waiting for this thread; the thread waits for the oldest
// copy's event, hands its chunk to a worker, and queues the next copy as a
// buffer comes free. Without events, each copy is waited for in turn.
bool SnapshotCollector::streamChunks(uint64_t src, uint64_t bytes, uint64_t chunkBytes,
                                     const std::function<void(uint64_t, const char *)> &use) {
  if (bytes == 0)
    return true;
  chunkBytes = std::max<uint64_t>(chunkBytes, 1);
  const uint64_t chunks = (bytes - 1) / chunkBytes + 1;
  WorkerPool &pool = trace->snapshotPool();
  // Enough buffers that every thread has a chunk while the next ones are
  // copied, at most 32 (128 MiB of 4 MiB chunks); or snapshot_staging_mb's.
  const uint64_t ring =
      opts.snapshot_staging_mb > 0
          ? std::max<uint64_t>(2, (uint64_t(opts.snapshot_staging_mb) << 20) / chunkBytes)
          : std::min(2 * pool.size() + 1, 32u);
  const size_t want = size_t(std::min<uint64_t>(chunks, ring));
  if (!ensureStaging(chunkBytes, std::max<size_t>(want, 2))) {
    // Without pinned memory: one copy of the whole buffer, then the chunks
    // on the threads.
    std::vector<char> host(bytes);
    Clock::time_point t = Clock::now();
    cudaError_t copied = gpu.toHost(host.data(), reinterpret_cast<void *>(src), bytes);
    stats.copyWaitNs += nsSince(t);
    if (copied != cudaSuccess) {
      gpu.clearError();
      return false;
    }
    t = Clock::now();
    pool.parallelFor(chunks, [&](size_t i) { use(i, host.data() + i * chunkBytes); });
    stats.drainWaitNs += nsSince(t);
    return true;
  }
  stats.staging = std::max(stats.staging, std::min(want, slots.size()));
  stats.stagingBytes = slotBytes;
  const bool queued = !slotEvents.empty();
  std::mutex mutex;
  std::condition_variable freed;
  // Free staging buffers, by slot number.
  std::vector<size_t> free;
  for (size_t i = 0; i < std::min(want, slots.size()); ++i)
    free.push_back(i);
  // Copies queued and not yet handed to a worker: (chunk, slot), oldest first.
  std::deque<std::pair<uint64_t, size_t>> copying;
  WorkerPool::Latch done(chunks);
  bool ok = true;
  uint64_t queuedChunks = 0, handed = 0;
  while (ok && handed < chunks) {
    // Queue a copy into every free buffer (one at a time without events).
    for (;;) {
      if (queuedChunks == chunks || (!queued && !copying.empty()))
        break;
      size_t slot;
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (free.empty()) {
          if (!copying.empty())
            break;
          const Clock::time_point t = Clock::now();
          freed.wait(lock, [&] { return !free.empty(); });
          stats.slotWaitNs += nsSince(t);
        }
        slot = free.back();
        free.pop_back();
      }
      const uint64_t at = queuedChunks * chunkBytes;
      const uint64_t n = std::min(chunkBytes, bytes - at);
      if (drv.memcpyDtoHAsync(slots[slot], CUdeviceptr(src + at), n, copyStream) !=
              CUDA_SUCCESS ||
          (queued && drv.eventRecord(slotEvents[slot], copyStream) != CUDA_SUCCESS)) {
        ok = false;
        break;
      }
      copying.emplace_back(queuedChunks++, slot);
    }
    if (!ok || copying.empty())
      break;
    auto [index, slot] = copying.front();
    copying.pop_front();
    const Clock::time_point t = Clock::now();
    const CUresult landed = queued ? drv.eventSynchronize(slotEvents[slot])
                                   : drv.streamSynchronize(copyStream);
    stats.copyWaitNs += nsSince(t);
    if (landed != CUDA_SUCCESS) {
      ok = false;
      break;
    }
    ++handed;
    const char *data = slots[slot];
    pool.submit([&, data, index, slot] {
      use(index, data);
      {
        std::lock_guard<std::mutex> lock(mutex);
        free.push_back(slot);
      }
      freed.notify_one();
      done.countDown();
    });
  }
  if (!ok) {
    // Copies already queued land before their buffers are reused.
    drv.streamSynchronize(copyStream);
    for (; handed < chunks; ++handed)
      done.countDown();
  }
  const Clock::time_point t = Clock::now();
  done.wait();
  stats.drainWaitNs += nsSince(t);
  return ok;
}

uint64_t SnapshotCollector::deviceHash(uint64_t src, uint64_t bytes, uint64_t chunkBytes) {
  std::vector<uint64_t> hashes(bytes == 0 ? 0 : (bytes - 1) / chunkBytes + 1);
  std::atomic<uint64_t> &hashNs = trace->snapshotStats().hash_ns;
  if (!streamChunks(src, bytes, chunkBytes, [&](uint64_t i, const char *data) {
        const Clock::time_point t = Clock::now();
        hashes[i] = fnv1aWords(data, std::min(chunkBytes, bytes - i * chunkBytes));
        hashNs += nsSince(t);
      }))
    return 0;
  return combineChunkHashes(hashes.data(), hashes.size());
}

namespace {
// Signalling NaNs: arithmetic on the GPU only ever produces quiet NaNs, so a
// kernel that computes a NaN never writes one of these. Integers get a byte
// pattern; one-byte types are not poisoned (1 in 256 values would collide).
std::optional<uint64_t> poisonPattern(DType t) {
  switch (t) {
  case DType::F64: return 0x7ff4badbadbadbadull;
  case DType::F32: return 0x7fbadbadull;
  case DType::F16: return 0x7d5bull;
  case DType::BF16: return 0x7fa5ull;
  case DType::I64: case DType::U64: return 0xa5a5a5a5a5a5a5a5ull;
  case DType::I32: case DType::U32: return 0xa5a5a5a5ull;
  case DType::I16: case DType::U16: return 0xa5a5ull;
  default: return std::nullopt;
  }
}
} // namespace

// COUNT elements of ELEM bytes at PTR set to PATTERN, ahead of the launch
// on STREAM: with memsets on the GPU (4-byte patterns as uninit=1's fill;
// on CUDA also 2-byte ones, and 8-byte ones as two 32-bit columns of pitch
// 8), else through a host buffer.
bool SnapshotCollector::fill(uint64_t ptr, uint64_t pattern, uint32_t elem, uint64_t count,
                             cudaStream_t stream) {
  if (elem == 4 && gpu.fill32Async(reinterpret_cast<void *>(ptr), uint32_t(pattern), count,
                                   stream) == cudaSuccess)
    return true;
  const CUdeviceptr dst = CUdeviceptr(ptr);
  const CUstream s = reinterpret_cast<CUstream>(stream);
  if (!rt.isHip()) {
    bool done = false;
    if (elem == 2 && drv.memsetD16Async)
      done = drv.memsetD16Async(dst, static_cast<unsigned short>(pattern), count, s) ==
             CUDA_SUCCESS;
    else if (elem == 8 && drv.memsetD2D32Async)
      done = drv.memsetD2D32Async(dst, 8, unsigned(pattern), 1, count, s) == CUDA_SUCCESS &&
             drv.memsetD2D32Async(dst + 4, 8, unsigned(pattern >> 32), 1, count, s) ==
                 CUDA_SUCCESS;
    if (done)
      return true;
  }
  const uint64_t bytes = count * elem;
  if (bytes == 0)
    return true;
  std::vector<char> host(bytes);
  std::memcpy(host.data(), &pattern, elem);
  // Doubling copies: the pattern fills the buffer in log2(count) memcpys.
  for (uint64_t filled = elem; filled < bytes; filled *= 2)
    std::memcpy(host.data() + filled, host.data(), std::min(filled, bytes - filled));
  if (gpu.toDeviceAsync(reinterpret_cast<void *>(ptr), host.data(), bytes, stream) !=
      cudaSuccess) {
    gpu.clearError();
    return false;
  }
  return true;
}

std::vector<PendingSnapshot> SnapshotCollector::prepareSnapshots(KernelInfo *k, void **args,
                                                        uint32_t launchId,
                                                        cudaStream_t stream) {
  std::vector<PendingSnapshot> out;
  const KernelSummaryInfo *summary = k->summary;
  if (!summary || summary->params.size() != k->paramSizes.size()) {
    if (!k->warnedNoSummary)
      log("kosan: warning: no snapshot of kernel '%s': its module carries no "
          "parameter summary\n", k->name.c_str());
    k->warnedNoSummary = true;
    return out;
  }
  const bool anyPointer = summary->flags & KOSAN_KERNEL_UNRESOLVED_WRITES;
  const uint64_t maxBytes = uint64_t(std::max(opts.snapshot_max_mb, 0)) << 20;
  bool synced = false;
  for (size_t i = 0; i < summary->params.size(); ++i) {
    const ParamInfo &p = summary->params[i];
    if (!(p.flags & KOSAN_PARAM_POINTER) || k->paramSizes[i] != 8)
      continue;
    if (!(p.flags & KOSAN_PARAM_WRITTEN) && !anyPointer)
      continue;
    uint64_t ptr;
    std::memcpy(&ptr, args[i], 8);
    if (!ptr)
      continue;
    PendingSnapshot snap;
    SnapshotRecord &r = snap.record;
    r.launch = launchId;
    r.arg = i;
    r.address = ptr;
    r.dtype = static_cast<DType>(p.dtype <= uint32_t(DType::Bool) ? p.dtype : 0);
    ArgBuffer buffer = argBuffer(k, i, ptr);
    uint64_t end = buffer.end;
    r.name = std::move(buffer.name);
    if (const Buffer *buf = buffer.registered) {
      if (!buf->dtype.empty())
        if (std::optional<DType> t = parseDType(buf->dtype))
          r.dtype = *t;
      r.shape = buf->shape;
    }
    if (end <= ptr) {
      log("kosan: warning: no snapshot of '%s' (argument %zu of kernel '%s'): "
          "it points into no buffer kosan knows\n", r.name.c_str(), i, k->name.c_str());
      continue;
    }
    uint32_t elem = dtypeSize(r.dtype);
    r.count = (end - ptr) / elem;
    r.chunk_elements = snapshotChunkElements(r.dtype);
    r.hash = kSnapshotHashChunks;
    snap.bytes = r.count * elem;
    if (snap.bytes > maxBytes) {
      log("kosan: warning: no snapshot of '%s' (argument %zu of kernel '%s'): "
          "%" PRIu64 " bytes is more than snapshot_max_mb=%d\n", r.name.c_str(), i,
          k->name.c_str(), snap.bytes, opts.snapshot_max_mb);
      continue;
    }
    uint64_t product = 1;
    for (int64_t d : r.shape)
      product *= uint64_t(d);
    if (!r.shape.empty() && product != r.count)
      r.shape.clear();
    r.read = anyPointer || (p.flags & (KOSAN_PARAM_READ | KOSAN_PARAM_ESCAPES));
    // Where the kernel stores to it, for reports that point at source lines.
    for (const kosan_site &site : kernelSites(k)) {
      bool writes = site.access == KOSAN_ACCESS_STORE || site.access == KOSAN_ACCESS_ATOMIC ||
                    site.access == KOSAN_ACCESS_MEMCPY_DST;
      if (site.arg_index != int32_t(i) || !writes || !site.file_str)
        continue;
      std::string where = k->module->location(site);
      if (std::find(r.store_sites.begin(), r.store_sites.end(), where) ==
              r.store_sites.end() &&
          r.store_sites.size() < 8)
        r.store_sites.push_back(where);
    }
    if (r.read) {
      // In/out buffer: remember what it held, to tell whether it changed.
      if (!synced)
        syncTimed(stream);
      synced = true;
      r.pre_hash = deviceHash(ptr, snap.bytes, r.chunk_elements * elem);
    } else if (opts.poison) {
      if (std::optional<uint64_t> pattern = poisonPattern(r.dtype)) {
        if (fill(ptr, *pattern, elem, r.count, stream)) {
          r.poisoned = true;
          r.poison = *pattern;
        }
      }
    }
    out.push_back(std::move(snap));
  }
  return out;
}

void SnapshotCollector::finishSnapshots(std::vector<PendingSnapshot> &snapshots,
                              cudaStream_t stream) {
  if (syncTimed(stream) != cudaSuccess) {
    gpu.clearError();
    log("kosan: warning: no snapshots of launch #%u: the kernel failed\n",
        snapshots.front().record.launch);
    return;
  }
  for (PendingSnapshot &snap : snapshots) {
    std::unique_ptr<SnapshotBuilder> builder = trace->beginSnapshot(std::move(snap.record));
    SnapshotRecord &r = builder->record();
    if (!streamChunks(r.address, snap.bytes, builder->chunkBytes(0),
                      [&](uint64_t i, const char *data) { builder->addChunk(i, data); })) {
      log("kosan: warning: no snapshot of '%s' (launch #%u): cannot copy it\n",
          r.name.c_str(), r.launch);
      continue;
    }
    r.post_hash = builder->hash();
    builder->finish();
    stats.snapshots += 1;
    stats.bytes += snap.bytes;
  }
}

} // namespace kosan::rt

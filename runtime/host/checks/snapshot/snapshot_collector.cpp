//===- runtime/host/checks/snapshot/snapshot_collector.cpp - snapshot=1 ---===//
#include "checks/snapshot/snapshot_collector.h"

#include "kosan/fnv.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <optional>

namespace kosan::rt {

void SnapshotCollector::beforeLaunch(LaunchContext &c) {
  pending.clear();
  if (opts.snapshot && trace && !c.capturing)
    pending = prepareSnapshots(c.k, c.args, c.ls.record.id, c.stream);
}

void SnapshotCollector::afterLaunch(LaunchContext &c) {
  if (!pending.empty())
    finishSnapshots(pending, c.stream);
  pending.clear();
}

namespace {
// FNV-1a over 8-byte words (then the tail bytes): the hashes only tell
// whether a buffer changed across a launch, and a word at a time keeps up
// with the copy.
uint64_t fnv1a(const char *data, size_t n) {
  uint64_t h = KOSAN_FNV_OFFSET_BASIS;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = kosan_fnv1a_step(h, w);
  }
  for (; i < n; ++i)
    h = kosan_fnv1a_step(h, static_cast<unsigned char>(data[i]));
  return h;
}

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
    std::vector<char> host;
    if (r.read) {
      // In/out buffer: remember what it held, to tell whether it changed.
      if (!synced)
        cudart().cudaStreamSynchronize(stream);
      synced = true;
      host.resize(snap.bytes);
      if (cudart().cudaMemcpy(host.data(), reinterpret_cast<void *>(ptr), snap.bytes,
                     cudaMemcpyDeviceToHost) == cudaSuccess)
        r.pre_hash = fnv1a(host.data(), host.size());
      else
        cudart().cudaGetLastError();
    } else if (opts.poison) {
      if (std::optional<uint64_t> pattern = poisonPattern(r.dtype)) {
        host.resize(snap.bytes);
        for (uint64_t e = 0; e < r.count; ++e)
          std::memcpy(host.data() + e * elem, &*pattern, elem);
        if (cudart().cudaMemcpy(reinterpret_cast<void *>(ptr), host.data(), snap.bytes,
                       cudaMemcpyHostToDevice) == cudaSuccess) {
          r.poisoned = true;
          r.poison = *pattern;
        } else {
          cudart().cudaGetLastError();
        }
      }
    }
    out.push_back(std::move(snap));
  }
  return out;
}

void SnapshotCollector::finishSnapshots(std::vector<PendingSnapshot> &snapshots,
                              cudaStream_t stream) {
  if (cudart().cudaStreamSynchronize(stream) != cudaSuccess) {
    cudart().cudaGetLastError();
    log("kosan: warning: no snapshots of launch #%u: the kernel failed\n",
        snapshots.front().record.launch);
    return;
  }
  std::vector<char> host;
  for (PendingSnapshot &snap : snapshots) {
    host.resize(snap.bytes);
    if (snap.bytes &&
        cudart().cudaMemcpy(host.data(), reinterpret_cast<void *>(snap.record.address),
                   snap.bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      cudart().cudaGetLastError();
      log("kosan: warning: no snapshot of '%s' (launch #%u): cannot copy it\n",
          snap.record.name.c_str(), snap.record.launch);
      continue;
    }
    snap.record.post_hash = fnv1a(host.data(), host.size());
    trace->writeSnapshot(std::move(snap.record), host.data(), host.size());
  }
}

} // namespace kosan::rt

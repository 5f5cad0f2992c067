//===- runtime/host/core/allocations.cpp - The program's buffers ----------===//
//
// Allocations and frees the program makes through the intercepted CUDA
// functions, and buffers it registers (kosan/kosan.h): the allocation table
// (alloc_table.h) and the quarantine of freed buffers (quarantine.h).
//
//===----------------------------------------------------------------------===//
#include "core/runtime.h"

#include <unistd.h>

#include <optional>

namespace kosan::rt {

void Runtime::addAllocation(void *p, uint64_t bytes, uint64_t pitch,
                            uint64_t rowBytes, BufferOrigin origin) {
  std::lock_guard<std::mutex> lock(mu);
  registerExitHandler();
  Buffer b;
  b.begin = reinterpret_cast<uint64_t>(p);
  b.end = b.begin + bytes;
  b.pitch = pitch;
  b.row_bytes = rowBytes;
  b.origin = origin;
  if (pendingSite)
    b.site = pendingSite;
  if (pendingName)
    b.name = pendingName;
  pendingSite = pendingName = nullptr;
  quarantine.reused(b.begin, b.end);
  size_t dropped = table.addAllocation(std::move(b));
  if (dropped && opts.verbosity >= 1)
    log("kosan: note: a new allocation at %p replaced %zu stale table entries "
        "(memory freed outside instrumented code)\n", p, dropped);
}

cudaError_t Runtime::freeAllocation(void *p, bool async,
                                   const std::function<cudaError_t(void *)> &realFree) {
  const char *site = pendingSite;
  pendingSite = pendingName = nullptr;
  if (!p || !instrumentedChecks())
    return realFree(p);
  // Errors of kernels still running may name this buffer: collect them first.
  if (!async)
    drain(false);
  std::unique_lock<std::mutex> lock(mu);
  uint64_t begin = reinterpret_cast<uint64_t>(p);
  const Buffer *live = table.find(begin);
  if (!live || live->begin != begin || live->origin == BufferOrigin::Registered) {
    const FreedBuffer *f = quarantine.find(begin);
    if (f && f->buffer.begin == begin && f->held) {
      // The driver would refuse it too (the memory is still allocated, but
      // the program gave it up): say where, and do not free it twice.
      ++errors;
      writeRaw(std::string(65, '=') + "\n==" + std::to_string(getpid()) +
               "==ERROR: kosan: double-free of the " +
               std::to_string(f->buffer.end - f->buffer.begin) + "-byte buffer" +
               (f->buffer.name.empty() ? "" : " '" + f->buffer.name + "'") +
               (site ? " at " + std::string(site) : std::string()) + "\n" +
               (f->buffer.site.empty() ? "" : "    allocated at " + f->buffer.site + "\n") +
               "    already freed at " + (f->freed_at.empty() ? "an unknown site" : f->freed_at) +
               "\nSUMMARY: kosan: double-free" + (site ? " " + std::string(site) : std::string()) +
               "\n");
      return cudaErrorInvalidValue;
    }
    lock.unlock();
    return realFree(p);
  }
  FreedBuffer f;
  f.buffer = *live;
  f.freed_at = site ? site : "";
  table.removeAllocation(begin);
  // Managed memory is not held: the program may count on giving it back.
  f.held = quarantine.capacity() > 0 && f.buffer.origin != BufferOrigin::MallocManaged;
  bool held = f.held;
  std::vector<FreedBuffer> release = quarantine.add(std::move(f));
  lock.unlock();
  cudaError_t result = cudaSuccess;
  if (!held) {
    result = realFree(p);
    std::erase_if(release, [&](const FreedBuffer &r) { return r.buffer.begin == begin; });
  } else if (!async) {
    // cudaFree waits for the device; programs may count on it.
    result = gpu.synchronize();
  }
  // What leaves the quarantine: the device may still be using it through a
  // bad pointer; cudaFree waits for it.
  for (const FreedBuffer &r : release)
    gpu.free(reinterpret_cast<void *>(r.buffer.begin));
  return result;
}

bool Runtime::releaseQuarantine() {
  std::vector<FreedBuffer> release;
  {
    std::lock_guard<std::mutex> lock(mu);
    release = quarantine.releaseAll();
  }
  for (const FreedBuffer &r : release)
    gpu.free(reinterpret_cast<void *>(r.buffer.begin));
  return !release.empty();
}

void Runtime::poisonFresh(const void *p, uint64_t bytes, cudaStream_t stream, bool wait) {
  if (!uninit() || !p || bytes == 0)
    return;
  std::lock_guard<std::mutex> lock(mu);
  if (!ensureDevice())
    return; // said why already
  // Whole words: allocations are at least 4-byte aligned and rounded up.
  size_t words = (bytes + 3) / 4;
  cudaError_t e = gpu.fill32Async(const_cast<void *>(p), KOSAN_UNINIT_PATTERN, words, stream);
  if (e != cudaSuccess) {
    if (!warnedNoMemset)
      log("kosan: warning: uninit=1: fresh allocations cannot be filled (%s); they are "
          "not checked for reads of uninitialized memory\n",
          e == cudaErrorNotSupported ? "the driver has no cuMemsetD32Async"
                                     : gpu.errorString(e));
    warnedNoMemset = true;
    return;
  }
  if (wait)
    gpu.synchronize(stream);
}

int Runtime::noteAllocated(const void *p, size_t bytes, const char *name, cudaStream_t stream) {
  int result = registerBuffer(p, bytes, name);
  // Under the allocator's lock: the fill is queued on the block's stream,
  // ahead of whatever the program queues there next.
  poisonFresh(p, bytes, stream, /*wait=*/false);
  return result;
}

int Runtime::noteFreed(const void *p, const char *freedAt) {
  std::lock_guard<std::mutex> lock(mu);
  uint64_t begin = reinterpret_cast<uint64_t>(p);
  const Buffer *b = table.find(begin);
  if (!b || b->begin != begin || b->origin != BufferOrigin::Registered)
    return -1;
  FreedBuffer f;
  f.buffer = *b;
  f.freed_at = freedAt ? freedAt : "";
  table.unregisterBuffer(begin);
  quarantine.add(std::move(f)); // not held: the allocator keeps the memory
  return 0;
}

int Runtime::registerBuffer(const void *p, size_t bytes, const char *name,
                            const char *dtype, std::vector<int64_t> shape) {
  std::lock_guard<std::mutex> lock(mu);
  std::string err;
  std::string type;
  if (dtype && *dtype) {
    if (std::optional<DType> t = parseDType(dtype))
      type = dtypeName(*t);
    else
      log("kosan: warning: kosan_register_tensor: unknown dtype '%s' for '%s'; "
          "its snapshots will be compared as raw bytes\n", dtype, name ? name : "");
  }
  if (!table.registerBuffer(reinterpret_cast<uint64_t>(p), bytes,
                            name ? name : "", &err, std::move(type), std::move(shape))) {
    log("kosan: warning: kosan_register_buffer: %s\n", err.c_str());
    return -1;
  }
  uint64_t begin = reinterpret_cast<uint64_t>(p);
  quarantine.reused(begin, begin + bytes);
  return 0;
}

int Runtime::unregisterBuffer(const void *p) {
  std::lock_guard<std::mutex> lock(mu);
  return table.unregisterBuffer(reinterpret_cast<uint64_t>(p)) ? 0 : -1;
}
} // namespace kosan::rt

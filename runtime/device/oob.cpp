//===- runtime/device/oob.cpp - Device runtime of the OOB check ------------===//
//
// Compiled to nvptx64 and to amdgcn bitcode (no CUDA or HIP headers: clang's
// builtins only, through gpu.h), embedded in the plugin and linked into each instrumented device module after
// instrumentation, so these functions are never instrumented themselves.
//
// Instrumented code checks and records everything inline, except accesses
// whose buffer the compiler could not tell: those call in here.
//
//===----------------------------------------------------------------------===//
#include "kosan/abi.h"

#include "gpu.h"

#define KOSAN_DEVICE extern "C" __attribute__((noinline, cold))

namespace {

constexpr uint64_t kReservedSharedBytes = 1024;

// Records one violation into the event log, as the inline code the pass
// emits does (passes/checks/oob/OOBInstrumenter.cpp, emitReport): claim an index, write the
// event, the key last.
void record(kosan_device_state *st, uint32_t launchId, uint32_t flags,
            uint32_t site, uint64_t addr, uint32_t size, uint64_t begin = 0,
            uint64_t end = 0, uint32_t eventFlags = 0) {
  uint32_t index = __atomic_fetch_add(&st->event_count, 1u, __ATOMIC_RELAXED);
  kosan_host_flag *hf = (kosan_host_flag *)st->host_flag;
  if (index < st->event_capacity) {
    kosan_oob_event *e = (kosan_oob_event *)st->events + index;
    e->addr = addr;
    e->begin = begin;
    e->end = end;
    e->pitch = 0;
    e->size = size;
    e->flags = eventFlags;
    kosan::gpu::publishEvent(e, launchId, site);
  }
  hf->dirty = 1;
  uint32_t budget = st->event_budget;
  if ((flags & KOSAN_LAUNCH_HALT_ON_ERROR) || (budget && index >= budget)) {
    kosan::gpu::systemFence();
    hf->halted = 1;
    __builtin_trap();
  }
}

} // namespace

// Access whose buffer the compiler could not tell: allowed when it lies in
// the block's shared memory, in local or constant memory, or inside one of
// the buffers the host knows. A shared address past what the block has
// (inside the shared window, which the GPU would fault on) is an error.
KOSAN_DEVICE bool __kosan_oob_check_table(uint64_t state, uint32_t launchId,
                                          uint32_t flags, uint32_t site,
                                          uint64_t addr, uint32_t size) {
  if (!state)
    return true;
  void *p = (void *)addr;
  kosan_device_state *st = (kosan_device_state *)state;
#if defined(__NVPTX__)
  if (__nvvm_isspacep_shared(p)) {
    uint64_t offset;
    uint32_t total;
    __asm__("cvta.to.shared.u64 %0, %1;" : "=l"(offset) : "l"(addr));
    __asm__("mov.u32 %0, %%total_smem_size;" : "=r"(total));
    // From sm_80 on, the first KiB of a block's window is reserved for the
    // system and the program's shared memory follows it (its extent is not
    // readable before sm_80): the block has at most 1 KiB + total bytes.
    uint64_t end = uint64_t(total) + kReservedSharedBytes;
    if (offset + size <= end)
      return true;
    uint64_t base = addr - offset;
    record(st, launchId, flags, site, addr, size, base, base + end,
           KOSAN_EVENT_SHARED_WINDOW);
    return false;
  }
  if (__nvvm_isspacep_local(p) || __nvvm_isspacep_const(p))
    return true;
#else
  // AMDGPU: LDS and private (scratch) addresses are not in the table; the
  // block's LDS size is not readable here, so they are let through.
  typedef const __attribute__((address_space(0))) void *FlatPtr;
  if (__builtin_amdgcn_is_shared((FlatPtr)p) || __builtin_amdgcn_is_private((FlatPtr)p))
    return true;
#endif
  uint32_t n = st->table_len;
  if (n == 0)
    return true;
  const uint64_t *table = (const uint64_t *)st->table;
  // Last range whose begin <= addr.
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (table[2 * mid] <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0) {
    uint64_t b = table[2 * (lo - 1)], e = table[2 * (lo - 1) + 1];
    if (addr >= b && addr + size <= e)
      return true;
  }
  record(st, launchId, flags, site, addr, size);
  return false;
}

// An event recorded from a device function that was not inlined (relocatable
// device code, -O0): a call keeps the report's code out of the function, whose
// registers a kernel of another unit must be able to afford.
KOSAN_DEVICE void __kosan_oob_record(uint64_t state, uint32_t launchId, uint32_t flags,
                                     uint32_t site, uint64_t addr, uint32_t size) {
  if (state)
    record((kosan_device_state *)state, launchId, flags, site, addr, size);
}

// A stand-in for libamdhip64.so in the unit tests of kosan's HIP
// interception (hip_intercept_test.cpp): it exports the HIP functions the
// runtime loads (runtime/host/core/hip.h) and records every call for the
// test to inspect. Its "GPU" is the host: device memory (hipMalloc) and
// mapped memory (hipHostMalloc) are host memory, copies are memcpy, and a
// launch of an instrumented clone runs the body the test gave the kernel
// (fake_hip_clone_body), which records into kosan's device log through the
// launch info it was given.
#include "fake_hip.h"

#include "kosan/abi.h"
#include "kosan/precision.h"
#include "kosan/race.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

namespace {
FakeHipLog state;
std::map<const void *, std::string> names;      // registered handle -> device name
std::map<std::string, FakeCloneBody> bodies;    // kernel -> its clone's body
struct Var {
  void **module;
  std::string name;
};
std::map<const void *, Var> vars;                                   // shadow -> its global
std::map<std::pair<void **, std::string>, std::pair<void *, size_t>> globals; // defined ones
int failMallocs = 0;
bool clones = true;
bool capturing = false;
bool trapped = false; // a clone trapped: the context is gone
constexpr int kLaunchFailure = 719; // hipErrorLaunchFailure
unsigned paramCount = 0;
const std::string kCloneSuffix = KOSAN_CLONE_SUFFIX;

// Page-aligned and never given back, so that no two buffers of a test
// share an address; above 4 GiB, as device memory is.
void *hostMemory(size_t bytes) {
  return std::aligned_alloc(4096, (bytes + 4095) & ~size_t(4095));
}

int allocate(void **p, size_t bytes) {
  ++state.mallocs;
  if (failMallocs > 0) {
    --failMallocs;
    return 2; // hipErrorOutOfMemory
  }
  *p = hostMemory(bytes);
  if (*p) // zeros, so that a fill shows
    std::memset(*p, 0, bytes);
  return *p ? 0 : 2;
}

int launch(const void *f, dim3 grid, dim3 block, void **args, size_t shmem) {
  FakeLaunch l;
  l.handle = f;
  l.grid = grid;
  l.block = block;
  l.shmem = shmem;
  auto it = names.find(f);
  l.name = it == names.end() ? "" : it->second;
  bool clone = l.name.size() > kCloneSuffix.size() &&
               l.name.compare(l.name.size() - kCloneSuffix.size(), kCloneSuffix.size(),
                              kCloneSuffix) == 0;
  if (clone && !clones) {
    state.failedCloneLaunches++;
    return 98; // hipErrorInvalidDeviceFunction
  }
  for (unsigned i = 0; i < paramCount; ++i)
    l.args.push_back(args[i]);
  if (clone) {
    const auto *info = static_cast<const unsigned char *>(args[paramCount]);
    std::memcpy(&l.info, info, sizeof l.info);
    const auto *b = reinterpret_cast<const kosan_arg_bounds *>(info + sizeof(kosan_launch_info));
    l.bounds.assign(b, b + paramCount);
    auto body = bodies.find(l.name.substr(0, l.name.size() - kCloneSuffix.size()));
    if (body != bodies.end())
      body->second(l);
  }
  state.launches.push_back(l);
  return 0;
}
// The global a registered shadow names, in its module's code object.
const std::pair<void *, size_t> *global(const void *symbol) {
  auto v = vars.find(symbol);
  if (v == vars.end())
    return nullptr;
  auto g = globals.find({v->second.module, v->second.name});
  if (g == globals.end()) {
    std::fprintf(stderr, "fake HIP: cannot create GlobalVar Obj for symbol: %s\n",
                 v->second.name.c_str());
    std::abort(); // as HIP's guarantee() does
  }
  return &g->second;
}
} // namespace

extern "C" {
FakeHipLog *fake_hip_log() { return &state; }
void fake_hip_fail_mallocs(int n) { failMallocs = n; }
void fake_hip_clones(bool on) { clones = on; }
void fake_hip_param_count(unsigned n) { paramCount = n; }
void fake_hip_capturing(bool on) { capturing = on; }
void fake_hip_clone_body(const char *mangled, FakeCloneBody body) { bodies[mangled] = body; }

void fake_hip_define_global(void **module, const char *name, void *mem, size_t bytes) {
  globals[{module, name}] = {mem, bytes};
}

void fake_hip_record_oob(const FakeLaunch &l, uint32_t site, uint64_t addr, uint32_t size,
                         const kosan_arg_bounds &bounds, dim3 block, dim3 thread) {
  auto *st = reinterpret_cast<kosan_device_state *>(l.info.state);
  if (!st)
    return; // no device log: the clone checks and records nothing
  uint32_t index = std::atomic_ref<uint32_t>(st->event_count).fetch_add(1);
  auto *hf = reinterpret_cast<kosan_host_flag *>(st->host_flag);
  if (index < st->event_capacity) {
    kosan_oob_event *e = reinterpret_cast<kosan_oob_event *>(st->events) + index;
    e->addr = addr;
    e->begin = bounds.begin;
    e->end = bounds.end;
    e->pitch = bounds.pitch;
    e->size = size;
    e->flags = 0;
    e->block[0] = block.x;
    e->block[1] = block.y;
    e->block[2] = block.z;
    e->thread[0] = thread.x;
    e->thread[1] = thread.y;
    e->thread[2] = thread.z;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    e->key = (uint64_t(l.info.launch_id) << 32 | site) + 1;
  }
  hf->dirty = 1;
}

bool fake_hip_record_race(const FakeLaunch &l, uint32_t site, uint32_t otherSite,
                          uint32_t otherThread, uint32_t offset, uint32_t kinds, dim3 block,
                          dim3 thread) {
  auto *st = reinterpret_cast<kosan_device_state *>(l.info.state);
  if (!st || !st->race_events)
    return false; // no race log: nothing recorded
  uint32_t index = std::atomic_ref<uint32_t>(st->race_count).fetch_add(1);
  if (index < st->race_capacity) {
    kosan_race_event *e = reinterpret_cast<kosan_race_event *>(st->race_events) + index;
    e->other_site = otherSite;
    e->other_thread = otherThread;
    e->offset = offset;
    e->kinds = kinds;
    e->block[0] = block.x;
    e->block[1] = block.y;
    e->block[2] = block.z;
    e->thread[0] = thread.x;
    e->thread[1] = thread.y;
    e->thread[2] = thread.z;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    e->key = (uint64_t(l.info.launch_id) << 32 | site) + 1;
  }
  auto *h = reinterpret_cast<kosan_race_log_header *>(st->race_flag);
  h->flag.dirty = 1;
  uint32_t budget = st->event_budget;
  if (h->halt_on_error || (budget && index >= budget)) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    h->flag.halted = 1;
    trapped = true;
    return true;
  }
  return false;
}

void fake_hip_record_precision(const FakeLaunch &l, uint32_t slot, double real, double shadow,
                               uint32_t dtype, dim3 block, dim3 thread) {
  namespace prec = kosan::prec;
  auto *st = reinterpret_cast<kosan_device_state *>(l.info.state);
  if (!st || !st->precision)
    return; // precision off at run time
  auto *ps = reinterpret_cast<kosan_precision_state *>(st->precision);
  if (slot >= ps->capacity)
    return; // a module with no slots
  kosan_prec_slot *p = reinterpret_cast<kosan_prec_slot *>(ps->slots) +
                       uint64_t(slot) * KOSAN_PREC_SHARDS;
  prec::LaneSample s = prec::valueSample(real, shadow, dtype);
  p->count += 1;
  p->sum_rel_err += s.sumRelErr;
  p->max_rel_err_bits = std::max(p->max_rel_err_bits, s.relErrBits);
  p->max_ulp_err_bits = std::max(p->max_ulp_err_bits, s.ulpErrBits);
  p->max_scale_bits = std::max(p->max_scale_bits, s.scaleBits);
  if (s.bin != prec::kNoBin)
    p->hist[s.bin] += 1;
  if (s.absErrBits > p->max_abs_err_bits) {
    p->max_abs_err_bits = s.absErrBits;
    p->worst_real = s.real;
    p->worst_shadow = s.shadow;
    p->worst_cause_code = s.causeCode;
    p->worst_cause_slot = s.causeSlot;
    p->worst_block[0] = block.x;
    p->worst_block[1] = block.y;
    p->worst_block[2] = block.z;
    p->worst_thread[0] = thread.x;
    p->worst_thread[1] = thread.y;
    p->worst_thread[2] = thread.z;
    p->worst_launch = l.info.launch_id;
  }
  ps->dirty = 1;
}

void fake_hip_record_order_atomic(const FakeLaunch &l, uint64_t where, uint64_t fp,
                                  uint64_t oldBits, uint64_t valBits, uint32_t block,
                                  uint32_t thread) {
  auto *st = reinterpret_cast<kosan_device_state *>(l.info.state);
  if (!st || !st->order)
    return; // order off at run time
  auto *os = reinterpret_cast<kosan_order_state *>(st->order);
  const uint32_t shard = 0;
  uint32_t i = reinterpret_cast<uint32_t *>(os->counts)[KOSAN_ORDER_COUNT(1, shard)]++;
  if (i >= os->atomic_capacity)
    return; // dropped, and counted
  kosan_order_atomic *r = reinterpret_cast<kosan_order_atomic *>(os->atomics) +
                          uint64_t(shard) * os->atomic_capacity + i;
  r->fp = fp;
  r->where = where;
  r->old_bits = oldBits;
  r->val_bits = valBits;
  r->block = block;
  r->thread = thread;
}

int hipMalloc(void **p, size_t bytes) { return allocate(p, bytes); }
int hipMallocAsync(void **p, size_t bytes, void *) { return allocate(p, bytes); }
int hipMallocFromPoolAsync(void **p, size_t bytes, void *, void *) { return allocate(p, bytes); }
int hipMallocManaged(void **p, size_t bytes, unsigned) { return allocate(p, bytes); }
int hipMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  *pitch = (width + 255) & ~size_t(255);
  return allocate(p, *pitch * height);
}
int hipFree(void *p) {
  state.frees.push_back(p);
  return 0;
}
int hipFreeAsync(void *p, void *) { return hipFree(p); }
int hipLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shmem, void *) {
  return launch(f, grid, block, args, shmem);
}
int hipLaunchCooperativeKernel(const void *f, dim3 grid, dim3 block, void **args,
                               unsigned shmem, void *) {
  return launch(f, grid, block, args, shmem);
}
int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shmem, void *, void **params,
                          void **) {
  ++state.moduleLaunches;
  return launch(f, dim3(gx, gy, gz), dim3(bx, by, bz), params, shmem);
}
int hipDeviceSynchronize() {
  ++state.syncs;
  return trapped ? kLaunchFailure : 0;
}
int hipStreamSynchronize(void *) { return hipDeviceSynchronize(); }
int hipEventSynchronize(void *) { return hipDeviceSynchronize(); }
int hipMemcpy(void *dst, const void *src, size_t bytes, int) {
  ++state.copies;
  if (trapped)
    return kLaunchFailure;
  std::memcpy(dst, src, bytes);
  return 0;
}
int hipMemcpyAsync(void *dst, const void *src, size_t bytes, int kind, void *) {
  return hipMemcpy(dst, src, bytes, kind);
}
int hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                size_t height, int) {
  ++state.copies;
  for (size_t row = 0; row < height; ++row)
    std::memcpy(static_cast<char *>(dst) + row * dpitch,
                static_cast<const char *>(src) + row * spitch, width);
  return 0;
}
int hipMemset(void *p, int value, size_t bytes) {
  ++state.copies;
  std::memset(p, value, bytes);
  return 0;
}
int hipMemsetAsync(void *p, int value, size_t bytes, void *) { return hipMemset(p, value, bytes); }
int hipMemsetD32Async(void *p, int value, size_t words, void *) {
  ++state.fills32;
  for (size_t i = 0; i < words; ++i)
    std::memcpy(static_cast<char *>(p) + 4 * i, &value, 4);
  return 0;
}
int hipFuncSetAttribute(const void *f, int attr, int value) {
  auto it = names.find(f);
  if (it == names.end())
    return 98; // hipErrorInvalidDeviceFunction
  state.attributes.push_back({it->second, attr, value, -1});
  return 0;
}
int hipFuncSetCacheConfig(const void *f, int config) {
  auto it = names.find(f);
  if (it == names.end())
    return 98;
  state.attributes.push_back({it->second, -1, 0, config});
  return 0;
}
int hipHostMalloc(void **p, size_t bytes, unsigned) {
  *p = hostMemory(bytes);
  return *p ? 0 : 2;
}
int hipHostGetDevicePointer(void **device, void *host, unsigned) {
  *device = host; // one address space
  return 0;
}
int hipStreamIsCapturing(void *, int *status) {
  *status = capturing ? 1 : 0; // hipStreamCaptureStatusActive, None
  return 0;
}
int hipGetDevice(int *device) {
  *device = 0;
  return 0;
}
const char *hipGetErrorString(int) { return "fake HIP error"; }
int hipDeviceReset() { return 0; }
void __hipRegisterFunction(void **, const void *stub, char *, const char *name, unsigned,
                           void *, void *, dim3 *, dim3 *, int *) {
  names[stub] = name;
  state.registered.push_back(name);
}
void __hipRegisterVar(void **modules, void *var, char *hostVar, char *, int, size_t, int, int) {
  vars[var] = {modules, hostVar};
  state.registeredVars.push_back(hostVar);
}
int hipGetSymbolAddress(void **p, const void *symbol) {
  ++state.symbolLookups;
  const auto *g = global(symbol);
  if (!g)
    return 13; // hipErrorInvalidSymbol
  *p = g->first;
  return 0;
}
int hipGetSymbolSize(size_t *bytes, const void *symbol) {
  const auto *g = global(symbol);
  if (!g)
    return 13;
  *bytes = g->second;
  return 0;
}
int hipGetLastError() { return 0; }
int hipMemGetAddressRange(void **, size_t *, void *) { return 1; }
int hipDriverGetVersion(int *v) {
  *v = 50223;
  return 0;
}
int hipRuntimeGetVersion(int *v) { return hipDriverGetVersion(v); }
}

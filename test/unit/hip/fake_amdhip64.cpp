// A stand-in for libamdhip64.so in the unit tests of kosan's HIP
// interception (hip_intercept_test.cpp): it exports the HIP functions the
// runtime loads (runtime/host/core/hip.h), hands out device addresses that
// are never dereferenced, and records every call for the test to inspect.
#include "fake_hip.h"

#include "kosan/abi.h"

#include <cstring>
#include <map>
#include <string>

namespace {
FakeHipLog state;
std::map<const void *, std::string> names; // registered handle -> device name
uint64_t next = 0x7f0000000000ull;         // above 4 GiB, as device memory is
int failMallocs = 0;
bool clones = true;
unsigned paramCount = 0;

int allocate(void **p, size_t bytes) {
  ++state.mallocs;
  if (failMallocs > 0) {
    --failMallocs;
    return 2; // hipErrorOutOfMemory
  }
  *p = reinterpret_cast<void *>(next);
  next += (bytes + 0xfff) & ~uint64_t(0xfff);
  next += 0x1000; // a gap between buffers
  return 0;
}

int launch(const void *f, void **args) {
  FakeLaunch l;
  l.handle = f;
  auto it = names.find(f);
  l.name = it == names.end() ? "" : it->second;
  bool clone = l.name.size() > 7 && l.name.compare(l.name.size() - 7, 7, "__kosan") == 0;
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
  }
  state.launches.push_back(l);
  return 0;
}
} // namespace

extern "C" {
FakeHipLog *fake_hip_log() { return &state; }
void fake_hip_fail_mallocs(int n) { failMallocs = n; }
void fake_hip_clones(bool on) { clones = on; }
void fake_hip_param_count(unsigned n) { paramCount = n; }

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
int hipLaunchKernel(const void *f, dim3, dim3, void **args, size_t, void *) {
  return launch(f, args);
}
int hipLaunchCooperativeKernel(const void *f, dim3, dim3, void **args, unsigned, void *) {
  return launch(f, args);
}
int hipModuleLaunchKernel(void *f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, void *, void **params, void **) {
  ++state.moduleLaunches;
  return launch(f, params);
}
int hipDeviceSynchronize() {
  ++state.syncs;
  return 0;
}
int hipStreamSynchronize(void *) { return hipDeviceSynchronize(); }
int hipEventSynchronize(void *) { return hipDeviceSynchronize(); }
int hipMemcpy(void *, const void *, size_t, int) { return 0; }
int hipDeviceReset() { return 0; }
void __hipRegisterFunction(void **, const void *stub, char *, const char *name, unsigned,
                           void *, void *, dim3 *, dim3 *, int *) {
  names[stub] = name;
  state.registered.push_back(name);
}
int hipGetLastError() { return 0; }
int hipMemGetAddressRange(void **, size_t *, void *) { return 1; }
int hipDriverGetVersion(int *v) {
  *v = 50223;
  return 0;
}
int hipRuntimeGetVersion(int *v) { return hipDriverGetVersion(v); }
}

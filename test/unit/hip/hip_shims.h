// The HIP calls a test program makes through kosan's host runtime, loaded
// from the runtime library by their interposed names (kosan/intercepts.h):
// the programs of test/unit/hip run against the fake libamdhip64
// (fake_amdhip64.cpp) as their GPU.
#pragma once

#include "fake_hip.h"

#include "kosan/abi.h"
#include "kosan/intercepts.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace kosan::test {

using HipError = int;
using Stream = void *;

struct HipShims {
  HipError (*hipMalloc)(void **, size_t);
  HipError (*hipMallocPitch)(void **, size_t *, size_t, size_t);
  HipError (*hipMallocManaged)(void **, size_t, unsigned);
  HipError (*hipMallocAsync)(void **, size_t, Stream);
  HipError (*hipFuncSetAttribute)(const void *, int, int);
  HipError (*hipFuncSetCacheConfig)(const void *, int);
  HipError (*hipFree)(void *);
  HipError (*hipFreeAsync)(void *, Stream);
  HipError (*hipLaunchKernel)(const void *, dim3, dim3, void **, size_t, Stream);
  HipError (*hipModuleLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, Stream, void **, void **);
  HipError (*hipDeviceSynchronize)();
  HipError (*registerFunction)(void **, const void *, char *, const char *, unsigned, void *,
                               void *, dim3 *, dim3 *, int *);
  HipError (*registerVar)(void **, void *, char *, char *, int, size_t, int, int);
  void (*allocSite)(const char *site, const char *name);
};

// Exits with 2 and a message naming `program` if the runtime cannot be
// loaded or lacks one of the calls.
inline HipShims loadHipShims(const char *program) {
  void *rt = dlopen(KOSAN_RUNTIME_LIB, RTLD_NOW | RTLD_GLOBAL);
  if (!rt) {
    std::fprintf(stderr, "%s: %s\n", program, dlerror());
    std::exit(2);
  }
  auto get = [&](const char *name) {
    void *f = dlsym(rt, name);
    if (!f) {
      std::fprintf(stderr, "%s: the runtime does not export %s\n", program, name);
      std::exit(2);
    }
    return f;
  };
  HipShims s;
#define KOSAN_GET(field, name) s.field = reinterpret_cast<decltype(s.field)>(get(name));
  KOSAN_GET(hipMalloc, KOSAN_INTERCEPT_PREFIX "hipMalloc")
  KOSAN_GET(hipMallocPitch, KOSAN_INTERCEPT_PREFIX "hipMallocPitch")
  KOSAN_GET(hipMallocManaged, KOSAN_INTERCEPT_PREFIX "hipMallocManaged")
  KOSAN_GET(hipMallocAsync, KOSAN_INTERCEPT_PREFIX "hipMallocAsync")
  KOSAN_GET(hipFuncSetAttribute, KOSAN_INTERCEPT_PREFIX "hipFuncSetAttribute")
  KOSAN_GET(hipFuncSetCacheConfig, KOSAN_INTERCEPT_PREFIX "hipFuncSetCacheConfig")
  KOSAN_GET(hipFree, KOSAN_INTERCEPT_PREFIX "hipFree")
  KOSAN_GET(hipFreeAsync, KOSAN_INTERCEPT_PREFIX "hipFreeAsync")
  KOSAN_GET(hipLaunchKernel, KOSAN_INTERCEPT_PREFIX "hipLaunchKernel")
  KOSAN_GET(hipModuleLaunchKernel, KOSAN_INTERCEPT_PREFIX "hipModuleLaunchKernel")
  KOSAN_GET(hipDeviceSynchronize, KOSAN_INTERCEPT_PREFIX "hipDeviceSynchronize")
  KOSAN_GET(registerFunction, KOSAN_INTERCEPT_PREFIX "__hipRegisterFunction")
  KOSAN_GET(registerVar, KOSAN_INTERCEPT_PREFIX "__hipRegisterVar")
  KOSAN_GET(allocSite, KOSAN_ALLOC_SITE_NAME)
#undef KOSAN_GET
  return s;
}

// Registers kernel `mangled` of code object `module` for host stub `stub`,
// as a module constructor of a HIP program does.
inline void registerKernel(const HipShims &hip, void **module, const void *stub,
                           const char *mangled) {
  std::string name = mangled;
  hip.registerFunction(module, stub, name.data(), name.c_str(), ~0u, nullptr, nullptr, nullptr,
                       nullptr, nullptr);
}

// Registers device global `symbol` (`bytes` long) of `module` with host
// shadow `shadow`, as the constructor does for a __device__ variable and,
// in code kosan built, for kosan's globals (passes/host/HostHooks.cpp).
inline void registerVar(const HipShims &hip, void **module, void *shadow, const char *symbol,
                        size_t bytes) {
  std::string name = symbol;
  hip.registerVar(module, shadow, name.data(), name.data(), 0, bytes, 0, 0);
}

// A module's site table in abi.h's layout, as the device pass emits it:
// intern() the strings, then table() lays out the header, the sites, the
// kernel entries, the parameter entries and the strings.
class SiteTable {
public:
  uint32_t intern(const std::string &text) {
    uint32_t off = uint32_t(strings_.size());
    strings_ += text;
    strings_ += '\0';
    return off;
  }
  std::vector<char> table(const std::string &module, const std::vector<kosan_site> &sites,
                          const std::vector<kosan_kernel_entry> &kernels,
                          const std::vector<kosan_param_entry> &params) {
    kosan_site_table_header h{};
    h.magic = KOSAN_SITE_TABLE_MAGIC;
    h.abi_version = KOSAN_ABI_VERSION;
    h.module_str = intern(module);
    h.nsites = uint32_t(sites.size());
    h.nkernels = uint32_t(kernels.size());
    h.nparams = uint32_t(params.size());
    h.strings_size = uint32_t(strings_.size());
    std::vector<char> blob;
    auto append = [&](const void *p, size_t n) {
      blob.insert(blob.end(), static_cast<const char *>(p), static_cast<const char *>(p) + n);
    };
    append(&h, sizeof h);
    append(sites.data(), sites.size() * sizeof(kosan_site));
    append(kernels.data(), kernels.size() * sizeof(kosan_kernel_entry));
    append(params.data(), params.size() * sizeof(kosan_param_entry));
    append(strings_.data(), strings_.size());
    return blob;
  }

private:
  std::string strings_ = std::string(1, '\0');
};

} // namespace kosan::test

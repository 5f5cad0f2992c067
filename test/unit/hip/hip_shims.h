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

struct HipShims {
  HipError (*hipMalloc)(void **, size_t);
  HipError (*hipLaunchKernel)(const void *, dim3, dim3, void **, size_t, void *);
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
  KOSAN_GET(hipLaunchKernel, KOSAN_INTERCEPT_PREFIX "hipLaunchKernel")
  KOSAN_GET(hipDeviceSynchronize, KOSAN_INTERCEPT_PREFIX "hipDeviceSynchronize")
  KOSAN_GET(registerFunction, KOSAN_INTERCEPT_PREFIX "__hipRegisterFunction")
  KOSAN_GET(registerVar, KOSAN_INTERCEPT_PREFIX "__hipRegisterVar")
  KOSAN_GET(allocSite, KOSAN_ALLOC_SITE_NAME)
#undef KOSAN_GET
  return s;
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

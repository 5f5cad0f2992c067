// The HIP calls a test program makes through kosan's host runtime, loaded
// from the runtime library by their interposed names (kosan/intercepts.h):
// the programs of test/unit/hip run against the fake libamdhip64
// (fake_amdhip64.cpp) as their GPU.
#pragma once

#include "fake_hip.h"

#include "kosan/abi.h"
#include "kosan/intercepts.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

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

} // namespace kosan::test

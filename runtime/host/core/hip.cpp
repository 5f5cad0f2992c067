//===- runtime/host/core/hip.cpp - HIP programs: the API, kernels, launches ===//
//
// The program's HIP runtime (hip.h), and what is HIP's own in the core:
// the kernels __hipRegisterFunction names, their parameters, and how their
// clones are launched.
//
// A HIP launch goes through the launch path CUDA launches take
// (launch.cpp): the kernel's instrumented clone (the kernel's name with
// KOSAN_CLONE_SUFFIX, registered next to the kernel under a handle of
// kosan's) runs with the launch info as its last argument, which the
// collectors fill in (the device state, each pointer argument's bounds)
// and whose device log they collect at the synchronisation points. The
// parameters are read from the kernel's mangled name (an extern "C"
// kernel, whose name says nothing of them, runs plain). A kernel whose
// clone does not launch (a code object built without kosan's amdgcn
// instrumentation) runs as the program asked, and the launch is recorded.
//
// A kernel's module is its code object (__hipRegisterFatBinary's handle):
// the host pass registers kosan's device globals of it (the site table
// with the kernel summaries, the precision base) with __hipRegisterVar, as
// clang registers a program's __device__ variables, and the runtime finds
// them with hipGetSymbolAddress at the module's first launch (modules.cpp),
// where the CUDA path asks cuModuleGetGlobal.
//
//===----------------------------------------------------------------------===//
#include "core/hip.h"

#include "core/runtime.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace kosan::rt {
namespace {

HipApi loadHip() {
  HipApi api;
  void *h = nullptr;
  const char *env = std::getenv("KOSAN_HIP_LIBRARY");
  if (env && *env) {
    h = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
    api.library = env;
  } else {
    // The program links it: the loaded one first.
    for (const char *name : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
      h = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
      if (!h)
        h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
      if (h) {
        api.library = name;
        break;
      }
    }
  }
  if (!h) {
    const char *e = dlerror();
    std::fprintf(stderr, "kosan: error: a HIP program without a HIP runtime: cannot load %s "
                         "(%s); set KOSAN_HIP_LIBRARY=<path>/libamdhip64.so\n",
                 env && *env ? env : "libamdhip64.so", e ? e : "not found");
    std::abort();
  }
  const char *missing = nullptr;
#define KOSAN_HIP_RESOLVE(name, ret, params)                                                \
  api.name = reinterpret_cast<ret(*) params>(dlsym(h, #name));                              \
  if (!api.name && !missing)                                                                 \
    missing = #name;
  KOSAN_HIP_FUNCTIONS(KOSAN_HIP_RESOLVE)
#undef KOSAN_HIP_RESOLVE
  if (missing) {
    std::fprintf(stderr, "kosan: error: the HIP runtime %s lacks %s (kosan needs HIP 5.2 or "
                         "newer)\n", api.library.c_str(), missing);
    std::abort();
  }
  return api;
}

// Per parameter of the kernel `mangled`: whether it is a pointer. False
// when the name does not say (not a mangled C++ name).
bool pointerParams(const std::string &mangled, std::vector<bool> &out) {
  std::string d = demangle(mangled);
  if (d == mangled || d.empty() || d.back() != ')')
    return false;
  // The parameter list: from the '(' that matches the last ')'.
  int depth = 0;
  size_t open = std::string::npos;
  for (size_t i = d.size(); i-- > 0;) {
    if (d[i] == ')')
      ++depth;
    else if (d[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos)
    return false;
  std::string list = d.substr(open + 1, d.size() - open - 2);
  out.clear();
  if (list.empty() || list == "void")
    return true;
  std::vector<std::string> params;
  std::string cur;
  depth = 0;
  for (char c : list) {
    if (c == '(' || c == '<' || c == '[')
      ++depth;
    else if (c == ')' || c == '>' || c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      params.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  params.push_back(cur);
  for (std::string p : params) {
    // "float const* __restrict", "int* const": qualifiers after the '*'.
    for (bool trimmed = true; trimmed;) {
      trimmed = false;
      while (!p.empty() && p.back() == ' ')
        p.pop_back();
      for (const char *q : {"__restrict", "const", "volatile"}) {
        size_t n = std::strlen(q);
        if (p.size() > n && p.compare(p.size() - n, n, q) == 0 &&
            (p[p.size() - n - 1] == ' ' || p[p.size() - n - 1] == '*')) {
          p.resize(p.size() - n);
          trimmed = true;
        }
      }
    }
    out.push_back(!p.empty() && p.back() == '*');
  }
  return true;
}

} // namespace

const HipApi &hip() {
  static const HipApi api = loadHip();
  return api;
}

void Runtime::registerHipKernel(
    void **modules, const void *stub, const char *mangled,
    const std::function<void(const void *handle, char *name)> &registerClone) {
  if (!stub || !mangled)
    return;
  std::unique_lock<std::mutex> lock(mu);
  // A stub registered again (a second module constructor): the first
  // registration, and its clone's handle, stay.
  if (hipKernels.count(stub))
    return;
  auto hk = std::make_unique<HipKernel>();
  KernelInfo &k = hk->info;
  if (modules)
    k.module = moduleFor(reinterpret_cast<CUmodule>(modules));
  k.mangled = mangled;
  k.name = demangle(k.mangled);
  hk->cloneName = k.mangled + KOSAN_CLONE_SUFFIX;
  std::vector<bool> pointers;
  bool paramsKnown = pointerParams(k.mangled, pointers);
  for (bool pointer : pointers)
    k.paramSizes.push_back(pointer ? sizeof(void *) : 0);
  k.infoBytes = sizeof(kosan_launch_info) + pointers.size() * sizeof(kosan_arg_bounds);
  if (!paramsKnown)
    k.whyPlain = "its name does not give its parameters (an extern \"C\" kernel)";
  HipKernel *registered = hk.get();
  hipKernels[stub] = std::move(hk);
  lock.unlock();
  if (paramsKnown && instrumentedChecks()) {
    registerClone(&registered->cloneHandle, registered->cloneName.data());
    lock.lock();
    registered->info.hipClone = &registered->cloneHandle;
  }
}

namespace {

// kosan's module globals: the site table and the checks' (KOSAN_CHECK_GLOBALS).
bool isKosanGlobal(const char *name) {
#define KOSAN_GLOBAL_NAMED(CHECK, symbol, initial) std::strcmp(name, symbol) == 0 ||
  return KOSAN_CHECK_GLOBALS(KOSAN_GLOBAL_NAMED) std::strcmp(name, KOSAN_SITE_TABLE_SYMBOL) == 0;
#undef KOSAN_GLOBAL_NAMED
}

} // namespace

void Runtime::registerHipGlobal(void **modules, const char *name, const void *shadow) {
  if (!modules || !name || !shadow || !isKosanGlobal(name))
    return;
  std::lock_guard<std::mutex> lock(mu);
  moduleFor(reinterpret_cast<CUmodule>(modules))->hipGlobals[name] = shadow;
}

int Runtime::launchHip(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                       const void *stream,
                       const std::function<int(const void *, void **, size_t)> &launchWith) {
  if (!instrumentedChecks())
    return launchWith(func, args, shmem);
  // While a stream is captured into a graph, synchronous calls would
  // invalidate the capture: the launch uses what is set up already.
  auto hipS = reinterpret_cast<hipStream_t>(const_cast<void *>(stream));
  hipStreamCaptureStatus capture = hipStreamCaptureStatusNone;
  if (hip().hipStreamIsCapturing(hipS, &capture) != hipSuccess) {
    hip().hipGetLastError();
    capture = hipStreamCaptureStatusNone;
  }
  LaunchRequest r{func, grid, block, args, shmem, reinterpret_cast<cudaStream_t>(hipS),
                  capture != hipStreamCaptureStatusNone, nullptr, nullptr};
  r.clone = [&](KernelInfo *k, void **params, size_t launchShmem) {
    // The module's table lists every kernel that has a clone; HIP aborts
    // the process at the launch of a name its code object lacks.
    if (k->module && k->module->tableRead && !k->module->summaries.count(k->mangled)) {
      k->hipClone = nullptr;
      k->whyPlain = "its code object has no instrumented clone";
      return false;
    }
    int e = launchWith(k->hipClone, params, launchShmem);
    if (e == hipSuccess)
      return true;
    hip().hipGetLastError(); // the clone's failure is not the program's error
    k->hipClone = nullptr;
    k->whyPlain = "its code object has no instrumented clone (HIP error " +
                  std::to_string(e) + ")";
    return false;
  };
  r.plain = [&] { return launchWith(func, args, shmem); };
  return launchKernel(r);
}

} // namespace kosan::rt

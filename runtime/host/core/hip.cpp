//===- runtime/host/core/hip.cpp - HIP programs: the API, kernels, launches ===//
//
// The program's HIP runtime (hip.h), and what the core does for HIP
// programs: the device API calls it makes itself, the kernels
// __hipRegisterFunction names, and the launch path.
//
// A HIP launch runs the kernel's instrumented clone (the kernel's name with
// KOSAN_CLONE_SUFFIX, registered next to the kernel under a handle of
// kosan's) with the launch info as its last argument, as on CUDA: each
// pointer argument gets the bounds of its buffer from the allocation table
// (empty for a freed buffer, so every access through it is a use after
// free). The parameters are read from the kernel's mangled name (an
// extern "C" kernel, whose name says nothing of them, runs plain). A kernel
// whose clone does not launch (a code object built without kosan's amdgcn
// instrumentation) runs as the program asked, and the launch is recorded.
// The device log is not set up on AMD GPUs yet: the launch info's state
// is 0.
//
//===----------------------------------------------------------------------===//
#include "core/hip.h"

#include "checks/oob/oob_collector.h"
#include "core/runtime.h"

#include "kosan/bounds.h"

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

cudaError_t Runtime::deviceSynchronize() {
  return isHip() ? static_cast<cudaError_t>(hip().hipDeviceSynchronize())
                 : cudart().cudaDeviceSynchronize();
}

cudaError_t Runtime::deviceFree(void *p) {
  return isHip() ? static_cast<cudaError_t>(hip().hipFree(p)) : cudart().cudaFree(p);
}

bool Runtime::addressRange(uint64_t addr, uint64_t &base, uint64_t &size) {
  if (isHip()) {
    hipDeviceptr_t b = nullptr;
    size_t n = 0;
    if (hip().hipMemGetAddressRange(&b, &n, reinterpret_cast<hipDeviceptr_t>(addr)) !=
        hipSuccess) {
      hip().hipGetLastError(); // not the program's error
      return false;
    }
    base = reinterpret_cast<uint64_t>(b);
    size = n;
    return true;
  }
  CUdeviceptr b = 0;
  size_t n = 0;
  if (!drv.memGetAddressRange || drv.memGetAddressRange(&b, &n, addr) != CUDA_SUCCESS)
    return false;
  base = b;
  size = n;
  return true;
}

void Runtime::registerHipKernel(
    const void *stub, const char *mangled,
    const std::function<void(const void *handle, char *name)> &registerClone) {
  if (!stub || !mangled)
    return;
  std::unique_lock<std::mutex> lock(mu);
  // A stub registered again (a second module constructor): the first
  // registration, and its clone's handle, stay.
  if (hipKernels.count(stub))
    return;
  auto k = std::make_unique<HipKernel>();
  k->mangled = mangled;
  k->cloneName = k->mangled + KOSAN_CLONE_SUFFIX;
  k->paramsKnown = pointerParams(k->mangled, k->pointerParams);
  HipKernel *kp = k.get();
  hipKernels[stub] = std::move(k);
  lock.unlock();
  if (kp->paramsKnown && instrumentedChecks())
    registerClone(&kp->cloneHandle, kp->cloneName.data());
}

int Runtime::launchHip(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                       const void *stream,
                       const std::function<int(const void *, void **)> &launchWith) {
  if (!instrumentedChecks())
    return launchWith(func, args);
  std::unique_lock<std::mutex> lock(mu);
  registerExitHandler();
  writeHeaderOnce();
  LaunchState ls;
  ls.record.id = launches.size() + 1;
  ls.record.grid = {grid.x, grid.y, grid.z};
  ls.record.block = {block.x, block.y, block.z};
  ls.record.shared_bytes = shmem;
  ls.record.stream = reinterpret_cast<uint64_t>(stream);
  auto it = hipKernels.find(func);
  HipKernel *k = it == hipKernels.end() ? nullptr : it->second.get();
  if (k) {
    ls.record.mangled = k->mangled;
    ls.record.kernel = demangle(k->mangled);
  }
  int result = hipSuccess;
  bool instrumented = false;
  if (k && k->paramsKnown && !k->cloneFailed) {
    size_t n = k->pointerParams.size();
    std::vector<uint64_t> info((sizeof(kosan_launch_info) + n * sizeof(kosan_arg_bounds)) / 8,
                               0);
    auto *hdr = reinterpret_cast<kosan_launch_info *>(info.data());
    auto *bounds = reinterpret_cast<kosan_arg_bounds *>(hdr + 1);
    hdr->state = 0; // no device log on AMD GPUs yet
    hdr->launch_id = ls.record.id;
    hdr->flags = opts.halt_on_error ? uint32_t(KOSAN_LAUNCH_HALT_ON_ERROR) : 0u;
    hdr->dyn_smem_bytes = shmem;
    std::vector<void *> params(n + 1);
    for (size_t i = 0; i < n; ++i) {
      params[i] = args[i];
      bounds[i] = unboundedArg();
      if (oob() && oobCollector && k->pointerParams[i]) {
        uint64_t value;
        std::memcpy(&value, args[i], sizeof value);
        bounds[i] = oobCollector->boundsFor(value, ls);
      }
    }
    params.back() = info.data();
    lock.unlock();
    int r = launchWith(&k->cloneHandle, params.data());
    lock.lock();
    if (r == hipSuccess) {
      instrumented = true;
    } else {
      hip().hipGetLastError(); // the clone's failure is not the program's error
      k->cloneFailed = true;
      if (opts.verbosity >= 1)
        log("kosan: note: kernel '%s' runs uninstrumented: its code object has no "
            "instrumented clone (HIP error %d)\n", ls.record.kernel.c_str(), r);
    }
  }
  if (!instrumented) {
    ++plainLaunches;
    lock.unlock();
    result = launchWith(func, args);
    lock.lock();
  }
  ls.record.instrumented = instrumented;
  if (ls.record.kernel.empty())
    ls.record.kernel = "<unknown kernel>";
  if (trace)
    trace->write(ls.record);
  if (opts.verbosity >= 2)
    log("kosan: launch #%u %s grid (%u,%u,%u) block (%u,%u,%u)%s\n", ls.record.id,
        ls.record.kernel.c_str(), grid.x, grid.y, grid.z, block.x, block.y, block.z,
        instrumented ? "" : " [uninstrumented]");
  launches.push_back(std::move(ls));
  return result;
}

} // namespace kosan::rt

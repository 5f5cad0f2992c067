//===- runtime/host/core/hip_shims.cpp - The intercepted HIP functions ----===//
//
// Instrumented host code of HIP programs calls __kosan_<function> instead of
// each HIP function of kosan/intercepts.h (KOSAN_HIP_INTERCEPTS), with the
// same parameters. As for CUDA (shims.cpp), every replacement is generated
// from that list and hands its hook the real call, which goes to the
// program's HIP runtime (hip.h); the hooks share the core with CUDA
// programs: the allocation table, the quarantine, uninit=1's fill of fresh
// allocations, the launch path, the attributes mirrored on clones.
//
//===----------------------------------------------------------------------===//
#include "core/hip.h"
#include "core/runtime.h"

#include "kosan/intercepts.h"

// The core speaks CUDA's error codes; the ones it returns mean the same in
// HIP.
static_assert(int(cudaSuccess) == int(hipSuccess));
static_assert(int(cudaErrorInvalidValue) == int(hipErrorInvalidValue));
static_assert(int(cudaErrorMemoryAllocation) == int(hipErrorOutOfMemory));

namespace kosan::rt::hip_shims {
namespace {

// As shims.cpp: an allocation that runs out of memory while the quarantine
// holds some is tried again once the quarantine is emptied.
template <typename Real> hipError_t allocate(const Real &real) {
  hipError_t e = real();
  if (e == hipErrorOutOfMemory && runtime().releaseQuarantine()) {
    hip().hipGetLastError();
    e = real();
  }
  return e;
}

// A fresh allocation: in the table, and filled (uninit=1) on the stream
// that allocated it, or before the call returns.
hipError_t track(hipError_t e, void **p, uint64_t bytes, uint64_t pitch, uint64_t rowBytes,
                 BufferOrigin origin, hipStream_t stream = nullptr) {
  if (e == hipSuccess && p && *p && runtime().instrumentedChecks()) {
    runtime().addAllocation(*p, bytes, pitch, rowBytes, origin);
    runtime().poisonFresh(*p, bytes, reinterpret_cast<cudaStream_t>(stream),
                          origin != BufferOrigin::MallocAsync);
  }
  Runtime::pendingSite = Runtime::pendingName = nullptr;
  return e;
}

hipError_t freeing(void *p, bool async, const std::function<hipError_t()> &real) {
  return static_cast<hipError_t>(runtime().freeAllocation(
      p, async, [&](void *) { return static_cast<cudaError_t>(real()); }));
}

} // namespace

// The hooks, one per kind of kosan/intercepts.h; real() makes the call the
// program asked for.
template <typename Real> hipError_t Alloc(const Real &real, bool, void **p, size_t bytes) {
  return track(allocate(real), p, bytes, 0, 0, BufferOrigin::Malloc);
}
template <typename Real>
hipError_t AllocManaged(const Real &real, bool, void **p, size_t bytes, unsigned) {
  return track(allocate(real), p, bytes, 0, 0, BufferOrigin::MallocManaged);
}
template <typename Real>
hipError_t AllocAsync(const Real &real, bool, void **p, size_t bytes, hipStream_t s) {
  return track(allocate(real), p, bytes, 0, 0, BufferOrigin::MallocAsync, s);
}
template <typename Real>
hipError_t AllocAsync(const Real &real, bool, void **p, size_t bytes, hipMemPool_t,
                      hipStream_t s) {
  return track(allocate(real), p, bytes, 0, 0, BufferOrigin::MallocAsync, s);
}
template <typename Real>
hipError_t AllocPitch(const Real &real, bool, void **p, size_t *pitch, size_t width,
                      size_t height) {
  hipError_t e = allocate(real);
  if (e != hipSuccess || !pitch) {
    Runtime::pendingSite = Runtime::pendingName = nullptr;
    return e;
  }
  return track(e, p, uint64_t(*pitch) * height, *pitch, width, BufferOrigin::MallocPitch);
}

template <typename Real> hipError_t Free(const Real &real, bool, void *p) {
  return freeing(p, false, real);
}
template <typename Real> hipError_t Free(const Real &real, bool, void *p, hipStream_t) {
  return freeing(p, true, real);
}

template <typename Real>
hipError_t Launch(const Real &, bool, const void *f, dim3 g, dim3 b, void **args,
                  size_t shmem, hipStream_t s) {
  return static_cast<hipError_t>(
      runtime().launchHip(f, g, b, args, shmem, s, [&](const void *fn, void **a, size_t bytes) {
        return int(hip().hipLaunchKernel(fn, g, b, a, bytes, s));
      }));
}
template <typename Real>
hipError_t LaunchCooperative(const Real &, bool, const void *f, dim3 g, dim3 b, void **args,
                             unsigned shmem, hipStream_t s) {
  return static_cast<hipError_t>(
      runtime().launchHip(f, g, b, args, shmem, s, [&](const void *fn, void **a, size_t bytes) {
        return int(hip().hipLaunchCooperativeKernel(fn, g, b, a, bytes, s));
      }));
}
// A module's kernel (hipModuleLoad): recorded; kosan knows no clone of it.
template <typename Real>
hipError_t ModuleLaunch(const Real &real, bool, hipFunction_t f, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                        hipStream_t s, void **params, void **) {
  return static_cast<hipError_t>(runtime().launchHip(
      f, dim3(gx, gy, gz), dim3(bx, by, bz), params, shmem, s,
      [&](const void *, void **, size_t) { return int(real()); }));
}

template <typename Real> hipError_t DeviceSync(const Real &real, bool) {
  hipError_t e = real();
  runtime().drain(true);
  return e;
}
template <typename Real, typename... Args> hipError_t Sync(const Real &real, bool, Args...) {
  hipError_t e = real();
  runtime().drain(false);
  return e;
}
template <typename Real> hipError_t DeviceReset(const Real &real, bool) {
  runtime().drain(false);
  runtime().onDeviceReset();
  return real();
}

template <typename Real>
hipError_t SetAttribute(const Real &real, bool, const void *f, hipFuncAttribute attr,
                        int value) {
  hipError_t e = real();
  if (e == hipSuccess)
    runtime().mirrorAttribute(f, int(attr), value);
  return e;
}
template <typename Real>
hipError_t SetCacheConfig(const Real &real, bool, const void *f, hipFuncCache_t config) {
  hipError_t e = real();
  if (e == hipSuccess)
    runtime().mirrorCacheConfig(f, int(config));
  return e;
}

template <typename Real>
hipError_t RegisterFunction(const Real &real, bool, void **modules, const void *stub,
                            char *deviceFunction, const char *deviceName, unsigned threadLimit,
                            void *tid, void *bid, dim3 *blockDim, dim3 *gridDim, int *wSize) {
  real();
  runtime().registerHipKernel(
      modules, stub, deviceName ? deviceName : deviceFunction,
      [&](const void *handle, char *name) {
        hip().__hipRegisterFunction(modules, handle, name, name, threadLimit, tid, bid,
                                    blockDim, gridDim, wSize);
      });
  return hipSuccess;
}

template <typename Real>
hipError_t RegisterVar(const Real &real, bool, void **modules, void *var, char *hostVar,
                       char *deviceVar, int, size_t, int, int) {
  real();
  runtime().registerHipGlobal(modules, deviceVar ? deviceVar : hostVar, var);
  return hipSuccess;
}

} // namespace kosan::rt::hip_shims

#define KOSAN_SHIM_ARGS_(...) __VA_OPT__(, __VA_ARGS__)
#define KOSAN_SHIM(function, hook, params, args, perThread)                                  \
  extern "C" hipError_t __kosan_##function params {                                         \
    kosan::rt::runtime().useHip();                                                           \
    return kosan::rt::hip_shims::hook([&] { return kosan::rt::hip().function args; },        \
                                      bool(perThread) KOSAN_SHIM_ARGS_ args);                \
  }
KOSAN_HIP_INTERCEPTS(KOSAN_SHIM)
#undef KOSAN_SHIM
#undef KOSAN_SHIM_ARGS_

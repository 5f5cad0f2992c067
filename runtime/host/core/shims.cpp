//===- runtime/host/core/shims.cpp - The intercepted CUDA functions -------===//
//
// Instrumented host code calls __kosan_<function> instead of each CUDA
// function of kosan/intercepts.h, with the same parameters. Every
// replacement is generated from that list: it hands its hook below the real
// call (to the program's CUDA runtime) and its arguments; the hook decides
// what kosan does around the call.
//
//===----------------------------------------------------------------------===//
#include "core/runtime.h"

#include "kosan/intercepts.h"

namespace kosan::rt::shims {

// An allocation that runs out of memory while the quarantine holds some is
// tried again once the quarantine is emptied.
template <typename Real> cudaError_t allocate(const Real &real) {
  cudaError_t e = real();
  if (e == cudaErrorMemoryAllocation && runtime().releaseQuarantine()) {
    cudart().cudaGetLastError(); // the failed attempt's error is not the program's
    e = real();
  }
  return e;
}

namespace {

cudaError_t track(cudaError_t e, void **p, size_t bytes, BufferOrigin origin,
                  cudaStream_t stream = nullptr) {
  if (e == cudaSuccess && p && *p && runtime().instrumentedChecks()) {
    runtime().addAllocation(*p, bytes, 0, 0, origin);
    if (origin != BufferOrigin::MallocAsync) // may be inside a capture
      runtime().prepareDevice();
    runtime().poisonFresh(*p, bytes, stream, origin != BufferOrigin::MallocAsync);
  }
  Runtime::pendingSite = Runtime::pendingName = nullptr;
  return e;
}

// The stream a call names: its null stream is the thread's default stream
// in the per-thread variants.
cudaStream_t streamOf(cudaStream_t s, bool perThread) {
  return perThread && !s ? cudaStreamPerThread : s;
}

} // namespace

// The hooks, one per kind of kosan/intercepts.h; real() makes the call the
// program asked for.
template <typename Real> cudaError_t Alloc(const Real &real, bool, void **p, size_t bytes) {
  return track(allocate(real), p, bytes, BufferOrigin::Malloc);
}
template <typename Real>
cudaError_t AllocManaged(const Real &real, bool, void **p, size_t bytes, unsigned) {
  return track(allocate(real), p, bytes, BufferOrigin::MallocManaged);
}
template <typename Real>
cudaError_t AllocAsync(const Real &real, bool perThread, void **p, size_t bytes,
                       cudaStream_t s) {
  return track(allocate(real), p, bytes, BufferOrigin::MallocAsync, streamOf(s, perThread));
}
template <typename Real>
cudaError_t AllocAsync(const Real &real, bool perThread, void **p, size_t bytes,
                       cudaMemPool_t, cudaStream_t s) {
  return track(allocate(real), p, bytes, BufferOrigin::MallocAsync, streamOf(s, perThread));
}
template <typename Real>
cudaError_t AllocPitch(const Real &real, bool, void **p, size_t *pitch, size_t width,
                       size_t height) {
  cudaError_t e = allocate(real);
  if (e == cudaSuccess && p && *p && pitch && runtime().instrumentedChecks()) {
    runtime().addAllocation(*p, uint64_t(*pitch) * height, *pitch, width,
                            BufferOrigin::MallocPitch);
    runtime().prepareDevice();
    runtime().poisonFresh(*p, uint64_t(*pitch) * height, nullptr, true);
  }
  Runtime::pendingSite = Runtime::pendingName = nullptr;
  return e;
}

template <typename Real> cudaError_t Free(const Real &real, bool, void *p) {
  return runtime().freeAllocation(p, false, [&](void *) { return real(); });
}
template <typename Real> cudaError_t Free(const Real &real, bool, void *p, cudaStream_t) {
  return runtime().freeAllocation(p, true, [&](void *) { return real(); });
}

template <typename Real>
cudaError_t Launch(const Real &real, bool perThread, const void *f, dim3 g, dim3 b,
                   void **args, size_t shmem, cudaStream_t s) {
  return runtime().launch(f, g, b, args, shmem, s, perThread, false, nullptr, real);
}
template <typename Real>
cudaError_t LaunchCooperative(const Real &real, bool perThread, const void *f, dim3 g,
                              dim3 b, void **args, size_t shmem, cudaStream_t s) {
  return runtime().launch(f, g, b, args, shmem, s, perThread, true, nullptr, real);
}
template <typename Real>
cudaError_t LaunchEx(const Real &real, bool perThread, const cudaLaunchConfig_t *config,
                     const void *f, void **args) {
  if (!config)
    return real();
  return runtime().launch(f, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                          config->stream, perThread, false, config, real);
}

// Synchronisation points: where the program can observe a kernel's effects,
// kosan reports what the kernel did wrong.
template <typename Real> cudaError_t DeviceSync(const Real &real, bool) {
  cudaError_t e = real();
  runtime().drain(true);
  return e;
}
template <typename Real, typename... Args>
cudaError_t Sync(const Real &real, bool, Args...) {
  cudaError_t e = real();
  runtime().drain(false);
  return e;
}

template <typename Real>
cudaError_t SetAttribute(const Real &real, bool, const void *f, cudaFuncAttribute attr,
                         int value) {
  cudaError_t e = real();
  if (e == cudaSuccess)
    runtime().mirrorAttribute(f, int(attr), value);
  return e;
}
template <typename Real>
cudaError_t SetCacheConfig(const Real &real, bool, const void *f, cudaFuncCache config) {
  cudaError_t e = real();
  if (e == cudaSuccess)
    runtime().mirrorCacheConfig(f, int(config));
  return e;
}

template <typename Real> cudaError_t DeviceReset(const Real &real, bool) {
  runtime().drain(false);
  runtime().onDeviceReset();
  return real();
}

} // namespace kosan::rt::shims

// PyTorch's allocator, when kosan is it (kosan/kosan.h): the program's
// cudaMalloc and cudaFree, as if the tensor's code had called them.
extern "C" void *kosan_torch_malloc(ptrdiff_t size, int, void *stream) {
  using namespace kosan::rt;
  void *p = nullptr;
  size_t bytes = size > 0 ? size_t(size) : 0;
  cudaError_t e = shims::allocate([&] { return cudart().cudaMalloc(&p, bytes ? bytes : 1); });
  if (e != cudaSuccess) {
    cudart().cudaGetLastError(); // PyTorch reports the out-of-memory itself
    return nullptr;
  }
  // The fill is queued on the tensor's stream, as the caching allocator's
  // blocks' are.
  if (p && runtime().instrumentedChecks()) {
    runtime().addAllocation(p, bytes, 0, 0, BufferOrigin::Malloc);
    runtime().poisonFresh(p, bytes, static_cast<cudaStream_t>(stream), false);
  }
  Runtime::pendingSite = Runtime::pendingName = nullptr;
  return p;
}

extern "C" void kosan_torch_free(void *p, ptrdiff_t, int, void *) {
  using namespace kosan::rt;
  Runtime::pendingSite = "PyTorch (the tensor was released)";
  // Not synchronising: kernels still queued on the tensor's streams may use
  // it, and the quarantine keeps it allocated until they are done with it
  // (what leaves the quarantine goes through cudaFree, which waits).
  runtime().freeAllocation(p, /*async=*/true, [](void *q) { return cudart().cudaFree(q); });
}

#define KOSAN_SHIM_ARGS_(...) __VA_OPT__(, __VA_ARGS__)
#define KOSAN_SHIM(function, hook, params, args, perThread)                                  \
  extern "C" cudaError_t __kosan_##function params {                                        \
    return kosan::rt::shims::hook([&] { return kosan::rt::cudart().function args; },         \
                                  bool(perThread) KOSAN_SHIM_ARGS_ args);                    \
  }
KOSAN_CUDA_INTERCEPTS(KOSAN_SHIM)
#undef KOSAN_SHIM
#undef KOSAN_SHIM_ARGS_

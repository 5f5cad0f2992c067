//===- kosan/intercepts.h - The CUDA functions kosan intercepts ------------===//
//
// The one list of the CUDA runtime functions whose calls the pass redirects
// in instrumented host code (to "__kosan_" + the function's name), with
// their parameters and what the host runtime does around them. From it
// derive the pass's redirections (KOSAN_HOST_INTERCEPTS in abi.h) and the
// runtime's replacements (runtime/host/core/shims.cpp), so adding an entry
// point is one line here plus, for a new hook, one function in the shims.
//
//   KOSAN_CUDA_INTERCEPTS(X): X(function, hook, (parameters), (arguments), per-thread)
//   KOSAN_CUDA_INTERCEPTS_WITH(M, X): M(X, function, ...), for lists that
//   hand X on (abi.h's KOSAN_HOST_INTERCEPTS)
//
// hook: what the runtime does around the real call (shims.cpp):
//   Alloc, AllocAsync, AllocManaged, AllocPitch
//                      records the buffer in the allocation table
//   Free               sends it to the quarantine, reports double frees
//   Launch, LaunchCooperative, LaunchEx
//                      launches the instrumented clone with bounds
//   Sync, DeviceSync   collects what kernels recorded (a synchronisation
//                      point; DeviceSync: the whole device is idle after it)
//   SetAttribute, SetCacheConfig
//                      mirrors the setting on the instrumented clone
//   DeviceReset        forgets the device state
// per-thread: 1 for the variants of --default-stream per-thread (_ptsz,
// _ptds), whose null stream is the thread's default stream.
//
// Only macros: the pass sees the names, the runtime the signatures.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_INTERCEPTS_H
#define KOSAN_INTERCEPTS_H

#define KOSAN_CUDA_INTERCEPTS_WITH(M, X)                                                    \
  M(X, cudaMalloc, Alloc,                                                                   \
    (void **p, size_t bytes), (p, bytes), 0)                                                \
  M(X, cudaMallocAsync, AllocAsync,                                                         \
    (void **p, size_t bytes, cudaStream_t s), (p, bytes, s), 0)                             \
  M(X, cudaMallocAsync_ptsz, AllocAsync,                                                    \
    (void **p, size_t bytes, cudaStream_t s), (p, bytes, s), 1)                             \
  M(X, cudaMallocFromPoolAsync, AllocAsync,                                                 \
    (void **p, size_t bytes, cudaMemPool_t pool, cudaStream_t s), (p, bytes, pool, s), 0)   \
  M(X, cudaMallocFromPoolAsync_ptsz, AllocAsync,                                            \
    (void **p, size_t bytes, cudaMemPool_t pool, cudaStream_t s), (p, bytes, pool, s), 1)   \
  M(X, cudaMallocManaged, AllocManaged,                                                     \
    (void **p, size_t bytes, unsigned flags), (p, bytes, flags), 0)                         \
  M(X, cudaMallocPitch, AllocPitch,                                                         \
    (void **p, size_t *pitch, size_t width, size_t height), (p, pitch, width, height), 0)   \
  M(X, cudaFree, Free,                                                                      \
    (void *p), (p), 0)                                                                      \
  M(X, cudaFreeAsync, Free,                                                                 \
    (void *p, cudaStream_t s), (p, s), 0)                                                   \
  M(X, cudaFreeAsync_ptsz, Free,                                                            \
    (void *p, cudaStream_t s), (p, s), 1)                                                   \
  M(X, cudaLaunchKernel, Launch,                                                            \
    (const void *f, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s),             \
    (f, g, b, args, shmem, s), 0)                                                           \
  M(X, cudaLaunchKernel_ptsz, Launch,                                                       \
    (const void *f, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s),             \
    (f, g, b, args, shmem, s), 1)                                                           \
  M(X, cudaLaunchCooperativeKernel, LaunchCooperative,                                      \
    (const void *f, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s),             \
    (f, g, b, args, shmem, s), 0)                                                           \
  M(X, cudaLaunchKernelExC, LaunchEx,                                                       \
    (const cudaLaunchConfig_t *config, const void *f, void **args), (config, f, args), 0)   \
  M(X, cudaLaunchKernelExC_ptsz, LaunchEx,                                                  \
    (const cudaLaunchConfig_t *config, const void *f, void **args), (config, f, args), 1)   \
  M(X, cudaLaunchCooperativeKernel_ptsz, LaunchCooperative,                                 \
    (const void *f, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s),             \
    (f, g, b, args, shmem, s), 1)                                                           \
  M(X, cudaDeviceSynchronize, DeviceSync,                                                   \
    (), (), 0)                                                                              \
  M(X, cudaStreamSynchronize, Sync,                                                         \
    (cudaStream_t s), (s), 0)                                                               \
  M(X, cudaStreamSynchronize_ptsz, Sync,                                                    \
    (cudaStream_t s), (s), 1)                                                               \
  M(X, cudaEventSynchronize, Sync,                                                          \
    (cudaEvent_t ev), (ev), 0)                                                              \
  M(X, cudaMemcpy, Sync,                                                                    \
    (void *dst, const void *src, size_t n, cudaMemcpyKind k), (dst, src, n, k), 0)          \
  M(X, cudaMemcpy_ptds, Sync,                                                               \
    (void *dst, const void *src, size_t n, cudaMemcpyKind k), (dst, src, n, k), 1)          \
  M(X, cudaDeviceReset, DeviceReset,                                                        \
    (), (), 0)                                                                              \
  M(X, cudaFuncSetAttribute, SetAttribute,                                                  \
    (const void *f, cudaFuncAttribute attr, int value), (f, attr, value), 0)                \
  M(X, cudaFuncSetCacheConfig, SetCacheConfig,                                              \
    (const void *f, cudaFuncCache config), (f, config), 0)

// The list as X(function, hook, (parameters), (arguments), per-thread).
#define KOSAN_INTERCEPT_APPLY_(X, ...) X(__VA_ARGS__)
#define KOSAN_CUDA_INTERCEPTS(X) KOSAN_CUDA_INTERCEPTS_WITH(KOSAN_INTERCEPT_APPLY_, X)

// What the replacement of a function of the list is called: the prefix and
// the function's name.
#define KOSAN_INTERCEPT_PREFIX "__kosan_"

#endif // KOSAN_INTERCEPTS_H

//===- kosan/intercepts.h - The CUDA and HIP functions kosan intercepts ----===//
//
// The one list of the CUDA (and, below, HIP) runtime functions whose calls the pass redirects
// in instrumented host code (to "__kosan_" + the function's name), with
// their parameters and what the host runtime does around them. From it
// derive the pass's redirections (KOSAN_HOST_INTERCEPTS in abi.h) and the
// runtime's replacements (runtime/host/core/shims.cpp), so adding an entry
// point is one line here plus, for a new hook, one function in the shims
// (runtime/host/core/hip_shims.cpp for the HIP list).
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

// The HIP runtime functions kosan intercepts: the same hooks around the HIP
// counterparts of the CUDA functions above, where HIP has them (HIP has no
// per-thread variants or cudaLaunchKernelExC), plus what only HIP programs
// call:
//   ModuleLaunch       hipModuleLaunchKernel: a launch of a module's kernel
//   RegisterFunction   __hipRegisterFunction: names the kernel of a host stub
//                      (the CUDA side asks cudaGetFuncBySymbol instead)
//   RegisterVar        __hipRegisterVar: a device global's host shadow; for
//                      kosan's own (the site table, the precision base, which
//                      the host pass registers) the runtime keeps it, to find
//                      the global in its code object (the CUDA side asks
//                      cuModuleGetGlobal instead)
// Triple-chevron launches need no entry of their own: clang's HIP host stubs
// call hipLaunchKernel (after __hipPopCallConfiguration).
// The parameters are spelled with HIP's types (runtime/host/core/hip.h).
#define KOSAN_HIP_INTERCEPTS_WITH(M, X)                                                     \
  M(X, hipMalloc, Alloc,                                                                    \
    (void **p, size_t bytes), (p, bytes), 0)                                                \
  M(X, hipMallocAsync, AllocAsync,                                                          \
    (void **p, size_t bytes, hipStream_t s), (p, bytes, s), 0)                              \
  M(X, hipMallocFromPoolAsync, AllocAsync,                                                  \
    (void **p, size_t bytes, hipMemPool_t pool, hipStream_t s), (p, bytes, pool, s), 0)     \
  M(X, hipMallocManaged, AllocManaged,                                                      \
    (void **p, size_t bytes, unsigned flags), (p, bytes, flags), 0)                         \
  M(X, hipMallocPitch, AllocPitch,                                                          \
    (void **p, size_t *pitch, size_t width, size_t height), (p, pitch, width, height), 0)   \
  M(X, hipFree, Free,                                                                       \
    (void *p), (p), 0)                                                                      \
  M(X, hipFreeAsync, Free,                                                                  \
    (void *p, hipStream_t s), (p, s), 0)                                                    \
  M(X, hipLaunchKernel, Launch,                                                             \
    (const void *f, dim3 g, dim3 b, void **args, size_t shmem, hipStream_t s),              \
    (f, g, b, args, shmem, s), 0)                                                           \
  M(X, hipLaunchCooperativeKernel, LaunchCooperative,                                       \
    (const void *f, dim3 g, dim3 b, void **args, unsigned shmem, hipStream_t s),            \
    (f, g, b, args, shmem, s), 0)                                                           \
  M(X, hipModuleLaunchKernel, ModuleLaunch,                                                 \
    (hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,      \
     unsigned bz, unsigned shmem, hipStream_t s, void **params, void **extra),              \
    (f, gx, gy, gz, bx, by, bz, shmem, s, params, extra), 0)                                \
  M(X, hipDeviceSynchronize, DeviceSync,                                                    \
    (), (), 0)                                                                              \
  M(X, hipStreamSynchronize, Sync,                                                          \
    (hipStream_t s), (s), 0)                                                                \
  M(X, hipEventSynchronize, Sync,                                                           \
    (hipEvent_t ev), (ev), 0)                                                               \
  M(X, hipMemcpy, Sync,                                                                     \
    (void *dst, const void *src, size_t n, hipMemcpyKind k), (dst, src, n, k), 0)           \
  M(X, hipDeviceReset, DeviceReset,                                                         \
    (), (), 0)                                                                              \
  M(X, hipFuncSetAttribute, SetAttribute,                                                   \
    (const void *f, hipFuncAttribute attr, int value), (f, attr, value), 0)                 \
  M(X, hipFuncSetCacheConfig, SetCacheConfig,                                               \
    (const void *f, hipFuncCache_t config), (f, config), 0)                                 \
  M(X, __hipRegisterFunction, RegisterFunction,                                             \
    (void **modules, const void *stub, char *deviceFunction, const char *deviceName,        \
     unsigned threadLimit, void *tid, void *bid, dim3 *blockDim, dim3 *gridDim, int *wSize),\
    (modules, stub, deviceFunction, deviceName, threadLimit, tid, bid, blockDim, gridDim,   \
     wSize), 0)                                                                             \
  M(X, __hipRegisterVar, RegisterVar,                                                       \
    (void **modules, void *var, char *hostVar, char *deviceVar, int ext, size_t size,       \
     int constant, int global),                                                             \
    (modules, var, hostVar, deviceVar, ext, size, constant, global), 0)

// The lists as X(function, hook, (parameters), (arguments), per-thread).
#define KOSAN_INTERCEPT_APPLY_(X, ...) X(__VA_ARGS__)
#define KOSAN_CUDA_INTERCEPTS(X) KOSAN_CUDA_INTERCEPTS_WITH(KOSAN_INTERCEPT_APPLY_, X)
#define KOSAN_HIP_INTERCEPTS(X) KOSAN_HIP_INTERCEPTS_WITH(KOSAN_INTERCEPT_APPLY_, X)

// What the replacement of a function of the list is called: the prefix and
// the function's name.
#define KOSAN_INTERCEPT_PREFIX "__kosan_"

#endif // KOSAN_INTERCEPTS_H

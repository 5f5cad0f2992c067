//===- runtime/host/core/hip_functions.h - The HIP functions kosan calls --===//
//
// The HIP runtime's functions the runtime calls (hip.h loads them), with
// their types, spelled with HIP's type names so that the list compiles both
// with kosan's declarations (hip.h) and with HIP's own headers
// (test/unit/hip/hip_abi_test.cpp checks every signature against them).
//   X(function, return type, (parameters))
// Those of the intercept table (kosan/intercepts.h) come first.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_HIP_FUNCTIONS_H
#define KOSAN_RUNTIME_HOST_CORE_HIP_FUNCTIONS_H

// Declared by HIP's headers.
#define KOSAN_HIP_DECLARED_FUNCTIONS(X)                                                     \
  X(hipMalloc, hipError_t, (void **, size_t))                                              \
  X(hipMallocAsync, hipError_t, (void **, size_t, hipStream_t))                            \
  X(hipMallocFromPoolAsync, hipError_t, (void **, size_t, hipMemPool_t, hipStream_t))      \
  X(hipMallocManaged, hipError_t, (void **, size_t, unsigned))                             \
  X(hipMallocPitch, hipError_t, (void **, size_t *, size_t, size_t))                       \
  X(hipFree, hipError_t, (void *))                                                         \
  X(hipFreeAsync, hipError_t, (void *, hipStream_t))                                       \
  X(hipLaunchKernel, hipError_t, (const void *, dim3, dim3, void **, size_t, hipStream_t)) \
  X(hipLaunchCooperativeKernel, hipError_t,                                                \
    (const void *, dim3, dim3, void **, unsigned, hipStream_t))                            \
  X(hipModuleLaunchKernel, hipError_t,                                                     \
    (hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,  \
     hipStream_t, void **, void **))                                                       \
  X(hipDeviceSynchronize, hipError_t, ())                                                  \
  X(hipStreamSynchronize, hipError_t, (hipStream_t))                                       \
  X(hipEventSynchronize, hipError_t, (hipEvent_t))                                         \
  X(hipMemcpy, hipError_t, (void *, const void *, size_t, hipMemcpyKind))                  \
  X(hipDeviceReset, hipError_t, ())                                                        \
  X(hipFuncSetAttribute, hipError_t, (const void *, hipFuncAttribute, int))                \
  X(hipFuncSetCacheConfig, hipError_t, (const void *, hipFuncCache_t))                     \
  X(hipGetLastError, hipError_t, ())                                                       \
  X(hipMemGetAddressRange, hipError_t, (hipDeviceptr_t *, size_t *, hipDeviceptr_t))       \
  X(hipDriverGetVersion, hipError_t, (int *))                                              \
  X(hipRuntimeGetVersion, hipError_t, (int *))                                             \
  X(hipGetDevice, hipError_t, (int *))                                                     \
  X(hipGetErrorString, const char *, (hipError_t))                                         \
  X(hipMemset, hipError_t, (void *, int, size_t))                                          \
  X(hipMemsetAsync, hipError_t, (void *, int, size_t, hipStream_t))                        \
  X(hipMemsetD32Async, hipError_t, (hipDeviceptr_t, int, size_t, hipStream_t))              \
  X(hipMemcpyAsync, hipError_t, (void *, const void *, size_t, hipMemcpyKind, hipStream_t)) \
  X(hipMemcpy2D, hipError_t,                                                               \
    (void *, size_t, const void *, size_t, size_t, size_t, hipMemcpyKind))                 \
  X(hipHostMalloc, hipError_t, (void **, size_t, unsigned))                                \
  X(hipHostGetDevicePointer, hipError_t, (void **, void *, unsigned))                     \
  X(hipStreamIsCapturing, hipError_t, (hipStream_t, hipStreamCaptureStatus *))            \
  X(hipGetSymbolAddress, hipError_t, (void **, const void *))                              \
  X(hipGetSymbolSize, hipError_t, (size_t *, const void *))

// Called by the code clang generates for HIP programs and declared by no
// HIP header (clang declares __hipRegisterFunction returning int;
// libamdhip64 returns nothing).
#define KOSAN_HIP_COMPILER_FUNCTIONS(X)                                                     \
  X(__hipRegisterFunction, void,                                                           \
    (void **, const void *, char *, const char *, unsigned, void *, void *, dim3 *, dim3 *, \
     int *))                                                                               \
  X(__hipRegisterVar, void, (void **, void *, char *, char *, int, size_t, int, int))

#define KOSAN_HIP_FUNCTIONS(X) KOSAN_HIP_DECLARED_FUNCTIONS(X) KOSAN_HIP_COMPILER_FUNCTIONS(X)

#endif // KOSAN_RUNTIME_HOST_CORE_HIP_FUNCTIONS_H

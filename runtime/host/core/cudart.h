//===- runtime/host/cudart.h - The CUDA runtime the program links ----------===//
//
// libkosan_rt.so is loaded at run time by the loader that every instrumented
// object carries (loader.cpp), so it cannot link a CUDA runtime of its own: a
// kernel's host stub, the last error and the current device belong to the
// CUDA runtime instance the *program* links (static cudart in a program,
// libcudart.so in a PyTorch extension). The loader hands the runtime a table
// of that instance's entry points; the runtime calls CUDA only through it.
//
// This list is the one place that names them: the table's fields, the
// loader's initializer and the runtime's calls all derive from it.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CUDART_H
#define KOSAN_RUNTIME_HOST_CUDART_H

#include <cuda_runtime_api.h>

#include <cstdint>

// The per-thread-default-stream variants, which cuda_runtime_api.h declares
// only for programs compiled with --default-stream per-thread.
extern "C" {
cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t,
                                            cudaStream_t);
cudaError_t CUDARTAPI cudaLaunchCooperativeKernel_ptsz(const void *, dim3, dim3, void **,
                                                       size_t, cudaStream_t);
cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void **, size_t, cudaStream_t);
cudaError_t CUDARTAPI cudaMallocFromPoolAsync_ptsz(void **, size_t, cudaMemPool_t,
                                                   cudaStream_t);
cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void *, cudaStream_t);
cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t);
cudaError_t CUDARTAPI cudaMemcpy_ptds(void *, const void *, size_t, cudaMemcpyKind);
cudaError_t CUDARTAPI cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *, const void *,
                                               void **);
}

#define KOSAN_CUDART_FUNCTIONS(X)                                             \
  X(cudaDeviceReset) X(cudaDeviceSynchronize) X(cudaDriverGetVersion)         \
  X(cudaEventSynchronize) X(cudaFree) X(cudaFreeAsync) X(cudaFreeAsync_ptsz)  \
  X(cudaFuncSetAttribute) X(cudaFuncSetCacheConfig) X(cudaGetDevice)          \
  X(cudaGetDeviceProperties) X(cudaGetDriverEntryPointByVersion)              \
  X(cudaGetErrorString) X(cudaGetFuncBySymbol) X(cudaGetLastError)            \
  X(cudaHostAlloc) X(cudaHostGetDevicePointer) X(cudaLaunchCooperativeKernel) \
  X(cudaLaunchCooperativeKernel_ptsz) X(cudaLaunchKernel)                     \
  X(cudaLaunchKernelExC) X(cudaLaunchKernelExC_ptsz) X(cudaLaunchKernel_ptsz) \
  X(cudaMalloc) X(cudaMallocAsync) X(cudaMallocAsync_ptsz)                    \
  X(cudaMallocFromPoolAsync) X(cudaMallocFromPoolAsync_ptsz)                  \
  X(cudaMallocManaged) X(cudaMallocPitch) X(cudaMemcpy) X(cudaMemcpy2D)        \
  X(cudaMemcpyAsync)                                                          \
  X(cudaMemcpy_ptds) X(cudaMemset) X(cudaMemsetAsync) X(cudaRuntimeGetVersion) \
  X(cudaStreamIsCapturing) X(cudaStreamSynchronize)                           \
  X(cudaStreamSynchronize_ptsz)

namespace kosan::rt {

struct CudartApi {
  uint32_t size; // sizeof(CudartApi) as the loader was compiled
  uint32_t cudart_version; // CUDART_VERSION of the headers the loader saw
#define KOSAN_CUDART_FIELD(name) decltype(&::name) name;
  KOSAN_CUDART_FUNCTIONS(KOSAN_CUDART_FIELD)
#undef KOSAN_CUDART_FIELD
};

} // namespace kosan::rt

// Hands the runtime the program's CUDA runtime; the first call wins. Returns
// 0, or -1 when the table is of another layout (then kosan stays off).
#define KOSAN_RT_ATTACH_SYMBOL "__kosan_rt_attach"
extern "C" int __kosan_rt_attach(const kosan::rt::CudartApi *api);

#endif // KOSAN_RUNTIME_HOST_CUDART_H

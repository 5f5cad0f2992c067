/*===- kosan_hip_nvidia.h - HIP programs built as CUDA for NVIDIA GPUs -----===
 *
 * Compiles HIP sources as CUDA with kosan-clang++, so that a HIP program runs
 * checked on an NVIDIA GPU:
 *
 *     kosan-clang++ -x cuda -include kosan_hip_nvidia.h prog.hip -o prog
 *
 * (kosan-hipcc runs this command for HIP_PLATFORM=nvidia.) It is kosan's own
 * mapping of the HIP runtime API to the CUDA runtime API, not HIP's NVIDIA
 * platform headers (hip/nvidia_detail): those of Debian's HIP (5.2) are
 * written against CUDA 11 and do not compile against CUDA 12/13 (changed
 * signatures of cudaMemAdvise and cudaMemPrefetchAsync, cudaDeviceProp
 * fields and texture references removed, cuCtxCreate_v4). A prelude cannot
 * put struct fields back, and replacing those declarations would change
 * what the program calls, so the mapping is kosan's.
 *
 * Every HIP function maps to the CUDA function of the same meaning by name
 * (hipMalloc is cudaMalloc, with its typed overload), so the calls kosan
 * intercepts are the CUDA calls it already knows, and allocation sites name
 * the program's own lines and variables. hipError_t is cudaError_t: the
 * error codes are CUDA's (hipSuccess is 0 on both platforms).
 *
 * Covered: hip/hip_runtime.h and hip/hip_runtime_api.h (both resolve to this
 * header: their include guards are defined here, so Debian's AMD headers
 * never come in), errors, devices, memory (device, managed, pitched,
 * stream-ordered, pinned host), copies and sets, streams, events, launches
 * (hipLaunchKernelGGL, triple chevrons, hipLaunchKernel), thread and block
 * indices (hipThreadIdx_x ... and threadIdx), HIP_DYNAMIC_SHARED,
 * shuffles without a mask (__shfl, __shfl_up, __shfl_down, __shfl_xor: all
 * lanes of the warp), and the atomics and math both APIs share. Not
 * covered: the module API (hipModuleLoad, hipModuleLaunchKernel), textures,
 * HIP's other headers (hip_fp16.h, hip_cooperative_groups.h: include
 * CUDA's), and the AMD-only device properties (gcnArchName).
 *
 *===------------------------------------------------------------------------===*/
#ifndef KOSAN_HIP_NVIDIA_H
#define KOSAN_HIP_NVIDIA_H

#if !defined(__CUDA__)
#error "kosan_hip_nvidia.h compiles HIP as CUDA: use it with -x cuda (kosan-clang++ -x cuda -include kosan_hip_nvidia.h)"
#endif

/* The HIP headers a program includes resolve to this one. */
#define HIP_INCLUDE_HIP_HIP_RUNTIME_H
#define HIP_INCLUDE_HIP_HIP_RUNTIME_API_H
#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
#ifndef __HIP_PLATFORM_NVCC__
#define __HIP_PLATFORM_NVCC__ 1
#endif
#define KOSAN_HIP_NVIDIA 1

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Types. */
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaMemPool_t hipMemPool_t;
typedef cudaFuncAttribute hipFuncAttribute;
typedef cudaFuncCache hipFuncCache_t;
typedef cudaPointerAttributes hipPointerAttribute_t;

/* Errors: CUDA's codes under HIP's names. */
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipErrorMemoryAllocation cudaErrorMemoryAllocation
#define hipErrorNotInitialized cudaErrorInitializationError
#define hipErrorInvalidDevice cudaErrorInvalidDevice
#define hipErrorInvalidDevicePointer cudaErrorInvalidDevicePointer
#define hipErrorInvalidMemcpyDirection cudaErrorInvalidMemcpyDirection
#define hipErrorInvalidConfiguration cudaErrorInvalidConfiguration
#define hipErrorLaunchFailure cudaErrorLaunchFailure
#define hipErrorNotReady cudaErrorNotReady
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorIllegalAddress cudaErrorIllegalAddress
#define hipErrorInvalidResourceHandle cudaErrorInvalidResourceHandle
#define hipErrorNotSupported cudaErrorNotSupported
#define hipErrorUnknown cudaErrorUnknown
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName

/* Devices. */
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipDeviceReset cudaDeviceReset
#define hipDriverGetVersion cudaDriverGetVersion
#define hipRuntimeGetVersion cudaRuntimeGetVersion
#define hipFuncSetAttribute cudaFuncSetAttribute
#define hipFuncSetCacheConfig cudaFuncSetCacheConfig
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize

/* Memory. */
#define hipMalloc cudaMalloc
#define hipMallocManaged cudaMallocManaged
#define hipMallocPitch cudaMallocPitch
#define hipMallocAsync cudaMallocAsync
#define hipMallocFromPoolAsync cudaMallocFromPoolAsync
#define hipFree cudaFree
#define hipFreeAsync cudaFreeAsync
#define hipHostMalloc cudaHostAlloc
#define hipHostFree cudaFreeHost
#define hipMallocHost cudaMallocHost
#define hipFreeHost cudaFreeHost
#define hipHostGetDevicePointer cudaHostGetDevicePointer
#define hipMemGetInfo cudaMemGetInfo
#define hipPointerGetAttributes cudaPointerGetAttributes
#define hipMemAttachGlobal cudaMemAttachGlobal
#define hipMemAttachHost cudaMemAttachHost
#define hipHostMallocDefault cudaHostAllocDefault
#define hipHostMallocPortable cudaHostAllocPortable
#define hipHostMallocMapped cudaHostAllocMapped
#define hipHostMallocWriteCombined cudaHostAllocWriteCombined

/* Copies and sets. */
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemcpy2D cudaMemcpy2D
#define hipMemcpy2DAsync cudaMemcpy2DAsync
#define hipMemcpyPeer cudaMemcpyPeer
#define hipMemcpyToSymbol cudaMemcpyToSymbol
#define hipMemcpyFromSymbol cudaMemcpyFromSymbol
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemset2D cudaMemset2D
#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault

/* Streams and events. */
#define hipStreamCreate cudaStreamCreate
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamWaitEvent cudaStreamWaitEvent
#define hipStreamQuery cudaStreamQuery
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipStreamDefault cudaStreamDefault
#define hipStreamPerThread cudaStreamPerThread
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipEventQuery cudaEventQuery

/* Launches. hipLaunchKernelGGL is a triple-chevron launch; hipLaunchKernel
 * takes the kernel as any pointer, as HIP does. */
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  (kernel)<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define hipLaunchKernel(f, grid, block, args, shmem, stream) \
  cudaLaunchKernel((const void *)(f), (grid), (block), (args), (shmem), (stream))
#define hipLaunchCooperativeKernel(f, grid, block, args, shmem, stream) \
  cudaLaunchCooperativeKernel((const void *)(f), (grid), (block), (args), (shmem), (stream))

/* Device code: indices, dynamic shared memory, shuffles. */
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

/* HIP's shuffles have no mask: the whole warp takes part. On NVIDIA GPUs of
 * sm_70 and newer only the .sync forms exist (clang's maskless ones emit
 * shfl without .sync, which ptxas refuses there). */
#undef __shfl
#undef __shfl_up
#undef __shfl_down
#undef __shfl_xor
#define __shfl(...) __shfl_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(0xffffffffu, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(0xffffffffu, __VA_ARGS__)

#endif /* KOSAN_HIP_NVIDIA_H */

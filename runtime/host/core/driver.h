//===- runtime/host/core/driver.h - The CUDA runtime and driver kosan calls ===//
//
// The runtime calls CUDA only through the program's CUDA runtime, which the
// loader hands over (cudart.h), and the driver API entry points fetched
// through it, so that programs need not link libcuda themselves.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_DRIVER_H
#define KOSAN_RUNTIME_HOST_CORE_DRIVER_H

#include "core/cudart.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>
#include <type_traits>

namespace kosan::rt {

// The program's CUDA runtime; aborts when no instrumented object attached it.
const CudartApi &cudart();

// Driver API entry points, fetched through the runtime so that programs need
// not link libcuda themselves.
struct DriverApi {
  CUresult (*funcGetModule)(CUmodule *, CUfunction) = nullptr;
  CUresult (*funcGetName)(const char **, CUfunction) = nullptr;
  CUresult (*funcGetParamInfo)(CUfunction, size_t, size_t *, size_t *) = nullptr;
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*moduleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *) = nullptr;
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*memGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr) = nullptr;
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream) = nullptr;
  CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*funcSetCacheConfig)(CUfunction, CUfunc_cache) = nullptr;
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **) = nullptr;
  CUresult (*launchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      CUstream, void **) = nullptr;
  CUresult (*launchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **) = nullptr;
  // Optional (CUDA 12.4): finds the units of relocatable device code.
  CUresult (*moduleGetFunctionCount)(unsigned *, CUmodule) = nullptr;
  CUresult (*moduleEnumerateFunctions)(CUfunction *, unsigned, CUmodule) = nullptr;
  // Optional: snapshots' own stream for copies into pinned memory (without
  // them, snapshots are copied with cudaMemcpy into pageable memory).
  CUresult (*streamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*streamSynchronize)(CUstream) = nullptr;
  CUresult (*memcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*memcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*memcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream) = nullptr;
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *,
                               void **) = nullptr;
  CUresult (*threadExchangeStreamCaptureMode)(CUstreamCaptureMode *) = nullptr;
  CUresult (*streamDestroy)(CUstream) = nullptr;
  CUresult (*getErrorName)(CUresult, const char **) = nullptr;
  CUresult (*memFreeHost)(void *) = nullptr;
  // Optional: with them, snapshot copies are queued back to back, one event
  // per staging buffer (without them, each copy is waited for before the
  // next is queued).
  CUresult (*eventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*eventSynchronize)(CUevent) = nullptr;
  CUresult (*eventDestroy)(CUevent) = nullptr;
  // Optional: checks=race sizes its shadow by the clone's static shared memory.
  CUresult (*funcGetAttribute)(int *, CUfunction_attribute, CUfunction) = nullptr;
  // Optional: poison=1 fills 2- and 8-byte elements on the GPU (without
  // them, through a host copy).
  CUresult (*memsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream) = nullptr;
  CUresult (*memsetD2D32Async)(CUdeviceptr, size_t, unsigned, size_t, size_t, CUstream) = nullptr;
  bool ok = false;
  std::string missing;

  void load() {
    auto get = [&](const char *name, auto &fn) {
      void *p = nullptr;
      cudaDriverEntryPointQueryResult status;
      if (cudart().cudaGetDriverEntryPointByVersion(name, &p, 12040, cudaEnableDefault,
                                           &status) != cudaSuccess ||
          status != cudaDriverEntryPointSuccess || !p) {
        if (missing.empty())
          missing = name;
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get("cuFuncGetModule", funcGetModule);
    get("cuFuncGetName", funcGetName);
    get("cuFuncGetParamInfo", funcGetParamInfo);
    get("cuModuleGetFunction", moduleGetFunction);
    get("cuModuleGetGlobal", moduleGetGlobal);
    get("cuMemcpyDtoH", memcpyDtoH);
    get("cuMemcpyHtoD", memcpyHtoD);
    get("cuMemGetAddressRange", memGetAddressRange);
    get("cuMemsetD32Async", memsetD32Async);
    get("cuFuncSetAttribute", funcSetAttribute);
    get("cuFuncSetCacheConfig", funcSetCacheConfig);
    get("cuLaunchKernel", launchKernel);
    get("cuLaunchCooperativeKernel", launchCooperativeKernel);
    get("cuLaunchKernelEx", launchKernelEx);
    ok = missing.empty();
    get("cuModuleGetFunctionCount", moduleGetFunctionCount);
    get("cuModuleEnumerateFunctions", moduleEnumerateFunctions);
    get("cuStreamCreate", streamCreate);
    get("cuStreamSynchronize", streamSynchronize);
    get("cuMemcpyDtoHAsync", memcpyDtoHAsync);
    get("cuMemcpyDtoDAsync", memcpyDtoDAsync);
    get("cuMemcpyHtoDAsync", memcpyHtoDAsync);
    get("cuModuleLoadDataEx", moduleLoadDataEx);
    get("cuThreadExchangeStreamCaptureMode", threadExchangeStreamCaptureMode);
    get("cuStreamDestroy", streamDestroy);
    get("cuGetErrorName", getErrorName);
    get("cuMemFreeHost", memFreeHost);
    get("cuEventCreate", eventCreate);
    get("cuEventRecord", eventRecord);
    get("cuEventSynchronize", eventSynchronize);
    get("cuEventDestroy", eventDestroy);
    get("cuFuncGetAttribute", funcGetAttribute);
    get("cuMemsetD16Async", memsetD16Async);
    get("cuMemsetD2D32Async", memsetD2D32Async);
  }
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_DRIVER_H

//===- runtime/host/core/hip.h - The HIP runtime kosan calls ---------------===//
//
// HIP programs on AMD GPUs link libamdhip64.so, always as a shared library,
// so the runtime finds the program's HIP runtime with dlopen (the library
// the process has loaded, else libamdhip64.so on the library path, or
// KOSAN_HIP_LIBRARY) and calls it only through this table.
//
// kosan builds without HIP's headers: the few types and codes of HIP's ABI
// it needs are declared here. They match HIP 5.2 and later, whose ABI keeps
// them (hipSuccess 0, hipErrorInvalidValue 1, hipErrorOutOfMemory 2;
// hipMemcpyHostToDevice 1, hipMemcpyDeviceToHost 2; hipHostMallocMapped 2;
// hipStreamCaptureStatusNone 0; hipFuncAttributeMaxDynamicSharedMemorySize
// 8, CUDA's number for it;
// dim3 three unsigned ints, as CUDA's; streams, events, pools and functions
// opaque pointers); test/unit/hip/hip_abi_test.cpp compares them, and the
// signatures of hip_functions.h, with HIP's headers where those are
// installed.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_HIP_H
#define KOSAN_RUNTIME_HOST_CORE_HIP_H

#include <vector_types.h> // dim3: HIP's has the same layout

#include <cstddef>
#include <string>

extern "C" {
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipMemPoolHandle_t *hipMemPool_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef void *hipDeviceptr_t;
typedef int hipMemcpyKind; // an enum of int's size
enum hipError_t : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
};
enum : int { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
enum hipStreamCaptureStatus : int { hipStreamCaptureStatusNone = 0 };
enum : unsigned { hipHostMallocMapped = 0x2 };
// The attributes and cache configurations a program sets on its kernels
// are passed on as the program gave them (numbered as CUDA's).
enum hipFuncAttribute : int { hipFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum hipFuncCache_t : int {};
}

// The HIP functions the runtime calls, with their types (hip_functions.h).
#include "core/hip_functions.h"

namespace kosan::rt {

struct HipApi {
#define KOSAN_HIP_FIELD(name, ret, params) ret(*name) params = nullptr;
  KOSAN_HIP_FUNCTIONS(KOSAN_HIP_FIELD)
#undef KOSAN_HIP_FIELD
  std::string library; // the path or name it was loaded from
};

// The program's HIP runtime, loaded at the first call; aborts with a one-line
// error when there is none or it lacks a function of the table (a HIP shim
// was called, so the program is a HIP program that links it).
const HipApi &hip();

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_HIP_H

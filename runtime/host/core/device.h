//===- runtime/host/core/device.h - Device memory, on CUDA or on HIP -------===//
//
// The device operations the core and the collectors make themselves (their
// own memory, copies to and from it, synchronisation, the extent of an
// allocation), each one call that goes to the program's API: the CUDA
// runtime, or the HIP runtime in a HIP program (hip.h). Collectors call
// these, never the API, so that a check runs the same on both.
//
// Results are the API's own codes as a cudaError_t: success is 0 on both,
// and the runtime tests for nothing else (hip_shims.cpp pins the few codes
// it passes on).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_DEVICE_H
#define KOSAN_RUNTIME_HOST_CORE_DEVICE_H

#include "core/driver.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace kosan::rt {

class DeviceApi {
public:
  explicit DeviceApi(const DriverApi &drv) : drv(drv) {}

  // A HIP program: every call goes to HIP from then on.
  void useHip() { hipProgram.store(true, std::memory_order_relaxed); }
  bool isHip() const { return hipProgram.load(std::memory_order_relaxed); }

  cudaError_t alloc(void **p, size_t bytes) const;
  cudaError_t free(void *p) const;
  cudaError_t memset(void *p, int value, size_t bytes) const;
  cudaError_t memsetAsync(void *p, int value, size_t bytes, cudaStream_t stream) const;
  // The three below leave no error behind for the program to find.
  // words 32-bit words at p, each value, ordered on stream.
  cudaError_t fill32Async(void *p, uint32_t value, size_t words, cudaStream_t stream) const;
  cudaError_t toDevice(void *dst, const void *src, size_t bytes) const;
  // Ordered on stream; src may be reused when it returns (pageable memory).
  cudaError_t toDeviceAsync(void *dst, const void *src, size_t bytes,
                            cudaStream_t stream) const;
  cudaError_t toHost(void *dst, const void *src, size_t bytes) const;
  // height rows of width bytes, srcPitch bytes apart on the device and
  // dstPitch apart on the host.
  cudaError_t toHost2D(void *dst, size_t dstPitch, const void *src, size_t srcPitch,
                       size_t width, size_t height) const;
  // Host memory the device reads and writes, and the device's address of
  // it.
  cudaError_t allocMapped(void **host, size_t bytes) const;
  cudaError_t mappedAddress(void **device, void *host) const;
  cudaError_t synchronize() const; // the whole device
  cudaError_t synchronize(cudaStream_t stream) const;
  // An attribute (cudaFuncAttribute's numbering, which the driver's and
  // HIP's share) or the cache configuration of a kernel's clone: cuda on
  // CUDA, hip (the handle it is registered under) on HIP.
  cudaError_t setFunctionAttribute(CUfunction cuda, const void *hip, int attr,
                                   int value) const;
  cudaError_t setCacheConfig(CUfunction cuda, const void *hip, int config) const;
  // The current device.
  int current() const;
  // Clears the error a failed call left, which is not the program's.
  void clearError() const;
  const char *errorString(cudaError_t e) const;
  // The extent of the device allocation that holds addr, as the driver
  // knows it; false when it knows none.
  bool addressRange(uint64_t addr, uint64_t &base, uint64_t &size) const;

private:
  const DriverApi &drv; // CUDA: addressRange
  std::atomic<bool> hipProgram{false};
};

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_DEVICE_H

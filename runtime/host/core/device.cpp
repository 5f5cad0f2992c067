//===- runtime/host/core/device.cpp - Device memory, on CUDA or on HIP -----===//
#include "core/device.h"

#include "core/hip.h"

namespace kosan::rt {
namespace {

cudaError_t fromHip(hipError_t e) { return static_cast<cudaError_t>(e); }
hipStream_t hipStream(cudaStream_t s) { return reinterpret_cast<hipStream_t>(s); }

} // namespace

cudaError_t DeviceApi::alloc(void **p, size_t bytes) const {
  return isHip() ? fromHip(hip().hipMalloc(p, bytes)) : cudart().cudaMalloc(p, bytes);
}

cudaError_t DeviceApi::free(void *p) const {
  return isHip() ? fromHip(hip().hipFree(p)) : cudart().cudaFree(p);
}

cudaError_t DeviceApi::memset(void *p, int value, size_t bytes) const {
  return isHip() ? fromHip(hip().hipMemset(p, value, bytes))
                 : cudart().cudaMemset(p, value, bytes);
}

cudaError_t DeviceApi::memsetAsync(void *p, int value, size_t bytes,
                                   cudaStream_t stream) const {
  return isHip() ? fromHip(hip().hipMemsetAsync(p, value, bytes, hipStream(stream)))
                 : cudart().cudaMemsetAsync(p, value, bytes, stream);
}

cudaError_t DeviceApi::toDevice(void *dst, const void *src, size_t bytes) const {
  return isHip() ? fromHip(hip().hipMemcpy(dst, src, bytes, hipMemcpyHostToDevice))
                 : cudart().cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
}

cudaError_t DeviceApi::toDeviceAsync(void *dst, const void *src, size_t bytes,
                                     cudaStream_t stream) const {
  return isHip() ? fromHip(hip().hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice,
                                                hipStream(stream)))
                 : cudart().cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream);
}

cudaError_t DeviceApi::toHost(void *dst, const void *src, size_t bytes) const {
  return isHip() ? fromHip(hip().hipMemcpy(dst, src, bytes, hipMemcpyDeviceToHost))
                 : cudart().cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
}

cudaError_t DeviceApi::toHost2D(void *dst, size_t dstPitch, const void *src, size_t srcPitch,
                                size_t width, size_t height) const {
  return isHip() ? fromHip(hip().hipMemcpy2D(dst, dstPitch, src, srcPitch, width, height,
                                             hipMemcpyDeviceToHost))
                 : cudart().cudaMemcpy2D(dst, dstPitch, src, srcPitch, width, height,
                                         cudaMemcpyDeviceToHost);
}

cudaError_t DeviceApi::allocMapped(void **host, size_t bytes) const {
  return isHip() ? fromHip(hip().hipHostMalloc(host, bytes, hipHostMallocMapped))
                 : cudart().cudaHostAlloc(host, bytes, cudaHostAllocMapped);
}

cudaError_t DeviceApi::mappedAddress(void **device, void *host) const {
  return isHip() ? fromHip(hip().hipHostGetDevicePointer(device, host, 0))
                 : cudart().cudaHostGetDevicePointer(device, host, 0);
}

cudaError_t DeviceApi::synchronize() const {
  return isHip() ? fromHip(hip().hipDeviceSynchronize()) : cudart().cudaDeviceSynchronize();
}

cudaError_t DeviceApi::synchronize(cudaStream_t stream) const {
  return isHip() ? fromHip(hip().hipStreamSynchronize(hipStream(stream)))
                 : cudart().cudaStreamSynchronize(stream);
}

int DeviceApi::current() const {
  int device = -1;
  if (isHip())
    hip().hipGetDevice(&device);
  else
    cudart().cudaGetDevice(&device);
  return device;
}

void DeviceApi::clearError() const {
  if (isHip())
    hip().hipGetLastError();
  else
    cudart().cudaGetLastError();
}

const char *DeviceApi::errorString(cudaError_t e) const {
  return isHip() ? hip().hipGetErrorString(static_cast<hipError_t>(e))
                 : cudart().cudaGetErrorString(e);
}

bool DeviceApi::addressRange(uint64_t addr, uint64_t &base, uint64_t &size) const {
  if (isHip()) {
    hipDeviceptr_t b = nullptr;
    size_t n = 0;
    if (hip().hipMemGetAddressRange(&b, &n, reinterpret_cast<hipDeviceptr_t>(addr)) !=
        hipSuccess) {
      hip().hipGetLastError(); // not the program's error
      return false;
    }
    base = reinterpret_cast<uint64_t>(b);
    size = n;
    return true;
  }
  CUdeviceptr b = 0;
  size_t n = 0;
  if (!drv.memGetAddressRange || drv.memGetAddressRange(&b, &n, addr) != CUDA_SUCCESS)
    return false;
  base = b;
  size = n;
  return true;
}

} // namespace kosan::rt

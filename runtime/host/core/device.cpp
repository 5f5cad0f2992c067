//===- runtime/host/core/device.cpp - Device memory, on CUDA or on HIP -----===//
#include "core/device.h"

#include "core/hip.h"

namespace kosan::rt {
namespace {

cudaError_t fromHip(hipError_t e) { return static_cast<cudaError_t>(e); }
hipStream_t hipStream(cudaStream_t s) { return reinterpret_cast<hipStream_t>(s); }
// A call of kosan's own that failed: HIP's last error is not the program's.
cudaError_t ownCall(hipError_t e) {
  if (e != hipSuccess)
    hip().hipGetLastError();
  return fromHip(e);
}

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

cudaError_t DeviceApi::fill32Async(void *p, uint32_t value, size_t words,
                                   cudaStream_t stream) const {
  if (isHip())
    return ownCall(hip().hipMemsetD32Async(p, int(value), words, hipStream(stream)));
  if (!drv.memsetD32Async)
    return cudaErrorNotSupported;
  return drv.memsetD32Async(reinterpret_cast<CUdeviceptr>(p), value, words,
                            reinterpret_cast<CUstream>(stream)) == CUDA_SUCCESS
             ? cudaSuccess
             : cudaErrorInvalidValue;
}

cudaError_t DeviceApi::setFunctionAttribute(CUfunction cuda, const void *hipClone, int attr,
                                            int value) const {
  if (isHip())
    return ownCall(hip().hipFuncSetAttribute(hipClone, static_cast<hipFuncAttribute>(attr),
                                             value));
  return drv.funcSetAttribute(cuda, static_cast<CUfunction_attribute>(attr), value) ==
                 CUDA_SUCCESS
             ? cudaSuccess
             : cudaErrorInvalidValue;
}

cudaError_t DeviceApi::setCacheConfig(CUfunction cuda, const void *hipClone, int config) const {
  if (isHip())
    return ownCall(hip().hipFuncSetCacheConfig(hipClone, static_cast<hipFuncCache_t>(config)));
  return drv.funcSetCacheConfig(cuda, static_cast<CUfunc_cache>(config)) == CUDA_SUCCESS
             ? cudaSuccess
             : cudaErrorInvalidValue;
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

//===- runtime/host/core/driver.cpp - The CUDA runtime the loader attaches -===//
#include "core/driver.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

// cudaLaunchAttribute and CUlaunchAttribute are the same record (the runtime
// passes them to the driver as they are); kosan relies on that for
// cudaLaunchKernelEx (clusters, programmatic launch, priorities).
static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute),
              "launch attributes differ between runtime and driver");

namespace kosan::rt {
namespace {
// The program's CUDA runtime, handed over by the loader (cudart.h).
std::atomic<const CudartApi *> attachedCudart{nullptr};
} // namespace

const CudartApi &cudart() {
  const CudartApi *api = attachedCudart.load(std::memory_order_acquire);
  if (!api) {
    // Only a forwarder of an instrumented object calls into CUDA, and it
    // attaches first; reaching here means libkosan_rt.so was called directly.
    std::fprintf(stderr, "kosan: error: the kosan runtime was asked to call CUDA before an "
                         "instrumented object attached it (load it through a kosan-built "
                         "program or library)\n");
    std::abort();
  }
  return *api;
}
} // namespace kosan::rt

extern "C" int __kosan_rt_attach(const kosan::rt::CudartApi *api) {
  if (!api || api->size != sizeof(kosan::rt::CudartApi))
    return -1;
  // The first object to attach decides: one CUDA runtime per process is
  // what kosan serves (kernels registered with a second one are unknown to
  // the first).
  const kosan::rt::CudartApi *none = nullptr;
  kosan::rt::attachedCudart.compare_exchange_strong(none, api, std::memory_order_acq_rel);
  return 0;
}


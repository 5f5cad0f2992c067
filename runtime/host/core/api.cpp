//===- runtime/host/core/api.cpp - The runtime's other entry points -------===//
//
// The public API (include/kosan/kosan.h), the allocation sites the pass
// passes before an intercepted allocation, and the version check of
// instrumented objects (abi.h).
//
//===----------------------------------------------------------------------===//
#include "core/runtime.h"

#include "kosan/kosan.h"

using kosan::rt::Runtime;
using kosan::rt::runtime;

extern "C" {

void KOSAN_VERSION_CHECK_FN() { runtime(); }

void __kosan_alloc_site(const char *site, const char *name) {
  Runtime::pendingSite = site && *site ? site : nullptr;
  Runtime::pendingName = name && *name ? name : nullptr;
}

int kosan_register_buffer(const void *ptr, size_t bytes, const char *name) {
  return runtime().registerBuffer(ptr, bytes, name);
}

int kosan_register_tensor(const void *ptr, size_t bytes, const char *name,
                          const char *dtype, int ndim, const long long *shape) {
  std::vector<int64_t> dims;
  for (int i = 0; shape && i < ndim; ++i)
    dims.push_back(shape[i]);
  return runtime().registerBuffer(ptr, bytes, name, dtype, std::move(dims));
}

int kosan_unregister_buffer(const void *ptr) { return runtime().unregisterBuffer(ptr); }

int kosan_allocated(const void *ptr, size_t bytes, const char *name, void *stream) {
  return runtime().noteAllocated(ptr, bytes, name, static_cast<cudaStream_t>(stream));
}

int kosan_freed(const void *ptr, const char *freed_at) {
  return runtime().noteFreed(ptr, freed_at);
}

unsigned kosan_uninit_pattern(void) { return KOSAN_UNINIT_PATTERN; }

unsigned long kosan_flush(void) {
  runtime().drain(false);
  return runtime().errorsReported();
}

} // extern "C"

/*===- kosan/kosan.h - Public host API of the kosan runtime -----------------===
 *
 * C API (usable from C, C++ and Python ctypes). All functions are safe to call
 * from a program that was not built with kosan instrumentation as long as it
 * links the runtime; they do nothing when the runtime is disabled.
 *
 *===------------------------------------------------------------------------===*/
#ifndef KOSAN_KOSAN_H
#define KOSAN_KOSAN_H

#include <stddef.h>

/* The functions are declared weak so that a program using them still links
 * when built without kosan (a plain nvcc or clang build, a baseline): there
 * they are null, and the C++ helpers below skip them. C callers that may be
 * built either way test the function's address first:
 *   if (kosan_register_buffer) kosan_register_buffer(p, n, "q"); */
#if defined(__GNUC__) || defined(__clang__)
#define KOSAN_WEAK __attribute__((weak))
#else
#define KOSAN_WEAK
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Declares [ptr, ptr + bytes) a buffer of its own, named `name`, even when it
 * lies inside a bigger allocation (a tensor carved out of a caching
 * allocator's slab). Kernel pointer arguments that point into it are then
 * checked against its bounds, not the slab's. Returns 0 on success, -1 if the
 * range overlaps another registered buffer partially. */
KOSAN_WEAK int kosan_register_buffer(const void *ptr, size_t bytes, const char *name);

/* Like kosan_register_buffer, and says what the buffer holds, for the output
 * snapshots (KOSAN_OPTIONS=snapshot=1): dtype names the element type ("f32",
 * "f16", "bf16", "f64", "i32", ..., or torch's "float32", "bfloat16", ...; NULL
 * if unknown), shape its ndim extents (NULL/0: not given). */
KOSAN_WEAK int kosan_register_tensor(const void *ptr, size_t bytes, const char *name,
                                     const char *dtype, int ndim, const long long *shape);

/* Forgets a buffer registered with kosan_register_buffer. Returns 0 on
 * success, -1 if no buffer was registered at ptr. */
KOSAN_WEAK int kosan_unregister_buffer(const void *ptr);

/* For allocators kosan does not see (a caching allocator's blocks): a block
 * was handed out. Registers it as kosan_register_buffer does and, with
 * KOSAN_OPTIONS=uninit=1, fills it with the uninitialized pattern on `stream`
 * (a cudaStream_t; NULL: the legacy default stream), so that a kernel reading
 * what nobody wrote is reported. Returns as kosan_register_buffer. */
KOSAN_WEAK int kosan_allocated(const void *ptr, size_t bytes, const char *name, void *stream);

/* The block registered at ptr was given back to its allocator: it is
 * forgotten, and a kernel launched later with a pointer into it is reported
 * as a heap-use-after-free (until the memory is handed out again), naming
 * `freed_at` ("file:line" or the allocator's name; may be NULL). Returns 0,
 * or -1 if nothing was registered at ptr. */
KOSAN_WEAK int kosan_freed(const void *ptr, const char *freed_at);

/* An allocator for PyTorch's CUDAPluggableAllocator (kosan.torch.enable(
 * quarantine=True)): every tensor is a cudaMalloc of its own, of exactly the
 * size asked for (filled with uninit=1), and a released tensor's memory waits
 * in the quarantine (quarantine_mb) before the driver gets it back, so a
 * kernel launched on it later is a heap-use-after-free whatever was
 * allocated since. The signatures are the ones torch.cuda.memory.
 * CUDAPluggableAllocator calls (stream: a cudaStream_t). kosan_torch_malloc
 * returns NULL when the device is out of memory, after emptying the
 * quarantine once. */
KOSAN_WEAK void *kosan_torch_malloc(ptrdiff_t size, int device, void *stream);
KOSAN_WEAK void kosan_torch_free(void *ptr, ptrdiff_t size, int device, void *stream);

/* The 32-bit word KOSAN_OPTIONS=uninit=1 fills fresh allocations with
 * (every aligned 2-, 4- and 8-byte element of the fill is a NaN); elements
 * of an output that still hold it were never written. */
KOSAN_WEAK unsigned kosan_uninit_pattern(void);

/* Reports pending errors now (synchronizes the device if any are pending).
 * Returns the number of errors reported so far by this process. */
KOSAN_WEAK unsigned long kosan_flush(void);

#ifdef __cplusplus
} /* extern "C" */

namespace kosan {
/* True when the program was linked with the kosan runtime. */
inline bool runtimeLinked() { return kosan_register_buffer != nullptr; }

/* RAII registration for C++ callers; does nothing without the runtime. */
class ScopedBuffer {
public:
  ScopedBuffer(const void *ptr, size_t bytes, const char *name) : ptr_(ptr) {
    ok_ = runtimeLinked() && kosan_register_buffer(ptr, bytes, name) == 0;
  }
  ~ScopedBuffer() {
    if (ok_) kosan_unregister_buffer(ptr_);
  }
  ScopedBuffer(const ScopedBuffer &) = delete;
  ScopedBuffer &operator=(const ScopedBuffer &) = delete;
  bool ok() const { return ok_; }

private:
  const void *ptr_;
  bool ok_;
};
} // namespace kosan
#endif

#endif /* KOSAN_KOSAN_H */

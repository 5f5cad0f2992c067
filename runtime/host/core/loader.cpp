//===- runtime/host/loader.cpp - Finds the kosan runtime at run time -------===//
//
// Every host module the kosan plugin instruments carries this file, compiled
// to bitcode and linked in by the pass (passes/host/HostHooks.cpp), so an
// instrumented object needs no link flags of its own: whoever links it (g++
// linking a PyTorch extension, CMake, a Makefile) gets a program that loads
// kosan's runtime, libkosan_rt.so, the first time it calls into it.
//
// The pass makes every definition here linkonce_odr (weak_odr for the public
// API) and hidden, so the objects of one program or shared library share one
// loader; and dlopen of one path returns one handle, so every kosan-built
// library of a process (two extensions in one Python) shares one runtime: one
// allocation table, one report stream, one trace.
//
// The runtime is found at KOSAN_RUNTIME, else where the plugin that compiled
// the object found it, else as libkosan_rt.so on the library path. Without
// it the program runs uninstrumented (each forwarder falls back to the CUDA
// function it replaces) and says so once on stderr.
//
// Built twice: for CUDA programs, and with KOSAN_LOADER_HIP for HIP programs
// on AMD GPUs, which link no CUDA runtime: that loader hands the runtime no
// CUDA table (the runtime loads the program's HIP runtime itself, hip.h).
//
// Plain C-style code: it is linked into user modules, so it must not pull in
// C++ runtime machinery (exceptions, static-init guards, iostreams).
//
//===----------------------------------------------------------------------===//
#include "core/cudart.h"

#include "kosan/abi.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

using kosan::rt::CudartApi;

extern "C" {

#ifndef KOSAN_LOADER_HIP
// The program's CUDA runtime, handed to libkosan_rt.so (cudart.h).
extern const CudartApi __kosan_loader_cudart = {
    sizeof(CudartApi), CUDART_VERSION,
#define KOSAN_CUDART_ENTRY(name) &::name,
    KOSAN_CUDART_FUNCTIONS(KOSAN_CUDART_ENTRY)
#undef KOSAN_CUDART_ENTRY
};
#endif

// Where the plugin that compiled this object found the runtime; defined by
// the pass in each module it instruments.
extern const char __kosan_loader_built_path[];

pthread_mutex_t __kosan_loader_mutex = PTHREAD_MUTEX_INITIALIZER;
int __kosan_loader_tried;    // guarded by the mutex; read with acquire
void *__kosan_loader_handle; // libkosan_rt.so, or null when it is missing

static void *__kosan_loader_try(const char *path, char *why, size_t whySize) {
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  if (!h) {
    const char *e = dlerror();
    snprintf(why, whySize, "%s", e ? e : path);
    return nullptr;
  }
  if (!dlsym(h, KOSAN_VERSION_CHECK_SYMBOL)) {
    snprintf(why, whySize,
             "%s is the runtime of another kosan version (no %s); rebuild the program "
             "with this kosan or set KOSAN_RUNTIME to the matching libkosan_rt.so",
             path, KOSAN_VERSION_CHECK_SYMBOL);
    return nullptr;
  }
#ifndef KOSAN_LOADER_HIP
  auto attach = reinterpret_cast<int (*)(const CudartApi *)>(dlsym(h, KOSAN_RT_ATTACH_SYMBOL));
  if (!attach || attach(&__kosan_loader_cudart) != 0) {
    snprintf(why, whySize, "%s does not accept this program's CUDA runtime table", path);
    return nullptr;
  }
#endif
  return h;
}

static void __kosan_loader_open(const char *builtPath) {
  char why[1024] = "";
  void *h = nullptr;
  const char *env = getenv("KOSAN_RUNTIME");
  if (env && *env) {
    // An explicit choice is not second-guessed.
    h = __kosan_loader_try(env, why, sizeof why);
  } else {
    if (builtPath && *builtPath)
      h = __kosan_loader_try(builtPath, why, sizeof why);
    if (!h) {
      char first[512];
      snprintf(first, sizeof first, "%s", why);
      h = __kosan_loader_try("libkosan_rt.so", why, sizeof why);
      if (!h && *first)
        snprintf(why, sizeof why, "%s; %s", first, "libkosan_rt.so is not on the library path");
    }
  }
  if (!h)
    fprintf(stderr,
            "kosan: warning: cannot load the kosan runtime (%s): this program runs WITHOUT "
            "kosan's checks; set KOSAN_RUNTIME=<kosan>/lib/libkosan_rt.so\n",
            why);
  __kosan_loader_handle = h;
}

// Called by the forwarders the pass generates when their slot is still
// empty: the runtime's definition of `name`, or `fallback` (the CUDA
// function it replaces, or a no-op) when there is no runtime. The result is
// stored in *slot, so each forwarder resolves once.
void *__kosan_loader_resolve(const char *name, void *fallback, void **slot) {
  if (!__atomic_load_n(&__kosan_loader_tried, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&__kosan_loader_mutex);
    if (!__kosan_loader_tried) {
      __kosan_loader_open(__kosan_loader_built_path);
      __atomic_store_n(&__kosan_loader_tried, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&__kosan_loader_mutex);
  }
  void *fn = __kosan_loader_handle ? dlsym(__kosan_loader_handle, name) : nullptr;
  if (!fn)
    fn = fallback;
  __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
  return fn;
}

// The public API (include/kosan/kosan.h): code of the same program or
// library that calls it, kosan-built or not, reaches the shared runtime.
// Without the runtime they do nothing and succeed, as the header promises.
void *__kosan_loader_api_slots[4];

int kosan_register_buffer(const void *ptr, size_t bytes, const char *name) {
  void *f = __atomic_load_n(&__kosan_loader_api_slots[0], __ATOMIC_ACQUIRE);
  if (!f)
    f = __kosan_loader_resolve("kosan_register_buffer", nullptr, &__kosan_loader_api_slots[0]);
  return f ? reinterpret_cast<int (*)(const void *, size_t, const char *)>(f)(ptr, bytes, name)
           : 0;
}

int kosan_register_tensor(const void *ptr, size_t bytes, const char *name, const char *dtype,
                          int ndim, const long long *shape) {
  void *f = __atomic_load_n(&__kosan_loader_api_slots[1], __ATOMIC_ACQUIRE);
  if (!f)
    f = __kosan_loader_resolve("kosan_register_tensor", nullptr, &__kosan_loader_api_slots[1]);
  using Fn = int (*)(const void *, size_t, const char *, const char *, int, const long long *);
  return f ? reinterpret_cast<Fn>(f)(ptr, bytes, name, dtype, ndim, shape) : 0;
}

int kosan_unregister_buffer(const void *ptr) {
  void *f = __atomic_load_n(&__kosan_loader_api_slots[2], __ATOMIC_ACQUIRE);
  if (!f)
    f = __kosan_loader_resolve("kosan_unregister_buffer", nullptr, &__kosan_loader_api_slots[2]);
  return f ? reinterpret_cast<int (*)(const void *)>(f)(ptr) : 0;
}

unsigned long kosan_flush(void) {
  void *f = __atomic_load_n(&__kosan_loader_api_slots[3], __ATOMIC_ACQUIRE);
  if (!f)
    f = __kosan_loader_resolve("kosan_flush", nullptr, &__kosan_loader_api_slots[3]);
  return f ? reinterpret_cast<unsigned long (*)(void)>(f)() : 0;
}

} // extern "C"

//===- runtime/host/core/runtime.h - The host runtime's core ---------------===//
//
// Instrumented host code calls the __kosan_* replacements (shims.cpp,
// generated from kosan/intercepts.h) instead of the CUDA runtime's
// functions. They come here: the core keeps the allocation table and the
// quarantine, the registry of modules and kernels, the device state, and
// the launch path, which launches the instrumented clone of each kernel and
// hands every launch, synchronisation point and the exit to the collectors
// of the checks (collector.h; runtime/host/checks/*).
//
// The device writes events to slots in device memory; a word of mapped host
// memory tells the host, without any CUDA call, whether there is anything to
// collect, so programs without errors pay nothing at their sync points.
//
// Every member is guarded by mu unless it says otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_RUNTIME_H
#define KOSAN_RUNTIME_HOST_CORE_RUNTIME_H

#include "core/alloc_table.h"
#include "core/device.h"
#include "core/driver.h"
#include "core/modules.h"
#include "core/options.h"
#include "core/quarantine.h"

#include "kosan/abi.h"
#include "kosan/checks.h"
#include "kosan/trace.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace kosan::rt {

class Collector;

struct LaunchState {
  LaunchRecord record;
  KernelInfo *kernel = nullptr;
  // Pointer arguments into freed buffers, by the buffer's begin: launched
  // with empty bounds, so that every access through them is reported, as
  // a use after free of this buffer.
  std::map<uint64_t, FreedBuffer> freedArgs;
};

class Runtime {
public:
  Runtime();
  ~Runtime();
  // Whether the check of bit (KOSAN_CHECK_*) runs (KOSAN_OPTIONS=checks=).
  bool enabled(uint32_t bit) const { return checks & bit; }
  // A check whose code lives in the instrumented clones: with none, the
  // plain kernels run.
  bool instrumentedChecks() const { return checks & kEveryCheck; }

  void addAllocation(void *p, uint64_t bytes, uint64_t pitch, uint64_t rowBytes,
                     BufferOrigin origin);
  // cudaFree/cudaFreeAsync (async: the latter; realFree frees p as the
  // program asked): the buffer goes to the quarantine, or is freed now;
  // reports a double free.
  cudaError_t freeAllocation(void *p, bool async,
                             const std::function<cudaError_t(void *)> &realFree);
  // Frees what the quarantine holds (an allocation ran out of memory);
  // false if it held nothing.
  bool releaseQuarantine();
  // Fills a fresh allocation with the uninit pattern (uninit=1) on stream.
  void poisonFresh(const void *p, uint64_t bytes, cudaStream_t stream, bool wait);
  // PyTorch's blocks (kosan_allocated/kosan_freed): registered, poisoned,
  // and remembered as freed.
  int noteAllocated(const void *p, size_t bytes, const char *name, cudaStream_t stream);
  int noteFreed(const void *p, const char *freedAt);
  // uninit=1 belongs to the out-of-bounds check: its loads test for the fill.
  bool uninit() const { return opts.uninit && enabled(KOSAN_CHECK_OOB); }
  int registerBuffer(const void *p, size_t bytes, const char *name,
                     const char *dtype = nullptr, std::vector<int64_t> shape = {});
  int unregisterBuffer(const void *p);

  // Sets up the device log outside any stream capture (at the first
  // allocation), so that launches captured into graphs are instrumented.
  void prepareDevice() {
    std::lock_guard<std::mutex> lock(mu);
    if (instrumentedChecks())
      ensureDevice();
  }
  // A CUDA launch; plain launches the original kernel as the program would
  // have (the intercepted call).
  cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args,
                     size_t shmem, cudaStream_t stream, bool perThread,
                     bool cooperative, const cudaLaunchConfig_t *ex,
                     const std::function<cudaError_t()> &plain);
  // Collects and reports what the device recorded. deviceIdle: the caller
  // just synchronised the whole device.
  void drain(bool deviceIdle);
  // What the program sets on a kernel (cudaFuncSetAttribute,
  // hipFuncSetAttribute: the opt-in to more dynamic shared memory, above
  // all) must hold for its clone too.
  void mirrorAttribute(const void *func, int attr, int value);
  void mirrorCacheConfig(const void *func, int config);
  void onDeviceReset();
  void atExit();
  // A signal that will end the process (handle_signals=1): reports what
  // the device logged so far, from mapped memory, without waiting for it.
  void onFatalSignal(int sig);
  unsigned long errorsReported() const { return errors; }

  // HIP programs (core/hip_shims.cpp, core/hip.cpp): the runtime then
  // calls the program's HIP runtime (core/hip.h) where it would call CUDA
  // (core/device.h).
  void useHip() { gpu.useHip(); }
  bool isHip() const { return gpu.isHip(); }
  // __hipRegisterFunction registered kernel `mangled` of code object
  // `modules` (__hipRegisterFatBinary's handle) for host stub `stub`;
  // registerClone registers its instrumented clone (same arguments, with
  // the clone's name and handle) with the HIP runtime.
  void registerHipKernel(void **modules, const void *stub, const char *mangled,
                         const std::function<void(const void *handle, char *name)> &registerClone);
  // __hipRegisterVar registered device global `name` of code object
  // `modules` with host shadow `shadow`: kept for kosan's own globals
  // (KOSAN_SITE_TABLE_SYMBOL, KOSAN_PREC_BASE_SYMBOL), which the runtime
  // then finds through HIP (moduleGlobal).
  void registerHipGlobal(void **modules, const char *name, const void *shadow);
  // A HIP launch of the kernel of `func` (a host stub, or a module's
  // function); launchWith(f, args, shmem) makes the launch the program asked
  // for with another kernel, arguments and dynamic shared memory. Returns
  // the hipError_t of the launch.
  int launchHip(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                const void *stream,
                const std::function<int(const void *, void **, size_t)> &launchWith);

  // Set by __kosan_alloc_site just before an intercepted allocation.
  static thread_local const char *pendingSite, *pendingName;

  // For the collectors (mu held).
  void log(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void writeRaw(const std::string &text);
  void writeHeaderOnce();
  bool ensureDevice();
  void loadSites(ModuleInfo *m);
  // Device global `name` of module m (CUDA: cuModuleGetGlobal; HIP: the
  // shadow the host pass registered, hipGetSymbolAddress): its address and
  // size; false when the module has none. Then the copies to and from it.
  bool moduleGlobal(const ModuleInfo *m, const std::string &name, uint64_t &ptr, size_t &bytes);
  bool readModuleGlobal(void *dst, uint64_t src, size_t bytes);
  bool writeModuleGlobal(uint64_t dst, const void *src, size_t bytes);
  // The buffer kernel parameter i (value ptr) points into, as snapshots and
  // order records name it.
  struct ArgBuffer {
    std::string name;            // registered name, else the parameter's, else "arg<i>"
    uint64_t end = 0;            // end of the buffer; 0: none known
    const Buffer *registered = nullptr; // the table's buffer when ptr is its start
    bool exact = false;          // end is a buffer's kosan knows, not the driver's allocation
  };
  ArgBuffer argBuffer(const KernelInfo *k, size_t i, uint64_t ptr);

private:
  friend class Collector;
  std::vector<std::string> rdcUnits(CUmodule mod);
  // The kernel of a launch's func (HIP: a kernel registerHipKernel named).
  KernelInfo *kernelFor(const void *func);
  // One launch as the program asked for it, on either API (launch.cpp).
  struct LaunchRequest {
    const void *func;          // what names the kernel: a host stub, a function
    dim3 grid, block;
    void **args;
    size_t shmem;
    cudaStream_t stream;       // HIP: its hipStream_t
    bool capturing;            // the stream is being captured into a graph
    // Launches k's clone with params (the arguments, then the launch info)
    // and launchShmem bytes of dynamic shared memory; false when it did not
    // launch, having said why and marked k to run plain (mu held).
    std::function<bool(KernelInfo *k, void **params, size_t launchShmem)> clone;
    // The launch as the program asked for it (the intercepted call); the
    // API's error code.
    std::function<int()> plain;
  };
  // The launch path both APIs share: the launch's record, and the clone
  // launched between the collectors' beforeLaunch and afterLaunch, or the
  // plain kernel. Returns the plain launch's code, or 0.
  int launchKernel(const LaunchRequest &r);
  void decideEntryTest(KernelInfo *k, const LaunchRequest &r, std::vector<uint64_t> &info);
  // The kernel a launch runs the clone of (mu held): null when it runs
  // plain (no device state, launched on another device). While capturing,
  // nothing synchronous is done.
  KernelInfo *kernelToLaunch(const void *func, bool capturing);
  // Launches k's clone as the program asked (a launch config, cooperative).
  CUresult launchClone(KernelInfo *k, dim3 grid, dim3 block, size_t launchShmem, CUstream s,
                       void **params, bool cooperative, const cudaLaunchConfig_t *ex);
  // The kernel's record when it has a usable instrumented clone (mu held).
  KernelInfo *instrumentedKernel(const void *func);
  // A kernel's deferred clone (abi.h), compiled by the driver on first use;
  // null with k->whyPlain set when it has none or it cannot be had.
  CUfunction loadDeferredClone(KernelInfo *k, const std::string &cloneName);
  bool readDeferredTable(ModuleInfo *m);
  ModuleInfo *moduleFor(CUmodule mod);
  void registerExitHandler();
  void installSignalHandlers();

  std::mutex mu;
  Options opts;
  uint32_t checks = 0;
  AllocTable table;
  Quarantine quarantine;
  DriverApi drv;
  DeviceApi gpu{drv};             // the program's API, for kosan's own device work
  bool driverTried = false, deviceReady = false, deviceFailed = false;
  int stateDevice = -1;           // the device kosan's state lives on
  bool warnedOtherDevice = false;

  kosan_device_state *dState = nullptr; // device memory
  kosan_oob_event *events = nullptr;    // mapped host memory
  uint32_t eventCapacity = 0;
  kosan_host_flag *hostFlag = nullptr;  // mapped host memory

  std::unordered_map<const void *, std::unique_ptr<KernelInfo>> kernels;
  std::unordered_map<CUmodule, std::unique_ptr<ModuleInfo>> modules;
  std::vector<LaunchState> launches;  // index = launch id - 1

  std::unique_ptr<TraceWriter> trace;
  bool headerWritten = false;
  FILE *logFile = nullptr;
  bool exitRegistered = false;

  unsigned long errors = 0, plainLaunches = 0;
  bool warnedNoMemset = false;

  // One per check (and snapshots), called in this order at every hook.
  std::vector<std::unique_ptr<Collector>> collectors;

  // HIP kernels by host stub (registerHipKernel); they outlive a device
  // reset, as HIP's registrations do.
  struct HipKernel {
    KernelInfo info;                 // as the launch path and the collectors see it
    std::string cloneName;
    char cloneHandle = 0;            // its address names the clone to HIP
  };
  std::unordered_map<const void *, std::unique_ptr<HipKernel>> hipKernels;
};

// The process's runtime; never destroyed (kernels may still be reported
// from atexit handlers).
Runtime &runtime();

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_RUNTIME_H

//===- runtime/host/cuda_hooks.cpp - The host runtime of kosan -------------===//
//
// Instrumented host code calls the __kosan_* replacements below instead of
// the CUDA runtime's functions (the pass rewrites the callee; see abi.h).
// They keep the allocation table, launch the instrumented clone of each
// kernel with the bounds of its pointer arguments, and at the program's
// synchronisation points collect what the device recorded and report it.
//
// The device writes events to slots in device memory; a word of mapped host
// memory tells the host, without any CUDA call, whether there is anything to
// collect, so programs without errors pay nothing at their sync points.
//
// The precision check (checks=precision) aggregates per site in device
// memory (kosan_prec_slot): each module gets a range of slots when it is
// first launched, and the host collects and zeroes them at the sync points
// that follow launches, writes one trace record per site, and prints the
// sites worst first at exit.
//
//===----------------------------------------------------------------------===//
#include "alloc_table.h"
#include "quarantine.h"
#include "cudart.h"
#include "options.h"

#include "kosan/abi.h"
#include "kosan/fnv.h"
#include "kosan/bounds.h"
#include "kosan/kosan.h"
#include "kosan/precision.h"
#include "kosan/precision_verdict.h"
#include "order_log.h"
#include "kosan/trace.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cxxabi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <optional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>


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

namespace kosan::rt {
namespace {

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
  }
};

// What the pass found a kernel does with its parameters (abi.h).
struct ParamInfo {
  std::string name;
  uint32_t flags = 0, dtype = KOSAN_DTYPE_UNKNOWN;
};
struct KernelSummaryInfo {
  uint32_t flags = 0;
  std::string orderFindings;      // checks=order's static findings
  std::vector<ParamInfo> params;
  uint32_t firstSite = 0, nsites = 0;
};

struct ModuleInfo {
  uint32_t id = 0;
  CUmodule handle = nullptr;
  bool sitesLoaded = false;
  // Precision slots [precBase, precBase + precSlots) of the process-wide
  // array; precSlots 0: the module has none (compiled without the precision
  // check, or the array was full).
  uint32_t precBase = 0, precSlots = 0;
  std::vector<kosan_site> sites;
  std::unordered_map<std::string, KernelSummaryInfo> summaries; // by mangled name
  std::string strings;
  std::string str(uint32_t off) const {
    return off < strings.size() ? std::string(strings.c_str() + off) : "";
  }
  // "file:line:col" of one of its sites.
  std::string location(const kosan_site &s) const {
    return str(s.file_str) + ":" + std::to_string(s.line) + ":" + std::to_string(s.column);
  }
};

struct KernelInfo {
  CUfunction plain = nullptr, instrumented = nullptr;
  ModuleInfo *module = nullptr;
  std::string mangled, name;
  std::vector<size_t> paramSizes; // of the original kernel's parameters
  size_t infoBytes = 0;
  std::string whyPlain;           // set when the instrumented clone is unusable
  const KernelSummaryInfo *summary = nullptr;
  bool warnedNoSummary = false;
  int dynSmemOptIn = 0;           // the clone's opt-in to dynamic shared memory, as set
};

// The sites of kernel k's clone; none when its module's table does not
// describe it.
std::span<const kosan_site> kernelSites(const KernelInfo *k) {
  if (!k->module || !k->summary)
    return {};
  const std::vector<kosan_site> &all = k->module->sites;
  size_t first = std::min<size_t>(k->summary->firstSite, all.size());
  size_t end = std::min<size_t>(first + k->summary->nsites, all.size());
  return std::span<const kosan_site>(all).subspan(first, end - first);
}

// A snapshot being taken: the record, filled before the launch (poison,
// pre-launch hash) and completed after it.
struct PendingSnapshot {
  SnapshotRecord record;
  uint64_t bytes = 0;
};

struct LaunchState {
  LaunchRecord record;
  KernelInfo *kernel = nullptr;
  // Pointer arguments into freed buffers, by the buffer's begin: launched
  // with empty bounds, so that every access through them is reported, as
  // a use after free of this buffer.
  std::map<uint64_t, FreedBuffer> freedArgs;
};

std::string demangle(const std::string &name) {
  if (name.rfind("_Z", 0) != 0)
    return name; // "x" would demangle to "long long"
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d)
    return name;
  std::string out(d);
  std::free(d);
  return out;
}

std::string nowIso8601() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> programArgs() {
  std::vector<std::string> args;
  if (FILE *f = std::fopen("/proc/self/cmdline", "rb")) {
    std::string cur;
    int c;
    while ((c = std::fgetc(f)) != EOF) {
      if (c == 0) {
        args.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(char(c));
      }
    }
    std::fclose(f);
  }
  return args;
}

class Runtime {
public:
  Runtime();
  bool oob() const { return checks & KOSAN_CHECK_OOB; }
  bool precision() const { return checks & KOSAN_CHECK_PRECISION; }
  bool order() const { return checks & KOSAN_CHECK_ORDER; }
  // A check whose code lives in the instrumented clones: with none, the
  // plain kernels run.
  bool instrumentedChecks() const {
    return checks & (KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION | KOSAN_CHECK_ORDER);
  }

  void addAllocation(void *p, uint64_t bytes, uint64_t pitch, uint64_t rowBytes,
                     BufferOrigin origin);
  // cudaFree/cudaFreeAsync (stream: the async one's, else null): the
  // buffer goes to the quarantine, or is freed now; reports a double free.
  cudaError_t freeAllocation(void *p, bool async, cudaStream_t stream, bool perThread);
  // Frees what the quarantine holds (an allocation ran out of memory);
  // false if it held nothing.
  bool releaseQuarantine();
  // Fills a fresh allocation with the uninit pattern (uninit=1) on stream.
  void poisonFresh(const void *p, uint64_t bytes, cudaStream_t stream, bool wait);
  // PyTorch's blocks (kosan_allocated/kosan_freed): registered, poisoned,
  // and remembered as freed.
  int noteAllocated(const void *p, size_t bytes, const char *name, cudaStream_t stream);
  int noteFreed(const void *p, const char *freedAt);
  bool uninit() const { return opts.uninit && oob(); }
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
  cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args,
                     size_t shmem, cudaStream_t stream, bool perThread,
                     bool cooperative, const cudaLaunchConfig_t *ex = nullptr);
  // Collects and reports what the device recorded. deviceIdle: the caller
  // just synchronised the whole device.
  void drain(bool deviceIdle);
  // What the program sets on a kernel (cudaFuncSetAttribute: the opt-in to
  // more dynamic shared memory, above all) must hold for its clone too.
  void mirrorAttribute(const void *func, int attr, int value);
  void mirrorCacheConfig(const void *func, int config);
  void onDeviceReset();
  void atExit();
  // A signal that will end the process (handle_signals=1): reports what
  // the device logged so far, from mapped memory, without waiting for it.
  void onFatalSignal(int sig);
  unsigned long errorsReported() const { return errors; }

  // Set by __kosan_alloc_site just before an intercepted allocation.
  static thread_local const char *pendingSite, *pendingName;

private:
  void log(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void writeRaw(const std::string &text);
  bool ensureDevice();
  void setUpPrecision(kosan_device_state &st);
  void assignPrecisionSlots(ModuleInfo *m, uint32_t nsites,
                            const std::vector<std::pair<std::string, uint32_t>> &units);
  std::vector<std::string> rdcUnits(CUmodule mod);
  // Collects the OOB events (mu held); returns whether it synchronised the
  // device.
  // noCuda: read the mapped log only (a signal handler: the device may be
  // busy for ever or gone).
  bool drainEvents(bool deviceIdle, bool noCuda = false);
  void printSummary();
  void installSignalHandlers();
  // Collects the precision slots (mu held): when launches ran since the last
  // collection, or always with force.
  void harvestPrecision(bool deviceIdle, bool force);
  std::optional<PrecisionRecord> precisionRecord(const kosan_prec_slot &slot,
                                                 const ModuleInfo &m, uint32_t siteId);
  void printPrecisionReport();
  void setUpOrder(kosan_device_state &st);
  // The operation log, made at the first launch of an order-ops kernel
  // (mu held); false when it cannot be had.
  bool ensureOpLog();
  bool readOrderCounts(uint32_t counts[3 * KOSAN_ORDER_SHARDS]);
  // Gives the outputs of launch k(args) their shadows, on the launch's
  // stream (mu held).
  void prepareDense(const KernelInfo *k, void **args, cudaStream_t stream);
  // Collects the order logs of launch ls (mu held; waits for the device).
  void harvestOrder(const LaunchState &ls, void **args);
  void printOrderReport();
  // The value of order_stores (0), order_atomics (1) or order_ops (2) that
  // would have kept every record: records go to shards by SM, so what
  // counts is the fullest shard; rounded up to a power of two.
  uint64_t neededCapacity(int log) const {
    return std::bit_ceil(std::max<uint64_t>(orderNeeded[log], 1));
  }
  // The buffer kernel parameter i (value ptr) points into, as snapshots and
  // order records name it.
  struct ArgBuffer {
    std::string name;            // registered name, else the parameter's, else "arg<i>"
    uint64_t end = 0;            // end of the buffer; 0: none known
    const Buffer *registered = nullptr; // the table's buffer when ptr is its start
    bool exact = false;          // end is a buffer's kosan knows, not the driver's allocation
  };
  ArgBuffer argBuffer(const KernelInfo *k, size_t i, uint64_t ptr);
  KernelInfo *kernelFor(const void *func);
  // The kernel's record when it has a usable instrumented clone (mu held).
  KernelInfo *instrumentedKernel(const void *func);
  ModuleInfo *moduleFor(CUmodule mod);
  void loadSites(ModuleInfo *m);
  kosan_arg_bounds boundsFor(uint64_t value, LaunchState &ls);
  void syncTable();
  void writeHeaderOnce();
  void handleEvent(const kosan_oob_event &first, uint64_t count);
  std::vector<PendingSnapshot> prepareSnapshots(KernelInfo *k, void **args,
                                                uint32_t launchId, cudaStream_t stream);
  void finishSnapshots(std::vector<PendingSnapshot> &snapshots, cudaStream_t stream);
  void registerExitHandler();

  std::mutex mu;
  Options opts;
  uint32_t checks = 0;
  AllocTable table;
  Quarantine quarantine;
  DriverApi drv;
  bool driverTried = false, deviceReady = false, deviceFailed = false;
  int stateDevice = -1;           // the device kosan's state lives on
  bool warnedOtherDevice = false;

  kosan_device_state *dState = nullptr; // device memory
  kosan_oob_event *events = nullptr;    // mapped host memory
  uint32_t eventCapacity = 0;
  uint64_t *dTable = nullptr;           // device memory
  size_t dTableCap = 0;
  uint64_t tableGeneration = ~0ull;
  kosan_host_flag *hostFlag = nullptr;  // mapped host memory

  // checks=precision: the state and its slots, in device memory.
  kosan_precision_state *dPrecision = nullptr;
  kosan_prec_slot *dPrecSlots = nullptr;
  uint32_t precCapacity = 0;
  uint32_t precNextBase = 0;             // slots handed out to modules so far
  bool warnedPrecFull = false;
  bool precModuleSeen = false;           // a launched module has precision sites
  // Instrumented launches since the last collection (0: none).
  uint32_t precFirstLaunch = 0, precLastLaunch = 0;
  std::vector<PrecisionRecord> precTotals; // per site over the whole run, worst first

  // checks=order: the logs, in device memory.
  kosan_order_state *dOrder = nullptr;
  kosan_order_state orderState{};        // what dOrder holds
  bool orderFailed = false;
  struct OrderFinding {
    std::string kernel, findings, buffers;
    uint64_t locations = 0, launches = 0;
    uint32_t firstLaunch = 0;
  };
  std::map<std::string, OrderFinding> orderFindings; // by kernel: order-dependent atomics
  uint64_t orderDroppedStores = 0, orderDroppedAtomics = 0, orderLaunches = 0;
  uint64_t orderDroppedOps = 0;
  // Per log (stores, atomics, operations): the capacity that would have kept
  // every record of the busiest launch (its fullest shard, times the shards).
  uint64_t orderNeeded[3] = {0, 0, 0};
  bool opLogFailed = false;
  // The shadows of this launch's outputs (kosan_order_dense), in one pool
  // of device memory kept from launch to launch.
  struct DenseOutput {
    uint32_t arg = 0;
    uint64_t shadow = 0, elements = 0;
  };
  std::vector<DenseOutput> denseOutputs;
  uint64_t densePool = 0;
  size_t densePoolBytes = 0;
  bool denseTableUsed = false, denseWarned = false;

  std::unordered_map<const void *, std::unique_ptr<KernelInfo>> kernels;
  std::unordered_map<CUmodule, std::unique_ptr<ModuleInfo>> modules;
  std::vector<LaunchState> launches;  // index = launch id - 1
  std::set<std::pair<uint32_t, uint32_t>> reportedSites; // (module, site)

  std::unique_ptr<TraceWriter> trace;
  bool headerWritten = false;
  FILE *logFile = nullptr;
  bool exitRegistered = false;

  unsigned long errors = 0, reports = 0, printed = 0, suppressed = 0;
  unsigned long dropped = 0, plainLaunches = 0, unresolvedArgs = 0;
  bool warnedNoMemset = false;
};

thread_local const char *Runtime::pendingSite = nullptr;
thread_local const char *Runtime::pendingName = nullptr;

Runtime &runtime() {
  // Never destroyed: kernels may still be reported from atexit handlers.
  static Runtime *rt = new Runtime();
  return *rt;
}

Runtime::Runtime() {
  ParsedOptions parsed = parseOptions(std::getenv("KOSAN_OPTIONS"));
  opts = parsed.options;
  checks = opts.check_bits();
  quarantine.setCapacity(uint64_t(opts.quarantine_mb) << 20);
  if (!opts.log_path.empty() && opts.log_path != "stderr") {
    std::string path = opts.log_path + "." + std::to_string(getpid());
    logFile = std::fopen(path.c_str(), "a");
    if (!logFile)
      std::fprintf(stderr, "kosan: warning: cannot open log_path '%s': %s; reporting to stderr\n",
                   path.c_str(), std::strerror(errno));
  }
  // Mistakes in KOSAN_OPTIONS are shown where the user typed them, also when
  // the reports go to a log.
  for (const std::string &w : parsed.warnings) {
    if (logFile)
      std::fprintf(stderr, "%s\n", w.c_str());
    writeRaw(w + "\n");
  }
  if (opts.help)
    writeRaw(optionsHelp());
  if (!opts.trace.empty()) {
    std::string err;
    trace = TraceWriter::create(expandTracePath(opts.trace, getpid()), &err);
    if (!trace)
      log("kosan: warning: cannot write the trace: %s\n", err.c_str());
  }
  if (opts.snapshot && opts.trace.empty())
    log("kosan: warning: snapshot=1 records into the trace: set trace=FILE too; "
        "no snapshots are taken\n");
  if (opts.uninit && !oob())
    log("kosan: warning: uninit=1 works with checks=oob only; nothing is filled\n");
  if (opts.poison && !opts.snapshot)
    log("kosan: warning: poison=1 works with snapshot=1 only; nothing is poisoned\n");
  if (opts.snapshot && !instrumentedChecks())
    log("kosan: warning: snapshot=1 needs the instrumented kernels (checks=oob or "
        "checks=precision); no snapshots are taken\n");
}

void Runtime::writeRaw(const std::string &text) {
  FILE *out = logFile ? logFile : stderr;
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
}

void Runtime::log(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  writeRaw(buf);
}

void Runtime::registerExitHandler() {
  // Registered after CUDA is initialised, so that it runs before the CUDA
  // runtime's own teardown (atexit handlers run in reverse order).
  if (exitRegistered)
    return;
  exitRegistered = true;
  std::atexit([] { runtime().atExit(); });
  if (opts.handle_signals)
    installSignalHandlers();
}

namespace {
struct sigaction previousActions[NSIG];
constexpr int kHandledSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT};

bool isDefault(const struct sigaction &a) {
  return !(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_DFL;
}

// Reports first when the signal is about to end the process (its
// disposition was the default); a program's own handler runs as before.
void onSignal(int sig, siginfo_t *info, void *context) {
  static std::atomic<bool> reporting{false};
  const struct sigaction &previous = previousActions[sig];
  if (!isDefault(previous)) {
    if (previous.sa_flags & SA_SIGINFO)
      previous.sa_sigaction(sig, info, context);
    else if (previous.sa_handler != SIG_IGN)
      previous.sa_handler(sig);
    return;
  }
  if (!reporting.exchange(true))
    runtime().onFatalSignal(sig);
  // The default action, now: the signal is delivered again when this
  // handler returns.
  sigaction(sig, &previous, nullptr);
  raise(sig);
}
} // namespace

void Runtime::installSignalHandlers() {
  for (int sig : kHandledSignals) {
    struct sigaction ours {};
    ours.sa_sigaction = onSignal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    struct sigaction previous {};
    if (sigaction(sig, nullptr, &previous) != 0 || previous.sa_handler == SIG_IGN)
      continue; // ignored stays ignored (nohup)
    previousActions[sig] = previous;
    sigaction(sig, &ours, nullptr);
  }
}

void Runtime::onFatalSignal(int sig) {
  std::unique_lock<std::mutex> lock(mu, std::try_to_lock);
  const char *name = sigabbrev_np(sig);
  if (!lock.owns_lock()) {
    std::fprintf(logFile ? logFile : stderr,
                 "kosan: the process got SIG%s while kosan was busy; the reports printed so "
                 "far are all there is\n", name ? name : "?");
    return;
  }
  log("kosan: the process got SIG%s; reporting what its kernels recorded so far "
      "(kernels still running were not waited for)\n", name ? name : "?");
  if (deviceReady && hostFlag && events)
    drainEvents(false, /*noCuda=*/true);
  printSummary();
}

void Runtime::addAllocation(void *p, uint64_t bytes, uint64_t pitch,
                            uint64_t rowBytes, BufferOrigin origin) {
  std::lock_guard<std::mutex> lock(mu);
  registerExitHandler();
  Buffer b;
  b.begin = reinterpret_cast<uint64_t>(p);
  b.end = b.begin + bytes;
  b.pitch = pitch;
  b.row_bytes = rowBytes;
  b.origin = origin;
  if (pendingSite)
    b.site = pendingSite;
  if (pendingName)
    b.name = pendingName;
  pendingSite = pendingName = nullptr;
  quarantine.reused(b.begin, b.end);
  size_t dropped = table.addAllocation(std::move(b));
  if (dropped && opts.verbosity >= 1)
    log("kosan: note: a new allocation at %p replaced %zu stale table entries "
        "(memory freed outside instrumented code)\n", p, dropped);
}

cudaError_t Runtime::freeAllocation(void *p, bool async, cudaStream_t stream, bool perThread) {
  auto realFree = [&](void *q) {
    if (!async)
      return cudart().cudaFree(q);
    return perThread ? cudart().cudaFreeAsync_ptsz(q, stream) : cudart().cudaFreeAsync(q, stream);
  };
  const char *site = pendingSite;
  pendingSite = pendingName = nullptr;
  if (!p || !instrumentedChecks())
    return realFree(p);
  // Errors of kernels still running may name this buffer: collect them first.
  if (!async)
    drain(false);
  std::unique_lock<std::mutex> lock(mu);
  uint64_t begin = reinterpret_cast<uint64_t>(p);
  const Buffer *live = table.find(begin);
  if (!live || live->begin != begin || live->origin == BufferOrigin::Registered) {
    const FreedBuffer *f = quarantine.find(begin);
    if (f && f->buffer.begin == begin && f->held) {
      // The driver would refuse it too (the memory is still allocated, but
      // the program gave it up): say where, and do not free it twice.
      ++errors;
      writeRaw(std::string(65, '=') + "\n==" + std::to_string(getpid()) +
               "==ERROR: kosan: double-free of the " +
               std::to_string(f->buffer.end - f->buffer.begin) + "-byte buffer" +
               (f->buffer.name.empty() ? "" : " '" + f->buffer.name + "'") +
               (site ? " at " + std::string(site) : std::string()) + "\n" +
               (f->buffer.site.empty() ? "" : "    allocated at " + f->buffer.site + "\n") +
               "    already freed at " + (f->freed_at.empty() ? "an unknown site" : f->freed_at) +
               "\nSUMMARY: kosan: double-free" + (site ? " " + std::string(site) : std::string()) +
               "\n");
      return cudaErrorInvalidValue;
    }
    lock.unlock();
    return realFree(p);
  }
  FreedBuffer f;
  f.buffer = *live;
  f.freed_at = site ? site : "";
  table.removeAllocation(begin);
  // Managed memory is not held: the program may count on giving it back.
  f.held = quarantine.capacity() > 0 && f.buffer.origin != BufferOrigin::MallocManaged;
  bool held = f.held;
  std::vector<FreedBuffer> release = quarantine.add(std::move(f));
  lock.unlock();
  cudaError_t result = cudaSuccess;
  if (!held) {
    result = realFree(p);
    std::erase_if(release, [&](const FreedBuffer &r) { return r.buffer.begin == begin; });
  } else if (!async) {
    // cudaFree waits for the device; programs may count on it.
    result = cudart().cudaDeviceSynchronize();
  }
  // What leaves the quarantine: the device may still be using it through a
  // bad pointer; cudaFree waits for it.
  for (const FreedBuffer &r : release)
    cudart().cudaFree(reinterpret_cast<void *>(r.buffer.begin));
  return result;
}

bool Runtime::releaseQuarantine() {
  std::vector<FreedBuffer> release;
  {
    std::lock_guard<std::mutex> lock(mu);
    release = quarantine.releaseAll();
  }
  for (const FreedBuffer &r : release)
    cudart().cudaFree(reinterpret_cast<void *>(r.buffer.begin));
  return !release.empty();
}

void Runtime::poisonFresh(const void *p, uint64_t bytes, cudaStream_t stream, bool wait) {
  if (!uninit() || !p || bytes == 0)
    return;
  std::lock_guard<std::mutex> lock(mu);
  if (!ensureDevice())
    return; // said why already
  if (!drv.memsetD32Async) {
    if (!warnedNoMemset)
      log("kosan: warning: uninit=1: the driver has no cuMemsetD32Async; "
          "allocations are not filled\n");
    warnedNoMemset = true;
    return;
  }
  // Whole words: allocations are at least 4-byte aligned and rounded up.
  size_t words = (bytes + 3) / 4;
  CUstream s = reinterpret_cast<CUstream>(stream);
  if (drv.memsetD32Async(reinterpret_cast<CUdeviceptr>(p), KOSAN_UNINIT_PATTERN, words, s) !=
      CUDA_SUCCESS)
    return;
  if (wait)
    cudart().cudaStreamSynchronize(stream);
}

int Runtime::noteAllocated(const void *p, size_t bytes, const char *name, cudaStream_t stream) {
  int result = registerBuffer(p, bytes, name);
  // Under the allocator's lock: the fill is queued on the block's stream,
  // ahead of whatever the program queues there next.
  poisonFresh(p, bytes, stream, /*wait=*/false);
  return result;
}

int Runtime::noteFreed(const void *p, const char *freedAt) {
  std::lock_guard<std::mutex> lock(mu);
  uint64_t begin = reinterpret_cast<uint64_t>(p);
  const Buffer *b = table.find(begin);
  if (!b || b->begin != begin || b->origin != BufferOrigin::Registered)
    return -1;
  FreedBuffer f;
  f.buffer = *b;
  f.freed_at = freedAt ? freedAt : "";
  table.unregisterBuffer(begin);
  quarantine.add(std::move(f)); // not held: the allocator keeps the memory
  return 0;
}

int Runtime::registerBuffer(const void *p, size_t bytes, const char *name,
                            const char *dtype, std::vector<int64_t> shape) {
  std::lock_guard<std::mutex> lock(mu);
  std::string err;
  std::string type;
  if (dtype && *dtype) {
    if (std::optional<DType> t = parseDType(dtype))
      type = dtypeName(*t);
    else
      log("kosan: warning: kosan_register_tensor: unknown dtype '%s' for '%s'; "
          "its snapshots will be compared as raw bytes\n", dtype, name ? name : "");
  }
  if (!table.registerBuffer(reinterpret_cast<uint64_t>(p), bytes,
                            name ? name : "", &err, std::move(type), std::move(shape))) {
    log("kosan: warning: kosan_register_buffer: %s\n", err.c_str());
    return -1;
  }
  uint64_t begin = reinterpret_cast<uint64_t>(p);
  quarantine.reused(begin, begin + bytes);
  return 0;
}

int Runtime::unregisterBuffer(const void *p) {
  std::lock_guard<std::mutex> lock(mu);
  return table.unregisterBuffer(reinterpret_cast<uint64_t>(p)) ? 0 : -1;
}

bool Runtime::ensureDevice() {
  if (deviceReady)
    return true;
  if (deviceFailed)
    return false;
  auto fail = [&](const std::string &why) {
    deviceFailed = true;
    log("kosan: warning: %s; kernels run uninstrumented\n", why.c_str());
    return false;
  };
  if (!driverTried) {
    driverTried = true;
    drv.load();
  }
  if (!drv.ok)
    return fail("the CUDA driver lacks " + drv.missing + " (kosan needs a driver for CUDA 12.4 or newer)");
  uint32_t capacity = 64;
  while (capacity < uint32_t(opts.log_capacity))
    capacity <<= 1;
  // The flag and the events live in mapped host memory: the host reads
  // them without a copy, and they outlive a kernel that traps.
  size_t bytes = sizeof(kosan_host_flag) + 64 + size_t(capacity) * sizeof(kosan_oob_event);
  void *mapped = nullptr;
  if (cudart().cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped) != cudaSuccess)
    return fail("cannot allocate mapped host memory");
  std::memset(mapped, 0, bytes);
  hostFlag = static_cast<kosan_host_flag *>(mapped);
  events = reinterpret_cast<kosan_oob_event *>(static_cast<char *>(mapped) + 64);
  eventCapacity = capacity;
  void *mappedDevice = nullptr;
  if (cudart().cudaHostGetDevicePointer(&mappedDevice, mapped, 0) != cudaSuccess)
    return fail("cannot map host memory into the device");
  if (cudart().cudaMalloc(reinterpret_cast<void **>(&dState), sizeof(kosan_device_state)) != cudaSuccess)
    return fail("cannot allocate the device log");
  kosan_device_state st{};
  st.abi_version = KOSAN_ABI_VERSION;
  st.event_capacity = capacity;
  st.event_budget = uint32_t(opts.stop_after);
  st.events = reinterpret_cast<uint64_t>(mappedDevice) + 64;
  st.host_flag = reinterpret_cast<uint64_t>(mappedDevice);
  if (precision())
    setUpPrecision(st);
  if (order())
    setUpOrder(st);
  if (cudart().cudaMemcpy(dState, &st, sizeof st, cudaMemcpyHostToDevice) != cudaSuccess)
    return fail("cannot initialise the device log");
  cudart().cudaGetDevice(&stateDevice);
  deviceReady = true;
  registerExitHandler();
  return true;
}

// The precision state and its slots, zeroed: a slot counts nothing until a
// value is recorded in it. Without them the precision check records nothing
// and everything else runs on.
void Runtime::setUpPrecision(kosan_device_state &st) {
  uint32_t capacity = uint32_t(opts.precision_sites);
  constexpr size_t kSlotsAt = 256; // keeps the slots apart from the state's line
  size_t bytes = kSlotsAt + size_t(capacity) * KOSAN_PREC_SHARDS * sizeof(kosan_prec_slot);
  char *mem = nullptr;
  if (cudart().cudaMalloc(reinterpret_cast<void **>(&mem), bytes) != cudaSuccess ||
      cudart().cudaMemset(mem, 0, bytes) != cudaSuccess) {
    cudart().cudaGetLastError();
    if (mem)
      cudart().cudaFree(mem);
    log("kosan: warning: cannot allocate %zu bytes for %u precision sites "
        "(precision_sites); the precision check records nothing\n", bytes, capacity);
    return;
  }
  dPrecision = reinterpret_cast<kosan_precision_state *>(mem);
  dPrecSlots = reinterpret_cast<kosan_prec_slot *>(mem + kSlotsAt);
  kosan_precision_state ps{};
  ps.slots = reinterpret_cast<uint64_t>(dPrecSlots);
  ps.capacity = capacity;
  if (cudart().cudaMemcpy(dPrecision, &ps, sizeof ps, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudart().cudaGetLastError();
    cudart().cudaFree(mem);
    dPrecision = nullptr;
    dPrecSlots = nullptr;
    log("kosan: warning: cannot initialise the precision slots; the precision check "
        "records nothing\n");
    return;
  }
  precCapacity = capacity;
  precNextBase = 0;
  st.precision = reinterpret_cast<uint64_t>(dPrecision);
}

// Gives the module's sites their slots and tells the module where they
// start (its KOSAN_PREC_BASE_SYMBOL global). A module compiled without the
// precision check has no such global and gets none.
void Runtime::assignPrecisionSlots(ModuleInfo *m, uint32_t nsites,
                                   const std::vector<std::pair<std::string, uint32_t>> &units) {
  if (!dPrecision || nsites == 0)
    return;
  // Each unit's base symbol and where in the module's sites the unit's start.
  std::vector<std::pair<CUdeviceptr, uint32_t>> bases;
  for (const auto &[symbol, first] : units) {
    CUdeviceptr basePtr = 0;
    size_t bytes = 0;
    if (drv.moduleGetGlobal(&basePtr, &bytes, m->handle, symbol.c_str()) == CUDA_SUCCESS &&
        bytes == sizeof(uint32_t))
      bases.push_back({basePtr, first});
  }
  if (bases.empty())
    return;
  precModuleSeen = true;
  uint32_t base = precCapacity; // past the end: the device records nothing
  if (uint64_t(precNextBase) + nsites <= precCapacity) {
    base = precNextBase;
    precNextBase += nsites;
    m->precBase = base;
    m->precSlots = nsites;
  } else if (!warnedPrecFull) {
    warnedPrecFull = true;
    log("kosan: warning: the precision check has room for %u sites (precision_sites) "
        "and %u are taken; a module with %u more is not checked for precision\n",
        precCapacity, precNextBase, nsites);
  }
  bool written = true;
  for (auto [basePtr, first] : bases) {
    // Past the end stays past the end: the device records nothing.
    uint32_t unitBase = base == precCapacity ? base : base + first;
    written &= drv.memcpyHtoD(basePtr, &unitBase, sizeof unitBase) == CUDA_SUCCESS;
  }
  if (!written) {
    m->precSlots = 0;
    log("kosan: warning: cannot set a module's precision slots; its sites are not "
        "checked for precision\n");
  }
}

// The units of relocatable device code linked into a module, by the marker
// kernel each defines (abi.h), in the order of their ids. None where the
// driver cannot list a module's kernels (before CUDA 12.4).
std::vector<std::string> Runtime::rdcUnits(CUmodule mod) {
  std::vector<std::string> units;
  unsigned count = 0;
  if (!drv.moduleGetFunctionCount || !drv.moduleEnumerateFunctions ||
      drv.moduleGetFunctionCount(&count, mod) != CUDA_SUCCESS || count == 0)
    return units;
  std::vector<CUfunction> functions(count);
  if (drv.moduleEnumerateFunctions(functions.data(), count, mod) != CUDA_SUCCESS)
    return units;
  for (CUfunction f : functions) {
    const char *name = nullptr;
    if (drv.funcGetName(&name, f) == CUDA_SUCCESS && name &&
        std::strncmp(name, KOSAN_UNIT_MARKER_PREFIX, std::strlen(KOSAN_UNIT_MARKER_PREFIX)) == 0)
      units.push_back(name + std::strlen(KOSAN_UNIT_MARKER_PREFIX));
  }
  std::sort(units.begin(), units.end());
  return units;
}

ModuleInfo *Runtime::moduleFor(CUmodule mod) {
  auto &slot = modules[mod];
  if (!slot) {
    slot = std::make_unique<ModuleInfo>();
    slot->id = modules.size();
    slot->handle = mod;
  }
  return slot.get();
}

// Reads the module's site table (a synchronous copy: never while a stream
// is being captured into a graph) and records the module in the trace.
void Runtime::loadSites(ModuleInfo *m) {
  if (m->sitesLoaded)
    return;
  m->sitesLoaded = true;
  ModuleRecord rec;
  rec.id = m->id;
  // One table, or (relocatable device code) one per unit of the module,
  // each unit's sites after the previous units' (abi.h).
  std::vector<std::string> units = {""};
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  if (drv.moduleGetGlobal(&ptr, &bytes, m->handle, KOSAN_SITE_TABLE_SYMBOL) != CUDA_SUCCESS)
    units = rdcUnits(m->handle);
  std::vector<std::pair<std::string, uint32_t>> precBases; // (symbol, unit's first site)
  for (const std::string &unit : units) {
    std::string suffix = unit.empty() ? "" : "_" + unit;
    if (drv.moduleGetGlobal(&ptr, &bytes, m->handle, (KOSAN_SITE_TABLE_SYMBOL + suffix).c_str()) !=
            CUDA_SUCCESS ||
        bytes < sizeof(kosan_site_table_header))
      continue;
    std::vector<char> blob(bytes);
    if (drv.memcpyDtoH(blob.data(), ptr, bytes) == CUDA_SUCCESS) {
      kosan_site_table_header h;
      std::memcpy(&h, blob.data(), sizeof h);
      size_t sitesAt = sizeof h;
      size_t kernelsAt = sitesAt + size_t(h.nsites) * sizeof(kosan_site);
      size_t paramsAt = kernelsAt + size_t(h.nkernels) * sizeof(kosan_kernel_entry);
      size_t stringsAt = paramsAt + size_t(h.nparams) * sizeof(kosan_param_entry);
      size_t need = stringsAt + h.strings_size;
      if (h.magic == KOSAN_SITE_TABLE_MAGIC && h.abi_version == KOSAN_ABI_VERSION &&
          need <= bytes) {
        uint32_t siteBase = m->sites.size();
        uint32_t strBase = m->strings.size(); // string offsets of this unit's table
        m->sites.resize(siteBase + h.nsites);
        std::memcpy(m->sites.data() + siteBase, blob.data() + sitesAt,
                    h.nsites * sizeof(kosan_site));
        m->strings.append(blob.data() + stringsAt, h.strings_size);
        for (uint32_t i = siteBase; i < m->sites.size(); ++i) {
          kosan_site &s = m->sites[i];
          for (uint32_t *str : {&s.function_str, &s.file_str, &s.object_str, &s.inlined_at_str})
            *str += strBase;
        }
        if (!unit.empty()) {
          CUdeviceptr basePtr = 0;
          size_t baseBytes = 0;
          if (drv.moduleGetGlobal(&basePtr, &baseBytes, m->handle,
                                  (KOSAN_SITE_BASE_PREFIX + unit).c_str()) != CUDA_SUCCESS ||
              baseBytes != sizeof(uint32_t) ||
              drv.memcpyHtoD(basePtr, &siteBase, sizeof siteBase) != CUDA_SUCCESS)
            log("kosan: warning: cannot set the site base of a unit of relocatable device "
                "code; its reports may name wrong source locations\n");
        }
        precBases.push_back({KOSAN_PREC_BASE_SYMBOL + suffix, siteBase});
        auto str = [&](uint32_t off) { return m->str(off ? off + strBase : 0); };
        std::vector<kosan_param_entry> params(h.nparams);
        std::memcpy(params.data(), blob.data() + paramsAt, params.size() * sizeof(kosan_param_entry));
        for (uint32_t i = 0; i < h.nkernels; ++i) {
          kosan_kernel_entry e;
          std::memcpy(&e, blob.data() + kernelsAt + i * sizeof e, sizeof e);
          if (size_t(e.first_param) + e.nparams > params.size())
            continue;
          KernelSummaryInfo &info = m->summaries[str(e.name_str)];
          info.flags = e.flags;
          info.orderFindings = str(e.order_str);
          info.firstSite = siteBase + e.first_site;
          info.nsites = e.nsites;
          for (uint32_t j = 0; j < e.nparams; ++j) {
            const kosan_param_entry &pe = params[e.first_param + j];
            info.params.push_back({str(pe.name_str), pe.flags, pe.dtype});
          }
        }
        // Units of one module: their sources, one compiler and mode.
        rec.source += (rec.source.empty() ? "" : " ") + str(h.module_str);
        rec.compiler = str(h.compiler_str);
        rec.fp_mode = str(h.fp_str);
        rec.sites = m->sites.size();
      } else {
        log("kosan: warning: a module's site table is from another kosan version; "
            "its reports will lack source locations\n");
      }
    }
  }
  if (precision() && !m->sites.empty())
    assignPrecisionSlots(m, m->sites.size(), precBases);
  writeHeaderOnce();
  if (trace) {
    trace->write(rec);
    // The static half of the order check, before any launch of the module.
    std::vector<std::pair<std::string, const KernelSummaryInfo *>> sorted;
    for (auto &[name, info] : m->summaries)
      if (info.flags & KOSAN_KERNEL_ORDER_FINGERPRINTS)
        sorted.push_back({name, &info});
    std::sort(sorted.begin(), sorted.end());
    for (auto &[name, info] : sorted) {
      KernelOrderInfo ko;
      ko.module = m->id;
      ko.mangled = name;
      ko.kernel = demangle(name);
      ko.float_atomics = info->flags & KOSAN_KERNEL_FLOAT_ATOMICS;
      ko.shuffle_reduction = info->flags & KOSAN_KERNEL_SHUFFLE_REDUCTION;
      ko.shared_reduction = info->flags & KOSAN_KERNEL_SHARED_REDUCTION;
      ko.launch_dependent_loop = info->flags & KOSAN_KERNEL_LAUNCH_DEPENDENT_LOOP;
      ko.fingerprints = true;
      ko.findings = info->orderFindings;
      trace->write(ko);
    }
  }
}

KernelInfo *Runtime::kernelFor(const void *func) {
  auto &slot = kernels[func];
  if (slot)
    return slot.get();
  slot = std::make_unique<KernelInfo>();
  KernelInfo *k = slot.get();
  cudaFunction_t f = nullptr;
  if (cudart().cudaGetFuncBySymbol(&f, func) != cudaSuccess) {
    cudart().cudaGetLastError(); // do not leave our failure for the program to find
    k->whyPlain = "not a registered kernel";
    return k;
  }
  k->plain = reinterpret_cast<CUfunction>(f);
  const char *name = nullptr;
  if (drv.funcGetName(&name, k->plain) == CUDA_SUCCESS && name)
    k->mangled = name;
  k->name = demangle(k->mangled);
  CUmodule mod = nullptr;
  if (drv.funcGetModule(&mod, k->plain) != CUDA_SUCCESS) {
    k->whyPlain = "its module is unknown";
    return k;
  }
  k->module = moduleFor(mod);
  std::string cloneName = k->mangled + KOSAN_CLONE_SUFFIX;
  if (drv.moduleGetFunction(&k->instrumented, mod, cloneName.c_str()) != CUDA_SUCCESS) {
    k->instrumented = nullptr;
    k->whyPlain = "it was compiled without kosan";
    return k;
  }
  std::vector<size_t> sizes;
  for (size_t i = 0;; ++i) {
    size_t off = 0, size = 0;
    if (drv.funcGetParamInfo(k->instrumented, i, &off, &size) != CUDA_SUCCESS)
      break;
    sizes.push_back(size);
  }
  if (sizes.empty() ||
      sizes.back() != sizeof(kosan_launch_info) + (sizes.size() - 1) * sizeof(kosan_arg_bounds)) {
    k->instrumented = nullptr;
    k->whyPlain = "its instrumented clone has an unexpected signature (kosan version mismatch?)";
    return k;
  }
  k->infoBytes = sizes.back();
  sizes.pop_back();
  k->paramSizes = std::move(sizes);
  return k;
}

kosan_arg_bounds Runtime::boundsFor(uint64_t value, LaunchState &ls) {
  kosan_arg_bounds b = unboundedArg();
  if (const Buffer *buf = table.find(value))
    return bufferArg(buf->begin, buf->end, buf->pitch, buf->row_bytes);
  // Small integers (sizes, counts) share 8-byte parameter slots with
  // pointers; no device allocation lives in the low 4 GiB of the unified
  // address space, so they need no driver call.
  if (value < (1ull << 32))
    return b;
  // A pointer into a freed buffer: empty bounds, so that every access
  // through it is reported (and none goes ahead), as a use after free.
  if (const FreedBuffer *f = quarantine.find(value)) {
    ls.freedArgs[f->buffer.begin] = *f;
    return bufferArg(f->buffer.begin, f->buffer.begin, 0, 0);
  }
  // Memory from an allocator kosan does not see (an uninstrumented library):
  // the driver still knows the allocation's extent.
  CUdeviceptr base = 0;
  size_t size = 0;
  if (drv.memGetAddressRange(&base, &size, value) == CUDA_SUCCESS)
    return bufferArg(base, base + size, 0, 0);
  ++unresolvedArgs;
  return b;
}

void Runtime::syncTable() {
  if (table.generation() == tableGeneration)
    return;
  tableGeneration = table.generation();
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  if (opts.check_unresolved)
    ranges = table.flatRanges();
  if (ranges.size() > dTableCap) {
    if (dTable)
      cudart().cudaFree(dTable);
    dTableCap = ranges.size() * 2;
    if (cudart().cudaMalloc(reinterpret_cast<void **>(&dTable), dTableCap * 16) != cudaSuccess) {
      dTable = nullptr;
      dTableCap = 0;
      ranges.clear();
    }
  }
  if (!ranges.empty())
    cudart().cudaMemcpy(dTable, ranges.data(), ranges.size() * 16, cudaMemcpyHostToDevice);
  uint64_t tablePtr = reinterpret_cast<uint64_t>(dTable);
  uint32_t len = ranges.size();
  cudart().cudaMemcpy(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, table),
             &tablePtr, sizeof tablePtr, cudaMemcpyHostToDevice);
  cudart().cudaMemcpy(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, table_len),
             &len, sizeof len, cudaMemcpyHostToDevice);
}

void Runtime::writeHeaderOnce() {
  if (headerWritten || !trace)
    return;
  headerWritten = true;
  TraceHeader h;
  h.kosan_version = "0.1.0";
  h.pid = getpid();
  h.argv = programArgs();
  h.start_time = nowIso8601();
  for (auto &[k, v] : optionsAsList(opts))
    h.options[k] = v;
  int dev = 0;
  cudaDeviceProp prop{};
  if (cudart().cudaGetDevice(&dev) == cudaSuccess &&
      cudart().cudaGetDeviceProperties(&prop, dev) == cudaSuccess) {
    h.gpu_name = prop.name;
    h.gpu_arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  }
  cudart().cudaDriverGetVersion(&h.driver_version);
  cudart().cudaRuntimeGetVersion(&h.runtime_version);
  trace->write(h);
}

cudaError_t Runtime::launch(const void *func, dim3 grid, dim3 block,
                            void **args, size_t shmem, cudaStream_t stream,
                            bool perThread, bool cooperative,
                            const cudaLaunchConfig_t *ex) {
  auto plain = [&] {
    if (ex)
      return perThread ? cudart().cudaLaunchKernelExC_ptsz(ex, func, args)
                       : cudart().cudaLaunchKernelExC(ex, func, args);
    if (cooperative)
      return perThread ? cudart().cudaLaunchCooperativeKernel_ptsz(func, grid, block, args, shmem, stream)
                       : cudart().cudaLaunchCooperativeKernel(func, grid, block, args, shmem, stream);
    return perThread ? cudart().cudaLaunchKernel_ptsz(func, grid, block, args, shmem, stream)
                     : cudart().cudaLaunchKernel(func, grid, block, args, shmem, stream);
  };
  if (!instrumentedChecks())
    return plain();

  // While a stream is captured into a graph, synchronous CUDA calls are
  // illegal (they would invalidate the capture): use what is set up already.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudart().cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudart().cudaGetLastError();
    capture = cudaStreamCaptureStatusNone;
  }
  bool capturing = capture != cudaStreamCaptureStatusNone;

  std::unique_lock<std::mutex> lock(mu);
  registerExitHandler();
  bool ready = capturing ? deviceReady : ensureDevice();
  KernelInfo *k = ready ? kernelFor(func) : nullptr;
  if (k && k->module && !capturing) {
    loadSites(k->module);
    auto it = k->module->summaries.find(k->mangled);
    k->summary = it == k->module->summaries.end() ? nullptr : &it->second;
  }
  int device = -1;
  cudart().cudaGetDevice(&device);
  if (k && device != stateDevice) {
    // The device log lives on one GPU; launches elsewhere run plain for now.
    if (!warnedOtherDevice)
      log("kosan: warning: kernels launched on device %d run uninstrumented "
          "(kosan checks device %d only)\n", device, stateDevice);
    warnedOtherDevice = true;
    k = nullptr;
  }
  writeHeaderOnce();

  LaunchState ls;
  ls.kernel = k;
  ls.record.id = launches.size() + 1;
  ls.record.grid = {grid.x, grid.y, grid.z};
  ls.record.block = {block.x, block.y, block.z};
  ls.record.shared_bytes = shmem;
  ls.record.stream = reinterpret_cast<uint64_t>(stream);
  if (k) {
    ls.record.kernel = k->name;
    ls.record.mangled = k->mangled;
    ls.record.module = k->module ? k->module->id : 0;
  }

  cudaError_t result = cudaSuccess;
  bool instrumented = false;
  std::vector<PendingSnapshot> snapshots;
  if (k && k->instrumented) {
    // Without checks=oob the clone still runs (it holds the precision
    // check) but bounds nothing: every argument is unbounded and the table
    // of buffers stays empty.
    if (!capturing && oob())
      syncTable();
    std::vector<uint64_t> info(k->infoBytes / 8, 0);
    auto *hdr = reinterpret_cast<kosan_launch_info *>(info.data());
    hdr->state = reinterpret_cast<uint64_t>(dState);
    hdr->launch_id = ls.record.id;
    hdr->flags = opts.halt_on_error ? uint32_t(KOSAN_LAUNCH_HALT_ON_ERROR) : 0u;
    if (uninit())
      hdr->flags |= KOSAN_LAUNCH_UNINIT;
    hdr->dyn_smem_bytes = shmem;
    // checks=order keeps the fingerprints of dynamic shared memory after
    // the program's own bytes.
    size_t launchShmem = shmem;
    if (k->summary && (k->summary->flags & KOSAN_KERNEL_ORDER_FINGERPRINTS)) {
      if ((k->summary->flags & KOSAN_KERNEL_ORDER_OPS) && order())
        ensureOpLog();
      if (opts.order_leaves == "value")
        hdr->flags |= KOSAN_LAUNCH_ORDER_VALUE_LEAVES;
      if (order() && orderState.store_capacity) {
        hdr->flags |= KOSAN_LAUNCH_ORDER_STORES;
        // A graph's replays find the table empty and log their stores.
        if (!capturing)
          prepareDense(k, args, stream);
      }
      unsigned factor = (k->summary->flags & KOSAN_KERNEL_DYNSMEM_SHADOW_MASK) >>
                        KOSAN_KERNEL_DYNSMEM_SHADOW_SHIFT;
      if (factor && shmem) {
        launchShmem = ((shmem + 7) & ~size_t(7)) + factor * shmem;
        if (launchShmem > 48 * 1024 && int(launchShmem) > k->dynSmemOptIn) {
          if (drv.funcSetAttribute(k->instrumented,
                                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   int(launchShmem)) == CUDA_SUCCESS)
            k->dynSmemOptIn = int(launchShmem);
        }
      }
    }
    auto *bounds = reinterpret_cast<kosan_arg_bounds *>(hdr + 1);
    std::vector<void *> params(k->paramSizes.size() + 1);
    for (size_t i = 0; i < k->paramSizes.size(); ++i) {
      params[i] = args[i];
      bounds[i] = unboundedArg();
      if (oob() && k->paramSizes[i] == 8) {
        uint64_t value;
        std::memcpy(&value, args[i], 8);
        bounds[i] = boundsFor(value, ls);
      }
    }
    params.back() = info.data();
    CUstream s = reinterpret_cast<CUstream>(stream);
    if (!stream)
      s = perThread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    if (opts.snapshot && trace && !capturing)
      snapshots = prepareSnapshots(k, args, ls.record.id, stream);
    CUresult r;
    if (ex) {
      CUlaunchConfig config{};
      config.gridDimX = grid.x;
      config.gridDimY = grid.y;
      config.gridDimZ = grid.z;
      config.blockDimX = block.x;
      config.blockDimY = block.y;
      config.blockDimZ = block.z;
      config.sharedMemBytes = unsigned(launchShmem);
      config.hStream = s;
      config.attrs = reinterpret_cast<CUlaunchAttribute *>(ex->attrs);
      config.numAttrs = ex->numAttrs;
      r = drv.launchKernelEx(&config, k->instrumented, params.data(), nullptr);
    } else if (cooperative) {
      r = drv.launchCooperativeKernel(k->instrumented, grid.x, grid.y, grid.z, block.x,
                                      block.y, block.z, launchShmem, s, params.data());
    } else {
      r = drv.launchKernel(k->instrumented, grid.x, grid.y, grid.z, block.x, block.y,
                           block.z, launchShmem, s, params.data(), nullptr);
    }
    if (r == CUDA_SUCCESS) {
      instrumented = true;
    } else {
      // Driver and runtime error codes coincide for launch failures.
      const char *why = cudart().cudaGetErrorString(static_cast<cudaError_t>(r));
      log("kosan: warning: the instrumented kernel '%s' failed to launch (%s); "
          "running it uninstrumented\n", k->name.c_str(), why);
      k->instrumented = nullptr;
      k->whyPlain = why;
    }
  }
  if (!instrumented) {
    ++plainLaunches;
    if (k && opts.verbosity >= 1 && !k->whyPlain.empty())
      log("kosan: note: kernel '%s' runs uninstrumented: %s\n", k->name.c_str(),
          k->whyPlain.c_str());
    lock.unlock();
    result = plain();
    lock.lock();
  }
  ls.record.instrumented = instrumented;
  if (ls.record.kernel.empty())
    ls.record.kernel = "<unknown kernel>";
  if (trace)
    trace->write(ls.record);
  if (instrumented && precision()) {
    if (!precFirstLaunch)
      precFirstLaunch = ls.record.id;
    precLastLaunch = ls.record.id;
  }
  if (instrumented && !snapshots.empty())
    finishSnapshots(snapshots, stream);
  // snapshot=1 waits for each launch anyway: collecting after it gives
  // kosan-diff the precision records of exactly this launch.
  if (instrumented && precision() && opts.snapshot && trace && !capturing)
    harvestPrecision(false, false);
  // Without a trace only float atomics are logged: a kernel that logs none
  // leaves nothing to collect, and its launch does not wait.
  if (instrumented && order() && dOrder && !capturing && k->summary &&
      (k->summary->flags & KOSAN_KERNEL_ORDER_FINGERPRINTS)) {
    ++orderLaunches;
    if (trace || (k->summary->flags & KOSAN_KERNEL_ORDER_ATOMIC_LOG))
      harvestOrder(ls, args);
  }
  if (opts.verbosity >= 2)
    log("kosan: launch #%u %s grid (%u,%u,%u) block (%u,%u,%u)%s\n", ls.record.id,
        ls.record.kernel.c_str(), grid.x, grid.y, grid.z, block.x, block.y, block.z,
        instrumented ? "" : " [uninstrumented]");
  launches.push_back(std::move(ls));
  return result;
}

// Where a buffer was allocated, and the variable the allocation filled when
// it is not the name the report gives the buffer ("d_y" for parameter 'y').
static std::string allocationSite(const Buffer &buf, const std::string &shownName) {
  std::string site = buf.site;
  if (!buf.name.empty() && buf.origin != BufferOrigin::Registered && buf.name != shownName)
    site += (site.empty() ? "" : " ") + std::string("as '") + buf.name + "'";
  return site;
}

void Runtime::handleEvent(const kosan_oob_event &slot, uint64_t count) {
  uint32_t launchId = uint32_t((slot.key - 1) >> 32);
  uint32_t siteId = uint32_t((slot.key - 1) & 0xffffffffu);
  // uninit=1: a load that read the fill pattern, recorded at its site.
  bool uninitRead = siteId & KOSAN_SITE_UNINIT_BIT;
  siteId &= ~KOSAN_SITE_UNINIT_BIT;
  const LaunchState *ls =
      launchId >= 1 && launchId <= launches.size() ? &launches[launchId - 1] : nullptr;
  ModuleInfo *mod = ls && ls->kernel ? ls->kernel->module : nullptr;
  if (mod)
    loadSites(mod);
  const kosan_site *site =
      mod && siteId < mod->sites.size() ? &mod->sites[siteId] : nullptr;

  OobEvent e;
  e.launch = launchId;
  e.site_id = siteId;
  e.count = count;
  e.size = slot.size;
  e.address = slot.addr;
  e.block = {slot.block[0], slot.block[1], slot.block[2]};
  e.thread = {slot.thread[0], slot.thread[1], slot.thread[2]};
  e.buffer_begin = slot.begin;
  e.buffer_end = slot.end;
  e.pitch = slot.pitch;
  uint32_t space = site ? site->space : KOSAN_SPACE_UNKNOWN;
  uint32_t access = site ? site->access : KOSAN_ACCESS_LOAD;
  e.access = access == KOSAN_ACCESS_STORE || access == KOSAN_ACCESS_MEMCPY_DST ? "WRITE"
             : access == KOSAN_ACCESS_ATOMIC                                   ? "ATOMIC"
                                                                               : "READ";
  static const char *spaces[] = {"global", "shared", "local", "unknown", "param"};
  e.space = space < 5 ? spaces[space] : "unknown";
  if (site) {
    e.site.file = mod->str(site->file_str);
    e.site.line = site->line;
    e.site.column = site->column;
    e.site.function = demangle(mod->str(site->function_str));
    e.site.inlined_at = mod->str(site->inlined_at_str);
  }
  std::string object = site ? demangle(mod->str(site->object_str)) : "";
  // A freed buffer: the launch gave its pointer empty bounds (boundsFor),
  // or the table check found the address in one.
  const FreedBuffer *freed = nullptr;
  if (ls && slot.begin == slot.end)
    if (auto it = ls->freedArgs.find(slot.begin); it != ls->freedArgs.end())
      freed = &it->second;
  if (!freed && !uninitRead && (space == KOSAN_SPACE_UNKNOWN || (slot.begin == 0 && slot.end == 0)) &&
      !table.find(slot.addr))
    freed = quarantine.find(slot.addr);
  if (uninitRead) {
    e.kind = "use-of-uninitialized-value";
    e.access = "READ";
    if (const Buffer *buf = table.find(slot.addr)) {
      e.buffer_begin = buf->begin;
      e.buffer_end = buf->end;
      e.buffer_name = buf->name.empty() && buf->origin != BufferOrigin::Registered ? object : buf->name;
      e.allocated_at = buf->site;
    } else {
      e.buffer_begin = e.buffer_end = 0;
      e.buffer_name = object;
    }
  } else if (freed) {
    e.kind = "heap-use-after-free";
    e.buffer_begin = freed->buffer.begin;
    e.buffer_end = freed->buffer.end;
    e.buffer_name = freed->buffer.origin == BufferOrigin::Registered || object.empty()
                        ? freed->buffer.name : object;
    e.allocated_at = allocationSite(freed->buffer, e.buffer_name);
    e.freed_at = freed->freed_at.empty() && freed->buffer.origin == BufferOrigin::Registered
                     ? "its allocator (the buffer was returned)" : freed->freed_at;
    e.space = "global";
  } else if (slot.flags & KOSAN_EVENT_SHARED_WINDOW) {
    // Through a pointer the compiler could not follow, past the block's
    // shared memory.
    e.kind = "shared-buffer-overflow";
    e.space = "shared";
    e.buffer_name = "shared memory window of the block";
  } else if (space == KOSAN_SPACE_UNKNOWN || (slot.begin == 0 && slot.end == 0)) {
    e.kind = "unknown-address";
    // The table check failed: say which buffer the address is nearest to.
    if (const Buffer *near = table.nearest(slot.addr)) {
      e.buffer_begin = near->begin;
      e.buffer_end = near->end;
      e.buffer_name = near->name;
      e.allocated_at = near->site;
      e.kind = "global-buffer-overflow";
    } else {
      e.buffer_begin = e.buffer_end = 0;
    }
  } else {
    e.kind = space == KOSAN_SPACE_SHARED  ? "shared-buffer-overflow"
             : space == KOSAN_SPACE_LOCAL ? "local-buffer-overflow"
                                          : "global-buffer-overflow";
    e.buffer_name = object;
    if (space == KOSAN_SPACE_GLOBAL || space == KOSAN_SPACE_PARAM) {
      if (const Buffer *buf = table.find(slot.begin); buf && buf->begin == slot.begin) {
        if (buf->origin == BufferOrigin::Registered && !buf->name.empty())
          e.buffer_name = buf->name;
        e.allocated_at = allocationSite(*buf, e.buffer_name);
        e.row_bytes = buf->row_bytes;
      }
    }
  }
  errors += count;
  ++reports;
  if (trace)
    trace->write(e);
  std::pair<uint32_t, uint32_t> key{mod ? mod->id : 0,
                                    siteId | (uninitRead ? KOSAN_SITE_UNINIT_BIT : 0)};
  if (!reportedSites.insert(key).second)
    return; // this site was reported already: counted, not printed again
  if (opts.print_limit > 0 && printed >= unsigned(opts.print_limit)) {
    ++suppressed;
    return;
  }
  ++printed;
  writeRaw(formatOobReport(e, ls ? &ls->record : nullptr, getpid()));
}

//===----------------------------------------------------------------------===//
// Output snapshots (snapshot=1, poison=1)
//===----------------------------------------------------------------------===//

namespace {
// FNV-1a over 8-byte words (then the tail bytes): the hashes only tell
// whether a buffer changed across a launch, and a word at a time keeps up
// with the copy.
uint64_t fnv1a(const char *data, size_t n) {
  uint64_t h = KOSAN_FNV_OFFSET_BASIS;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = kosan_fnv1a_step(h, w);
  }
  for (; i < n; ++i)
    h = kosan_fnv1a_step(h, static_cast<unsigned char>(data[i]));
  return h;
}

// Signalling NaNs: arithmetic on the GPU only ever produces quiet NaNs, so a
// kernel that computes a NaN never writes one of these. Integers get a byte
// pattern; one-byte types are not poisoned (1 in 256 values would collide).
std::optional<uint64_t> poisonPattern(DType t) {
  switch (t) {
  case DType::F64: return 0x7ff4badbadbadbadull;
  case DType::F32: return 0x7fbadbadull;
  case DType::F16: return 0x7d5bull;
  case DType::BF16: return 0x7fa5ull;
  case DType::I64: case DType::U64: return 0xa5a5a5a5a5a5a5a5ull;
  case DType::I32: case DType::U32: return 0xa5a5a5a5ull;
  case DType::I16: case DType::U16: return 0xa5a5ull;
  default: return std::nullopt;
  }
}
} // namespace

std::vector<PendingSnapshot> Runtime::prepareSnapshots(KernelInfo *k, void **args,
                                                        uint32_t launchId,
                                                        cudaStream_t stream) {
  std::vector<PendingSnapshot> out;
  const KernelSummaryInfo *summary = k->summary;
  if (!summary || summary->params.size() != k->paramSizes.size()) {
    if (!k->warnedNoSummary)
      log("kosan: warning: no snapshot of kernel '%s': its module carries no "
          "parameter summary\n", k->name.c_str());
    k->warnedNoSummary = true;
    return out;
  }
  const bool anyPointer = summary->flags & KOSAN_KERNEL_UNRESOLVED_WRITES;
  const uint64_t maxBytes = uint64_t(std::max(opts.snapshot_max_mb, 0)) << 20;
  bool synced = false;
  for (size_t i = 0; i < summary->params.size(); ++i) {
    const ParamInfo &p = summary->params[i];
    if (!(p.flags & KOSAN_PARAM_POINTER) || k->paramSizes[i] != 8)
      continue;
    if (!(p.flags & KOSAN_PARAM_WRITTEN) && !anyPointer)
      continue;
    uint64_t ptr;
    std::memcpy(&ptr, args[i], 8);
    if (!ptr)
      continue;
    PendingSnapshot snap;
    SnapshotRecord &r = snap.record;
    r.launch = launchId;
    r.arg = i;
    r.address = ptr;
    r.dtype = static_cast<DType>(p.dtype <= uint32_t(DType::Bool) ? p.dtype : 0);
    ArgBuffer buffer = argBuffer(k, i, ptr);
    uint64_t end = buffer.end;
    r.name = std::move(buffer.name);
    if (const Buffer *buf = buffer.registered) {
      if (!buf->dtype.empty())
        if (std::optional<DType> t = parseDType(buf->dtype))
          r.dtype = *t;
      r.shape = buf->shape;
    }
    if (end <= ptr) {
      log("kosan: warning: no snapshot of '%s' (argument %zu of kernel '%s'): "
          "it points into no buffer kosan knows\n", r.name.c_str(), i, k->name.c_str());
      continue;
    }
    uint32_t elem = dtypeSize(r.dtype);
    r.count = (end - ptr) / elem;
    snap.bytes = r.count * elem;
    if (snap.bytes > maxBytes) {
      log("kosan: warning: no snapshot of '%s' (argument %zu of kernel '%s'): "
          "%" PRIu64 " bytes is more than snapshot_max_mb=%d\n", r.name.c_str(), i,
          k->name.c_str(), snap.bytes, opts.snapshot_max_mb);
      continue;
    }
    uint64_t product = 1;
    for (int64_t d : r.shape)
      product *= uint64_t(d);
    if (!r.shape.empty() && product != r.count)
      r.shape.clear();
    r.read = anyPointer || (p.flags & (KOSAN_PARAM_READ | KOSAN_PARAM_ESCAPES));
    // Where the kernel stores to it, for reports that point at source lines.
    for (const kosan_site &site : kernelSites(k)) {
      bool writes = site.access == KOSAN_ACCESS_STORE || site.access == KOSAN_ACCESS_ATOMIC ||
                    site.access == KOSAN_ACCESS_MEMCPY_DST;
      if (site.arg_index != int32_t(i) || !writes || !site.file_str)
        continue;
      std::string where = k->module->location(site);
      if (std::find(r.store_sites.begin(), r.store_sites.end(), where) ==
              r.store_sites.end() &&
          r.store_sites.size() < 8)
        r.store_sites.push_back(where);
    }
    std::vector<char> host;
    if (r.read) {
      // In/out buffer: remember what it held, to tell whether it changed.
      if (!synced)
        cudart().cudaStreamSynchronize(stream);
      synced = true;
      host.resize(snap.bytes);
      if (cudart().cudaMemcpy(host.data(), reinterpret_cast<void *>(ptr), snap.bytes,
                     cudaMemcpyDeviceToHost) == cudaSuccess)
        r.pre_hash = fnv1a(host.data(), host.size());
      else
        cudart().cudaGetLastError();
    } else if (opts.poison) {
      if (std::optional<uint64_t> pattern = poisonPattern(r.dtype)) {
        host.resize(snap.bytes);
        for (uint64_t e = 0; e < r.count; ++e)
          std::memcpy(host.data() + e * elem, &*pattern, elem);
        if (cudart().cudaMemcpy(reinterpret_cast<void *>(ptr), host.data(), snap.bytes,
                       cudaMemcpyHostToDevice) == cudaSuccess) {
          r.poisoned = true;
          r.poison = *pattern;
        } else {
          cudart().cudaGetLastError();
        }
      }
    }
    out.push_back(std::move(snap));
  }
  return out;
}

void Runtime::finishSnapshots(std::vector<PendingSnapshot> &snapshots,
                              cudaStream_t stream) {
  if (cudart().cudaStreamSynchronize(stream) != cudaSuccess) {
    cudart().cudaGetLastError();
    log("kosan: warning: no snapshots of launch #%u: the kernel failed\n",
        snapshots.front().record.launch);
    return;
  }
  std::vector<char> host;
  for (PendingSnapshot &snap : snapshots) {
    host.resize(snap.bytes);
    if (snap.bytes &&
        cudart().cudaMemcpy(host.data(), reinterpret_cast<void *>(snap.record.address),
                   snap.bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      cudart().cudaGetLastError();
      log("kosan: warning: no snapshot of '%s' (launch #%u): cannot copy it\n",
          snap.record.name.c_str(), snap.record.launch);
      continue;
    }
    snap.record.post_hash = fnv1a(host.data(), host.size());
    trace->writeSnapshot(std::move(snap.record), host.data(), host.size());
  }
}

void Runtime::drain(bool deviceIdle) {
  std::lock_guard<std::mutex> lock(mu);
  if (!deviceReady)
    return;
  if (hostFlag->dirty || hostFlag->halted)
    deviceIdle = drainEvents(deviceIdle) || deviceIdle;
  if (deviceReady)
    harvestPrecision(deviceIdle, false);
}

bool Runtime::drainEvents(bool deviceIdle, bool noCuda) {
  bool halted = hostFlag->halted;
  bool synced = false;
  uint32_t claimed = eventCapacity;
  if (!halted && !noCuda) {
    if (!deviceIdle)
      synced = cudart().cudaDeviceSynchronize() == cudaSuccess;
    // After the trap of halt_on_error=1 the context is gone; otherwise the
    // claimed count tells how many events were lost to a full log.
    kosan_device_state st{};
    if (cudart().cudaMemcpy(&st, dState, sizeof st, cudaMemcpyDeviceToHost) == cudaSuccess)
      claimed = st.event_count;
  }
  hostFlag->dirty = 0;
  // Aggregate per (launch, site); the first offender is the first claimed.
  std::map<uint64_t, std::pair<kosan_oob_event, uint64_t>> byKey;
  uint32_t n = std::min(claimed, eventCapacity);
  for (uint32_t i = 0; i < n; ++i) {
    const kosan_oob_event &e = events[i];
    if (!e.key)
      continue;
    auto [it, inserted] = byKey.try_emplace(e.key, e, 0);
    ++it->second.second;
  }
  // Without checks=oob the clones bound no argument, but code compiled with
  // the OOB check still checks shared and local objects: not asked for, not
  // reported.
  if (oob()) {
    if (claimed > eventCapacity)
      dropped += claimed - eventCapacity;
    for (auto &[key, agg] : byKey)
      handleEvent(agg.first, agg.second);
  }
  if (noCuda) {
    std::memset(events, 0, size_t(n) * sizeof(kosan_oob_event));
    return false;
  }
  if (halted) {
    hostFlag->halted = 0;
    if (opts.halt_on_error)
      log("kosan: the kernel was stopped at the first error (halt_on_error=1)\n");
    else
      log("kosan: a kernel was stopped after %d bad accesses (stop_after): it kept "
          "failing, as a loop whose bound a bad read turned around does; the CUDA context "
          "is unusable afterwards (stop_after=0 lets such kernels run on)\n",
          opts.stop_after);
    deviceReady = false;
    deviceFailed = true;
    return synced;
  }
  std::memset(events, 0, size_t(n) * sizeof(kosan_oob_event));
  uint32_t zero = 0;
  cudart().cudaMemcpy(reinterpret_cast<char *>(dState) + offsetof(kosan_device_state, event_count),
             &zero, sizeof zero, cudaMemcpyHostToDevice);
  return synced;
}

//===----------------------------------------------------------------------===//
// Precision (checks=precision)
//===----------------------------------------------------------------------===//

void Runtime::harvestPrecision(bool deviceIdle, bool force) {
  if (!dPrecision || !precision())
    return;
  // Nothing ran since the last collection that kosan launched; after a
  // synchronisation of the whole device the flag is cheap to read, and
  // catches graph launches.
  if (!force && !precFirstLaunch && !deviceIdle)
    return;
  // The slots are read and zeroed with no kernel running, so that no update
  // is lost between the two. A failed synchronisation leaves its (sticky)
  // error for the program to see.
  if (!deviceIdle && cudart().cudaDeviceSynchronize() != cudaSuccess)
    return;
  uint32_t dirty = 0;
  if (cudart().cudaMemcpy(&dirty, &dPrecision->dirty, sizeof dirty, cudaMemcpyDeviceToHost) !=
      cudaSuccess)
    return;
  uint32_t firstLaunch = precFirstLaunch, lastLaunch = precLastLaunch;
  precFirstLaunch = precLastLaunch = 0;
  if (!dirty)
    return;
  uint32_t used = std::min(precNextBase, precCapacity);
  std::vector<kosan_prec_slot> shards(size_t(used) * KOSAN_PREC_SHARDS);
  size_t usedBytes = shards.size() * sizeof(kosan_prec_slot);
  if (used && cudart().cudaMemcpy(shards.data(), dPrecSlots, usedBytes, cudaMemcpyDeviceToHost) !=
                  cudaSuccess)
    return;
  std::vector<kosan_prec_slot> slots(used);
  for (uint32_t site = 0; site < used; ++site)
    slots[site] = kosan::prec::mergeShards(&shards[size_t(site) * KOSAN_PREC_SHARDS], KOSAN_PREC_SHARDS);
  // Zeroed on the legacy stream, which every blocking stream waits for, and
  // waited for, so that the next kernel on any stream starts from zero.
  if ((used && cudart().cudaMemset(dPrecSlots, 0, usedBytes) != cudaSuccess) ||
      cudart().cudaMemset(&dPrecision->dirty, 0, sizeof(uint32_t)) != cudaSuccess ||
      cudart().cudaStreamSynchronize(nullptr) != cudaSuccess)
    return;

  std::vector<const ModuleInfo *> owners;
  for (const auto &[handle, m] : modules)
    if (m->precSlots)
      owners.push_back(m.get());
  std::sort(owners.begin(), owners.end(),
            [](const ModuleInfo *a, const ModuleInfo *b) { return a->precBase < b->precBase; });
  std::vector<PrecisionRecord> collected;
  for (const ModuleInfo *m : owners) {
    for (uint32_t site = 0; site < m->precSlots; ++site) {
      const kosan_prec_slot &slot = slots[m->precBase + site];
      if (!slot.count && !slot.nans && !slot.overflows && !slot.underflows)
        continue;
      std::optional<PrecisionRecord> r = precisionRecord(slot, *m, site);
      if (!r)
        continue;
      // The launches since the last collection; with graphs (whose launches
      // kosan does not see) at least the one the worst value came from.
      r->launch_first = firstLaunch ? firstLaunch : slot.worst_launch;
      r->launch_last = std::max(lastLaunch, slot.worst_launch);
      if (slot.worst_launch && slot.worst_launch < r->launch_first)
        r->launch_first = slot.worst_launch;
      writeHeaderOnce();
      if (trace)
        trace->write(*r);
      collected.push_back(std::move(*r));
    }
  }
  if (collected.empty())
    return;
  collected.insert(collected.begin(), precTotals.begin(), precTotals.end());
  precTotals = precisionBySite(collected);
}

std::optional<PrecisionRecord> Runtime::precisionRecord(const kosan_prec_slot &slot,
                                                        const ModuleInfo &m,
                                                        uint32_t siteId) {
  if (siteId >= m.sites.size())
    return std::nullopt;
  const kosan_site &site = m.sites[siteId];
  PrecisionRecord r;
  switch (site.access) {
  case KOSAN_ACCESS_PREC_STORE: r.kind = "store"; break;
  case KOSAN_ACCESS_PREC_ATOMIC: r.kind = "atomic"; break;
  case KOSAN_ACCESS_PREC_NARROW: r.kind = "narrow"; break;
  case KOSAN_ACCESS_PREC_NONFINITE: r.kind = "nonfinite"; break;
  default: return std::nullopt; // not a precision site
  }
  auto dtype = [](int64_t t) {
    return t > 0 && t <= int64_t(DType::Bool) ? static_cast<DType>(t) : DType::Unknown;
  };
  r.op = m.str(site.object_str);
  r.dtype = dtype(site.size);
  if (site.access == KOSAN_ACCESS_PREC_NARROW) {
    r.from_dtype = dtype(site.arg_index & 0xff);
    r.to_shared = site.arg_index & KOSAN_PREC_NARROW_TO_SHARED;
  }
  auto where = [&](const kosan_site &s) {
    return SourceLoc{m.str(s.file_str), s.line, s.column, demangle(m.str(s.function_str)),
                     m.str(s.inlined_at_str)};
  };
  r.site = where(site);
  r.site_id = siteId;
  r.module = m.id;
  r.count = slot.count;
  r.mean_rel_err = slot.count ? slot.sum_rel_err / double(slot.count) : 0;
  r.max_rel_err = std::bit_cast<double>(slot.max_rel_err_bits);
  r.max_ulp_err = std::bit_cast<double>(slot.max_ulp_err_bits);
  r.bits_lost = prec::bitsLost(r.max_ulp_err);
  std::copy(std::begin(slot.hist), std::end(slot.hist), r.hist.begin());
  r.overflows = slot.overflows;
  r.underflows = slot.underflows;
  r.nans = slot.nans;
  r.worst.real = slot.worst_real;
  r.worst.shadow = slot.worst_shadow;
  r.worst.block = {slot.worst_block[0], slot.worst_block[1], slot.worst_block[2]};
  r.worst.thread = {slot.worst_thread[0], slot.worst_thread[1], slot.worst_thread[2]};
  r.worst.launch = slot.worst_launch;
  r.max_abs_err = std::bit_cast<double>(slot.max_abs_err_bits);
  r.scale = std::bit_cast<double>(slot.max_scale_bits);
  r.scaled_bits = scaledBits(r.max_abs_err, r.scale);
  uint32_t cause = slot.worst_cause_slot - m.precBase;
  if (slot.worst_cause_code && slot.worst_cause_slot >= m.precBase && cause < m.sites.size()) {
    const kosan_site &c = m.sites[cause];
    r.cause.kind = c.access == KOSAN_ACCESS_PREC_NARROW ? "narrow" : "op";
    r.cause.op = m.str(c.object_str);
    r.cause.dtype = dtype(c.size);
    if (c.access == KOSAN_ACCESS_PREC_NARROW)
      r.cause.from_dtype = dtype(c.arg_index & 0xff);
    r.cause.site = where(c);
    r.cause.local_log2 = prec::causeLog2(slot.worst_cause_code);
  }
  return r;
}

// The sites worst first, one line each as kosan-report prints them, and a
// summary line.
void Runtime::printPrecisionReport() {
  if (precTotals.empty() && !precModuleSeen) {
    if (opts.print_summary)
      log("kosan: precision: nothing recorded: no kernel launched was compiled with "
          "the precision check (kosan-clang++ --kosan-checks=oob,precision)\n");
    return;
  }
  // The findings (precision_verdict.h); the other sites are in the trace.
  double threshold = opts.precision_threshold;
  std::vector<PrecisionRecord> findings = precisionFindings(precTotals, threshold);
  size_t shown = 0;
  for (const PrecisionRecord &r : findings) {
    if (opts.print_limit > 0 && shown >= size_t(opts.print_limit))
      break;
    writeRaw(formatPrecisionLine(r, threshold) + "\n");
    ++shown;
  }
  if (shown < findings.size())
    log("kosan: %zu further precision findings were not printed (print_limit=%d)\n",
        findings.size() - shown, opts.print_limit);
  if (opts.print_summary)
    writeRaw(formatPrecisionSummary(precTotals, threshold) + "\n");
}

//===----------------------------------------------------------------------===//
// Order (checks=order)
//===----------------------------------------------------------------------===//

// The order state and its two logs. Without them the order check records
// nothing and everything else runs on.
void Runtime::setUpOrder(kosan_device_state &st) {
  // Per shard, rounded up; stores only when they have a trace to go to.
  uint32_t stores = uint32_t((uint64_t(opts.order_stores) + KOSAN_ORDER_SHARDS - 1) /
                             KOSAN_ORDER_SHARDS);
  uint32_t atomics = uint32_t((uint64_t(opts.order_atomics) + KOSAN_ORDER_SHARDS - 1) /
                              KOSAN_ORDER_SHARDS);
  if (!trace)
    stores = 0;
  size_t countsBytes = KOSAN_ORDER_COUNT_WORDS * sizeof(uint32_t);
  size_t denseBytes = sizeof(kosan_order_dense) * KOSAN_ORDER_DENSE_ARGS;
  size_t bytes = sizeof(kosan_order_state) + countsBytes + denseBytes +
                 KOSAN_ORDER_SHARDS * (size_t(stores) * sizeof(kosan_order_store) +
                                       size_t(atomics) * sizeof(kosan_order_atomic));
  char *mem = nullptr;
  if (cudart().cudaMalloc(reinterpret_cast<void **>(&mem), bytes) != cudaSuccess) {
    cudart().cudaGetLastError();
    log("kosan: warning: cannot allocate %zu MiB for the order logs (order_stores, "
        "order_atomics); the order check records nothing\n", bytes >> 20);
    orderFailed = true;
    return;
  }
  kosan_order_state os{};
  os.counts = reinterpret_cast<uint64_t>(mem + sizeof(kosan_order_state));
  os.dense = os.counts + countsBytes;
  os.stores = os.dense + denseBytes;
  os.atomics = os.stores + uint64_t(KOSAN_ORDER_SHARDS) * stores * sizeof(kosan_order_store);
  os.store_capacity = stores;
  os.atomic_capacity = atomics;
  if (cudart().cudaMemcpy(mem, &os, sizeof os, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudart().cudaMemset(mem + sizeof os, 0, countsBytes + denseBytes) != cudaSuccess) {
    log("kosan: warning: cannot initialise the order logs; the order check records "
        "nothing\n");
    orderFailed = true;
    return;
  }
  dOrder = reinterpret_cast<kosan_order_state *>(mem);
  orderState = os;
  st.order = reinterpret_cast<uint64_t>(dOrder);
  if (opts.verbosity >= 1)
    log("kosan: order logs: %u stores and %u atomics, %zu MiB of device memory\n",
        stores * KOSAN_ORDER_SHARDS, atomics * KOSAN_ORDER_SHARDS, bytes >> 20);
}

bool Runtime::ensureOpLog() {
  if (orderState.op_capacity)
    return true;
  if (opLogFailed || !dOrder || !trace)
    return false;
  uint32_t ops = uint32_t((uint64_t(opts.order_ops) + KOSAN_ORDER_SHARDS - 1) /
                          KOSAN_ORDER_SHARDS);
  size_t bytes = size_t(KOSAN_ORDER_SHARDS) * ops * sizeof(kosan_order_op);
  void *mem = nullptr;
  if (cudart().cudaMalloc(&mem, bytes) != cudaSuccess) {
    cudart().cudaGetLastError();
    log("kosan: warning: cannot allocate %zu MiB for the operation log (order_ops); "
        "order-ops kernels record fingerprints but no operations\n", bytes >> 20);
    opLogFailed = true;
    return false;
  }
  kosan_order_state os = orderState;
  os.ops = reinterpret_cast<uint64_t>(mem);
  os.op_capacity = ops;
  if (cudart().cudaMemcpy(dOrder, &os, sizeof os, cudaMemcpyHostToDevice) != cudaSuccess) {
    cudart().cudaFree(mem);
    log("kosan: warning: cannot initialise the operation log; order-ops kernels record "
        "no operations\n");
    opLogFailed = true;
    return false;
  }
  orderState = os;
  if (opts.verbosity >= 1)
    log("kosan: operation log (order-ops): %u operations, %zu MiB of device memory\n",
        ops * KOSAN_ORDER_SHARDS, bytes >> 20);
  return true;
}

// Each parameter the kernel stores floats through gets a shadow of its
// buffer, from the parameter's value to the buffer's end, zeroed: the
// device writes each element's fingerprint there (abi.h). What does not
// fit in order_shadow_mb, or whose buffer is unknown, goes to the log.
void Runtime::prepareDense(const KernelInfo *k, void **args, cudaStream_t stream) {
  denseOutputs.clear();
  std::map<uint32_t, uint32_t> shiftOf; // parameter -> log2 of its stored element's size
  for (const kosan_site &s : kernelSites(k)) {
    if (s.access != KOSAN_ACCESS_ORDER_STORE || s.arg_index < 0 ||
        s.arg_index >= KOSAN_ORDER_DENSE_ARGS || size_t(s.arg_index) >= k->paramSizes.size() ||
        k->paramSizes[s.arg_index] != 8)
      continue;
    DType dtype = s.size <= uint32_t(DType::Bool) ? DType(s.size) : DType::Unknown;
    // Element sizes are powers of two.
    uint32_t size = std::max<uint32_t>(dtypeSize(dtype), 1);
    shiftOf.emplace(uint32_t(s.arg_index), uint32_t(std::bit_width(size) - 1));
  }
  uint64_t limit = uint64_t(opts.order_shadow_mb) << 20, used = 0;
  for (auto [arg, shift] : shiftOf) {
    uint64_t value = 0;
    std::memcpy(&value, args[arg], 8);
    ArgBuffer buffer = argBuffer(k, arg, value);
    if (!value || buffer.end <= value)
      continue;
    uint64_t elements = (buffer.end - value) >> shift;
    uint64_t bytes = (elements * 8 + 255) & ~uint64_t(255);
    // Memory from an allocator kosan does not see is bounded by the
    // driver's allocation, which may be a pool's whole segment: zeroing and
    // copying a large shadow of it at every launch costs more than logging
    // the stores.
    constexpr uint64_t kInexactShadowLimit = 64ull << 20;
    if (!elements || used + bytes > limit || (!buffer.exact && bytes > kInexactShadowLimit))
      continue;
    denseOutputs.push_back({arg, used, elements});
    used += bytes;
  }
  if (used > densePoolBytes) {
    if (densePool)
      cudart().cudaFree(reinterpret_cast<void *>(densePool));
    densePool = 0;
    densePoolBytes = 0;
    void *mem = nullptr;
    if (cudart().cudaMalloc(&mem, used) != cudaSuccess) {
      cudart().cudaGetLastError();
      if (!denseWarned)
        log("kosan: warning: cannot allocate %" PRIu64 " MiB for the order shadows of "
            "launch outputs; their stores go to the store log (order_stores)\n", used >> 20);
      denseWarned = true;
      denseOutputs.clear();
      used = 0;
    } else {
      densePool = reinterpret_cast<uint64_t>(mem);
      densePoolBytes = used;
    }
  }
  if (denseOutputs.empty() && !denseTableUsed)
    return;
  // A pageable copy: cudaMemcpyAsync has read it when it returns.
  kosan_order_dense denseTable[KOSAN_ORDER_DENSE_ARGS] = {};
  for (DenseOutput &d : denseOutputs) {
    d.shadow += densePool;
    denseTable[d.arg] = {d.shadow, d.elements, uint32_t(0), 0u};
  }
  for (auto [arg, shift] : shiftOf)
    denseTable[arg].shift = shift;
  if ((used && cudart().cudaMemsetAsync(reinterpret_cast<void *>(densePool), 0, used, stream) !=
                   cudaSuccess) ||
      cudart().cudaMemcpyAsync(reinterpret_cast<void *>(orderState.dense), denseTable, sizeof denseTable,
                      cudaMemcpyHostToDevice, stream) != cudaSuccess) {
    cudart().cudaGetLastError();
    log("kosan: warning: cannot prepare the order shadows of launch outputs\n");
    denseOutputs.clear();
  }
  denseTableUsed = !denseOutputs.empty();
}

// The device's counts of the three logs, per shard: stores, then atomics,
// then operations.
bool Runtime::readOrderCounts(uint32_t counts[3 * KOSAN_ORDER_SHARDS]) {
  std::vector<uint32_t> words(KOSAN_ORDER_COUNT_WORDS);
  if (cudart().cudaMemcpy(words.data(), reinterpret_cast<void *>(orderState.counts),
                 words.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost) != cudaSuccess)
    return false;
  for (int log = 0; log < 3; ++log)
    for (int s = 0; s < KOSAN_ORDER_SHARDS; ++s)
      counts[log * KOSAN_ORDER_SHARDS + s] = words[KOSAN_ORDER_COUNT(log, s)];
  return true;
}

// The records of one sharded log (shard s holds counts[s] records from
// s * capacity on); *claimed: the records the device claimed in all.
template <typename Record>
static std::vector<Record> readShards(uint64_t base, uint32_t capacity, const uint32_t *counts,
                                      uint64_t *claimed) {
  *claimed = 0;
  uint32_t widest = 0;
  for (int s = 0; s < KOSAN_ORDER_SHARDS; ++s) {
    *claimed += counts[s];
    widest = std::max(widest, std::min(counts[s], capacity));
  }
  std::vector<Record> out;
  if (!widest)
    return out;
  // One copy of the first `widest` records of every shard.
  std::vector<Record> rows(size_t(KOSAN_ORDER_SHARDS) * widest);
  if (cudart().cudaMemcpy2D(rows.data(), widest * sizeof(Record), reinterpret_cast<void *>(base),
                   size_t(capacity) * sizeof(Record), widest * sizeof(Record),
                   KOSAN_ORDER_SHARDS, cudaMemcpyDeviceToHost) != cudaSuccess)
    return out;
  for (int s = 0; s < KOSAN_ORDER_SHARDS; ++s) {
    uint32_t n = std::min(counts[s], capacity);
    out.insert(out.end(), rows.begin() + size_t(s) * widest,
               rows.begin() + size_t(s) * widest + n);
  }
  return out;
}

Runtime::ArgBuffer Runtime::argBuffer(const KernelInfo *k, size_t i, uint64_t ptr) {
  ArgBuffer out;
  if (const Buffer *buf = table.find(ptr)) {
    out.end = buf->end;
    out.exact = true;
    if (buf->begin == ptr) {
      out.name = buf->name;
      out.registered = buf;
    }
  } else if (ptr >= (1ull << 32)) {
    // Memory from an allocator kosan does not see: the driver still knows
    // the allocation's extent (no device allocation lies below 4 GiB).
    CUdeviceptr base = 0;
    size_t size = 0;
    if (drv.memGetAddressRange(&base, &size, ptr) == CUDA_SUCCESS)
      out.end = base + size;
  }
  if (out.name.empty() && k->summary && i < k->summary->params.size())
    out.name = k->summary->params[i].name;
  if (out.name.empty())
    out.name = "arg" + std::to_string(i);
  return out;
}

void Runtime::harvestOrder(const LaunchState &ls, void **args) {
  KernelInfo *k = ls.kernel;
  cudaError_t e = cudart().cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    log("kosan: warning: launch #%u of '%s' failed (%s); its order records are lost\n",
        ls.record.id, k->name.c_str(), cudart().cudaGetErrorString(e));
    return;
  }
  uint32_t counts[3 * KOSAN_ORDER_SHARDS];
  if (!readOrderCounts(counts)) {
    log("kosan: warning: cannot read the order logs of launch #%u\n", ls.record.id);
    return;
  }
  uint64_t storeCount = 0, atomicCount = 0;
  std::vector<kosan_order_store> stores = readShards<kosan_order_store>(
      orderState.stores, orderState.store_capacity, counts, &storeCount);
  std::vector<kosan_order_atomic> atomics = readShards<kosan_order_atomic>(
      orderState.atomics, orderState.atomic_capacity, counts + KOSAN_ORDER_SHARDS, &atomicCount);
  uint64_t opCount = 0;
  std::vector<kosan_order_op> ops;
  if (orderState.op_capacity)
    ops = readShards<kosan_order_op>(orderState.ops, orderState.op_capacity,
                                     counts + 2 * KOSAN_ORDER_SHARDS, &opCount);
  cudart().cudaMemset(reinterpret_cast<void *>(orderState.counts), 0,
             KOSAN_ORDER_COUNT_WORDS * sizeof(uint32_t));
  for (int log = 0; log < 3; ++log) {
    uint32_t fullest = *std::max_element(counts + log * KOSAN_ORDER_SHARDS,
                                         counts + (log + 1) * KOSAN_ORDER_SHARDS);
    orderNeeded[log] = std::max(orderNeeded[log], uint64_t(fullest) * KOSAN_ORDER_SHARDS);
  }
  OrderLaunch launch;
  launch.launch = ls.record.id;
  launch.valueLeaves = opts.order_leaves == "value";
  for (size_t i = 0; i < k->paramSizes.size(); ++i) {
    uint64_t value = 0;
    if (k->paramSizes[i] == 8)
      std::memcpy(&value, args[i], 8);
    ArgBuffer buffer = argBuffer(k, i, value);
    launch.argValues.push_back(value);
    launch.argEnds.push_back(buffer.end);
    launch.argNames.push_back(std::move(buffer.name));
    launch.argDtypes.push_back(k->summary && i < k->summary->params.size()
                                   ? k->summary->params[i].dtype
                                   : uint32_t(KOSAN_DTYPE_UNKNOWN));
  }
  for (const kosan_site &s : kernelSites(k)) {
    if (s.access != KOSAN_ACCESS_ORDER_STORE && s.access != KOSAN_ACCESS_ORDER_ATOMIC)
      continue;
    OrderLaunch::Site site;
    site.arg = s.arg_index;
    site.access = s.access;
    site.dtype = s.size;
    site.op = k->module->str(s.object_str);
    site.location = k->module->location(s);
    launch.sites.push_back(std::move(site));
  }
  for (const DenseOutput &d : denseOutputs) {
    OrderLaunch::Dense dense;
    dense.arg = d.arg;
    dense.fps.resize(d.elements);
    if (cudart().cudaMemcpy(dense.fps.data(), reinterpret_cast<void *>(d.shadow), d.elements * 8,
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
      cudart().cudaGetLastError();
      log("kosan: warning: cannot read the order shadow of '%s' of launch #%u\n",
          launch.argNames[d.arg].c_str(), ls.record.id);
      continue;
    }
    launch.dense.push_back(std::move(dense));
  }
  denseOutputs.clear();
  if (denseTableUsed) {
    // Launches this one does not prepare (graph replays) log their stores.
    cudart().cudaMemset(reinterpret_cast<void *>(orderState.dense), 0,
               sizeof(kosan_order_dense) * KOSAN_ORDER_DENSE_ARGS);
    denseTableUsed = false;
  }
  OrderRecords recs = buildOrderRecords(stores.data(), stores.size(), storeCount,
                                        atomics.data(), atomics.size(), atomicCount, launch);
  orderDroppedStores += recs.summary.dropped_stores;
  orderDroppedAtomics += recs.summary.dropped_atomics;
  if (recs.summary.order_dependent_locations) {
    OrderFinding &f = orderFindings[k->mangled];
    if (!f.launches) {
      f.kernel = k->name;
      f.firstLaunch = ls.record.id;
      f.findings = k->summary ? k->summary->orderFindings : "";
      for (const OrderAtomicRecord &a : recs.atomics)
        f.buffers += (f.buffers.empty() ? "'" : ", '") + a.name + "'";
    }
    ++f.launches;
    f.locations = std::max(f.locations, recs.summary.order_dependent_locations);
  }
  bool logsOps = k->summary && (k->summary->flags & KOSAN_KERNEL_ORDER_OPS) &&
                 orderState.op_capacity;
  if (logsOps) {
    recs.summary.ops = opCount;
    recs.summary.dropped_ops = opCount - ops.size();
    orderDroppedOps += recs.summary.dropped_ops;
  }
  if (trace) {
    for (const OrderStoreRecord &r : recs.stores)
      trace->write(r);
    for (const OrderAtomicRecord &r : recs.atomics)
      trace->write(r);
    if (logsOps) {
      const ModuleInfo *m = k->module;
      trace->write(buildOrderOpsRecord(ops.data(), ops.size(), launch, [&](uint32_t id) {
        OrderOpSite site;
        if (m && id < m->sites.size() && m->sites[id].access == KOSAN_ACCESS_ORDER_OP) {
          const kosan_site &s = m->sites[id];
          site.op = m->str(s.object_str);
          site.location = m->location(s);
        } else {
          site.op = "?";
        }
        return site;
      }));
    }
    trace->write(recs.summary);
  }
}

void Runtime::printOrderReport() {
  if (orderFailed)
    return;
  if (!orderLaunches) {
    if (!launches.empty())
      log("kosan: order: nothing recorded: no kernel launched was compiled with the order "
          "check (kosan-clang++ --kosan-checks=oob,order)\n");
    return;
  }
  // Launches kosan did not see (graph replays) leave records no launch
  // collected.
  if (dOrder && deviceReady) {
    uint32_t counts[3 * KOSAN_ORDER_SHARDS];
    if (readOrderCounts(counts)) {
      uint64_t stray = 0;
      for (uint32_t c : counts)
        stray += c;
      if (stray)
        log("kosan: note: order: %" PRIu64 " records of launches replayed from CUDA graphs "
            "were not collected (the order check collects after each launch it sees)\n",
            stray);
    } else {
      cudart().cudaGetLastError();
    }
  }
  for (auto &[mangled, f] : orderFindings)
    log("kosan: order: kernel '%s': %" PRIu64 " locations of %s depend on the order "
        "float atomics land in (launch #%u%s; %" PRIu64 " launches); its results may differ "
        "from run to run\n",
        f.kernel.c_str(), f.locations, f.buffers.c_str(), f.firstLaunch,
        f.findings.empty() ? "" : ("; " + f.findings).c_str(), f.launches);
  if (orderDroppedStores)
    log("kosan: warning: order: %" PRIu64 " store records were dropped because the device "
        "log was full (order_stores=%d; order_stores=%" PRIu64 " keeps them all)\n",
        orderDroppedStores, opts.order_stores, neededCapacity(0));
  if (orderDroppedAtomics)
    log("kosan: warning: order: %" PRIu64 " atomic records were dropped because the device "
        "log was full (order_atomics=%d; order_atomics=%" PRIu64 " keeps them all)\n",
        orderDroppedAtomics, opts.order_atomics, neededCapacity(1));
  if (orderDroppedOps)
    log("kosan: warning: order: %" PRIu64 " operation records were dropped because the "
        "device log was full (order_ops=%d; order_ops=%" PRIu64 " keeps them all); "
        "kosan-diff may not find where two runs part\n",
        orderDroppedOps, opts.order_ops, neededCapacity(2));
  if (orderFindings.empty() && opts.verbosity >= 1)
    log("kosan: order: %" PRIu64 " launches fingerprinted; no result depends on the order "
        "atomics land in\n", orderLaunches);
}

KernelInfo *Runtime::instrumentedKernel(const void *func) {
  if (!instrumentedChecks() || !ensureDevice())
    return nullptr;
  KernelInfo *k = kernelFor(func);
  return k && k->instrumented ? k : nullptr;
}

void Runtime::mirrorAttribute(const void *func, int attr, int value) {
  std::lock_guard<std::mutex> lock(mu);
  KernelInfo *k = instrumentedKernel(func);
  if (k && drv.funcSetAttribute(k->instrumented, static_cast<CUfunction_attribute>(attr),
                                value) != CUDA_SUCCESS)
    log("kosan: warning: cannot set attribute %d=%d on the instrumented kernel '%s'\n", attr,
        value, k->name.c_str());
}

void Runtime::mirrorCacheConfig(const void *func, int config) {
  std::lock_guard<std::mutex> lock(mu);
  if (KernelInfo *k = instrumentedKernel(func))
    drv.funcSetCacheConfig(k->instrumented, static_cast<CUfunc_cache>(config));
}

void Runtime::onDeviceReset() {
  std::lock_guard<std::mutex> lock(mu);
  // Device memory, modules and functions are gone with the context.
  deviceReady = false;
  dState = nullptr;
  events = nullptr;
  dTable = nullptr;
  dTableCap = 0;
  tableGeneration = ~0ull;
  hostFlag = nullptr;
  dPrecision = nullptr;
  dPrecSlots = nullptr;
  dOrder = nullptr;
  precCapacity = precNextBase = 0;
  precFirstLaunch = precLastLaunch = 0;
  kernels.clear();
  modules.clear();
  table = AllocTable();
  quarantine = Quarantine(quarantine.capacity());
}

void Runtime::printSummary() {
  if (dropped)
    log("kosan: warning: %lu events were dropped because the device log was full "
        "(raise log_capacity)\n", dropped);
  if (suppressed)
    log("kosan: %lu further error sites were not printed (print_limit=%d)\n", suppressed,
        opts.print_limit);
  if (opts.print_summary && (errors || opts.verbosity >= 1))
    log("kosan: %lu bad %s at %zu %s in %zu %s (%lu uninstrumented)\n", errors,
        errors == 1 ? "access" : "accesses", reportedSites.size(),
        reportedSites.size() == 1 ? "site" : "sites", launches.size(),
        launches.size() == 1 ? "launch" : "launches", plainLaunches);
}

void Runtime::atExit() {
  // A program may exit without waiting for its kernels: their reports are
  // still to come.
  if (deviceReady)
    cudart().cudaDeviceSynchronize();
  drain(false);
  std::lock_guard<std::mutex> lock(mu);
  // Graph launches and kernels launched before a sync point kosan does not
  // see may have recorded since the last collection.
  if (deviceReady)
    harvestPrecision(false, true);
  if (trace) {
    writeHeaderOnce();
    TraceEnd end;
    end.launches = launches.size();
    end.errors = errors;
    end.reports = reports;
    end.dropped = dropped;
    end.unresolved_accesses = unresolvedArgs;
    trace->write(end);
  }
  printSummary();
  if (opts.verbosity >= 1 && unresolvedArgs)
    log("kosan: note: %lu pointer arguments pointed to no known buffer; their accesses "
        "were not bounded\n", unresolvedArgs);
  if (precision() && (dPrecision || !precTotals.empty()))
    printPrecisionReport();
  if (order())
    printOrderReport();
  if (errors && opts.error_exitcode) {
    std::fflush(nullptr);
    _exit(opts.error_exitcode);
  }
}

} // namespace
} // namespace kosan::rt

using kosan::rt::BufferOrigin;
using kosan::rt::Runtime;
using kosan::rt::runtime;
using kosan::rt::cudart;

// Allocation. An allocation that runs out of memory while the quarantine
// holds some is tried again once the quarantine is emptied.
template <typename Alloc>
static cudaError_t allocate(Alloc alloc) {
  cudaError_t e = alloc();
  if (e == cudaErrorMemoryAllocation && runtime().releaseQuarantine()) {
    cudart().cudaGetLastError(); // the failed attempt's error is not the program's
    e = alloc();
  }
  return e;
}

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

// Allocation.
static cudaError_t track(cudaError_t e, void **p, size_t bytes, BufferOrigin origin,
                         cudaStream_t stream = nullptr) {
  if (e == cudaSuccess && p && *p && runtime().instrumentedChecks()) {
    runtime().addAllocation(*p, bytes, 0, 0, origin);
    if (origin != BufferOrigin::MallocAsync) // may be inside a capture
      runtime().prepareDevice();
    runtime().poisonFresh(*p, bytes, stream, origin != BufferOrigin::MallocAsync);
  }
  Runtime::pendingSite = Runtime::pendingName = nullptr;
  return e;
}

cudaError_t __kosan_cudaMalloc(void **p, size_t bytes) {
  return track(allocate([&] { return cudart().cudaMalloc(p, bytes); }), p, bytes,
               BufferOrigin::Malloc);
}
cudaError_t __kosan_cudaMallocManaged(void **p, size_t bytes, unsigned flags) {
  return track(allocate([&] { return cudart().cudaMallocManaged(p, bytes, flags); }), p, bytes,
               BufferOrigin::MallocManaged);
}
cudaError_t __kosan_cudaMallocAsync(void **p, size_t bytes, cudaStream_t s) {
  return track(allocate([&] { return cudart().cudaMallocAsync(p, bytes, s); }), p, bytes,
               BufferOrigin::MallocAsync, s);
}
cudaError_t __kosan_cudaMallocAsync_ptsz(void **p, size_t bytes, cudaStream_t s) {
  return track(allocate([&] { return cudart().cudaMallocAsync_ptsz(p, bytes, s); }), p, bytes,
               BufferOrigin::MallocAsync, s ? s : cudaStreamPerThread);
}
cudaError_t __kosan_cudaMallocFromPoolAsync(void **p, size_t bytes, cudaMemPool_t pool,
                                            cudaStream_t s) {
  return track(allocate([&] { return cudart().cudaMallocFromPoolAsync(p, bytes, pool, s); }), p,
               bytes, BufferOrigin::MallocAsync, s);
}
cudaError_t __kosan_cudaMallocFromPoolAsync_ptsz(void **p, size_t bytes, cudaMemPool_t pool,
                                                 cudaStream_t s) {
  return track(allocate([&] { return cudart().cudaMallocFromPoolAsync_ptsz(p, bytes, pool, s); }),
               p, bytes, BufferOrigin::MallocAsync, s ? s : cudaStreamPerThread);
}
cudaError_t __kosan_cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height) {
  cudaError_t e = allocate([&] { return cudart().cudaMallocPitch(p, pitch, width, height); });
  if (e == cudaSuccess && p && *p && pitch && runtime().instrumentedChecks()) {
    runtime().addAllocation(*p, uint64_t(*pitch) * height, *pitch, width,
                            BufferOrigin::MallocPitch);
    runtime().prepareDevice();
    runtime().poisonFresh(*p, uint64_t(*pitch) * height, nullptr, true);
  }
  Runtime::pendingSite = Runtime::pendingName = nullptr;
  return e;
}

cudaError_t __kosan_cudaFree(void *p) {
  return runtime().freeAllocation(p, false, nullptr, false);
}
cudaError_t __kosan_cudaFreeAsync(void *p, cudaStream_t s) {
  return runtime().freeAllocation(p, true, s, false);
}
cudaError_t __kosan_cudaFreeAsync_ptsz(void *p, cudaStream_t s) {
  return runtime().freeAllocation(p, true, s, true);
}

// Launches.
cudaError_t __kosan_cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args,
                                     size_t shmem, cudaStream_t s) {
  return runtime().launch(f, g, b, args, shmem, s, false, false);
}
cudaError_t __kosan_cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **args,
                                          size_t shmem, cudaStream_t s) {
  return runtime().launch(f, g, b, args, shmem, s, true, false);
}
cudaError_t __kosan_cudaLaunchCooperativeKernel(const void *f, dim3 g, dim3 b, void **args,
                                                size_t shmem, cudaStream_t s) {
  return runtime().launch(f, g, b, args, shmem, s, false, true);
}
cudaError_t __kosan_cudaLaunchCooperativeKernel_ptsz(const void *f, dim3 g, dim3 b,
                                                     void **args, size_t shmem,
                                                     cudaStream_t s) {
  return runtime().launch(f, g, b, args, shmem, s, true, true);
}

cudaError_t __kosan_cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *f,
                                        void **args) {
  if (!config)
    return cudart().cudaLaunchKernelExC(config, f, args);
  return runtime().launch(f, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                          config->stream, false, false, config);
}
cudaError_t __kosan_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *f,
                                             void **args) {
  if (!config)
    return cudart().cudaLaunchKernelExC_ptsz(config, f, args);
  return runtime().launch(f, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                          config->stream, true, false, config);
}

// Synchronisation points: where the program can observe a kernel's effects,
// kosan reports what the kernel did wrong.
cudaError_t __kosan_cudaDeviceSynchronize() {
  cudaError_t e = cudart().cudaDeviceSynchronize();
  runtime().drain(true);
  return e;
}
cudaError_t __kosan_cudaStreamSynchronize(cudaStream_t s) {
  cudaError_t e = cudart().cudaStreamSynchronize(s);
  runtime().drain(false);
  return e;
}
cudaError_t __kosan_cudaStreamSynchronize_ptsz(cudaStream_t s) {
  cudaError_t e = cudart().cudaStreamSynchronize_ptsz(s);
  runtime().drain(false);
  return e;
}
cudaError_t __kosan_cudaEventSynchronize(cudaEvent_t ev) {
  cudaError_t e = cudart().cudaEventSynchronize(ev);
  runtime().drain(false);
  return e;
}
cudaError_t __kosan_cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind k) {
  cudaError_t e = cudart().cudaMemcpy(dst, src, n, k);
  runtime().drain(false);
  return e;
}
cudaError_t __kosan_cudaMemcpy_ptds(void *dst, const void *src, size_t n, cudaMemcpyKind k) {
  cudaError_t e = cudart().cudaMemcpy_ptds(dst, src, n, k);
  runtime().drain(false);
  return e;
}
cudaError_t __kosan_cudaFuncSetAttribute(const void *f, cudaFuncAttribute attr, int value) {
  cudaError_t e = cudart().cudaFuncSetAttribute(f, attr, value);
  if (e == cudaSuccess)
    runtime().mirrorAttribute(f, int(attr), value);
  return e;
}
cudaError_t __kosan_cudaFuncSetCacheConfig(const void *f, cudaFuncCache config) {
  cudaError_t e = cudart().cudaFuncSetCacheConfig(f, config);
  if (e == cudaSuccess)
    runtime().mirrorCacheConfig(f, int(config));
  return e;
}
cudaError_t __kosan_cudaDeviceReset() {
  runtime().drain(false);
  runtime().onDeviceReset();
  return cudart().cudaDeviceReset();
}

} // extern "C"

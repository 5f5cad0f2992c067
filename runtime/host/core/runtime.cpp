//===- runtime/host/core/runtime.cpp - The host runtime of kosan ----------===//
//
// The runtime's life: options, the log and the trace, the device state,
// synchronisation points, device resets and the exit. runtime.h says how
// the parts fit together.
//
//===----------------------------------------------------------------------===//
#include "core/runtime.h"

#include "core/collector.h"
#include "core/hip.h"

#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace kosan::rt {
namespace {

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


} // namespace

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
    if (trace) {
      trace->setSnapshotPayloadFile(opts.snapshot_payload);
      trace->setSnapshotThreads(unsigned(opts.snapshot_threads));
      // options.cpp keeps snapshot_writes within the enum's values.
      trace->setSnapshotPayloadWrites(TraceWriter::PayloadWrites(opts.snapshot_writes));
    }
  }
  if (opts.snapshot && opts.trace.empty())
    log("kosan: warning: snapshot=1 records into the trace: set trace=FILE too; "
        "no snapshots are taken\n");
  if (opts.uninit && !enabled(KOSAN_CHECK_OOB))
    log("kosan: warning: uninit=1 works with checks=oob only; nothing is filled\n");
  if (opts.poison && !opts.snapshot)
    log("kosan: warning: poison=1 works with snapshot=1 only; nothing is poisoned\n");
  if (opts.snapshot && !instrumentedChecks())
    log("kosan: warning: snapshot=1 needs the instrumented kernels (checks=oob or "
        "checks=precision); no snapshots are taken\n");
  // Called in this order at every hook (collector.h): at a launch, the
  // snapshots are taken before the checks' logs are collected, and the
  // checks' collectors run in the order of KOSAN_CHECKS (the race shadow
  // goes after the order shadow in dynamic shared memory).
  collectors.push_back(makeSnapshotCollector(*this));
#define KOSAN_ADD_COLLECTOR(ID, Name, name, bit, all, rank, help) \
  collectors.push_back(make##Name##Collector(*this));
  KOSAN_CHECKS(KOSAN_ADD_COLLECTOR, KOSAN_CHECK_ROW_NONE)
#undef KOSAN_ADD_COLLECTOR
}

Runtime::~Runtime() = default;

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
  // HIP programs need no driver entry points: HIP's runtime does it all.
  if (!isHip()) {
    if (!driverTried) {
      driverTried = true;
      drv.load();
    }
    if (!drv.ok)
      return fail("the CUDA driver lacks " + drv.missing +
                  " (kosan needs a driver for CUDA 12.4 or newer)");
  }
  uint32_t capacity = 64;
  while (capacity < uint32_t(opts.log_capacity))
    capacity <<= 1;
  // The flag and the events live in mapped host memory: the host reads
  // them without a copy, and they outlive a kernel that traps.
  size_t bytes = sizeof(kosan_host_flag) + 64 + size_t(capacity) * sizeof(kosan_oob_event);
  void *mapped = nullptr;
  if (gpu.allocMapped(&mapped, bytes) != cudaSuccess)
    return fail("cannot allocate mapped host memory");
  std::memset(mapped, 0, bytes);
  hostFlag = static_cast<kosan_host_flag *>(mapped);
  events = reinterpret_cast<kosan_oob_event *>(static_cast<char *>(mapped) + 64);
  eventCapacity = capacity;
  void *mappedDevice = nullptr;
  if (gpu.mappedAddress(&mappedDevice, mapped) != cudaSuccess)
    return fail("cannot map host memory into the device");
  if (gpu.alloc(reinterpret_cast<void **>(&dState), sizeof(kosan_device_state)) != cudaSuccess)
    return fail("cannot allocate the device log");
  kosan_device_state st{};
  st.abi_version = KOSAN_ABI_VERSION;
  st.event_capacity = capacity;
  st.event_budget = uint32_t(opts.stop_after);
  st.events = reinterpret_cast<uint64_t>(mappedDevice) + 64;
  st.host_flag = reinterpret_cast<uint64_t>(mappedDevice);
  for (const std::unique_ptr<Collector> &c : collectors)
    c->setUp(st);
  if (gpu.toDevice(dState, &st, sizeof st) != cudaSuccess)
    return fail("cannot initialise the device log");
  stateDevice = gpu.current();
  deviceReady = true;
  registerExitHandler();
  return true;
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
  if (isHip()) {
    hip().hipDriverGetVersion(&h.driver_version);
    hip().hipRuntimeGetVersion(&h.runtime_version);
    trace->write(h);
    return;
  }
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

void Runtime::drain(bool deviceIdle) {
  std::lock_guard<std::mutex> lock(mu);
  // A collector may find the device unusable (a kernel stopped at an
  // error): the later ones then collect nothing.
  for (const std::unique_ptr<Collector> &c : collectors) {
    if (!deviceReady)
      return;
    deviceIdle = c->drain(deviceIdle);
  }
}

void Runtime::mirrorAttribute(const void *func, int attr, int value) {
  std::lock_guard<std::mutex> lock(mu);
  KernelInfo *k = instrumentedKernel(func);
  if (k && gpu.setFunctionAttribute(k->instrumented, k->hipClone, attr, value) != cudaSuccess) {
    log("kosan: warning: cannot set attribute %d=%d on the instrumented kernel '%s'\n", attr,
        value, k->name.c_str());
  }
}

void Runtime::mirrorCacheConfig(const void *func, int config) {
  std::lock_guard<std::mutex> lock(mu);
  if (KernelInfo *k = instrumentedKernel(func))
    gpu.setCacheConfig(k->instrumented, k->hipClone, config); // a hint: may fail
}

void Runtime::onDeviceReset() {
  std::lock_guard<std::mutex> lock(mu);
  // Device memory, modules and functions are gone with the context.
  deviceReady = false;
  dState = nullptr;
  events = nullptr;
  hostFlag = nullptr;
  for (const std::unique_ptr<Collector> &c : collectors)
    c->deviceReset();
  kernels.clear();
  if (isHip()) {
    // HIP's registrations (kernels, code objects and the shadows of their
    // globals) outlive the reset: what was read from the device is read,
    // and the precision base written, again at the next launch.
    for (auto &[handle, m] : modules) {
      m->sitesLoaded = m->tableRead = false;
      m->sites.clear();
      m->summaries.clear();
      m->strings.clear();
      m->precBase = m->precSlots = 0;
    }
    for (auto &[stub, hk] : hipKernels)
      hk->info.summary = nullptr;
  } else {
    modules.clear();
  }
  table = AllocTable();
  quarantine = Quarantine(quarantine.capacity());
}

void Runtime::atExit() {
  // A program may exit without waiting for its kernels: their reports are
  // still to come.
  if (deviceReady)
    gpu.synchronize();
  drain(false);
  std::lock_guard<std::mutex> lock(mu);
  for (const std::unique_ptr<Collector> &c : collectors)
    c->exitCollect();
  if (trace) {
    writeHeaderOnce();
    TraceEnd end;
    end.launches = launches.size();
    for (const std::unique_ptr<Collector> &c : collectors)
      c->exitRecord(end);
    trace->write(end);
  }
  for (const std::unique_ptr<Collector> &c : collectors)
    c->exitReport();
  if (errors && opts.error_exitcode) {
    std::fflush(nullptr);
    _exit(opts.error_exitcode);
  }
}

} // namespace kosan::rt

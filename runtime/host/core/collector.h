//===- runtime/host/core/collector.h - What a check does on the host ------===//
//
// Each check has one collector (runtime/host/checks/<check>/), and so do
// snapshots. The core calls every collector at each of these points: the
// snapshots' first, then the checks' in the order of KOSAN_CHECKS (abi.h).
// A collector does its part there and nothing elsewhere. All hooks run with
// the runtime's mutex held.
//
// The state the collectors share with the core (the options, the driver,
// the allocation table, the trace, ...) is reachable under the names the
// core uses for it, so code moves between the two unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_COLLECTOR_H
#define KOSAN_RUNTIME_HOST_CORE_COLLECTOR_H

#include "core/runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kosan::rt {

// One instrumented launch, as the launch path builds it.
struct LaunchContext {
  LaunchState &ls;
  KernelInfo *k;
  void **args;
  cudaStream_t stream;
  bool capturing;             // the stream is being captured into a graph
  size_t shmem;               // dynamic shared memory the program asked for
  size_t launchShmem;         // what the clone is launched with
  kosan_launch_info *info;    // the clone's last parameter
  kosan_arg_bounds *bounds;   // one per parameter; unbounded unless a collector bounds it
};

class Collector {
public:
  explicit Collector(Runtime &rt);
  virtual ~Collector() = default;

  // The device state is being made: the check's device memory, and its
  // pointer in st.
  virtual void setUp(kosan_device_state &st) { (void)st; }
  // A module's site tables were read; units: each unit's suffix of its
  // per-unit globals ("" or "_<id>" under relocatable device code: a
  // check's global of KOSAN_CHECK_GLOBALS is its symbol plus the suffix)
  // and its first site.
  virtual void moduleLoaded(ModuleInfo *m,
                            const std::vector<std::pair<std::string, uint32_t>> &units) {
    (void)m, (void)units;
  }
  // The module's record went to the trace (the header is written).
  virtual void moduleRecorded(const ModuleInfo *m) { (void)m; }
  // Before and after an instrumented launch (after: it was launched).
  virtual void beforeLaunch(LaunchContext &c) { (void)c; }
  virtual void afterLaunch(LaunchContext &c) { (void)c; }
  // A synchronisation point: collects; returns whether the device is idle
  // now (deviceIdle: it was already).
  virtual bool drain(bool deviceIdle) { return deviceIdle; }
  // At exit: the last collection, the trace's end record, the report.
  virtual void exitCollect() {}
  virtual void exitRecord(TraceEnd &end) { (void)end; }
  virtual void exitReport() {}
  // cudaDeviceReset: device memory is gone.
  virtual void deviceReset() {}
  // The process got a fatal signal: report what can be read without
  // waiting for the device.
  virtual void fatalSignal() {}

protected:
  using ArgBuffer = Runtime::ArgBuffer;
  // Whether the check of bit (KOSAN_CHECK_*) runs (KOSAN_OPTIONS=checks=).
  bool enabled(uint32_t bit) const { return rt.enabled(bit); }
  bool uninit() const { return rt.uninit(); }
  void log(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  void writeRaw(const std::string &text) { rt.writeRaw(text); }
  void writeHeaderOnce() { rt.writeHeaderOnce(); }
  void loadSites(ModuleInfo *m) { rt.loadSites(m); }
  // A module's device globals, on CUDA or HIP (Runtime::moduleGlobal).
  bool moduleGlobal(const ModuleInfo *m, const std::string &name, uint64_t &ptr,
                    size_t &bytes) {
    return rt.moduleGlobal(m, name, ptr, bytes);
  }
  bool writeModuleGlobal(uint64_t dst, const void *src, size_t bytes) {
    return rt.writeModuleGlobal(dst, src, bytes);
  }
  ArgBuffer argBuffer(const KernelInfo *k, size_t i, uint64_t ptr) {
    return rt.argBuffer(k, i, ptr);
  }

  Runtime &rt;
  const Options &opts;
  DriverApi &drv;    // CUDA's modules and functions only
  const DeviceApi &gpu; // device memory and synchronisation, on CUDA or HIP
  AllocTable &table;
  Quarantine &quarantine;
  std::unique_ptr<TraceWriter> &trace;
  std::unordered_map<CUmodule, std::unique_ptr<ModuleInfo>> &modules;
  std::vector<LaunchState> &launches;
  bool &deviceReady, &deviceFailed;
  kosan_device_state *&dState;
  kosan_oob_event *&events;
  uint32_t &eventCapacity;
  kosan_host_flag *&hostFlag;
  unsigned long &errors;
  unsigned long &plainLaunches;
};

// The collectors: make<Name>Collector for each check of KOSAN_CHECKS, in
// runtime/host/checks/<name>/, and the snapshots'.
#define KOSAN_DECLARE_COLLECTOR(ID, Name, name, bit, all, rank, help) \
  std::unique_ptr<Collector> make##Name##Collector(Runtime &rt);
KOSAN_CHECKS(KOSAN_DECLARE_COLLECTOR, KOSAN_CHECK_ROW_NONE)
#undef KOSAN_DECLARE_COLLECTOR
std::unique_ptr<Collector> makeSnapshotCollector(Runtime &rt);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_COLLECTOR_H

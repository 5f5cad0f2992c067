// What the fake libamdhip64 (fake_amdhip64.cpp) records, and its GPU: device
// memory is host memory, and a launch of a kernel's instrumented clone runs
// the host function the test gave for that kernel.
#pragma once
#include "kosan/abi.h"

#include <vector_types.h>

#include <cstddef>
#include <string>
#include <vector>

struct FakeLaunch {
  const void *handle = nullptr;
  std::string name;                      // as registered for the handle
  dim3 grid, block;
  size_t shmem = 0;                      // dynamic shared memory (LDS) asked for
  std::vector<void *> args;              // the argument pointers it got
  kosan_launch_info info{};              // clones: the launch info
  std::vector<kosan_arg_bounds> bounds;  // clones: one per parameter
};

// hipFuncSetAttribute (config: -1) or hipFuncSetCacheConfig (attr: -1)
// on the kernel registered as `name`.
struct FakeAttribute {
  std::string name;
  int attr = -1, value = 0, config = -1;
};

struct FakeHipLog {
  std::vector<FakeLaunch> launches;
  std::vector<void *> frees;
  std::vector<std::string> registered;
  std::vector<std::string> registeredVars; // __hipRegisterVar's device names
  int symbolLookups = 0;                   // hipGetSymbolAddress calls
  int mallocs = 0, syncs = 0, moduleLaunches = 0, failedCloneLaunches = 0;
  int copies = 0; // synchronous copies and fills (hipMemcpy, hipMemcpy2D, hipMemset)
  int fills32 = 0; // hipMemsetD32Async calls
  std::vector<FakeAttribute> attributes;
};

// What a kernel's instrumented clone does, run once for the whole launch.
typedef void (*FakeCloneBody)(const FakeLaunch &launch);

extern "C" {
FakeHipLog *fake_hip_log();
void fake_hip_fail_mallocs(int n);
void fake_hip_clones(bool on);
void fake_hip_param_count(unsigned n);
// Every stream is being captured into a graph (hipStreamIsCapturing).
void fake_hip_capturing(bool on);
// Launches of the clone of kernel `mangled` run body.
void fake_hip_clone_body(const char *mangled, FakeCloneBody body);
// The code object of `module` (__hipRegisterFatBinary's handle) defines
// device global `name` at `mem` (host memory, bytes long): a registered
// shadow of that name resolves there (hipGetSymbolAddress). As HIP does,
// the fake aborts the process when a registered name is not defined.
void fake_hip_define_global(void **module, const char *name, void *mem, size_t bytes);
// Records a bad access into the device log of the launch's state, as the
// device runtime records one (runtime/device/oob.cpp): claims a slot,
// writes the event, its key last, and marks the host flag.
void fake_hip_record_oob(const FakeLaunch &launch, uint32_t site, uint64_t addr,
                         uint32_t size, const kosan_arg_bounds &bounds, dim3 block,
                         dim3 thread);
// Records a race into the race log of the launch's state, as the device
// runtime's report() does (runtime/device/race.cpp): claims a slot, writes
// the event, its key last, and marks the race log's flag dirty; then, when
// the log's header has halt_on_error or the race is past the stop_after budget,
// marks the flag halted and traps: returns true (the body stops there), and
// from then on every synchronisation and copy fails with
// hipErrorLaunchFailure, as the GPU's calls do after a trap.
bool fake_hip_record_race(const FakeLaunch &launch, uint32_t site, uint32_t otherSite,
                          uint32_t otherThread, uint32_t offset, uint32_t kinds, dim3 block,
                          dim3 thread);
// Records a value stored at precision slot `slot` (the module's slot base
// plus the site), as __kosan_prec_value does (runtime/device/precision.cpp)
// for one lane: the totals of the slot's first shard, with kosan/
// precision.h's arithmetic, and the precision state's dirty word.
void fake_hip_record_precision(const FakeLaunch &launch, uint32_t slot, double real,
                               double shadow, uint32_t dtype, dim3 block, dim3 thread);
// Records a float atomic into the order log, as __kosan_order_atomic does
// (runtime/device/order.cpp): claims a record of shard 0's atomics, writes
// it. where: the kernel parameter << KOSAN_ORDER_WHERE_SHIFT | offset.
void fake_hip_record_order_atomic(const FakeLaunch &launch, uint64_t where, uint64_t fp,
                                  uint64_t oldBits, uint64_t valBits, uint32_t block,
                                  uint32_t thread);
}

// A program whose kernel races on shared memory, as kosan's host runtime
// sees it, with the fake libamdhip64 (fake_amdhip64.cpp) as its GPU: the
// races the clone leaves in the race log reach the reports, and a race
// that stops the kernel (halt_on_error=1, stop_after) is reported with the
// stop (test/lit/hip/races.test). The host side of the race check is the
// same on CUDA and HIP; only the clone's body stands in for the device.
//
// The code object holds one kernel, tile_sum(float*), whose clone has two
// shared-memory sites of the array 'tile': a write (races.cu:10:13) and a
// read (races.cu:14:16). Its body records, as the device runtime does
// (fake_hip_record_race), the read of thread i (i = 0..5) of block 0
// racing with the write of thread i + 128, and stops at a trap when the
// runtime's limits say so. The program launches the kernel twice, each
// time followed by a synchronisation whose result it prints.
//
// Run with KOSAN_OPTIONS (checks=, halt_on_error=, stop_after=) set by
// the caller; the fake is loaded as KOSAN_HIP_LIBRARY.
#include "hip_shims.h"

#include "kosan/abi.h"
#include "kosan/intercepts.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using kosan::test::HipError;
using Shims = kosan::test::HipShims;

Shims loadShims() { return kosan::test::loadHipShims("hip_races"); }

const char *const kKernel = "_Z8tile_sumPf"; // tile_sum(float*)
enum : uint32_t { kWriteSite = 0, kReadSite = 1 };

// The module's site table, in abi.h's layout, as the device pass emits it.
std::vector<char> siteTable() {
  kosan::test::SiteTable table;
  auto intern = [&](const std::string &text) { return table.intern(text); };
  kosan_site sites[2] = {};
  sites[kWriteSite].function_str = intern(kKernel);
  sites[kWriteSite].file_str = intern("races.cu");
  sites[kWriteSite].line = 10;
  sites[kWriteSite].column = 13;
  sites[kWriteSite].access = KOSAN_ACCESS_STORE;
  sites[kWriteSite].space = KOSAN_SPACE_SHARED;
  sites[kWriteSite].size = 4;
  sites[kWriteSite].object_str = intern("tile_sum(float*)::tile");
  sites[kWriteSite].arg_index = -1;
  sites[kReadSite] = sites[kWriteSite];
  sites[kReadSite].line = 14;
  sites[kReadSite].column = 16;
  sites[kReadSite].access = KOSAN_ACCESS_LOAD;
  kosan_param_entry params[1] = {};
  params[0].name_str = intern("out");
  params[0].flags = KOSAN_PARAM_POINTER;
  params[0].dtype = KOSAN_DTYPE_F32;
  kosan_kernel_entry k{};
  k.name_str = intern(kKernel);
  k.nparams = 1;
  k.nsites = 2;
  return table.table("races.cu", {sites[0], sites[1]}, {k}, {params[0]});
}

int clonesRun = 0, clonesFinished = 0;

void tileSumClone(const FakeLaunch &l) {
  ++clonesRun;
  // Threads 0-5 read tile[i + 128] (offset 1024 + 4 * (i + 128) of the
  // window) while thread i + 128 writes it, with no barrier between.
  for (unsigned i = 0; i < 6; ++i)
    if (fake_hip_record_race(l, kReadSite, kWriteSite, i + 128, 1024 + 4 * (i + 128), 2u,
                             dim3(0, 0, 0), dim3(i, 0, 0)))
      return; // trapped
  ++clonesFinished;
}

char moduleHandle, stub, tableShadow;

} // namespace

int main() {
  if (!std::getenv("KOSAN_HIP_LIBRARY"))
    setenv("KOSAN_HIP_LIBRARY", KOSAN_FAKE_HIP, 1);
  Shims hip = loadShims();
  void **module = reinterpret_cast<void **>(&moduleHandle);
  static std::vector<char> table = siteTable();
  fake_hip_define_global(module, KOSAN_SITE_TABLE_SYMBOL, table.data(), table.size());
  fake_hip_clone_body(kKernel, tileSumClone);
  kosan::test::registerKernel(hip, module, &stub, kKernel);
  kosan::test::registerVar(hip, module, &tableShadow, KOSAN_SITE_TABLE_SYMBOL, table.size());

  void *out = nullptr;
  if (hip.hipMalloc(&out, 4 * sizeof(float)) != 0)
    return 1;
  void *args[] = {&out};
  fake_hip_param_count(1);
  for (int launch = 1; launch <= 2; ++launch) {
    int launched = hip.hipLaunchKernel(&stub, dim3(4), dim3(256), args, 0, nullptr);
    int synced = hip.hipDeviceSynchronize();
    std::printf("launch %d: %s, launch error %d, sync error %d\n", launch,
                fake_hip_log()->launches.back().name.c_str(), launched, synced);
  }
  std::printf("clones run %d, finished %d\n", clonesRun, clonesFinished);
  return 0;
}

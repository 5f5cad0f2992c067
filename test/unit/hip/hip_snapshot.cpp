// A HIP program whose outputs kosan snapshots (snapshot=1), with the fake
// libamdhip64 (fake_amdhip64.cpp) as its GPU: the snapshot collector copies
// the output, hashes, compresses and writes its chunks on the worker
// threads into the payload file, and kosan-diff reads them back
// (test/lit/hip/snapshot.test).
//
//   kosan-hip-snapshot ELEMENTS [CHANGED]
//
// The code object holds one kernel, fill(float const *in, float *out),
// which reads `in` and writes `out` (its parameter summary says so, as the
// device pass's does). The clone's body writes out[i], ELEMENTS floats of
// noise that zstd cannot shrink (so that each 4 MiB chunk is stored raw);
// with CHANGED, out[CHANGED] is written 0.5 above its value.
//
// Run with KOSAN_OPTIONS (snapshot=1, trace=) set by the caller; the fake
// is loaded as KOSAN_HIP_LIBRARY.
#include "hip_shims.h"

#include "kosan/abi.h"
#include "kosan/intercepts.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using kosan::test::HipError;
using Shims = kosan::test::HipShims;

Shims loadShims() { return kosan::test::loadHipShims("hip_snapshot"); }

const char *const kKernel = "_Z4fillPKfPf"; // fill(float const*, float*)

// The module's site table, in abi.h's layout: one store to out, and the
// kernel's parameter summary.
std::vector<char> siteTable() {
  kosan::test::SiteTable table;
  auto intern = [&](const std::string &text) { return table.intern(text); };
  kosan_site site{};
  site.function_str = intern(kKernel);
  site.file_str = intern("snapshot.hip");
  site.line = 9;
  site.column = 12;
  site.access = KOSAN_ACCESS_STORE;
  site.space = KOSAN_SPACE_GLOBAL;
  site.size = 4;
  site.arg_index = 1;
  kosan_param_entry params[2] = {};
  params[0].name_str = intern("in");
  params[0].flags = KOSAN_PARAM_POINTER | KOSAN_PARAM_READ;
  params[0].dtype = KOSAN_DTYPE_F32;
  params[1].name_str = intern("out");
  params[1].flags = KOSAN_PARAM_POINTER | KOSAN_PARAM_WRITTEN;
  params[1].dtype = KOSAN_DTYPE_F32;
  kosan_kernel_entry k{};
  k.name_str = intern(kKernel);
  k.nparams = 2;
  k.nsites = 1;
  return table.table("snapshot.hip", {site}, {k}, {params[0], params[1]});
}

long elements = 0, changed = -1;

void fillClone(const FakeLaunch &l) {
  float *out = *static_cast<float **>(l.args[1]);
  uint64_t x = 1;
  for (long i = 0; i < elements; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    out[i] = float(x >> 40) / float(1 << 24);
    if (i == changed)
      out[i] += 0.5f;
  }
}

char moduleHandle, stub, tableShadow;

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: kosan-hip-snapshot ELEMENTS [CHANGED]\n");
    return 2;
  }
  elements = std::atol(argv[1]);
  changed = argc > 2 ? std::atol(argv[2]) : -1;
  if (!std::getenv("KOSAN_HIP_LIBRARY"))
    setenv("KOSAN_HIP_LIBRARY", KOSAN_FAKE_HIP, 1);
  Shims hip = loadShims();
  void **module = reinterpret_cast<void **>(&moduleHandle);
  static std::vector<char> table = siteTable();
  fake_hip_define_global(module, KOSAN_SITE_TABLE_SYMBOL, table.data(), table.size());
  fake_hip_clone_body(kKernel, fillClone);
  kosan::test::registerKernel(hip, module, &stub, kKernel);
  kosan::test::registerVar(hip, module, &tableShadow, KOSAN_SITE_TABLE_SYMBOL, table.size());

  void *in = nullptr, *out = nullptr;
  hip.allocSite("snapshot.hip:20", "d_in");
  if (hip.hipMalloc(&in, 16) != 0)
    return 1;
  hip.allocSite("snapshot.hip:21", "d_out");
  if (hip.hipMalloc(&out, size_t(elements) * sizeof(float)) != 0)
    return 1;
  void *args[] = {&in, &out};
  fake_hip_param_count(2);
  if (hip.hipLaunchKernel(&stub, dim3(1), dim3(256), args, 0, nullptr) != 0 ||
      hip.hipDeviceSynchronize() != 0)
    return 1;
  std::printf("launched %s\n", fake_hip_log()->launches.back().name.c_str());
  return 0;
}

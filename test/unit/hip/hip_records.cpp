// A HIP program as kosan runs it on an AMD GPU, with the fake libamdhip64
// (fake_amdhip64.cpp) as its GPU: the records a kernel's precision and
// order clone leave in the device log reach the runtime's exit report and
// the trace that kosan-report reads (test/lit/hip/records.test).
//
// The code object holds one kernel, reduce(float const *in, float *out),
// whose clone has a precision site (a float stored to global memory) and
// an order site (a float atomicAdd to out[0]), and the site table and
// precision base the device pass puts beside it. The clone's body records
// as the device runtime does, through the fake's writers, in abi.h's
// layout: 256 stored values, one of them off by 1e-3 (about 13 bits of
// fp32), and four atomic contributions to out[0] that landed in another
// order than the log holds them.
//
// Run with KOSAN_OPTIONS (checks=, trace=) set by the caller; the fake is
// loaded as KOSAN_HIP_LIBRARY.
#include "hip_shims.h"

#include "kosan/abi.h"
#include "kosan/intercepts.h"
#include "kosan/order.h"

#include <dlfcn.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using kosan::test::HipError;
using Shims = kosan::test::HipShims;

Shims loadShims() { return kosan::test::loadHipShims("hip_records"); }

const char *const kKernel = "_Z6reducePKfPf"; // reduce(float const*, float*)
enum : uint32_t { kPrecisionSite = 0, kOrderSite = 1 };

// The module's site table, in abi.h's layout, as the device pass emits it.
std::vector<char> siteTable() {
  kosan::test::SiteTable table;
  auto intern = [&](const std::string &text) { return table.intern(text); };
  kosan_site sites[2] = {};
  sites[kPrecisionSite].function_str = intern(kKernel);
  sites[kPrecisionSite].file_str = intern("records.hip");
  sites[kPrecisionSite].line = 12;
  sites[kPrecisionSite].column = 12;
  sites[kPrecisionSite].access = KOSAN_ACCESS_PREC_STORE;
  sites[kPrecisionSite].space = KOSAN_SPACE_GLOBAL;
  sites[kPrecisionSite].size = KOSAN_DTYPE_F32;
  sites[kPrecisionSite].object_str = intern("fadd");
  sites[kPrecisionSite].arg_index = -1;
  sites[kOrderSite] = sites[kPrecisionSite];
  sites[kOrderSite].line = 20;
  sites[kOrderSite].column = 5;
  sites[kOrderSite].access = KOSAN_ACCESS_ORDER_ATOMIC;
  sites[kOrderSite].arg_index = 1;
  kosan_param_entry params[2] = {};
  params[0].name_str = intern("in");
  params[0].flags = KOSAN_PARAM_POINTER | KOSAN_PARAM_READ;
  params[0].dtype = KOSAN_DTYPE_F32;
  params[1].name_str = intern("out");
  params[1].flags = KOSAN_PARAM_POINTER | KOSAN_PARAM_ATOMIC;
  params[1].dtype = KOSAN_DTYPE_F32;
  kosan_kernel_entry k{};
  k.name_str = intern(kKernel);
  k.flags = KOSAN_KERNEL_FLOAT_ATOMICS | KOSAN_KERNEL_ORDER_FINGERPRINTS |
            KOSAN_KERNEL_ORDER_ATOMIC_LOG;
  k.nparams = 2;
  k.nsites = 2;
  k.order_str = intern("float atomics at records.hip:20 (order of arrival: may differ from "
                       "run to run)");
  return table.table("records.hip", {sites[0], sites[1]}, {k}, {params[0], params[1]});
}

// The module's precision base (KOSAN_PREC_BASE_SYMBOL), which the runtime
// writes; its initial value records nothing.
uint32_t precBase = 0x80000000u;

uint64_t floatBits(float f) { return std::bit_cast<uint32_t>(f); }

void reduceClone(const FakeLaunch &l) {
  // Precision: thread i stores 1 + i/1024 in fp32; thread 37 of block 0
  // stores a value 1e-3 off its exact result.
  for (unsigned i = 0; i < 256; ++i) {
    double exact = 1.0 + i / 1024.0;
    double real = double(float(exact + (i == 37 ? 1e-3 : 0.0)));
    fake_hip_record_precision(l, precBase + kPrecisionSite, real, exact, KOSAN_DTYPE_F32,
                              dim3(0, 0, 0), dim3(i, 0, 0));
  }
  // Order: out[0] += in[j] for j = 0..3, landing in the order 0, 1, 2, 3;
  // each record's fingerprint is its contribution's (the leaf in[j]), and
  // the log holds them as the lanes claimed their records: 2, 0, 3, 1.
  const uint64_t out0 = uint64_t(1) << KOSAN_ORDER_WHERE_SHIFT | 0;
  float before[4], value[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float sum = 0;
  for (int j = 0; j < 4; ++j) {
    before[j] = sum;
    sum += value[j];
  }
  for (int j : {2, 0, 3, 1})
    fake_hip_record_order_atomic(l, out0, kosan_fp_leaf(0, 4 * uint64_t(j)),
                                 floatBits(before[j]), floatBits(value[j]), 0, uint32_t(j));
}

char moduleHandle, stub, tableShadow, precShadow;

} // namespace

int main() {
  if (!std::getenv("KOSAN_HIP_LIBRARY"))
    setenv("KOSAN_HIP_LIBRARY", KOSAN_FAKE_HIP, 1);
  Shims hip = loadShims();
  void **module = reinterpret_cast<void **>(&moduleHandle);
  static std::vector<char> table = siteTable();
  fake_hip_define_global(module, KOSAN_SITE_TABLE_SYMBOL, table.data(), table.size());
  fake_hip_define_global(module, KOSAN_PREC_BASE_SYMBOL, &precBase, sizeof precBase);
  fake_hip_clone_body(kKernel, reduceClone);
  // The module constructor: the kernel, then kosan's globals.
  kosan::test::registerKernel(hip, module, &stub, kKernel);
  kosan::test::registerVar(hip, module, &tableShadow, KOSAN_SITE_TABLE_SYMBOL, table.size());
  kosan::test::registerVar(hip, module, &precShadow, KOSAN_PREC_BASE_SYMBOL, 4);

  void *in = nullptr, *out = nullptr;
  hip.allocSite("records.hip:30", "d_in");
  if (hip.hipMalloc(&in, 256 * sizeof(float)) != 0)
    return 1;
  hip.allocSite("records.hip:31", "d_out");
  if (hip.hipMalloc(&out, sizeof(float)) != 0)
    return 1;
  void *args[] = {&in, &out};
  fake_hip_param_count(2);
  if (hip.hipLaunchKernel(&stub, dim3(1), dim3(256), args, 0, nullptr) != 0 ||
      hip.hipDeviceSynchronize() != 0)
    return 1;
  const FakeLaunch &l = fake_hip_log()->launches.back();
  std::printf("launched %s\n", l.name.c_str());
  return 0;
}

// The host runtime's HIP interception (runtime/host/core/hip_shims.cpp,
// hip.cpp), through the real libkosan_rt.so: its __kosan_hip* replacements
// are called as instrumented host code calls them, and forward to a fake
// libamdhip64 (fake_amdhip64.cpp, loaded as KOSAN_HIP_LIBRARY) that records
// what reaches the HIP runtime, and runs the instrumented clones' bodies on
// the host. No CUDA is attached: a HIP program's path through the runtime
// must not call CUDA (the runtime would abort).
//
// Built twice: with the default checks (oob), and with KOSAN_TEST_OPTIONS
// turning on the precision and order checks too, whose collectors must
// run along on HIP, and uninit=1, whose fill of fresh allocations must
// happen on HIP as on CUDA.
#include "fake_hip.h"
#include "hip_shims.h"

#include "kosan/abi.h"
#include "kosan/intercepts.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

#ifdef KOSAN_TEST_OPTIONS
constexpr bool kAllChecks = true;
// uninit=1: fresh allocations are filled.
constexpr bool kUninit = std::string_view(KOSAN_TEST_OPTIONS).find("uninit=1") !=
                         std::string_view::npos;
#else
constexpr bool kAllChecks = false;
constexpr bool kUninit = false;
#endif

using kosan::test::HipError;
using kosan::test::Stream;
using Shims = kosan::test::HipShims;

// The replacements, resolved from the runtime by their table names.
Shims &shims() {
  static Shims s = [] {
    setenv("KOSAN_HIP_LIBRARY", KOSAN_FAKE_HIP, 1);
#ifdef KOSAN_TEST_OPTIONS
    setenv("KOSAN_OPTIONS", KOSAN_TEST_OPTIONS, 1);
#else
    unsetenv("KOSAN_OPTIONS");
#endif
    return kosan::test::loadHipShims("hip_intercept_test");
  }();
  return s;
}

FakeHipLog &fake() { return *fake_hip_log(); }

// Registers kernel `mangled` of code object `module` for host stub `stub`.
void registerKernel(const void *stub, const char *mangled, void **module = nullptr) {
  kosan::test::registerKernel(shims(), module, stub, mangled);
}

// Registers device global `name` of `module` with host shadow `shadow`.
void registerVar(void **module, void *shadow, const char *name) {
  kosan::test::registerVar(shims(), module, shadow, name, 8);
}

bool contains(const std::vector<void *> &v, void *p) {
  return std::find(v.begin(), v.end(), p) != v.end();
}

uint64_t addr(const void *p) { return reinterpret_cast<uint64_t>(p); }

// Kernels: their host stubs (any distinct addresses) and mangled names.
char stubFill, stubPlain, stubExternC, stubPitched;

TEST(HipIntercept, RegistersTheInstrumentedCloneNextToEachKernel) {
  fake_hip_clones(true);
  registerKernel(&stubFill, "_Z4fillPfPKfi"); // fill(float*, float const*, int)
  ASSERT_GE(fake().registered.size(), 2u);
  EXPECT_EQ(fake().registered[fake().registered.size() - 2], "_Z4fillPfPKfi");
  EXPECT_EQ(fake().registered.back(), "_Z4fillPfPKfi" KOSAN_CLONE_SUFFIX);
  // Registered again (another module constructor): the clone is not
  // registered twice.
  size_t registered = fake().registered.size();
  registerKernel(&stubFill, "_Z4fillPfPKfi");
  EXPECT_EQ(fake().registered.size(), registered + 1);
}

TEST(HipIntercept, LaunchGivesEachPointerArgumentItsBuffersExactBounds) {
  registerKernel(&stubFill, "_Z4fillPfPKfi");
  void *out = nullptr, *in = nullptr;
  ASSERT_EQ(shims().hipMalloc(&out, 4000), 0);
  ASSERT_EQ(shims().hipMalloc(&in, 1000), 0);
  int n = 1000;
  void *args[] = {&out, &in, &n};
  fake_hip_param_count(3);
  size_t before = fake().launches.size();
  ASSERT_EQ(shims().hipLaunchKernel(&stubFill, dim3(4), dim3(256), args, 64, nullptr), 0);
  ASSERT_EQ(fake().launches.size(), before + 1); // the clone only
  const FakeLaunch &l = fake().launches.back();
  EXPECT_EQ(l.name, "_Z4fillPfPKfi" KOSAN_CLONE_SUFFIX);
  ASSERT_EQ(l.args.size(), 3u);
  EXPECT_EQ(l.args[0], args[0]);
  EXPECT_EQ(l.args[2], args[2]);
  ASSERT_EQ(l.bounds.size(), 3u);
  EXPECT_EQ(l.bounds[0].begin, addr(out));
  EXPECT_EQ(l.bounds[0].end, addr(out) + 4000);
  EXPECT_EQ(l.bounds[1].begin, addr(in));
  EXPECT_EQ(l.bounds[1].end, addr(in) + 1000);
  // The int is not a pointer: unbounded.
  EXPECT_EQ(l.bounds[2].begin, 0u);
  EXPECT_EQ(l.bounds[2].end, ~0ull);
  EXPECT_GT(l.info.launch_id, 0u);
  EXPECT_EQ(l.info.dyn_smem_bytes, 64u);
  EXPECT_EQ(shims().hipFree(out), 0);
  EXPECT_EQ(shims().hipFree(in), 0);
}

// The parameters come from the mangled name: templates, substitutions and
// structs passed by value.
char stubTemplate, stubStruct;

TEST(HipIntercept, PointerParametersAreReadFromTheMangledName) {
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(shims().hipMalloc(&a, 256), 0);
  ASSERT_EQ(shims().hipMalloc(&b, 512), 0);
  int n = 64;
  registerKernel(&stubTemplate, "_Z3addIfLi4EEvPT_PKS0_i"); // add<float, 4>(float*, float const*, int)
  void *args[] = {&a, &b, &n};
  fake_hip_param_count(3);
  ASSERT_EQ(shims().hipLaunchKernel(&stubTemplate, dim3(1), dim3(64), args, 0, nullptr), 0);
  const FakeLaunch &t = fake().launches.back();
  ASSERT_EQ(t.bounds.size(), 3u);
  EXPECT_EQ(t.bounds[0].end, addr(a) + 256);
  EXPECT_EQ(t.bounds[1].end, addr(b) + 512);
  EXPECT_EQ(t.bounds[2].end, ~0ull);

  struct Params {
    void *p; // a pointer inside a struct passed by value: not bounded
    int n;
  } params{a, 1};
  registerKernel(&stubStruct, "_Z1k6ParamsPf"); // k(Params, float*)
  void *args2[] = {&params, &b};
  fake_hip_param_count(2);
  ASSERT_EQ(shims().hipLaunchKernel(&stubStruct, dim3(1), dim3(64), args2, 0, nullptr), 0);
  const FakeLaunch &s = fake().launches.back();
  ASSERT_EQ(s.bounds.size(), 2u);
  EXPECT_EQ(s.bounds[0].end, ~0ull);
  EXPECT_EQ(s.bounds[1].begin, addr(b));
  EXPECT_EQ(s.bounds[1].end, addr(b) + 512);
}

TEST(HipIntercept, PitchedAllocationsKeepTheirPitch) {
  registerKernel(&stubPitched, "_Z3rowPci"); // row(char*, int)
  void *p = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(shims().hipMallocPitch(&p, &pitch, 100, 10), 0);
  ASSERT_EQ(pitch, 256u);
  int w = 100;
  void *args[] = {&p, &w};
  fake_hip_param_count(2);
  ASSERT_EQ(shims().hipLaunchKernel(&stubPitched, dim3(1), dim3(100), args, 0, nullptr), 0);
  const FakeLaunch &l = fake().launches.back();
  ASSERT_EQ(l.bounds.size(), 2u);
  EXPECT_EQ(l.bounds[0].begin, addr(p));
  EXPECT_EQ(l.bounds[0].end, addr(p) + 2560);
  EXPECT_EQ(l.bounds[0].pitch, 256u);
  EXPECT_EQ(l.bounds[0].shape, (uint64_t(10) << 32) | 100);
}

TEST(HipIntercept, FreedBuffersWaitInTheQuarantineAndBoundNothing) {
  registerKernel(&stubFill, "_Z4fillPfPKfi");
  void *x = nullptr, *y = nullptr;
  ASSERT_EQ(shims().hipMalloc(&x, 4000), 0);
  ASSERT_EQ(shims().hipMalloc(&y, 4000), 0);
  ASSERT_EQ(shims().hipFree(x), 0);
  // Held, not given back: the next allocation cannot take its place.
  EXPECT_FALSE(contains(fake().frees, x));
  int n = 1000;
  void *args[] = {&y, &x, &n};
  fake_hip_param_count(3);
  ASSERT_EQ(shims().hipLaunchKernel(&stubFill, dim3(4), dim3(256), args, 0, nullptr), 0);
  const FakeLaunch &l = fake().launches.back();
  ASSERT_EQ(l.bounds.size(), 3u);
  // Empty bounds: every access through the stale pointer is reported.
  EXPECT_EQ(l.bounds[1].begin, addr(x));
  EXPECT_EQ(l.bounds[1].end, addr(x));
  EXPECT_EQ(l.bounds[0].end, addr(y) + 4000);

  // A second free is a double free: reported, refused, not passed on.
  testing::internal::CaptureStderr();
  EXPECT_EQ(shims().hipFree(x), 1); // hipErrorInvalidValue
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("ERROR: kosan: double-free of the 4000-byte buffer"), std::string::npos)
      << err;
  EXPECT_FALSE(contains(fake().frees, x));
  EXPECT_EQ(shims().hipFreeAsync(y, nullptr), 0);
  EXPECT_FALSE(contains(fake().frees, y));
}

TEST(HipIntercept, AnAllocationOutOfMemoryEmptiesTheQuarantineAndTriesAgain) {
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(shims().hipMalloc(&a, 1 << 20), 0);
  ASSERT_EQ(shims().hipFree(a), 0);
  ASSERT_FALSE(contains(fake().frees, a));
  fake_hip_fail_mallocs(1);
  int mallocs = fake().mallocs;
  EXPECT_EQ(shims().hipMalloc(&b, 1 << 20), 0);
  EXPECT_EQ(fake().mallocs, mallocs + 2);
  EXPECT_TRUE(contains(fake().frees, a));
  EXPECT_EQ(shims().hipFree(b), 0);
}

TEST(HipIntercept, ManagedMemoryIsGivenBackAtOnce) {
  void *m = nullptr;
  ASSERT_EQ(shims().hipMallocManaged(&m, 512, 1), 0);
  ASSERT_EQ(shims().hipFree(m), 0);
  EXPECT_TRUE(contains(fake().frees, m));
}

TEST(HipIntercept, AKernelWithoutACloneRunsAsTheProgramAsked) {
  fake_hip_clones(false);
  registerKernel(&stubPlain, "_Z5plainPf");
  void *p = nullptr;
  ASSERT_EQ(shims().hipMalloc(&p, 64), 0);
  void *args[] = {&p};
  fake_hip_param_count(1);
  int failed = fake().failedCloneLaunches;
  size_t before = fake().launches.size();
  ASSERT_EQ(shims().hipLaunchKernel(&stubPlain, dim3(1), dim3(16), args, 0, nullptr), 0);
  EXPECT_EQ(fake().failedCloneLaunches, failed + 1);
  ASSERT_EQ(fake().launches.size(), before + 1);
  EXPECT_EQ(fake().launches.back().handle, &stubPlain);
  EXPECT_EQ(fake().launches.back().args[0], args[0]);
  // Tried once: the next launch goes straight to the kernel.
  ASSERT_EQ(shims().hipLaunchKernel(&stubPlain, dim3(1), dim3(16), args, 0, nullptr), 0);
  EXPECT_EQ(fake().failedCloneLaunches, failed + 1);
  EXPECT_EQ(fake().launches.back().handle, &stubPlain);
  fake_hip_clones(true);
}

TEST(HipIntercept, ExternCKernelsAndModuleKernelsRunPlain) {
  size_t registered = fake().registered.size();
  registerKernel(&stubExternC, "scale"); // extern "C": no parameter types
  EXPECT_EQ(fake().registered.size(), registered + 1); // no clone
  void *p = nullptr;
  ASSERT_EQ(shims().hipMalloc(&p, 64), 0);
  void *args[] = {&p};
  fake_hip_param_count(1);
  ASSERT_EQ(shims().hipLaunchKernel(&stubExternC, dim3(1), dim3(1), args, 0, nullptr), 0);
  EXPECT_EQ(fake().launches.back().handle, &stubExternC);
  int modules = fake().moduleLaunches;
  char function;
  ASSERT_EQ(shims().hipModuleLaunchKernel(&function, 1, 1, 1, 1, 1, 1, 0, nullptr, args,
                                          nullptr),
            0);
  EXPECT_EQ(fake().moduleLaunches, modules + 1);
  EXPECT_EQ(fake().launches.back().handle, &function);
}

// tail(float *out, float const *in, int n): its clone, as it runs on the
// fake GPU. Thread i of the launch stores out[i] for i <= n (one element
// more than n): each store is checked against out's bounds from the launch
// info, and one outside them is recorded at site cloneSite.
uint32_t cloneSite = 0;
void tailClone(const FakeLaunch &l) {
  uint64_t out = 0;
  int n = 0;
  std::memcpy(&out, l.args[0], sizeof out);
  std::memcpy(&n, l.args[2], sizeof n);
  const kosan_arg_bounds &b = l.bounds[0];
  for (unsigned block = 0; block < l.grid.x; ++block)
    for (unsigned thread = 0; thread < l.block.x; ++thread) {
      uint64_t i = uint64_t(block) * l.block.x + thread;
      uint64_t addr = out + i * sizeof(float);
      if (i <= uint64_t(n) && (addr < b.begin || addr + sizeof(float) > b.end))
        fake_hip_record_oob(l, cloneSite, addr, sizeof(float), b, dim3(block, 0, 0),
                            dim3(thread, 0, 0));
    }
}
char stubTail;

// Launches tail (or another kernel of its parameters, through stub) over
// 1024 threads and synchronises; what kosan reported.
std::string runTail(void *out, void *in, int n, uint32_t site, const void *stub = &stubTail) {
  cloneSite = site;
  void *args[] = {&out, &in, &n};
  fake_hip_param_count(3);
  testing::internal::CaptureStderr();
  EXPECT_EQ(shims().hipLaunchKernel(stub, dim3(4), dim3(256), args, 0, nullptr), 0);
  EXPECT_EQ(shims().hipDeviceSynchronize(), 0);
  return testing::internal::GetCapturedStderr();
}

// Registers tail and allocates its buffers, n floats each: out as the
// program's variable `name` at `site` (as the pass names it), then in.
struct TailBuffers {
  void *out = nullptr, *in = nullptr;
};
TailBuffers setUpTail(size_t n, const char *site, const char *name) {
  fake_hip_clones(true);
  fake_hip_clone_body("_Z4tailPfPKfi", tailClone);
  registerKernel(&stubTail, "_Z4tailPfPKfi");
  TailBuffers b;
  shims().allocSite(site, name);
  EXPECT_EQ(shims().hipMalloc(&b.out, n * sizeof(float)), 0);
  EXPECT_EQ(shims().hipMalloc(&b.in, n * sizeof(float)), 0);
  return b;
}

TEST(HipIntercept, AStorePastTheEndIsReportedWithTheBufferAndTheKernel) {
  auto [out, in] = setUpTail(1000, "tail.hip:30", "d_out");

  // The twin in bounds: n = 999 stores out[0..999], all of the buffer.
  std::string quiet = runTail(out, in, 999, 1);
  EXPECT_EQ(quiet.find("ERROR"), std::string::npos) << quiet;
  const FakeLaunch &l = fake().launches.back();
  EXPECT_EQ(l.name, "_Z4tailPfPKfi" KOSAN_CLONE_SUFFIX);
  EXPECT_NE(l.info.state, 0u); // the device log, set up on HIP

  // n = 1000: thread 232 of block 3 stores out[1000], just past the end.
  std::string err = runTail(out, in, 1000, 2);
  EXPECT_NE(err.find("ERROR: kosan: global-buffer-overflow: ACCESS of size 4 in kernel "
                     "'tail(float*, float const*, int)'"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("first by block (3,0,0) thread (232,0,0); this site fired 1 time"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("is 0 bytes after the 4000-byte buffer 'd_out'"), std::string::npos)
      << err;
  EXPECT_NE(err.find("'d_out' was allocated at tail.hip:30"), std::string::npos) << err;
  EXPECT_NE(err.find("SUMMARY: kosan: global-buffer-overflow"), std::string::npos) << err;

  // Collected once: the next synchronisation finds the log empty.
  testing::internal::CaptureStderr();
  EXPECT_EQ(shims().hipDeviceSynchronize(), 0);
  std::string after = testing::internal::GetCapturedStderr();
  EXPECT_EQ(after.find("ERROR"), std::string::npos) << after;
}

TEST(HipIntercept, AStoreThroughAFreedBufferIsAUseAfterFree) {
  auto [gone, in] = setUpTail(64, "tail.hip:40", "d_gone");
  ASSERT_EQ(shims().hipFree(gone), 0);
  std::string err = runTail(gone, in, 63, 3);
  EXPECT_NE(err.find("ERROR: kosan: heap-use-after-free"), std::string::npos) << err;
  EXPECT_NE(err.find("this site fired 64 times"), std::string::npos) << err;
  EXPECT_NE(err.find("the 256-byte freed buffer 'd_gone'"), std::string::npos) << err;
}

// uninit=1 (the all-checks build): what hipMalloc, hipMallocManaged,
// hipMallocAsync and hipMallocPitch return holds KOSAN_UNINIT_PATTERN in
// every word, as on CUDA; without it nothing is filled (the fake's fresh
// memory is zeros).
TEST(HipIntercept, FreshAllocationsHoldTheUninitPatternUnderUninit) {
  auto words = [](void *p, size_t bytes) {
    std::vector<uint32_t> w(bytes / 4);
    std::memcpy(w.data(), p, w.size() * 4);
    return w;
  };
  int fills = fake().fills32;
  void *a = nullptr, *m = nullptr, *s = nullptr, *pitched = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(shims().hipMalloc(&a, 1000), 0);
  ASSERT_EQ(shims().hipMallocManaged(&m, 64, 1), 0);
  ASSERT_EQ(shims().hipMallocAsync(&s, 4096, nullptr), 0);
  ASSERT_EQ(shims().hipMallocPitch(&pitched, &pitch, 100, 3), 0);
  for (auto [p, bytes] : {std::pair{a, size_t(1000)}, {m, size_t(64)}, {s, size_t(4096)},
                          {pitched, pitch * 3}})
    EXPECT_EQ(words(p, bytes),
              std::vector<uint32_t>(bytes / 4, kUninit ? KOSAN_UNINIT_PATTERN : 0u))
        << bytes << "-byte allocation";
  EXPECT_EQ(fake().fills32 - fills, kUninit ? 4 : 0);
  for (void *p : {a, m, s, pitched})
    EXPECT_EQ(shims().hipFree(p), 0);
}

// copy(float *out, float const *in, int n): its clone, as it runs on the
// fake GPU with uninit=1's check (KOSAN_LAUNCH_UNINIT): thread i reads
// in[i], and a value with the fill's bits is recorded at site
// copySite | KOSAN_SITE_UNINIT_BIT, as the device runtime records it.
uint32_t copySite = 0;
void copyClone(const FakeLaunch &l) {
  if (!(l.info.flags & KOSAN_LAUNCH_UNINIT))
    return;
  uint64_t in = 0;
  int n = 0;
  std::memcpy(&in, l.args[1], sizeof in);
  std::memcpy(&n, l.args[2], sizeof n);
  for (unsigned block = 0; block < l.grid.x; ++block)
    for (unsigned thread = 0; thread < l.block.x; ++thread) {
      uint64_t i = uint64_t(block) * l.block.x + thread;
      uint32_t bits = 0;
      if (i >= uint64_t(n))
        continue;
      std::memcpy(&bits, reinterpret_cast<const void *>(in + 4 * i), 4);
      if (bits == KOSAN_UNINIT_PATTERN)
        fake_hip_record_oob(l, copySite | KOSAN_SITE_UNINIT_BIT, in + 4 * i, 4, l.bounds[1],
                            dim3(block, 0, 0), dim3(thread, 0, 0));
    }
}
char stubCopy;

TEST(HipIntercept, AReadOfMemoryNobodyWroteIsReportedUnderUninit) {
  fake_hip_clones(true);
  fake_hip_clone_body("_Z4copyPfPKfi", copyClone);
  registerKernel(&stubCopy, "_Z4copyPfPKfi");
  void *out = nullptr, *in = nullptr;
  ASSERT_EQ(shims().hipMalloc(&out, 1000 * sizeof(float)), 0);
  shims().allocSite("copy.hip:12", "d_in");
  ASSERT_EQ(shims().hipMalloc(&in, 1000 * sizeof(float)), 0);
  // The program wrote the first 600 elements (device memory is the host's).
  std::vector<float> ones(600, 1.0f);
  std::memcpy(in, ones.data(), 600 * sizeof(float));
  copySite = 5;
  int n = 1000;
  void *args[] = {&out, &in, &n};
  fake_hip_param_count(3);
  testing::internal::CaptureStderr();
  ASSERT_EQ(shims().hipLaunchKernel(&stubCopy, dim3(4), dim3(256), args, 0, nullptr), 0);
  ASSERT_EQ(shims().hipDeviceSynchronize(), 0);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ((fake().launches.back().info.flags & KOSAN_LAUNCH_UNINIT) != 0, kUninit);
  if (!kUninit) {
    EXPECT_EQ(err.find("ERROR"), std::string::npos) << err;
  } else {
    // Element 600 is thread 88 of block 2.
    EXPECT_NE(err.find("ERROR: kosan: use-of-uninitialized-value: READ of size 4 in kernel "
                       "'copy(float*, float const*, int)'"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("first by block (2,0,0) thread (88,0,0); this site fired 400 times"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("inside the 4000-byte buffer 'd_in'"), std::string::npos) << err;
    EXPECT_NE(err.find("'d_in' was allocated at copy.hip:12"), std::string::npos) << err;
    EXPECT_NE(err.find("SUMMARY: kosan: use-of-uninitialized-value"), std::string::npos) << err;
  }
  EXPECT_EQ(shims().hipFree(out), 0);
  EXPECT_EQ(shims().hipFree(in), 0);
}

// hipFuncSetAttribute and hipFuncSetCacheConfig on a kernel hold for its
// clone too, which is what runs: the opt-in to more dynamic shared memory
// (LDS) above all.
TEST(HipIntercept, AttributesSetOnAKernelHoldForItsClone) {
  fake_hip_clones(true);
  registerKernel(&stubFill, "_Z4fillPfPKfi");
  size_t before = fake().attributes.size();
  ASSERT_EQ(shims().hipFuncSetAttribute(&stubFill, 8 /* MaxDynamicSharedMemorySize */, 65536),
            0);
  ASSERT_EQ(fake().attributes.size(), before + 2);
  const FakeAttribute &program = fake().attributes[before];
  const FakeAttribute &clone = fake().attributes[before + 1];
  EXPECT_EQ(program.name, "_Z4fillPfPKfi");
  EXPECT_EQ(clone.name, "_Z4fillPfPKfi" KOSAN_CLONE_SUFFIX);
  EXPECT_EQ(clone.attr, 8);
  EXPECT_EQ(clone.value, 65536);

  ASSERT_EQ(shims().hipFuncSetCacheConfig(&stubFill, 2 /* hipFuncCachePreferShared */), 0);
  ASSERT_EQ(fake().attributes.size(), before + 4);
  EXPECT_EQ(fake().attributes.back().name, "_Z4fillPfPKfi" KOSAN_CLONE_SUFFIX);
  EXPECT_EQ(fake().attributes.back().config, 2);

  // A kernel without a clone (extern "C"): the program's call only.
  registerKernel(&stubExternC, "scale");
  before = fake().attributes.size();
  ASSERT_EQ(shims().hipFuncSetAttribute(&stubExternC, 8, 65536), 0);
  ASSERT_EQ(fake().attributes.size(), before + 1);
  EXPECT_EQ(fake().attributes.back().name, "scale");
}

TEST(HipIntercept, ClonesGetTheDeviceStateOfTheChecksAskedFor) {
  auto [out, in] = setUpTail(64, "", "");
  std::string err = runTail(out, in, 10, 4);
  EXPECT_EQ(err.find("ERROR"), std::string::npos) << err;
  const auto *st = reinterpret_cast<const kosan_device_state *>(
      fake().launches.back().info.state);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->abi_version, uint32_t(KOSAN_ABI_VERSION));
  EXPECT_EQ(st->event_capacity, 4096u); // log_capacity's default
  EXPECT_NE(st->events, 0u);
  EXPECT_NE(st->host_flag, 0u);
  EXPECT_EQ(st->precision != 0, kAllChecks);
  EXPECT_EQ(st->order != 0, kAllChecks);
}

TEST(HipIntercept, ALaunchCapturedIntoAGraphMakesNoSynchronousCall) {
  // New buffers: the next launch would copy the table of buffers to the
  // device (or set the device log up, if none ran yet).
  auto [out, in] = setUpTail(64, "", "");
  int n = 10;
  void *args[] = {&out, &in, &n};
  fake_hip_param_count(3);
  int copies = fake().copies, mallocs = fake().mallocs;
  size_t launches = fake().launches.size();
  fake_hip_capturing(true);
  EXPECT_EQ(shims().hipLaunchKernel(&stubTail, dim3(1), dim3(64), args, 0, nullptr), 0);
  fake_hip_capturing(false);
  EXPECT_EQ(fake().launches.size(), launches + 1); // captured, as the program asked
  EXPECT_EQ(fake().copies, copies);
  EXPECT_EQ(fake().mallocs, mallocs);
  // Outside the capture the same launch makes them.
  EXPECT_EQ(shims().hipLaunchKernel(&stubTail, dim3(1), dim3(64), args, 0, nullptr), 0);
  EXPECT_GT(fake().copies, copies);
}

// A site table in abi.h's layout, as the device pass emits it into a code
// object: kernel `kernel` (out, in, n) whose clone has one site, an access
// of kind `access` through out at file:line:column.
std::vector<char> siteTable(const std::string &kernel, const std::string &file, uint32_t line,
                            uint32_t column, uint32_t access, uint32_t kernelFlags = 0) {
  kosan::test::SiteTable table;
  auto intern = [&](const std::string &text) { return table.intern(text); };
  kosan_site site{};
  site.function_str = intern(kernel);
  site.file_str = intern(file);
  site.line = line;
  site.column = column;
  site.access = access;
  site.space = KOSAN_SPACE_GLOBAL;
  site.size = 4;
  site.object_str = intern("out");
  site.arg_index = 0;
  kosan_param_entry params[3] = {};
  params[0].name_str = intern("out");
  params[0].flags = KOSAN_PARAM_POINTER | KOSAN_PARAM_WRITTEN;
  params[1].name_str = intern("in");
  params[1].flags = KOSAN_PARAM_POINTER | KOSAN_PARAM_READ;
  params[2].name_str = intern("n");
  kosan_kernel_entry k{};
  k.name_str = intern(kernel);
  k.flags = kernelFlags;
  k.nparams = 3;
  k.nsites = 1;
  return table.table(file, {site}, {k}, {params[0], params[1], params[2]});
}

// A code object built by kosan: its kernels and kosan's device globals,
// registered as the module constructor registers them.
char moduleSited, stubSited, stubUnlisted, tableShadow, precShadow, userShadow;
uint32_t precBase = 0x80000000u; // the device's initial value: nothing recorded
void **sitedModule() { return reinterpret_cast<void **>(&moduleSited); }
void registerSitedModule() {
  static std::vector<char> table =
      siteTable("_Z5sitedPfPKfi", "sited.hip", 33, 7, KOSAN_ACCESS_STORE);
  static bool done = false;
  if (done)
    return;
  done = true;
  fake_hip_clones(true);
  fake_hip_clone_body("_Z5sitedPfPKfi", tailClone);
  fake_hip_clone_body("_Z8unlistedPfPKfi", tailClone);
  fake_hip_define_global(sitedModule(), KOSAN_SITE_TABLE_SYMBOL, table.data(), table.size());
  fake_hip_define_global(sitedModule(), KOSAN_PREC_BASE_SYMBOL, &precBase, sizeof precBase);
  registerKernel(&stubSited, "_Z5sitedPfPKfi", sitedModule());
  registerKernel(&stubUnlisted, "_Z8unlistedPfPKfi", sitedModule());
  registerVar(sitedModule(), &tableShadow, KOSAN_SITE_TABLE_SYMBOL);
  if (kAllChecks) // the host pass registers it with the precision check only
    registerVar(sitedModule(), &precShadow, KOSAN_PREC_BASE_SYMBOL);
  // The program's own __device__ variable, which the fake's code object
  // does not define: HIP (and the fake) would abort if kosan asked for it.
  registerVar(sitedModule(), &userShadow, "counter");
}

TEST(HipIntercept, RegisteredVariablesReachHip) {
  registerSitedModule();
  const std::vector<std::string> &vars = fake().registeredVars;
  EXPECT_NE(std::find(vars.begin(), vars.end(), KOSAN_SITE_TABLE_SYMBOL), vars.end());
  EXPECT_NE(std::find(vars.begin(), vars.end(), "counter"), vars.end());
}

TEST(HipIntercept, AReportNamesTheSourceLineAndTheAccessFromTheCodeObjectsSiteTable) {
  registerSitedModule();
  void *out = nullptr, *in = nullptr;
  shims().allocSite("sited.hip:20", "d_out");
  ASSERT_EQ(shims().hipMalloc(&out, 1000 * sizeof(float)), 0);
  ASSERT_EQ(shims().hipMalloc(&in, 1000 * sizeof(float)), 0);
  int lookups = fake().symbolLookups;
  std::string err = runTail(out, in, 1000, 0, &stubSited);
  EXPECT_EQ(fake().launches.back().name, "_Z5sitedPfPKfi" KOSAN_CLONE_SUFFIX);
  EXPECT_NE(err.find("ERROR: kosan: global-buffer-overflow: WRITE of size 4 in kernel "
                     "'sited(float*, float const*, int)' at sited.hip:33:7"),
            std::string::npos)
      << err;
  // The buffer by the kernel's parameter the site names, as on CUDA, and
  // by the program's variable.
  EXPECT_NE(err.find("is 0 bytes after the 4000-byte buffer 'out'"), std::string::npos)
      << err;
  EXPECT_NE(err.find("'out' was allocated at sited.hip:20 as 'd_out'"), std::string::npos)
      << err;
  EXPECT_NE(err.find("SUMMARY: kosan: global-buffer-overflow sited.hip:33:7"),
            std::string::npos)
      << err;
  // kosan's globals only, each once: the table, and the precision base
  // when the precision check runs.
  EXPECT_EQ(fake().symbolLookups - lookups, kAllChecks ? 2 : 1);
  // The precision check gave the module's site its slots: the base the
  // device adds to its site ids is inside precision_sites (64).
  if (kAllChecks)
    EXPECT_LT(precBase, 64u);
  else
    EXPECT_EQ(precBase, 0x80000000u);

  // Read once per module.
  lookups = fake().symbolLookups;
  std::string again = runTail(out, in, 999, 0, &stubSited);
  EXPECT_EQ(again.find("ERROR"), std::string::npos) << again;
  EXPECT_EQ(fake().symbolLookups, lookups);
}

TEST(HipIntercept, AKernelTheSiteTableDoesNotListRunsPlain) {
  // HIP aborts at the launch of a kernel its code object lacks: a kernel
  // the module's table does not list has no clone, and none is launched.
  registerSitedModule();
  void *out = nullptr, *in = nullptr;
  ASSERT_EQ(shims().hipMalloc(&out, 64), 0);
  ASSERT_EQ(shims().hipMalloc(&in, 64), 0);
  std::string err = runTail(out, in, 10, 0, &stubUnlisted);
  EXPECT_EQ(err.find("ERROR"), std::string::npos) << err;
  EXPECT_EQ(fake().launches.back().handle, &stubUnlisted);
  EXPECT_EQ(fake().launches.back().name, "_Z8unlistedPfPKfi");
}

// A clone with checks=order's fingerprints of dynamic shared memory (LDS)
// keeps a shadow of it past the program's bytes: the launch asks for
// both, and past 48 KiB the clone is opted into that much with
// hipFuncSetAttribute, as cuFuncSetAttribute does on CUDA.
char moduleLds, stubLds, ldsTableShadow;
TEST(HipIntercept, AnOrderCloneIsOptedIntoTheLdsItsShadowNeeds) {
  static std::vector<char> table =
      siteTable("_Z3ldsPfPKfi", "lds.hip", 9, 3, KOSAN_ACCESS_STORE,
                KOSAN_KERNEL_ORDER_FINGERPRINTS | 1u << KOSAN_KERNEL_DYNSMEM_SHADOW_SHIFT);
  void **module = reinterpret_cast<void **>(&moduleLds);
  fake_hip_clones(true);
  fake_hip_define_global(module, KOSAN_SITE_TABLE_SYMBOL, table.data(), table.size());
  registerKernel(&stubLds, "_Z3ldsPfPKfi", module);
  registerVar(module, &ldsTableShadow, KOSAN_SITE_TABLE_SYMBOL);
  void *out = nullptr, *in = nullptr;
  ASSERT_EQ(shims().hipMalloc(&out, 64), 0);
  ASSERT_EQ(shims().hipMalloc(&in, 64), 0);
  int n = 16;
  void *args[] = {&out, &in, &n};
  fake_hip_param_count(3);
  size_t attributes = fake().attributes.size();
  ASSERT_EQ(shims().hipLaunchKernel(&stubLds, dim3(1), dim3(64), args, 40960, nullptr), 0);
  const FakeLaunch &l = fake().launches.back();
  EXPECT_EQ(l.name, "_Z3ldsPfPKfi" KOSAN_CLONE_SUFFIX);
  EXPECT_EQ(l.info.dyn_smem_bytes, 40960u); // the program's own
  EXPECT_EQ(l.shmem, 2 * 40960u);           // and its fingerprints'
  ASSERT_EQ(fake().attributes.size(), attributes + 1);
  EXPECT_EQ(fake().attributes.back().name, "_Z3ldsPfPKfi" KOSAN_CLONE_SUFFIX);
  EXPECT_EQ(fake().attributes.back().attr, 8); // hipFuncAttributeMaxDynamicSharedMemorySize
  EXPECT_EQ(fake().attributes.back().value, 2 * 40960);
  // Opted in once.
  ASSERT_EQ(shims().hipLaunchKernel(&stubLds, dim3(1), dim3(64), args, 40960, nullptr), 0);
  EXPECT_EQ(fake().attributes.size(), attributes + 1);
}

TEST(HipIntercept, SynchronisationsReachHip) {
  int syncs = fake().syncs;
  EXPECT_EQ(shims().hipDeviceSynchronize(), 0);
  EXPECT_EQ(fake().syncs, syncs + 1);
}

} // namespace

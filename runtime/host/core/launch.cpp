//===- runtime/host/core/launch.cpp - The launch path ---------------------===//
//
// A launch the program asks for runs the kernel's instrumented clone, with
// the launch info (kosan_launch_info, then one kosan_arg_bounds per
// parameter) as its last parameter; the collectors fill in their part
// before it and collect after it. A kernel without a usable clone, or
// one launched on another device, runs as the program asked. CUDA and HIP
// launches share this path (launchKernel); what differs is how the clone
// is launched (here for CUDA, hip.cpp for HIP).
//
//===----------------------------------------------------------------------===//
#include "core/collector.h"
#include "core/entry_test.h"
#include "core/runtime.h"

#include "kosan/bounds.h"

#include <cstring>

// cudaLaunchAttribute and CUlaunchAttribute are the same record (the runtime
// passes them to the driver as they are); kosan relies on that for
// cudaLaunchKernelEx (clusters, programmatic launch, priorities).
static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute),
              "launch attributes differ between runtime and driver");

namespace kosan::rt {

KernelInfo *Runtime::kernelToLaunch(const void *func, bool capturing) {
  bool ready = capturing ? deviceReady : ensureDevice();
  KernelInfo *k = ready ? kernelFor(func) : nullptr;
  if (k && k->module && !capturing) {
    loadSites(k->module);
    auto it = k->module->summaries.find(k->mangled);
    k->summary = it == k->module->summaries.end() ? nullptr : &it->second;
  }
  int device = gpu.current();
  if (k && device != stateDevice) {
    // The device log lives on one GPU; launches elsewhere run plain for now.
    if (!warnedOtherDevice)
      log("kosan: warning: kernels launched on device %d run uninstrumented "
          "(kosan checks device %d only)\n", device, stateDevice);
    warnedOtherDevice = true;
    k = nullptr;
  }
  return k;
}

CUresult Runtime::launchClone(KernelInfo *k, dim3 grid, dim3 block, size_t launchShmem,
                              CUstream s, void **params, bool cooperative,
                              const cudaLaunchConfig_t *ex) {
  for (const KernelInfo::Mirror &mirror : k->mirrors)
    if (CUresult e = drv.memcpyDtoDAsync(mirror.to, mirror.from, mirror.bytes, s))
      return e;
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
    return drv.launchKernelEx(&config, k->instrumented, params, nullptr);
  }
  if (cooperative)
    return drv.launchCooperativeKernel(k->instrumented, grid.x, grid.y, grid.z, block.x,
                                       block.y, block.z, launchShmem, s, params);
  return drv.launchKernel(k->instrumented, grid.x, grid.y, grid.z, block.x, block.y,
                          block.z, launchShmem, s, params, nullptr);
}

static_assert(sizeof(kosan::rt::FastBlocks::lo) == sizeof(kosan_launch_info::fast_lo) &&
                  sizeof(kosan::rt::FastBlocks::n) == sizeof(kosan_launch_info::fast_n),
              "the launch info holds a FastBlocks");

// A kernel copied whole (checks=oob): the blocks that run it as compiled,
// proven on the launch's values (core/entry_test.h). None where the kernel
// has no usable program; then every block runs the checked copy.
void Runtime::decideEntryTest(KernelInfo *k, const LaunchRequest &r,
                              std::vector<uint64_t> &info) {
  auto *hdr = reinterpret_cast<kosan_launch_info *>(info.data());
  const KernelSummaryInfo *s = k->summary;
  if (!s || s->entryOps.empty())
    return;
  if (!k->entryChecked) {
    k->entryChecked = true;
    k->entryWhy = checkEntryProgram(s->entryOps, k->paramSizes, k->infoBytes);
    if (!k->entryWhy.empty())
      log("kosan: warning: kernel '%s' has a malformed entry test (%s); every block runs "
          "its checked copy\n", k->name.c_str(), k->entryWhy.c_str());
  }
  if (!k->entryWhy.empty())
    return;
  EntryLaunch L;
  L.args = r.args;
  L.nargs = k->paramSizes.size();
  L.info = reinterpret_cast<const uint8_t *>(info.data());
  L.infoBytes = k->infoBytes;
  const dim3 *dims[2] = {&r.grid, &r.block};
  for (unsigned i = 0; i < 2; ++i) {
    uint32_t *to = i ? L.block : L.grid;
    to[0] = dims[i]->x;
    to[1] = dims[i]->y;
    to[2] = dims[i]->z;
  }
  std::vector<uint64_t> leaves = entryLeaves(s->entryOps, L);
  if (leaves != k->entryLeaves) {
    k->entryAnswer = fastBlocks(s->entryOps, s->entryDims, L);
    k->entryLeaves = std::move(leaves);
  }
  std::memcpy(hdr->fast_lo, k->entryAnswer.lo, sizeof hdr->fast_lo);
  std::memcpy(hdr->fast_n, k->entryAnswer.n, sizeof hdr->fast_n);
  if (opts.verbosity >= 2) {
    uint64_t blocks = uint64_t(r.grid.x) * r.grid.y * r.grid.z,
             fast = uint64_t(hdr->fast_n[0]) * hdr->fast_n[1] * hdr->fast_n[2];
    log("kosan: launch #%u %s: %llu of %llu blocks run as compiled, x in [%u, %u) y in "
        "[%u, %u) z in [%u, %u) (the entry test, decided on the host)\n",
        hdr->launch_id, k->name.c_str(), (unsigned long long)fast,
        (unsigned long long)blocks, hdr->fast_lo[0], hdr->fast_lo[0] + hdr->fast_n[0],
        hdr->fast_lo[1], hdr->fast_lo[1] + hdr->fast_n[1], hdr->fast_lo[2],
        hdr->fast_lo[2] + hdr->fast_n[2]);
  }
}

int Runtime::launchKernel(const LaunchRequest &r) {
  std::unique_lock<std::mutex> lock(mu);
  registerExitHandler();
  KernelInfo *k = kernelToLaunch(r.func, r.capturing);
  writeHeaderOnce();

  LaunchState ls;
  ls.kernel = k;
  ls.record.id = launches.size() + 1;
  ls.record.grid = {r.grid.x, r.grid.y, r.grid.z};
  ls.record.block = {r.block.x, r.block.y, r.block.z};
  ls.record.shared_bytes = r.shmem;
  ls.record.stream = reinterpret_cast<uint64_t>(r.stream);
  if (k) {
    ls.record.kernel = k->name;
    ls.record.mangled = k->mangled;
    ls.record.module = k->module ? k->module->id : 0;
  }

  int result = 0;
  bool instrumented = false;
  std::vector<uint64_t> info(k && k->hasClone() ? k->infoBytes / 8 : 0, 0);
  auto *hdr = reinterpret_cast<kosan_launch_info *>(info.data());
  LaunchContext context{ls, k, r.args, r.stream, r.capturing, r.shmem, r.shmem, hdr,
                        hdr ? reinterpret_cast<kosan_arg_bounds *>(hdr + 1) : nullptr};
  if (k && k->hasClone()) {
    hdr->state = reinterpret_cast<uint64_t>(dState);
    hdr->launch_id = ls.record.id;
    hdr->flags = 0;
    hdr->dyn_smem_bytes = r.shmem;
    std::vector<void *> params(k->paramSizes.size() + 1);
    for (size_t i = 0; i < k->paramSizes.size(); ++i) {
      params[i] = r.args[i];
      context.bounds[i] = unboundedArg();
    }
    params.back() = info.data();
    for (const std::unique_ptr<Collector> &c : collectors)
      c->beforeLaunch(context);
    decideEntryTest(k, r, info);
    instrumented = r.clone(k, params.data(), context.launchShmem);
  }
  if (!instrumented) {
    ++plainLaunches;
    if (k && opts.verbosity >= 1 && !k->whyPlain.empty())
      log("kosan: note: kernel '%s' runs uninstrumented: %s\n", k->name.c_str(),
          k->whyPlain.c_str());
    lock.unlock();
    result = r.plain();
    lock.lock();
  }
  ls.record.instrumented = instrumented;
  if (ls.record.kernel.empty())
    ls.record.kernel = "<unknown kernel>";
  if (trace)
    trace->write(ls.record);
  if (instrumented)
    for (const std::unique_ptr<Collector> &c : collectors)
      c->afterLaunch(context);
  if (opts.verbosity >= 2)
    log("kosan: launch #%u %s grid (%u,%u,%u) block (%u,%u,%u)%s\n", ls.record.id,
        ls.record.kernel.c_str(), r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y,
        r.block.z, instrumented ? "" : " [uninstrumented]");
  launches.push_back(std::move(ls));
  return result;
}

cudaError_t Runtime::launch(const void *func, dim3 grid, dim3 block,
                            void **args, size_t shmem, cudaStream_t stream,
                            bool perThread, bool cooperative,
                            const cudaLaunchConfig_t *ex,
                            const std::function<cudaError_t()> &plain) {
  if (!instrumentedChecks())
    return plain();

  // While a stream is captured into a graph, synchronous CUDA calls are
  // illegal (they would invalidate the capture): use what is set up already.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudart().cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudart().cudaGetLastError();
    capture = cudaStreamCaptureStatusNone;
  }
  LaunchRequest r{func, grid, block, args, shmem, stream,
                  capture != cudaStreamCaptureStatusNone, nullptr, nullptr};
  r.clone = [&](KernelInfo *k, void **params, size_t launchShmem) {
    CUstream s = reinterpret_cast<CUstream>(stream);
    if (!stream)
      s = perThread ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    CUresult e = launchClone(k, grid, block, launchShmem, s, params, cooperative, ex);
    if (e == CUDA_SUCCESS)
      return true;
    // Driver and runtime error codes coincide for launch failures.
    const char *why = cudart().cudaGetErrorString(static_cast<cudaError_t>(e));
    log("kosan: warning: the instrumented kernel '%s' failed to launch (%s); "
        "running it uninstrumented\n", k->name.c_str(), why);
    k->instrumented = nullptr;
    k->whyPlain = why;
    return false;
  };
  r.plain = [&] { return int(plain()); };
  return static_cast<cudaError_t>(launchKernel(r));
}

} // namespace kosan::rt

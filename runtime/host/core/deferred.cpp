//===- runtime/host/core/deferred.cpp - Clones compiled at their first launch ===//
//
// A deferred clone (abi.h, KOSAN_DEFERRED_SYMBOL; passes/core/
// DeferredClones.h) is bitcode or PTX kept in its plain module. At the
// kernel's first checked launch the table is read, the clone's code
// decompressed, bitcode made PTX (core/clone_codegen.h, which keeps it on
// disk), the PTX compiled by the driver (which caches the machine code on
// disk, keyed by the text, for later runs), and the plain module's global
// addresses written into the loaded clone's table. Its copies go through a stream of
// their own, so it may happen while a stream is being captured into a graph.
//
//===----------------------------------------------------------------------===//
#include "core/clone_codegen.h"
#include "core/deferred_table.h"
#include "core/modules.h"
#include "core/runtime.h"

#include "kosan/zstd_api.h"

#include <chrono>
#include <cstring>

namespace kosan::rt {

namespace {

// A copy between host and device memory on a stream of its own, so that a
// capture on another stream (even in the global mode) is neither joined nor
// broken.
bool copyAside(const DriverApi &drv, void *host, CUdeviceptr device, size_t bytes, bool toDevice) {
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  bool exchanged = drv.threadExchangeStreamCaptureMode &&
                   drv.threadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS;
  CUstream s = nullptr;
  bool ok = drv.streamCreate(&s, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS &&
            (toDevice ? drv.memcpyHtoDAsync(device, host, bytes, s)
                      : drv.memcpyDtoHAsync(host, device, bytes, s)) == CUDA_SUCCESS &&
            drv.streamSynchronize(s) == CUDA_SUCCESS;
  if (s && drv.streamDestroy)
    drv.streamDestroy(s);
  if (exchanged)
    drv.threadExchangeStreamCaptureMode(&mode);
  return ok;
}

} // namespace

bool Runtime::readDeferredTable(ModuleInfo *m) {
  if (m->deferredRead)
    return !m->deferred.empty();
  m->deferredRead = true;
  uint64_t ptr = 0;
  size_t bytes = 0;
  if (isHip() || !moduleGlobal(m, KOSAN_DEFERRED_SYMBOL, ptr, bytes))
    return false;
  std::vector<char> blob(bytes);
  if (!copyAside(drv, blob.data(), ptr, bytes, /*toDevice=*/false)) {
    log("kosan: warning: cannot read a module's deferred clones; its kernels run "
        "uninstrumented\n");
    return false;
  }
  std::string why = parseDeferredTable(blob, m->deferredTable);
  if (!why.empty()) {
    log("kosan: warning: cannot read a module's deferred clones (%s); its kernels run "
        "uninstrumented\n", why.c_str());
    m->deferredTable = {};
    return false;
  }
  m->deferred = std::move(blob); // the kernels' frames point into it
  return true;
}

CUfunction Runtime::loadDeferredClone(KernelInfo *k, const std::string &cloneName) {
  k->whyPlain = "it was compiled without kosan";
  ModuleInfo *m = k->module;
  if (!readDeferredTable(m))
    return nullptr;
  const DeferredKernel *e = nullptr;
  for (const DeferredKernel &d : m->deferredTable.kernels)
    if (d.name == cloneName)
      e = &d;
  if (!e)
    return nullptr;
  const detail::ZstdApi *z = detail::zstdApi();
  if (!z) {
    k->whyPlain = "its instrumented code is zstd-compressed and libzstd was not found";
    return nullptr;
  }
  const DeferredTable &t = m->deferredTable;
  if (m->deferredCode.size() != t.payloadBytes) {
    if (t.payloadBytes > detail::maxZstdContentSize(t.zpayload.size())) {
      k->whyPlain = "its deferred clone's table is damaged";
      return nullptr;
    }
    m->deferredCode.assign(t.payloadBytes, '\0');
    size_t got = z->decompress(m->deferredCode.data(), m->deferredCode.size(), t.zpayload.data(),
                               t.zpayload.size());
    if (z->isError(got) || got != t.payloadBytes) {
      m->deferredCode.clear();
      k->whyPlain = "its deferred clone does not decompress";
      return nullptr;
    }
  }
  std::string_view code = std::string_view(m->deferredCode).substr(e->codeOffset, e->codeBytes);
  std::string ptx;
  double codegenSeconds = 0;
  auto noteCompiling = [&](size_t bytes, const char *form) {
    log("kosan: note: compiling the instrumented clone of '%s' (%zu KiB of %s) for its first "
        "checked launch\n",
        k->name.c_str(), bytes >> 10, form);
  };
  if (t.format == KOSAN_DEFERRED_BITCODE) {
    // A large clone takes seconds, LLVM's and then the driver's
    // (cudaTensorCoreGemm's, 0.5 MB of bitcode: 17-22 s): say so before
    // the wait, when it is not in the cache, not only after it.
    ClonePtx made = clonePtx(code, uint64_t(opts.ptx_cache_mb) << 20, [&] {
      if (code.size() >= (256u << 10))
        noteCompiling(code.size(), "bitcode");
    });
    if (made.ptx.empty()) {
      k->whyPlain = "its instrumented clone cannot be made PTX: " + made.why;
      return nullptr;
    }
    codegenSeconds = made.seconds;
    ptx = std::move(made.ptx);
  } else {
    ptx = code;
  }
  // The plain module's globals: addresses for the gtab, sources of mirrors.
  std::vector<uint64_t> addresses;
  std::vector<std::pair<std::string, KernelInfo::Mirror>> mirrors;
  for (const DeferredRef &r : e->refs) {
    uint64_t ptr = 0;
    size_t bytes = 0;
    if (!moduleGlobal(m, r.name, ptr, bytes)) {
      k->whyPlain = "its module lacks the global '" + r.name + "' its deferred clone uses";
      return nullptr;
    }
    if (r.kind == KOSAN_DEFERRED_MIRROR)
      mirrors.push_back({r.name, {ptr, 0, bytes}});
    else
      addresses.push_back(ptr);
  }
  char errors[4096] = {0};
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors, reinterpret_cast<void *>(uintptr_t(sizeof errors - 1))};
  // The same for a clone kept as PTX (cudaTensorCoreGemm's, 1.7 MB: 12-19 s).
  if (t.format == KOSAN_DEFERRED_PTX && ptx.size() >= (512u << 10))
    noteCompiling(ptx.size(), "PTX");
  auto start = std::chrono::steady_clock::now();
  CUmodule mod = nullptr;
  CUresult rc = drv.moduleLoadDataEx ? drv.moduleLoadDataEx(&mod, ptx.c_str(), 2, keys, values)
                                     : CUDA_ERROR_NOT_SUPPORTED;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rc != CUDA_SUCCESS) {
    const char *name = nullptr;
    if (drv.getErrorName)
      drv.getErrorName(rc, &name);
    std::string first(errors, strnlen(errors, sizeof errors));
    first = first.substr(0, first.find('\n'));
    k->whyPlain = std::string("the driver cannot compile its instrumented clone (") +
                  (name ? name : "error " + std::to_string(int(rc))) +
                  (first.empty() ? "" : ": " + first) + ")";
    return nullptr;
  }
  CUfunction f = nullptr;
  if (drv.moduleGetFunction(&f, mod, cloneName.c_str()) != CUDA_SUCCESS) {
    k->whyPlain = "its deferred clone lacks the kernel";
    return nullptr;
  }
  // The addresses go into the loaded module, not its text: the text stays
  // the same from run to run, so the driver's cache of compiled code finds it.
  if (!addresses.empty()) {
    CUdeviceptr gtab = 0;
    size_t bytes = 0;
    if (drv.moduleGetGlobal(&gtab, &bytes, mod, KOSAN_DEFERRED_GTAB_SYMBOL) != CUDA_SUCCESS ||
        bytes != addresses.size() * sizeof(uint64_t) || !drv.memcpyHtoDAsync ||
        !copyAside(drv, addresses.data(), gtab, bytes, /*toDevice=*/true)) {
      k->whyPlain = "cannot give its deferred clone the addresses of the module's globals";
      return nullptr;
    }
  }
  for (auto &[name, mirror] : mirrors) {
    CUdeviceptr to = 0;
    size_t bytes = 0;
    if (drv.moduleGetGlobal(&to, &bytes, mod, name.c_str()) != CUDA_SUCCESS ||
        bytes != mirror.bytes) {
      k->whyPlain = "its deferred clone lacks its copy of '" + name + "'";
      return nullptr;
    }
    mirror.to = to;
    k->mirrors.push_back(mirror);
  }
  if (seconds + codegenSeconds >= 1.0)
    log("kosan: note: compiled the instrumented clone of '%s' in %.1f s (LLVM %.1f s, the "
        "driver %.1f s; first checked launch, kept on disk for later runs)\n",
        k->name.c_str(), seconds + codegenSeconds, codegenSeconds, seconds);
  k->whyPlain.clear();
  return f;
}

} // namespace kosan::rt

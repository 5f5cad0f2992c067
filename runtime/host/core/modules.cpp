//===- runtime/host/core/modules.cpp - Modules and kernels kosan has seen --===//
//
// The registry of the driver's modules and kernels: a module's site tables
// are read at its first launch, a kernel's instrumented clone is found by
// name (abi.h).
//
//===----------------------------------------------------------------------===//
#include "core/modules.h"

#include "core/collector.h"
#include "core/hip.h"
#include "core/runtime.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace kosan::rt {

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

SourceLoc ModuleInfo::sourceLoc(const kosan_site &s) const {
  SourceLoc loc;
  loc.file = str(s.file_str);
  loc.line = s.line;
  loc.column = s.column;
  loc.function = demangle(str(s.function_str));
  loc.inlined_at = str(s.inlined_at_str);
  return loc;
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
  // (HIP: one table; relocatable device code is not read there.)
  std::vector<std::string> units = {""};
  uint64_t ptr = 0;
  size_t bytes = 0;
  if (!isHip() && !moduleGlobal(m, KOSAN_SITE_TABLE_SYMBOL, ptr, bytes))
    units = rdcUnits(m->handle);
  std::vector<std::pair<std::string, uint32_t>> unitsRead; // (suffix, unit's first site)
  for (const std::string &unit : units) {
    std::string suffix = unit.empty() ? "" : "_" + unit;
    if (!moduleGlobal(m, KOSAN_SITE_TABLE_SYMBOL + suffix, ptr, bytes) ||
        bytes < sizeof(kosan_site_table_header))
      continue;
    std::vector<char> blob(bytes);
    if (readModuleGlobal(blob.data(), ptr, bytes)) {
      kosan_site_table_header h;
      std::memcpy(&h, blob.data(), sizeof h);
      size_t sitesAt = sizeof h;
      size_t kernelsAt = sitesAt + size_t(h.nsites) * sizeof(kosan_site);
      size_t paramsAt = kernelsAt + size_t(h.nkernels) * sizeof(kosan_kernel_entry);
      size_t opsAt = paramsAt + size_t(h.nparams) * sizeof(kosan_param_entry);
      size_t stringsAt = opsAt + size_t(h.nentry_ops) * sizeof(kosan_entry_op);
      size_t need = stringsAt + h.strings_size;
      if (h.magic == KOSAN_SITE_TABLE_MAGIC && h.abi_version == KOSAN_ABI_VERSION &&
          need <= bytes) {
        m->tableRead = true;
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
          uint64_t basePtr = 0;
          size_t baseBytes = 0;
          if (!moduleGlobal(m, KOSAN_SITE_BASE_PREFIX + unit, basePtr, baseBytes) ||
              baseBytes != sizeof(uint32_t) ||
              !writeModuleGlobal(basePtr, &siteBase, sizeof siteBase))
            log("kosan: warning: cannot set the site base of a unit of relocatable device "
                "code; its reports may name wrong source locations\n");
        }
        unitsRead.push_back({suffix, siteBase});
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
          if (e.nentry_ops && size_t(e.first_entry_op) + e.nentry_ops <= h.nentry_ops) {
            info.entryOps.resize(e.nentry_ops);
            std::memcpy(info.entryOps.data(),
                        blob.data() + opsAt + size_t(e.first_entry_op) * sizeof(kosan_entry_op),
                        e.nentry_ops * sizeof(kosan_entry_op));
            info.entryDims = e.entry_dims;
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
  for (const std::unique_ptr<Collector> &c : collectors)
    c->moduleLoaded(m, unitsRead);
  writeHeaderOnce();
  if (trace)
    trace->write(rec);
  for (const std::unique_ptr<Collector> &c : collectors)
    c->moduleRecorded(m);
}

bool Runtime::moduleGlobal(const ModuleInfo *m, const std::string &name, uint64_t &ptr,
                           size_t &bytes) {
  if (!isHip()) {
    CUdeviceptr p = 0;
    if (drv.moduleGetGlobal(&p, &bytes, m->handle, name.c_str()) != CUDA_SUCCESS)
      return false;
    ptr = p;
    return true;
  }
  // Only a global the host pass registered: HIP aborts the process when a
  // registered name is not in the code object, and knows no other.
  auto it = m->hipGlobals.find(name);
  if (it == m->hipGlobals.end())
    return false;
  void *p = nullptr;
  if (hip().hipGetSymbolAddress(&p, it->second) != hipSuccess ||
      hip().hipGetSymbolSize(&bytes, it->second) != hipSuccess) {
    hip().hipGetLastError(); // not the program's error
    return false;
  }
  ptr = reinterpret_cast<uint64_t>(p);
  return true;
}

bool Runtime::readModuleGlobal(void *dst, uint64_t src, size_t bytes) {
  if (!isHip())
    return drv.memcpyDtoH(dst, src, bytes) == CUDA_SUCCESS;
  if (gpu.toHost(dst, reinterpret_cast<const void *>(src), bytes) == cudaSuccess)
    return true;
  gpu.clearError();
  return false;
}

bool Runtime::writeModuleGlobal(uint64_t dst, const void *src, size_t bytes) {
  if (!isHip())
    return drv.memcpyHtoD(dst, src, bytes) == CUDA_SUCCESS;
  if (gpu.toDevice(reinterpret_cast<void *>(dst), src, bytes) == cudaSuccess)
    return true;
  gpu.clearError();
  return false;
}

KernelInfo *Runtime::kernelFor(const void *func) {
  if (isHip()) {
    auto it = hipKernels.find(func);
    return it == hipKernels.end() ? nullptr : &it->second->info;
  }
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
    k->instrumented = loadDeferredClone(k, cloneName);
    if (!k->instrumented)
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
    uint64_t base = 0, size = 0;
    if (gpu.addressRange(ptr, base, size))
      out.end = base + size;
  }
  if (out.name.empty() && k->summary && i < k->summary->params.size())
    out.name = k->summary->params[i].name;
  if (out.name.empty())
    out.name = "arg" + std::to_string(i);
  return out;
}

KernelInfo *Runtime::instrumentedKernel(const void *func) {
  if (!instrumentedChecks() || !ensureDevice())
    return nullptr;
  KernelInfo *k = kernelFor(func);
  return k && k->hasClone() ? k : nullptr;
}

} // namespace kosan::rt

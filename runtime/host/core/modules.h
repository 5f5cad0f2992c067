//===- runtime/host/core/modules.h - Modules and kernels kosan has seen ----===//
//
// The driver's modules and kernels as kosan knows them: each module's site
// table and kernel summaries (abi.h), each kernel's instrumented clone.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_MODULES_H
#define KOSAN_RUNTIME_HOST_CORE_MODULES_H

#include "core/deferred_table.h"
#include "core/entry_test.h"
#include "kosan/abi.h"
#include "kosan/trace.h"

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace kosan::rt {

// What the pass found a kernel does with its parameters (abi.h).
struct ParamInfo {
  std::string name;
  uint32_t flags = 0, dtype = KOSAN_DTYPE_UNKNOWN;
};
struct KernelSummaryInfo {
  uint32_t flags = 0;
  std::string orderFindings;      // checks=order's static findings
  std::vector<ParamInfo> params;
  uint32_t firstSite = 0, nsites = 0;
  // checks=oob, a kernel copied whole: its entry program and the
  // dimensions of blockIdx it reads (abi.h, kosan_entry_op).
  std::vector<kosan_entry_op> entryOps;
  uint32_t entryDims = 0;
};

struct ModuleInfo {
  uint32_t id = 0;
  // CUDA: the driver's module; HIP: the code object's handle
  // (__hipRegisterFatBinary's).
  CUmodule handle = nullptr;
  bool sitesLoaded = false;
  bool tableRead = false;         // a site table of this kosan version was read
  // HIP: kosan's device globals of the code object, by name: their host
  // shadows (__hipRegisterVar).
  std::unordered_map<std::string, const void *> hipGlobals;
  // Precision slots [precBase, precBase + precSlots) of the process-wide
  // array; precSlots 0: the module has none (compiled without the precision
  // check, or the array was full).
  uint32_t precBase = 0, precSlots = 0;
  std::vector<kosan_site> sites;
  std::unordered_map<std::string, KernelSummaryInfo> summaries; // by mangled name
  // Its deferred clones (abi.h, KOSAN_DEFERRED_SYMBOL): the table, read at
  // the first launch that needs it (empty: none); the driver's modules of
  // the clones live as long as the context, like the module's own.
  bool deferredRead = false;
  std::vector<char> deferred;
  DeferredTable deferredTable;
  std::string deferredCode; // the payload, decompressed at the first clone wanted
  std::string strings;
  std::string str(uint32_t off) const {
    return off < strings.size() ? std::string(strings.c_str() + off) : "";
  }
  // "file:line:col" of one of its sites.
  std::string location(const kosan_site &s) const {
    return str(s.file_str) + ":" + std::to_string(s.line) + ":" + std::to_string(s.column);
  }
  // One of its sites as a report's source location.
  SourceLoc sourceLoc(const kosan_site &s) const;
};

struct KernelInfo {
  CUfunction plain = nullptr, instrumented = nullptr;
  // HIP: the handle the clone is registered under, null when it has none or
  // it would not launch.
  const void *hipClone = nullptr;
  ModuleInfo *module = nullptr;
  std::string mangled, name;
  // Of the original kernel's parameters. HIP, where the mangled name gives
  // the types and not the sizes: 8 for a pointer, 0 for anything else.
  std::vector<size_t> paramSizes;
  size_t infoBytes = 0;
  std::string whyPlain;           // set when the instrumented clone is unusable
  const KernelSummaryInfo *summary = nullptr;
  bool warnedNoSummary = false;
  int dynSmemOptIn = 0;           // the clone's opt-in to dynamic shared memory, as set
  // A deferred clone's copies of the module's __constant__ variables,
  // refreshed from the module's before each launch of it.
  struct Mirror {
    CUdeviceptr from = 0, to = 0;
    size_t bytes = 0;
  };
  std::vector<Mirror> mirrors;
  // The entry program's check (checkEntryProgram) once made: "" when it
  // can be evaluated; and the last launch's leaves and answer.
  bool entryChecked = false;
  std::string entryWhy;
  std::vector<uint64_t> entryLeaves;
  FastBlocks entryAnswer;
  bool hasClone() const { return instrumented || hipClone; }
};

// The sites of kernel k's clone; none when its module's table does not
// describe it.
inline std::span<const kosan_site> kernelSites(const KernelInfo *k) {
  if (!k->module || !k->summary)
    return {};
  const std::vector<kosan_site> &all = k->module->sites;
  size_t first = std::min<size_t>(k->summary->firstSite, all.size());
  size_t end = std::min<size_t>(first + k->summary->nsites, all.size());
  return std::span<const kosan_site>(all).subspan(first, end - first);
}

// The demangled name ("x" stays "x"; a name that does not demangle stays as
// it is).
std::string demangle(const std::string &name);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_MODULES_H

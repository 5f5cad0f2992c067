//===- passes/core/SiteTable.h - Per-module table of instrumented sites ---------===//
//
// Each instrumented access gets a site id; the table maps ids to source
// locations and the object accessed, and is emitted as one device global
// (KOSAN_SITE_TABLE_SYMBOL) that the host runtime reads on the first event of
// a module. Nothing of it is touched on the device.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_SITETABLE_H
#define KOSAN_PASSES_SITETABLE_H

#include "core/EntryProgram.h"
#include "core/KernelSummary.h"
#include "kosan/abi.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace llvm {
class Instruction;
class Module;
} // namespace llvm

namespace kosan {

// Headers of clang and of the CUDA toolkit, whose inline wrappers are not
// where a user would look for a bug (sites are reported at their callers).
bool isToolkitFile(llvm::StringRef file);

class SiteTable {
public:
  // Adds a site for I (its debug location, or its position when there is
  // none) and returns its id.
  uint32_t add(const llvm::Instruction &I, kosan_access_kind access,
               unsigned space, uint32_t size, llvm::StringRef object,
               int argIndex);
  size_t size() const { return sites.size(); }
  // Records kernel `mangledName`'s parameter summary and its sites
  // [firstSite, firstSite + nsites).
  // orderFlags and orderText: checks=order's findings (KOSAN_KERNEL_* bits).
  // entry: the program of its entry test, when the host decides it.
  void addKernel(llvm::StringRef mangledName, const KernelSummary &summary,
                 uint32_t firstSite, uint32_t nsites, uint32_t orderFlags = 0,
                 llvm::StringRef orderText = "", const EntryProgram *entry = nullptr);
  const kosan_site &site(uint32_t id) const { return sites[id]; }
  llvm::StringRef str(uint32_t offset) const { return strings.data() + offset; }
  // Emits the table into M as KOSAN_SITE_TABLE_SYMBOL.
  void emit(llvm::Module &M, llvm::StringRef fpMode) ;

private:
  uint32_t intern(llvm::StringRef s);
  std::vector<kosan_site> sites;
  std::vector<kosan_kernel_entry> kernels;
  std::vector<kosan_param_entry> params;
  std::vector<kosan_entry_op> entryOps;
  std::string strings = std::string(1, '\0');
  llvm::StringMap<uint32_t> interned;
};

} // namespace kosan

#endif

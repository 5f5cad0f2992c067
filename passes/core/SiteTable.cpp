//===- passes/core/SiteTable.cpp - Per-module table of instrumented sites -------===//
#include "core/SiteTable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstring>

using namespace llvm;

namespace kosan {

uint32_t SiteTable::intern(StringRef s) {
  if (s.empty())
    return 0;
  auto [it, inserted] = interned.try_emplace(s, strings.size());
  if (inserted) {
    strings.append(s.data(), s.size());
    strings.push_back('\0');
  }
  return it->second;
}

bool isToolkitFile(StringRef file) {
  if (file.contains("/lib/clang/") || file.contains("/cuda/include/") ||
      file.starts_with("/usr/include/") || file.starts_with("/usr/local/include/") ||
      file.contains("/targets/x86_64-linux/include/"))
    return true;
  // A versioned toolkit (/usr/local/cuda-13.0/...), not any folder whose
  // name starts with "cuda-".
  size_t at = file.find("/cuda-");
  return at != StringRef::npos && at + 6 < file.size() &&
         isDigit(file[at + 6]) && file.drop_front(at).contains("/include/");
}

static std::string withoutCloneSuffix(StringRef name) {
  name.consume_back(KOSAN_CLONE_SUFFIX);
  return name.str();
}

uint32_t SiteTable::add(const Instruction &I, kosan_access_kind access,
                        unsigned space, uint32_t size, StringRef object,
                        int argIndex) {
  kosan_site s{};
  s.access = access;
  s.space = space;
  s.size = size;
  s.object_str = intern(object);
  s.arg_index = argIndex;
  const Function &F = *I.getFunction();
  if (const DILocation *Loc = I.getDebugLoc()) {
    // Report the innermost frame in the program's own code: an access inside
    // an inlined toolkit wrapper (atomicAdd, __ldg) belongs to its caller.
    const DILocation *primary = Loc;
    while (isToolkitFile(primary->getFilename()) && primary->getInlinedAt())
      primary = primary->getInlinedAt();
    s.line = primary->getLine();
    s.column = primary->getColumn();
    s.file_str = intern(primary->getFilename());
    // The function the access is written in (the inlined callee, if any).
    StringRef fn;
    if (const DISubprogram *SP = primary->getScope()->getSubprogram())
      fn = SP->getLinkageName().empty() ? SP->getName() : SP->getLinkageName();
    s.function_str = intern(fn.empty() ? withoutCloneSuffix(F.getName()) : fn.str());
    const DILocation *outer = primary;
    while (outer->getInlinedAt())
      outer = outer->getInlinedAt();
    if (outer != primary)
      s.inlined_at_str = intern((outer->getFilename() + ":" +
                                 Twine(outer->getLine()))
                                    .str());
  } else {
    // No debug information: the position of the instruction in its function
    // still tells two sites apart; column carries it, line stays 0.
    unsigned index = 0;
    for (const Instruction &J : instructions(F)) {
      if (&J == &I)
        break;
      ++index;
    }
    s.column = index;
    s.function_str = intern(withoutCloneSuffix(F.getName()));
  }
  sites.push_back(s);
  return sites.size() - 1;
}

void SiteTable::addKernel(StringRef mangledName, const KernelSummary &summary,
                          uint32_t firstSite, uint32_t nsites, uint32_t orderFlags,
                          StringRef orderText, const EntryProgram *entry) {
  kosan_kernel_entry k{};
  k.name_str = intern(mangledName);
  k.flags = summary.flags | orderFlags;
  k.order_str = orderText.empty() ? 0 : intern(orderText);
  k.first_param = params.size();
  k.nparams = summary.params.size();
  k.first_site = firstSite;
  k.nsites = nsites;
  if (entry) {
    k.entry_dims = entry->dims;
    k.first_entry_op = entryOps.size();
    k.nentry_ops = entry->ops.size();
    entryOps.insert(entryOps.end(), entry->ops.begin(), entry->ops.end());
  }
  kernels.push_back(k);
  for (const ParamSummary &p : summary.params) {
    kosan_param_entry e{};
    e.name_str = intern(p.name);
    e.flags = p.flags;
    e.dtype = p.dtype;
    params.push_back(e);
  }
}

void SiteTable::emit(Module &M, StringRef fpMode) {
  kosan_site_table_header h{};
  h.magic = KOSAN_SITE_TABLE_MAGIC;
  h.abi_version = KOSAN_ABI_VERSION;
  h.nsites = sites.size();
  h.module_str = intern(M.getSourceFileName());
  if (NamedMDNode *Ident = M.getNamedMetadata("llvm.ident"))
    if (Ident->getNumOperands() > 0)
      if (auto *S = dyn_cast<MDString>(Ident->getOperand(0)->getOperand(0)))
        h.compiler_str = intern(S->getString());
  h.fp_str = intern(fpMode);
  h.nkernels = kernels.size();
  h.nparams = params.size();
  h.nentry_ops = entryOps.size();
  h.strings_size = strings.size();

  std::string blob(sizeof(h) + sites.size() * sizeof(kosan_site) +
                       kernels.size() * sizeof(kosan_kernel_entry) +
                       params.size() * sizeof(kosan_param_entry) +
                       entryOps.size() * sizeof(kosan_entry_op) + strings.size(),
                   '\0');
  char *out = blob.data();
  auto append = [&](const void *data, size_t bytes) {
    if (bytes)
      std::memcpy(out, data, bytes);
    out += bytes;
  };
  append(&h, sizeof(h));
  append(sites.data(), sites.size() * sizeof(kosan_site));
  append(kernels.data(), kernels.size() * sizeof(kosan_kernel_entry));
  append(params.data(), params.size() * sizeof(kosan_param_entry));
  append(entryOps.data(), entryOps.size() * sizeof(kosan_entry_op));
  append(strings.data(), strings.size());

  Constant *init = ConstantDataArray::getString(M.getContext(), blob,
                                                /*AddNull=*/false);
  auto *GV = new GlobalVariable(M, init->getType(), /*isConstant=*/true,
                                GlobalValue::ExternalLinkage, init,
                                KOSAN_SITE_TABLE_SYMBOL, nullptr,
                                GlobalValue::NotThreadLocal, /*AddressSpace=*/1);
  GV->setAlignment(Align(8));
  appendToUsed(M, {GV});
}

} // namespace kosan

//===- passes/core/InstrumentPass.cpp - Clone, then let each check instrument ===//
//
// The device half of kosan, for every check: find the kernels and device
// functions, clone them (KernelCloner), give each clone its launch context,
// and hand it to the instrumenters of the checks compiled in. Then the site
// table every check added to is emitted, and relocatable device code gets
// the names of its own.
//
//===----------------------------------------------------------------------===//
#include "KosanPasses.h"
#include "DeviceRuntime.h"
#include "core/Barriers.h"
#include "core/Contraction.h"
#include "core/Instrumenter.h"
#include "core/KernelCloner.h"
#include "core/KernelSummary.h"
#include "target/Target.h"

#include "kosan/abi.h"
#include "kosan/checks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

#define DEBUG_TYPE "kosan"

STATISTIC(NumKernels, "Kernels cloned and instrumented");
STATISTIC(NumDeviceFunctions, "Device functions cloned and instrumented");
STATISTIC(NumAlignedBarriers, "Block barriers of kernel clones written in their aligned form");

namespace kosan {

uint64_t staticSharedBytesLeft(const Module &M) {
  constexpr uint64_t kStaticSharedLimit = 48 * 1024; // what every launch may use
  // The OOB check's shared sink (64 bytes) and the padding that aligns
  // the arrays.
  constexpr uint64_t kReserved = 256;
  uint64_t used = kReserved;
  for (const GlobalVariable &G : M.globals())
    if (G.getAddressSpace() == addrspace::Shared)
      used += M.getDataLayout().getTypeAllocSize(G.getValueType());
  return used < kStaticSharedLimit ? kStaticSharedLimit - used : 0;
}

SmallVector<std::unique_ptr<Instrumenter>, 4> makeInstrumenters(ModuleState &S, uint32_t checks) {
  struct Factory {
    uint32_t bit;
    unsigned rank;
    std::unique_ptr<Instrumenter> (*make)(ModuleState &);
  };
  static constexpr Factory factories[] = {
#define KOSAN_INSTRUMENTER_ROW(ID, Name, name, bit, all, rank, help) \
  {KOSAN_CHECK_##ID, rank, &make##Name##Instrumenter},
      KOSAN_CHECKS(KOSAN_INSTRUMENTER_ROW, KOSAN_CHECK_ROW_NONE)
#undef KOSAN_INSTRUMENTER_ROW
  };
  SmallVector<const Factory *, 4> chosen;
  for (const Factory &f : factories)
    if (checks & f.bit)
      chosen.push_back(&f);
  llvm::stable_sort(chosen, [](const Factory *a, const Factory *b) { return a->rank < b->rank; });
  SmallVector<std::unique_ptr<Instrumenter>, 4> out;
  for (const Factory *f : chosen)
    out.push_back(f->make(S));
  return out;
}

namespace {

// The floating-point mode of the module, as far as its IR tells (when the
// frontend did not say): read before instrumenting, since kosan's own
// selects and phis are not the program's.
std::string fpMode(const Module &M) {
  bool anyFP = false, contract = false, fast = false;
  for (const Function &F : M) {
    if (F.getFnAttribute("unsafe-fp-math").getValueAsBool())
      fast = true;
    for (const Instruction &I : instructions(F))
      if (isa<FPMathOperator>(&I) && I.getType()->isFPOrFPVectorTy()) {
        anyFP = true;
        if (I.hasAllowContract())
          contract = true;
      }
  }
  std::string mode;
  if (anyFP)
    mode = contract ? "fp-contract=fast" : "fp-contract=off";
  if (fast)
    mode += mode.empty() ? "fast-math" : " fast-math";
  return mode;
}

// Relocatable device code: the unit's id, from its source file and the
// symbols it defines for others, so that two units of one link differ (one
// source compiled twice with different macros defines different symbols).
std::string unitId(const Module &M) {
  std::string key = M.getSourceFileName();
  for (const GlobalValue &GV : M.global_values())
    if (!GV.isDeclaration() && !GV.hasLocalLinkage()) {
      key += '\0';
      key += GV.getName();
    }
  return utohexstr(xxh3_64bits(key), /*LowerCase=*/true, /*Width=*/16);
}

// Relocatable device code: nvlink links this module with the other units'
// into one, where each unit's site table and precision base must keep a
// name of its own and its site ids must not collide with another unit's
// (abi.h, KOSAN_UNIT_MARKER_PREFIX). The host adds each unit's sites after
// the previous units' and writes the unit's site base, which the ids that
// reach the host (events, table checks, logged operations) include.
void nameUnitGlobals(ModuleState &S, StringRef id) {
  Module &M = S.M;
  LLVMContext &Ctx = M.getContext();
  if (GlobalVariable *table = M.getNamedGlobal(KOSAN_SITE_TABLE_SYMBOL))
    table->setName(KOSAN_SITE_TABLE_SYMBOL "_" + id);
#define KOSAN_NAME_CHECK_GLOBAL(ID, symbol, initial)                                              \
  if (GlobalVariable *G = M.getNamedGlobal(symbol))                                                \
    G->setName(symbol "_" + id);
  KOSAN_CHECK_GLOBALS(KOSAN_NAME_CHECK_GLOBAL)
#undef KOSAN_NAME_CHECK_GLOBAL
  // Site ids passed to the runtime.
  for (const rt::Entry &entry : rt::Entries) {
    if (entry.siteArgument < 0)
      continue;
    unsigned siteArg = unsigned(entry.siteArgument);
    Function *F = M.getFunction(entry.name);
    if (!F)
      continue;
    for (User *U : make_early_inc_range(F->users()))
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == F) {
        IRBuilder<> B(CI);
        Value *base = markNoSanitize(B.CreateAlignedLoad(B.getInt32Ty(), S.siteBase, Align(4)));
        CI->setArgOperand(siteArg, B.CreateAdd(base, CI->getArgOperand(siteArg)));
      }
  }
  // The marker the host finds the unit by: an empty kernel.
  Function *marker = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                      GlobalValue::ExternalLinkage,
                                      KOSAN_UNIT_MARKER_PREFIX + id, M);
  marker->setCallingConv(S.target.kernelCallingConv());
  ReturnInst::Create(Ctx, BasicBlock::Create(Ctx, "", marker));
  appendToUsed(M, {marker});
}

// -Rpass-analysis=kosan-oob: what snapshot=1 will record for the kernel.
void remarkSummary(Function &F, const KernelSummary &summary) {
  auto describe = [&](unsigned i) {
    const ParamSummary &p = summary.params[i];
    std::string text = p.name.empty() ? "arg" + std::to_string(i)
                                      : p.name + " (arg" + std::to_string(i) + ")";
    text += std::string(" ") + dtypeShortName(p.dtype);
    if (p.flags & KOSAN_PARAM_ESCAPES)
      text += " escapes";
    return text;
  };
  std::string writes, reads;
  for (unsigned i = 0; i < summary.params.size(); ++i) {
    uint32_t f = summary.params[i].flags;
    if (!(f & KOSAN_PARAM_POINTER))
      continue;
    std::string &list = (f & KOSAN_PARAM_WRITTEN) ? writes : reads;
    if (!(f & (KOSAN_PARAM_WRITTEN | KOSAN_PARAM_READ)))
      continue;
    if (!list.empty())
      list += ", ";
    list += describe(i);
    if ((f & KOSAN_PARAM_WRITTEN) && (f & KOSAN_PARAM_READ))
      list += " (read too)";
  }
  OptimizationRemarkEmitter ORE(&F);
  ORE.emit([&] {
    return OptimizationRemarkAnalysis("kosan-oob", "Outputs", &F)
           << "kernel '" << demangle(F.getName()) << "' writes "
           << (writes.empty() ? std::string("no argument") : writes) << "; reads "
           << (reads.empty() ? std::string("no other argument") : reads)
           << ((summary.flags & KOSAN_KERNEL_UNRESOLVED_WRITES)
                   ? "; stores through pointers of unknown origin (any argument may be written)"
                   : "");
  });
}

// Instruments M; false if there was nothing to instrument.
bool instrumentModule(Module &M, const Target &T, const PassOptions &opts,
                      FunctionAnalysisManager &FAM) {
  ModuleState S{M, T, opts, SiteTable(), nullptr, staticSharedBytesLeft(M)};
  SmallVector<std::unique_ptr<Instrumenter>, 4> checks = makeInstrumenters(S, opts.checks);
  // On the kernels as written, before any clone exists.
  for (auto &I : checks)
    I->analyzeModule(FAM);

  SmallVector<Function *, 8> kernels, deviceFunctions;
  for (Function &F : M) {
    if (F.isDeclaration() || F.getName().starts_with(rt::Prefix) ||
        F.getName().ends_with(KOSAN_CLONE_SUFFIX))
      continue;
    if (!opts.debugFunction.empty() && F.getName() != opts.debugFunction)
      continue;
    if (T.isKernel(F))
      kernels.push_back(&F);
    else
      deviceFunctions.push_back(&F);
  }
  // Before instrumenting: kosan's own selects and phis are not the program's.
  std::string mode = opts.compileFlags.empty() ? fpMode(M) : opts.compileFlags;
  // A unit of relocatable device code may hold device functions alone,
  // which kernels of other units call.
  bool rdcFunctionsOnly = opts.rdc && opts.debugFunction.empty() &&
                          any_of(deviceFunctions, [](Function *F) { return !F->hasLocalLinkage(); });
  if (kernels.empty() && !rdcFunctionsOnly) {
    if (!opts.debugFunction.empty())
      errs() << "kosan: warning: -kosan-debug-func=" << opts.debugFunction
             << " names no kernel in " << M.getSourceFileName()
             << "; nothing instrumented\n";
    return false;
  }
  std::string unit;
  if (opts.rdc) {
    unit = unitId(M);
    Type *I32 = Type::getInt32Ty(M.getContext());
    S.siteBase = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                    ConstantInt::get(I32, 0), KOSAN_SITE_BASE_PREFIX + unit,
                                    nullptr, GlobalValue::NotThreadLocal, addrspace::Global,
                                    /*isExternallyInitialized=*/true);
    S.siteBase->setAlignment(Align(4));
    appendToUsed(M, {S.siteBase});
  }
  // Declarations an instrumenter adds come before the clones in the module.
  for (auto &I : checks)
    if (!I->begin(kernels, deviceFunctions))
      I.reset();
  erase_if(checks, [](const std::unique_ptr<Instrumenter> &I) { return !I; });

  KernelCloner cloner(M, T);
  cloner.cloneAll(kernels, deviceFunctions);
  SmallVector<AssemblerFMA, 4> assemblerFMAs;
  // The fmas the backend forms in the originals, before the checks split
  // the blocks they are formed in.
  if (opts.formFMAs && T.fusesMultiplyAddsPerBlock()) {
    FPFusion fusion = resolveFPFusion(opts.fpFusion, M);
    for (Function *F : concat<Function *>(kernels, deviceFunctions)) {
      formBackendFMAs(*cloner.cloneOf(F), fusion);
      findAssemblerFMAs(*cloner.cloneOf(F), fusion, assemblerFMAs);
    }
  }
  if (opts.rdc) {
    SmallVector<Function *, 16> originals(kernels.begin(), kernels.end());
    originals.append(deviceFunctions.begin(), deviceFunctions.end());
    cloner.declareExternalClones(originals);
  }

  for (Function *F : kernels) {
    // Summarised before anything is instrumented, on the kernel as written.
    KernelSummary summary = summarizeKernel(*F, M.getDataLayout());
    Function *clone = cloner.cloneOf(F);
    LaunchContext ctx = LaunchContext::forKernel(*clone, F->arg_size());
    cloner.redirectCalls(*clone, ctx);
    // Before the checks add their calls and branches: on the kernel's own
    // control flow.
    if (opts.alignBarriers)
      NumAlignedBarriers += alignConvergedBarriers(*clone, T, FAM);
    uint32_t firstSite = S.sites.size();
    for (auto &I : checks)
      I->instrument(*clone, *F, ctx, FAM);
    uint32_t flags = 0;
    std::string notes;
    for (auto &I : checks) {
      flags |= I->kernelFlags(*F, *clone);
      std::string n = I->kernelNotes(*F);
      if (!n.empty())
        notes += (notes.empty() ? "" : "; ") + n;
    }
    const EntryProgram *entry = nullptr;
    for (auto &I : checks)
      if (!entry)
        entry = I->entryProgram(*F);
    S.sites.addKernel(F->getName(), summary, firstSite, S.sites.size() - firstSite, flags,
                      notes, entry);
    if (all_of(checks, [](const std::unique_ptr<Instrumenter> &I) { return I->fewRegisters(); }))
      T.fitRegistersToOriginal(*F, *clone);
    clone->removeFnAttr(kLoopsAsCompiled);
    remarkSummary(*F, summary);
    ++NumKernels;
  }
  for (Function *F : deviceFunctions) {
    Function *clone = cloner.cloneOf(F);
    LaunchContext ctx = LaunchContext::forDeviceFunction(*clone, F->arg_size());
    cloner.redirectCalls(*clone, ctx);
    for (auto &I : checks)
      I->instrument(*clone, *F, ctx, FAM);
    ++NumDeviceFunctions;
  }
  S.sites.emit(M, mode);
  if (opts.rdc)
    nameUnitGlobals(S, unit);
  for (auto &I : checks)
    I->end();
  formAssemblerFMAs(assemblerFMAs);
  return true;
}

// HIP on AMD GPUs: the host side of the translation unit registers the
// site table (and the checks' globals, KOSAN_CHECK_GLOBALS) whenever it
// has kernels (passes/host/HostHooks.cpp), and HIP aborts the process when
// a registered name is missing from the code object. A module with kernels
// of which none was instrumented (-kosan-debug-func naming another) gets
// an empty table, which tells the host that no kernel has a clone, and a
// module whose instrumenter defined no global of its check (it declined the
// module) one with the table's initial value, which nothing reads. True
// when it defined one.
bool defineHipHostGlobals(Module &M, const Target &T, const PassOptions &opts) {
  if (!Triple(M.getTargetTriple()).isAMDGPU() || opts.rdc ||
      none_of(M, [&](const Function &F) { return T.isKernel(F); }))
    return false;
  bool defined = false;
  if (!M.getNamedGlobal(KOSAN_SITE_TABLE_SYMBOL)) {
    SiteTable().emit(M, "");
    defined = true;
  }
  auto define = [&](uint32_t check, const char *symbol, uint32_t initial) {
    if (!(opts.checks & check) || M.getNamedGlobal(symbol))
      return;
    Type *I32 = Type::getInt32Ty(M.getContext());
    auto *G = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                 ConstantInt::get(I32, initial), symbol, nullptr,
                                 GlobalValue::NotThreadLocal, addrspace::Global,
                                 /*isExternallyInitialized=*/true);
    G->setAlignment(Align(4));
    appendToUsed(M, {G});
    defined = true;
  };
#define KOSAN_DEFINE_CHECK_GLOBAL(ID, symbol, initial) define(KOSAN_CHECK_##ID, symbol, initial);
  KOSAN_CHECK_GLOBALS(KOSAN_DEFINE_CHECK_GLOBAL)
#undef KOSAN_DEFINE_CHECK_GLOBAL
  return defined;
}

} // namespace

PreservedAnalyses InstrumentPass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (!isDeviceModule(M) ||
      !(opts.checks & kEveryCheck))
    return PreservedAnalyses::all();
  // Device code for targets without a Target is left alone.
  const Target *T = Target::forModule(M);
  if (!T)
    return PreservedAnalyses::all();
  if (opts.linkRuntime && !hasDeviceRuntime(M))
    report_fatal_error(Twine("kosan: this kosan was built without the ROCm device libraries "
                             "(rocm-device-libs), so it has no device runtime for ") +
                       M.getTargetTriple() + ": install them and rebuild kosan (" +
                       M.getSourceFileName() + ")");
  FunctionAnalysisManager &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  bool instrumented = instrumentModule(M, *T, opts, FAM);
  bool defined = defineHipHostGlobals(M, *T, opts);
  if (!instrumented)
    return defined ? PreservedAnalyses::none() : PreservedAnalyses::all();
  if (opts.linkRuntime && !linkDeviceRuntime(M))
    report_fatal_error(Twine("kosan: could not link the device runtime into ") +
                       M.getSourceFileName());
  return PreservedAnalyses::none();
}

} // namespace kosan

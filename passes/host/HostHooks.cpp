//===- passes/host/HostHooks.cpp - Redirect CUDA runtime calls in host code -----===//
//
// Instrumented host code calls kosan's replacements of the CUDA runtime's
// allocation, launch and synchronisation functions (KOSAN_HOST_INTERCEPTS in
// abi.h). The replacements have the same signatures, so the rewrite is a
// change of callee; it happens at compile time, so it works with the static
// cudart where symbol interposition cannot. Allocation calls are preceded by
// a call naming the allocation's source line and the variable it fills.
//
// The replacements live in libkosan_rt.so, which no link line names: each
// __kosan_* callee is defined here, in the module, as a forwarder that asks
// the loader (runtime/host/loader.cpp, linked in as bitcode) for the
// runtime's definition once, and falls back to the CUDA function itself when
// there is no runtime. So an object compiled with the plugin carries what it
// needs, whoever links it.
//
//===----------------------------------------------------------------------===//
#include "KosanPasses.h"

#include "kosan/abi.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <dlfcn.h>

using namespace llvm;

#define DEBUG_TYPE "kosan-host"

STATISTIC(NumRedirected, "CUDA runtime calls redirected to kosan");
STATISTIC(NumAllocSites, "Allocation and free sites named");
STATISTIC(NumHipGlobals, "HIP: kosan's device globals registered with __hipRegisterVar");

static cl::opt<std::string> RuntimePath(
    "kosan-runtime-path", cl::Hidden,
    cl::desc("libkosan_rt.so that instrumented programs load first (default: the one "
             "beside the kosan plugin)"));

namespace {
const unsigned char kHostLoaderX86[] = {
#include "kosan_host_loader.inc"
};
// For HIP programs (no CUDA runtime table: they link libamdhip64 alone).
const unsigned char kHostLoaderHipX86[] = {
#include "kosan_host_loader_hip.inc"
};
} // namespace

namespace kosan {
namespace {

// libkosan_rt.so beside the plugin (<prefix>/lib), where a build tree and an
// installation both keep it.
std::string defaultRuntimePath() {
  if (!RuntimePath.empty())
    return RuntimePath;
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&defaultRuntimePath), &info) || !info.dli_fname)
    return "";
  SmallString<256> path(sys::path::parent_path(info.dli_fname));
  sys::path::append(path, "libkosan_rt.so");
  sys::fs::make_absolute(path);
  return std::string(path);
}

// Links the loader into M and makes its definitions shared by every object
// of the program (linkonce_odr/weak_odr, hidden). False when M's target has
// no loader (only x86_64 is built); the module then keeps declarations, and
// the runtime must be linked by hand.
// HIP host modules (clang's HIP code generation registers their kernels
// through __hipRegisterFunction) get the HIP loader.
bool linkLoader(Module &M) {
  if (Triple(M.getTargetTriple()).getArch() != Triple::x86_64)
    return false;
  bool hip = M.getFunction("__hipRegisterFunction") || M.getFunction("__hip_module_ctor") ||
             M.getNamedGlobal("__hip_fatbin_wrapper");
  StringRef bytes = hip ? StringRef(reinterpret_cast<const char *>(kHostLoaderHipX86),
                                    sizeof(kHostLoaderHipX86))
                        : StringRef(reinterpret_cast<const char *>(kHostLoaderX86),
                                    sizeof(kHostLoaderX86));
  Expected<std::unique_ptr<Module>> loader =
      parseBitcodeFile(MemoryBufferRef(bytes, "kosan-host-loader"), M.getContext());
  if (!loader) {
    consumeError(loader.takeError());
    return false;
  }
  Module &L = **loader;
  L.setTargetTriple(M.getTargetTriple());
  L.setDataLayout(M.getDataLayout());
  // The user's module decides PIC, PIE and the like.
  if (NamedMDNode *flags = L.getModuleFlagsMetadata())
    L.eraseNamedMetadata(flags);
  if (NamedMDNode *ident = L.getNamedMetadata("llvm.ident"))
    L.eraseNamedMetadata(ident);
  StringSet<> names;
  for (GlobalValue &GV : L.global_values())
    if (!GV.isDeclaration() && !GV.hasLocalLinkage())
      names.insert(GV.getName());
  if (Linker::linkModules(M, std::move(*loader)))
    return false;
  for (const auto &entry : names) {
    GlobalValue *GV = M.getNamedValue(entry.getKey());
    if (!GV || GV->isDeclaration())
      continue;
    // The public API must stay even where this object does not call it:
    // other objects of the program may.
    GV->setLinkage(GV->getName().starts_with("kosan_") ? GlobalValue::WeakODRLinkage
                                                        : GlobalValue::LinkOnceODRLinkage);
    GV->setVisibility(GlobalValue::HiddenVisibility);
    if (auto *F = dyn_cast<Function>(GV)) {
      F->removeFnAttr("target-cpu");
      F->removeFnAttr("target-features");
      F->removeFnAttr("tune-cpu");
    }
  }
  return true;
}

// define linkonce_odr hidden @<to>(args) {
//   f = slot ? slot : __kosan_loader_resolve("<to>", fallback, &slot)
//   return f(args)
// }
void defineForwarder(Module &M, Function &To, Constant *fallback) {
  LLVMContext &Ctx = M.getContext();
  PointerType *Ptr = PointerType::get(Ctx, 0);
  FunctionCallee resolve = M.getOrInsertFunction(
      "__kosan_loader_resolve", FunctionType::get(Ptr, {Ptr, Ptr, Ptr}, false));
  auto *slot = new GlobalVariable(M, Ptr, false, GlobalValue::LinkOnceODRLinkage,
                                  ConstantPointerNull::get(Ptr),
                                  "__kosan_loader_slot." + To.getName());
  slot->setVisibility(GlobalValue::HiddenVisibility);
  AttributeList attrs = To.getAttributes(); // the CUDA function's, for the call
  To.setLinkage(GlobalValue::LinkOnceODRLinkage);
  To.setVisibility(GlobalValue::HiddenVisibility);
  To.setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  To.addFnAttr(Attribute::NoInline);
  BasicBlock *entry = BasicBlock::Create(Ctx, "entry", &To);
  BasicBlock *resolveBB = BasicBlock::Create(Ctx, "resolve", &To);
  BasicBlock *callBB = BasicBlock::Create(Ctx, "call", &To);
  IRBuilder<> B(entry);
  LoadInst *cached = B.CreateAlignedLoad(Ptr, slot, Align(8), "fn");
  cached->setAtomic(AtomicOrdering::Acquire);
  B.CreateCondBr(B.CreateIsNull(cached), resolveBB, callBB);
  B.SetInsertPoint(resolveBB);
  Value *resolved = B.CreateCall(
      resolve, {B.CreateGlobalStringPtr(To.getName(), "kosan.entry"), fallback, slot});
  B.CreateBr(callBB);
  B.SetInsertPoint(callBB);
  PHINode *fn = B.CreatePHI(Ptr, 2);
  fn->addIncoming(cached, entry);
  fn->addIncoming(resolved, resolveBB);
  SmallVector<Value *, 8> args;
  for (Argument &A : To.args())
    args.push_back(&A);
  CallInst *call = B.CreateCall(To.getFunctionType(), fn, args);
  call->setAttributes(attrs);
  call->setTailCallKind(CallInst::TCK_Tail);
  if (To.getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(call);
}

// The fallback of an entry point with no CUDA counterpart.
Function *noOp(Module &M, FunctionType *T) {
  Function *F = Function::Create(T, GlobalValue::InternalLinkage, "kosan.noop", M);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "", F));
  B.CreateRetVoid();
  return F;
}

// What the runtime does around function `name` (its hook in kosan/intercepts.h),
// "" for a function kosan does not intercept.
StringRef interceptHook(StringRef name) {
#define KOSAN_HOOK_OF(function, hook, params, args, perThread)                               \
  if (name == #function)                                                                     \
    return #hook;
  KOSAN_CUDA_INTERCEPTS(KOSAN_HOOK_OF)
  KOSAN_HIP_INTERCEPTS(KOSAN_HOOK_OF)
#undef KOSAN_HOOK_OF
  return "";
}

// The allocation functions kosan intercepts, CUDA's and HIP's; others
// (cudaMallocHost, cudaMallocArray, ...) get no allocation site.
bool isAllocationApi(StringRef name) { return interceptHook(name).starts_with("Alloc"); }

// The frees kosan intercepts: their site goes into use-after-free reports.
bool isFreeApi(StringRef name) { return interceptHook(name) == "Free"; }

// The buffer's name: the variable whose address the allocation call fills.
std::string allocatedVariable(Value *out) {
  out = out->stripPointerCasts();
  if (isa<AllocaInst>(out) || isa<GlobalVariable>(out))
    if (out->hasName())
      return out->getName().str();
  return "";
}

std::string locationOf(const Instruction &I) {
  if (const DILocation *Loc = I.getDebugLoc()) {
    const DILocation *outer = Loc;
    while (outer->getInlinedAt())
      outer = outer->getInlinedAt();
    return (outer->getFilename() + ":" + Twine(outer->getLine())).str();
  }
  return "";
}

// cuda_runtime.h's and hip_runtime_api.h's C++ wrappers (template
// cudaMalloc(T**, size_t), hipMalloc(T**, size_t) and friends) call the C
// functions; at -O0 they are not inlined, so the interesting call site is
// their caller's.
bool isAllocWrapper(const Function &F) {
  if (F.isDeclaration() || !F.getName().starts_with("_Z"))
    return false;
  ItaniumPartialDemangler D;
  if (D.partialDemangle(F.getName().data()))
    return false;
  size_t n = 0;
  char *base = D.getFunctionBaseName(nullptr, &n);
  if (!base)
    return false;
  bool result = isAllocationApi(base);
  std::free(base);
  return result;
}

void nameAllocation(CallBase &CB, FunctionCallee siteFn) {
  std::string site = locationOf(CB);
  std::string name = CB.arg_size() ? allocatedVariable(CB.getArgOperand(0)) : "";
  IRBuilder<> B(&CB);
  B.CreateCall(siteFn, {B.CreateGlobalStringPtr(site, "kosan.alloc.site"),
                        B.CreateGlobalStringPtr(name, "kosan.alloc.name")});
  ++NumAllocSites;
}

// HIP host code: kosan's device globals of the module's code object, the
// site table (with the kernel summaries) and the globals of the checks
// compiled in (KOSAN_CHECK_GLOBALS), are registered with __hipRegisterVar
// under a host shadow each, right after the module's kernels and as clang
// registers a program's __device__ variables, so that the runtime finds
// them with hipGetSymbolAddress (HIP's public API has no lookup by name in
// the code objects it registers itself). The device side of the same
// translation unit defines them whenever it has kernels (the device pass
// makes sure of it on AMD GPUs): HIP aborts the process when a registered
// name is missing from the code object. Relocatable device code names
// them per unit, which the host side cannot know: not registered there.
void registerHipDeviceGlobals(Module &M, const PassOptions &opts) {
  Function *registerFunction = M.getFunction("__hipRegisterFunction");
  if (!registerFunction || opts.rdc)
    return;
  // Each registering function's last kernel registration.
  MapVector<Function *, CallBase *> last;
  for (User *U : registerFunction->users())
    if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledOperand() == registerFunction)
      last[CB->getFunction()] = nullptr;
  for (auto &[F, CB] : last)
    for (Instruction &I : instructions(*F))
      if (auto *C = dyn_cast<CallBase>(&I); C && C->getCalledOperand() == registerFunction)
        CB = C;
  if (last.empty())
    return;
  SmallVector<StringRef, 2> names = {KOSAN_SITE_TABLE_SYMBOL};
#define KOSAN_REGISTER_CHECK_GLOBAL(ID, symbol, initial)                                          \
  if (opts.checks & KOSAN_CHECK_##ID)                                                              \
    names.push_back(symbol);
  KOSAN_CHECK_GLOBALS(KOSAN_REGISTER_CHECK_GLOBAL)
#undef KOSAN_REGISTER_CHECK_GLOBAL
  LLVMContext &Ctx = M.getContext();
  PointerType *Ptr = PointerType::get(Ctx, 0);
  Type *I32 = Type::getInt32Ty(Ctx);
  Type *SizeT = M.getDataLayout().getIntPtrType(Ctx);
  FunctionCallee registerVar = M.getOrInsertFunction(
      "__hipRegisterVar",
      FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr, Ptr, Ptr, I32, SizeT, I32, I32}, false));
  // Never read: HIP keys a global by its shadow's address.
  Type *ShadowTy = Type::getInt64Ty(Ctx);
  uint64_t shadowBytes = M.getDataLayout().getTypeAllocSize(ShadowTy);
  SmallVector<GlobalVariable *, 2> shadows;
  for (StringRef name : names)
    shadows.push_back(new GlobalVariable(M, ShadowTy, /*isConstant=*/false,
                                         GlobalValue::InternalLinkage,
                                         Constant::getNullValue(ShadowTy), name + ".shadow"));
  for (auto &[F, CB] : last) {
    IRBuilder<> B(CB->getNextNode()); // each call after the previous one
    for (auto [name, shadow] : zip(names, shadows)) {
      Value *str = B.CreateGlobalStringPtr(name, name + ".name");
      B.CreateCall(registerVar, {CB->getArgOperand(0), shadow, str, str, B.getInt32(0),
                                 ConstantInt::get(SizeT, shadowBytes), B.getInt32(0),
                                 B.getInt32(0)});
      ++NumHipGlobals;
    }
  }
}

} // namespace

PreservedAnalyses HostHooksPass::run(Module &M, ModuleAnalysisManager &) {
  if (isDeviceModule(M))
    return PreservedAnalyses::all();
  LLVMContext &Ctx = M.getContext();
  PointerType *Ptr = PointerType::get(Ctx, 0);
  FunctionCallee siteFn = M.getOrInsertFunction(
      KOSAN_ALLOC_SITE_NAME, FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr}, false));

  // Before the redirection, which takes these calls to the runtime too.
  registerHipDeviceGlobals(M, opts);

  bool changed = false;
  SmallVector<std::pair<Function *, Function *>, 8> redirected; // (CUDA, kosan)
  auto redirect = [&](StringRef from, StringRef to) {
    Function *F = M.getFunction(from);
    if (!F || !F->isDeclaration())
      return;
    if (isAllocationApi(from) || isFreeApi(from))
      for (User *U : make_early_inc_range(F->users()))
        if (auto *CB = dyn_cast<CallBase>(U);
            CB && CB->getCalledOperand() == F &&
            !isAllocWrapper(*CB->getFunction()))
          nameAllocation(*CB, siteFn);
    FunctionCallee R =
        M.getOrInsertFunction(to, F->getFunctionType(), F->getAttributes());
    NumRedirected += F->getNumUses();
    F->replaceAllUsesWith(R.getCallee());
    if (auto *To = dyn_cast<Function>(R.getCallee()); To && To->isDeclaration())
      redirected.push_back({F, To});
    changed = true;
  };
#define KOSAN_REDIRECT(from, to) redirect(from, to);
  KOSAN_HOST_INTERCEPTS(KOSAN_REDIRECT)
#undef KOSAN_REDIRECT

  for (Function &F : M)
    if (isAllocWrapper(F))
      for (User *U : make_early_inc_range(F.users()))
        if (auto *CB = dyn_cast<CallBase>(U);
            CB && CB->getCalledOperand() == &F &&
            !isAllocWrapper(*CB->getFunction()))
          nameAllocation(*CB, siteFn);

  if (!changed) {
    if (siteFn.getCallee()->use_empty())
      cast<Function>(siteFn.getCallee())->eraseFromParent();
    return PreservedAnalyses::all();
  }
  // Loaded at start-up, so that option warnings and help=1 come first and a
  // runtime of another ABI version is named before any kernel runs.
  Function *check = cast<Function>(
      M.getOrInsertFunction(KOSAN_VERSION_CHECK_SYMBOL,
                            FunctionType::get(Type::getVoidTy(Ctx), false))
          .getCallee());
  Function *ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                    GlobalValue::InternalLinkage, "kosan.module_ctor", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", ctor));
  B.CreateCall(check);
  B.CreateRetVoid();
  appendToGlobalCtors(M, ctor, /*Priority=*/1);

  if (!linkLoader(M))
    return PreservedAnalyses::none();
  std::string path = defaultRuntimePath();
  auto *pathVar = new GlobalVariable(
      M, ArrayType::get(Type::getInt8Ty(Ctx), path.size() + 1), true,
      GlobalValue::LinkOnceODRLinkage, ConstantDataArray::getString(Ctx, path),
      "__kosan_loader_built_path.def");
  pathVar->setVisibility(GlobalValue::HiddenVisibility);
  if (GlobalVariable *decl = M.getNamedGlobal("__kosan_loader_built_path")) {
    decl->replaceAllUsesWith(pathVar);
    decl->eraseFromParent();
  }
  pathVar->setName("__kosan_loader_built_path");
  for (auto [cuda, kosan] : redirected)
    defineForwarder(M, *kosan, cuda);
  Function *site = cast<Function>(siteFn.getCallee());
  if (site->isDeclaration() && !site->use_empty())
    defineForwarder(M, *site, noOp(M, site->getFunctionType()));
  defineForwarder(M, *check, noOp(M, check->getFunctionType()));
  return PreservedAnalyses::none();
}

} // namespace kosan

//===- passes/HostHooks.cpp - Redirect CUDA runtime calls in host code -----===//
//
// Instrumented host code calls kosan's replacements of the CUDA runtime's
// allocation, launch and synchronisation functions (KOSAN_HOST_INTERCEPTS in
// abi.h). The replacements have the same signatures, so the rewrite is a
// change of callee; it happens at compile time, so it works with the static
// cudart where symbol interposition cannot. Allocation calls are preceded by
// a call naming the allocation's source line and the variable it fills.
//
//===----------------------------------------------------------------------===//
#include "KosanPasses.h"

#include "kosan/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

#define DEBUG_TYPE "kosan-host"

STATISTIC(NumRedirected, "CUDA runtime calls redirected to kosan");
STATISTIC(NumAllocSites, "Allocation sites named");

namespace kosan {
namespace {

// The allocation functions kosan intercepts (KOSAN_HOST_INTERCEPTS); others
// (cudaMallocHost, cudaMallocArray, ...) get no allocation site.
bool isAllocationApi(StringRef name) {
  name.consume_back("_ptsz");
  return name == "cudaMalloc" || name == "cudaMallocAsync" ||
         name == "cudaMallocFromPoolAsync" || name == "cudaMallocManaged" ||
         name == "cudaMallocPitch";
}

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

// cuda_runtime.h's C++ wrappers (template cudaMalloc(T**, size_t) and
// friends) call the C functions; at -O0 they are not inlined, so the
// interesting call site is their caller's.
bool isCudaAllocWrapper(const Function &F) {
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

void nameAllocation(Module &M, CallBase &CB, FunctionCallee siteFn) {
  std::string site = locationOf(CB);
  std::string name = CB.arg_size() ? allocatedVariable(CB.getArgOperand(0)) : "";
  IRBuilder<> B(&CB);
  B.CreateCall(siteFn, {B.CreateGlobalStringPtr(site, "kosan.alloc.site"),
                        B.CreateGlobalStringPtr(name, "kosan.alloc.name")});
  ++NumAllocSites;
}

} // namespace

PreservedAnalyses HostHooksPass::run(Module &M, ModuleAnalysisManager &) {
  if (isDeviceModule(M))
    return PreservedAnalyses::all();
  LLVMContext &Ctx = M.getContext();
  PointerType *Ptr = PointerType::get(Ctx, 0);
  FunctionCallee siteFn = M.getOrInsertFunction(
      KOSAN_ALLOC_SITE_NAME, FunctionType::get(Type::getVoidTy(Ctx), {Ptr, Ptr}, false));

  bool changed = false;
  auto redirect = [&](StringRef from, StringRef to) {
    Function *F = M.getFunction(from);
    if (!F || !F->isDeclaration())
      return;
    if (isAllocationApi(from))
      for (User *U : make_early_inc_range(F->users()))
        if (auto *CB = dyn_cast<CallBase>(U);
            CB && CB->getCalledOperand() == F &&
            !isCudaAllocWrapper(*CB->getFunction()))
          nameAllocation(M, *CB, siteFn);
    FunctionCallee R =
        M.getOrInsertFunction(to, F->getFunctionType(), F->getAttributes());
    NumRedirected += F->getNumUses();
    F->replaceAllUsesWith(R.getCallee());
    changed = true;
  };
#define KOSAN_REDIRECT(from, to) redirect(from, to);
  KOSAN_HOST_INTERCEPTS(KOSAN_REDIRECT)
#undef KOSAN_REDIRECT

  for (Function &F : M)
    if (isCudaAllocWrapper(F))
      for (User *U : make_early_inc_range(F.users()))
        if (auto *CB = dyn_cast<CallBase>(U);
            CB && CB->getCalledOperand() == &F &&
            !isCudaAllocWrapper(*CB->getFunction()))
          nameAllocation(M, *CB, siteFn);

  if (!changed) {
    if (siteFn.getCallee()->use_empty())
      cast<Function>(siteFn.getCallee())->eraseFromParent();
    return PreservedAnalyses::all();
  }
  // A runtime of another ABI version lacks this symbol: a link error instead
  // of silent corruption.
  FunctionCallee check = M.getOrInsertFunction(
      KOSAN_VERSION_CHECK_SYMBOL, FunctionType::get(Type::getVoidTy(Ctx), false));
  Function *ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                    GlobalValue::InternalLinkage, "kosan.module_ctor", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", ctor));
  B.CreateCall(check);
  B.CreateRetVoid();
  appendToGlobalCtors(M, ctor, /*Priority=*/1);
  return PreservedAnalyses::none();
}

} // namespace kosan

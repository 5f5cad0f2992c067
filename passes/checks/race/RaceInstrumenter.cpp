//===- passes/checks/race/RaceInstrumenter.cpp - checks=race --------------===//
//
// Shared-memory data races between the threads of a block (docs/race.md).
// In each clone:
//
//   every load and store of shared memory   -> __kosan_race_access before it
//     (through a shared pointer, or a generic one derived from a shared
//     object, as at -O0)
//   every block barrier (__syncthreads, ...) -> __kosan_race_barrier after it
//   every __syncwarp                         -> __kosan_race_warp_sync after it
//   a kernel clone's start                   -> __kosan_race_enter
//
// The entries (runtime/device/race.cpp) keep a shadow word per granule of
// the block's shared memory and a clock per thread, in shared memory the
// host adds to the launch; the plugin inlines them once the runtime is
// linked. The granule is the module's smallest shared access, so that
// threads writing neighbouring elements never share one.
//
// What the check cannot follow makes it leave the module out, with a
// warning, rather than report races that are not there: barriers that wait
// for part of the block (bar.sync with a thread count, cluster barriers)
// and barriers in inline assembly; relocatable device code (another unit's
// granule may differ). It is built for NVIDIA GPUs only.
//
//===----------------------------------------------------------------------===//
#include "DeviceRuntime.h"
#include "KosanPasses.h"
#include "core/Instrumenter.h"
#include "core/Provenance.h"
#include "target/Target.h"

#include "kosan/abi.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/bit.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

#define DEBUG_TYPE "kosan-race"

STATISTIC(NumAccesses, "Shared-memory accesses checked for races");
STATISTIC(NumBarriers, "Block barriers counted");
STATISTIC(NumWarpSyncs, "Warp synchronisations counted");

namespace kosan {
namespace {

enum class Sync { None, Block, Warp, Unsupported };

// What a call does to the order of the block's threads.
Sync syncOf(const CallBase &call) {
  if (const auto *asmCall = dyn_cast<InlineAsm>(call.getCalledOperand())) {
    StringRef text = asmCall->getAsmString();
    return text.contains("bar.") || text.contains("barrier.") ? Sync::Unsupported : Sync::None;
  }
  const Function *callee = call.getCalledFunction();
  if (!callee || !callee->isIntrinsic())
    return Sync::None;
  switch (callee->getIntrinsicID()) {
  case Intrinsic::nvvm_barrier0:
  case Intrinsic::nvvm_barrier0_and:
  case Intrinsic::nvvm_barrier0_or:
  case Intrinsic::nvvm_barrier0_popc:
  case Intrinsic::nvvm_barrier_sync:
  case Intrinsic::nvvm_bar_sync:
  case Intrinsic::nvvm_barrier_n:
    return Sync::Block;
  case Intrinsic::nvvm_bar_warp_sync:
    return Sync::Warp;
  // Part of the block (a thread count), or the cluster's.
  case Intrinsic::nvvm_barrier:
  case Intrinsic::nvvm_barrier_sync_cnt:
  case Intrinsic::nvvm_barrier_cluster_arrive:
  case Intrinsic::nvvm_barrier_cluster_arrive_aligned:
  case Intrinsic::nvvm_barrier_cluster_arrive_relaxed:
  case Intrinsic::nvvm_barrier_cluster_arrive_relaxed_aligned:
  case Intrinsic::nvvm_barrier_cluster_wait:
  case Intrinsic::nvvm_barrier_cluster_wait_aligned:
    return Sync::Unsupported;
  default:
    return Sync::None;
  }
}

// The pointer of a load or store the program made (not kosan's own) that
// may reach shared memory: a shared pointer, or a generic one (which the
// caller resolves).
Value *accessPointer(const Instruction &I) {
  if (I.hasMetadata(LLVMContext::MD_nosanitize))
    return nullptr;
  Value *p = nullptr;
  if (const auto *L = dyn_cast<LoadInst>(&I))
    p = const_cast<Value *>(L->getPointerOperand());
  else if (const auto *St = dyn_cast<StoreInst>(&I))
    p = const_cast<Value *>(St->getPointerOperand());
  if (!p)
    return nullptr;
  unsigned as = p->getType()->getPointerAddressSpace();
  return as == addrspace::Shared || as == addrspace::Generic ? p : nullptr;
}

uint64_t accessSize(const Instruction &I, const DataLayout &DL) {
  Type *T = isa<LoadInst>(I) ? I.getType() : cast<StoreInst>(I).getValueOperand()->getType();
  return DL.getTypeStoreSize(T).getFixedValue();
}

std::string objectName(const Provenance &p) {
  if (!p.base || !p.base->hasName())
    return "";
  return p.base->getName().str();
}

class RaceInstrumenter final : public Instrumenter {
public:
  using Instrumenter::Instrumenter;
  StringRef name() const override { return "race"; }

  bool begin(ArrayRef<Function *> kernels, ArrayRef<Function *> deviceFunctions) override {
    if (!Triple(S.M.getTargetTriple()).isNVPTX()) {
      errs() << "kosan: warning: the race check is built for NVIDIA GPUs only; "
             << S.M.getSourceFileName() << " is not checked for races\n";
      return false;
    }
    // A device function of another unit would index the shadow by its own
    // unit's granule, which may not be the kernel's.
    if (S.opts.rdc) {
      errs() << "kosan: warning: the race check does not support relocatable device code "
                "(-fgpu-rdc); "
             << S.M.getSourceFileName() << " is not checked for races\n";
      return false;
    }
    const DataLayout &DL = S.M.getDataLayout();
    uint64_t smallest = 8;
    SmallVector<Function *, 16> all(kernels.begin(), kernels.end());
    all.append(deviceFunctions.begin(), deviceFunctions.end());
    for (Function *F : all) {
      ProvenanceAnalysis PA(DL, nullptr);
      for (Instruction &I : instructions(*F)) {
        if (auto *call = dyn_cast<CallBase>(&I); call && syncOf(*call) == Sync::Unsupported) {
          errs() << "kosan: warning: '" << demangle(F->getName())
                 << "' waits at a barrier for part of the block (a thread count, a cluster "
                    "barrier or inline assembly), which the race check cannot follow; "
                 << S.M.getSourceFileName() << " is not checked for races\n";
          return false;
        }
        // Generic accesses to shared objects too (-O0).
        Value *p = accessPointer(I);
        if (!p || (p->getType()->getPointerAddressSpace() != addrspace::Shared &&
                   PA.resolve(p).space != KOSAN_SPACE_SHARED))
          continue;
        if (uint64_t size = accessSize(I, DL))
          smallest = std::min(smallest, llvm::bit_floor(size));
      }
    }
    shift = Log2_64(smallest);
    return true;
  }

  void instrument(Function &clone, const Function &original, const LaunchContext &ctx,
                  FunctionAnalysisManager &) override {
    Module &M = S.M;
    LLVMContext &Ctx = M.getContext();
    const DataLayout &DL = M.getDataLayout();
    Type *I32 = Type::getInt32Ty(Ctx), *I64 = Type::getInt64Ty(Ctx);
    Type *Void = Type::getVoidTy(Ctx);
    FunctionCallee access = M.getOrInsertFunction(
        rt::RaceAccess,
        FunctionType::get(Void, {I64, I32, I32, I32, I64, I32, I32, I32, I64}, false));
    FunctionCallee barrier =
        M.getOrInsertFunction(rt::RaceBarrier, FunctionType::get(Void, {I32}, false));
    FunctionCallee warpSync =
        M.getOrInsertFunction(rt::RaceWarpSync, FunctionType::get(Void, {I32}, false));

    // Shared accesses: through a shared pointer, or a generic one that
    // derives from a shared object (-O0, where nothing infers the space).
    ProvenanceAnalysis PA(DL, ctx.kernel ? &original : nullptr);
    struct Access {
      Instruction *I;
      Value *ptr;
      Provenance prov;
    };
    SmallVector<Access, 32> accesses;
    SmallVector<std::pair<CallBase *, Sync>, 8> syncs;
    bool calls = false;
    for (Instruction &I : instructions(clone)) {
      if (Value *p = accessPointer(I)) {
        Provenance prov = PA.resolve(p);
        if (p->getType()->getPointerAddressSpace() == addrspace::Shared ||
            prov.space == KOSAN_SPACE_SHARED)
          accesses.push_back({&I, p, prov});
      } else if (auto *call = dyn_cast<CallBase>(&I)) {
        Sync s = syncOf(*call);
        if (s == Sync::Block || s == Sync::Warp)
          syncs.push_back({call, s});
        const Function *callee = call->getCalledFunction();
        if (!callee || (!callee->isIntrinsic() && !callee->getName().starts_with(rt::Prefix)))
          calls = true;
      }
    }
    bool checked = !accesses.empty() || calls;
    if (ctx.kernel && !checked)
      return;

    // Kernels read the race layout from the launch info (a parameter);
    // device functions pass 0 and read the block's header.
    Value *layout = ConstantInt::get(I64, 0);
    if (ctx.kernel) {
      FunctionCallee enter =
          M.getOrInsertFunction(rt::RaceEnter, FunctionType::get(Void, {I32, I64}, false));
      IRBuilder<> B(cast<Instruction>(ctx.dynSmem)->getNextNode());
      Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), ctx.info, LaunchInfoLayout::raceLayout);
      layout = markNoSanitize(B.CreateAlignedLoad(I64, p, Align(8), "kosan.race_layout"));
      B.CreateCall(enter, {ctx.flags, layout});
    }
    for (auto &[I, p, prov] : accesses) {
      bool isStore = isa<StoreInst>(I);
      uint32_t size = accessSize(*I, DL);
      uint32_t site = S.sites.add(*I, isStore ? KOSAN_ACCESS_STORE : KOSAN_ACCESS_LOAD,
                                  KOSAN_SPACE_SHARED, size, objectName(prov), -1);
      IRBuilder<> B(I);
      Value *shared = p->getType()->getPointerAddressSpace() == addrspace::Shared
                          ? p
                          : B.CreateAddrSpaceCast(p, PointerType::get(Ctx, addrspace::Shared));
      Value *offset = B.CreatePtrToInt(shared, I64, "kosan.race.offset");
      B.CreateCall(access, {ctx.state, ctx.flags, ctx.launchId, B.getInt32(site), offset,
                            B.getInt32(size), B.getInt32(isStore), B.getInt32(shift), layout});
      ++NumAccesses;
    }
    for (auto [call, s] : syncs) {
      IRBuilder<> B(call->getNextNode());
      B.CreateCall(s == Sync::Block ? barrier : warpSync, {ctx.flags});
      ++(s == Sync::Block ? NumBarriers : NumWarpSyncs);
    }
    if (ctx.kernel) {
      raceKernels.insert(&original);
      OptimizationRemarkEmitter ORE(&clone);
      ORE.emit([&] {
        return OptimizationRemark(DEBUG_TYPE, "Race", &clone)
               << "kernel '" << demangle(original.getName()) << "': "
               << std::to_string(accesses.size()) << " shared accesses and "
               << std::to_string(syncs.size())
               << " barriers checked for races (granule " << std::to_string(1u << shift)
               << " bytes)";
      });
    }
  }

  uint32_t kernelFlags(const Function &original, const Function &) const override {
    if (!raceKernels.count(&original))
      return 0;
    return KOSAN_KERNEL_RACE | shift << KOSAN_KERNEL_RACE_SHIFT_SHIFT;
  }

private:
  unsigned shift = 2;
  SmallPtrSet<const Function *, 8> raceKernels;
};

} // namespace

std::unique_ptr<Instrumenter> makeRaceInstrumenter(ModuleState &S) {
  return std::make_unique<RaceInstrumenter>(S);
}

} // namespace kosan

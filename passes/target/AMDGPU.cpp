//===- passes/target/AMDGPU.cpp - AMD GPUs (amdgcn) -----------------------===//
//
// HIP device code compiled by clang for amdgcn-amd-amdhsa: kernels are
// amdgpu_kernel functions taking their parameters from the kernarg segment
// (addrspace 4); thread and block ids are llvm.amdgcn.workitem.id.* and
// workgroup.id.*; the launch dimensions are read from the implicit kernel
// arguments (code object v5: block counts at 0/4/8, group sizes at
// 12/14/16) or, in older code objects, from the HSA dispatch packet
// (workgroup_size_* at 4/6/8, grid_size_* at 12/16/20), as HIP's device
// libraries (__ockl_get_local_size, ...) read them. A wavefront has 64
// lanes, 32 where the function is compiled with +wavefrontsize32. Lanes
// exchange values with ds_bpermute (HIP's __shfl*), ds_swizzle and
// readlane.
//
// Nothing here has run on an AMD GPU: the code it produces is checked
// as IR and as code objects (test/lit/hip).
//
//===----------------------------------------------------------------------===//
#include "target/Target.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/Support/AMDGPUAddrSpace.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace kosan {
namespace {

// AMDGPUAS (llvm/Support/AMDGPUAddrSpace.h): FLAT_ADDRESS 0, GLOBAL_ADDRESS
// 1, LOCAL_ADDRESS (LDS) 3, CONSTANT_ADDRESS (kernarg too) 4,
// PRIVATE_ADDRESS 5.
// The backend's own numbers (NVPTX has no such header in LLVM 19).
static_assert(addrspace::Generic == AMDGPUAS::FLAT_ADDRESS &&
                  addrspace::Global == AMDGPUAS::GLOBAL_ADDRESS &&
                  addrspace::Shared == AMDGPUAS::LOCAL_ADDRESS &&
                  addrspace::Constant == AMDGPUAS::CONSTANT_ADDRESS &&
                  addrspace::Local == AMDGPUAS::PRIVATE_ADDRESS,
              "AMDGPU's address spaces");

// What a load at `offset` bytes from the implicit arguments or from the
// dispatch packet reads.
GpuValue implicitArgument(uint64_t offset) {
  if (offset <= 8 && offset % 4 == 0)
    return GpuValue::GridDim; // hidden_block_count_{x,y,z}
  if (offset >= 12 && offset <= 16 && offset % 2 == 0)
    return GpuValue::BlockDim; // hidden_group_size_{x,y,z}
  return GpuValue::None;
}
GpuValue dispatchPacket(uint64_t offset) {
  if (offset >= 4 && offset <= 8 && offset % 2 == 0)
    return GpuValue::BlockDim; // workgroup_size_{x,y,z}
  if (offset >= 12 && offset <= 20 && offset % 4 == 0)
    return GpuValue::GridDim; // grid_size_{x,y,z}, in work-items
  return GpuValue::None;
}

class AMDGPUTarget final : public Target {
public:
  StringRef name() const override { return "amdgpu"; }
  bool handles(const Triple &T) const override { return T.isAMDGCN(); }

  unsigned warpSize(const Function &F) const override {
    return F.getFnAttribute("target-features").getValueAsString().contains("+wavefrontsize32")
               ? 32
               : 64;
  }

  bool isKernel(const Function &F) const override {
    return !F.isDeclaration() && F.getCallingConv() == CallingConv::AMDGPU_KERNEL;
  }
  CallingConv::ID kernelCallingConv() const override { return CallingConv::AMDGPU_KERNEL; }

  // The clone keeps the original's attributes (work-group size bounds,
  // waves per EU), less the AMDGPU attributor's conclusions about what the
  // original does not use: the clone reads more of the launch (the y and z
  // ids of a report, the dispatch) and calls the runtime.
  void copyKernelAttributes(Function &, Function &clone) const override { prepareClone(clone); }
  void prepareClone(Function &clone) const override {
    SmallVector<StringRef, 16> drop;
    for (const Attribute &A : clone.getAttributes().getFnAttrs())
      if (A.isStringAttribute() && A.getKindAsString().starts_with("amdgpu-no-"))
        drop.push_back(A.getKindAsString());
    for (StringRef name : drop)
      clone.removeFnAttr(name);
  }

  // Kernel arguments are read from the kernarg segment: the launch info is
  // passed by reference into it (as clang passes HIP's aggregates), which
  // the host fills as it fills a CUDA kernel's by-value parameter.
  unsigned launchInfoAddressSpace() const override { return addrspace::Constant; }
  Attribute::AttrKind launchInfoPassing() const override { return Attribute::ByRef; }

  IndexIntrinsics indexIntrinsics() const override {
    return {{Intrinsic::amdgcn_workitem_id_x, Intrinsic::amdgcn_workitem_id_y,
             Intrinsic::amdgcn_workitem_id_z},
            {Intrinsic::amdgcn_workgroup_id_x, Intrinsic::amdgcn_workgroup_id_y,
             Intrinsic::amdgcn_workgroup_id_z}};
  }
  // "amdgpu-flat-work-group-size"="min,max": at most max work items in a
  // work group, so in any one dimension.
  uint64_t threadIdBound(const Function &F, unsigned) const override {
    StringRef sizes = F.getFnAttribute("amdgpu-flat-work-group-size").getValueAsString();
    uint64_t max = 0;
    if (sizes.empty() || sizes.split(',').second.trim().getAsInteger(10, max))
      return 0;
    return max;
  }

  GpuValue classify(const Value &V) const override {
    if (const auto *LI = dyn_cast<LoadInst>(&V)) {
      const DataLayout &DL = LI->getModule()->getDataLayout();
      APInt offset(DL.getIndexTypeSizeInBits(LI->getPointerOperandType()), 0);
      const Value *base =
          LI->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, offset, true);
      const auto *II = dyn_cast<IntrinsicInst>(base);
      if (!II)
        return GpuValue::None;
      if (II->getIntrinsicID() == Intrinsic::amdgcn_implicitarg_ptr)
        return implicitArgument(offset.getZExtValue());
      if (II->getIntrinsicID() == Intrinsic::amdgcn_dispatch_ptr)
        return dispatchPacket(offset.getZExtValue());
      return GpuValue::None;
    }
    const auto *CI = dyn_cast<CallInst>(&V);
    if (!CI || !CI->getCalledFunction())
      return GpuValue::None;
    switch (CI->getCalledFunction()->getIntrinsicID()) {
    case Intrinsic::amdgcn_workitem_id_x:
    case Intrinsic::amdgcn_workitem_id_y:
    case Intrinsic::amdgcn_workitem_id_z:
      return GpuValue::ThreadId;
    case Intrinsic::amdgcn_workgroup_id_x:
    case Intrinsic::amdgcn_workgroup_id_y:
    case Intrinsic::amdgcn_workgroup_id_z:
      return GpuValue::BlockId;
    case Intrinsic::amdgcn_mbcnt_lo:
    case Intrinsic::amdgcn_mbcnt_hi:
      return GpuValue::LaneId;
    default:
      break;
    }
    // At -O0 HIP's headers call the device libraries' functions.
    StringRef name = CI->getCalledFunction()->getName();
    if (name == "__ockl_get_local_id")
      return GpuValue::ThreadId;
    if (name == "__ockl_get_group_id")
      return GpuValue::BlockId;
    if (name == "__ockl_get_local_size")
      return GpuValue::BlockDim;
    if (name == "__ockl_get_num_groups")
      return GpuValue::GridDim;
    if (name == "__ockl_lane_u32")
      return GpuValue::LaneId;
    return GpuValue::None;
  }

  bool isShuffle(const Value &V) const override {
    const auto *CI = dyn_cast<CallInst>(&V);
    if (!CI || !CI->getCalledFunction())
      return false;
    switch (CI->getCalledFunction()->getIntrinsicID()) {
    case Intrinsic::amdgcn_ds_bpermute:
    case Intrinsic::amdgcn_ds_permute:
    case Intrinsic::amdgcn_ds_swizzle:
    case Intrinsic::amdgcn_mov_dpp:
    case Intrinsic::amdgcn_update_dpp:
    case Intrinsic::amdgcn_readlane:
    case Intrinsic::amdgcn_readfirstlane:
    case Intrinsic::amdgcn_permlane16:
    case Intrinsic::amdgcn_permlanex16:
    case Intrinsic::amdgcn_permlane64:
      return true;
    default:
      return CI->getCalledFunction()->getName().contains("__shfl");
    }
  }

  const Value *shuffledValue(const CallInst &CI) const override {
    const Function *F = CI.getCalledFunction();
    if (!F)
      return nullptr;
    switch (F->getIntrinsicID()) {
    case Intrinsic::amdgcn_ds_bpermute:
    case Intrinsic::amdgcn_ds_permute:
      return CI.getArgOperand(1);
    case Intrinsic::amdgcn_ds_swizzle:
    case Intrinsic::amdgcn_readlane:
    case Intrinsic::amdgcn_readfirstlane:
      return CI.getArgOperand(0);
    default:
      return nullptr;
    }
  }
  Value *reshuffle(IRBuilderBase &B, const CallInst &CI, Value *word) const override {
    Intrinsic::ID id = CI.getCalledFunction()->getIntrinsicID();
    SmallVector<Value *, 3> args(CI.args());
    args[id == Intrinsic::amdgcn_ds_bpermute || id == Intrinsic::amdgcn_ds_permute ? 1 : 0] =
        word;
    if (id == Intrinsic::amdgcn_readlane || id == Intrinsic::amdgcn_readfirstlane)
      return B.CreateIntrinsic(B.getInt32Ty(), id, args);
    return B.CreateIntrinsic(id, {}, args);
  }

  bool isGlobalLoadIntrinsic(Intrinsic::ID) const override { return false; }

  // A system-scope fence makes the report's stores visible to the host
  // (the kosan state lives in host memory the GPU maps).
  void systemFence(IRBuilderBase &B) const override {
    B.CreateFence(AtomicOrdering::SequentiallyConsistent);
  }
};

} // namespace

const Target &amdgpuTarget() {
  static const AMDGPUTarget target;
  return target;
}

} // namespace kosan

//===- passes/target/NVPTX.cpp - NVIDIA GPUs (nvptx64) --------------------===//
#include "target/Target.h"
#include "DeviceRuntime.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"

#include <cmath>
#include <optional>
#include <set>
#include <vector>

using namespace llvm;

namespace kosan {
namespace {

// The register limit of a clone whose kernel has no launch bounds; the one
// that lets an SM hold 2048 threads; and the most 32-bit values a light
// original holds at once (bench/kernels.cu: 6 to 17 for kernels that ptxas
// fits in 12 to 24 registers, 140 for the unrolled matmul that needs 32).
constexpr unsigned kFullOccupancyRegisters = 32, kLightOriginal = 24;
// What a loop may carry from trip to trip and still fit in 32 registers
// beside its trip's own values (loads in flight, an unrolled chain's
// operands: about 16).
constexpr unsigned kLightLoopCarried = 16;
cl::opt<unsigned> ClCloneRegisters(
    "kosan-clone-registers", cl::init(64), cl::Hidden,
    cl::desc("Register limit (.maxnreg) of a clone whose kernel has no launch bounds of its "
             "own, before the light-clone limit of 32 (default 64: a 1024-thread block "
             "still launches)"));

// 32-bit registers a value takes (predicates have their own file; none).
static unsigned registerUnits(Type *T) {
  if (T->isIntegerTy(1) || T->isVoidTy() || T->isLabelTy() || T->isMetadataTy() ||
      T->isTokenTy())
    return 0;
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return VT->getNumElements() * registerUnits(VT->getElementType());
  if (T->isPointerTy())
    return 2;
  if (T->isSized() && T->getPrimitiveSizeInBits().getFixedValue())
    return unsigned((T->getPrimitiveSizeInBits().getFixedValue() + 31) / 32);
  return 2;
}

using LiveSets = DenseMap<const BasicBlock *, DenseSet<const Value *>>;

bool tracked(const Value *V) { return isa<Instruction>(V) && registerUnits(V->getType()) > 0; }

unsigned units(const DenseSet<const Value *> &live) {
  unsigned n = 0;
  for (const Value *V : live)
    n += registerUnits(V->getType());
  return n;
}

// SSA liveness of F's instructions' results at each block's entry and exit.
void liveness(const Function &F, LiveSets &liveIn, LiveSets &liveOut) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (const BasicBlock &BB : reverse(F)) {
      DenseSet<const Value *> out;
      for (const BasicBlock *S : successors(&BB)) {
        for (const Value *V : liveIn[S])
          out.insert(V);
        for (const PHINode &Phi : S->phis())
          if (const Value *V = Phi.getIncomingValueForBlock(&BB); V && tracked(V))
            out.insert(V);
      }
      DenseSet<const Value *> in = out;
      for (const Instruction &I : reverse(BB)) {
        in.erase(&I);
        if (isa<PHINode>(I))
          continue;
        for (const Value *Op : I.operands())
          if (tracked(Op))
            in.insert(Op);
      }
      for (const PHINode &Phi : BB.phis())
        in.erase(&Phi);
      if (in.size() != liveIn[&BB].size() || out.size() != liveOut[&BB].size()) {
        changed = true;
        liveIn[&BB] = std::move(in);
        liveOut[&BB] = std::move(out);
      }
    }
  }
}

// The most 32-bit registers the values of F hold at once (SSA liveness of
// its instructions' results; parameters and constants are left out, ptxas
// reads them from the constant bank). An estimate of what F needs before
// ptxas schedules for latency.
unsigned estimateLiveRegisters(const Function &F, const LiveSets &liveOut) {
  unsigned most = 0;
  for (const BasicBlock &BB : F) {
    DenseSet<const Value *> live = liveOut.lookup(&BB);
    most = std::max(most, units(live));
    for (const Instruction &I : reverse(BB)) {
      if (isa<PHINode>(I))
        break;
      live.erase(&I);
      for (const Value *Op : I.operands())
        if (tracked(Op))
          live.insert(Op);
      most = std::max(most, units(live));
    }
  }
  return most;
}

// Addresses that differ by constants (a tile's as[ty][k] for each unrolled
// k, hoisted out of the loop) cost ptxas one register: the offsets go into
// the instructions. The key of an address: its base and its variable
// indices; null for a value that is not such an address.
std::optional<std::vector<const Value *>> offsetKey(const Value *V) {
  auto *G = dyn_cast<GEPOperator>(V->stripPointerCasts());
  if (!G)
    return std::nullopt;
  std::vector<const Value *> key = {G->getPointerOperand()->stripPointerCasts()};
  for (const Use &Idx : G->indices())
    key.push_back(isa<Constant>(Idx) ? nullptr : Idx.get());
  return key;
}

// The most 32-bit registers a loop of F keeps from one trip to the next:
// the values live into its header, its phis included. What stays live
// within a trip (an unrolled tile's loads, consumed as they come) ptxas
// schedules; what a trip hands to the next it must hold.
unsigned estimateLoopCarriedRegisters(const Function &F, const LiveSets &liveIn) {
  DominatorTree DT(const_cast<Function &>(F));
  LoopInfo LI(DT);
  unsigned most = 0;
  for (const Loop *L : LI.getLoopsInPreorder()) {
    DenseSet<const Value *> carried;
    std::set<std::vector<const Value *>> bases;
    for (const Value *V : liveIn.lookup(L->getHeader())) {
      std::optional<std::vector<const Value *>> key = offsetKey(V);
      if (!key || bases.insert(*key).second)
        carried.insert(V);
    }
    for (const PHINode &Phi : L->getHeader()->phis())
      if (tracked(&Phi))
        carried.insert(&Phi);
    most = std::max(most, units(carried));
  }
  return most;
}

class NVPTXTarget final : public Target {
public:
  StringRef name() const override { return "nvptx"; }
  bool handles(const Triple &T) const override { return T.isNVPTX(); }
  unsigned warpSize(const Function &) const override { return 32; }
  bool fusesMultiplyAddsPerBlock() const override { return true; }
  bool callsReportCheaply() const override { return true; }

  // rcp.approx.ftz.f64, two Newton steps, the quotient and one correction
  // of it by its residual (the fast path of div.rn.f64, which rounds
  // correctly but for rare ties). Where the correction is NaN (a or b zero
  // or infinite, b beyond the normal range) the quotient of the first
  // reciprocal is IEEE's: x * inf, x * 0.
  Value *shadowDivide(IRBuilderBase &B, Value *a, Value *b) const override {
    if (!a->getType()->isDoubleTy())
      return B.CreateFDiv(a, b);
    Type *D = a->getType();
    Value *one = ConstantFP::get(D, 1.0), *negB = B.CreateFNeg(b);
    auto fma = [&](Value *x, Value *y, Value *z) {
      return B.CreateIntrinsic(Intrinsic::fma, {D}, {x, y, z});
    };
    // A constant divisor's reciprocal is a constant, rounded once.
    if (auto *CB = dyn_cast<ConstantFP>(b); CB && CB->getValueAPF().isNormal()) {
      double rc = 1.0 / CB->getValueAPF().convertToDouble();
      if (std::isnormal(rc)) {
        Value *q0 = B.CreateFMul(a, ConstantFP::get(D, rc));
        Value *q = fma(ConstantFP::get(D, rc), fma(negB, q0, a), q0);
        return B.CreateSelect(B.CreateFCmpUNO(q, q), q0, q, "kosan.div");
      }
    }
    Value *r0 = B.CreateIntrinsic(Intrinsic::nvvm_rcp_approx_ftz_d, {}, {b});
    Value *r = fma(r0, fma(negB, r0, one), r0);
    r = fma(r, fma(negB, r, one), r);
    Value *q = B.CreateFMul(a, r);
    q = fma(r, fma(negB, q, a), q);
    Value *first = B.CreateFMul(a, r0);
    return B.CreateSelect(B.CreateFCmpUNO(q, q), first, q, "kosan.div");
  }

  // LLVM 19's NVPTX marks kernels with !nvvm.annotations {ptr @f, !"kernel",
  // i32 1}; later LLVMs (and kosan's clones) with the ptx_kernel convention.
  bool isKernel(const Function &F) const override {
    if (F.isDeclaration())
      return false;
    if (F.getCallingConv() == CallingConv::PTX_Kernel)
      return true;
    const NamedMDNode *Annotations = F.getParent()->getNamedMetadata("nvvm.annotations");
    if (!Annotations)
      return false;
    for (const MDNode *Op : Annotations->operands()) {
      if (Op->getNumOperands() < 3)
        continue;
      auto *V = dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0));
      auto *Key = dyn_cast_or_null<MDString>(Op->getOperand(1));
      if (!V || V->getValue() != &F || !Key || Key->getString() != "kernel")
        continue;
      if (auto *C = mdconst::dyn_extract<ConstantInt>(Op->getOperand(2)))
        if (C->isOne())
          return true;
    }
    return false;
  }

  // ptx_kernel makes the clone an .entry whatever the NVPTX backend's
  // annotation cache remembers about a function that once lived at the same
  // address (LLVM 19 caches annotations per GlobalValue pointer and never
  // forgets deleted ones); the annotations still carry the launch bounds.
  CallingConv::ID kernelCallingConv() const override { return CallingConv::PTX_Kernel; }

  void copyKernelAttributes(Function &from, Function &to) const override {
    Module &M = *from.getParent();
    NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
    if (!Annotations)
      return;
    SmallVector<MDNode *, 4> added;
    bool bounded = false;
    for (MDNode *Op : Annotations->operands()) {
      if (Op->getNumOperands() < 1)
        continue;
      auto *V = dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0));
      if (!V || V->getValue() != &from)
        continue;
      SmallVector<Metadata *, 4> ops(Op->op_begin(), Op->op_end());
      ops[0] = ValueAsMetadata::get(&to);
      added.push_back(MDNode::get(M.getContext(), ops));
      for (unsigned i = 1; i + 1 < Op->getNumOperands(); i += 2)
        if (auto *Key = dyn_cast<MDString>(Op->getOperand(i)))
          bounded |= Key->getString().starts_with("maxntid") || Key->getString() == "maxnreg";
    }
    // Without launch bounds ptxas gives a kernel all the registers it wants,
    // and the program's block size is what limits the original. The clone
    // needs more registers than the original: keep it launchable with every
    // block size the original may be launched with (1024 threads x 64
    // registers fill a register file). Not when it calls device functions of
    // another unit (relocatable device code): nvlink refuses a kernel whose
    // limit is below what such a function uses, which ptxas does not know here;
    // a clone that then needs too many registers for its launch runs plain,
    // with a warning, instead of failing the link.
    auto callsOtherUnit = [&] {
      for (const Instruction &I : instructions(to))
        if (const auto *CB = dyn_cast<CallBase>(&I))
          if (const Function *Callee = CB->getCalledFunction();
              Callee && Callee->isDeclaration() && !Callee->isIntrinsic() &&
              !Callee->getName().starts_with(rt::Prefix) && Callee->getName() != "vprintf" &&
              Callee->getName() != "malloc" && Callee->getName() != "free" &&
              Callee->getName() != "__assertfail")
            return true;
      return false;
    };
    if (!bounded && !callsOtherUnit())
      added.push_back(MDNode::get(
          M.getContext(),
          {ValueAsMetadata::get(&to), MDString::get(M.getContext(), "maxnreg"),
           ConstantAsMetadata::get(
               ConstantInt::get(Type::getInt32Ty(M.getContext()), ClCloneRegisters))}));
    for (MDNode *N : added)
      Annotations->addOperand(N);
  }

  // barrier.sync with a thread count (warp-specialised code, whose warps
  // meet at different barrier instructions by design) stays as written.
  bool isNonAlignedBarrier(const IntrinsicInst &II) const override {
    return II.getIntrinsicID() == Intrinsic::nvvm_barrier_sync;
  }

  // barrier.sync 0 -> bar.sync 0 (__syncthreads), barrier.sync id -> bar.sync id.
  void alignBarrier(IntrinsicInst &II) const override {
    Module *M = II.getModule();
    auto *id = dyn_cast<ConstantInt>(II.getArgOperand(0));
    CallInst *aligned =
        id && id->isZero()
            ? CallInst::Create(Intrinsic::getDeclaration(M, Intrinsic::nvvm_barrier0), {}, "",
                               II.getIterator())
            : CallInst::Create(Intrinsic::getDeclaration(M, Intrinsic::nvvm_barrier_n),
                               {II.getArgOperand(0)}, "", II.getIterator());
    aligned->setDebugLoc(II.getDebugLoc());
    II.eraseFromParent();
  }

  // The limit of 64 halves the occupancy of an original that ptxas fits in
  // 32 registers (2048 threads on an SM need 32 each): a streaming kernel
  // launched with a grid of 8 blocks of 256 threads per SM then runs in two
  // waves instead of one, and takes twice as long (saxpy in
  // bench/kernels.cu: 16 registers plain, 64 with the OOB check). Where the
  // original holds few values at once (estimateLiveRegisters), a clone whose
  // checks need few registers is limited to 32, like the original;
  // ptxas spills what does not fit, on paths that rarely run.
  void fitRegistersToOriginal(const Function &original, Function &clone) const override {
    NamedMDNode *Annotations = clone.getParent()->getNamedMetadata("nvvm.annotations");
    if (!Annotations)
      return;
    // Only the limit kosan gave a kernel without launch bounds of its own.
    for (const MDNode *Op : Annotations->operands()) {
      auto *V = Op->getNumOperands() ? dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0))
                                     : nullptr;
      if (!V || V->getValue() != &original)
        continue;
      for (unsigned i = 1; i + 1 < Op->getNumOperands(); i += 2)
        if (auto *Key = dyn_cast<MDString>(Op->getOperand(i));
            Key && (Key->getString().starts_with("maxntid") ||
                    Key->getString().starts_with("reqntid") || Key->getString() == "maxnreg"))
          return;
    }
    // A clone whose loops run as compiled (checks/oob: every loop with a
    // checked access copied whole) keeps the original's loops as its hot
    // code: what those loops carry decides, not the unrolled tile loads
    // that the estimate above counts as live at once (matmul: 140 by it,
    // 32 registers by ptxas), beside a trip's own working set.
    bool loopsAsCompiled = clone.hasFnAttribute(kLoopsAsCompiled);
    LiveSets liveIn, liveOut;
    liveness(original, liveIn, liveOut);
    if (estimateLiveRegisters(original, liveOut) > kLightOriginal &&
        !(loopsAsCompiled &&
          estimateLoopCarriedRegisters(original, liveIn) <= kLightLoopCarried))
      return;
    for (MDNode *Op : Annotations->operands()) {
      if (Op->getNumOperands() != 3)
        continue;
      auto *V = dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0));
      auto *Key = dyn_cast_or_null<MDString>(Op->getOperand(1));
      auto *C = mdconst::dyn_extract<ConstantInt>(Op->getOperand(2));
      if (V && V->getValue() == &clone && Key && Key->getString() == "maxnreg" && C &&
          C->getZExtValue() == ClCloneRegisters)
        Op->replaceOperandWith(
            2, ConstantAsMetadata::get(ConstantInt::get(C->getType(), kFullOccupancyRegisters)));
    }
  }

  IndexIntrinsics indexIntrinsics() const override {
    return {{Intrinsic::nvvm_read_ptx_sreg_tid_x, Intrinsic::nvvm_read_ptx_sreg_tid_y,
             Intrinsic::nvvm_read_ptx_sreg_tid_z},
            {Intrinsic::nvvm_read_ptx_sreg_ctaid_x, Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
             Intrinsic::nvvm_read_ptx_sreg_ctaid_z}};
  }
  Value *blockDim(IRBuilderBase &B, unsigned dim) const override {
    static constexpr Intrinsic::ID ntid[3] = {Intrinsic::nvvm_read_ptx_sreg_ntid_x,
                                              Intrinsic::nvvm_read_ptx_sreg_ntid_y,
                                              Intrinsic::nvvm_read_ptx_sreg_ntid_z};
    return B.CreateIntrinsic(ntid[dim], {}, {});
  }
  // reqntid fixes each dimension; maxntid bounds the product of the block's
  // dimensions (PTX ISA, .maxntid), so any one of them too.
  uint64_t threadIdBound(const Function &F, unsigned dim) const override {
    const NamedMDNode *Annotations = F.getParent()->getNamedMetadata("nvvm.annotations");
    if (!Annotations)
      return 0;
    uint64_t req[3] = {0, 0, 0}, max[3] = {0, 0, 0};
    for (const MDNode *Op : Annotations->operands()) {
      auto *V = Op->getNumOperands() ? dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0))
                                     : nullptr;
      if (!V || V->getValue() != &F)
        continue;
      for (unsigned i = 1; i + 1 < Op->getNumOperands(); i += 2) {
        auto *Key = dyn_cast<MDString>(Op->getOperand(i));
        auto *C = mdconst::dyn_extract<ConstantInt>(Op->getOperand(i + 1));
        if (!Key || !C)
          continue;
        StringRef key = Key->getString();
        uint64_t *into = key.consume_front("reqntid") ? req : key.consume_front("maxntid") ? max
                                                                                        : nullptr;
        if (into && key.size() == 1 && key[0] >= 'x' && key[0] <= 'z')
          into[key[0] - 'x'] = C->getZExtValue();
      }
    }
    if (req[0] || req[1] || req[2])
      return req[dim] ? req[dim] : 1;
    if (!max[0] && !max[1] && !max[2])
      return 0;
    uint64_t product = 1;
    for (uint64_t m : max)
      product *= m ? m : 1;
    return product;
  }

  GpuValue classify(const Value &V) const override {
    const auto *II = dyn_cast<IntrinsicInst>(&V);
    if (!II)
      return GpuValue::None;
    StringRef name = II->getCalledFunction()->getName();
    if (!name.consume_front("llvm.nvvm.read.ptx.sreg."))
      return GpuValue::None;
    if (name.starts_with("tid"))
      return GpuValue::ThreadId;
    if (name.starts_with("ctaid"))
      return GpuValue::BlockId;
    if (name.starts_with("ntid"))
      return GpuValue::BlockDim;
    if (name.starts_with("nctaid"))
      return GpuValue::GridDim;
    if (name.starts_with("laneid"))
      return GpuValue::LaneId;
    return GpuValue::None;
  }

  unsigned dimension(const Value &V) const override {
    if (classify(V) == GpuValue::None)
      return 3;
    StringRef name = cast<IntrinsicInst>(V).getCalledFunction()->getName();
    return name.ends_with(".x") ? 0 : name.ends_with(".y") ? 1 : name.ends_with(".z") ? 2 : 3;
  }

  bool isShuffle(const Value &V) const override {
    const auto *CI = dyn_cast<CallInst>(&V);
    if (!CI || !CI->getCalledFunction())
      return false;
    StringRef name = CI->getCalledFunction()->getName();
    return name.starts_with("llvm.nvvm.shfl.") || name.contains("__shfl");
  }

  const Value *shuffledValue(const CallInst &CI) const override {
    const Function *F = CI.getCalledFunction();
    if (!F)
      return nullptr;
    StringRef name = F->getName();
    if (name.starts_with("llvm.nvvm.shfl.sync.") && !name.ends_with("p"))
      return CI.getArgOperand(1);
    return nullptr;
  }
  Value *reshuffle(IRBuilderBase &B, const CallInst &CI, Value *word) const override {
    StringRef kind = CI.getCalledFunction()
                         ->getName()
                         .drop_front(strlen("llvm.nvvm.shfl.sync."))
                         .split('.')
                         .first;
    Intrinsic::ID sid = kind == "bfly"   ? Intrinsic::nvvm_shfl_sync_bfly_i32
                        : kind == "down" ? Intrinsic::nvvm_shfl_sync_down_i32
                        : kind == "up"   ? Intrinsic::nvvm_shfl_sync_up_i32
                                         : Intrinsic::nvvm_shfl_sync_idx_i32;
    return B.CreateIntrinsic(sid, {}, {CI.getArgOperand(0), word, CI.getArgOperand(2),
                                       CI.getArgOperand(3)});
  }

  bool isGlobalLoadIntrinsic(Intrinsic::ID id) const override {
    switch (id) {
    case Intrinsic::nvvm_ldg_global_f:
    case Intrinsic::nvvm_ldg_global_i:
    case Intrinsic::nvvm_ldg_global_p:
    case Intrinsic::nvvm_ldu_global_f:
    case Intrinsic::nvvm_ldu_global_i:
    case Intrinsic::nvvm_ldu_global_p:
      return true;
    default:
      return false;
    }
  }

  void systemFence(IRBuilderBase &B) const override {
    B.CreateIntrinsic(Intrinsic::nvvm_membar_sys, {}, {});
  }
};

} // namespace

const Target &nvptxTarget() {
  static const NVPTXTarget target;
  return target;
}

} // namespace kosan

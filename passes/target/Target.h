//===- passes/target/Target.h - What kosan's passes need of a GPU target -===//
//
// Everything the instrumenters know about the GPU they instrument for goes
// through this interface: address spaces, which functions are kernels and
// how a kernel clone is declared, the thread/block ids, launch dimensions
// and warp (wavefront) intrinsics, and the fence a report needs. The
// layout of the launch info a kernel clone receives is the ABI's
// (include/kosan/abi.h), the same for every target: LaunchInfoLayout.
//
// One implementation per target (NVPTX.cpp, AMDGPU.cpp), listed once in
// KOSAN_TARGETS below and found by the module's triple (Target::forModule).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PASSES_TARGET_TARGET_H
#define KOSAN_PASSES_TARGET_TARGET_H

#include "kosan/abi.h"

#include "llvm/IR/CallingConv.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

#include <cstddef>
#include <cstdint>

namespace llvm {
class IntrinsicInst;
class CallInst;
class Triple;
class Function;
class Module;
class Value;
} // namespace llvm

namespace kosan {

// LLVM's address space numbers for GPU memories. NVPTX and AMDGPU agree on
// them (AMDGPU calls local memory "private" and shared memory "LDS"); each
// target's implementation asserts that its backend's numbers are these
// (NVPTX's below: LLVM 19 has no header of them), so that code which must be
// constant (a static helper, a sink's address space) can use them directly.
namespace addrspace {
constexpr unsigned Generic = 0;
constexpr unsigned Global = 1;
constexpr unsigned Shared = 3;   // __shared__ / LDS
constexpr unsigned Constant = 4; // __constant__
constexpr unsigned Local = 5;    // per-thread stack / private
} // namespace addrspace
// NVPTXAddrSpace (llvm/Support/NVPTXAddrSpace.h in later LLVMs).
static_assert(addrspace::Generic == 0 && addrspace::Global == 1 && addrspace::Shared == 3 &&
                  addrspace::Constant == 4 && addrspace::Local == 5,
              "NVPTX's address spaces");

// kosan_launch_info (abi.h) in bytes: what a kernel clone reads its launch
// context and its arguments' bounds from.
struct LaunchInfoLayout {
  static constexpr uint64_t state = offsetof(kosan_launch_info, state);
  static constexpr uint64_t launchId = offsetof(kosan_launch_info, launch_id);
  static constexpr uint64_t flags = offsetof(kosan_launch_info, flags);
  static constexpr uint64_t dynSmem = offsetof(kosan_launch_info, dyn_smem_bytes);
  static constexpr uint64_t raceLayout = offsetof(kosan_launch_info, race_layout);
  // The bounds of argument i start at args + i * boundsSize.
  static constexpr uint64_t args = sizeof(kosan_launch_info);
  static constexpr uint64_t boundsSize = sizeof(kosan_arg_bounds);
  // Field f (0 begin, 1 end, 2 pitch, 3 shape) of argument i's bounds.
  static constexpr uint64_t bound(unsigned arg, unsigned field) {
    return args + boundsSize * arg + sizeof(uint64_t) * field;
  }
  // The launch info of a kernel with n parameters, in i64 words.
  static constexpr uint64_t words(unsigned numArgs) { return (args + boundsSize * numArgs) / 8; }
};
static_assert(offsetof(kosan_arg_bounds, begin) == 0 && offsetof(kosan_arg_bounds, end) == 8 &&
                  offsetof(kosan_arg_bounds, pitch) == 16 && offsetof(kosan_arg_bounds, shape) == 24,
              "LaunchInfoLayout::bound() indexes kosan_arg_bounds by 8-byte fields");
static_assert(LaunchInfoLayout::args % 8 == 0 && LaunchInfoLayout::boundsSize % 8 == 0,
              "the launch info is passed as an array of i64");

// The special values a kernel reads from its target: the thread's index in
// its block, the block's in the grid, the launch dimensions and the lane.
enum class GpuValue { None, ThreadId, BlockId, BlockDim, GridDim, LaneId };

// A clone's function attribute, set by a check whose every loop with a
// checked access runs as compiled when its tests pass (checks/oob: loops
// copied whole); fitRegistersToOriginal reads it, and the pass removes it
// once the clone is made.
inline constexpr char kLoopsAsCompiled[] = "kosan-loops-as-compiled";

class Target {
public:
  virtual ~Target() = default;

  // The target of M's triple, or nullptr if M is not device code kosan knows.
  static const Target *forModule(const llvm::Module &M);

  virtual llvm::StringRef name() const = 0;
  // Whether device modules of this triple are this target's.
  virtual bool handles(const llvm::Triple &T) const = 0;
  // Threads of a warp (NVPTX: 32) or a wavefront (AMDGPU: 64 or 32).
  virtual unsigned warpSize(const llvm::Function &F) const = 0;

  // Kernels and their clones.
  virtual bool isKernel(const llvm::Function &F) const = 0;
  // The calling convention of a function kosan adds as a kernel (a clone,
  // the rdc unit marker).
  virtual llvm::CallingConv::ID kernelCallingConv() const = 0;
  // Gives `clone` what makes `original` a kernel with its launch bounds,
  // beyond the calling convention (NVPTX: its nvvm.annotations, and a
  // register limit when it has none).
  virtual void copyKernelAttributes(llvm::Function &original, llvm::Function &clone) const = 0;
  // A clone whose checks need few registers beyond its original's
  // (Instrumenter::fewRegisters): where the original needs few, the
  // clone's register limit becomes what keeps the original's occupancy.
  virtual void fitRegistersToOriginal(const llvm::Function & /*original*/,
                                      llvm::Function & /*clone*/) const {}
  // What every clone (kernel or device function) needs once it is made,
  // beyond its original's attributes (AMDGPU: none of the attributor's
  // "amdgpu-no-*" conclusions, which the instrumentation may falsify).
  virtual void prepareClone(llvm::Function &) const {}
  // Whether instruction selection fuses a multiply and an add of one basic
  // block into an fma whatever the multiply's other uses (LLVM's
  // TargetLowering::enableAggressiveFMAFusion; NVPTX). The clones then get
  // those fmas written out before the checks split blocks (core/Contraction.h).
  virtual bool fusesMultiplyAddsPerBlock() const { return false; }
  // A non-aligned block barrier (NVPTX: barrier.sync), which ptxas compiles
  // with a path for diverged warps once the kernel calls a function holding
  // warp-level operations; core/Barriers.h.
  virtual bool isNonAlignedBarrier(const llvm::IntrinsicInst &) const { return false; }
  // Replaces such a barrier, which every warp reaches converged, by its
  // aligned form (NVPTX: bar.sync, barrier0 for barrier 0 of all threads).
  virtual void alignBarrier(llvm::IntrinsicInst &) const {}
  // Whether a kernel may call a small function of the module on its cold
  // paths (the OOB check's report) without its register count changing:
  // NVPTX, measured with ptxas -v. An AMDGPU kernel that calls anything
  // sets up a stack and scratch; unmeasured there, so its reports stay inline.
  virtual bool callsReportCheaply() const { return false; }
  // a / b in double precision, for the shadows of divisions. The default is
  // the division itself; NVPTX computes it without div.rn.f64, whose slow
  // path ptxas calls through a branch: a branch splits the block, and the
  // real multiply on one side of it no longer fuses with the add on the
  // other as it does in the uninstrumented kernel.
  virtual llvm::Value *shadowDivide(llvm::IRBuilderBase &B, llvm::Value *a,
                                    llvm::Value *b) const {
    return B.CreateFDiv(a, b);
  }
  // How a kernel clone receives its launch info: a pointer in this address
  // space, with this attribute (byval or byref) of the launch info's type.
  virtual unsigned launchInfoAddressSpace() const { return addrspace::Generic; }
  virtual llvm::Attribute::AttrKind launchInfoPassing() const { return llvm::Attribute::ByVal; }

  // The intrinsics that read the thread's index in its block and the
  // block's in the grid, per dimension (x, y, z).
  struct IndexIntrinsics {
    llvm::Intrinsic::ID thread[3], block[3];
  };
  virtual IndexIntrinsics indexIntrinsics() const = 0;
  // Reading them (dim: 0 x, 1 y, 2 z).
  llvm::Value *threadId(llvm::IRBuilderBase &B, unsigned dim) const {
    return B.CreateIntrinsic(indexIntrinsics().thread[dim], {}, {});
  }
  llvm::Value *blockId(llvm::IRBuilderBase &B, unsigned dim) const {
    return B.CreateIntrinsic(indexIntrinsics().block[dim], {}, {});
  }
  // The block's size in dimension dim, read where B stands; nullptr where
  // the target has no intrinsic for it.
  virtual llvm::Value *blockDim(llvm::IRBuilderBase & /*B*/, unsigned /*dim*/) const {
    return nullptr;
  }
  // What the kernel's launch bounds (__launch_bounds__, reqntid, HIP's
  // flat work-group size) promise: every thread index in dimension dim is
  // below the value returned; 0 when they say nothing.
  virtual uint64_t threadIdBound(const llvm::Function & /*kernel*/, unsigned /*dim*/) const {
    return 0;
  }
  // Gives the thread-index reads of `clone` the range that `original`'s
  // launch bounds promise (a launch beyond them fails), intersected with
  // the range they carry, so that the analyses of the clone see it.
  void boundThreadIds(llvm::Function &clone, const llvm::Function &original) const;
  // What a call reads, if it reads one of them (any dimension).
  virtual GpuValue classify(const llvm::Value &V) const = 0;
  // The dimension (0 x, 1 y, 2 z) of what classify names; 3 where it has
  // none or the target does not say.
  virtual unsigned dimension(const llvm::Value & /*V*/) const { return 3; }
  // A warp shuffle: the target's intrinsic, or a call of the CUDA/HIP
  // headers' wrapper (at -O0, where nothing is inlined).
  virtual bool isShuffle(const llvm::Value &V) const = 0;
  // The value a shuffle intrinsic moves between lanes, when re-issuing the
  // same shuffle on another 32-bit word moves that word the same way
  // (reshuffle); nullptr otherwise.
  virtual const llvm::Value *shuffledValue(const llvm::CallInst &CI) const = 0;
  virtual llvm::Value *reshuffle(llvm::IRBuilderBase &B, const llvm::CallInst &CI,
                                 llvm::Value *word) const = 0;
  // A load through the target's read-only/uniform load intrinsics
  // (NVPTX's ldg/ldu): its pointer operand is argument 0.
  virtual bool isGlobalLoadIntrinsic(llvm::Intrinsic::ID id) const = 0;
  // A fence that orders the thread's writes for the host (system scope).
  virtual void systemFence(llvm::IRBuilderBase &B) const = 0;
};

// The targets, one file each in passes/target/: X(name), where the file
// defines kosan::<name>Target(). Target::forModule takes the first whose
// handles() accepts the module's triple.
#define KOSAN_TARGETS(X) X(nvptx) X(amdgpu)

#define KOSAN_DECLARE_TARGET(name) const Target &name##Target();
KOSAN_TARGETS(KOSAN_DECLARE_TARGET)
#undef KOSAN_DECLARE_TARGET

} // namespace kosan

#endif

//===- passes/OOBSanitizer.cpp - Out-of-bounds instrumentation of kernels --===//
//
// For every kernel K the pass adds a clone K__kosan that takes one more
// parameter, a kosan_launch_info by value, holding the bounds the host
// resolved for each pointer argument at launch. Every load, store, atomic and
// memory intrinsic of the clone is checked against the object its pointer
// derives from (see Provenance.h):
//
//   kernel pointer argument i : begin/end from launch_info.args[i]  (2 compares)
//   static shared, local, __device__ arrays, byval params : static bounds
//   extern __shared__ arrays  : launch_info.dyn_smem_bytes
//   anything else             : the runtime's table of every known buffer
//
// A failing compare calls the device runtime, which records the event and
// says whether the access may go ahead (pitched buffers); otherwise a store
// is dropped and a load yields zero. Device functions get clones too, taking
// the launch context as extra arguments, so the original kernel and every
// function it calls stay exactly as compiled: a launch with checks off runs
// uninstrumented code.
//
//===----------------------------------------------------------------------===//
#include "KosanPasses.h"
#include "Provenance.h"
#include "OrderAnalysis.h"
#include "OrderSanitizer.h"
#include "PrecisionSanitizer.h"
#include "SiteTable.h"

#include "kosan/abi.h"

#include <cstddef>

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

#define DEBUG_TYPE "kosan-oob"

STATISTIC(NumKernels, "Kernels cloned and instrumented");
STATISTIC(NumDeviceFunctions, "Device functions cloned and instrumented");
STATISTIC(NumChecked, "Accesses checked");
STATISTIC(NumCheckedArg, "Accesses checked against a kernel argument's bounds");
STATISTIC(NumCheckedStatic, "Accesses checked against a static object's bounds");
STATISTIC(NumCheckedTable, "Accesses of unresolved provenance checked against the table");
STATISTIC(NumProvenSafe, "Accesses proven in bounds at compile time");
STATISTIC(NumGrouped, "Accesses checked as part of a constant-offset group");
STATISTIC(NumConstant, "Accesses to constant or parameter memory, not checked");
STATISTIC(NumUninitChecked, "Global loads checked for the uninit fill");

namespace kosan {
namespace {

// Layout of kosan_launch_info in bytes (abi.h, pinned by static_assert there).
constexpr uint64_t kInfoState = 0, kInfoLaunchId = 8, kInfoFlags = 12,
                   kInfoDynSmem = 16, kInfoArgs = sizeof(kosan_launch_info),
                   kBoundsSize = sizeof(kosan_arg_bounds);
static_assert(kInfoArgs == 32 && kBoundsSize == 32, "launch info layout");

constexpr unsigned kSharedAS = 3, kLocalAS = 5;
// Function objects allocated (and freed) before cloning: see run().
constexpr unsigned kAddressFillers = 4096;

#define KOSAN_ENTRY_NAME(id, sym) constexpr char k##id##Name[] = sym;
KOSAN_DEVICE_ENTRIES(KOSAN_ENTRY_NAME)
#undef KOSAN_ENTRY_NAME

// The launch context an instrumented function reads: from the launch info in
// a kernel clone, from trailing arguments in a device function clone.
struct LaunchContext {
  Value *state = nullptr, *launchId = nullptr, *flags = nullptr,
        *dynSmem = nullptr;
  Argument *info = nullptr; // kernels only
};

struct Access {
  Instruction *inst;
  Value *ptr;           // refreshed from operand `ptrOperand` before use
  Value *size;          // bytes, i64
  uint32_t constSize;   // 0 if not constant
  kosan_access_kind kind;
  unsigned ptrOperand = 0;
};

// kosan's own loads of the launch info are never checked.
Instruction *markNoSanitize(Instruction *I) {
  I->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(I->getContext(), {}));
  return I;
}

// Accesses in one block through one pointer at different constant offsets
// (an unrolled loop over a shared tile: as[ty][0..31]) are checked once, on
// the range they span. If the range is out of bounds every member is
// suppressed, and the report names the member at the violated end.
struct Group {
  int leader = -1;               // first member in program order
  int64_t leaderOffset = 0;      // the leader's constant part
  int64_t minOffset = INT64_MAX, maxOffset = INT64_MIN, maxEnd = INT64_MIN;
  int minMember = -1, maxMember = -1;
  unsigned members = 0;
  bool allLoads = true;
  Value *bad = nullptr;          // set when the leader is instrumented
  // Loads only: all members address off one base; when the range is bad the
  // base moves to the start of the object itself (the values are discarded),
  // so the loads keep immediate offsets from one register.
  Value *safeBase = nullptr;
};

// What a load promised about the memory it read does not hold for a sink
// or a stand-in address.
void dropLoadPromises(Instruction &I) {
  for (unsigned kind : {LLVMContext::MD_range, LLVMContext::MD_noundef,
                        LLVMContext::MD_nonnull, LLVMContext::MD_invariant_load,
                        LLVMContext::MD_align, LLVMContext::MD_dereferenceable,
                        LLVMContext::MD_dereferenceable_or_null})
    I.setMetadata(kind, nullptr);
}

struct Counts {
  unsigned arg = 0, stat = 0, table = 0, safe = 0, constant = 0;
};

class OOBSanitizer {
public:
  OOBSanitizer(Module &M, const PassOptions &opts)
      : M(M), DL(M.getDataLayout()), opts(opts), Ctx(M.getContext()),
        I64(Type::getInt64Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        I1(Type::getInt1Ty(Ctx)), Ptr(PointerType::get(Ctx, 0)) {}
  bool run();

private:
  void initializeCallbacks();
  Value *emitReport(Instruction *before, const LaunchContext &ctx, Value *site,
                    Value *addr, Value *size32, Value *begin, Value *end,
                    Value *pitch, Value *shape, Value *badOverride = nullptr);
  void checkUninit(LoadInst &L, const LaunchContext &ctx, uint32_t site, bool kernel);
  Function *cloneWithExtraParams(Function &F, ArrayRef<Type *> extra);
  Function *cloneKernel(Function &F);
  Function *cloneDeviceFunction(Function &F);
  void redirectCalls(Function &clone, const LaunchContext &ctx);
  LaunchContext kernelContext(Function &clone, unsigned numArgs);
  void instrumentFunction(Function &clone, const Function &original,
                          bool kernel, const LaunchContext &ctx);
  void collectAccesses(Function &F, SmallVectorImpl<Access> &out);
  Value *argBound(Function &clone, const LaunchContext &ctx, unsigned arg,
                  unsigned field, IRBuilder<> &B);
  void guard(Access &A, Value *bad,
             function_ref<Value *(Instruction *)> slowPath);
  bool canRedirect(const Access &A) const;
  SmallVector<int, 32> groupAccesses(ArrayRef<Access> accesses,
                                     ArrayRef<Provenance> provenance,
                                     SmallVectorImpl<Group> &groups,
                                     SmallVectorImpl<int64_t> &offsets);
  void redirect(Access &A, unsigned space, Value *bad, Value *report,
                function_ref<void(Instruction *)> slowPath);
  Value *sinkFor(PointerType *T, unsigned space, IRBuilder<> &B);
  std::string fpMode() const;
  std::string unitId() const;
  void declareExternalClones(ArrayRef<Function *> instrumented);
  void nameUnitGlobals(StringRef id);

  Module &M;
  const DataLayout &DL;
  const PassOptions &opts;
  LLVMContext &Ctx;
  Type *I64, *I32, *I1;
  PointerType *Ptr;
  FunctionCallee tableFn, recordFn;
  SiteTable sites;
  void remarkSummary(Function &F, const KernelSummary &summary);
  void remarkPrecision(Function &clone, const Function &original, bool kernel,
                       const PrecisionCounts &counts);
  void remarkOrder(Function &clone, const Function &original, bool kernel,
                   const OrderCounts &counts);
  DenseMap<Function *, Function *> clones;
  DenseMap<std::pair<unsigned, unsigned>, Value *> argBoundCache;
  GlobalVariable *globalSink = nullptr, *sharedSink = nullptr;
  // Relocatable device code: the unit's site base (KOSAN_SITE_BASE_PREFIX),
  // added to the site ids this module records.
  GlobalVariable *siteBase = nullptr;
};

// Bytes of the sinks that redirected accesses go to: the widest access the
// fast path redirects.
constexpr uint64_t kSinkBytes = 64;

void OOBSanitizer::initializeCallbacks() {
  // bool __kosan_oob_check_table(state, launch, flags, site, addr, size)
  FunctionType *tableTy =
      FunctionType::get(I1, {I64, I32, I32, I32, I64, I32}, false);
  tableFn = M.getOrInsertFunction(kOobCheckTableName, tableTy);
  auto *F = cast<Function>(tableFn.getCallee());
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::Cold);
  F->addRetAttr(Attribute::ZExt);
  // void __kosan_oob_record(state, launch, flags, site, addr, size)
  recordFn = M.getOrInsertFunction(
      kOobRecordName, FunctionType::get(Type::getVoidTy(Ctx), {I64, I32, I32, I32, I64, I32}, false));
  auto *RF = cast<Function>(recordFn.getCallee());
  RF->addFnAttr(Attribute::NoUnwind);
  RF->addFnAttr(Attribute::Cold);
}

// The cold path of a failed compare, inline: a call here would make every
// instrumented kernel pay the callee's registers (ptxas sizes a kernel for
// all it may call). Returns whether the access may go ahead (only a pitched
// access inside its row may); when not, appends an event to the log:
//
//   idx = atomicrmw add state->event_count, 1
//   if (idx < state->event_capacity) { events[idx] = {...}; fence; key }
//   host_flag->dirty = 1
//   if (flags & HALT) { fence; host_flag->halted = 1; trap }
Value *OOBSanitizer::emitReport(Instruction *before, const LaunchContext &ctx,
                                Value *site, Value *addr, Value *size32,
                                Value *begin, Value *end, Value *pitch,
                                Value *shape, Value *badOverride) {
  IRBuilder<> B(before);
  Value *size64 = B.CreateZExt(size32, I64);
  Value *bad = badOverride ? badOverride
                           : B.CreateOr(B.CreateICmpULT(addr, begin),
                                        B.CreateICmpUGT(B.CreateAdd(addr, size64), end));
  if (!badOverride && pitch &&
      !(isa<ConstantInt>(pitch) && cast<ConstantInt>(pitch)->isZero())) {
    // Inside its row: the offset modulo the pitch, plus the size, fits in
    // the row. 32-bit division (a 64-bit one is a long routine); offsets past
    // 4 GiB get the allocation test only.
    Value *offset = B.CreateSub(addr, begin);
    Value *small = B.CreateAnd(B.CreateICmpULE(offset, B.getInt64(0xffffffffu)),
                               B.CreateICmpULE(pitch, B.getInt64(0xffffffffu)));
    Value *isPitched = B.CreateICmpNE(pitch, B.getInt64(0));
    small = B.CreateAnd(small, isPitched);
    Value *pitch32 = B.CreateTrunc(B.CreateSelect(small, pitch, B.getInt64(1)), I32);
    Value *rem = B.CreateURem(B.CreateTrunc(offset, I32), pitch32);
    Value *rowBytes = B.CreateTrunc(shape, I32);
    Value *outside = B.CreateICmpUGT(B.CreateAdd(rem, size32), rowBytes);
    Value *rowBad = B.CreateAnd(small, outside);
    bad = B.CreateOr(bad, rowBad);
  }
  Value *ok = B.CreateNot(bad, "kosan.ok");

  MDBuilder MDB(Ctx);
  Instruction *recordTerm =
      SplitBlockAndInsertIfThen(bad, before, false, MDB.createLikelyBranchWeights());
  recordTerm->getParent()->setName("kosan.record");
  IRBuilder<> R(recordTerm);
  R.SetCurrentDebugLocation(before->getDebugLoc());
  Value *state = R.CreateIntToPtr(ctx.state, Ptr);
  auto field = [&](uint64_t offset) {
    return R.CreateConstInBoundsGEP1_64(R.getInt8Ty(), state, offset);
  };
  Value *index = R.CreateAtomicRMW(AtomicRMWInst::Add,
                                   field(offsetof(kosan_device_state, event_count)),
                                   R.getInt32(1), MaybeAlign(4), AtomicOrdering::Monotonic);
  Value *capacity = R.CreateAlignedLoad(
      I32, field(offsetof(kosan_device_state, event_capacity)), Align(4));
  Value *hostFlag = R.CreateIntToPtr(
      R.CreateAlignedLoad(I64, field(offsetof(kosan_device_state, host_flag)), Align(8)), Ptr);
  Instruction *writeTerm = SplitBlockAndInsertIfThen(
      R.CreateICmpULT(index, capacity), recordTerm, false, MDB.createLikelyBranchWeights());
  writeTerm->getParent()->setName("kosan.record.write");
  {
    IRBuilder<> W(writeTerm);
    W.SetCurrentDebugLocation(before->getDebugLoc());
    Value *events = W.CreateIntToPtr(
        W.CreateAlignedLoad(I64, W.CreateConstInBoundsGEP1_64(
                                     W.getInt8Ty(), state,
                                     offsetof(kosan_device_state, events)),
                            Align(8)),
        Ptr);
    Value *event = W.CreateInBoundsGEP(
        W.getInt8Ty(), events,
        W.CreateMul(W.CreateZExt(index, I64), W.getInt64(sizeof(kosan_oob_event))));
    // Naturally aligned, so that the 8-byte key is one store: the host must
    // never see half of it.
    auto put = [&](uint64_t offset, Value *v) {
      W.CreateAlignedStore(v, W.CreateConstInBoundsGEP1_64(W.getInt8Ty(), event, offset),
                           Align(DL.getTypeStoreSize(v->getType())));
    };
    put(offsetof(kosan_oob_event, addr), addr);
    put(offsetof(kosan_oob_event, begin), begin);
    put(offsetof(kosan_oob_event, end), end);
    put(offsetof(kosan_oob_event, pitch), pitch ? pitch : W.getInt64(0));
    put(offsetof(kosan_oob_event, size), size32);
    Intrinsic::ID sregs[6] = {Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                              Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                              Intrinsic::nvvm_read_ptx_sreg_ctaid_z,
                              Intrinsic::nvvm_read_ptx_sreg_tid_x,
                              Intrinsic::nvvm_read_ptx_sreg_tid_y,
                              Intrinsic::nvvm_read_ptx_sreg_tid_z};
    for (unsigned i = 0; i < 6; ++i)
      put(offsetof(kosan_oob_event, block) + 4 * i,
          W.CreateIntrinsic(sregs[i], {}, {}));
    W.CreateIntrinsic(Intrinsic::nvvm_membar_sys, {}, {});
    if (siteBase)
      site = W.CreateAdd(markNoSanitize(W.CreateAlignedLoad(I32, siteBase, Align(4))), site);
    Value *key = W.CreateAdd(
        W.CreateOr(W.CreateShl(W.CreateZExt(ctx.launchId, I64), 32),
                   W.CreateZExt(site, I64)),
        W.getInt64(1));
    put(offsetof(kosan_oob_event, key), key);
  }
  R.SetInsertPoint(recordTerm);
  R.CreateAlignedStore(R.getInt32(1), hostFlag, Align(4), /*isVolatile=*/true);
  // halt_on_error, or a kernel that keeps failing (stop_after): the
  // budget is the device state's, 0 for none.
  Value *budget = R.CreateAlignedLoad(
      I32, field(offsetof(kosan_device_state, event_budget)), Align(4));
  Value *overBudget = R.CreateAnd(R.CreateICmpNE(budget, R.getInt32(0)),
                                  R.CreateICmpUGE(index, budget));
  Value *halt = R.CreateOr(
      R.CreateICmpNE(R.CreateAnd(ctx.flags, R.getInt32(KOSAN_LAUNCH_HALT_ON_ERROR)),
                     R.getInt32(0)),
      overBudget);
  Instruction *haltTerm =
      SplitBlockAndInsertIfThen(halt, recordTerm, /*Unreachable=*/true,
                                MDB.createUnlikelyBranchWeights());
  haltTerm->getParent()->setName("kosan.halt");
  IRBuilder<> H(haltTerm);
  H.SetCurrentDebugLocation(before->getDebugLoc());
  H.CreateIntrinsic(Intrinsic::nvvm_membar_sys, {}, {});
  H.CreateAlignedStore(H.getInt32(1),
                       H.CreateConstInBoundsGEP1_64(H.getInt8Ty(), hostFlag,
                                                    offsetof(kosan_host_flag, halted)),
                       Align(4), /*isVolatile=*/true);
  H.CreateIntrinsic(Intrinsic::trap, {}, {});
  return ok;
}

// uninit=1 (KOSAN_LAUNCH_UNINIT): a global load whose value holds the fill
// of a fresh allocation (KOSAN_UNINIT_PATTERN, in any of its 2-, 4- or
// 8-byte elements) read what nobody wrote; it is recorded at its site with
// KOSAN_SITE_UNINIT_BIT. Without the flag it costs a compare per element.
// One-byte loads, pointers and aggregates are not checked.
void OOBSanitizer::checkUninit(LoadInst &L, const LaunchContext &ctx, uint32_t site,
                               bool kernel) {
  Type *T = L.getType();
  auto *VT = dyn_cast<FixedVectorType>(T);
  Type *E = VT ? VT->getElementType() : T;
  unsigned bits = E->isFloatingPointTy() || E->isIntegerTy() ? E->getPrimitiveSizeInBits() : 0;
  if (bits != 16 && bits != 32 && bits != 64)
    return;
  if (!L.getNextNode())
    return;
  ++NumUninitChecked;
  IRBuilder<> B(L.getNextNode());
  B.SetCurrentDebugLocation(L.getDebugLoc());
  Type *IntE = B.getIntNTy(bits);
  Type *IntT = VT ? cast<Type>(FixedVectorType::get(IntE, VT->getNumElements())) : IntE;
  Value *word = E->isIntegerTy() ? cast<Value>(&L) : B.CreateBitCast(&L, IntT);
  uint64_t pattern = uint64_t(KOSAN_UNINIT_PATTERN) << 32 | KOSAN_UNINIT_PATTERN;
  Constant *fill = ConstantInt::get(IntE, pattern & (bits == 64 ? ~0ull : (1ull << bits) - 1));
  Value *eq = B.CreateICmpEQ(word, VT ? ConstantVector::getSplat(VT->getElementCount(), fill)
                                      : fill);
  if (VT)
    eq = B.CreateOrReduce(eq);
  Value *on = B.CreateICmpNE(B.CreateAnd(ctx.flags, B.getInt32(KOSAN_LAUNCH_UNINIT)),
                             B.getInt32(0));
  Value *addr = B.CreatePtrToInt(L.getPointerOperand(), I64);
  // Last, so that the report block splits off right after it.
  Value *bad = B.CreateAnd(eq, on, "kosan.uninit");
  Value *size32 = B.getInt32(uint32_t(DL.getTypeStoreSize(T)));
  Value *zero = B.getInt64(0);
  Value *siteV = B.getInt32(site | KOSAN_SITE_UNINIT_BIT);
  if (kernel) {
    emitReport(cast<Instruction>(bad)->getNextNode(), ctx, siteV, addr, size32, zero, zero,
               nullptr, nullptr, bad);
    return;
  }
  MDBuilder MDB(Ctx);
  Instruction *then = SplitBlockAndInsertIfThen(bad, cast<Instruction>(bad)->getNextNode(),
                                                false, MDB.createUnlikelyBranchWeights());
  then->getParent()->setName("kosan.record");
  IRBuilder<> R(then);
  R.SetCurrentDebugLocation(L.getDebugLoc());
  R.CreateCall(recordFn, {ctx.state, ctx.launchId, ctx.flags, siteV, addr, size32});
}

static void copyKernelAnnotations(Module &M, Function &from, Function &to) {
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
            !Callee->getName().starts_with("__kosan_") && Callee->getName() != "vprintf" &&
            Callee->getName() != "malloc" && Callee->getName() != "free" &&
            Callee->getName() != "__assertfail")
          return true;
    return false;
  };
  if (!bounded && Triple(M.getTargetTriple()).isNVPTX() && !callsOtherUnit())
    added.push_back(MDNode::get(
        M.getContext(),
        {ValueAsMetadata::get(&to), MDString::get(M.getContext(), "maxnreg"),
         ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(M.getContext()), 64))}));
  for (MDNode *N : added)
    Annotations->addOperand(N);
}

// The clone calls into the runtime, which writes memory the original never
// touched and may trap: attributes promising otherwise must go.
static void dropPromises(Function &F) {
  F.removeFnAttr(Attribute::Memory);
  F.removeFnAttr(Attribute::NoSync);
  F.removeFnAttr(Attribute::NoFree);
  F.removeFnAttr(Attribute::WillReturn);
  F.removeFnAttr(Attribute::NoRecurse);
}

// A copy of F named F__kosan that takes `extra` parameters after its own.
Function *OOBSanitizer::cloneWithExtraParams(Function &F, ArrayRef<Type *> extra) {
  FunctionType *FT = F.getFunctionType();
  SmallVector<Type *, 8> params(FT->param_begin(), FT->param_end());
  params.append(extra.begin(), extra.end());
  auto *NewFT = FunctionType::get(FT->getReturnType(), params, FT->isVarArg());
  Function *NewF = Function::Create(NewFT, F.getLinkage(), F.getAddressSpace(),
                                    F.getName() + KOSAN_CLONE_SUFFIX, &M);
  ValueToValueMapTy VMap;
  for (unsigned i = 0; i < F.arg_size(); ++i) {
    NewF->getArg(i)->setName(F.getArg(i)->getName());
    VMap[F.getArg(i)] = NewF->getArg(i);
  }
  SmallVector<ReturnInst *, 4> returns;
  CloneFunctionInto(NewF, &F, VMap, CloneFunctionChangeType::LocalChangesOnly,
                    returns);
  dropPromises(*NewF);
  return NewF;
}

Function *OOBSanitizer::cloneKernel(Function &F) {
  Function *NewF = cloneWithExtraParams(F, {Ptr});
  unsigned infoArg = F.arg_size();
  // The launch info: a .param array the host fills per launch.
  Type *infoTy = ArrayType::get(I64, (kInfoArgs + kBoundsSize * F.arg_size()) / 8);
  NewF->addParamAttr(infoArg, Attribute::getWithByValType(Ctx, infoTy));
  NewF->addParamAttr(infoArg, Attribute::getWithAlignment(Ctx, Align(8)));
  NewF->getArg(infoArg)->setName("kosan.launch_info");
  // ptx_kernel makes the clone an .entry whatever the NVPTX backend's
  // annotation cache remembers about a function that once lived at the same
  // address (LLVM 19 caches annotations per GlobalValue pointer and never
  // forgets deleted ones); the annotations still carry the launch bounds.
  NewF->setCallingConv(Triple(M.getTargetTriple()).isNVPTX()
                           ? CallingConv::ID(CallingConv::PTX_Kernel)
                           : F.getCallingConv());
  copyKernelAnnotations(M, F, *NewF);
  return NewF;
}

Function *OOBSanitizer::cloneDeviceFunction(Function &F) {
  Function *NewF = cloneWithExtraParams(F, {I64, I32, I32, I64});
  unsigned n = F.arg_size();
  NewF->getArg(n)->setName("kosan.state");
  NewF->getArg(n + 1)->setName("kosan.launch_id");
  NewF->getArg(n + 2)->setName("kosan.flags");
  NewF->getArg(n + 3)->setName("kosan.dyn_smem");
  return NewF;
}

LaunchContext OOBSanitizer::kernelContext(Function &clone, unsigned numArgs) {
  LaunchContext ctx;
  ctx.info = clone.getArg(numArgs);
  // After the entry block's allocas, which the backend wants first.
  BasicBlock::iterator at = clone.getEntryBlock().getFirstInsertionPt();
  while (isa<AllocaInst>(*at))
    ++at;
  IRBuilder<> B(&*at);
  auto field = [&](uint64_t offset, Type *T, const char *name) {
    Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), ctx.info, offset);
    Align align(T->getPrimitiveSizeInBits() / 8);
    return markNoSanitize(B.CreateAlignedLoad(T, p, align, name));
  };
  ctx.state = field(kInfoState, I64, "kosan.state");
  ctx.launchId = field(kInfoLaunchId, I32, "kosan.launch_id");
  ctx.flags = field(kInfoFlags, I32, "kosan.flags");
  ctx.dynSmem = field(kInfoDynSmem, I64, "kosan.dyn_smem");
  return ctx;
}

Value *OOBSanitizer::argBound(Function & /*clone*/, const LaunchContext &ctx,
                              unsigned arg, unsigned field, IRBuilder<> &B) {
  // begin, end and pitch are read once at entry; shape only on the slow path.
  uint64_t offset = kInfoArgs + kBoundsSize * arg + 8 * field;
  if (field < 3) {
    Value *&cached = argBoundCache[{arg, field}];
    if (!cached) {
      IRBuilder<> EB(cast<Instruction>(ctx.dynSmem)->getNextNode());
      Value *p = EB.CreateConstInBoundsGEP1_64(EB.getInt8Ty(), ctx.info, offset);
      cached = markNoSanitize(EB.CreateAlignedLoad(
          I64, p, Align(8),
          "kosan.arg" + Twine(arg) +
              (field == 0 ? ".begin" : field == 1 ? ".end" : ".pitch")));
    }
    return cached;
  }
  Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), ctx.info, offset);
  return markNoSanitize(B.CreateAlignedLoad(I64, p, Align(8)));
}

void OOBSanitizer::redirectCalls(Function &clone, const LaunchContext &ctx) {
  SmallVector<CallInst *, 8> calls;
  for (Instruction &I : instructions(clone))
    if (auto *CI = dyn_cast<CallInst>(&I))
      if (Function *callee = CI->getCalledFunction())
        if (clones.count(callee) && !isKernel(*callee))
          calls.push_back(CI);
  for (CallInst *CI : calls) {
    Function *target = clones[CI->getCalledFunction()];
    SmallVector<Value *, 8> args(CI->args());
    args.append({ctx.state, ctx.launchId, ctx.flags, ctx.dynSmem});
    SmallVector<OperandBundleDef, 1> bundles;
    CI->getOperandBundlesAsDefs(bundles);
    CallInst *NewCI = CallInst::Create(target, args, bundles, "", CI);
    NewCI->takeName(CI);
    NewCI->setCallingConv(CI->getCallingConv());
    NewCI->setTailCallKind(CI->getTailCallKind());
    NewCI->setDebugLoc(CI->getDebugLoc());
    // Parameter attributes of the original arguments still apply.
    AttributeList attrs = CI->getAttributes();
    NewCI->setAttributes(AttributeList::get(
        Ctx, attrs.getFnAttrs(), attrs.getRetAttrs(),
        [&] {
          SmallVector<AttributeSet, 8> p;
          for (unsigned i = 0; i < CI->arg_size(); ++i)
            p.push_back(attrs.getParamAttrs(i));
          return p;
        }()));
    NewCI->removeFnAttr(Attribute::Memory);
    CI->replaceAllUsesWith(NewCI);
    CI->eraseFromParent();
  }
}

void OOBSanitizer::collectAccesses(Function &F, SmallVectorImpl<Access> &out) {
  auto sizeOf = [&](Type *T) -> uint32_t {
    return DL.getTypeStoreSize(T).getFixedValue();
  };
  for (Instruction &I : instructions(F)) {
    if (I.hasMetadata(LLVMContext::MD_nosanitize))
      continue;
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      uint32_t s = sizeOf(LI->getType());
      out.push_back({LI, LI->getPointerOperand(), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_LOAD});
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      uint32_t s = sizeOf(SI->getValueOperand()->getType());
      out.push_back({SI, SI->getPointerOperand(), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_STORE, StoreInst::getPointerOperandIndex()});
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
      uint32_t s = sizeOf(RMW->getValOperand()->getType());
      out.push_back({RMW, RMW->getPointerOperand(), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_ATOMIC});
    } else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I)) {
      uint32_t s = sizeOf(CX->getNewValOperand()->getType());
      out.push_back({CX, CX->getPointerOperand(), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_ATOMIC});
    } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
      Value *len = MI->getLength();
      uint32_t s = 0;
      if (auto *C = dyn_cast<ConstantInt>(len))
        s = C->getLimitedValue(UINT32_MAX);
      IRBuilder<> B(MI);
      Value *len64 = B.CreateZExtOrTrunc(len, I64);
      out.push_back({MI, MI->getRawDest(), len64, s, KOSAN_ACCESS_MEMCPY_DST});
      if (auto *MT = dyn_cast<MemTransferInst>(MI))
        out.push_back(
            {MI, MT->getRawSource(), len64, s, KOSAN_ACCESS_MEMCPY_SRC, 1});
    } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      switch (II->getIntrinsicID()) {
      case Intrinsic::nvvm_ldg_global_f:
      case Intrinsic::nvvm_ldg_global_i:
      case Intrinsic::nvvm_ldg_global_p:
      case Intrinsic::nvvm_ldu_global_f:
      case Intrinsic::nvvm_ldu_global_i:
      case Intrinsic::nvvm_ldu_global_p: {
        uint32_t s = sizeOf(II->getType());
        out.push_back({II, II->getArgOperand(0), ConstantInt::get(I64, s), s,
                       KOSAN_ACCESS_LOAD});
        break;
      }
      default:
        break;
      }
    }
  }
}

// Splits the block around A.inst:
//   head:   br bad, slow, access
//   slow:   ok = <slowPath>; br ok, access, skip
//   access: <inst>; br cont
//   skip:   br cont
//   cont:   phi [inst, access], [zero, skip]
void OOBSanitizer::guard(Access &A, Value *bad,
                         function_ref<Value *(Instruction *)> slowPath) {
  Instruction *I = A.inst;
  BasicBlock *head = I->getParent();
  BasicBlock *access = head->splitBasicBlock(I, "kosan.access");
  BasicBlock *cont = access->splitBasicBlock(I->getNextNode(), "kosan.cont");
  Function *F = head->getParent();
  BasicBlock *slow = BasicBlock::Create(Ctx, "kosan.slow", F, cont);
  BasicBlock *skip = BasicBlock::Create(Ctx, "kosan.skip", F, cont);
  MDBuilder MDB(Ctx);

  head->getTerminator()->eraseFromParent();
  IRBuilder<> HB(head);
  HB.SetCurrentDebugLocation(I->getDebugLoc());
  if (bad)
    HB.CreateCondBr(bad, slow, access, MDB.createUnlikelyBranchWeights());
  else
    HB.CreateBr(slow);

  IRBuilder<> SB(slow);
  SB.SetCurrentDebugLocation(I->getDebugLoc());
  // The slow path may split its block; the placeholder ends up last.
  Instruction *placeholder = SB.CreateBr(access);
  Value *ok = slowPath(placeholder);
  IRBuilder<> EB(placeholder);
  EB.SetCurrentDebugLocation(I->getDebugLoc());
  EB.CreateCondBr(ok, access, skip, MDB.createLikelyBranchWeights());
  placeholder->eraseFromParent();

  IRBuilder<> KB(skip);
  KB.CreateBr(cont);

  if (!I->getType()->isVoidTy() && !I->use_empty()) {
    IRBuilder<> CB(&cont->front());
    PHINode *phi = CB.CreatePHI(I->getType(), 2, I->getName() + ".kosan");
    I->replaceAllUsesWith(phi);
    phi->addIncoming(I, access);
    phi->addIncoming(Constant::getNullValue(I->getType()), skip);
  }
}

// The fast path for loads, stores and atomics: no control flow around the
// access, so the backend schedules it as it would the plain one. A bad
// access is redirected to a sink and a bad load's value replaced by zero,
// both with selects; only the report is behind a branch:
//   safe = select bad, sink, p ; v = load safe ; v' = select bad, 0, v
//   br report, kosan.report, kosan.cont
SmallVector<int, 32>
OOBSanitizer::groupAccesses(ArrayRef<Access> accesses,
                            ArrayRef<Provenance> provenance,
                            SmallVectorImpl<Group> &groups,
                            SmallVectorImpl<int64_t> &offsets) {
  SmallVector<int, 32> groupOf(accesses.size(), -1);
  offsets.assign(accesses.size(), 0);
  StringMap<int> byKey;
  for (unsigned i = 0; i < accesses.size(); ++i) {
    const Access &A = accesses[i];
    const Provenance &p = provenance[i];
    // Static objects only: a kernel argument may be pitched, whose rows
    // need every access checked on its own.
    if ((p.kind != Provenance::StaticObject && p.kind != Provenance::DynamicShared) ||
        !canRedirect(A))
      continue;
    if (p.kind == Provenance::StaticObject && p.constOffset && *p.constOffset >= 0 &&
        uint64_t(*p.constOffset) + A.constSize <= p.size)
      continue; // proven safe, not checked at all
    // ptr = base + sum(index * scale) + constant, through the GEP chain.
    unsigned bits = DL.getIndexTypeSizeInBits(A.ptr->getType());
    Value *base = A.ptr;
    MapVector<Value *, APInt> variable;
    APInt constant(bits, 0);
    bool ok = true;
    while (true) {
      if (auto *GEP = dyn_cast<GEPOperator>(base)) {
        if (!GEP->collectOffset(DL, bits, variable, constant)) {
          ok = false;
          break;
        }
        base = GEP->getPointerOperand();
      } else if (auto *Cast = dyn_cast<BitCastOperator>(base)) {
        base = Cast->getOperand(0);
      } else {
        break;
      }
    }
    if (!ok)
      continue;
    std::string key;
    raw_string_ostream os(key);
    os << (const void *)A.inst->getParent() << (const void *)base;
    for (auto &[v, scale] : variable)
      os << ':' << (const void *)v << '*' << scale.getSExtValue();
    int64_t off = constant.getSExtValue();
    auto [it, inserted] = byKey.try_emplace(os.str(), int(groups.size()));
    if (inserted) {
      groups.emplace_back();
      groups.back().leader = i;
      groups.back().leaderOffset = off;
    }
    Group &G = groups[it->second];
    // Members must share the object (the stripped pointer decides that).
    if (provenance[G.leader].base != p.base)
      continue;
    groupOf[i] = it->second;
    offsets[i] = off;
    ++G.members;
    if (!isa<LoadInst>(A.inst))
      G.allLoads = false;
    if (off < G.minOffset) {
      G.minOffset = off;
      G.minMember = i;
    }
    if (off + int64_t(A.constSize) > G.maxEnd) {
      G.maxEnd = off + A.constSize;
      G.maxOffset = off;
      G.maxMember = i;
    }
  }
  // A group of one is an ordinary check.
  for (unsigned i = 0; i < accesses.size(); ++i)
    if (groupOf[i] >= 0 && groups[groupOf[i]].members < 2)
      groupOf[i] = -1;
  return groupOf;
}

bool OOBSanitizer::canRedirect(const Access &A) const {
  if (isa<MemIntrinsic>(A.inst))
    return false; // a copy from a sink would write its garbage into valid memory
  if (!isa<LoadInst>(A.inst) && !isa<StoreInst>(A.inst) &&
      !isa<AtomicRMWInst>(A.inst) && !isa<IntrinsicInst>(A.inst))
    return false;
  if (A.constSize == 0 || A.constSize > kSinkBytes)
    return false;
  MaybeAlign align;
  if (auto *LI = dyn_cast<LoadInst>(A.inst))
    align = LI->getAlign();
  else if (auto *SI = dyn_cast<StoreInst>(A.inst))
    align = SI->getAlign();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(A.inst))
    align = RMW->getAlign();
  if (auto *II = dyn_cast<IntrinsicInst>(A.inst))
    if (II->arg_size() > 1)
      if (auto *C = dyn_cast<ConstantInt>(II->getArgOperand(1)))
        align = MaybeAlign(C->getZExtValue());
  if (align && align->value() > kSinkBytes)
    return false;
  unsigned as = A.ptr->getType()->getPointerAddressSpace();
  if (as != 0 && as != 1 && as != kSharedAS)
    return false;
  Type *T = A.inst->getType();
  return T->isVoidTy() || T->isIntOrIntVectorTy() || T->isFPOrFPVectorTy() ||
         T->isPtrOrPtrVectorTy();
}

Value *OOBSanitizer::sinkFor(PointerType *T, unsigned space, IRBuilder<> & /*B*/) {
  unsigned as = T->getAddressSpace();
  Type *sinkTy = ArrayType::get(I64, kSinkBytes / 8);
  // A generic pointer into shared memory gets the shared sink, so that the
  // backend can still prove the access shared (ld.shared, not generic ld).
  if (as == kSharedAS || space == KOSAN_SPACE_SHARED) {
    if (!sharedSink) {
      sharedSink = new GlobalVariable(M, sinkTy, false, GlobalValue::InternalLinkage,
                                      UndefValue::get(sinkTy), "__kosan_shared_sink",
                                      nullptr, GlobalValue::NotThreadLocal, kSharedAS);
      sharedSink->setAlignment(Align(kSinkBytes));
    }
    if (as == kSharedAS)
      return sharedSink;
    return ConstantExpr::getAddrSpaceCast(sharedSink, T);
  }
  if (!globalSink) {
    globalSink = new GlobalVariable(M, sinkTy, false, GlobalValue::InternalLinkage,
                                    Constant::getNullValue(sinkTy), "__kosan_sink",
                                    nullptr, GlobalValue::NotThreadLocal, 1);
    globalSink->setAlignment(Align(kSinkBytes));
  }
  if (as == 1)
    return globalSink;
  return ConstantExpr::getAddrSpaceCast(globalSink, T);
}

void OOBSanitizer::redirect(Access &A, unsigned space, Value *bad, Value *report,
                            function_ref<void(Instruction *)> slowPath) {
  Instruction *I = A.inst;
  IRBuilder<> B(I);
  B.SetCurrentDebugLocation(I->getDebugLoc());
  auto *PT = cast<PointerType>(A.ptr->getType());
  Value *safe = B.CreateSelect(bad, sinkFor(PT, space, B), A.ptr, "kosan.safe");
  I->setOperand(A.ptrOperand, safe);
  dropLoadPromises(*I);
  Instruction *after = I->getNextNode();
  if (!I->getType()->isVoidTy() && !I->use_empty()) {
    IRBuilder<> VB(after);
    VB.SetCurrentDebugLocation(I->getDebugLoc());
    SmallVector<Use *, 4> uses;
    for (Use &U : I->uses())
      uses.push_back(&U);
    Value *value = VB.CreateSelect(bad, Constant::getNullValue(I->getType()), I,
                                   I->getName() + ".kosan");
    for (Use *U : uses)
      U->set(value);
    after = cast<Instruction>(value)->getNextNode();
  }
  if (!report)
    return; // a member of a group: its leader reports
  MDBuilder MDB(Ctx);
  Instruction *then = SplitBlockAndInsertIfThen(
      report, after, /*Unreachable=*/false, MDB.createUnlikelyBranchWeights());
  then->getParent()->setName("kosan.report");
  // The split takes the next instruction's location; the report is the access's.
  then->setDebugLoc(I->getDebugLoc());
  if (BasicBlock *head = then->getParent()->getSinglePredecessor())
    head->getTerminator()->setDebugLoc(I->getDebugLoc());
  slowPath(then);
}

std::string OOBSanitizer::fpMode() const {
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

static std::string objectName(const Provenance &p) {
  if (!p.base)
    return "";
  if (auto *A = dyn_cast<Argument>(p.base))
    return A->hasName() ? A->getName().str()
                        : ("argument #" + Twine(A->getArgNo())).str();
  if (p.base->hasName())
    return p.base->getName().str();
  return "";
}

void OOBSanitizer::instrumentFunction(Function &clone, const Function &original,
                                      bool kernel, const LaunchContext &ctx) {
  SmallVector<Access, 32> accesses;
  collectAccesses(clone, accesses);
  ProvenanceAnalysis PA(DL, kernel ? &clone : nullptr);
  argBoundCache.clear();
  Counts counts;

  // Resolve every access before any block is split.
  SmallVector<Provenance, 32> provenance;
  for (Access &A : accesses)
    provenance.push_back(PA.resolve(A.ptr));
  SmallVector<Group, 8> groups;
  SmallVector<int64_t, 32> offsets;
  SmallVector<int, 32> groupOf = groupAccesses(accesses, provenance, groups, offsets);
  SmallVector<uint32_t, 32> siteOf(accesses.size(), 0);
  // Global loads to check for the uninit fill once the bounds checks are in.
  SmallVector<std::pair<LoadInst *, uint32_t>, 16> uninitLoads;

  for (unsigned index = 0; index < accesses.size(); ++index) {
    Access &A = accesses[index];
    Provenance &p = provenance[index];
    // An earlier redirected load may have replaced this pointer's value.
    A.ptr = A.inst->getOperand(A.ptrOperand);
    unsigned ptrAS = A.ptr->getType()->getPointerAddressSpace();
    if (p.kind == Provenance::Constant) {
      ++counts.constant;
      ++NumConstant;
      continue;
    }
    if (p.kind == Provenance::StaticObject && p.constOffset && A.constSize &&
        *p.constOffset >= 0 &&
        uint64_t(*p.constOffset) + A.constSize <= p.size) {
      ++counts.safe;
      ++NumProvenSafe;
      continue;
    }
    if (p.kind == Provenance::Unknown &&
        (ptrAS == kSharedAS || ptrAS == kLocalAS)) {
      // A shared or local pointer of unknown origin cannot leave its window
      // into a global buffer; the table holds only global buffers.
      ++counts.constant;
      continue;
    }
    int argIndex = p.kind == Provenance::KernelArg ? int(p.argIndex) : -1;
    uint32_t site = sites.add(*A.inst, A.kind, p.space, A.constSize,
                              objectName(p), argIndex);
    siteOf[index] = site;
    if (auto *L = dyn_cast<LoadInst>(A.inst);
        L && opts.uninit && A.kind == KOSAN_ACCESS_LOAD &&
        (p.kind == Provenance::KernelArg || p.kind == Provenance::Unknown))
      uninitLoads.push_back({L, site});

    IRBuilder<> B(A.inst);
    B.SetCurrentDebugLocation(A.inst->getDebugLoc());
    // Shared objects are compared in the shared window (offsets), so the
    // backend keeps the accesses ld.shared/st.shared instead of converting
    // addresses to generic ones.
    bool inShared = p.space == KOSAN_SPACE_SHARED && p.base &&
                    p.base->getType()->getPointerAddressSpace() == kSharedAS;
    auto addressOf = [&](Value *ptr) -> Value * {
      if (inShared && ptr->getType()->getPointerAddressSpace() != kSharedAS)
        ptr = B.CreateAddrSpaceCast(ptr, PointerType::get(Ctx, kSharedAS));
      return B.CreatePtrToInt(ptr, I64);
    };
    auto objectBegin = [&]() -> Value * {
      Value *base = p.base;
      unsigned as = base->getType()->getPointerAddressSpace();
      if (!inShared && as != ptrAS)
        base = B.CreateAddrSpaceCast(base, A.ptr->getType());
      return B.CreatePtrToInt(base, I64, "kosan.begin");
    };
    if (groupOf[index] >= 0) {
      Group &G = groups[groupOf[index]];
      ++NumChecked;
      ++counts.stat;
      ++NumCheckedStatic;
      if (G.leader != int(index)) {
        ++NumGrouped;
        if (G.safeBase) {
          A.inst->setOperand(A.ptrOperand,
                             B.CreateConstGEP1_64(B.getInt8Ty(), G.safeBase,
                                                  offsets[index], "kosan.safe"));
          dropLoadPromises(*A.inst);
          IRBuilder<> VB(A.inst->getNextNode());
          VB.SetCurrentDebugLocation(A.inst->getDebugLoc());
          SmallVector<Use *, 4> uses;
          for (Use &U : A.inst->uses())
            uses.push_back(&U);
          Value *value = VB.CreateSelect(G.bad, Constant::getNullValue(A.inst->getType()),
                                         A.inst, A.inst->getName() + ".kosan");
          for (Use *U : uses)
            U->set(value);
          continue;
        }
        redirect(A, p.space, G.bad, nullptr, [](Instruction *) {});
        continue;
      }
      // The leader checks the whole range the group touches, once.
      Value *base = p.base;
      if (base->getType()->getPointerAddressSpace() != ptrAS)
        base = B.CreateAddrSpaceCast(base, A.ptr->getType());
      Value *begin = objectBegin();
      Value *objSize = p.kind == Provenance::DynamicShared
                           ? ctx.dynSmem
                           : ConstantInt::get(I64, p.size);
      Value *end = B.CreateAdd(begin, objSize, "kosan.end");
      // The common variable address: the leader's, less its constant part.
      Value *v = B.CreateSub(addressOf(A.ptr), B.getInt64(G.leaderOffset), "kosan.group");
      Value *lo = B.CreateAdd(v, B.getInt64(G.minOffset));
      Value *hi = B.CreateAdd(v, B.getInt64(G.maxEnd));
      Value *below = B.CreateICmpULT(lo, begin);
      G.bad = B.CreateOr(below, B.CreateICmpUGT(hi, end), "kosan.bad");
      if (G.allLoads && p.kind == Provenance::StaticObject &&
          uint64_t(G.maxEnd - G.minOffset) <= p.size) {
        // base + offset_i stays inside the object for every member.
        Value *common = B.CreateConstGEP1_64(B.getInt8Ty(), A.ptr, -G.leaderOffset);
        Value *objStart = B.CreateConstGEP1_64(B.getInt8Ty(), base, -G.minOffset);
        G.safeBase = B.CreateSelect(G.bad, objStart, common, "kosan.safe.base");
      }
      // Sites of the group's extremes are created when their turn comes;
      // the table gets them now so the report can name the one at fault.
      uint32_t siteMin = G.minMember == int(index) ? site
                         : sites.add(*accesses[G.minMember].inst, accesses[G.minMember].kind,
                                     p.space, accesses[G.minMember].constSize,
                                     objectName(p), -1);
      uint32_t siteMax = G.maxMember == int(index) ? site
                         : sites.add(*accesses[G.maxMember].inst, accesses[G.maxMember].kind,
                                     p.space, accesses[G.maxMember].constSize,
                                     objectName(p), -1);
      redirect(A, p.space, G.bad, G.bad, [&](Instruction *before) {
        IRBuilder<> SB(before);
        Value *siteV = SB.CreateSelect(below, SB.getInt32(siteMin), SB.getInt32(siteMax));
        Value *addrV = SB.CreateSelect(
            below, lo, SB.CreateAdd(v, SB.getInt64(G.maxOffset)));
        Value *sizeV = SB.CreateSelect(below, SB.getInt32(accesses[G.minMember].constSize),
                                       SB.getInt32(accesses[G.maxMember].constSize));
        emitReport(before, ctx, siteV, addrV, sizeV, begin, end, nullptr, nullptr);
      });
      continue;
    }
    Value *addr = addressOf(A.ptr);
    addr->setName("kosan.addr");
    Value *size32 = B.CreateTrunc(A.size, I32);
    ++NumChecked;

    if (p.kind == Provenance::Unknown) {
      ++counts.table;
      ++NumCheckedTable;
      guard(A, nullptr, [&](Instruction *before) -> Value * {
        IRBuilder<> SB(before);
        return SB.CreateCall(tableFn, {ctx.state, ctx.launchId, ctx.flags,
                                       SB.getInt32(site), addr, size32});
      });
      continue;
    }

    Value *begin, *end;
    bool fromArg = p.kind == Provenance::KernelArg;
    if (fromArg) {
      ++counts.arg;
      ++NumCheckedArg;
      begin = argBound(clone, ctx, p.argIndex, 0, B);
      end = argBound(clone, ctx, p.argIndex, 1, B);
    } else {
      ++counts.stat;
      ++NumCheckedStatic;
      begin = objectBegin();
      Value *objSize = p.kind == Provenance::DynamicShared
                           ? ctx.dynSmem
                           : ConstantInt::get(I64, p.size);
      end = B.CreateAdd(begin, objSize, "kosan.end");
    }
    Value *last = B.CreateAdd(addr, A.size);
    Value *bad = B.CreateOr(B.CreateICmpULT(addr, begin),
                            B.CreateICmpUGT(last, end), "kosan.bad");
    // Pitched buffers need the runtime's row check even inside the
    // allocation; pitch is a kernel parameter, so the branch is uniform.
    Value *pitched =
        fromArg ? B.CreateICmpNE(argBound(clone, ctx, p.argIndex, 2, B),
                                 B.getInt64(0), "kosan.pitched")
                : nullptr;
    auto callReport = [&](Instruction *before) -> Value * {
      IRBuilder<> SB(before);
      Value *pitch = fromArg ? argBound(clone, ctx, p.argIndex, 2, SB) : nullptr;
      Value *shape = fromArg ? argBound(clone, ctx, p.argIndex, 3, SB) : nullptr;
      return emitReport(before, ctx, SB.getInt32(site), addr, size32, begin, end,
                        pitch, shape);
    };
    if (canRedirect(A)) {
      // A pitched access inside the allocation goes ahead; the runtime only
      // reports it when it falls outside its row.
      Value *report = pitched ? B.CreateOr(bad, pitched) : bad;
      redirect(A, p.space, bad, report, [&](Instruction *before) { callReport(before); });
      continue;
    }
    if (pitched)
      bad = B.CreateOr(bad, pitched);
    guard(A, bad, callReport);
  }
  for (auto [L, site] : uninitLoads)
    checkUninit(*L, ctx, site, kernel);

  OptimizationRemarkEmitter ORE(&clone);
  ORE.emit([&] {
    return OptimizationRemark(DEBUG_TYPE, "Instrumented", &clone)
           << (kernel ? "kernel '" : "device function '")
           << ore::NV("Function", demangle(original.getName())) << "': "
           << ore::NV("Checked", counts.arg + counts.stat + counts.table)
           << " accesses checked (" << ore::NV("ViaArguments", counts.arg)
           << " against kernel arguments, " << ore::NV("Static", counts.stat)
           << " against shared/local/global objects, "
           << ore::NV("Unresolved", counts.table)
           << " against the table of all buffers), "
           << ore::NV("ProvenSafe", counts.safe) << " proven in bounds, "
           << ore::NV("Unchecked", counts.constant)
           << " to constant/parameter memory";
  });
}

// -Rpass-analysis=kosan-oob: what snapshot=1 will record for the kernel.
void OOBSanitizer::remarkSummary(Function &F, const KernelSummary &summary) {
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
    return OptimizationRemarkAnalysis(DEBUG_TYPE, "Outputs", &F)
           << "kernel '" << demangle(F.getName()) << "' writes "
           << (writes.empty() ? std::string("no argument") : writes) << "; reads "
           << (reads.empty() ? std::string("no other argument") : reads)
           << ((summary.flags & KOSAN_KERNEL_UNRESOLVED_WRITES)
                   ? "; stores through pointers of unknown origin (any argument may be written)"
                   : "");
  });
}

// -Rpass=kosan-precision: what the shadow covers in each function.
void OOBSanitizer::remarkPrecision(Function &clone, const Function &original, bool kernel,
                                   const PrecisionCounts &c) {
  OptimizationRemarkEmitter ORE(&clone);
  ORE.emit([&] {
    OptimizationRemark R("kosan-precision", "Shadowed", &clone);
    R << (kernel ? "kernel '" : "device function '")
      << ore::NV("Function", demangle(original.getName())) << "': "
      << ore::NV("Shadowed", c.shadowed) << " operations shadowed in fp64 ("
      << ore::NV("Asm", c.asmOps) << " half/bf16 inline-asm operations), "
      << ore::NV("Sinks", c.sinks) << " stores and atomics and "
      << ore::NV("Narrowings", c.narrowings) << " narrowing conversions recorded, "
      << ore::NV("Seeded", c.seeded) << " shadows seeded from loads, parameters or calls";
    if (c.copies)
      R << ", " << ore::NV("Copies", c.copies)
        << " stores of copied values left out (exact)";
    return R;
  });
}

// Whether an instrumented kernel may log a float atomic on global memory:
// it calls the log itself, or calls a function that might (a device
// function's clone, or through a pointer).
static bool mayLogOrderAtomics(const Function &clone) {
  for (const BasicBlock &BB : clone)
    for (const Instruction &I : BB) {
      const auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isInlineAsm())
        continue;
      const Function *callee = CB->getCalledFunction();
      if (!callee)
        return true;
      StringRef name = callee->getName();
      if (name == "__kosan_order_atomic" || name.ends_with(KOSAN_CLONE_SUFFIX))
        return true;
    }
  return false;
}

// -Rpass-analysis=kosan-order: what the fingerprints cover in each function.
void OOBSanitizer::remarkOrder(Function &clone, const Function &original, bool kernel,
                               const OrderCounts &c) {
  OptimizationRemarkEmitter ORE(&clone);
  ORE.emit([&] {
    OptimizationRemarkAnalysis R("kosan-order", "Fingerprints", &clone);
    R << (kernel ? "kernel '" : "device function '")
      << ore::NV("Function", demangle(original.getName())) << "': fingerprints for "
      << ore::NV("Operations", c.operations) << " operations, "
      << ore::NV("Leaves", c.leaves) << " loads from kernel arguments, "
      << ore::NV("Shared", c.sharedAccesses) << " shared-memory accesses, "
      << ore::NV("Shuffles", c.shuffles) << " shuffles; "
      << ore::NV("Stores", c.stores) << " stores and "
      << ore::NV("Atomics", c.atomics) << " float atomics recorded; "
      << ore::NV("Content", c.contentLeaves)
      << " values of other origin labelled by their bits";
    if (c.loggedOps)
      R << "; " << ore::NV("LoggedOps", c.loggedOps) << " operations logged (order-ops)";
    return R;
  });
}

// Relocatable device code: the unit's id, from its source file and the
// symbols it defines for others, so that two units of one link differ (one
// source compiled twice with different macros defines different symbols).
std::string OOBSanitizer::unitId() const {
  std::string key = M.getSourceFileName();
  for (const GlobalValue &GV : M.global_values())
    if (!GV.isDeclaration() && !GV.hasLocalLinkage()) {
      key += '\0';
      key += GV.getName();
    }
  return utohexstr(xxh3_64bits(key), /*LowerCase=*/true, /*Width=*/16);
}

// Device functions this unit calls but another defines: their clones are
// there too (every unit of an rdc link is compiled by kosan), so the
// clones here call those. CUDA's own device-side functions (printf, malloc,
// assert, the device runtime API) and libdevice stay as they are.
void OOBSanitizer::declareExternalClones(ArrayRef<Function *> instrumented) {
  SmallPtrSet<Function *, 16> callers(instrumented.begin(), instrumented.end());
  auto isSystem = [](StringRef name) {
    for (StringRef prefix : {"llvm.", "__nv", "__kosan", "__cuda", "cuda", "__assert",
                             "vprintf", "malloc", "free", "__ockl", "__ocml"})
      if (name.starts_with(prefix))
        return true;
    return false;
  };
  for (Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic() || F.hasLocalLinkage() ||
        isSystem(F.getName()) || F.getName().ends_with(KOSAN_CLONE_SUFFIX) ||
        F.getCallingConv() == CallingConv::PTX_Kernel || F.isVarArg())
      continue;
    bool called = any_of(F.users(), [&](User *U) {
      auto *CI = dyn_cast<CallInst>(U);
      return CI && CI->getCalledFunction() == &F && callers.count(CI->getFunction());
    });
    if (!called)
      continue;
    FunctionType *FT = F.getFunctionType();
    SmallVector<Type *, 8> params(FT->param_begin(), FT->param_end());
    params.append({I64, I32, I32, I64});
    Function *decl = Function::Create(FunctionType::get(FT->getReturnType(), params, false),
                                      GlobalValue::ExternalLinkage, F.getAddressSpace(),
                                      F.getName() + KOSAN_CLONE_SUFFIX, &M);
    decl->setCallingConv(F.getCallingConv());
    clones[&F] = decl;
  }
}

// Relocatable device code: nvlink links this module with the other units'
// into one, where each unit's site table and precision base must keep a
// name of its own and its site ids must not collide with another unit's
// (abi.h, KOSAN_UNIT_MARKER_PREFIX). The host adds each unit's sites after
// the previous units' and writes the unit's site base, which the ids that
// reach the host (events, table checks, logged operations) include.
void OOBSanitizer::nameUnitGlobals(StringRef id) {
  if (GlobalVariable *table = M.getNamedGlobal(KOSAN_SITE_TABLE_SYMBOL))
    table->setName(KOSAN_SITE_TABLE_SYMBOL "_" + id);
  if (GlobalVariable *precBase = M.getNamedGlobal(KOSAN_PREC_BASE_SYMBOL))
    precBase->setName(KOSAN_PREC_BASE_SYMBOL "_" + id);
  // Site ids passed to the runtime: __kosan_oob_check_table(.., site, ..)
  // and __kosan_order_op(.., site).
  for (auto [name, siteArg] : {std::pair<StringRef, unsigned>{kOobCheckTableName, 3},
                               {kOobRecordName, 3},
                               {"__kosan_order_op", 4}}) {
    Function *F = M.getFunction(name);
    if (!F)
      continue;
    for (User *U : make_early_inc_range(F->users()))
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == F) {
        IRBuilder<> B(CI);
        Value *base = markNoSanitize(B.CreateAlignedLoad(I32, siteBase, Align(4)));
        CI->setArgOperand(siteArg, B.CreateAdd(base, CI->getArgOperand(siteArg)));
      }
  }
  // The marker the host finds the unit by: an empty kernel.
  Function *marker = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                                      GlobalValue::ExternalLinkage,
                                      KOSAN_UNIT_MARKER_PREFIX + id, M);
  if (Triple(M.getTargetTriple()).isNVPTX())
    marker->setCallingConv(CallingConv::PTX_Kernel);
  ReturnInst::Create(Ctx, BasicBlock::Create(Ctx, "", marker));
  appendToUsed(M, {marker});
}

bool OOBSanitizer::run() {
  SmallVector<Function *, 8> kernels, deviceFunctions;
  for (Function &F : M) {
    if (F.isDeclaration() || F.getName().starts_with("__kosan_") ||
        F.getName().ends_with(KOSAN_CLONE_SUFFIX))
      continue;
    if (!opts.debugFunction.empty() && F.getName() != opts.debugFunction)
      continue;
    if (isKernel(F))
      kernels.push_back(&F);
    else
      deviceFunctions.push_back(&F);
  }
  // Before instrumenting: kosan's own selects and phis are not the program's.
  std::string mode = opts.compileFlags.empty() ? fpMode() : opts.compileFlags;
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
  initializeCallbacks();
  std::string unit;
  if (opts.rdc) {
    unit = unitId();
    siteBase = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                  ConstantInt::get(I32, 0), KOSAN_SITE_BASE_PREFIX + unit,
                                  nullptr, GlobalValue::NotThreadLocal, /*AddressSpace=*/1,
                                  /*isExternallyInitialized=*/true);
    siteBase->setAlignment(Align(4));
    appendToUsed(M, {siteBase});
  }

  // The precision runtime groups a warp's lanes with match.any.sync, which
  // needs sm_70: older targets are checked for out-of-bounds accesses only.
  bool precision = opts.checks & KOSAN_CHECK_PRECISION;
  if (precision) {
    Function *first = kernels.empty() ? deviceFunctions.front() : kernels.front();
    StringRef cpu = first->getFnAttribute("target-cpu").getValueAsString();
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    unsigned sm = 0;
    if (cpu.consume_front("sm_") && !cpu.take_while(digit).getAsInteger(10, sm) && sm < 70) {
      errs() << "kosan: warning: the precision check needs sm_70 or newer; "
             << M.getSourceFileName() << " compiled for sm_" << sm
             << " is not checked for precision\n";
      precision = false;
    }
  }

  bool order = opts.checks & KOSAN_CHECK_ORDER;
  SharedShadows sharedShadows(M);
  uint32_t orderFlags = 0;
  bool logOps = order && (opts.checks & KOSAN_CHECK_ORDER_OPS);
  if (order)
    orderFlags = KOSAN_KERNEL_ORDER_FINGERPRINTS |
                 (logOps ? uint32_t(KOSAN_KERNEL_ORDER_OPS) : 0u) |
                 sharedShadows.dynamicFactor() << KOSAN_KERNEL_DYNSMEM_SHADOW_SHIFT;

  {
    // LLVM 19's NVPTX backend caches each function's nvvm.annotations by
    // the Function's address and never forgets a deleted one: a clone
    // allocated where an inlined-and-deleted function lived would inherit
    // that function's (empty) annotations and lose its launch bounds and
    // register limit. Taking the freed Function-sized blocks first makes
    // the clones land on addresses no annotation was ever cached for.
    std::vector<std::unique_ptr<Function>> fillers;
    FunctionType *filler = FunctionType::get(Type::getVoidTy(Ctx), false);
    for (unsigned i = 0; i < kAddressFillers; ++i)
      fillers.emplace_back(Function::Create(filler, GlobalValue::InternalLinkage));
    for (Function *F : kernels)
      clones[F] = cloneKernel(*F);
    for (Function *F : deviceFunctions)
      clones[F] = cloneDeviceFunction(*F);
  }
  if (opts.rdc) {
    SmallVector<Function *, 16> originals(kernels.begin(), kernels.end());
    originals.append(deviceFunctions.begin(), deviceFunctions.end());
    declareExternalClones(originals);
  }

  for (Function *F : kernels) {
    // Summarised before anything is instrumented, on the kernel as written.
    KernelSummary summary = summarizeKernel(*F, DL);
    OrderFindings findings;
    if (order)
      findings = analyzeOrder(*F);
    Function *clone = clones[F];
    LaunchContext ctx = kernelContext(*clone, F->arg_size());
    redirectCalls(*clone, ctx);
    uint32_t firstSite = sites.size();
    if (order)
      remarkOrder(*clone, *F, true,
                  instrumentOrder(*clone,
                                  {ctx.state, ctx.launchId, ctx.flags, ctx.dynSmem, true, logOps},
                                  sites, sharedShadows));
    if (precision)
      remarkPrecision(*clone, *F, true, instrumentPrecision(*clone, ctx.state, ctx.launchId, sites));
    if (opts.checks & KOSAN_CHECK_OOB)
      instrumentFunction(*clone, *F, /*kernel=*/true, ctx);
    uint32_t atomicLog =
        order && mayLogOrderAtomics(*clone) ? uint32_t(KOSAN_KERNEL_ORDER_ATOMIC_LOG) : 0u;
    sites.addKernel(F->getName(), summary, firstSite, sites.size() - firstSite,
                    order ? orderFlags | atomicLog | findings.flags() : 0,
                    order ? findings.describe() : "");
    remarkSummary(*F, summary);
    ++NumKernels;
  }
  for (Function *F : deviceFunctions) {
    Function *clone = clones[F];
    unsigned n = F->arg_size();
    LaunchContext ctx;
    ctx.state = clone->getArg(n);
    ctx.launchId = clone->getArg(n + 1);
    ctx.flags = clone->getArg(n + 2);
    ctx.dynSmem = clone->getArg(n + 3);
    redirectCalls(*clone, ctx);
    if (order)
      remarkOrder(*clone, *F, false,
                  instrumentOrder(*clone,
                                  {ctx.state, ctx.launchId, ctx.flags, ctx.dynSmem, false, logOps},
                                  sites, sharedShadows));
    if (precision)
      remarkPrecision(*clone, *F, false, instrumentPrecision(*clone, ctx.state, ctx.launchId, sites));
    if (opts.checks & KOSAN_CHECK_OOB)
      instrumentFunction(*clone, *F, /*kernel=*/false, ctx);
    ++NumDeviceFunctions;
  }
  sites.emit(M, mode);
  if (opts.rdc)
    nameUnitGlobals(unit);
  // Link no runtime function the instrumentation did not need.
  for (FunctionCallee fn : {tableFn, recordFn})
    if (auto *F = dyn_cast<Function>(fn.getCallee()); F && F->use_empty())
      F->eraseFromParent();
  return true;
}

} // namespace

PreservedAnalyses OOBSanitizerPass::run(Module &M, ModuleAnalysisManager &) {
  if (!isDeviceModule(M) ||
      !(opts.checks & (KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION | KOSAN_CHECK_ORDER)))
    return PreservedAnalyses::all();
  if (Triple(M.getTargetTriple()).isAMDGPU()) {
    // Device code for AMD GPUs is left alone until the runtime supports it.
    return PreservedAnalyses::all();
  }
  OOBSanitizer S(M, opts);
  if (!S.run())
    return PreservedAnalyses::all();
  if (opts.linkRuntime && !linkDeviceRuntime(M))
    report_fatal_error(Twine("kosan: could not link the device runtime into ") +
                       M.getSourceFileName());
  return PreservedAnalyses::none();
}

} // namespace kosan

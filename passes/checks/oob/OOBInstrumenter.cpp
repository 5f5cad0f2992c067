//===- passes/checks/oob/OOBInstrumenter.cpp - checks=oob -----------------===//
//
// Every load, store, atomic and memory intrinsic of a clone is checked
// against the object its pointer derives from (see core/Provenance.h):
//
//   kernel pointer argument i : begin/end from launch_info.args[i]  (2 compares)
//   static shared, local, __device__ arrays, byval params : static bounds
//   extern __shared__ arrays  : launch_info.dyn_smem_bytes
//   anything else             : the runtime's table of every known buffer
//
// A failing compare records the event inline (emitReport) and, for pitched
// buffers, says whether the access may go ahead; otherwise a store is
// dropped and a load yields zero. The clones and their launch context are
// core/KernelCloner.h's and core/LaunchContext.h's.
//
//===----------------------------------------------------------------------===//
#include "DeviceRuntime.h"
#include "KosanPasses.h"
#include "core/Instrumenter.h"
#include "core/Provenance.h"
#include "core/SiteTable.h"
#include "target/Target.h"

#include "kosan/abi.h"
#include "kosan/bounds.h"

#include <cstddef>

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;

#define DEBUG_TYPE "kosan-oob"

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

constexpr unsigned kSharedAS = addrspace::Shared, kLocalAS = addrspace::Local;

struct Access {
  Instruction *inst;
  Value *ptr;           // refreshed from operand `ptrOperand` before use
  Value *size;          // bytes, i64
  uint32_t constSize;   // 0 if not constant
  kosan_access_kind kind;
  unsigned ptrOperand = 0;
};


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
  // The alignment every member needs, when all need the same and their
  // offsets keep it (so one test of the common address serves them all);
  // 0: none needed, or members that differ (not checked for alignment).
  uint64_t alignment = 0;
  bool alignmentMixed = false;
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

// ptr = base + sum(index * scale) + constant, through GEPs and bitcasts
// (and address-space casts where asked); null when a GEP's offset cannot be
// collected.
Value *decomposeAddress(const DataLayout &DL, Value *ptr, MapVector<Value *, APInt> &variable,
                        APInt &constant, bool throughAddrSpaceCasts) {
  unsigned bits = DL.getIndexTypeSizeInBits(ptr->getType());
  constant = APInt(bits, 0);
  Value *base = ptr;
  while (true) {
    if (auto *GEP = dyn_cast<GEPOperator>(base)) {
      if (!GEP->collectOffset(DL, bits, variable, constant))
        return nullptr;
      base = GEP->getPointerOperand();
    } else if (auto *Cast = dyn_cast<BitCastOperator>(base)) {
      base = Cast->getOperand(0);
    } else if (auto *ASC = dyn_cast<AddrSpaceCastOperator>(base); ASC && throughAddrSpaceCasts) {
      base = ASC->getOperand(0);
    } else {
      return base;
    }
  }
}

struct Counts {
  unsigned arg = 0, stat = 0, table = 0, safe = 0, constant = 0;
};
class OOBInstrumenter final : public Instrumenter {
public:
  explicit OOBInstrumenter(ModuleState &S)
      : Instrumenter(S), M(S.M), DL(M.getDataLayout()), Ctx(M.getContext()),
        I64(Type::getInt64Ty(Ctx)), I32(Type::getInt32Ty(Ctx)),
        I1(Type::getInt1Ty(Ctx)), Ptr(PointerType::get(Ctx, 0)) {}
  StringRef name() const override { return "oob"; }
  bool begin(ArrayRef<Function *>, ArrayRef<Function *>) override {
    initializeCallbacks();
    return true;
  }
  void instrument(Function &clone, const Function &original, const LaunchContext &ctx,
                  FunctionAnalysisManager &) override {
    instrumentFunction(clone, original, ctx);
  }
  // Link no runtime function the instrumentation did not need.
  void end() override {
    for (FunctionCallee fn : {tableFn, recordFn})
      if (auto *F = dyn_cast<Function>(fn.getCallee()); F && F->use_empty())
        F->eraseFromParent();
  }

private:
  struct Check;
  void initializeCallbacks();
  Value *emitReport(Instruction *before, const LaunchContext &ctx, Value *site,
                    Value *addr, Value *size32, Value *begin, Value *end,
                    Value *pitch, Value *shape, Value *badOverride = nullptr,
                    Value *misaligned = nullptr);
  uint64_t requiredAlignment(const Access &A) const;
  Value *misalignment(Check &c, Value *addr, uint64_t alignment, const LaunchContext &ctx);
  void checkUninit(LoadInst &L, const LaunchContext &ctx, uint32_t site, bool kernel);
  void instrumentFunction(Function &clone, const Function &original, const LaunchContext &ctx);
  void checkGroupMember(Check &c, Group &G, int64_t offset);
  void checkGroupLeader(Check &c, Group &G, ArrayRef<Access> accesses, const LaunchContext &ctx);
  void checkAccess(Check &c, Counts &counts, const LaunchContext &ctx);
  void collectAccesses(Function &F, SmallVectorImpl<Access> &out);
  Value *argBound(const LaunchContext &ctx, unsigned arg, unsigned field, IRBuilder<> &B);
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

  Module &M;
  const DataLayout &DL;
  LLVMContext &Ctx;
  Type *I64, *I32, *I1;
  PointerType *Ptr;
  FunctionCallee tableFn, recordFn;
  DenseMap<std::pair<unsigned, unsigned>, Value *> argBoundCache;
  // Misalignment tests of kernel arguments, made once at entry.
  DenseMap<std::pair<Value *, uint64_t>, Value *> argMisalignedCache;
  GlobalVariable *globalSink = nullptr, *sharedSink = nullptr;
};

// Bytes of the sinks that redirected accesses go to: the widest access the
// fast path redirects.
constexpr uint64_t kSinkBytes = 64;

void OOBInstrumenter::initializeCallbacks() {
  // bool __kosan_oob_check_table(state, launch, flags, site, addr, size)
  FunctionType *tableTy =
      FunctionType::get(I1, {I64, I32, I32, I32, I64, I32}, false);
  tableFn = M.getOrInsertFunction(rt::OobCheckTable, tableTy);
  auto *F = cast<Function>(tableFn.getCallee());
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::Cold);
  F->addRetAttr(Attribute::ZExt);
  // void __kosan_oob_record(state, launch, flags, site, addr, size)
  recordFn = M.getOrInsertFunction(
      rt::OobRecord, FunctionType::get(Type::getVoidTy(Ctx), {I64, I32, I32, I32, I64, I32}, false));
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
Value *OOBInstrumenter::emitReport(Instruction *before, const LaunchContext &ctx,
                                Value *site, Value *addr, Value *size32,
                                Value *begin, Value *end, Value *pitch,
                                Value *shape, Value *badOverride,
                                Value *misaligned) {
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
  if (misaligned)
    bad = B.CreateOr(bad, misaligned);
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
    // block[3] then thread[3].
    for (unsigned i = 0; i < 6; ++i)
      put(offsetof(kosan_oob_event, block) + 4 * i,
          i < 3 ? S.target.blockId(W, i) : S.target.threadId(W, i - 3));
    S.target.systemFence(W);
    if (S.siteBase)
      site = W.CreateAdd(markNoSanitize(W.CreateAlignedLoad(I32, S.siteBase, Align(4))), site);
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
  S.target.systemFence(H);
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
void OOBInstrumenter::checkUninit(LoadInst &L, const LaunchContext &ctx, uint32_t site,
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

Value *OOBInstrumenter::argBound(const LaunchContext &ctx, unsigned arg, unsigned field,
                                 IRBuilder<> &B) {
  // begin, end and pitch are read once at entry; shape only on the slow path.
  uint64_t offset = LaunchInfoLayout::bound(arg, field);
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

// The alignment the GPU needs for A's address: its instruction faults
// ("misaligned address") below it. The backend emits the widest access the
// IR's alignment allows, up to 16 bytes (ld.v4.f32, ld.v2.f64), so that is
// the access size capped at 16, lowered to what the IR promises; memcpy
// and memset are copied in pieces of at most their operands' alignment.
// 0: nothing to check (one byte, or a size that is not constant).
uint64_t OOBInstrumenter::requiredAlignment(const Access &A) const {
  if (!A.constSize || !S.opts.misaligned)
    return 0;
  uint64_t need = kosan::accessAlignment(A.constSize);
  MaybeAlign promised;
  if (auto *L = dyn_cast<LoadInst>(A.inst))
    promised = L->getAlign();
  else if (auto *St = dyn_cast<StoreInst>(A.inst))
    promised = St->getAlign();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(A.inst))
    promised = RMW->getAlign();
  else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(A.inst))
    promised = CX->getAlign();
  else if (auto *MT = dyn_cast<MemTransferInst>(A.inst))
    promised = A.kind == KOSAN_ACCESS_MEMCPY_SRC ? MT->getSourceAlign() : MT->getDestAlign();
  else if (auto *MI = dyn_cast<MemIntrinsic>(A.inst))
    promised = MI->getDestAlign();
  else
    return 0; // ldg/ldu intrinsics: the load they replace was checked
  need = std::min<uint64_t>(need, promised ? promised->value() : 1);
  if (need < 2)
    return 0;
  // Proven aligned (a static object's base and a constant offset, a
  // scaled index from an aligned base): nothing to check.
  if (getKnownAlignment(A.ptr, DL).value() >= need)
    return 0;
  return need;
}

void OOBInstrumenter::collectAccesses(Function &F, SmallVectorImpl<Access> &out) {
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
    } else if (auto *II = dyn_cast<IntrinsicInst>(&I);
               II && S.target.isGlobalLoadIntrinsic(II->getIntrinsicID())) {
      uint32_t s = sizeOf(II->getType());
      out.push_back({II, II->getArgOperand(0), ConstantInt::get(I64, s), s,
                     KOSAN_ACCESS_LOAD});
    }
  }
}

// Splits the block around A.inst:
//   head:   br bad, slow, access
//   slow:   ok = <slowPath>; br ok, access, skip
//   access: <inst>; br cont
//   skip:   br cont
//   cont:   phi [inst, access], [zero, skip]
void OOBInstrumenter::guard(Access &A, Value *bad,
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
OOBInstrumenter::groupAccesses(ArrayRef<Access> accesses,
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
    MapVector<Value *, APInt> variable;
    APInt constant;
    Value *base = decomposeAddress(DL, A.ptr, variable, constant,
                                   /*throughAddrSpaceCasts=*/false);
    if (!base)
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
    if (uint64_t need = requiredAlignment(A); !G.alignmentMixed && need) {
      if ((G.alignment && G.alignment != need) || off % int64_t(need) != 0) {
        G.alignmentMixed = true;
        G.alignment = 0;
      } else {
        G.alignment = need;
      }
    }
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

bool OOBInstrumenter::canRedirect(const Access &A) const {
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
  if (as != addrspace::Generic && as != addrspace::Global && as != kSharedAS)
    return false;
  Type *T = A.inst->getType();
  return T->isVoidTy() || T->isIntOrIntVectorTy() || T->isFPOrFPVectorTy() ||
         T->isPtrOrPtrVectorTy();
}

Value *OOBInstrumenter::sinkFor(PointerType *T, unsigned space, IRBuilder<> & /*B*/) {
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
                                    nullptr, GlobalValue::NotThreadLocal, addrspace::Global);
    globalSink->setAlignment(Align(kSinkBytes));
  }
  if (as == addrspace::Global)
    return globalSink;
  return ConstantExpr::getAddrSpaceCast(globalSink, T);
}

void OOBInstrumenter::redirect(Access &A, unsigned space, Value *bad, Value *report,
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

// One access being checked: its provenance, its site, and the builder
// that puts the check right before it.
struct OOBInstrumenter::Check {
  Check(Access &A, const Provenance &p, uint32_t site)
      : A(A), p(p), site(site), B(A.inst), ptrAS(A.ptr->getType()->getPointerAddressSpace()) {
    B.SetCurrentDebugLocation(A.inst->getDebugLoc());
    // Shared objects are compared in the shared window (offsets), so the
    // backend keeps the accesses ld.shared/st.shared instead of converting
    // addresses to generic ones.
    inShared = p.space == KOSAN_SPACE_SHARED && p.base &&
               p.base->getType()->getPointerAddressSpace() == kSharedAS;
  }
  // ptr as an integer, in the shared window for shared objects.
  Value *addressOf(Value *ptr) {
    if (inShared && ptr->getType()->getPointerAddressSpace() != kSharedAS)
      ptr = B.CreateAddrSpaceCast(ptr, PointerType::get(B.getContext(), kSharedAS));
    return B.CreatePtrToInt(ptr, B.getInt64Ty());
  }
  // The object's first byte, in the same terms.
  Value *objectBegin() {
    Value *base = p.base;
    unsigned as = base->getType()->getPointerAddressSpace();
    if (!inShared && as != ptrAS)
      base = B.CreateAddrSpaceCast(base, A.ptr->getType());
    return B.CreatePtrToInt(base, B.getInt64Ty(), "kosan.begin");
  }
  // Its end: static size, or the launch's dynamic shared memory.
  Value *objectEnd(Value *begin, const LaunchContext &ctx) {
    Value *objSize = p.kind == Provenance::DynamicShared
                         ? ctx.dynSmem
                         : ConstantInt::get(B.getInt64Ty(), p.size);
    return B.CreateAdd(begin, objSize, "kosan.end");
  }

  Access &A;
  const Provenance &p;
  uint32_t site;
  IRBuilder<> B;
  unsigned ptrAS;
  bool inShared;
};

// addr (as an integer, the address of c's access or of its group) not a
// multiple of `alignment`, or null for none. When what the access adds to a
// kernel argument keeps the alignment (x + 4*i for a float load), the
// argument itself decides: tested once at entry, so a loop pays an `or`.
Value *OOBInstrumenter::misalignment(Check &c, Value *addr, uint64_t alignment,
                                     const LaunchContext &ctx) {
  if (alignment < 2)
    return nullptr;
  unsigned need = Log2_64(alignment);
  MapVector<Value *, APInt> variable;
  APInt constant;
  Value *base = decomposeAddress(DL, c.A.ptr, variable, constant,
                                 /*throughAddrSpaceCasts=*/true);
  bool offsetKeepsAlignment =
      base && (constant.getZExtValue() & (alignment - 1)) == 0 &&
      all_of(variable, [&](auto &entry) {
        unsigned zeros = entry.second.countr_zero() +
                         computeKnownBits(entry.first, DL).countMinTrailingZeros();
        return zeros >= need;
      });
  if (offsetKeepsAlignment && isa<Argument>(base) && ctx.kernel) {
    Value *&cached = argMisalignedCache[{base, alignment}];
    if (!cached) {
      IRBuilder<> EB(cast<Instruction>(ctx.dynSmem)->getNextNode());
      cached = EB.CreateICmpNE(
          EB.CreateAnd(EB.CreatePtrToInt(base, I64), EB.getInt64(alignment - 1)),
          EB.getInt64(0), "kosan.arg.misaligned");
    }
    return cached;
  }
  return c.B.CreateICmpNE(c.B.CreateAnd(addr, c.B.getInt64(alignment - 1)), c.B.getInt64(0),
                          "kosan.misaligned");
}

void OOBInstrumenter::instrumentFunction(Function &clone, const Function &original,
                                         const LaunchContext &ctx) {
  bool kernel = ctx.kernel;
  SmallVector<Access, 32> accesses;
  collectAccesses(clone, accesses);
  ProvenanceAnalysis PA(DL, kernel ? &clone : nullptr);
  argBoundCache.clear();
  argMisalignedCache.clear();
  Counts counts;

  // Resolve every access before any block is split.
  SmallVector<Provenance, 32> provenance;
  for (Access &A : accesses)
    provenance.push_back(PA.resolve(A.ptr));
  SmallVector<Group, 8> groups;
  SmallVector<int64_t, 32> offsets;
  SmallVector<int, 32> groupOf = groupAccesses(accesses, provenance, groups, offsets);
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
    uint32_t site = S.sites.add(*A.inst, A.kind, p.space, A.constSize,
                                objectName(p), argIndex);
    if (auto *L = dyn_cast<LoadInst>(A.inst);
        L && S.opts.uninit && A.kind == KOSAN_ACCESS_LOAD &&
        (p.kind == Provenance::KernelArg || p.kind == Provenance::Unknown))
      uninitLoads.push_back({L, site});

    Check c(A, p, site);
    ++NumChecked;
    if (groupOf[index] >= 0) {
      Group &G = groups[groupOf[index]];
      ++counts.stat;
      ++NumCheckedStatic;
      if (G.leader != int(index))
        checkGroupMember(c, G, offsets[index]);
      else
        checkGroupLeader(c, G, accesses, ctx);
      continue;
    }
    checkAccess(c, counts, ctx);
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

// A member of a group other than its leader: goes to the leader's safe
// base, or to the sink, when the leader found the group's range bad.
void OOBInstrumenter::checkGroupMember(Check &c, Group &G, int64_t offset) {
  Access &A = c.A;
  ++NumGrouped;
  if (!G.safeBase) {
    redirect(A, c.p.space, G.bad, nullptr, [](Instruction *) {});
    return;
  }
  A.inst->setOperand(A.ptrOperand,
                     c.B.CreateConstGEP1_64(c.B.getInt8Ty(), G.safeBase, offset, "kosan.safe"));
  dropLoadPromises(*A.inst);
  IRBuilder<> VB(A.inst->getNextNode());
  VB.SetCurrentDebugLocation(A.inst->getDebugLoc());
  SmallVector<Use *, 4> uses;
  for (Use &U : A.inst->uses())
    uses.push_back(&U);
  Value *value = VB.CreateSelect(G.bad, Constant::getNullValue(A.inst->getType()), A.inst,
                                 A.inst->getName() + ".kosan");
  for (Use *U : uses)
    U->set(value);
}

// The leader checks the whole range the group touches, once.
void OOBInstrumenter::checkGroupLeader(Check &c, Group &G, ArrayRef<Access> accesses,
                                       const LaunchContext &ctx) {
  Access &A = c.A;
  const Provenance &p = c.p;
  IRBuilder<> &B = c.B;
  Value *base = p.base;
  if (base->getType()->getPointerAddressSpace() != c.ptrAS)
    base = B.CreateAddrSpaceCast(base, A.ptr->getType());
  Value *begin = c.objectBegin();
  Value *end = c.objectEnd(begin, ctx);
  // The common variable address: the leader's, less its constant part.
  Value *v = B.CreateSub(c.addressOf(A.ptr), B.getInt64(G.leaderOffset), "kosan.group");
  Value *lo = B.CreateAdd(v, B.getInt64(G.minOffset));
  Value *hi = B.CreateAdd(v, B.getInt64(G.maxEnd));
  Value *below = B.CreateICmpULT(lo, begin);
  G.bad = B.CreateOr(below, B.CreateICmpUGT(hi, end), "kosan.bad");
  // Members that need the same alignment at offsets that keep it fault
  // together, when the common address is off it: one test for the group.
  Value *misaligned = nullptr;
  if (G.alignment >= 2) {
    misaligned = misalignment(c, v, G.alignment, ctx);
    G.bad = B.CreateOr(G.bad, misaligned, "kosan.bad.or.misaligned");
  }
  if (G.allLoads && p.kind == Provenance::StaticObject &&
      uint64_t(G.maxEnd - G.minOffset) <= p.size) {
    // base + offset_i stays inside the object for every member.
    Value *common = B.CreateConstGEP1_64(B.getInt8Ty(), A.ptr, -G.leaderOffset);
    Value *objStart = B.CreateConstGEP1_64(B.getInt8Ty(), base, -G.minOffset);
    G.safeBase = B.CreateSelect(G.bad, objStart, common, "kosan.safe.base");
  }
  // Sites of the group's extremes are created when their turn comes;
  // the table gets them now so the report can name the one at fault.
  const Access &minA = accesses[G.minMember], &maxA = accesses[G.maxMember];
  uint32_t siteMin = &minA == &A ? c.site
                     : S.sites.add(*minA.inst, minA.kind, p.space, minA.constSize,
                                   objectName(p), -1);
  uint32_t siteMax = &maxA == &A ? c.site
                     : S.sites.add(*maxA.inst, maxA.kind, p.space, maxA.constSize,
                                   objectName(p), -1);
  redirect(A, p.space, G.bad, G.bad, [&](Instruction *before) {
    IRBuilder<> SB(before);
    Value *siteV = SB.CreateSelect(below, SB.getInt32(siteMin), SB.getInt32(siteMax));
    Value *addrV = SB.CreateSelect(below, lo, SB.CreateAdd(v, SB.getInt64(G.maxOffset)));
    Value *sizeV = SB.CreateSelect(below, SB.getInt32(minA.constSize),
                                   SB.getInt32(maxA.constSize));
    emitReport(before, ctx, siteV, addrV, sizeV, begin, end, nullptr, nullptr, nullptr,
               misaligned);
  });
}

// An access on its own: against its kernel argument's bounds (pitched
// rows included), its static object's, or the runtime's table.
void OOBInstrumenter::checkAccess(Check &c, Counts &counts, const LaunchContext &ctx) {
  Access &A = c.A;
  const Provenance &p = c.p;
  IRBuilder<> &B = c.B;
  Value *addr = c.addressOf(A.ptr);
  addr->setName("kosan.addr");
  Value *size32 = B.CreateTrunc(A.size, I32);

  if (p.kind == Provenance::Unknown) {
    ++counts.table;
    ++NumCheckedTable;
    guard(A, nullptr, [&](Instruction *before) -> Value * {
      IRBuilder<> SB(before);
      return SB.CreateCall(tableFn, {ctx.state, ctx.launchId, ctx.flags,
                                     SB.getInt32(c.site), addr, size32});
    });
    return;
  }

  Value *begin, *end;
  bool fromArg = p.kind == Provenance::KernelArg;
  if (fromArg) {
    ++counts.arg;
    ++NumCheckedArg;
    begin = argBound(ctx, p.argIndex, 0, B);
    end = argBound(ctx, p.argIndex, 1, B);
  } else {
    ++counts.stat;
    ++NumCheckedStatic;
    begin = c.objectBegin();
    end = c.objectEnd(begin, ctx);
  }
  Value *last = B.CreateAdd(addr, A.size);
  Value *bad = B.CreateOr(B.CreateICmpULT(addr, begin),
                          B.CreateICmpUGT(last, end), "kosan.bad");
  Value *misaligned = misalignment(c, addr, requiredAlignment(A), ctx);
  if (misaligned)
    bad = B.CreateOr(bad, misaligned, "kosan.bad.or.misaligned");
  // Pitched buffers need the runtime's row check even inside the
  // allocation; pitch is a kernel parameter, so the branch is uniform.
  Value *pitched =
      fromArg ? B.CreateICmpNE(argBound(ctx, p.argIndex, 2, B), B.getInt64(0), "kosan.pitched")
              : nullptr;
  auto callReport = [&](Instruction *before) -> Value * {
    IRBuilder<> SB(before);
    Value *pitch = fromArg ? argBound(ctx, p.argIndex, 2, SB) : nullptr;
    Value *shape = fromArg ? argBound(ctx, p.argIndex, 3, SB) : nullptr;
    return emitReport(before, ctx, SB.getInt32(c.site), addr, size32, begin, end, pitch, shape,
                      nullptr, misaligned);
  };
  if (canRedirect(A)) {
    // A pitched access inside the allocation goes ahead; the runtime only
    // reports it when it falls outside its row.
    Value *report = pitched ? B.CreateOr(bad, pitched) : bad;
    redirect(A, p.space, bad, report, [&](Instruction *before) { callReport(before); });
    return;
  }
  if (pitched)
    bad = B.CreateOr(bad, pitched);
  guard(A, bad, callReport);
}

} // namespace

std::unique_ptr<Instrumenter> makeOOBInstrumenter(ModuleState &S) {
  return std::make_unique<OOBInstrumenter>(S);
}

} // namespace kosan

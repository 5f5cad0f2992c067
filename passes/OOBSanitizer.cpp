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
#include "SiteTable.h"

#include "kosan/abi.h"

#include "llvm/ADT/Statistic.h"
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
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

#define DEBUG_TYPE "kosan-oob"

STATISTIC(NumKernels, "Kernels cloned and instrumented");
STATISTIC(NumDeviceFunctions, "Device functions cloned and instrumented");
STATISTIC(NumChecked, "Accesses checked");
STATISTIC(NumCheckedArg, "Accesses checked against a kernel argument's bounds");
STATISTIC(NumCheckedStatic, "Accesses checked against a static object's bounds");
STATISTIC(NumCheckedTable, "Accesses of unresolved provenance checked against the table");
STATISTIC(NumProvenSafe, "Accesses proven in bounds at compile time");
STATISTIC(NumConstant, "Accesses to constant or parameter memory, not checked");

namespace kosan {
namespace {

// Layout of kosan_launch_info in bytes (abi.h, pinned by static_assert there).
constexpr uint64_t kInfoState = 0, kInfoLaunchId = 8, kInfoFlags = 12,
                   kInfoDynSmem = 16, kInfoArgs = sizeof(kosan_launch_info),
                   kBoundsSize = sizeof(kosan_arg_bounds);
static_assert(kInfoArgs == 32 && kBoundsSize == 32, "launch info layout");

constexpr unsigned kSharedAS = 3, kLocalAS = 5;

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
  Value *ptr;
  Value *size;          // bytes, i64
  uint32_t constSize;   // 0 if not constant
  kosan_access_kind kind;
};

// kosan's own loads of the launch info are never checked.
Instruction *markNoSanitize(Instruction *I) {
  I->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(I->getContext(), {}));
  return I;
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
             function_ref<Value *(IRBuilder<> &)> slowPath);
  std::string fpMode() const;

  Module &M;
  const DataLayout &DL;
  const PassOptions &opts;
  LLVMContext &Ctx;
  Type *I64, *I32, *I1;
  PointerType *Ptr;
  FunctionCallee reportFn, tableFn;
  SiteTable sites;
  DenseMap<Function *, Function *> clones;
  DenseMap<std::pair<unsigned, unsigned>, Value *> argBoundCache;
};

void OOBSanitizer::initializeCallbacks() {
  // bool __kosan_oob_report(state, launch, flags, site, addr, size, begin, end, pitch, shape)
  FunctionType *reportTy = FunctionType::get(
      I1, {I64, I32, I32, I32, I64, I32, I64, I64, I64, I64}, false);
  reportFn = M.getOrInsertFunction(kOobReportName, reportTy);
  // bool __kosan_oob_check_table(state, launch, flags, site, addr, size)
  FunctionType *tableTy =
      FunctionType::get(I1, {I64, I32, I32, I32, I64, I32}, false);
  tableFn = M.getOrInsertFunction(kOobCheckTableName, tableTy);
  for (FunctionCallee FC : {reportFn, tableFn}) {
    auto *F = cast<Function>(FC.getCallee());
    F->addFnAttr(Attribute::Convergent);
    F->addFnAttr(Attribute::NoUnwind);
    F->addFnAttr(Attribute::Cold);
    F->addRetAttr(Attribute::ZExt);
  }
}

static void copyKernelAnnotations(Module &M, Function &from, Function &to) {
  NamedMDNode *Annotations = M.getNamedMetadata("nvvm.annotations");
  if (!Annotations)
    return;
  SmallVector<MDNode *, 4> added;
  for (MDNode *Op : Annotations->operands()) {
    if (Op->getNumOperands() < 1)
      continue;
    auto *V = dyn_cast_or_null<ValueAsMetadata>(Op->getOperand(0));
    if (!V || V->getValue() != &from)
      continue;
    SmallVector<Metadata *, 4> ops(Op->op_begin(), Op->op_end());
    ops[0] = ValueAsMetadata::get(&to);
    added.push_back(MDNode::get(M.getContext(), ops));
  }
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

Function *OOBSanitizer::cloneKernel(Function &F) {
  FunctionType *FT = F.getFunctionType();
  SmallVector<Type *, 8> params(FT->param_begin(), FT->param_end());
  params.push_back(Ptr);
  auto *NewFT = FunctionType::get(FT->getReturnType(), params, false);
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
  unsigned infoArg = F.arg_size();
  // The launch info: a .param array the host fills per launch.
  Type *infoTy = ArrayType::get(I64, (kInfoArgs + kBoundsSize * F.arg_size()) / 8);
  NewF->addParamAttr(infoArg, Attribute::getWithByValType(Ctx, infoTy));
  NewF->addParamAttr(infoArg, Attribute::getWithAlignment(Ctx, Align(8)));
  NewF->getArg(infoArg)->setName("kosan.launch_info");
  NewF->setCallingConv(F.getCallingConv());
  dropPromises(*NewF);
  copyKernelAnnotations(M, F, *NewF);
  return NewF;
}

Function *OOBSanitizer::cloneDeviceFunction(Function &F) {
  FunctionType *FT = F.getFunctionType();
  SmallVector<Type *, 8> params(FT->param_begin(), FT->param_end());
  params.append({I64, I32, I32, I64});
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
  unsigned n = F.arg_size();
  NewF->getArg(n)->setName("kosan.state");
  NewF->getArg(n + 1)->setName("kosan.launch_id");
  NewF->getArg(n + 2)->setName("kosan.flags");
  NewF->getArg(n + 3)->setName("kosan.dyn_smem");
  dropPromises(*NewF);
  return NewF;
}

LaunchContext OOBSanitizer::kernelContext(Function &clone, unsigned numArgs) {
  LaunchContext ctx;
  ctx.info = clone.getArg(numArgs);
  IRBuilder<> B(&*clone.getEntryBlock().getFirstInsertionPt());
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

Value *OOBSanitizer::argBound(Function &clone, const LaunchContext &ctx,
                              unsigned arg, unsigned field, IRBuilder<> &B) {
  // begin and end are read once at entry; pitch and shape only on the slow path.
  uint64_t offset = kInfoArgs + kBoundsSize * arg + 8 * field;
  if (field < 2) {
    Value *&cached = argBoundCache[{arg, field}];
    if (!cached) {
      IRBuilder<> EB(cast<Instruction>(ctx.dynSmem)->getNextNode());
      Value *p = EB.CreateConstInBoundsGEP1_64(EB.getInt8Ty(), ctx.info, offset);
      cached = markNoSanitize(EB.CreateAlignedLoad(
          I64, p, Align(8),
          "kosan.arg" + Twine(arg) + (field == 0 ? ".begin" : ".end")));
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
                     KOSAN_ACCESS_STORE});
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
            {MI, MT->getRawSource(), len64, s, KOSAN_ACCESS_MEMCPY_SRC});
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
                         function_ref<Value *(IRBuilder<> &)> slowPath) {
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
  Value *ok = slowPath(SB);
  SB.CreateCondBr(ok, access, skip, MDB.createLikelyBranchWeights());

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

  for (auto [A, p] : zip(accesses, provenance)) {
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

    IRBuilder<> B(A.inst);
    B.SetCurrentDebugLocation(A.inst->getDebugLoc());
    Value *addr = B.CreatePtrToInt(A.ptr, I64, "kosan.addr");
    Value *size32 = B.CreateTrunc(A.size, I32);
    ++NumChecked;

    if (p.kind == Provenance::Unknown) {
      ++counts.table;
      ++NumCheckedTable;
      guard(A, nullptr, [&](IRBuilder<> &SB) {
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
      Value *base = p.base;
      if (base->getType()->getPointerAddressSpace() != ptrAS)
        base = B.CreateAddrSpaceCast(base, A.ptr->getType());
      begin = B.CreatePtrToInt(base, I64, "kosan.begin");
      Value *objSize = p.kind == Provenance::DynamicShared
                           ? ctx.dynSmem
                           : ConstantInt::get(I64, p.size);
      end = B.CreateAdd(begin, objSize, "kosan.end");
    }
    Value *last = B.CreateAdd(addr, A.size);
    Value *bad = B.CreateOr(B.CreateICmpULT(addr, begin),
                            B.CreateICmpUGT(last, end), "kosan.bad");
    guard(A, bad, [&](IRBuilder<> &SB) {
      Value *pitch = fromArg ? argBound(clone, ctx, p.argIndex, 2, SB)
                             : SB.getInt64(0);
      Value *shape = fromArg ? argBound(clone, ctx, p.argIndex, 3, SB)
                             : SB.getInt64(0);
      return SB.CreateCall(reportFn,
                           {ctx.state, ctx.launchId, ctx.flags,
                            SB.getInt32(site), addr, size32, begin, end, pitch,
                            shape});
    });
  }

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
  if (kernels.empty()) {
    if (!opts.debugFunction.empty())
      errs() << "kosan: warning: -kosan-debug-func=" << opts.debugFunction
             << " names no kernel in " << M.getSourceFileName()
             << "; nothing instrumented\n";
    return false;
  }
  initializeCallbacks();

  for (Function *F : kernels)
    clones[F] = cloneKernel(*F);
  for (Function *F : deviceFunctions)
    clones[F] = cloneDeviceFunction(*F);

  for (Function *F : kernels) {
    Function *clone = clones[F];
    LaunchContext ctx = kernelContext(*clone, F->arg_size());
    redirectCalls(*clone, ctx);
    instrumentFunction(*clone, *F, /*kernel=*/true, ctx);
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
    instrumentFunction(*clone, *F, /*kernel=*/false, ctx);
    ++NumDeviceFunctions;
  }
  sites.emit(M, fpMode());
  return true;
}

} // namespace

PreservedAnalyses OOBSanitizerPass::run(Module &M, ModuleAnalysisManager &) {
  if (!isDeviceModule(M) || !(opts.checks & KOSAN_CHECK_OOB))
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

//===- passes/checks/precision/PrecisionSanitizer.cpp - fp64 shadow execution ===//
//
// See PrecisionSanitizer.h. One function at a time, in reverse post-order:
// every floating-point instruction gets its shadow right after it, phis get
// shadow phis (filled in at the end), sinks call the device runtime
// (runtime/device/precision.cpp), which aggregates per warp and site.
//
//===----------------------------------------------------------------------===//
#include "checks/precision/PrecisionSanitizer.h"
#include "DeviceRuntime.h"
#include "core/InsertionPoints.h"
#include "core/KernelSummary.h"
#include "core/PtxHalf.h"
#include "target/Target.h"

#include "kosan/abi.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cmath>
#include <optional>

using namespace llvm;

static cl::opt<bool> ClPrecTally(
    "kosan-prec-tally", cl::init(true), cl::Hidden,
    cl::desc("Stores and atomics in loops add their error to a per-thread tally in registers, "
             "merged into the site's slot when the function returns, instead of a runtime call "
             "per value"));

static cl::opt<unsigned> ClPrecTallyMax(
    "kosan-prec-tally-max", cl::init(2), cl::Hidden,
    cl::desc("Tallies per function (each holds about 20 registers while its loop runs); "
             "further stores and atomics in loops call the runtime per value"));

static cl::opt<unsigned> ClPrecBirthSpan(
    "kosan-prec-birth-span", cl::init(4), cl::Hidden,
    cl::desc("Operations tested for a NaN/Inf birth between two report branches of one basic "
             "block (0: one branch at the block's end)"));

namespace kosan {

constexpr unsigned kSharedAS = addrspace::Shared, kLocalAS = addrspace::Local;

//===----------------------------------------------------------------------===//
// Shadows of shared memory
//===----------------------------------------------------------------------===//

StructType *SharedValueShadows::elementType(LLVMContext &Ctx) {
  Type *I32 = Type::getInt32Ty(Ctx);
  return StructType::get(Ctx, {Type::getDoubleTy(Ctx), I32, I32});
}

GlobalVariable *SharedValueShadows::make(GlobalVariable *G, unsigned elemBytes) {
  auto it = shadows.find(G);
  if (it != shadows.end())
    return it->second.second == elemBytes ? it->second.first : nullptr;
  const DataLayout &DL = M.getDataLayout();
  uint64_t size = DL.getTypeAllocSize(G->getValueType());
  StructType *E = elementType(M.getContext());
  uint64_t slots = size / elemBytes + 1; // the last one takes out-of-range indices
  uint64_t bytes = slots * DL.getTypeAllocSize(E);
  GlobalVariable *S = nullptr;
  if (size && bytes <= budget) {
    budget -= bytes;
    auto *AT = ArrayType::get(E, slots);
    S = new GlobalVariable(M, AT, false, GlobalValue::InternalLinkage, UndefValue::get(AT),
                           G->getName() + ".kosan_prec", nullptr,
                           GlobalValue::NotThreadLocal, kSharedAS);
    S->setAlignment(Align(16));
  }
  shadows[G] = {S, elemBytes};
  return S;
}

GlobalVariable *SharedValueShadows::find(GlobalVariable *G, unsigned &elemBytes) const {
  auto it = shadows.find(G);
  if (it == shadows.end())
    return nullptr;
  elemBytes = it->second.second;
  return it->second.first;
}

//===----------------------------------------------------------------------===//
// Fast intrinsics
//===----------------------------------------------------------------------===//

// The f32 constants the fast intrinsics scale by, and their exact values.
static const struct {
  double exact;
  const char *name;
} kFastConstants[] = {
    {1.44269504088896340736, "log2(e)"},   // __expf: ex2.approx(x * log2(e))
    {3.32192809488736234787, "log2(10)"},  // __exp10f
    {0.69314718055994530942, "ln(2)"},     // __logf: lg2.approx(x) * ln(2)
    {0.30102999566398119521, "log10(2)"},  // __log10f
};

// The exact value of C where C is one of kFastConstants rounded to f32.
static std::optional<double> exactFastConstant(const Value *C) {
  auto *CF = dyn_cast<ConstantFP>(C);
  if (!CF || !CF->getType()->isFloatTy())
    return std::nullopt;
  // -__logf(x) folds the negation into the constant.
  float f = CF->getValueAPF().convertToFloat();
  for (const auto &k : kFastConstants)
    if (std::fabs(f) == float(k.exact))
      return std::copysign(k.exact, double(f));
  return std::nullopt;
}

static bool isNvvmCall(const Value *V, StringRef prefix) {
  auto *CI = dyn_cast<CallInst>(V);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && F->getName().starts_with(prefix);
}

// The NVVM intrinsics the shadow knows, by name prefix (the first that
// matches): the fp64 operation each approximates or rounds, and for the
// approximations that are a whole function on their own, the function the
// program calls for it (nullptr: none, or only as part of one).
struct NvvmOp {
  const char *prefix, *op, *function;
};
static const NvvmOp kNvvmOps[] = {
    {"llvm.nvvm.ex2.approx", "exp2", "exp2f"},
    {"llvm.nvvm.lg2.approx", "log2", nullptr},
    {"llvm.nvvm.sin.approx", "sin", "__sinf"},
    {"llvm.nvvm.cos.approx", "cos", "__cosf"},
    {"llvm.nvvm.tanh.approx", "tanh", "__tanhf"},
    {"llvm.nvvm.rsqrt.approx", "rsqrt", "rsqrtf"},
    {"llvm.nvvm.sqrt.approx", "sqrt", "sqrtf"},
    {"llvm.nvvm.sqrt.", "sqrt", nullptr},
    {"llvm.nvvm.rcp.", "rcp", nullptr},
    {"llvm.nvvm.div.approx", "div", "__fdividef"},
    {"llvm.nvvm.div.", "div", nullptr},
    {"llvm.nvvm.fma.", "fma", nullptr},
    {"llvm.nvvm.add.", "add", nullptr},
    {"llvm.nvvm.mul.", "mul", nullptr},
    {"llvm.nvvm.fmin.", "fmin", nullptr},
    {"llvm.nvvm.fmax.", "fmax", nullptr},
    {"llvm.nvvm.fabs", "fabs", nullptr},
    {"llvm.nvvm.saturate", "saturate", nullptr},
};

static const NvvmOp *nvvmOp(StringRef name) {
  for (const NvvmOp &n : kNvvmOps)
    if (name.starts_with(n.prefix))
      return &n;
  return nullptr;
}

// What the IR around a fast approximation shows it to be, as a whole: the
// scaled ex2.approx of __expf, __exp10f and __powf, the scaled lg2.approx of
// __logf and __log10f, and lg2.approx in __powf. Empty otherwise (an
// approximation on a reduced argument, inside an accurate function).
static std::string wholeFastIntrinsic(const CallInst &CI, StringRef name) {
  auto scaledBy = [](const Value *V, double c) {
    auto *M = dyn_cast<BinaryOperator>(V);
    if (!M || M->getOpcode() != Instruction::FMul)
      return false;
    for (const Value *O : M->operands())
      if (std::optional<double> e = exactFastConstant(O); e && std::fabs(*e) == c)
        return true;
    return false;
  };
  auto toExp = [](const User *U) { return isNvvmCall(U, "llvm.nvvm.ex2.approx"); };
  if (name.starts_with("llvm.nvvm.ex2.approx")) {
    const Value *arg = CI.getArgOperand(0);
    if (scaledBy(arg, kFastConstants[0].exact))
      return "__expf";
    if (scaledBy(arg, kFastConstants[1].exact))
      return "__exp10f";
    if (auto *M = dyn_cast<BinaryOperator>(arg); M && M->getOpcode() == Instruction::FMul &&
        (isNvvmCall(M->getOperand(0), "llvm.nvvm.lg2.approx") ||
         isNvvmCall(M->getOperand(1), "llvm.nvvm.lg2.approx")))
      return "__powf";
    return "";
  }
  if (name.starts_with("llvm.nvvm.lg2.approx") && CI.hasOneUse()) {
    const User *U = *CI.user_begin();
    if (scaledBy(U, kFastConstants[2].exact))
      return "__logf";
    if (scaledBy(U, kFastConstants[3].exact))
      return "__log10f";
    if (auto *M = dyn_cast<BinaryOperator>(U); M && M->getOpcode() == Instruction::FMul &&
        any_of(M->users(), toExp))
      return "__powf"; // ex2.approx(y * lg2.approx(x))
  }
  return "";
}

std::string fastIntrinsicName(const CallInst &CI) {
  const Function *callee = CI.getCalledFunction();
  if (!callee)
    return "";
  StringRef name = callee->getName();
  bool approx = name.starts_with("llvm.nvvm.") && name.contains(".approx");
  // A math intrinsic allowed to be approximated (-ffast-math's afn): the
  // backend computes some of them with the same approximations.
  bool afn = false;
  if (isa<FPMathOperator>(CI) && CI.hasApproxFunc())
    switch (callee->getIntrinsicID()) {
    case Intrinsic::exp: case Intrinsic::exp2: case Intrinsic::log:
    case Intrinsic::log2: case Intrinsic::log10: case Intrinsic::sin:
    case Intrinsic::cos: case Intrinsic::sqrt:
      afn = true;
      break;
    default:
      break;
    }
  if (!approx && !afn)
    return "";
  // The toolkit wrapper the program called, as the inlining left it in the
  // debug information: the outermost frame in a toolkit header.
  std::string wrapper;
  for (const DILocation *L = CI.getDebugLoc(); L && L->getInlinedAt(); L = L->getInlinedAt()) {
    if (!isToolkitFile(L->getFilename()))
      break;
    if (const DISubprogram *SP = L->getScope()->getSubprogram())
      wrapper = SP->getName().str();
  }
  if (afn)
    return wrapper.empty()
               ? Intrinsic::getBaseName(callee->getIntrinsicID()).drop_front(strlen("llvm.")).str() + "f"
               : wrapper;
  // The fast intrinsics proper (__expf, __fdividef, ...), and the accurate
  // functions that fast math (-fgpu-approx-transcendentals) compiles to
  // them, whose IR shows them whole.
  if (StringRef(wrapper).starts_with("__"))
    return wrapper;
  std::string whole = wholeFastIntrinsic(CI, name);
  if (!whole.empty())
    return wrapper.empty() ? whole : wrapper;
  // The functions that are one approximation; called directly, or, without
  // debug information, as the program's own call (the mutations of
  // kosan-mutate are).
  const NvvmOp *n = nvvmOp(name);
  if (!n || !n->function)
    return "";
  // An approximation inside an accurate library function (expf's
  // ex2.approx of its reduced argument) is not one the program chose.
  if (!wrapper.empty() && wrapper != n->function)
    return "";
  // ex2.approx on a computed argument, without debug information: as
  // likely the inside of expf as exp2f.
  if (wrapper.empty() && StringRef(n->prefix) == "llvm.nvvm.ex2.approx")
    return "";
  return n->function;
}

namespace {

// What a value holds, for the shadow: its element type and lane count.
using Kind = HalfKind;

Kind fpKind(Type *T) {
  Kind k;
  if (auto *V = dyn_cast<FixedVectorType>(T)) {
    k.dtype = floatDtypeOf(V->getElementType());
    k.lanes = V->getNumElements();
  } else {
    k.dtype = floatDtypeOf(T);
  }
  return k;
}

// Where a check on I goes: after I's shadow S when S is a new instruction
// following I, else right after I.
Instruction *afterOf(Value *S, Instruction *I) {
  auto *SI = dyn_cast<Instruction>(S);
  return SI && SI->getParent() == I->getParent() && I->comesBefore(SI) ? SI : I;
}

class Instrumenter {
public:
  Instrumenter(Function &F, Value *state, Value *launchId, SiteTable &sites,
               SharedValueShadows &shared)
      : F(F), M(*F.getParent()), Ctx(F.getContext()), DL(M.getDataLayout()), state(state),
        launchId(launchId), sites(sites), shared(shared), target(Target::forModule(M)),
        F64(Type::getDoubleTy(Ctx)), I32(Type::getInt32Ty(Ctx)), I64(Type::getInt64Ty(Ctx)) {}
  PrecisionCounts run();

private:
  Type *shadowType(Kind k) {
    return k.lanes == 1 ? F64 : FixedVectorType::get(F64, k.lanes);
  }
  Kind kindOf(Value *V) {
    if (Kind k = fpKind(V->getType()))
      return k;
    auto it = halfRegs.find(V);
    return it == halfRegs.end() ? Kind{} : it->second;
  }
  BasicBlock::iterator entryPoint();
  BasicBlock::iterator after(Value *V);
  Value *toDouble(IRBuilder<> &B, Value *V, Kind k);
  Value *shadow(Value *V);
  void setShadow(Value *V, Value *S) { shadows[V] = S; }
  Value *slot(IRBuilder<> &B, uint32_t site) {
    return B.CreateAdd(base, ConstantInt::get(I32, site));
  }
  Value *finite(IRBuilder<> &B, Value *V, Kind k);
  Value *divide(IRBuilder<> &B, Value *a, Value *b) {
    return target ? target->shadowDivide(B, a, b) : B.CreateFDiv(a, b);
  }
  Value *unaryShadow(IRBuilder<> &B, StringRef op, Value *s, Kind k);
  void checkNonfinite(Instruction *I, Instruction *after, Value *result,
                      ArrayRef<Value *> operands, StringRef op);
  void flushChecks();
  struct BlockBirths {
    Value *any = nullptr; // some result of the block was not finite
    // The first of them, if it was born here: its site + 1 (0: none), result
    // and shadow.
    Value *site = nullptr, *real = nullptr, *shadow = nullptr;
    SmallPtrSet<Value *, 16> tested;
    Instruction *last = nullptr;
    unsigned ops = 0; // operations tested since the last report branch
    // Report branches within the block (before splitBefore), each on the
    // site, result and shadow of the operations before it; the last one is
    // at the block's end.
    struct Flush {
      Value *site, *real, *shadow;
      Instruction *last, *splitBefore;
    };
    SmallVector<Flush, 4> flushes;
  };
  MapVector<BasicBlock *, BlockBirths> births;
  bool mayBranchBefore(Instruction *I);
  void recordValue(Instruction *before, Value *V, kosan_access_kind access,
                   StringRef op);
  // Sinks in loops (tallied per thread, kosan_prec_tally), found before
  // anything is instrumented; the tallies, by slot, flushed at every return.
  SmallPtrSet<Instruction *, 16> loopSinks;
  SmallVector<std::pair<uint32_t, AllocaInst *>, 4> tallies;
  AllocaInst *newTally();
  void flushTallies();
  void recordNarrow(Instruction *I, Instruction *after, Value *in, Value *out,
                    Kind from, Kind to, StringRef op);
  void visit(Instruction *I);
  // Root causes (abi.h KOSAN_PREC_CAUSE_*): every shadowed value's tag.
  Value *tagOf(Value *V);
  void tagOp(Instruction *I);
  Value *roundTo(IRBuilder<> &B, Value *x, uint32_t dtype);
  Value *localTag(IRBuilder<> &B, Instruction *I, Kind k, Value *S, Value *onRounded,
                  Value *inherited);
  bool isSharedPointer(Value *ptr);
  bool feedsShared(Value *V);
  // Shadows of shared memory (SharedValueShadows).
  GlobalVariable *sharedArrayOf(Value *ptr);
  bool mayCarryError(Value *V, unsigned depth = 0);
  void planSharedShadows(ArrayRef<Instruction *> order);
  GlobalVariable *sharedShadowFor(Value *ptr, Value *V, GlobalVariable *&G, unsigned &elem);
  Value *sharedShadowIndex(IRBuilder<> &B, Value *ptr, GlobalVariable *G, GlobalVariable *SG,
                           unsigned elem);
  Value *bitsOf(IRBuilder<> &B, Value *V);
  bool storeSharedShadow(StoreInst *ST);
  bool loadSharedShadow(LoadInst *LI);
  bool handleIntrinsic(CallInst *CI, IRBuilder<> &B);
  bool handleAsm(CallInst *CI, IRBuilder<> &B);
  bool isGlobalPointer(Value *ptr);
  AllocaInst *shadowSlotFor(Value *ptr);
  FunctionCallee entry(StringRef name, Type *ret, ArrayRef<Type *> params) {
    return runtimeEntry(M, name, ret, params);
  }

  Function &F;
  Module &M;
  LLVMContext &Ctx;
  const DataLayout &DL;
  Value *state, *launchId;
  SiteTable &sites;
  SharedValueShadows &shared;
  const Target *target;
  Type *F64, *I32, *I64;
  Value *base = nullptr;
  DenseMap<Value *, Value *> shadows;
  SmallPtrSet<Value *, 32> exact; // values whose shadow is the value itself
  HalfRegisters halfRegs; // i16/i32 registers holding f16/bf16
  DenseMap<AllocaInst *, AllocaInst *> shadowSlots;
  SmallVector<std::pair<PHINode *, PHINode *>, 8> phis;
  DenseMap<Value *, Value *> tags;        // i32 cause tags of shadowed values
  DenseMap<Value *, uint32_t> opSites;    // the site of an operation (nonfinite or narrow)
  SmallVector<std::pair<PHINode *, PHINode *>, 8> tagPhis;
  PrecisionCounts counts;
};

BasicBlock::iterator Instrumenter::entryPoint() {
  return afterContext(F, {launchId, state});
}

BasicBlock::iterator Instrumenter::after(Value *V) {
  return afterDefinition(V, entryPoint());
}

Value *Instrumenter::toDouble(IRBuilder<> &B, Value *V, Kind k) {
  Type *T = V->getType();
  if (T->isFPOrFPVectorTy())
    return T->getScalarType()->isDoubleTy() ? V : B.CreateFPExt(V, shadowType(k));
  Type *H = k.dtype == KOSAN_DTYPE_BF16 ? Type::getBFloatTy(Ctx) : Type::getHalfTy(Ctx);
  if (k.lanes > 1)
    H = FixedVectorType::get(H, k.lanes);
  return B.CreateFPExt(B.CreateBitCast(V, H), shadowType(k));
}

// The shadow of V: computed already, a constant, or seeded from V itself
// right where V is defined (so it dominates every use of V).
Value *Instrumenter::shadow(Value *V) {
  if (Value *S = shadows.lookup(V))
    return S;
  Kind k = kindOf(V);
  if (!k)
    return nullptr;
  Value *S;
  if (isa<Constant>(V)) {
    IRBuilder<> B(&*entryPoint());
    S = toDouble(B, V, k);
  } else {
    IRBuilder<> B(&*after(V));
    S = toDouble(B, V, k);
    ++counts.seeded;
  }
  shadows[V] = S;
  exact.insert(V);
  return S;
}

Value *Instrumenter::finite(IRBuilder<> &B, Value *V, Kind k) {
  Value *x = V->getType()->isFloatingPointTy() ? V : toDouble(B, V, k);
  Value *a = B.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  return B.CreateFCmpOLT(a, ConstantFP::getInfinity(x->getType()));
}

// Shadows by name: the fp64 operation the real one approximates.
Value *Instrumenter::unaryShadow(IRBuilder<> &B, StringRef op, Value *s, Kind k) {
  auto call = [&](const char *name) -> Value * {
    if (k.lanes != 1)
      return nullptr;
    return B.CreateCall(entry(name, F64, {F64}), {s});
  };
  if (op == "exp2")
    return call(rt::ShadowExp2);
  if (op == "exp")
    return k.lanes == 1 ? B.CreateCall(entry(rt::ShadowExp2, F64, {F64}),
                                       {B.CreateFMul(s, ConstantFP::get(F64, M_LOG2E))})
                        : nullptr;
  if (op == "log2")
    return call(rt::ShadowLog2);
  if (op == "log")
    return k.lanes == 1 ? B.CreateFMul(call(rt::ShadowLog2), ConstantFP::get(F64, M_LN2))
                        : nullptr;
  if (op == "log10")
    return k.lanes == 1 ? B.CreateFMul(call(rt::ShadowLog2),
                                       ConstantFP::get(F64, 0.30102999566398119521))
                        : nullptr;
  if (op == "sin")
    return call(rt::ShadowSin);
  if (op == "cos")
    return call(rt::ShadowCos);
  if (op == "tanh")
    return call(rt::ShadowTanh);
  if (op == "sqrt")
    return B.CreateUnaryIntrinsic(Intrinsic::sqrt, s);
  if (op == "rsqrt")
    return divide(B, ConstantFP::get(s->getType(), 1.0),
                  B.CreateUnaryIntrinsic(Intrinsic::sqrt, s));
  if (op == "rcp")
    return divide(B, ConstantFP::get(s->getType(), 1.0), s);
  if (op == "fabs")
    return B.CreateUnaryIntrinsic(Intrinsic::fabs, s);
  if (op == "neg")
    return B.CreateFNeg(s);
  return nullptr;
}

// An operation whose result is NaN or Inf while its operands are finite:
// report where it happened (the first birth, not every propagation).
// Nothing branches at the operation itself: each folds its test into a few
// values per block (any birth yet, and the first one's site, result and
// shadow), which a branch at the end of the block, and in a long block one
// every -kosan-prec-birth-span operations (flushChecks), reports. Never
// between a multiply and an addition it feeds (mayBranchBefore): splitting
// the block there would keep the backend or ptxas from fusing them as in
// the plain kernel, which would compute other numbers.
void Instrumenter::checkNonfinite(Instruction *I, Instruction *afterI, Value *result,
                                  ArrayRef<Value *> operands, StringRef op) {
  Kind k = kindOf(result);
  if (!k || k.lanes != 1)
    return;
  uint32_t site = sites.add(*I, KOSAN_ACCESS_PREC_NONFINITE, 0, k.dtype, op, -1);
  opSites[result] = site;
  IRBuilder<> B(afterI->getNextNode());
  B.SetCurrentDebugLocation(I->getDebugLoc());
  BlockBirths &st = births[I->getParent()];
  auto fresh = [&] {
    st.site = ConstantInt::get(I32, 0);
    st.real = ConstantFP::get(Type::getFloatTy(Ctx), 0.0);
    st.shadow = ConstantFP::get(F64, 0.0);
    st.ops = 0;
  };
  if (!st.any) {
    st.any = ConstantInt::getFalse(Ctx);
    fresh();
  } else if (ClPrecBirthSpan && st.ops >= ClPrecBirthSpan && mayBranchBefore(I)) {
    // A long block (an unrolled loop's chain of fmas) reports its births
    // every -kosan-prec-birth-span operations: the branch bounds how far
    // ptxas moves one operation's shadow arithmetic from another's, and
    // with it what it keeps live (and spills) at once. What the block has
    // seen so far goes on: a later operation is the block's first birth
    // only if no earlier result was not finite, as without the branch.
    st.flushes.push_back({st.site, st.real, st.shadow, st.last, I});
    fresh();
  }
  ++st.ops;
  Value *bad = B.CreateNot(finite(B, result, k));
  Value *born = bad;
  // An addition, subtraction, multiplication or fma of operands whose
  // shadows are their own values (loaded, passed in) has a shadow result
  // that is finite exactly when they are: a NaN or infinity among them
  // makes it NaN or infinite, and finite fp64 operands of f32 magnitude do
  // not overflow fp64. One test of the result's shadow then stands for
  // theirs (matmul's fma of two loaded values: one test for two). Not for
  // fp64 arithmetic, whose shadow is itself and overflows with it.
  bool propagates = false;
  if (auto *BO = dyn_cast<BinaryOperator>(I))
    propagates = BO->getOpcode() == Instruction::FAdd || BO->getOpcode() == Instruction::FSub ||
                 BO->getOpcode() == Instruction::FMul;
  else if (auto *CI = dyn_cast<CallInst>(I); CI && CI->getCalledFunction())
    propagates = CI->getCalledFunction()->getIntrinsicID() == Intrinsic::fma ||
                 CI->getCalledFunction()->getIntrinsicID() == Intrinsic::fmuladd;
  if (k.dtype == KOSAN_DTYPE_F64)
    propagates = false;
  Value *S = shadows.lookup(result);
  auto byShadow = [&](Value *o) {
    return propagates && S && !S->getType()->isVectorTy() && exact.count(o) &&
           o->getType()->isFloatingPointTy() && !isa<Constant>(o);
  };
  if (count_if(operands, byShadow) >= 2)
    born = B.CreateAnd(born, finite(B, S, k));
  else
    propagates = false;
  for (Value *o : operands) {
    // A finite constant needs no test; nor does a result this block tested
    // already: were it not finite, `any` would be set, and no later
    // operation of the block could be the first.
    if (auto *CF = dyn_cast<ConstantFP>(o); CF && CF->getValueAPF().isFinite())
      continue;
    if (st.tested.count(o) || byShadow(o))
      continue;
    if (Kind ok = kindOf(o); ok && ok.lanes == 1)
      born = B.CreateAnd(born, finite(B, o, ok));
  }
  // The first non-finite result of the block, if it was born there; its
  // site + 1 (0: none yet) says whether there is one.
  Value *take = B.CreateAnd(born, B.CreateNot(st.any));
  st.site = B.CreateSelect(take, ConstantInt::get(I32, site + 1), st.site);
  // The real result is carried in its own type while the block's are
  // floats (one register, no conversion per operation), in fp64 once
  // another type joins; exact either way.
  Value *real = result->getType()->isFloatTy() ? result : toDouble(B, result, k);
  if (real->getType() != st.real->getType()) {
    if (st.real->getType()->isFloatTy())
      st.real = B.CreateFPExt(st.real, F64);
    else
      real = B.CreateFPExt(real, F64);
  }
  st.real = B.CreateSelect(take, real, st.real);
  st.shadow = B.CreateSelect(take, shadow(result), st.shadow);
  st.any = B.CreateOr(st.any, bad);
  st.tested.insert(result);
  st.last = I;
}

void Instrumenter::flushChecks() {
  MDNode *unlikely = MDBuilder(Ctx).createBranchWeights(1, 1 << 20);
  FunctionCallee fn = entry(rt::PrecNonfinite, Type::getVoidTy(Ctx),
                            {I64, I32, I32, F64, F64});
  for (auto &[BB, st] : births) {
    st.flushes.push_back({st.site, st.real, st.shadow, st.last, BB->getTerminator()});
    for (const BlockBirths::Flush &f : st.flushes) {
      IRBuilder<> T(f.splitBefore);
      Value *taken = T.CreateICmpNE(f.site, ConstantInt::get(I32, 0), "kosan.born");
      Instruction *call = SplitBlockAndInsertIfThen(taken, f.splitBefore, false, unlikely);
      IRBuilder<> R(call);
      R.SetCurrentDebugLocation(f.last->getDebugLoc());
      Value *slot = R.CreateAdd(base, R.CreateSub(f.site, ConstantInt::get(I32, 1)));
      Value *real = f.real->getType()->isFloatTy() ? R.CreateFPExt(f.real, F64) : f.real;
      R.CreateCall(fn, {state, launchId, slot, real, f.shadow});
    }
  }
}

// Whether a report branch may go right before I: no multiply (or call,
// __fdividef's div.approx among them) above it in the block feeds an
// addition at or below it, which the backend or ptxas could fuse with it
// in the plain kernel's block but no longer across the branch.
bool Instrumenter::mayBranchBefore(Instruction *I) {
  BasicBlock *BB = I->getParent();
  for (Instruction &X : *BB) {
    if (&X == I)
      return true;
    if (!X.getType()->isFPOrFPVectorTy() ||
        !(X.getOpcode() == Instruction::FMul || X.getOpcode() == Instruction::FDiv ||
          isa<CallInst>(X)))
      continue;
    for (User *U : X.users()) {
      auto *UI = dyn_cast<Instruction>(U);
      if (UI && UI->getParent() == BB && !UI->comesBefore(I) &&
          (UI->getOpcode() == Instruction::FAdd || UI->getOpcode() == Instruction::FSub ||
           UI->getOpcode() == Instruction::FNeg))
        return false;
    }
  }
  return true;
}

void Instrumenter::recordValue(Instruction *before, Value *V, kosan_access_kind access,
                               StringRef op) {
  Kind k = kindOf(V);
  if (!k)
    return;
  // A value whose shadow is itself (loaded, a parameter, a constant: a
  // copy, or one that would be seeded right here) is exact by
  // construction; recording it would only count it.
  if (exact.count(V) || !shadows.count(V)) {
    ++counts.copies;
    return;
  }
  Value *s = shadow(V);
  uint32_t site = sites.add(*before, access, 0, k.dtype, op, -1);
  IRBuilder<> B(before);
  B.SetCurrentDebugLocation(before->getDebugLoc());
  Value *real = toDouble(B, V, k);
  FunctionCallee fn = entry(rt::PrecValue, Type::getVoidTy(Ctx),
                            {I64, I32, I32, F64, F64, I32, I32, I32});
  // The value's root cause: its tag's code, and its operation's slot.
  Value *tag = tagOf(V);
  Value *causeCode = B.CreateLShr(tag, KOSAN_PREC_CAUSE_SITE_BITS, "kosan.cause_code");
  Value *causeSlot = B.CreateAdd(
      base, B.CreateAnd(tag, (1u << KOSAN_PREC_CAUSE_SITE_BITS) - 1), "kosan.cause_slot");
  // In a loop, the thread's tally of the site takes the sample in registers
  // (the runtime's __kosan_prec_tally, inlined), and one warp-level merge at
  // the function's return replaces a call, its reductions and its atomics
  // per value. The first -kosan-prec-tally-max such sites of the function
  // only: an unrolled loop's many stores would otherwise hold a tally each.
  AllocaInst *tally =
      loopSinks.count(before) && tallies.size() < ClPrecTallyMax ? newTally() : nullptr;
  if (tally) {
    tallies.push_back({site, tally});
    fn = entry(rt::PrecTally, Type::getVoidTy(Ctx),
               {I64, I32, I32, tally->getType(), F64, F64, I32, I32, I32});
  }
  for (unsigned lane = 0; lane < std::min(k.lanes, 8u); ++lane) {
    Value *r = k.lanes == 1 ? real : B.CreateExtractElement(real, lane);
    Value *sh = k.lanes == 1 ? s : B.CreateExtractElement(s, lane);
    if (tally)
      B.CreateCall(fn, {state, launchId, slot(B, site), tally, r, sh,
                        ConstantInt::get(I32, k.dtype), causeCode, causeSlot});
    else
      B.CreateCall(fn, {state, launchId, slot(B, site), r, sh, ConstantInt::get(I32, k.dtype),
                        causeCode, causeSlot});
  }
  ++counts.sinks;
  counts.tallied += tally != nullptr;
}

// A zeroed kosan_prec_tally in the entry block, where SROA (in the NVPTX
// backend's pipeline) turns its fields into registers once the runtime's
// functions that read and write it are inlined.
AllocaInst *Instrumenter::newTally() {
  BasicBlock &entryBB = F.getEntryBlock();
  IRBuilder<> A(&entryBB, entryBB.getFirstInsertionPt());
  auto *T = ArrayType::get(Type::getInt8Ty(Ctx), sizeof(kosan_prec_tally));
  AllocaInst *AI = A.CreateAlloca(T, DL.getAllocaAddrSpace(), nullptr, "kosan.tally");
  AI->setAlignment(Align(alignof(kosan_prec_tally)));
  IRBuilder<> B(&*entryPoint());
  B.CreateMemSet(AI, B.getInt8(0), sizeof(kosan_prec_tally), AI->getAlign());
  return AI;
}

// Every tally goes to its slot before each return.
void Instrumenter::flushTallies() {
  if (tallies.empty())
    return;
  SmallVector<ReturnInst *, 4> rets;
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
      rets.push_back(R);
  FunctionCallee fn = entry(rt::PrecFlush, Type::getVoidTy(Ctx),
                            {I64, I32, I32, tallies.front().second->getType()});
  for (ReturnInst *R : rets) {
    IRBuilder<> B(R);
    for (auto [site, tally] : tallies)
      B.CreateCall(fn, {state, launchId, slot(B, site), tally});
  }
}

void Instrumenter::recordNarrow(Instruction *I, Instruction *afterI, Value *in, Value *out,
                                Kind from, Kind to, StringRef op) {
  // A narrowed value that goes to shared memory comes back from there without
  // its shadow: the site says so, and verdicts hold its rounding to fp32's.
  int fromField = int(from.dtype) | (feedsShared(out) ? KOSAN_PREC_NARROW_TO_SHARED : 0);
  uint32_t site = sites.add(*I, KOSAN_ACCESS_PREC_NARROW, 0, to.dtype, op, fromField);
  opSites[out] = site;
  IRBuilder<> B(afterI->getNextNode());
  B.SetCurrentDebugLocation(I->getDebugLoc());
  Value *dIn = toDouble(B, in, from), *dOut = toDouble(B, out, to);
  FunctionCallee fn = entry(rt::PrecNarrow, Type::getVoidTy(Ctx),
                            {I64, I32, I32, F64, F64, I32});
  for (unsigned lane = 0; lane < std::min(to.lanes, 8u); ++lane) {
    Value *a = to.lanes == 1 ? dIn : B.CreateExtractElement(dIn, lane);
    Value *b = to.lanes == 1 ? dOut : B.CreateExtractElement(dOut, lane);
    B.CreateCall(fn, {state, launchId, slot(B, site), a, b, ConstantInt::get(I32, to.dtype)});
  }
  ++counts.narrowings;
}

bool Instrumenter::isGlobalPointer(Value *ptr) {
  unsigned as = ptr->getType()->getPointerAddressSpace();
  if (as == kSharedAS || as == kLocalAS)
    return false;
  const Value *obj = getUnderlyingObject(ptr, 12);
  if (isa<AllocaInst>(obj))
    return false;
  if (auto *GV = dyn_cast<GlobalVariable>(obj))
    return GV->getAddressSpace() != kSharedAS;
  if (auto *ASC = dyn_cast<AddrSpaceCastOperator>(obj))
    return ASC->getSrcAddressSpace() != kSharedAS && ASC->getSrcAddressSpace() != kLocalAS;
  return true;
}

// -O0 keeps every variable in a stack slot: a floating-point slot whose
// address goes nowhere else gets a shadow slot next to it.
AllocaInst *Instrumenter::shadowSlotFor(Value *ptr) {
  auto *AI = dyn_cast<AllocaInst>(ptr->stripPointerCasts());
  if (!AI || !AI->isStaticAlloca() || !fpKind(AI->getAllocatedType()) ||
      AI->getAllocatedType()->isVectorTy())
    return nullptr;
  auto it = shadowSlots.find(AI);
  if (it != shadowSlots.end())
    return it->second;
  AllocaInst *slotAI = nullptr;
  bool privateSlot = true;
  for (User *U : AI->users()) {
    Value *user = U;
    if (auto *C = dyn_cast<AddrSpaceCastInst>(U)) {
      for (User *CU : C->users())
        if (!isa<LoadInst>(CU) &&
            !(isa<StoreInst>(CU) && cast<StoreInst>(CU)->getPointerOperand() == C))
          privateSlot = false;
      continue;
    }
    if (!isa<LoadInst>(user) &&
        !(isa<StoreInst>(user) && cast<StoreInst>(user)->getPointerOperand() == AI))
      privateSlot = false;
  }
  if (privateSlot) {
    IRBuilder<> B(AI->getNextNode());
    slotAI = B.CreateAlloca(F64, AI->getAddressSpace(), nullptr, AI->getName() + ".shadow");
    B.SetInsertPoint(&*entryPoint());
    B.CreateStore(ConstantFP::get(F64, 0.0), slotAI)
        ->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(Ctx, {}));
  }
  shadowSlots[AI] = slotAI;
  return slotAI;
}

bool Instrumenter::handleIntrinsic(CallInst *CI, IRBuilder<> &B) {
  Kind k = fpKind(CI->getType());
  if (!k)
    return false;
  Function *callee = CI->getCalledFunction();
  StringRef name = callee->getName();
  Intrinsic::ID id = callee->getIntrinsicID();
  SmallVector<Value *, 3> s;
  for (Value *A : CI->args())
    if (fpKind(A->getType()))
      s.push_back(shadow(A));
  auto same = [&](Intrinsic::ID id) -> Value * {
    return B.CreateIntrinsic(id, {shadowType(k)}, s);
  };
  Value *S = nullptr;
  std::string op;
  switch (id) {
  case Intrinsic::fma:
  case Intrinsic::fmuladd:
    S = B.CreateIntrinsic(Intrinsic::fma, {shadowType(k)}, s);
    op = "fma";
    break;
  case Intrinsic::sqrt: case Intrinsic::fabs: case Intrinsic::floor:
  case Intrinsic::ceil: case Intrinsic::trunc: case Intrinsic::rint:
  case Intrinsic::nearbyint: case Intrinsic::round: case Intrinsic::roundeven:
  case Intrinsic::minnum: case Intrinsic::maxnum: case Intrinsic::minimum:
  case Intrinsic::maximum: case Intrinsic::copysign:
    S = same(id);
    op = Intrinsic::getBaseName(id).drop_front(5).str();
    break;
  case Intrinsic::exp: op = "exp"; break;
  case Intrinsic::exp2: op = "exp2"; break;
  case Intrinsic::log: op = "log"; break;
  case Intrinsic::log2: op = "log2"; break;
  case Intrinsic::log10: op = "log10"; break;
  case Intrinsic::sin: op = "sin"; break;
  case Intrinsic::cos: op = "cos"; break;
  default: {
    // NVVM's: the fast approximations and explicitly rounded operations.
    if (const NvvmOp *n = nvvmOp(name))
      op = n->op;
    // Directed rounding (.rm/.rp/.rz) is how libdevice rounds to integers
    // (expf's j = fma.rm(x, log2e, magic) - magic): its shadow is the real
    // result, or the shadow of an exact function would drift off the
    // integer grid the algorithm relies on.
    if (op.empty() || name.contains(".rm.") || name.contains(".rp.") ||
        name.contains(".rz.") || name.ends_with(".rm") || name.ends_with(".rp") ||
        name.ends_with(".rz"))
      return false;
    if (op == "div" && s.size() == 2)
      S = divide(B, s[0], s[1]);
    else if (op == "add" && s.size() == 2)
      S = B.CreateFAdd(s[0], s[1]);
    else if (op == "mul" && s.size() == 2)
      S = B.CreateFMul(s[0], s[1]);
    else if (op == "fma" && s.size() == 3)
      S = B.CreateIntrinsic(Intrinsic::fma, {shadowType(k)}, s);
    else if (op == "fmin" && s.size() == 2)
      S = B.CreateBinaryIntrinsic(Intrinsic::minnum, s[0], s[1]);
    else if (op == "fmax" && s.size() == 2)
      S = B.CreateBinaryIntrinsic(Intrinsic::maxnum, s[0], s[1]);
    else if (op == "saturate" && s.size() == 1)
      S = B.CreateBinaryIntrinsic(
          Intrinsic::minnum,
          B.CreateBinaryIntrinsic(Intrinsic::maxnum, s[0], ConstantFP::get(F64, 0.0)),
          ConstantFP::get(F64, 1.0));
    break;
  }
  }
  if (!S && s.size() == 1 && !op.empty())
    S = unaryShadow(B, op, s[0], k);
  if (!S)
    return false;
  setShadow(CI, S);
  ++counts.shadowed;
  SmallVector<Value *, 3> operands(CI->args());
  // The fast intrinsics are named as the program calls them, with the
  // approximation they compile to ("__expf (ex2.approx.ftz.f)"), so that a
  // root cause says which one.
  std::string shown = op.empty() ? "call" : op;
  if (name.contains(".approx") && name.starts_with("llvm.nvvm."))
    shown = name.drop_front(strlen("llvm.nvvm.")).str();
  if (std::string fast = fastIntrinsicName(*CI); !fast.empty())
    shown = fast + " (" +
            (name.starts_with("llvm.nvvm.") ? name.drop_front(strlen("llvm.nvvm.")).str()
                                             : name.drop_front(strlen("llvm.")).str() + ", afn") +
            ")";
  // Operations that pick an operand, its magnitude or sign, or round to an
  // integer give a finite result for finite operands: never a NaN/Inf
  // birth, so no test (softmax's running fmaxf paid one per element).
  bool mayBeBorn = true;
  switch (id) {
  case Intrinsic::fabs: case Intrinsic::floor: case Intrinsic::ceil:
  case Intrinsic::trunc: case Intrinsic::rint: case Intrinsic::nearbyint:
  case Intrinsic::round: case Intrinsic::roundeven: case Intrinsic::minnum:
  case Intrinsic::maxnum: case Intrinsic::minimum: case Intrinsic::maximum:
  case Intrinsic::copysign:
    mayBeBorn = false;
    break;
  default:
    mayBeBorn = !(op == "fmin" || op == "fmax" || op == "fabs" || op == "saturate");
    break;
  }
  if (mayBeBorn)
    checkNonfinite(CI, afterOf(S, CI), CI, operands, shown);
  return true;
}

bool Instrumenter::handleAsm(CallInst *CI, IRBuilder<> &B) {
  auto *IA = cast<InlineAsm>(CI->getCalledOperand());
  PtxHalfOp op = parsePtxHalfOp(IA->getAsmString());
  if (op.kind == PtxHalfOp::None)
    return false;
  SmallVector<Value *, 3> args(CI->args());
  Value *S = nullptr;
  switch (op.kind) {
  case PtxHalfOp::Convert: {
    if (args.size() < 1)
      return false;
    Kind to{op.dtype, op.lanes};
    if (op.lanes == 2) {
      // cvt.rn.f16x2.f32 $0, $hi, $lo: the template names the operands.
      if (args.size() != 2 || !CI->getType()->isIntegerTy(32))
        return false;
      bool swapped = IA->getAsmString().find("$2, $1") != std::string::npos ||
                     IA->getAsmString().find("$2,$1") != std::string::npos;
      Value *lo = swapped ? args[0] : args[1], *hi = swapped ? args[1] : args[0];
      Value *sv = PoisonValue::get(shadowType(to));
      sv = B.CreateInsertElement(sv, shadow(lo), uint64_t(0));
      sv = B.CreateInsertElement(sv, shadow(hi), uint64_t(1));
      S = sv;
      setShadow(CI, S);
      halfRegs[CI] = to;
      ++counts.asmOps;
      // Constants are rounded the same way on every run: nothing to log.
      if (isa<Constant>(lo) && isa<Constant>(hi))
        return true;
      Value *in = PoisonValue::get(FixedVectorType::get(Type::getFloatTy(Ctx), 2));
      in = B.CreateInsertElement(in, lo, uint64_t(0));
      in = B.CreateInsertElement(in, hi, uint64_t(1));
      // The record goes after everything built here (the shadow and the
      // input vector), which constants may have folded away entirely.
      recordNarrow(CI, &*std::prev(B.GetInsertPoint()), in, CI, Kind{op.fromDtype, 2}, to,
                   op.op);
      return true;
    }
    Value *src = args[0];
    Kind from{op.fromDtype, 1};
    if (!kindOf(src))
      halfRegs[src] = from;
    S = shadow(src);
    if (!S)
      return false;
    setShadow(CI, S);
    if (CI->getType()->isIntegerTy())
      halfRegs[CI] = to;
    ++counts.asmOps;
    // Narrowing (f32 -> f16/bf16, f16 -> bf16 and the like) is logged.
    bool narrowing = (to.dtype == KOSAN_DTYPE_F16 || to.dtype == KOSAN_DTYPE_BF16) &&
                     from.dtype != to.dtype;
    // Constants are rounded the same way on every run: nothing to log.
    if (narrowing && !isa<Constant>(src))
      recordNarrow(CI, CI, src, CI, from, to, op.op);
    return true;
  }
  case PtxHalfOp::Arith: {
    Kind k{op.dtype, op.lanes};
    SmallVector<Value *, 3> s;
    for (Value *A : args) {
      if (!kindOf(A))
        halfRegs[A] = k;
      s.push_back(shadow(A));
    }
    if (op.op == "add" && s.size() == 2)
      S = B.CreateFAdd(s[0], s[1]);
    else if (op.op == "sub" && s.size() == 2)
      S = B.CreateFSub(s[0], s[1]);
    else if (op.op == "mul" && s.size() == 2)
      S = B.CreateFMul(s[0], s[1]);
    else if (op.op == "fma" && s.size() == 3)
      S = B.CreateIntrinsic(Intrinsic::fma, {shadowType(k)}, s);
    else if (op.op == "neg" && s.size() == 1)
      S = B.CreateFNeg(s[0]);
    else if (op.op == "abs" && s.size() == 1)
      S = B.CreateUnaryIntrinsic(Intrinsic::fabs, s[0]);
    else if (op.op == "min" && s.size() == 2)
      S = B.CreateBinaryIntrinsic(Intrinsic::minnum, s[0], s[1]);
    else if (op.op == "max" && s.size() == 2)
      S = B.CreateBinaryIntrinsic(Intrinsic::maxnum, s[0], s[1]);
    if (!S)
      return false;
    halfRegs[CI] = k;
    setShadow(CI, S);
    ++counts.asmOps;
    ++counts.shadowed;
    checkNonfinite(CI, afterOf(S, CI), CI, args,
                   (op.op + "." + dtypeShortName(op.dtype) + (op.lanes == 2 ? "x2" : "")));
    return true;
  }
  case PtxHalfOp::Exp:
  case PtxHalfOp::Exp2: {
    if (args.size() != 1 || !CI->getType()->isIntegerTy(16))
      return false;
    Kind k{op.dtype, 1};
    if (!kindOf(args[0]))
      halfRegs[args[0]] = k;
    S = unaryShadow(B, op.kind == PtxHalfOp::Exp ? "exp" : "exp2", shadow(args[0]), k);
    if (!S)
      return false;
    halfRegs[CI] = k;
    setShadow(CI, S);
    ++counts.asmOps;
    ++counts.shadowed;
    checkNonfinite(CI, afterOf(S, CI), CI, args, op.op);
    return true;
  }
  case PtxHalfOp::Pack: {
    Kind k = halfRegs.lookup(CI);
    if (!k || args.size() != 2)
      return false;
    Kind lane{k.dtype, 1};
    for (Value *A : args)
      if (!kindOf(A))
        halfRegs[A] = lane;
    Value *sv = PoisonValue::get(shadowType(k));
    sv = B.CreateInsertElement(sv, shadow(args[0]), uint64_t(0));
    sv = B.CreateInsertElement(sv, shadow(args[1]), uint64_t(1));
    setShadow(CI, sv);
    ++counts.asmOps;
    return true;
  }
  case PtxHalfOp::Unpack: {
    // {i16, i16} from an i32: the extractvalues take the lanes' shadows.
    if (args.size() != 1 || !kindOf(args[0]))
      return false;
    Kind k = kindOf(args[0]);
    Value *s = shadow(args[0]);
    for (User *U : CI->users())
      if (auto *EV = dyn_cast<ExtractValueInst>(U))
        if (EV->getNumIndices() == 1 && EV->getIndices()[0] < 2) {
          IRBuilder<> EB(EV->getNextNode());
          halfRegs[EV] = Kind{k.dtype, 1};
          setShadow(EV, EB.CreateExtractElement(s, uint64_t(EV->getIndices()[0])));
        }
    ++counts.asmOps;
    return true;
  }
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Root causes
//===----------------------------------------------------------------------===//

Value *Instrumenter::tagOf(Value *V) {
  if (Value *T = tags.lookup(V))
    return T;
  // {i16, i16} out of an unpacking template: the packed register's tag.
  if (auto *EV = dyn_cast<ExtractValueInst>(V))
    if (auto *CI = dyn_cast<CallInst>(EV->getAggregateOperand());
        CI && CI->isInlineAsm() && CI->arg_size() == 1)
      return tagOf(CI->getArgOperand(0));
  return ConstantInt::get(I32, 0);
}

// x (a double) rounded to dtype and back: what dtype holds of it.
Value *Instrumenter::roundTo(IRBuilder<> &B, Value *x, uint32_t dtype) {
  Type *T = nullptr;
  switch (dtype) {
  case KOSAN_DTYPE_F32: T = Type::getFloatTy(Ctx); break;
  case KOSAN_DTYPE_F16: T = Type::getHalfTy(Ctx); break;
  case KOSAN_DTYPE_BF16: T = Type::getBFloatTy(Ctx); break;
  default: return nullptr;
  }
  return B.CreateFPExt(B.CreateFPTrunc(x, T), F64);
}

// The tag of I's result. onRounded: I's operation in its own type on its
// operands' shadows rounded to that type (Herbgrind's local error is its
// distance from the exact result S). When that local error is at least an
// eighth of the result's actual error, I introduced the error and its site
// becomes the cause (unless an operand's cause had a larger local error):
// its own rounding, or a cancellation of operands whose errors were a few
// of their ULPs, as rounding them gives. Otherwise the error came with the
// operands, from an operation that erred far more than rounding (a fast
// approximation, a narrowing), and so does the cause.
Value *Instrumenter::localTag(IRBuilder<> &B, Instruction *I, Kind k, Value *S,
                              Value *onRounded, Value *inherited) {
  auto it = opSites.find(I);
  if (!onRounded || it == opSites.end() || it->second >= (1u << KOSAN_PREC_CAUSE_SITE_BITS))
    return inherited;
  Value *actual = toDouble(B, I, k);
  Value *err = B.CreateUnaryIntrinsic(Intrinsic::fabs, B.CreateFSub(actual, S));
  Value *localDiff = B.CreateFSub(onRounded, S);
  Value *local = B.CreateUnaryIntrinsic(Intrinsic::fabs, localDiff);
  Value *introduced =
      B.CreateAnd(B.CreateFCmpOGE(B.CreateFMul(local, ConstantFP::get(F64, 8.0)), err),
                  B.CreateFCmpONE(local, ConstantFP::get(F64, 0.0)), "kosan.introduced");
  // The exponent fields of the local error and of S, their signs masked
  // off (the local error's from the difference itself: its magnitude,
  // fabs, then stays a modifier of the compares and is never computed on
  // its own). Their difference plus the bias lies in [1, 4095], the code's
  // range, by construction: no clamp. The fields stay where they are in
  // the high word (bits 20-30), which is where the code goes in the key,
  // above the site: key = field(local) - field(S) + (bias << 20 | site),
  // two masks and one three-operand add (modulo 2^32, exact in that range).
  static_assert(KOSAN_PREC_CAUSE_BIAS == 2048 && KOSAN_PREC_CAUSE_CODE_BITS == 12 &&
                    KOSAN_PREC_CAUSE_SITE_BITS == 20,
                "the cause code holds the difference of two fp64 exponent fields, in place");
  auto expField = [&](Value *d) {
    Value *hi = B.CreateTrunc(B.CreateLShr(B.CreateBitCast(d, I64), 32), I32);
    return B.CreateAnd(hi, 0x7ff00000);
  };
  Value *key = B.CreateAdd(
      B.CreateSub(expField(localDiff), expField(S)),
      ConstantInt::get(I32, (uint32_t(KOSAN_PREC_CAUSE_BIAS) << KOSAN_PREC_CAUSE_SITE_BITS) |
                                it->second),
      "kosan.local");
  Value *mine = B.CreateBinaryIntrinsic(Intrinsic::umax, key, inherited);
  return B.CreateSelect(introduced, mine, inherited, "kosan.cause");
}

// Tags I's result: the largest of its operands' tags, or its own local
// error (localTag) for the operations that round on their own: additions
// and subtractions (where cancellation shows), fused multiply-adds, the
// half and bf16 templates, the fast approximations, narrowing conversions.
void Instrumenter::tagOp(Instruction *I) {
  Value *S = shadows.lookup(I);
  if (!S || exact.count(I) || tags.count(I) || isa<ExtractValueInst>(I))
    return;
  if (auto *P = dyn_cast<PHINode>(I)) {
    PHINode *TP = PHINode::Create(I32, P->getNumIncomingValues(), P->getName() + ".cause");
    TP->insertAfter(cast<Instruction>(S));
    tags[P] = TP;
    tagPhis.push_back({P, TP});
    return;
  }
  Kind k = kindOf(I);
  if (!k)
    return;
  Instruction *at = afterOf(S, I);
  // After the shadows of the operands of a template that the shadow
  // itself did not need (an unpack's extractvalues are built later).
  IRBuilder<> B(at->getNextNode());
  B.SetCurrentDebugLocation(I->getDebugLoc());
  if (auto *SI = dyn_cast<SelectInst>(I)) {
    tags[I] = B.CreateSelect(SI->getCondition(), tagOf(SI->getTrueValue()),
                             tagOf(SI->getFalseValue()));
    return;
  }
  SmallVector<Value *, 4> ops;
  if (auto *CI = dyn_cast<CallInst>(I))
    ops.append(CI->arg_begin(), CI->arg_end());
  else
    ops.append(I->op_begin(), I->op_end());
  Value *inherited = ConstantInt::get(I32, 0);
  SmallVector<Value *, 3> raw; // the operands' shadows
  // Only operations with a local error of their own (and a site) round.
  bool scalar = k.lanes == 1 && k.dtype != KOSAN_DTYPE_F64 && opSites.count(I);
  if (auto *BO = dyn_cast<BinaryOperator>(I))
    scalar = scalar && (BO->getOpcode() == Instruction::FAdd ||
                        BO->getOpcode() == Instruction::FSub);
  for (Value *O : ops) {
    if (!kindOf(O))
      continue;
    Value *T = tagOf(O);
    if (!(isa<ConstantInt>(T) && cast<ConstantInt>(T)->isZero()))
      inherited = isa<ConstantInt>(inherited) && cast<ConstantInt>(inherited)->isZero()
                      ? T
                      : B.CreateBinaryIntrinsic(Intrinsic::umax, inherited, T);
    if (scalar)
      if (Value *OS = shadows.lookup(O); OS && !OS->getType()->isVectorTy())
        raw.push_back(OS);
  }
  Value *onRounded = nullptr;
  if (scalar && raw.size() == ops.size()) {
    // The operands' shadows rounded to k's type, where needed.
    SmallVector<Value *, 3> rounded;
    auto roundOperands = [&] {
      for (Value *R : raw)
        rounded.push_back(roundTo(B, R, k.dtype));
    };
    auto *BO = dyn_cast<BinaryOperator>(I);
    auto *CI = dyn_cast<CallInst>(I);
    Function *callee = CI ? CI->getCalledFunction() : nullptr;
    StringRef name = callee ? callee->getName() : "";
    bool isFma = callee && raw.size() == 3 &&
                 (callee->getIntrinsicID() == Intrinsic::fma ||
                  callee->getIntrinsicID() == Intrinsic::fmuladd ||
                  name.starts_with("llvm.nvvm.fma.rn"));
    bool isAdd = BO && (BO->getOpcode() == Instruction::FAdd ||
                        BO->getOpcode() == Instruction::FSub) && raw.size() == 2;
    // An f32 addition, subtraction or fma: the operation itself, in f32,
    // on the operands' shadows rounded to f32 (an operand whose shadow is
    // its own value, loaded or passed in, is that value: no conversion),
    // widened once. That is op_T(round_T(shadows)) by definition; the fp64
    // operation rounded to f32 gives the same bits for additions (fp64
    // holds an f32 sum to within innocuous double rounding) and for fmas
    // but where fp64's rounding lands on an f32 tie. One f32 instruction
    // where there were an fp64 one and two conversions (matmul's tile loop:
    // two of the seven conversions per fma). The real operation's flags go
    // with it, so that where it is the very same operation (operands the
    // real one has) merging the two changes nothing of the real one.
    if ((isAdd || isFma || (callee && raw.size() == 2 &&
                            name.starts_with("llvm.nvvm.add.rn"))) &&
        k.dtype == KOSAN_DTYPE_F32 && I->getType()->isFloatTy()) {
      SmallVector<Value *, 3> narrow;
      for (unsigned i = 0; i < raw.size(); ++i)
        narrow.push_back(exact.count(ops[i]) && ops[i]->getType()->isFloatTy()
                             ? ops[i]
                             : B.CreateFPTrunc(raw[i], I->getType()));
      Value *v = isAdd   ? B.CreateBinOp(BO->getOpcode(), narrow[0], narrow[1])
                 : isFma ? B.CreateIntrinsic(Intrinsic::fma, {I->getType()}, narrow)
                         : B.CreateCall(callee, narrow);
      if (auto *VI = dyn_cast<Instruction>(v); VI && isa<FPMathOperator>(VI))
        VI->copyFastMathFlags(I);
      onRounded = B.CreateFPExt(v, F64);
    } else if (isAdd) {
      roundOperands();
      onRounded = roundTo(B, B.CreateBinOp(BO->getOpcode(), rounded[0], rounded[1]), k.dtype);
    } else if (isFma) {
      roundOperands();
      onRounded = roundTo(B, B.CreateIntrinsic(Intrinsic::fma, {F64}, rounded), k.dtype);
    } else if (callee && raw.size() == 2 && name.starts_with("llvm.nvvm.add.rn")) {
      roundOperands();
      onRounded = roundTo(B, B.CreateFAdd(rounded[0], rounded[1]), k.dtype);
    } else if (callee && k.dtype == KOSAN_DTYPE_F32 &&
               ((name.starts_with("llvm.nvvm.") &&
                 (name.contains(".approx") || name.starts_with("llvm.nvvm.div.full"))) ||
                !fastIntrinsicName(*CI).empty())) {
      // A fast approximation (or a math intrinsic allowed to be one, afn):
      // itself, on its rounded operands.
      SmallVector<Value *, 2> args;
      for (Value *R : raw)
        args.push_back(B.CreateFPTrunc(R, I->getType()));
      CallInst *again = B.CreateCall(callee, args);
      if (isa<FPMathOperator>(again))
        again->copyFastMathFlags(CI);
      onRounded = B.CreateFPExt(again, F64);
    } else if (CI && CI->isInlineAsm()) {
      PtxHalfOp op =
          parsePtxHalfOp(cast<InlineAsm>(CI->getCalledOperand())->getAsmString());
      if (op.kind == PtxHalfOp::Arith && op.lanes == 1) {
        roundOperands();
        Value *v = nullptr;
        if (op.op == "add" && rounded.size() == 2)
          v = B.CreateFAdd(rounded[0], rounded[1]);
        else if (op.op == "sub" && rounded.size() == 2)
          v = B.CreateFSub(rounded[0], rounded[1]);
        else if (op.op == "mul" && rounded.size() == 2)
          v = B.CreateFMul(rounded[0], rounded[1]);
        else if (op.op == "fma" && rounded.size() == 3)
          v = B.CreateIntrinsic(Intrinsic::fma, {F64}, rounded);
        if (v)
          onRounded = roundTo(B, v, k.dtype);
      } else if (op.kind == PtxHalfOp::Convert && op.lanes == 1 && ops.size() == 1) {
        // A narrowing: the exact input rounded once.
        if (Value *in = shadows.lookup(ops[0]); in && !in->getType()->isVectorTy())
          onRounded = roundTo(B, in, k.dtype);
      }
    }
  }
  if (isa<FPTruncInst>(I) && scalar)
    onRounded = roundTo(B, S, k.dtype);
  tags[I] = localTag(B, I, k, S, onRounded, inherited);
}

// Whether ptr points into shared memory, as far as the IR tells.
bool Instrumenter::isSharedPointer(Value *ptr) {
  if (ptr->getType()->getPointerAddressSpace() == kSharedAS)
    return true;
  const Value *obj = getUnderlyingObject(ptr, 12);
  if (auto *GV = dyn_cast<GlobalVariable>(obj))
    return GV->getAddressSpace() == kSharedAS;
  if (auto *ASC = dyn_cast<AddrSpaceCastOperator>(obj))
    return ASC->getSrcAddressSpace() == kSharedAS;
  return false;
}

// Whether V (a narrowed value) is stored to shared memory: directly, or
// through the casts, selects, phis and packing templates that move it.
bool Instrumenter::feedsShared(Value *V) {
  SmallVector<Value *, 8> work{V};
  SmallPtrSet<Value *, 16> seen;
  while (!work.empty() && seen.size() < 64) {
    Value *X = work.pop_back_val();
    if (!seen.insert(X).second)
      continue;
    for (User *U : X->users()) {
      if (auto *ST = dyn_cast<StoreInst>(U)) {
        GlobalVariable *G;
        unsigned elem;
        if (ST->getValueOperand() == X && isSharedPointer(ST->getPointerOperand()) &&
            !sharedShadowFor(ST->getPointerOperand(), X, G, elem))
          return true;
      } else if (isa<CastInst>(U) || isa<InsertElementInst>(U) || isa<InsertValueInst>(U) ||
                 isa<ExtractValueInst>(U) ||
                 isa<PHINode>(U) || isa<SelectInst>(U) || isa<ShuffleVectorInst>(U)) {
        work.push_back(U);
      } else if (auto *CI = dyn_cast<CallInst>(U); CI && CI->isInlineAsm()) {
        if (parsePtxHalfOp(cast<InlineAsm>(CI->getCalledOperand())->getAsmString()).kind ==
            PtxHalfOp::Pack)
          work.push_back(U);
      }
    }
  }
  return false;
}

// The static __shared__ array ptr points into, as far as the IR tells.
GlobalVariable *Instrumenter::sharedArrayOf(Value *ptr) {
  const Value *obj = getUnderlyingObject(ptr, 12);
  if (auto *ASC = dyn_cast<AddrSpaceCastOperator>(obj))
    obj = getUnderlyingObject(ASC->getPointerOperand(), 12);
  auto *G = dyn_cast<GlobalVariable>(const_cast<Value *>(obj));
  if (!G || G->getAddressSpace() != kSharedAS || G->isDeclaration() ||
      DL.getTypeAllocSize(G->getValueType()) == 0)
    return nullptr;
  return G;
}

// Whether V, stored to shared memory, may differ from its shadow: not a
// constant, a parameter or a value loaded from memory without a shadow (or
// such a value widened), which come back from shared memory as exact as
// they went in.
bool Instrumenter::mayCarryError(Value *V, unsigned depth) {
  if (isa<Constant>(V) || isa<Argument>(V))
    return false;
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    unsigned elem;
    GlobalVariable *G = sharedArrayOf(LI->getPointerOperand());
    return (G && shared.find(G, elem)) || shadowSlotFor(LI->getPointerOperand());
  }
  if (depth > 4)
    return true;
  if (isa<FPExtInst>(V) || isa<BitCastInst>(V) || isa<UnaryOperator>(V))
    return mayCarryError(cast<Instruction>(V)->getOperand(0), depth + 1);
  // Operations that pick one of their operands, or its magnitude: exact.
  if (auto *II = dyn_cast<IntrinsicInst>(V))
    switch (II->getIntrinsicID()) {
    case Intrinsic::maxnum: case Intrinsic::minnum: case Intrinsic::maximum:
    case Intrinsic::minimum: case Intrinsic::fabs:
      return any_of(II->args(), [&](Value *A) { return mayCarryError(A, depth + 1); });
    default:
      break;
    }
  // A loaded value or a constant, chosen (a tile's padding: in range ?
  // x[i] : 0.0f).
  if (auto *SI = dyn_cast<SelectInst>(V))
    return mayCarryError(SI->getTrueValue(), depth + 1) ||
           mayCarryError(SI->getFalseValue(), depth + 1);
  if (auto *P = dyn_cast<PHINode>(V))
    return P->getNumIncomingValues() > 4 ||
           any_of(P->incoming_values(), [&](Value *In) { return mayCarryError(In, depth + 1); });
  if (auto *CI = dyn_cast<CallInst>(V); CI && CI->isInlineAsm() && CI->arg_size() == 1) {
    PtxHalfOp op = parsePtxHalfOp(cast<InlineAsm>(CI->getCalledOperand())->getAsmString());
    if (op.kind == PtxHalfOp::Convert && op.lanes == 1 &&
        (op.dtype == KOSAN_DTYPE_F32 || op.dtype == KOSAN_DTYPE_F64))
      return mayCarryError(CI->getArgOperand(0), depth + 1);
  }
  return true;
}

// The shared arrays of F that get shadows: those a value that may carry
// error is stored to, and, through them, those such arrays' values are
// copied to.
void Instrumenter::planSharedShadows(ArrayRef<Instruction *> order) {
  for (bool changed = true; changed;) {
    changed = false;
    for (Instruction *I : order) {
      auto *ST = dyn_cast<StoreInst>(I);
      if (!ST || ST->hasMetadata(LLVMContext::MD_nosanitize))
        continue;
      Value *V = ST->getValueOperand();
      Kind k = kindOf(V);
      if (!k || k.lanes != 1 ||
          (k.dtype != KOSAN_DTYPE_F32 && k.dtype != KOSAN_DTYPE_F16 &&
           k.dtype != KOSAN_DTYPE_BF16))
        continue;
      unsigned elem = k.dtype == KOSAN_DTYPE_F32 ? 4 : 2, had;
      GlobalVariable *G = sharedArrayOf(ST->getPointerOperand());
      if (!G || shared.find(G, had) || DL.getTypeStoreSize(V->getType()) != elem ||
          !mayCarryError(V))
        continue;
      if (shared.make(G, elem))
        changed = true;
    }
  }
}

// The shadow array of the shared element ptr points to, for V (the value
// stored or loaded there): its array G and element size, or nullptr when
// ptr's array has none or V is not one of its elements.
GlobalVariable *Instrumenter::sharedShadowFor(Value *ptr, Value *V, GlobalVariable *&G,
                                              unsigned &elem) {
  unsigned as = ptr->getType()->getPointerAddressSpace();
  if (as != kSharedAS && as != addrspace::Generic)
    return nullptr;
  G = sharedArrayOf(ptr);
  GlobalVariable *SG = G ? shared.find(G, elem) : nullptr;
  if (!SG)
    return nullptr;
  Kind k = kindOf(V);
  if (!k || k.lanes != 1 || (elem == 4) != (k.dtype == KOSAN_DTYPE_F32) ||
      DL.getTypeStoreSize(V->getType()) != elem)
    return nullptr;
  return SG;
}

// The index of ptr's element in G, which indexes its shadow SG; indices out
// of G's range (a bug of the program's own) take SG's last element.
Value *Instrumenter::sharedShadowIndex(IRBuilder<> &B, Value *ptr, GlobalVariable *G,
                                       GlobalVariable *SG, unsigned elem) {
  Type *IntPtr = DL.getIntPtrType(ptr->getType());
  Constant *base = G;
  if (ptr->getType()->getPointerAddressSpace() != kSharedAS)
    base = ConstantExpr::getAddrSpaceCast(G, ptr->getType());
  // Offsets within shared memory fit 32 bits: 32-bit arithmetic from here.
  Value *offset = B.CreateTrunc(
      B.CreateSub(B.CreatePtrToInt(ptr, IntPtr), B.CreatePtrToInt(base, IntPtr)), I32);
  Value *index = B.CreateLShr(offset, elem == 4 ? 2 : 1);
  uint64_t last = cast<ArrayType>(SG->getValueType())->getNumElements() - 1;
  return B.CreateBinaryIntrinsic(Intrinsic::umin, index, ConstantInt::get(I32, last),
                                 nullptr, "kosan.shared_index");
}

// V's bits, as the i32 a shadow element keeps to recognise its value.
Value *Instrumenter::bitsOf(IRBuilder<> &B, Value *V) {
  Type *T = V->getType();
  if (T->isFloatingPointTy())
    V = B.CreateBitCast(V, B.getIntNTy(T->getPrimitiveSizeInBits()));
  return B.CreateZExtOrTrunc(V, I32);
}

bool Instrumenter::storeSharedShadow(StoreInst *ST) {
  Value *V = ST->getValueOperand(), *ptr = ST->getPointerOperand();
  GlobalVariable *G;
  unsigned elem;
  GlobalVariable *SG = sharedShadowFor(ptr, V, G, elem);
  if (!SG)
    return false;
  IRBuilder<> B(ST);
  B.SetCurrentDebugLocation(ST->getDebugLoc());
  Value *index = sharedShadowIndex(B, ptr, G, SG, elem);
  Value *fields[] = {shadow(V), tagOf(V), bitsOf(B, V)};
  const Align aligns[] = {Align(8), Align(4), Align(4)};
  for (unsigned f = 0; f < 3; ++f) {
    Value *at = B.CreateInBoundsGEP(SG->getValueType(), SG,
                                    {B.getInt32(0), index, B.getInt32(f)});
    B.CreateAlignedStore(fields[f], at, aligns[f])
        ->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(Ctx, {}));
  }
  ++counts.sharedStores;
  return true;
}

bool Instrumenter::loadSharedShadow(LoadInst *LI) {
  Value *ptr = LI->getPointerOperand();
  GlobalVariable *G;
  unsigned elem;
  GlobalVariable *SG = sharedShadowFor(ptr, LI, G, elem);
  if (!SG)
    return false;
  Kind k = kindOf(LI);
  IRBuilder<> B(LI->getNextNode());
  B.SetCurrentDebugLocation(LI->getDebugLoc());
  Value *index = sharedShadowIndex(B, ptr, G, SG, elem);
  Type *types[] = {F64, I32, I32};
  const Align aligns[] = {Align(8), Align(4), Align(4)};
  Value *fields[3];
  for (unsigned f = 0; f < 3; ++f) {
    Value *at = B.CreateInBoundsGEP(SG->getValueType(), SG,
                                    {B.getInt32(0), index, B.getInt32(f)});
    LoadInst *L = B.CreateAlignedLoad(types[f], at, aligns[f]);
    L->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(Ctx, {}));
    fields[f] = L;
  }
  // The shadow holds only while the element still has the value it was
  // stored with.
  Value *valid = B.CreateICmpEQ(fields[2], bitsOf(B, LI), "kosan.shadow_valid");
  setShadow(LI, B.CreateSelect(valid, fields[0], toDouble(B, LI, k), "kosan.shared_shadow"));
  tags[LI] = B.CreateSelect(valid, fields[1], ConstantInt::get(I32, 0), "kosan.shared_cause");
  ++counts.sharedLoads;
  return true;
}

void Instrumenter::visit(Instruction *I) {
  if (I->hasMetadata(LLVMContext::MD_nosanitize) || I->isTerminator())
    return;
  if (auto *P = dyn_cast<PHINode>(I)) {
    Kind k = kindOf(P);
    if (!k)
      return;
    PHINode *SP = PHINode::Create(shadowType(k), P->getNumIncomingValues(),
                                  P->getName() + ".shadow");
    SP->insertAfter(P);
    setShadow(P, SP);
    phis.push_back({P, SP});
    return;
  }
  IRBuilder<> B(I->getNextNode());
  B.SetCurrentDebugLocation(I->getDebugLoc());
  if (auto *BO = dyn_cast<BinaryOperator>(I)) {
    Kind k = fpKind(BO->getType());
    if (!k)
      return;
    Value *a = shadow(BO->getOperand(0)), *b = shadow(BO->getOperand(1));
    // The f32 constant a fast intrinsic scales by (__expf's log2(e),
    // __logf's ln(2)) is exact in the shadow: the intrinsic's shadow is then
    // the exact function of its argument's, and the constant's rounding
    // counts as the intrinsic's own error.
    if (BO->getOpcode() == Instruction::FMul)
      for (unsigned i = 0; i < 2; ++i) {
        std::optional<double> exact = exactFastConstant(BO->getOperand(i));
        if (!exact)
          continue;
        bool ofLog = isNvvmCall(BO->getOperand(1 - i), "llvm.nvvm.lg2.approx");
        bool toExp = any_of(BO->users(),
                            [](User *U) { return isNvvmCall(U, "llvm.nvvm.ex2.approx"); });
        if (ofLog || toExp)
          (i == 0 ? a : b) = ConstantFP::get(F64, *exact);
      }
    Value *S = BO->getOpcode() == Instruction::FDiv ? divide(B, a, b)
                                                    : B.CreateBinOp(BO->getOpcode(), a, b);
    setShadow(BO, S);
    ++counts.shadowed;
    // A finite value scaled down by a constant (x * 0.5, x / 7) stays
    // finite: no birth to test for.
    auto constantMagnitude = [&](Value *V) -> std::optional<double> {
      auto *CF = dyn_cast<ConstantFP>(V);
      if (!CF || !CF->getValueAPF().isFiniteNonZero())
        return std::nullopt;
      APFloat c = CF->getValueAPF();
      bool lost;
      c.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return std::fabs(c.convertToDouble());
    };
    bool scalesDown = false;
    if (BO->getOpcode() == Instruction::FMul)
      for (Value *O : BO->operands())
        if (std::optional<double> c = constantMagnitude(O); c && *c <= 1.0)
          scalesDown = true;
    if (BO->getOpcode() == Instruction::FDiv)
      if (std::optional<double> c = constantMagnitude(BO->getOperand(1)); c && *c >= 1.0)
        scalesDown = true;
    if (!scalesDown)
      checkNonfinite(BO, afterOf(S, BO), BO, {BO->getOperand(0), BO->getOperand(1)},
                     BO->getOpcodeName());
  } else if (auto *UO = dyn_cast<UnaryOperator>(I)) {
    if (UO->getOpcode() == Instruction::FNeg && fpKind(UO->getType()))
      setShadow(UO, B.CreateFNeg(shadow(UO->getOperand(0))));
  } else if (auto *FE = dyn_cast<FPExtInst>(I)) {
    setShadow(FE, shadow(FE->getOperand(0)));
  } else if (auto *FT = dyn_cast<FPTruncInst>(I)) {
    Value *S = shadow(FT->getOperand(0));
    setShadow(FT, S);
    if (!isa<Constant>(FT->getOperand(0)))
      recordNarrow(FT, FT, FT->getOperand(0), FT, fpKind(FT->getOperand(0)->getType()),
                 fpKind(FT->getType()), "fptrunc");
  } else if (isa<SIToFPInst>(I) || isa<UIToFPInst>(I)) {
    Kind k = fpKind(I->getType());
    setShadow(I, isa<SIToFPInst>(I) ? B.CreateSIToFP(I->getOperand(0), shadowType(k))
                                    : B.CreateUIToFP(I->getOperand(0), shadowType(k)));
  } else if (auto *SI = dyn_cast<SelectInst>(I)) {
    if (!kindOf(SI) || SI->getCondition()->getType()->isVectorTy())
      return;
    setShadow(SI, B.CreateSelect(SI->getCondition(), shadow(SI->getTrueValue()),
                                 shadow(SI->getFalseValue())));
  } else if (auto *EE = dyn_cast<ExtractElementInst>(I)) {
    if (fpKind(EE->getType()))
      setShadow(EE, B.CreateExtractElement(shadow(EE->getVectorOperand()),
                                           EE->getIndexOperand()));
  } else if (auto *IE = dyn_cast<InsertElementInst>(I)) {
    if (fpKind(IE->getType()))
      setShadow(IE, B.CreateInsertElement(shadow(IE->getOperand(0)),
                                          shadow(IE->getOperand(1)), IE->getOperand(2)));
  } else if (auto *SV = dyn_cast<ShuffleVectorInst>(I)) {
    if (fpKind(SV->getType()))
      setShadow(SV, B.CreateShuffleVector(shadow(SV->getOperand(0)),
                                          shadow(SV->getOperand(1)),
                                          SV->getShuffleMask()));
  } else if (auto *CI = dyn_cast<CallInst>(I)) {
    if (CI->isInlineAsm())
      handleAsm(CI, B);
    else if (CI->getCalledFunction() && CI->getCalledFunction()->isIntrinsic())
      handleIntrinsic(CI, B);
  } else if (auto *LI = dyn_cast<LoadInst>(I)) {
    if (AllocaInst *slotAI = shadowSlotFor(LI->getPointerOperand()); slotAI && fpKind(LI->getType()))
      setShadow(LI, B.CreateAlignedLoad(F64, slotAI, Align(8)));
    else
      loadSharedShadow(LI);
  } else if (auto *ST = dyn_cast<StoreInst>(I)) {
    Value *V = ST->getValueOperand();
    if (!kindOf(V))
      return;
    if (storeSharedShadow(ST))
      return;
    if (AllocaInst *slotAI = shadowSlotFor(ST->getPointerOperand())) {
      IRBuilder<> SB(ST);
      SB.CreateAlignedStore(shadow(V), slotAI, Align(8));
    } else if (isGlobalPointer(ST->getPointerOperand())) {
      recordValue(ST, V, KOSAN_ACCESS_PREC_STORE, "store");
    }
  } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
    if (RMW->isFloatingPointOperation() && isGlobalPointer(RMW->getPointerOperand()))
      recordValue(RMW, RMW->getValOperand(), KOSAN_ACCESS_PREC_ATOMIC,
                  AtomicRMWInst::getOperationName(RMW->getOperation()));
  }
}

PrecisionCounts Instrumenter::run() {
  // The module's slot base (KOSAN_PREC_BASE_SYMBOL), written by the host.
  GlobalVariable *baseVar = M.getNamedGlobal(KOSAN_PREC_BASE_SYMBOL);
  if (!baseVar) {
    // Until the host writes the module's base, slot indices are out of
    // range and the device records nothing (a module first launched while
    // a stream is captured cannot be written to).
    baseVar = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                                 ConstantInt::get(I32, 0x80000000u), KOSAN_PREC_BASE_SYMBOL, nullptr,
                                 GlobalValue::NotThreadLocal, /*AddressSpace=*/1,
                                 /*isExternallyInitialized=*/true);
    baseVar->setAlignment(Align(4));
    appendToUsed(M, {baseVar});
  }
  {
    IRBuilder<> B(&*entryPoint());
    LoadInst *L = B.CreateAlignedLoad(I32, baseVar, Align(4), "kosan.prec_base");
    L->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(Ctx, {}));
    base = L;
  }

  // Tallies need registers for their fields (kept by SROA only where
  // allocas live in the generic address space: NVPTX).
  if (ClPrecTally && DL.getAllocaAddrSpace() == 0) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (BasicBlock &BB : F)
      if (LI.getLoopFor(&BB))
        for (Instruction &I : BB)
          if (isa<StoreInst>(I) || isa<AtomicRMWInst>(I))
            loopSinks.insert(&I);
  }

  SmallVector<Instruction *, 128> order;
  ReversePostOrderTraversal<Function *> RPOT(&F);
  for (BasicBlock *BB : RPOT)
    for (Instruction &I : *BB)
      if (&I != base)
        order.push_back(&I);
  markHalfRegisters(order, halfRegs);
  planSharedShadows(order);

  for (Instruction *I : order) {
    visit(I);
    tagOp(I);
  }

  flushChecks();
  flushTallies();

  // Shadow phis: the shadows of the incoming values, at the end of the
  // incoming blocks (the blocks as they are now, after any splitting).
  for (auto [P, SP] : phis)
    for (unsigned i = 0; i < P->getNumIncomingValues(); ++i) {
      Value *in = P->getIncomingValue(i);
      Value *s = shadow(in);
      if (!s)
        s = PoisonValue::get(SP->getType());
      SP->addIncoming(s, P->getIncomingBlock(i));
    }
  for (auto [P, TP] : tagPhis)
    for (unsigned i = 0; i < P->getNumIncomingValues(); ++i)
      TP->addIncoming(tagOf(P->getIncomingValue(i)), P->getIncomingBlock(i));
  return counts;
}

} // namespace

PrecisionCounts instrumentPrecision(Function &F, Value *state, Value *launchId,
                                    SiteTable &sites, SharedValueShadows &shared) {
  return Instrumenter(F, state, launchId, sites, shared).run();
}

} // namespace kosan

//===- passes/checks/order/OrderSanitizer.cpp - Order fingerprints ----------------------===//
//
// See OrderSanitizer.h. One function at a time, in reverse post-order: each
// floating-point instruction gets its fingerprint (an i64, or a vector of
// them) right after it, phis get fingerprint phis (filled in at the end).
// The hashing is inline integer arithmetic, the same as include/kosan/
// order.h computes on the host; stores and atomics call the device runtime
// (runtime/device/order.cpp), which writes a warp's records side by side.
//
//===----------------------------------------------------------------------===//
#include "checks/order/OrderSanitizer.h"
#include "DeviceRuntime.h"
#include "core/InsertionPoints.h"
#include "core/KernelSummary.h"
#include "core/Provenance.h"
#include "core/PtxHalf.h"
#include "target/Target.h"

#include "kosan/abi.h"
#include "kosan/order.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/Utils/Local.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace kosan {

namespace {
constexpr unsigned kSharedAS = addrspace::Shared, kLocalAS = addrspace::Local;
// What every launch may use without opting in to more.
} // namespace

// One fingerprint per element of a shared array of floats (8, 4 or 2 bytes
// each); per 4 bytes of anything else.
static unsigned granuleOf(Type *arrayType, const DataLayout &DL) {
  Type *E = arrayType;
  while (E->isArrayTy())
    E = E->getArrayElementType();
  if (!floatDtypeOf(E))
    return 4;
  uint64_t size = DL.getTypeAllocSize(E);
  return size >= 8 ? 8 : size >= 4 ? 4 : 2;
}

SharedShadows::SharedShadows(Module &M, uint64_t &budget) : M(M), budget(budget) {
  const DataLayout &DL = M.getDataLayout();
  unsigned smallest = 0;
  for (GlobalVariable &G : M.globals()) {
    if (G.getAddressSpace() != kSharedAS)
      continue;
    Type *T = G.getValueType();
    if (DL.getTypeAllocSize(T) == 0 && T->isArrayTy()) { // extern __shared__ T name[]
      unsigned g = granuleOf(T, DL);
      smallest = smallest ? std::min(smallest, g) : g;
    }
  }
  dynDeclared = smallest != 0;
  dynGranule = smallest ? smallest : 4;
}

GlobalVariable *SharedShadows::shadowOf(GlobalVariable *G, unsigned &granule) {
  auto it = shadows.find(G);
  if (it != shadows.end()) {
    granule = it->second.second;
    return it->second.first;
  }
  const DataLayout &DL = M.getDataLayout();
  uint64_t size = DL.getTypeAllocSize(G->getValueType());
  unsigned g = granuleOf(G->getValueType(), DL);
  uint64_t slots = (size + g - 1) / g;
  GlobalVariable *S = nullptr;
  if (size && slots * 8 <= budget) {
    budget -= slots * 8;
    auto *AT = ArrayType::get(Type::getInt64Ty(M.getContext()), slots);
    S = new GlobalVariable(M, AT, false, GlobalValue::InternalLinkage, UndefValue::get(AT),
                           G->getName() + ".kosan_fp", nullptr,
                           GlobalValue::NotThreadLocal, kSharedAS);
    S->setAlignment(Align(8));
  }
  shadows[G] = {S, g};
  granule = g;
  return S;
}

namespace {

uint64_t opCode(StringRef name) { return kosan_fp_op(name.str().c_str()); }

Instruction *noSanitize(Value *V) {
  auto *I = dyn_cast<Instruction>(V);
  if (I)
    I->setMetadata(LLVMContext::MD_nosanitize, MDNode::get(I->getContext(), {}));
  return I;
}

class Instrumenter {
public:
  Instrumenter(Function &F, const OrderContext &ctx, SiteTable &sites, SharedShadows &shared)
      : F(F), M(*F.getParent()), DL(M.getDataLayout()), Ctx(F.getContext()), ctx(ctx),
        sites(sites), shared(shared), PA(DL, ctx.kernel ? &F : nullptr),
        I32(Type::getInt32Ty(Ctx)), I64(Type::getInt64Ty(Ctx)) {}
  OrderCounts run();

private:
  // The fingerprint type of a value of type T: i64, or <N x i64>.
  Type *fpType(Type *T) {
    if (auto *V = dyn_cast<FixedVectorType>(T))
      return FixedVectorType::get(I64, V->getNumElements());
    return I64;
  }
  static bool isFP(Type *T) {
    return floatDtypeOf(T->getScalarType()) != KOSAN_DTYPE_UNKNOWN &&
           (T->isFloatingPointTy() || isa<FixedVectorType>(T));
  }
  // The halves an i16/i32 register holds (cuda_fp16.h/cuda_bf16.h keep
  // them in integer registers), or nothing.
  HalfKind halfOf(Value *V) {
    return V->getType()->isIntegerTy() ? halfRegs.lookup(V) : HalfKind{};
  }
  // The fingerprint type of V: fpType(V's type), or for a register of
  // halves i64 or <2 x i64>.
  Type *fpTypeOf(Value *V) {
    HalfKind h = halfOf(V);
    if (h && !isFP(V->getType()))
      return h.lanes == 1 ? I64 : FixedVectorType::get(I64, h.lanes);
    return fpType(V->getType());
  }
  Value *halfBits(IRBuilder<> &B, Value *V, HalfKind h);
  Constant *k(Type *T, uint64_t v) { return ConstantInt::get(T, v); }
  BasicBlock::iterator entryPoint();
  BasicBlock::iterator after(Value *V);
  Value *fp(Value *V);
  Value *constantFp(Constant *C);
  Value *contentOfBits(IRBuilder<> &B, Value *bits, uint32_t dtype);
  Value *labelByBits(IRBuilder<> &B, Value *V);
  Value *content(IRBuilder<> &B, Value *V);
  Value *scramble(IRBuilder<> &B, Value *x);
  bool parameterLeaf(IRBuilder<> &B, LoadInst *LI, const Provenance &p);
  Value *combine(IRBuilder<> &B, uint64_t op, Value *a, Value *b);
  uint64_t code(StringRef name) {
    uint64_t c = opCode(name);
    names.try_emplace(c, name.str());
    return c;
  }
  void logOp(IRBuilder<> &B, uint64_t op, Value *a, Value *b);
  Value *commutative(IRBuilder<> &B, uint64_t op, Value *a, Value *b);
  Value *fma(IRBuilder<> &B, uint64_t op, Value *a, Value *b, Value *c);
  Value *unary(IRBuilder<> &B, uint64_t op, Value *a) {
    return combine(B, op, a, k(a->getType(), KOSAN_FP_UNARY_SALT));
  }
  Value *leaf(IRBuilder<> &B, LoadInst *LI, unsigned arg, Value *offset);
  Value *sharedSlot(IRBuilder<> &B, Value *ptr, const Provenance &p, Align access);
  Value *offsetFrom(IRBuilder<> &B, Value *ptr, llvm::GlobalVariable *G);
  AllocaInst *shadowSlotFor(Value *ptr);
  bool handleIntrinsic(CallInst *CI, IRBuilder<> &B);
  bool handleHalfAsm(CallInst *CI, IRBuilder<> &B);
  void handleAsmAtomic(CallInst *CI);
  void handleLoad(LoadInst *LI, IRBuilder<> &B);
  void handleStore(StoreInst *SI);
  void handleAtomic(AtomicRMWInst *RMW);
  bool mayBeGlobal(Value *ptr, const Provenance &p);
  Value *whereOf(IRBuilder<> &B, Value *ptr, const Provenance &p, uint32_t &arg);
  // The launch's shadow of the output kernel parameter arg points to
  // (kosan_order_dense), read once at the clone's entry.
  struct DenseShadow {
    PHINode *shadow, *elements, *shift; // i64 each; placed by placeDenseShadows()
    uint64_t elementSize = 0;           // of the stores through it, 0 if they differ
  };
  DenseShadow &denseShadow(unsigned arg, uint64_t elementSize);
  void placeDenseShadows();
  void storeFingerprint(IRBuilder<> &B, Value *where, Value *fp, uint32_t arg,
                        uint64_t elementSize);
  FunctionCallee entry(StringRef name, Type *ret, ArrayRef<Type *> params) {
    return runtimeEntry(M, name, ret, params);
  }

  Function &F;
  Module &M;
  const DataLayout &DL;
  LLVMContext &Ctx;
  OrderContext ctx;
  SiteTable &sites;
  SharedShadows &shared;
  ProvenanceAnalysis PA;
  Type *I32, *I64;
  Value *valueLeaves = nullptr; // i1: the launch asked for value-labelled leaves
  DenseMap<Value *, Value *> fps;
  // i32/i64 registers holding a float's bits (bitcasts), which shuffles move.
  DenseMap<Value *, Value *> carried;
  // i16/i32 registers holding f16/bf16 values (core/PtxHalf.h).
  HalfRegisters halfRegs;
  DenseMap<AllocaInst *, AllocaInst *> shadowSlots;
  SmallVector<std::pair<PHINode *, PHINode *>, 8> phis;
  // By kernel parameter, in the order first used.
  SmallVector<std::pair<unsigned, DenseShadow>, 4> denseShadows;
  OrderCounts counts;
  // order-ops: the instruction whose fingerprint is being computed, the
  // operation names by code, and the site of each (instruction, operation).
  Instruction *current = nullptr;
  DenseMap<uint64_t, std::string> names;
  DenseMap<std::pair<Instruction *, uint64_t>, uint32_t> opSites;
};

BasicBlock::iterator Instrumenter::entryPoint() {
  return afterContext(F, {valueLeaves, ctx.dynSmem, ctx.flags, ctx.launchId, ctx.state});
}

BasicBlock::iterator Instrumenter::after(Value *V) {
  return afterDefinition(V, entryPoint());
}

Value *Instrumenter::scramble(IRBuilder<> &B, Value *x) {
  Type *T = x->getType();
  x = B.CreateMul(x, k(T, KOSAN_FP_LEAF_MUL));
  return B.CreateXor(x, B.CreateLShr(x, k(T, 29)));
}

Value *Instrumenter::combine(IRBuilder<> &B, uint64_t op, Value *a, Value *b) {
  Type *T = a->getType();
  if (ctx.logOps)
    logOp(B, op, a, b);
  Value *rot = B.CreateIntrinsic(Intrinsic::fshl, {T}, {a, a, k(T, KOSAN_FP_ROTATE)});
  return B.CreateMul(B.CreateXor(B.CreateXor(rot, b), k(T, op)), k(T, KOSAN_FP_MUL));
}

// order-ops: the operation goes to the log, one record per lane, with the
// site that names it.
void Instrumenter::logOp(IRBuilder<> &B, uint64_t op, Value *a, Value *b) {
  if (!current)
    return;
  auto [it, fresh] = opSites.try_emplace({current, op}, 0);
  if (fresh) {
    auto name = names.find(op);
    Type *VT = current->getType();
    uint32_t dtype = isFP(VT) ? floatDtypeOf(VT->getScalarType()) : halfOf(current).dtype;
    it->second = sites.add(*current, KOSAN_ACCESS_ORDER_OP, KOSAN_SPACE_GLOBAL, dtype,
                           name != names.end() ? StringRef(name->second) : StringRef("op"), -1);
  }
  FunctionCallee fn = entry(rt::OrderOp, Type::getVoidTy(Ctx), {I64, I64, I64, I64, I32});
  unsigned lanes = 1;
  if (auto *VT = dyn_cast<FixedVectorType>(a->getType()))
    lanes = VT->getNumElements();
  for (unsigned j = 0; j < lanes; ++j) {
    Value *x = lanes > 1 ? B.CreateExtractElement(a, uint64_t(j)) : a;
    Value *y = lanes > 1 ? B.CreateExtractElement(b, uint64_t(j)) : b;
    B.CreateCall(fn, {ctx.state, x, y, k(I64, op), k(I32, it->second)});
  }
  ++counts.loggedOps;
}

Value *Instrumenter::commutative(IRBuilder<> &B, uint64_t op, Value *a, Value *b) {
  Value *lt = B.CreateICmpULT(a, b);
  Value *lo = B.CreateSelect(lt, a, b);
  Value *hi = B.CreateSelect(lt, b, a);
  return combine(B, op, lo, hi);
}

// kosan_fp_fma: the product's fingerprint is the sum of its operands'
// (commutative, one add), the fma combines it with the addend's. In a
// chain acc = fma(x, y, acc) that is one combine per step, whose rotation
// falls on the fresh sum (the accumulator's would be folded into the
// previous step's multiply, at twice its cost).
Value *Instrumenter::fma(IRBuilder<> &B, uint64_t op, Value *a, Value *b, Value *c) {
  if (ctx.logOps)
    logOp(B, code("fma.mul"), a, b);
  return combine(B, op, B.CreateAdd(a, b), c);
}

// kosan_fp_content(bits, dtype), bits widened to i64 (or <N x i64>).
Value *Instrumenter::contentOfBits(IRBuilder<> &B, Value *bits, uint32_t dtype) {
  Type *T = bits->getType();
  return scramble(B, B.CreateXor(bits, k(T, KOSAN_FP_CONTENT_SALT ^ (uint64_t(dtype) << 56))));
}

// The label of the floating-point value V by its bits.
Value *Instrumenter::labelByBits(IRBuilder<> &B, Value *V) {
  Type *T = V->getType();
  Type *S = T->getScalarType();
  Type *IT = IntegerType::get(Ctx, S->getPrimitiveSizeInBits());
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    IT = FixedVectorType::get(IT, VT->getNumElements());
  return contentOfBits(B, B.CreateZExt(B.CreateBitCast(V, IT), fpType(T)), floatDtypeOf(S));
}

// A value of unknown origin: labelled by its bits, and counted.
Value *Instrumenter::content(IRBuilder<> &B, Value *V) {
  ++counts.contentLeaves;
  return labelByBits(B, V);
}

Value *Instrumenter::constantFp(Constant *C) {
  Type *T = C->getType();
  auto one = [&](Constant *E) -> uint64_t {
    uint32_t dtype = floatDtypeOf(E->getType());
    uint64_t bits = 0;
    if (auto *CF = dyn_cast<ConstantFP>(E))
      bits = CF->getValueAPF().bitcastToAPInt().getZExtValue();
    return kosan_fp_content(bits, dtype);
  };
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    SmallVector<Constant *, 8> lanes;
    for (unsigned i = 0; i < VT->getNumElements(); ++i) {
      Constant *E = C->getAggregateElement(i);
      lanes.push_back(ConstantInt::get(I64, E ? one(E) : 0));
    }
    return ConstantVector::get(lanes);
  }
  return ConstantInt::get(I64, one(C));
}

// The fingerprint of V: computed already, a constant, or labelled by V's
// bits right where V is defined (a value from outside what the pass follows:
// a parameter, a call's result, inline asm).
Value *Instrumenter::fp(Value *V) {
  if (Value *S = fps.lookup(V))
    return S;
  if (!isFP(V->getType())) {
    HalfKind h = halfOf(V);
    if (!h)
      return nullptr;
    Value *S;
    if (auto *C = dyn_cast<ConstantInt>(V)) {
      // One lane per 16 bits, folded.
      SmallVector<Constant *, 2> lanes;
      for (unsigned j = 0; j < h.lanes; ++j)
        lanes.push_back(ConstantInt::get(
            I64, kosan_fp_content((C->getZExtValue() >> (16 * j)) & 0xffff, h.dtype)));
      S = h.lanes == 1 ? lanes[0] : ConstantVector::get(lanes);
    } else if (isa<Constant>(V)) {
      S = Constant::getNullValue(fpTypeOf(V)); // undef, poison
    } else {
      IRBuilder<> B(&*after(V));
      ++counts.contentLeaves;
      S = contentOfBits(B, halfBits(B, V, h), h.dtype);
    }
    fps[V] = S;
    return S;
  }
  Value *S;
  if (auto *C = dyn_cast<Constant>(V)) {
    S = constantFp(C);
  } else {
    IRBuilder<> B(&*after(V));
    S = content(B, V);
  }
  fps[V] = S;
  return S;
}

// The bits of the halves in register V, widened to i64 (lane 0: the low 16
// bits, as mov.b32 {$0,$1} splits them).
Value *Instrumenter::halfBits(IRBuilder<> &B, Value *V, HalfKind h) {
  if (h.lanes == 1)
    return B.CreateZExt(B.CreateTrunc(V, B.getInt16Ty()), I64);
  auto *VT = FixedVectorType::get(B.getInt16Ty(), h.lanes);
  return B.CreateZExt(B.CreateBitCast(V, VT), FixedVectorType::get(I64, h.lanes));
}

// A value read from kernel parameter `arg` at byte offset `offset`:
// kosan_fp_leaf(arg, offset), or with value leaves kosan_fp_content(bits,
// dtype). Both scramble a word; the launch picks the word, and one scramble
// serves either.
Value *Instrumenter::leaf(IRBuilder<> &B, LoadInst *LI, unsigned arg, Value *offset) {
  Type *T = LI->getType();
  Type *FT = fpTypeOf(LI);
  // A register of halves: its lanes are 2-byte elements.
  HalfKind h = isFP(T) ? HalfKind{} : halfOf(LI);
  auto *VT = dyn_cast<FixedVectorType>(T);
  unsigned lanes = h ? h.lanes : VT ? VT->getNumElements() : 1;
  Value *off = offset;
  if (lanes > 1) {
    // Lane j sits j elements further.
    uint64_t elem = h ? 2 : DL.getTypeStoreSize(VT->getElementType());
    SmallVector<Constant *, 8> steps;
    for (unsigned j = 0; j < lanes; ++j)
      steps.push_back(ConstantInt::get(I64, j * elem));
    off = B.CreateAdd(B.CreateVectorSplat(lanes, offset), ConstantVector::get(steps));
  }
  Value *pos = B.CreateXor(off, k(FT, kosan_fp_arg_salt(arg)));
  uint32_t dtype;
  Value *bits;
  if (h) {
    dtype = h.dtype;
    bits = halfBits(B, LI, h);
  } else {
    Type *S = T->getScalarType();
    Type *IT = IntegerType::get(Ctx, S->getPrimitiveSizeInBits());
    if (VT)
      IT = FixedVectorType::get(IT, VT->getNumElements());
    dtype = floatDtypeOf(S);
    bits = B.CreateZExt(B.CreateBitCast(LI, IT), FT);
  }
  Value *val = B.CreateXor(bits, k(FT, KOSAN_FP_CONTENT_SALT ^ (uint64_t(dtype) << 56)));
  ++counts.leaves;
  Value *cond = valueLeaves;
  if (lanes > 1)
    cond = B.CreateVectorSplat(lanes, valueLeaves);
  return scramble(B, B.CreateSelect(cond, val, pos));
}

// -O0 keeps every variable in a stack slot: a floating-point slot whose
// address goes nowhere else gets a fingerprint slot next to it.
AllocaInst *Instrumenter::shadowSlotFor(Value *ptr) {
  auto *AI = dyn_cast<AllocaInst>(ptr->stripPointerCasts());
  if (!AI || !AI->isStaticAlloca() || !isFP(AI->getAllocatedType()) ||
      AI->getAllocatedType()->isVectorTy())
    return nullptr;
  auto it = shadowSlots.find(AI);
  if (it != shadowSlots.end())
    return it->second;
  bool privateSlot = true;
  for (User *U : AI->users()) {
    auto direct = [&](User *X, Value *P) {
      return isa<LoadInst>(X) ||
             (isa<StoreInst>(X) && cast<StoreInst>(X)->getPointerOperand() == P);
    };
    if (auto *C = dyn_cast<AddrSpaceCastInst>(U)) {
      for (User *CU : C->users())
        privateSlot &= direct(CU, C);
      continue;
    }
    privateSlot &= direct(U, AI);
  }
  AllocaInst *slot = nullptr;
  if (privateSlot) {
    IRBuilder<> B(AI->getNextNode());
    slot = B.CreateAlloca(I64, AI->getAddressSpace(), nullptr, AI->getName() + ".fp");
    B.SetInsertPoint(&*entryPoint());
    noSanitize(B.CreateStore(k(I64, 0), slot));
  }
  shadowSlots[AI] = slot;
  return slot;
}

// ptr's byte offset from G, an i64: the sum of the offsets of the GEPs that
// lead from G to ptr, where only GEPs and casts do (the code generator folds
// their constant terms into the access, as it does for the array's own
// accesses; a difference of two pointers in different address spaces it
// would compute in full for every access); else the difference.
Value *Instrumenter::offsetFrom(IRBuilder<> &B, Value *ptr, GlobalVariable *G) {
  SmallVector<User *, 4> geps;
  Value *at = ptr->stripPointerCasts();
  while (at != G) {
    auto *GEP = dyn_cast<GEPOperator>(at);
    if (!GEP || GEP->getType()->isVectorTy()) {
      Constant *base = ConstantExpr::getPointerBitCastOrAddrSpaceCast(G, ptr->getType());
      return B.CreateSub(B.CreatePtrToInt(ptr, I64), B.CreatePtrToInt(base, I64));
    }
    geps.push_back(GEP);
    at = GEP->getPointerOperand()->stripPointerCasts();
  }
  Value *offset = nullptr;
  for (User *GEP : geps) {
    Value *own = B.CreateSExtOrTrunc(emitGEPOffset(&B, DL, GEP), I64);
    offset = offset ? B.CreateAdd(offset, own) : own;
  }
  return offset ? offset : k(I64, 0);
}

// The address of ptr's fingerprint in a shared-memory shadow, or nullptr.
Value *Instrumenter::sharedSlot(IRBuilder<> &B, Value *ptr, const Provenance &p,
                                Align access) {
  auto *G = dyn_cast_or_null<GlobalVariable>(p.base ? p.base->stripPointerCasts() : nullptr);
  if (!G || G->getAddressSpace() != kSharedAS)
    return nullptr;
  Value *offset = offsetFrom(B, ptr, G);
  Value *shadowBase;
  unsigned granule;
  if (p.kind == Provenance::DynamicShared) {
    granule = shared.dynamicGranule();
    // After the program's own bytes, at the next multiple of 8.
    Value *start = B.CreateAnd(B.CreateAdd(ctx.dynSmem, k(I64, 7)), k(I64, ~uint64_t(7)));
    shadowBase = B.CreateGEP(B.getInt8Ty(), G, start);
  } else {
    GlobalVariable *S = shared.shadowOf(G, granule);
    if (!S)
      return nullptr;
    shadowBase = S;
  }
  ++counts.sharedAccesses;
  // An access aligned to its granule, in an array aligned to it, lies a
  // whole number of granules from the start: its slot is the offset scaled
  // by 8 / granule, which the optimizer distributes over the offset's terms
  // (a k loop's slots become one base and constant offsets, as the array's
  // own addresses do).
  if (access.value() >= granule && G->getPointerAlignment(DL).value() >= granule)
    return B.CreateGEP(B.getInt8Ty(), shadowBase,
                       B.CreateShl(offset, k(I64, 3 - Log2_32(granule))));
  Value *index = B.CreateLShr(offset, k(I64, Log2_32(granule)));
  return B.CreateGEP(I64, shadowBase, index);
}

bool Instrumenter::mayBeGlobal(Value *ptr, const Provenance &p) {
  unsigned as = ptr->getType()->getPointerAddressSpace();
  if (as == kSharedAS || as == kLocalAS || as == 4 || as == 101)
    return false;
  if (p.kind == Provenance::KernelArg)
    return true;
  if (p.kind != Provenance::Unknown)
    return false;
  return true;
}

// Where a global access goes, for the runtime: the kernel parameter it
// derives from in the top 16 bits, the byte offset from it below; or the
// address itself.
Value *Instrumenter::whereOf(IRBuilder<> &B, Value *ptr, const Provenance &p, uint32_t &arg) {
  Value *offset;
  if (p.kind == Provenance::KernelArg && p.argIndex < KOSAN_ORDER_ARG_UNRESOLVED) {
    arg = p.argIndex;
    Value *base = B.CreatePtrToInt(F.getArg(p.argIndex), I64);
    offset = B.CreateSub(B.CreatePtrToInt(ptr, I64), base);
  } else {
    arg = KOSAN_ORDER_ARG_UNRESOLVED;
    offset = B.CreatePtrToInt(ptr, I64);
  }
  uint64_t mask = (uint64_t(1) << KOSAN_ORDER_WHERE_SHIFT) - 1;
  return B.CreateOr(B.CreateAnd(offset, k(I64, mask)),
                    k(I64, uint64_t(arg) << KOSAN_ORDER_WHERE_SHIFT));
}

// A value read from a kernel parameter's buffer is the leaf of its
// parameter and offset; false where LI does not read one.
bool Instrumenter::parameterLeaf(IRBuilder<> &B, LoadInst *LI, const Provenance &p) {
  Value *ptr = LI->getPointerOperand();
  if (p.kind != Provenance::KernelArg || !mayBeGlobal(ptr, p))
    return false;
  Value *base = B.CreatePtrToInt(F.getArg(p.argIndex), I64);
  Value *off = B.CreateSub(B.CreatePtrToInt(ptr, I64), base);
  fps[LI] = leaf(B, LI, p.argIndex, off);
  return true;
}

void Instrumenter::handleLoad(LoadInst *LI, IRBuilder<> &B) {
  Type *T = LI->getType();
  Value *ptr = LI->getPointerOperand();
  if (!isFP(T)) {
    // Halves read from a kernel parameter are leaves as floats are; from
    // elsewhere (shared memory among it) they are labelled by their bits
    // where a half operation first uses them.
    if (halfOf(LI))
      parameterLeaf(B, LI, PA.resolve(ptr));
    return;
  }
  if (AllocaInst *slot = shadowSlotFor(ptr)) {
    fps[LI] = noSanitize(B.CreateAlignedLoad(I64, slot, Align(8)));
    return;
  }
  Provenance p = PA.resolve(ptr);
  if (parameterLeaf(B, LI, p))
    return;
  if (Value *slot = sharedSlot(B, ptr, p, LI->getAlign())) {
    fps[LI] = noSanitize(B.CreateAlignedLoad(fpType(T), slot, Align(8)));
    return;
  }
  fps[LI] = content(B, LI);
}

void Instrumenter::handleStore(StoreInst *SI) {
  Value *V = SI->getValueOperand();
  // A register of halves (not a constant: an integer constant may be one
  // only by coincidence) is recorded in global memory, as halves.
  HalfKind h = isFP(V->getType()) || isa<Constant>(V) ? HalfKind{} : halfOf(V);
  if (!isFP(V->getType()) && !h)
    return;
  Value *ptr = SI->getPointerOperand();
  IRBuilder<> B(SI);
  B.SetCurrentDebugLocation(SI->getDebugLoc());
  if (AllocaInst *slot = h ? nullptr : shadowSlotFor(ptr)) {
    noSanitize(B.CreateAlignedStore(fp(V), slot, Align(8)));
    return;
  }
  Provenance p = PA.resolve(ptr);
  if (Value *slot = h ? nullptr : sharedSlot(B, ptr, p, SI->getAlign())) {
    noSanitize(B.CreateAlignedStore(fp(V), slot, Align(8)));
    return;
  }
  if (!mayBeGlobal(ptr, p))
    return;
  Value *f = fp(V);
  // The log is written when the launch asks for it (it has a trace to go
  // to); otherwise the code generator sinks what only the log uses, the
  // fingerprints of stored values among it, into the branch not taken.
  Value *on = B.CreateICmpNE(B.CreateAnd(ctx.flags, k(I32, KOSAN_LAUNCH_ORDER_STORES)),
                             k(I32, 0), "kosan.log_stores");
  B.SetInsertPoint(SplitBlockAndInsertIfThen(on, SI->getIterator(), false));
  uint32_t arg;
  Value *where = whereOf(B, ptr, p, arg);
  Type *T = V->getType();
  uint32_t dtype = h ? h.dtype : floatDtypeOf(T->getScalarType());
  // The site tells the host the stored type and where in the source.
  sites.add(*SI, KOSAN_ACCESS_ORDER_STORE, KOSAN_SPACE_GLOBAL, dtype, "store",
                            arg == KOSAN_ORDER_ARG_UNRESOLVED ? -1 : int(arg));
  unsigned lanes = h ? h.lanes : 1;
  uint64_t elem = h ? 2 : DL.getTypeStoreSize(T->getScalarType());
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    lanes = VT->getNumElements();
  for (unsigned j = 0; j < lanes; ++j) {
    Value *w = j ? B.CreateAdd(where, k(I64, j * elem)) : where;
    Value *lf = lanes > 1 ? B.CreateExtractElement(f, uint64_t(j)) : f;
    storeFingerprint(B, w, lf, arg, elem);
  }
  ++counts.stores;
}

// A stored value's fingerprint goes to its output's shadow, inline: the
// element's index is its byte offset from the parameter shifted by the
// element's size (as the device runtime computes it). Past the shadow, for
// an output without one and for pointers the pass could not trace, the
// device runtime logs it.
void Instrumenter::storeFingerprint(IRBuilder<> &B, Value *where, Value *fp, uint32_t arg,
                                    uint64_t elementSize) {
  FunctionCallee fn = entry(rt::OrderStore, Type::getVoidTy(Ctx), {I64, I64, I64});
  if (!ctx.kernel || arg >= KOSAN_ORDER_DENSE_ARGS) {
    B.CreateCall(fn, {ctx.state, where, fp});
    return;
  }
  DenseShadow &d = denseShadow(arg, elementSize);
  uint64_t mask = (uint64_t(1) << KOSAN_ORDER_WHERE_SHIFT) - 1;
  Value *index = B.CreateLShr(B.CreateAnd(where, k(I64, mask)), d.shift);
  Value *inShadow = B.CreateICmpULT(index, d.elements, "kosan.in_shadow");
  Instruction *write, *log;
  SplitBlockAndInsertIfThenElse(inShadow, B.GetInsertPoint(), &write, &log);
  IRBuilder<> W(write);
  W.SetCurrentDebugLocation(B.getCurrentDebugLocation());
  Value *base = W.CreateIntToPtr(d.shadow, PointerType::get(Ctx, addrspace::Global));
  noSanitize(W.CreateAlignedStore(fp, W.CreateGEP(I64, base, index), Align(8)));
  IRBuilder<> L(log);
  L.SetCurrentDebugLocation(B.getCurrentDebugLocation());
  L.CreateCall(fn, {ctx.state, where, fp});
  B.SetInsertPoint(log->getParent()->getSingleSuccessor()->getFirstInsertionPt());
}

Instrumenter::DenseShadow &Instrumenter::denseShadow(unsigned arg, uint64_t elementSize) {
  for (auto &[a, d] : denseShadows)
    if (a == arg) {
      if (d.elementSize != elementSize)
        d.elementSize = 0;
      return d;
    }
  std::string name = "kosan.order_out" + std::to_string(arg);
  DenseShadow d{PHINode::Create(I64, 2, name + ".shadow"),
                PHINode::Create(I64, 2, name + ".elements"),
                PHINode::Create(I64, 2, name + ".shift"), elementSize};
  denseShadows.push_back({arg, d});
  return denseShadows.back().second;
}

// With KOSAN_LAUNCH_ORDER_STORES the host has set the device state's order
// state and its table of output shadows (abi.h); the clone reads the entries
// of the parameters it stores through once, at its entry. Without, the
// entries read as empty (no store reaches them: the same flag skips them).
// Where all of a parameter's stores have one element size, the host's shift
// is its logarithm (it takes the shift from these stores' sites), and the
// clone shifts by a constant.
void Instrumenter::placeDenseShadows() {
  if (denseShadows.empty())
    return;
  BasicBlock::iterator at = entryPoint();
  IRBuilder<> B(&*at);
  Value *on = B.CreateICmpNE(B.CreateAnd(ctx.flags, k(I32, KOSAN_LAUNCH_ORDER_STORES)),
                             k(I32, 0), "kosan.order_shadows");
  BasicBlock *head = at->getParent();
  Instruction *thenTerm = SplitBlockAndInsertIfThen(on, at, false);
  BasicBlock *read = thenTerm->getParent(), *tail = thenTerm->getSuccessor(0);
  B.SetInsertPoint(thenTerm);
  Type *GP = PointerType::get(Ctx, addrspace::Global);
  MDNode *invariant = MDNode::get(Ctx, {});
  auto field = [&](Value *base, uint64_t offset, Type *T, const Twine &name) {
    Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), base, offset);
    auto *L = B.CreateAlignedLoad(T, p, Align(T->getPrimitiveSizeInBits() / 8), name);
    L->setMetadata(LLVMContext::MD_invariant_load, invariant);
    noSanitize(L);
    return L;
  };
  Value *state = B.CreateIntToPtr(ctx.state, GP);
  Value *order = B.CreateIntToPtr(
      field(state, offsetof(kosan_device_state, order), I64, "kosan.order_state"), GP);
  Value *table = B.CreateIntToPtr(
      field(order, offsetof(kosan_order_state, dense), I64, "kosan.order_dense"), GP);
  for (auto &[arg, d] : denseShadows) {
    uint64_t entryAt = uint64_t(arg) * sizeof(kosan_order_dense);
    Value *shadow = field(table, entryAt + offsetof(kosan_order_dense, shadow), I64, "");
    Value *elements = field(table, entryAt + offsetof(kosan_order_dense, elements), I64, "");
    Value *shift = nullptr;
    if (d.elementSize && isPowerOf2_64(d.elementSize)) {
      d.shift->replaceAllUsesWith(k(I64, Log2_64(d.elementSize)));
      d.shift->deleteValue();
      d.shift = nullptr;
    } else {
      shift = B.CreateZExt(
          field(table, entryAt + offsetof(kosan_order_dense, shift), I32, ""), I64);
    }
    auto place = [&](PHINode *P, Value *v) {
      P->insertInto(tail, tail->begin());
      P->addIncoming(v, read);
      P->addIncoming(k(I64, 0), head);
    };
    place(d.shadow, shadow);
    place(d.elements, elements);
    if (d.shift)
      place(d.shift, shift);
  }
}

void Instrumenter::handleAtomic(AtomicRMWInst *RMW) {
  Value *V = RMW->getValOperand();
  if (!isFP(V->getType()) || V->getType()->isVectorTy())
    return;
  StringRef op = AtomicRMWInst::getOperationName(RMW->getOperation());
  Value *ptr = RMW->getPointerOperand();
  IRBuilder<> B(RMW->getNextNode());
  B.SetCurrentDebugLocation(RMW->getDebugLoc());
  // What the atomic returns is a value of unknown order.
  fps[RMW] = content(B, RMW);
  Provenance p = PA.resolve(ptr);
  if (Value *slot = sharedSlot(B, ptr, p, RMW->getAlign())) {
    FunctionCallee fn = entry(rt::OrderSharedAtomic, Type::getVoidTy(Ctx),
                              {PointerType::get(Ctx, 0), I64, I64});
    Value *generic = B.CreateAddrSpaceCast(slot, PointerType::get(Ctx, 0));
    B.CreateCall(fn, {generic, k(I64, code((Twine("atomic.") + op).str())), fp(V)});
    ++counts.atomics;
    return;
  }
  if (!mayBeGlobal(ptr, p))
    return;
  uint32_t arg;
  Value *where = whereOf(B, ptr, p, arg);
  uint32_t dtype = floatDtypeOf(V->getType());
  sites.add(*RMW, KOSAN_ACCESS_ORDER_ATOMIC, KOSAN_SPACE_GLOBAL, dtype, op,
                            arg == KOSAN_ORDER_ARG_UNRESOLVED ? -1 : int(arg));
  auto bits = [&](Value *x) {
    unsigned n = x->getType()->getPrimitiveSizeInBits();
    return B.CreateZExt(B.CreateBitCast(x, IntegerType::get(Ctx, n)), I64);
  };
  FunctionCallee fn = entry(rt::OrderAtomic, Type::getVoidTy(Ctx),
                            {I64, I64, I64, I64, I64});
  B.CreateCall(fn, {ctx.state, where, fp(V), bits(RMW), bits(V)});
  ++counts.atomics;
}

// cuda_fp16.h/cuda_bf16.h add halves atomically in inline PTX
// ("atom.add.noftz.f16 $0,[$1],$2;" on i16 registers): logged like an IR
// atomic.
void Instrumenter::handleAsmAtomic(CallInst *CI) {
  StringRef text = cast<InlineAsm>(CI->getCalledOperand())->getAsmString();
  size_t at = text.find("atom.");
  if (at == StringRef::npos || text.count(';') != 1)
    return;
  StringRef mnemonic = text.drop_front(at).take_until([](char c) { return c == ' ' || c == '\t'; });
  uint32_t dtype = mnemonic.ends_with(".f16")    ? KOSAN_DTYPE_F16
                   : mnemonic.ends_with(".bf16") ? KOSAN_DTYPE_BF16
                                                 : KOSAN_DTYPE_UNKNOWN;
  if (!dtype || !mnemonic.contains(".add") || CI->arg_size() != 2 ||
      !CI->getArgOperand(0)->getType()->isPointerTy() || !CI->getType()->isIntegerTy(16) ||
      !CI->getArgOperand(1)->getType()->isIntegerTy(16))
    return;
  Value *ptr = CI->getArgOperand(0), *val = CI->getArgOperand(1);
  Provenance p = PA.resolve(ptr);
  if (!mayBeGlobal(ptr, p))
    return;
  IRBuilder<> B(CI->getNextNode());
  B.SetCurrentDebugLocation(CI->getDebugLoc());
  uint32_t arg;
  Value *where = whereOf(B, ptr, p, arg);
  sites.add(*CI, KOSAN_ACCESS_ORDER_ATOMIC, KOSAN_SPACE_GLOBAL, dtype, "fadd",
            arg == KOSAN_ORDER_ARG_UNRESOLVED ? -1 : int(arg));
  Value *bits = B.CreateZExt(val, I64);
  // The contribution's fingerprint where its half computation is followed,
  // else its bits.
  Value *f = halfOf(val) ? fp(val) : contentOfBits(B, bits, dtype);
  FunctionCallee fn = entry(rt::OrderAtomic, Type::getVoidTy(Ctx),
                            {I64, I64, I64, I64, I64});
  B.CreateCall(fn, {ctx.state, where, f, B.CreateZExt(CI, I64), bits});
  ++counts.atomics;
}

// The conversions and arithmetic of cuda_fp16.h/cuda_bf16.h (inline PTX on
// i16/i32 registers, core/PtxHalf.h) follow the rules of the IR operations
// they stand for: cvt.rn to a half is fptrunc, a widening cvt is exact and
// keeps its operand's fingerprint, add.f16 is fadd, fma.rn.f16x2 is fma lane
// by lane. Other roundings and saturations are operations of their own,
// named by their mnemonic.
bool Instrumenter::handleHalfAsm(CallInst *CI, IRBuilder<> &B) {
  auto *IA = cast<InlineAsm>(CI->getCalledOperand());
  PtxHalfOp op = parsePtxHalfOp(IA->getAsmString(), /*anyRounding=*/true);
  if (op.kind == PtxHalfOp::None)
    return false;
  SmallVector<Value *, 3> args(CI->args());
  // The mnemonic without its lane count: a lane of add.rz.f16x2 is an
  // add.rz.f16.
  std::string own = op.mnemonic;
  if (StringRef(own).ends_with("x2"))
    own.resize(own.size() - 2);
  auto vector = [&](Value *lo, Value *hi) -> Value * {
    Value *v = PoisonValue::get(FixedVectorType::get(I64, 2));
    v = B.CreateInsertElement(v, lo, uint64_t(0));
    return B.CreateInsertElement(v, hi, uint64_t(1));
  };
  Value *S = nullptr;
  switch (op.kind) {
  case PtxHalfOp::Convert: {
    bool widening = (op.dtype == KOSAN_DTYPE_F32 || op.dtype == KOSAN_DTYPE_F64) &&
                    (op.fromDtype == KOSAN_DTYPE_F16 || op.fromDtype == KOSAN_DTYPE_BF16);
    uint64_t c = code(op.nearest ? (Twine("fptrunc.") + dtypeShortName(op.dtype)).str() : own);
    if (op.lanes == 2) {
      // cvt.rn.f16x2.f32 $0, $hi, $lo: the template names the operands.
      if (args.size() != 2 || !CI->getType()->isIntegerTy(32) || widening)
        return false;
      bool swapped = IA->getAsmString().find("$2, $1") != std::string::npos ||
                     IA->getAsmString().find("$2,$1") != std::string::npos;
      Value *lo = fp(swapped ? args[0] : args[1]), *hi = fp(swapped ? args[1] : args[0]);
      if (!lo || !hi)
        return false;
      S = unary(B, c, vector(lo, hi));
      halfRegs.try_emplace(CI, HalfKind{op.dtype, 2});
      break;
    }
    if (args.size() != 1)
      return false;
    Value *f = fp(args[0]);
    if (!f)
      return false;
    if (CI->getType()->isIntegerTy())
      halfRegs.try_emplace(CI, HalfKind{op.dtype, 1});
    if (widening) {
      // Exact: the value, and so its order, stays what it was.
      fps[CI] = f;
      return true;
    }
    S = unary(B, c, f);
    break;
  }
  case PtxHalfOp::Arith: {
    SmallVector<Value *, 3> a;
    for (Value *A : args) {
      Value *f = fp(A);
      if (!f || f->getType() != fpTypeOf(CI))
        return false;
      a.push_back(f);
    }
    // The IR operation it is where it rounds to nearest; else its own.
    bool plain = op.nearest && !StringRef(own).contains(".NaN") &&
                 !StringRef(own).contains(".xorsign");
    auto name = [&](StringRef ir) { return code(plain ? ir : StringRef(own)); };
    if (op.op == "add" && a.size() == 2)
      S = commutative(B, name("fadd"), a[0], a[1]);
    else if (op.op == "mul" && a.size() == 2)
      S = commutative(B, name("fmul"), a[0], a[1]);
    else if (op.op == "sub" && a.size() == 2)
      S = combine(B, name("fsub"), a[0], a[1]);
    else if (op.op == "min" && a.size() == 2)
      S = commutative(B, name("minnum"), a[0], a[1]);
    else if (op.op == "max" && a.size() == 2)
      S = commutative(B, name("maxnum"), a[0], a[1]);
    else if (op.op == "fma" && a.size() == 3)
      S = fma(B, name("fma"), a[0], a[1], a[2]);
    else if (op.op == "neg" && a.size() == 1)
      S = unary(B, name("fneg"), a[0]);
    else if (op.op == "abs" && a.size() == 1)
      S = unary(B, name("fabs"), a[0]);
    break;
  }
  case PtxHalfOp::Exp:
  case PtxHalfOp::Exp2:
    if (args.size() == 1 && CI->getType()->isIntegerTy(16))
      if (Value *f = fp(args[0]))
        S = unary(B, code(op.op), f);
    break;
  case PtxHalfOp::Pack:
    // Two halves into one register: lane 0 the low 16 bits.
    if (args.size() == 2 && halfOf(CI).lanes == 2)
      if (Value *lo = fp(args[0]), *hi = fp(args[1]); lo && hi && lo->getType() == I64 &&
                                                       hi->getType() == I64) {
        fps[CI] = vector(lo, hi);
        return true;
      }
    return false;
  case PtxHalfOp::Unpack: {
    // {i16, i16} from an i32: the extractvalues take the lanes'.
    HalfKind h = args.size() == 1 ? halfOf(args[0]) : HalfKind{};
    Value *f = h && h.lanes == 2 ? fp(args[0]) : nullptr;
    if (!f)
      return false;
    for (User *U : CI->users())
      if (auto *EV = dyn_cast<ExtractValueInst>(U))
        if (EV->getNumIndices() == 1 && EV->getIndices()[0] < 2) {
          IRBuilder<> EB(EV->getNextNode());
          halfRegs[EV] = HalfKind{h.dtype, 1};
          fps[EV] = EB.CreateExtractElement(f, uint64_t(EV->getIndices()[0]));
        }
    return true;
  }
  default:
    return false;
  }
  if (!S)
    return false;
  fps[CI] = S;
  ++counts.operations;
  return true;
}

bool Instrumenter::handleIntrinsic(CallInst *CI, IRBuilder<> &B) {
  Function *callee = CI->getCalledFunction();
  StringRef name = callee->getName();
  Intrinsic::ID id = callee->getIntrinsicID();
  // Warp shuffles move a value between lanes: its fingerprint moves along,
  // as two 32-bit shuffles with the same lane arguments.
  if (const Value *shuffled = ctx.target->shuffledValue(*CI)) {
    Value *val = const_cast<Value *>(shuffled);
    Value *f = isFP(val->getType()) ? fp(val) : carried.lookup(val);
    if (!f)
      return false;
    Value *lo = B.CreateTrunc(f, I32);
    Value *hi = B.CreateTrunc(B.CreateLShr(f, 32), I32);
    Value *low = B.CreateZExt(ctx.target->reshuffle(B, *CI, lo), I64);
    Value *high = B.CreateShl(B.CreateZExt(ctx.target->reshuffle(B, *CI, hi), I64), 32);
    Value *moved = B.CreateOr(high, low);
    if (isFP(CI->getType()))
      fps[CI] = moved;
    else
      carried[CI] = moved;
    ++counts.shuffles;
    return true;
  }
  if (!isFP(CI->getType()))
    return false;
  SmallVector<Value *, 3> a;
  for (Value *A : CI->args())
    if (isFP(A->getType()))
      a.push_back(fp(A));
  Value *S = nullptr;
  switch (id) {
  case Intrinsic::fma:
  case Intrinsic::fmuladd:
    if (a.size() == 3)
      S = fma(B, code("fma"), a[0], a[1], a[2]);
    break;
  case Intrinsic::minnum: case Intrinsic::maxnum: case Intrinsic::minimum:
  case Intrinsic::maximum:
    if (a.size() == 2)
      S = commutative(B, code(Intrinsic::getBaseName(id)), a[0], a[1]);
    break;
  case Intrinsic::fabs:
    // Exact, and what reductions of magnitudes start from: the value's own
    // order, its sign dropped.
    if (a.size() == 1)
      S = unary(B, code("fabs"), a[0]);
    break;
  default: {
    StringRef op = name.drop_front(5); // "llvm."
    // NVVM's explicit roundings: fma/add/mul with a rounding mode.
    if (op.starts_with("nvvm.fma.") && a.size() == 3)
      S = fma(B, code(op.starts_with("nvvm.fma.rn.") ? "fma" : op), a[0], a[1], a[2]);
    else if ((op.starts_with("nvvm.add.") || op.starts_with("nvvm.mul.") ||
              op.starts_with("nvvm.fmin") || op.starts_with("nvvm.fmax")) &&
             a.size() == 2)
      S = commutative(B, code(op), a[0], a[1]);
    else if (a.size() == 2)
      S = combine(B, code(op), a[0], a[1]);
    else if (a.size() == 1)
      S = unary(B, code(op), a[0]);
    break;
  }
  }
  if (!S)
    return false;
  fps[CI] = S;
  ++counts.operations;
  return true;
}

OrderCounts Instrumenter::run() {
  {
    IRBuilder<> B(&*entryPoint());
    valueLeaves = B.CreateICmpNE(B.CreateAnd(ctx.flags, k(I32, KOSAN_LAUNCH_ORDER_VALUE_LEAVES)),
                                 k(I32, 0), "kosan.value_leaves");
  }
  SmallVector<Instruction *, 128> order;
  ReversePostOrderTraversal<Function *> RPOT(&F);
  for (BasicBlock *BB : RPOT)
    for (Instruction &I : *BB)
      order.push_back(&I);
  markHalfRegisters(order, halfRegs, /*anyRounding=*/true);

  for (Instruction *I : order) {
    if (I->hasMetadata(LLVMContext::MD_nosanitize) || I->isTerminator() || I == valueLeaves)
      continue;
    if (auto *P = dyn_cast<PHINode>(I)) {
      if (!isFP(P->getType()) && !halfOf(P))
        continue;
      PHINode *SP = PHINode::Create(fpTypeOf(P), P->getNumIncomingValues(),
                                    P->getName() + ".fp");
      SP->insertAfter(P);
      fps[P] = SP;
      phis.push_back({P, SP});
      continue;
    }
    IRBuilder<> B(I->getNextNode());
    B.SetCurrentDebugLocation(I->getDebugLoc());
    current = I;
    if (auto *BO = dyn_cast<BinaryOperator>(I)) {
      if (!isFP(BO->getType()))
        continue;
      Value *a = fp(BO->getOperand(0)), *b = fp(BO->getOperand(1));
      uint64_t op = code(BO->getOpcodeName());
      bool comm = BO->getOpcode() == Instruction::FAdd || BO->getOpcode() == Instruction::FMul;
      fps[BO] = comm ? commutative(B, op, a, b) : combine(B, op, a, b);
      ++counts.operations;
    } else if (auto *UO = dyn_cast<UnaryOperator>(I)) {
      if (UO->getOpcode() == Instruction::FNeg && isFP(UO->getType()))
        fps[UO] = unary(B, code("fneg"), fp(UO->getOperand(0)));
    } else if (auto *FE = dyn_cast<FPExtInst>(I)) {
      // Exact: the value, and so its order, stays what it was.
      fps[FE] = fp(FE->getOperand(0));
    } else if (auto *FT = dyn_cast<FPTruncInst>(I)) {
      fps[FT] = unary(B, code((Twine("fptrunc.") +
                                 dtypeShortName(floatDtypeOf(FT->getType()->getScalarType())))
                                    .str()),
                      fp(FT->getOperand(0)));
    } else if (auto *SI = dyn_cast<SelectInst>(I)) {
      if (isFP(SI->getType()) || halfOf(SI))
        fps[SI] = B.CreateSelect(SI->getCondition(), fp(SI->getTrueValue()),
                                 fp(SI->getFalseValue()));
    } else if (auto *EE = dyn_cast<ExtractElementInst>(I)) {
      if (isFP(EE->getType()))
        fps[EE] = B.CreateExtractElement(fp(EE->getVectorOperand()), EE->getIndexOperand());
    } else if (auto *IE = dyn_cast<InsertElementInst>(I)) {
      if (isFP(IE->getType()))
        fps[IE] = B.CreateInsertElement(fp(IE->getOperand(0)), fp(IE->getOperand(1)),
                                        IE->getOperand(2));
    } else if (auto *SV = dyn_cast<ShuffleVectorInst>(I)) {
      if (isFP(SV->getType()))
        fps[SV] = B.CreateShuffleVector(fp(SV->getOperand(0)), fp(SV->getOperand(1)),
                                        SV->getShuffleMask());
    } else if (auto *BC = dyn_cast<BitCastInst>(I)) {
      // A float's bits in an integer register (to be shuffled) and back.
      Value *src = BC->getOperand(0);
      Type *ST = src->getType(), *DT = BC->getType();
      if (isFP(ST) && !ST->isVectorTy() && DT->isIntegerTy())
        carried[BC] = fp(src);
      else if (isFP(DT) && !DT->isVectorTy() && ST->isIntegerTy())
        if (Value *f = carried.lookup(src))
          fps[BC] = f;
    } else if (auto *CI = dyn_cast<CallInst>(I)) {
      if (CI->isInlineAsm()) {
        if (!handleHalfAsm(CI, B))
          handleAsmAtomic(CI);
      }
      else if (CI->getCalledFunction() && CI->getCalledFunction()->isIntrinsic())
        handleIntrinsic(CI, B);
    } else if (auto *LI = dyn_cast<LoadInst>(I)) {
      handleLoad(LI, B);
    } else if (auto *ST = dyn_cast<StoreInst>(I)) {
      handleStore(ST);
    } else if (auto *RMW = dyn_cast<AtomicRMWInst>(I)) {
      handleAtomic(RMW);
    }
  }

  for (auto [P, SP] : phis)
    for (unsigned i = 0; i < P->getNumIncomingValues(); ++i) {
      Value *s = fp(P->getIncomingValue(i));
      if (!s)
        s = Constant::getNullValue(SP->getType());
      SP->addIncoming(s, P->getIncomingBlock(i));
    }
  placeDenseShadows();
  return counts;
}

} // namespace

OrderCounts instrumentOrder(Function &F, const OrderContext &ctx, SiteTable &sites,
                            SharedShadows &shared) {
  return Instrumenter(F, ctx, sites, shared).run();
}

} // namespace kosan

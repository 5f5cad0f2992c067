//===- passes/core/EntryProgram.cpp - A kernel's entry test, for the host -===//
#include "core/EntryProgram.h"

#include "core/LaunchContext.h"
#include "target/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>

using namespace llvm;

namespace kosan {

namespace {

class Serializer {
public:
  Serializer(const Argument *info, const Target &T, const DataLayout &DL)
      : info(info), T(T), DL(DL) {}

  std::optional<uint32_t> emit(Value *V) {
    if (auto it = done.find(V); it != done.end())
      return it->second;
    if (++depth > 256)
      return std::nullopt;
    std::optional<uint32_t> r = make(V);
    --depth;
    if (r)
      done[V] = *r;
    return r;
  }

  EntryProgram P;

private:
  uint32_t add(kosan_entry_opcode op, unsigned bits, uint32_t a = 0, uint32_t b = 0,
               uint32_t c = 0, uint64_t imm = 0) {
    P.ops.push_back({uint16_t(op), uint16_t(bits), a, b, c, imm});
    return uint32_t(P.ops.size() - 1);
  }
  // The width of an integer or pointer value, 0 for anything else.
  unsigned bitsOf(Type *Ty) const {
    if (Ty->isIntegerTy() && Ty->getIntegerBitWidth() <= 64)
      return Ty->getIntegerBitWidth();
    if (Ty->isPointerTy())
      return DL.getPointerSizeInBits(Ty->getPointerAddressSpace());
    return 0;
  }
  // V as a value of `bits` bits (a GEP index: sign-extended or truncated).
  std::optional<uint32_t> resized(Value *V, unsigned bits) {
    std::optional<uint32_t> x = emit(V);
    if (!x)
      return std::nullopt;
    unsigned from = P.ops[*x].bits;
    if (from == bits)
      return x;
    return add(from < bits ? KOSAN_ENTRY_SEXT : KOSAN_ENTRY_TRUNC, bits, *x);
  }

  std::optional<uint32_t> make(Value *V) {
    unsigned bits = bitsOf(V->getType());
    if (!bits || V->getType()->isVectorTy())
      return std::nullopt;
    if (auto *C = dyn_cast<ConstantInt>(V))
      return add(KOSAN_ENTRY_CONST, bits, 0, 0, 0, C->getZExtValue());
    if (isa<ConstantPointerNull>(V))
      return add(KOSAN_ENTRY_CONST, bits);
    if (auto *A = dyn_cast<Argument>(V)) {
      // A parameter passed by value: not a pointer into the parameter space.
      if (A == info || A->hasByValAttr() || A->hasByRefAttr() || bits % 8)
        return std::nullopt;
      return add(KOSAN_ENTRY_PARAM, bits, 0, 0, 0, A->getArgNo());
    }
    if (auto *Ld = dyn_cast<LoadInst>(V)) {
      APInt off(DL.getIndexTypeSizeInBits(Ld->getPointerOperandType()), 0);
      const Value *base =
          Ld->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, off, true);
      if (base != info || Ld->isVolatile() || !Ld->isUnordered() || bits % 8 ||
          off.isNegative())
        return std::nullopt;
      return add(KOSAN_ENTRY_INFO, bits, 0, 0, 0, off.getZExtValue());
    }
    if (auto *Fr = dyn_cast<FreezeInst>(V))
      return emit(Fr->getOperand(0));
    if (auto *II = dyn_cast<IntrinsicInst>(V)) {
      static const std::pair<Intrinsic::ID, kosan_entry_opcode> minmax[] = {
          {Intrinsic::umin, KOSAN_ENTRY_UMIN},
          {Intrinsic::umax, KOSAN_ENTRY_UMAX},
          {Intrinsic::smin, KOSAN_ENTRY_SMIN},
          {Intrinsic::smax, KOSAN_ENTRY_SMAX}};
      for (auto [id, op] : minmax)
        if (II->getIntrinsicID() == id)
          return binary(op, bits, II->getArgOperand(0), II->getArgOperand(1));
      unsigned dim = T.dimension(*II);
      if (dim > 2)
        return std::nullopt;
      switch (T.classify(*II)) {
      case GpuValue::BlockId:
        P.dims |= 1u << dim;
        return add(KOSAN_ENTRY_BLOCK_ID, bits, 0, 0, 0, dim);
      case GpuValue::BlockDim:
        return add(KOSAN_ENTRY_BLOCK_DIM, bits, 0, 0, 0, dim);
      case GpuValue::GridDim:
        return add(KOSAN_ENTRY_GRID_DIM, bits, 0, 0, 0, dim);
      default:
        return std::nullopt;
      }
    }
    if (auto *BO = dyn_cast<BinaryOperator>(V)) {
      static const std::pair<Instruction::BinaryOps, kosan_entry_opcode> ops[] = {
          {Instruction::Add, KOSAN_ENTRY_ADD},   {Instruction::Sub, KOSAN_ENTRY_SUB},
          {Instruction::Mul, KOSAN_ENTRY_MUL},   {Instruction::Shl, KOSAN_ENTRY_SHL},
          {Instruction::LShr, KOSAN_ENTRY_LSHR}, {Instruction::AShr, KOSAN_ENTRY_ASHR},
          {Instruction::And, KOSAN_ENTRY_AND},   {Instruction::Or, KOSAN_ENTRY_OR},
          {Instruction::Xor, KOSAN_ENTRY_XOR}};
      for (auto [opcode, op] : ops)
        if (BO->getOpcode() == opcode)
          return binary(op, bits, BO->getOperand(0), BO->getOperand(1));
      return std::nullopt;
    }
    if (auto *Cmp = dyn_cast<ICmpInst>(V)) {
      static const std::pair<CmpInst::Predicate, kosan_entry_cmp> preds[] = {
          {CmpInst::ICMP_EQ, KOSAN_ENTRY_CMP_EQ},   {CmpInst::ICMP_NE, KOSAN_ENTRY_CMP_NE},
          {CmpInst::ICMP_UGT, KOSAN_ENTRY_CMP_UGT}, {CmpInst::ICMP_UGE, KOSAN_ENTRY_CMP_UGE},
          {CmpInst::ICMP_ULT, KOSAN_ENTRY_CMP_ULT}, {CmpInst::ICMP_ULE, KOSAN_ENTRY_CMP_ULE},
          {CmpInst::ICMP_SGT, KOSAN_ENTRY_CMP_SGT}, {CmpInst::ICMP_SGE, KOSAN_ENTRY_CMP_SGE},
          {CmpInst::ICMP_SLT, KOSAN_ENTRY_CMP_SLT}, {CmpInst::ICMP_SLE, KOSAN_ENTRY_CMP_SLE}};
      std::optional<uint32_t> a = emit(Cmp->getOperand(0)), b = emit(Cmp->getOperand(1));
      if (!a || !b)
        return std::nullopt;
      for (auto [pred, code] : preds)
        if (Cmp->getPredicate() == pred)
          return add(KOSAN_ENTRY_ICMP, 1, *a, *b, 0, code);
      return std::nullopt;
    }
    if (auto *Sel = dyn_cast<SelectInst>(V)) {
      std::optional<uint32_t> c = emit(Sel->getCondition()), a = emit(Sel->getTrueValue()),
                              b = emit(Sel->getFalseValue());
      if (!c || !a || !b)
        return std::nullopt;
      return add(KOSAN_ENTRY_SELECT, bits, *c, *a, *b);
    }
    if (auto *Cast = dyn_cast<CastInst>(V)) {
      Value *from = Cast->getOperand(0);
      switch (Cast->getOpcode()) {
      case Instruction::ZExt:
      case Instruction::SExt: {
        std::optional<uint32_t> a = emit(from);
        if (!a)
          return std::nullopt;
        return add(Cast->getOpcode() == Instruction::ZExt ? KOSAN_ENTRY_ZEXT : KOSAN_ENTRY_SEXT,
                   bits, *a);
      }
      case Instruction::Trunc:
      case Instruction::PtrToInt:
      case Instruction::IntToPtr:
      case Instruction::BitCast: {
        std::optional<uint32_t> a = emit(from);
        if (!a)
          return std::nullopt;
        unsigned fromBits = P.ops[*a].bits;
        if (fromBits == bits)
          return a;
        return add(fromBits > bits ? KOSAN_ENTRY_TRUNC : KOSAN_ENTRY_ZEXT, bits, *a);
      }
      default: // an address space cast changes the address
        return std::nullopt;
      }
    }
    if (auto *GEP = dyn_cast<GEPOperator>(V)) {
      unsigned index = DL.getIndexTypeSizeInBits(GEP->getType());
      if (index != bits)
        return std::nullopt;
      MapVector<Value *, APInt> variable;
      APInt constant(index, 0);
      if (!GEP->collectOffset(DL, index, variable, constant))
        return std::nullopt;
      std::optional<uint32_t> sum = emit(GEP->getPointerOperand());
      if (!sum)
        return std::nullopt;
      for (auto &[idx, scale] : variable) {
        std::optional<uint32_t> x = resized(idx, index);
        if (!x)
          return std::nullopt;
        uint32_t k = add(KOSAN_ENTRY_CONST, index, 0, 0, 0, scale.getZExtValue());
        sum = add(KOSAN_ENTRY_ADD, index, *sum, add(KOSAN_ENTRY_MUL, index, *x, k));
      }
      if (!constant.isZero())
        sum = add(KOSAN_ENTRY_ADD, index, *sum,
                  add(KOSAN_ENTRY_CONST, index, 0, 0, 0, constant.getZExtValue()));
      return sum;
    }
    return std::nullopt;
  }

  std::optional<uint32_t> binary(kosan_entry_opcode op, unsigned bits, Value *x, Value *y) {
    std::optional<uint32_t> a = emit(x), b = emit(y);
    if (!a || !b)
      return std::nullopt;
    return add(op, bits, *a, *b);
  }

  const Argument *info;
  const Target &T;
  const DataLayout &DL;
  DenseMap<Value *, uint32_t> done;
  unsigned depth = 0;
};

} // namespace

std::optional<EntryProgram> serializeEntryTest(Value *test, const Argument *info,
                                               const Target &T, const DataLayout &DL) {
  if (!test->getType()->isIntegerTy(1))
    return std::nullopt;
  Serializer S(info, T, DL);
  std::optional<uint32_t> root = S.emit(test);
  if (!root)
    return std::nullopt;
  // The program ends in the test (a constant or a value emitted earlier).
  if (*root + 1 != S.P.ops.size())
    S.P.ops.push_back({uint16_t(KOSAN_ENTRY_AND), 1, *root, *root, 0, 0});
  return std::move(S.P);
}

Value *blockInBox(IRBuilderBase &B, const Target &T, Argument *info, uint32_t dims) {
  if (!dims)
    dims = 1;
  Value *in = nullptr;
  for (unsigned d = 0; d < 3; ++d) {
    if (!(dims >> d & 1))
      continue;
    auto field = [&](size_t offset, const char *name) {
      Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), info, offset);
      return markNoSanitize(B.CreateAlignedLoad(B.getInt32Ty(), p, Align(4), name));
    };
    Value *lo = field(offsetof(kosan_launch_info, fast_lo) + 4 * d, "kosan.fast.lo");
    Value *n = field(offsetof(kosan_launch_info, fast_n) + 4 * d, "kosan.fast.n");
    Value *id = T.blockId(B, d);
    Value *inside = B.CreateICmpULT(B.CreateSub(id, lo), n);
    in = in ? B.CreateAnd(in, inside) : inside;
  }
  return in;
}

std::string printEntryProgram(const EntryProgram &P) {
  static const char *const names[] = {
#define KOSAN_ENTRY_NAME_(name, operands) #name,
      KOSAN_ENTRY_OPS(KOSAN_ENTRY_NAME_)
#undef KOSAN_ENTRY_NAME_
  };
  static const unsigned operands[] = {
#define KOSAN_ENTRY_OPERANDS_(name, operands) operands,
      KOSAN_ENTRY_OPS(KOSAN_ENTRY_OPERANDS_)
#undef KOSAN_ENTRY_OPERANDS_
  };
  static const char *const cmps[] = {
#define KOSAN_ENTRY_CMP_NAME_(name) #name,
      KOSAN_ENTRY_CMPS(KOSAN_ENTRY_CMP_NAME_)
#undef KOSAN_ENTRY_CMP_NAME_
  };
  std::string out;
  raw_string_ostream os(out);
  os << "dims " << P.dims << "\n";
  for (size_t i = 0; i < P.ops.size(); ++i) {
    const kosan_entry_op &o = P.ops[i];
    os << "%" << i << " = " << names[o.op] << " i" << o.bits;
    const uint32_t ab[3] = {o.a, o.b, o.c};
    for (unsigned k = 0; k < operands[o.op]; ++k)
      os << (k ? ", %" : " %") << ab[k];
    if (o.op == KOSAN_ENTRY_ICMP)
      os << " " << cmps[o.imm];
    else if (!operands[o.op])
      os << " " << int64_t(o.imm);
    os << "\n";
  }
  return out;
}

} // namespace kosan

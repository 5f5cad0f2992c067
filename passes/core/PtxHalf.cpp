//===- passes/core/PtxHalf.cpp - Half/bf16 PTX templates of CUDA's headers -===//
//
// See PtxHalf.h.
//
//===----------------------------------------------------------------------===//
#include "core/PtxHalf.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace kosan {

static uint32_t ptxType(StringRef t, unsigned &lanes) {
  lanes = 1;
  if (t.consume_back("x2"))
    lanes = 2;
  if (t == "f16")
    return KOSAN_DTYPE_F16;
  if (t == "bf16")
    return KOSAN_DTYPE_BF16;
  if (t == "f32")
    return KOSAN_DTYPE_F32;
  if (t == "f64")
    return KOSAN_DTYPE_F64;
  return KOSAN_DTYPE_UNKNOWN;
}

PtxHalfOp parsePtxHalfOp(StringRef text, bool anyRounding) {
  PtxHalfOp out;
  // The instructions, without braces, register declarations and blanks.
  SmallVector<std::string, 4> insts;
  SmallVector<StringRef, 8> parts;
  text.split(parts, ';');
  for (StringRef p : parts) {
    std::string clean;
    for (char c : p)
      if (c != '{' && c != '}')
        clean.push_back(c == '\n' || c == '\t' ? ' ' : c);
    StringRef s = StringRef(clean).trim();
    if (s.empty() || s.starts_with(".reg"))
      continue;
    insts.push_back(s.str());
  }
  if (insts.empty())
    return out;
  if (insts.size() > 1) {
    // hexp/hexp2: scale (or not) by log2(e), ex2.approx, round back.
    if (text.contains("ex2.approx") && text.contains("cvt.f32.f16")) {
      out.kind = text.contains("0x3fb8aa3b") ? PtxHalfOp::Exp
                 : text.contains("0x40549a78") ? PtxHalfOp::None // hexp10
                                               : PtxHalfOp::Exp2;
      out.op = out.kind == PtxHalfOp::Exp ? "hexp" : "hexp2";
      out.mnemonic = out.op;
      out.dtype = KOSAN_DTYPE_F16;
      if (out.kind == PtxHalfOp::None)
        out.op.clear();
    }
    return out;
  }
  StringRef inst = insts.front();
  auto [mnemonic, operands] = inst.split(' ');
  operands = operands.trim();
  out.mnemonic = mnemonic.str();
  SmallVector<StringRef, 5> m;
  mnemonic.split(m, '.');
  StringRef base = m.front();
  if (base == "mov" && mnemonic == "mov.b32") {
    std::string ops;
    for (char c : operands)
      if (c != ' ')
        ops.push_back(c);
    if (ops == "$0,{$1,$2}") {
      out.kind = PtxHalfOp::Pack;
      out.op = "pack";
      out.lanes = 2;
    } else if (ops == "{$0,$1},$2") {
      out.kind = PtxHalfOp::Unpack;
      out.op = "unpack";
      out.lanes = 2;
    }
    return out; // the dtype comes from the values moved
  }
  bool saturates = mnemonic.contains(".sat") || mnemonic.contains(".relu");
  if (base == "cvt" && m.size() >= 3) {
    unsigned dstLanes, srcLanes;
    uint32_t dst = ptxType(m[m.size() - 2], dstLanes);
    uint32_t src = ptxType(m.back(), srcLanes);
    bool half = dst == KOSAN_DTYPE_F16 || dst == KOSAN_DTYPE_BF16 ||
                src == KOSAN_DTYPE_F16 || src == KOSAN_DTYPE_BF16;
    // Widening from a half is exact whatever the mode says.
    out.nearest = (mnemonic.contains(".rn") || src == KOSAN_DTYPE_F16 ||
                   src == KOSAN_DTYPE_BF16) &&
                  !saturates;
    if (dst && src && half && (out.nearest || anyRounding)) {
      out.kind = PtxHalfOp::Convert;
      out.op = mnemonic.str();
      out.dtype = dst;
      out.fromDtype = src;
      out.lanes = dstLanes;
    }
    return out;
  }
  static const char *const kArith[] = {"add", "sub", "mul", "fma", "neg",
                                       "abs", "min", "max"};
  out.nearest = !saturates && !mnemonic.contains(".rm") && !mnemonic.contains(".rp") &&
                !mnemonic.contains(".rz");
  if (!is_contained(kArith, base) || !(out.nearest || anyRounding))
    return out;
  unsigned lanes;
  uint32_t t = ptxType(m.back(), lanes);
  if (t != KOSAN_DTYPE_F16 && t != KOSAN_DTYPE_BF16)
    return out;
  out.kind = PtxHalfOp::Arith;
  out.op = base.str();
  out.dtype = t;
  out.lanes = lanes;
  return out;
}

void markHalfRegisters(ArrayRef<Instruction *> order, HalfRegisters &regs, bool anyRounding) {
  for (Instruction *I : order) {
    auto *CI = dyn_cast<CallInst>(I);
    if (!CI || !CI->isInlineAsm())
      continue;
    auto *IA = cast<InlineAsm>(CI->getCalledOperand());
    PtxHalfOp op = parsePtxHalfOp(IA->getAsmString(), anyRounding);
    HalfKind half{op.dtype, op.lanes};
    switch (op.kind) {
    case PtxHalfOp::Arith:
    case PtxHalfOp::Exp:
    case PtxHalfOp::Exp2:
      if (!CI->getType()->isIntegerTy())
        break;
      regs[CI] = half;
      for (Value *A : CI->args())
        if (A->getType() == CI->getType())
          regs[A] = half;
      break;
    case PtxHalfOp::Convert:
      if (CI->getType()->isIntegerTy())
        regs[CI] = half;
      for (Value *A : CI->args())
        if (A->getType()->isIntegerTy())
          regs[A] = HalfKind{op.fromDtype, 1};
      break;
    default:
      break;
    }
  }
  // Through phis and selects, both ways, until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (Instruction *I : order) {
      if (!isa<PHINode>(I) && !isa<SelectInst>(I))
        continue;
      if (!I->getType()->isIntegerTy(16) && !I->getType()->isIntegerTy(32))
        continue;
      SmallVector<Value *, 4> vals;
      if (auto *P = dyn_cast<PHINode>(I))
        vals.append(P->incoming_values().begin(), P->incoming_values().end());
      else
        vals = {cast<SelectInst>(I)->getTrueValue(), cast<SelectInst>(I)->getFalseValue()};
      HalfKind k = regs.lookup(I);
      for (Value *v : vals)
        if (!k)
          k = regs.lookup(v);
      if (!k)
        continue;
      if (!regs.count(I)) {
        regs[I] = k;
        changed = true;
      }
      for (Value *v : vals)
        if (!regs.count(v) && !isa<UndefValue>(v)) {
          regs[v] = k;
          changed = true;
        }
    }
  }
  // Pack/unpack move halves between registers: mark what they move.
  for (Instruction *I : order) {
    auto *CI = dyn_cast<CallInst>(I);
    if (!CI || !CI->isInlineAsm())
      continue;
    PtxHalfOp op = parsePtxHalfOp(cast<InlineAsm>(CI->getCalledOperand())->getAsmString());
    if (op.kind == PtxHalfOp::Pack && CI->arg_size() == 2) {
      HalfKind k = regs.lookup(CI->getArgOperand(0));
      if (!k)
        k = regs.lookup(CI->getArgOperand(1));
      if (k) {
        regs[CI] = HalfKind{k.dtype, 2};
        for (Value *A : CI->args())
          regs.try_emplace(A, HalfKind{k.dtype, 1});
      }
    }
  }
}

} // namespace kosan

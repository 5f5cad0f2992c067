//===- test/fuzz/entry_reference.h - An entry program, one block at a time ===//
//
// The reference the host's evaluation of a kernel's entry program
// (runtime/host/core/entry_test.h) is tested against, by the unit tests and
// the entry_program fuzz target: each operation on the value's bits of one
// block, as LLVM defines it and the device computes it on 64-bit words.
// A shift by the width or more is LLVM's poison: no answer (nullopt).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TEST_FUZZ_ENTRY_REFERENCE_H
#define KOSAN_TEST_FUZZ_ENTRY_REFERENCE_H

#include "core/entry_test.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace kosan::test {

inline uint64_t maskOf(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }
inline int64_t sgn(uint64_t v, unsigned w) {
  return w >= 64 ? int64_t(v) : int64_t(v << (64 - w)) >> (64 - w);
}

// The program's last value at one block. The program must have passed
// checkEntryProgram (operands before their operations, leaves inside the
// launch).
inline std::optional<uint64_t> referenceEntryProgram(std::span<const kosan_entry_op> ops,
                                                     const rt::EntryLaunch &L,
                                                     const uint32_t block[3]) {
  std::vector<uint64_t> v(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const kosan_entry_op &o = ops[i];
    // Operands an operation does not have may hold anything.
    auto at = [&](uint32_t k) { return k < i ? v[k] : 0; };
    unsigned w = o.bits, wa = o.a < i ? ops[o.a].bits : 64;
    uint64_t a = at(o.a), b = at(o.b), c = at(o.c), r = 0;
    switch (o.op) {
    case KOSAN_ENTRY_CONST: r = o.imm; break;
    case KOSAN_ENTRY_PARAM: std::memcpy(&r, L.args[o.imm], (w + 7) / 8); break;
    case KOSAN_ENTRY_INFO: std::memcpy(&r, L.info + o.imm, (w + 7) / 8); break;
    case KOSAN_ENTRY_BLOCK_ID: r = block[o.imm]; break;
    case KOSAN_ENTRY_BLOCK_DIM: r = L.block[o.imm]; break;
    case KOSAN_ENTRY_GRID_DIM: r = L.grid[o.imm]; break;
    case KOSAN_ENTRY_ADD: r = a + b; break;
    case KOSAN_ENTRY_SUB: r = a - b; break;
    case KOSAN_ENTRY_MUL: r = a * b; break;
    case KOSAN_ENTRY_SHL: if (b >= w) return std::nullopt; r = a << b; break;
    case KOSAN_ENTRY_LSHR: if (b >= w) return std::nullopt; r = a >> b; break;
    case KOSAN_ENTRY_ASHR: if (b >= w) return std::nullopt; r = uint64_t(sgn(a, w) >> b); break;
    case KOSAN_ENTRY_AND: r = a & b; break;
    case KOSAN_ENTRY_OR: r = a | b; break;
    case KOSAN_ENTRY_XOR: r = a ^ b; break;
    case KOSAN_ENTRY_ZEXT: r = a; break;
    case KOSAN_ENTRY_SEXT: r = uint64_t(sgn(a, wa)); break;
    case KOSAN_ENTRY_TRUNC: r = a; break;
    case KOSAN_ENTRY_SELECT: r = a ? b : c; break;
    case KOSAN_ENTRY_UMIN: r = std::min(a, b); break;
    case KOSAN_ENTRY_UMAX: r = std::max(a, b); break;
    case KOSAN_ENTRY_SMIN: r = sgn(a, w) < sgn(b, w) ? a : b; break;
    case KOSAN_ENTRY_SMAX: r = sgn(a, w) > sgn(b, w) ? a : b; break;
    case KOSAN_ENTRY_ICMP: {
      int64_t x = sgn(a, wa), y = sgn(b, wa);
      switch (o.imm) {
      case KOSAN_ENTRY_CMP_EQ: r = a == b; break;
      case KOSAN_ENTRY_CMP_NE: r = a != b; break;
      case KOSAN_ENTRY_CMP_UGT: r = a > b; break;
      case KOSAN_ENTRY_CMP_UGE: r = a >= b; break;
      case KOSAN_ENTRY_CMP_ULT: r = a < b; break;
      case KOSAN_ENTRY_CMP_ULE: r = a <= b; break;
      case KOSAN_ENTRY_CMP_SGT: r = x > y; break;
      case KOSAN_ENTRY_CMP_SGE: r = x >= y; break;
      case KOSAN_ENTRY_CMP_SLT: r = x < y; break;
      default: r = x <= y; break;
      }
      break;
    }
    }
    v[i] = r & maskOf(w);
  }
  return v.back();
}

} // namespace kosan::test

#endif // KOSAN_TEST_FUZZ_ENTRY_REFERENCE_H

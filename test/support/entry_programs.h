//===- test/support/entry_programs.h - Entry programs for tests and benches ===//
//
// Programs in the form of a kernel's entry test (kosan_entry_op, abi.h): a
// builder, the stencil of bench/kernels.cu with its launch, and the
// reference the host's evaluation (runtime/host/core/entry_test.h) is
// tested against by the unit tests and the entry_program fuzz target
// (each operation on the value's bits of one block, as LLVM defines it and
// the device computes it on 64-bit words; a shift by the width or more is
// LLVM's poison: no answer). Used by test/unit, test/fuzz and
// bench/entry_search.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TEST_SUPPORT_ENTRY_PROGRAMS_H
#define KOSAN_TEST_SUPPORT_ENTRY_PROGRAMS_H

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

// Builds a program one operation at a time; each call returns the index of
// the value it added.
struct Program {
  std::vector<kosan_entry_op> ops;
  uint32_t add(kosan_entry_opcode op, unsigned bits, uint32_t a = 0, uint32_t b = 0,
               uint32_t c = 0, uint64_t imm = 0) {
    ops.push_back({uint16_t(op), uint16_t(bits), a, b, c, imm});
    return uint32_t(ops.size() - 1);
  }
  uint32_t konst(unsigned bits, uint64_t v) { return add(KOSAN_ENTRY_CONST, bits, 0, 0, 0, v); }
  uint32_t cmp(kosan_entry_cmp p, uint32_t a, uint32_t b) {
    return add(KOSAN_ENTRY_ICMP, 1, a, b, 0, p);
  }
  uint32_t bin(kosan_entry_opcode op, uint32_t a, uint32_t b) {
    return add(op, ops[a].bits, a, b);
  }
};

// What the pass emits for a 1D stencil (bench/kernels.cu): in[g - 3] under
// threadIdx.x < 3, in[g] and in[g + blockDim.x] under the same, g =
// blockIdx.x * blockDim.x + threadIdx.x, each range tested against the
// argument's bounds in the launch info; the tile of blockDim.x + 6 floats
// in the dynamic shared memory.
struct Stencil {
  Program p;
  Stencil() {
    auto &q = p;
    uint32_t bid = q.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 0);
    uint32_t ntid = q.add(KOSAN_ENTRY_BLOCK_DIM, 32, 0, 0, 0, 0);
    uint32_t in = q.add(KOSAN_ENTRY_PARAM, 64, 0, 0, 0, 1);
    uint32_t begin = q.add(KOSAN_ENTRY_INFO, 64, 0, 0, 0, sizeof(kosan_launch_info) + 32);
    uint32_t end = q.add(KOSAN_ENTRY_INFO, 64, 0, 0, 0, sizeof(kosan_launch_info) + 40);
    uint32_t smem = q.add(KOSAN_ENTRY_INFO, 64, 0, 0, 0, 16);
    uint32_t mulv = q.bin(KOSAN_ENTRY_MUL, bid, ntid);
    uint32_t base = q.add(KOSAN_ENTRY_SEXT, 64, mulv);
    uint32_t n64 = q.add(KOSAN_ENTRY_ZEXT, 64, ntid);
    uint32_t last = q.bin(KOSAN_ENTRY_SUB, n64, q.konst(64, 1));
    uint32_t halo = q.bin(KOSAN_ENTRY_UMIN, last, q.konst(64, 2));
    auto range = [&](uint32_t firstElem, uint32_t lastElem) {
      uint32_t lo = q.bin(KOSAN_ENTRY_ADD, in, q.bin(KOSAN_ENTRY_SHL, firstElem, q.konst(64, 2)));
      uint32_t hi = q.bin(KOSAN_ENTRY_ADD, in,
                          q.bin(KOSAN_ENTRY_SHL, q.bin(KOSAN_ENTRY_ADD, lastElem, q.konst(64, 1)),
                                q.konst(64, 2)));
      return q.bin(KOSAN_ENTRY_AND, q.cmp(KOSAN_ENTRY_CMP_UGE, lo, begin),
                   q.cmp(KOSAN_ENTRY_CMP_ULE, hi, end));
    };
    uint32_t left = q.bin(KOSAN_ENTRY_SUB, base, q.konst(64, 3));
    uint32_t t1 = range(left, q.bin(KOSAN_ENTRY_ADD, left, halo));
    uint32_t t2 = range(base, q.bin(KOSAN_ENTRY_ADD, base, last));
    uint32_t right = q.bin(KOSAN_ENTRY_ADD, base, n64);
    uint32_t t3 = range(right, q.bin(KOSAN_ENTRY_ADD, right, halo));
    uint32_t tile = q.bin(KOSAN_ENTRY_SHL, q.bin(KOSAN_ENTRY_ADD, n64, q.konst(64, 6)),
                          q.konst(64, 2));
    uint32_t t4 = q.cmp(KOSAN_ENTRY_CMP_SLE, tile, smem);
    q.bin(KOSAN_ENTRY_AND, q.bin(KOSAN_ENTRY_AND, t1, t2), q.bin(KOSAN_ENTRY_AND, t3, t4));
  }
};

struct StencilLaunch {
  uint64_t out = 0x7f0000100000ull, in = 0x7f0000200000ull;
  int32_t n;
  void *args[3] = {&out, &in, &n};
  // The kernel's parameter sizes, as checkEntryProgram takes them.
  const std::vector<size_t> sizes = {sizeof out, sizeof in, sizeof n};
  std::vector<uint64_t> info;
  rt::EntryLaunch L;
  StencilLaunch(int32_t elems, uint32_t block, uint64_t inBytes, uint64_t smem) : n(elems) {
    info.assign(sizeof(kosan_launch_info) / 8 + 3 * 4, 0);
    info[2] = smem;
    info[sizeof(kosan_launch_info) / 8 + 4] = in;
    info[sizeof(kosan_launch_info) / 8 + 5] = in + inBytes;
    L.args = args;
    L.nargs = 3;
    L.info = reinterpret_cast<const uint8_t *>(info.data());
    L.infoBytes = info.size() * 8;
    L.grid[0] = uint32_t(elems / block);
    L.block[0] = block;
  }
};

} // namespace kosan::test

#endif // KOSAN_TEST_SUPPORT_ENTRY_PROGRAMS_H

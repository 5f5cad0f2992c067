// The host's evaluation of a kernel's entry program (runtime/host/core/
// entry_test.h): exact on single blocks (against test/support/entry_programs.h,
// each operation on 64-bit words, as the device computes it), never wrong on a box
// (a box it proves holds only blocks that pass), and finding the blocks of
// a stencil with a halo (every block but the first and the last).
#include "core/entry_test.h"
#include "support/entry_programs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <random>

using namespace kosan::rt;
using kosan::test::Program;
using kosan::test::Stencil;
using kosan::test::StencilLaunch;

using kosan::test::maskOf;
using kosan::test::referenceEntryProgram;

namespace {

// A random well-formed program over the block index (x and y), two
// parameters and one launch-info word, ending in a truth value.
Program randomProgram(std::mt19937_64 &rng) {
  Program p;
  auto pick = [&](uint64_t n) { return uint64_t(rng() % n); };
  const unsigned widths[] = {1, 8, 16, 32, 64};
  p.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 0);
  p.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 1);
  p.add(KOSAN_ENTRY_PARAM, 32, 0, 0, 0, 0);
  p.add(KOSAN_ENTRY_PARAM, 64, 0, 0, 0, 1);
  p.add(KOSAN_ENTRY_INFO, 64, 0, 0, 0, 8);
  p.add(KOSAN_ENTRY_BLOCK_DIM, 32, 0, 0, 0, 0);
  p.add(KOSAN_ENTRY_ZEXT, 64, 0);
  p.add(KOSAN_ENTRY_SEXT, 64, 1);
  p.add(KOSAN_ENTRY_MUL, 32, 0, 5);
  auto ofWidth = [&](unsigned w) -> uint32_t {
    std::vector<uint32_t> c;
    for (uint32_t i = 0; i < p.ops.size(); ++i)
      if (p.ops[i].bits == w)
        c.push_back(i);
    // Mostly the latest values, so that results depend on the block.
    if (!c.empty() && pick(2))
      return c[c.size() - 1 - pick(std::min<uint64_t>(c.size(), 2))];
    if (c.empty() || pick(4) == 0) {
      static const uint64_t small[] = {0, 1, 2, 3, 4, 12, 255, 1024, ~0ull, ~0ull - 11,
                                       0x80000000ull, 0x7fffffffull};
      return p.konst(w, small[pick(12)] & maskOf(w));
    }
    return c[pick(c.size())];
  };
  unsigned n = 4 + unsigned(pick(20));
  for (unsigned k = 0; k < n; ++k) {
    unsigned w = widths[pick(5)];
    switch (pick(9)) {
    case 0: {
      static const kosan_entry_opcode arith[] = {KOSAN_ENTRY_ADD, KOSAN_ENTRY_SUB, KOSAN_ENTRY_MUL,
                                                 KOSAN_ENTRY_AND, KOSAN_ENTRY_OR, KOSAN_ENTRY_XOR};
      p.bin(arith[pick(6)], ofWidth(w), ofWidth(w));
      break;
    }
    case 1:
      p.bin(pick(2) ? KOSAN_ENTRY_ADD : KOSAN_ENTRY_MUL, ofWidth(w), ofWidth(w));
      break;
    case 2: {
      static const kosan_entry_opcode shifts[] = {KOSAN_ENTRY_SHL, KOSAN_ENTRY_LSHR,
                                                  KOSAN_ENTRY_ASHR};
      p.bin(shifts[pick(3)], ofWidth(w), p.konst(w, pick(w)));
      break;
    }
    case 3: {
      static const kosan_entry_opcode mm[] = {KOSAN_ENTRY_UMIN, KOSAN_ENTRY_UMAX, KOSAN_ENTRY_SMIN,
                                              KOSAN_ENTRY_SMAX};
      p.bin(mm[pick(4)], ofWidth(w), ofWidth(w));
      break;
    }
    case 4: {
      unsigned from = widths[pick(5)];
      uint32_t a = ofWidth(from);
      if (from < w)
        p.add(pick(2) ? KOSAN_ENTRY_ZEXT : KOSAN_ENTRY_SEXT, w, a);
      else
        p.add(KOSAN_ENTRY_TRUNC, w, a);
      break;
    }
    case 5:
      p.add(KOSAN_ENTRY_SELECT, w, ofWidth(1), ofWidth(w), ofWidth(w));
      break;
    default:
      p.cmp(kosan_entry_cmp(pick(KOSAN_ENTRY_NUM_CMPS)), ofWidth(w), ofWidth(w));
      break;
    }
  }
  uint32_t last = ofWidth(1);
  if (last != p.ops.size() - 1)
    p.bin(KOSAN_ENTRY_AND, last, p.konst(1, 1));
  return p;
}

struct Launch {
  uint32_t n = 1000;
  uint64_t ptr = 0x7f0000001000ull;
  uint64_t info[4] = {0, 0x7f0000000000ull, 0, 0};
  void *args[2] = {&n, &ptr};
  const std::vector<size_t> sizes = {sizeof n, sizeof ptr};
  EntryLaunch get(uint32_t gx, uint32_t gy, uint32_t bx) {
    EntryLaunch L;
    L.args = args;
    L.nargs = 2;
    L.info = reinterpret_cast<const uint8_t *>(info);
    L.infoBytes = sizeof info;
    L.grid[0] = gx;
    L.grid[1] = gy;
    L.block[0] = bx;
    return L;
  }
};

} // namespace

TEST(EntryProgram, ExactOnEveryBlockAndNeverWrongOnABox) {
  std::mt19937_64 rng(20261203);
  Launch launch;
  unsigned proven = 0, boxes = 0;
  for (unsigned round = 0; round < 3000; ++round) {
    Program p = randomProgram(rng);
    ASSERT_EQ(checkEntryProgram(p.ops, launch.sizes, sizeof launch.info), "") << round;
    launch.n = uint32_t(rng() % 5000);
    EntryLaunch L = launch.get(uint32_t(1 + rng() % 300), uint32_t(1 + rng() % 3),
                               uint32_t(1 + rng() % 1024));
    for (unsigned k = 0; k < 4; ++k) {
      uint32_t b[3] = {uint32_t(rng() % L.grid[0]), uint32_t(rng() % L.grid[1]), 0};
      std::optional<uint64_t> want = referenceEntryProgram(p.ops, L, b);
      int got = evalEntryProgram(p.ops, L, b, b);
      if (want) { // a shift beyond the width: LLVM's poison, any answer
        ASSERT_EQ(got, int(*want)) << "round " << round;
      }
    }
    uint32_t lo[3] = {uint32_t(rng() % L.grid[0]), 0, 0};
    uint32_t hi[3] = {std::min(L.grid[0] - 1, lo[0] + uint32_t(rng() % 40)), L.grid[1] - 1, 0};
    int box = evalEntryProgram(p.ops, L, lo, hi);
    ++boxes;
    if (box < 0)
      continue;
    ++proven;
    for (uint32_t x = lo[0]; x <= hi[0]; ++x)
      for (uint32_t y = lo[1]; y <= hi[1]; ++y) {
        uint32_t b[3] = {x, y, 0};
        std::optional<uint64_t> want = referenceEntryProgram(p.ops, L, b);
        if (want) {
          ASSERT_EQ(uint64_t(box), *want) << "round " << round << " block " << x << "," << y;
        }
      }
    FastBlocks f = fastBlocks(p.ops, 3, L);
    for (uint32_t x = f.lo[0]; f.any() && x < f.lo[0] + f.n[0]; x += 1 + f.n[0] / 16)
      for (uint32_t y = f.lo[1]; y < f.lo[1] + f.n[1]; ++y) {
        uint32_t b[3] = {x, y, 0};
        std::optional<uint64_t> want = referenceEntryProgram(p.ops, L, b);
        if (want) {
          ASSERT_EQ(*want, 1u) << "round " << round << " fast block " << x << "," << y;
        }
      }
  }
  // Most boxes are decided: the evaluation is not vacuous.
  EXPECT_GT(proven, boxes / 2);
}

TEST(EntryProgram, AStencilRunsFastInEveryBlockButTheFirstAndTheLast) {
  Stencil s;
  StencilLaunch ok(1 << 20, 256, 4u << 20, (256 + 6) * 4);
  ASSERT_EQ(checkEntryProgram(s.p.ops, ok.sizes, ok.L.infoBytes), "");
  FastBlocks f = fastBlocks(s.p.ops, 1, ok.L);
  EXPECT_EQ(f.lo[0], 1u);
  EXPECT_EQ(f.n[0], 4096u - 2);
  EXPECT_EQ(f.n[1], 1u);
  EXPECT_EQ(f.n[2], 1u);
  // Every block of the box passes, the two outside fail.
  for (uint32_t b : {0u, 1u, 2u, 2047u, 4094u, 4095u}) {
    uint32_t at[3] = {b, 0, 0};
    EXPECT_EQ(evalEntryProgram(s.p.ops, ok.L, at, at), b >= 1 && b <= 4094 ? 1 : 0) << b;
  }
}

TEST(EntryProgram, AShortBufferEndsTheFastBlocksBeforeIt) {
  Stencil s;
  // The input holds 1000 floats fewer than the grid covers: block 4091's
  // right halo (elements 1047552..1047554) is the last in bounds.
  StencilLaunch shortIn(1 << 20, 256, (4u << 20) - 4000, (256 + 6) * 4);
  FastBlocks f = fastBlocks(s.p.ops, 1, shortIn.L);
  EXPECT_EQ(f.lo[0], 1u);
  EXPECT_EQ(f.lo[0] + f.n[0] - 1, 4091u);
}

TEST(EntryProgram, ATileOneFloatShortRunsEveryBlockChecked) {
  Stencil s;
  StencilLaunch tile(1 << 20, 256, 4u << 20, (256 + 6) * 4 - 4);
  EXPECT_FALSE(fastBlocks(s.p.ops, 1, tile.L).any());
}

TEST(EntryProgram, AProgramThatHoldsEverywhereTakesTheWholeGrid) {
  Program p;
  uint32_t bid = p.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 0);
  p.cmp(KOSAN_ENTRY_CMP_ULT, bid, p.add(KOSAN_ENTRY_GRID_DIM, 32, 0, 0, 0, 0));
  Launch launch;
  EntryLaunch L = launch.get(70000, 3, 128);
  FastBlocks f = fastBlocks(p.ops, 1, L);
  EXPECT_EQ(f.lo[0], 0u);
  EXPECT_EQ(f.n[0], 70000u);
  EXPECT_EQ(f.n[1], 3u);
}

TEST(EntryProgram, TwoDimensionsGetABox) {
  // 1 <= x <= gx - 2 and y >= 2: a halo in x, two rows skipped in y.
  Program p;
  uint32_t x = p.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 0);
  uint32_t y = p.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 1);
  uint32_t gx = p.add(KOSAN_ENTRY_GRID_DIM, 32, 0, 0, 0, 0);
  uint32_t tx = p.bin(KOSAN_ENTRY_AND, p.cmp(KOSAN_ENTRY_CMP_UGE, x, p.konst(32, 1)),
                      p.cmp(KOSAN_ENTRY_CMP_ULT, p.bin(KOSAN_ENTRY_ADD, x, p.konst(32, 1)), gx));
  p.bin(KOSAN_ENTRY_AND, tx, p.cmp(KOSAN_ENTRY_CMP_SGE, y, p.konst(32, 2)));
  Launch launch;
  EntryLaunch L = launch.get(64, 40, 128);
  FastBlocks f = fastBlocks(p.ops, 3, L);
  EXPECT_EQ(f.lo[0], 1u);
  EXPECT_EQ(f.n[0], 62u);
  EXPECT_EQ(f.lo[1], 2u);
  EXPECT_EQ(f.n[1], 38u);
}

TEST(EntryProgram, MalformedProgramsAreRefused) {
  Program p;
  p.add(KOSAN_ENTRY_ADD, 32, 0, 1); // operands not before it
  EXPECT_NE(checkEntryProgram(p.ops, {}, 56), "");
  Program q;
  q.add(KOSAN_ENTRY_PARAM, 32, 0, 0, 0, 5);
  q.cmp(KOSAN_ENTRY_CMP_EQ, 0, 0);
  EXPECT_NE(checkEntryProgram(q.ops, std::vector<size_t>{4, 4}, 56), "")
      << "a parameter the kernel does not have";
  Program w;
  w.add(KOSAN_ENTRY_PARAM, 64, 0, 0, 0, 1);
  w.cmp(KOSAN_ENTRY_CMP_EQ, 0, 0);
  EXPECT_EQ(checkEntryProgram(w.ops, std::vector<size_t>{4, 8}, 56), "");
  EXPECT_NE(checkEntryProgram(w.ops, std::vector<size_t>{8, 4}, 56), "")
      << "8 bytes of a 4-byte parameter";
  Program r;
  r.add(KOSAN_ENTRY_INFO, 64, 0, 0, 0, 52);
  r.cmp(KOSAN_ENTRY_CMP_EQ, 0, 0);
  EXPECT_NE(checkEntryProgram(r.ops, {}, 56), "") << "a field past the launch info";
  Program s;
  s.konst(32, 1);
  EXPECT_NE(checkEntryProgram(s.ops, {}, 56), "") << "not a truth value";
  Program t;
  t.add(uint16_t(KOSAN_ENTRY_NUM_OPS) == 0 ? KOSAN_ENTRY_CONST : kosan_entry_opcode(200), 1);
  EXPECT_NE(checkEntryProgram(t.ops, {}, 56), "");
  EXPECT_NE(checkEntryProgram({}, {}, 56), "");
}

TEST(EntryProgram, LeavesNameTheLaunch) {
  Stencil s;
  StencilLaunch a(1 << 20, 256, 4u << 20, 1048), b(1 << 20, 256, 4u << 20, 1048),
      c(1 << 20, 256, 4u << 20, 1044);
  EXPECT_EQ(entryLeaves(s.p.ops, a.L), entryLeaves(s.p.ops, b.L));
  EXPECT_NE(entryLeaves(s.p.ops, a.L), entryLeaves(s.p.ops, c.L));
}

TEST(EntryProgram, AnElementwiseTailLeavesTheLastBlockChecked) {
  // (bid + 1) * bd <= n: the block's last element is in bounds; n = 1000,
  // blocks of 128: blocks 0..6 pass, block 7 (elements 896..1023) does not.
  Program p;
  uint32_t bid = p.add(KOSAN_ENTRY_BLOCK_ID, 32, 0, 0, 0, 0);
  uint32_t bd = p.add(KOSAN_ENTRY_BLOCK_DIM, 32, 0, 0, 0, 0);
  uint32_t n = p.add(KOSAN_ENTRY_PARAM, 32, 0, 0, 0, 0);
  uint32_t end = p.bin(KOSAN_ENTRY_MUL, p.bin(KOSAN_ENTRY_ADD, bid, p.konst(32, 1)), bd);
  p.cmp(KOSAN_ENTRY_CMP_SLE, end, n);
  Launch launch;
  EntryLaunch L = launch.get(8, 1, 128);
  FastBlocks f = fastBlocks(p.ops, 1, L);
  EXPECT_EQ(f.lo[0], 0u);
  EXPECT_EQ(f.n[0], 7u);
}

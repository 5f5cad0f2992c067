//===- entry_program_fuzz.cpp - libFuzzer target: a kernel's entry test ----===//
//
// The input is an entry program as a module's site table holds it
// (kosan_entry_op, abi.h) behind a launch: the host reads such programs
// from whatever module a process loads. checkEntryProgram must refuse a
// malformed one without a crash or a read outside the launch; a program it
// accepts is then evaluated as the runtime does (fastBlocks, entryLeaves),
// and the answer must be sound: every block of the box it returns passes
// the test one block at a time (test/support/entry_programs.h), and a single
// block's evaluation is the reference's.
//
// Layout: 12 bytes of grid and block sizes (six 16-bit words), 1 byte of
// dimensions and parameter count, 4 parameter sizes (1 byte each, 1..8),
// 4 parameters of 8 bytes, 64 bytes of launch info, then the operations,
// 24 bytes each.
//
//===----------------------------------------------------------------------===//
#include "core/entry_test.h"
#include "support/entry_programs.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace kosan;

namespace {

[[noreturn]] void fail(const char *what, uint32_t x, uint32_t y, uint32_t z) {
  std::fprintf(stderr, "entry program: %s at block (%u, %u, %u)\n", what, x, y, z);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  constexpr size_t kHeader = 12 + 1 + 4 + 4 * 8 + 64;
  if (size < kHeader)
    return 0;
  rt::EntryLaunch L;
  uint16_t dimsWords[6];
  std::memcpy(dimsWords, data, sizeof dimsWords);
  for (unsigned d = 0; d < 3; ++d) {
    L.grid[d] = 1 + dimsWords[d] % (d ? 64 : 65536);
    L.block[d] = 1 + dimsWords[3 + d] % 1024;
  }
  uint32_t dims = 1 + data[12] % 3;
  size_t nargs = (data[12] >> 2) % 5;
  // Each parameter in its own allocation of its own size: a read past one
  // is a sanitizer report.
  std::vector<std::vector<uint8_t>> params(nargs);
  std::vector<size_t> sizes(nargs);
  std::vector<void *> args(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    sizes[i] = 1 + data[13 + i] % 8;
    params[i].assign(data + 17 + 8 * i, data + 17 + 8 * i + sizes[i]);
    args[i] = params[i].data();
  }
  std::vector<uint8_t> info(data + 49, data + 49 + 64);
  L.args = args.data();
  L.nargs = nargs;
  L.info = info.data();
  L.infoBytes = info.size();

  size_t nops = std::min<size_t>((size - kHeader) / sizeof(kosan_entry_op), 256);
  std::vector<kosan_entry_op> ops(nops);
  if (nops)
    std::memcpy(ops.data(), data + kHeader, nops * sizeof(kosan_entry_op));
  if (!rt::checkEntryProgram(ops, sizes, info.size()).empty())
    return 0;

  (void)rt::entryLeaves(ops, L);
  rt::FastBlocks f = rt::fastBlocks(ops, dims, L);
  for (unsigned d = 0; d < 3; ++d)
    if (f.any() && (uint64_t(f.lo[d]) + f.n[d] > L.grid[d] || (d >= dims && f.lo[d] != 0)))
      fail("a box outside the grid", f.lo[0], f.lo[1], f.lo[2]);

  // Up to 4 x 4 x 2 blocks of the box, its corners among them.
  auto spread = [&](unsigned d, unsigned k, unsigned of) {
    return f.lo[d] + uint32_t(uint64_t(f.n[d] - 1) * k / (of - 1));
  };
  if (f.any())
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned j = 0; j < 4; ++j)
        for (unsigned k = 0; k < 2; ++k) {
          uint32_t b[3] = {spread(0, i, 4), spread(1, j, 4), spread(2, k, 2)};
          std::optional<uint64_t> want = test::referenceEntryProgram(ops, L, b);
          if (want && *want != 1) // nullopt: a shift past the width, LLVM's poison
            fail("a block of the fast box fails the test", b[0], b[1], b[2]);
        }

  // A single block is decided exactly.
  for (unsigned s = 0; s < 4; ++s) {
    uint32_t b[3] = {uint32_t((uint64_t(s) * 7919) % L.grid[0]),
                     uint32_t((uint64_t(s) * 31) % L.grid[1]), uint32_t(s % L.grid[2])};
    std::optional<uint64_t> want = test::referenceEntryProgram(ops, L, b);
    int got = rt::evalEntryProgram(ops, L, b, b);
    if (want && got != int(*want))
      fail("a single block evaluated wrongly", b[0], b[1], b[2]);
  }
  return 0;
}

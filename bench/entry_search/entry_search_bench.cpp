//===- entry_search_bench.cpp - The host's decision of a kernel's entry test ===//
//
// kosan_entry_search_bench [REPS]
//
// A launch of a kernel the OOB check copied whole costs the host, when the
// launch's leaves (the parameters its entry program reads, the launch
// info's fields, grid and block) differ from the kernel's last launch, a
// search for the blocks that pass its test (fastBlocks); when they are the
// same, the leaves alone (entryLeaves) and a comparison. This times both
// on the stencil of bench/kernels.cu (the program the pass emits for it,
// test/support/entry_programs.h) over grids of 4 Ki to 1 Mi blocks, and on
// a short input (the fast blocks end before the last block) and a tile one
// float short (no block passes), and prints microseconds per launch and
// the ratio of the search to the leaves. Host code only: the figures are
// this machine's CPU, to set against a launch's own host cost (a few
// microseconds on current drivers).
//
//===----------------------------------------------------------------------===//
#include "core/entry_test.h"
#include "support/entry_programs.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace kosan;

namespace {

template <typename F> double microsPerCall(F &&f, unsigned reps) {
  auto t0 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < reps; ++i)
    f();
  std::chrono::duration<double, std::micro> d = std::chrono::steady_clock::now() - t0;
  return d.count() / reps;
}

volatile uint64_t sink;

} // namespace

int main(int argc, char **argv) {
  unsigned reps = argc > 1 ? unsigned(std::atoi(argv[1])) : 20000;
  test::Stencil s;
  test::StencilLaunch first(1 << 20, 256, 4u << 20, (256 + 6) * 4);
  if (std::string why = rt::checkEntryProgram(s.p.ops, first.sizes, first.L.infoBytes);
      !why.empty()) {
    std::fprintf(stderr, "kosan_entry_search_bench: %s\n", why.c_str());
    return 1;
  }
  std::printf("| launch | blocks | fast blocks | search (us) | leaves (us) | search/leaves |\n");
  std::printf("|---|---:|---:|---:|---:|---:|\n");
  struct Case {
    const char *name;
    int32_t elems;
    uint64_t inBytes, smem;
  };
  const Case cases[] = {
      {"stencil, 4 Ki blocks", 1 << 20, 4u << 20, (256 + 6) * 4},
      {"stencil, 256 Ki blocks", 1 << 26, 1ull << 28, (256 + 6) * 4},
      {"stencil, 1 Mi blocks", 1 << 28, 1ull << 30, (256 + 6) * 4},
      {"input 4000 bytes short", 1 << 20, (4u << 20) - 4000, (256 + 6) * 4},
      {"tile one float short", 1 << 20, 4u << 20, (256 + 6) * 4 - 4},
  };
  for (const Case &c : cases) {
    test::StencilLaunch launch(c.elems, 256, c.inBytes, c.smem);
    rt::FastBlocks f;
    double search = microsPerCall([&] { f = rt::fastBlocks(s.p.ops, 1, launch.L); }, reps);
    double leaves = microsPerCall(
        [&] { sink = rt::entryLeaves(s.p.ops, launch.L).size(); }, reps);
    std::printf("| %s | %u | %u | %.3f | %.3f | %.1f |\n", c.name, launch.L.grid[0],
                f.any() ? f.n[0] : 0u, search, leaves, search / leaves);
  }
  return 0;
}

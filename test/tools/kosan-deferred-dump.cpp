//===- test/tools/kosan-deferred-dump.cpp - Read a module's deferred clones ===//
//
// Test-only: reads the table of deferred clones (abi.h) from the PTX of a
// device module (kosan-clang++ --cuda-device-only -S
// -fplugin-arg-kosan-defer=1) with the runtime's own reader, and prints
// each clone and the globals it reaches. With --ptx NAME FILE it writes
// that clone's PTX, decompressed and with its table of global addresses
// filled in (1, 2, ... for the refs in order), as the runtime hands it to
// the driver.
//
//   kosan-deferred-dump module.ptx [--ptx CLONE out.ptx]
//
//===----------------------------------------------------------------------===//
#include "core/deferred_table.h"
#include "kosan/zstd_api.h"

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace kosan::rt;

int main(int argc, char **argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: %s module.ptx [--ptx CLONE out.ptx]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::string ptx = text.str();
  // .global .align 8 .b8 __kosan_deferred[N] = {b0, b1, ...}; trailing zeros
  // may be left out.
  std::smatch m;
  std::regex decl(KOSAN_DEFERRED_SYMBOL "\\[([0-9]+)\\] = \\{([^}]*)\\}");
  if (!std::regex_search(ptx, m, decl)) {
    std::fprintf(stderr, "no %s in %s\n", KOSAN_DEFERRED_SYMBOL, argv[1]);
    return 1;
  }
  std::vector<char> blob(std::stoull(m[1].str()), '\0');
  std::stringstream bytes(m[2].str());
  size_t n = 0;
  for (std::string b; std::getline(bytes, b, ',') && n < blob.size();)
    blob[n++] = char(std::stoi(b));
  std::vector<DeferredKernel> kernels;
  std::string why = parseDeferredTable(blob, kernels);
  if (!why.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  const kosan::detail::ZstdApi *z = kosan::detail::zstdApi();
  for (const DeferredKernel &k : kernels) {
    std::printf("clone %s: %zu bytes of PTX in %zu\n", k.name.c_str(), size_t(k.ptxBytes),
                k.zptx.size());
    std::vector<uint64_t> addresses;
    for (const DeferredRef &r : k.refs) {
      std::printf("  %s %s %zu bytes\n", r.kind == KOSAN_DEFERRED_MIRROR ? "mirror" : "address",
                  r.name.c_str(), size_t(r.bytes));
      if (r.kind == KOSAN_DEFERRED_ADDRESS)
        addresses.push_back(addresses.size() + 1);
    }
    if (argc != 5 || k.name != argv[3])
      continue;
    std::string out(k.ptxBytes, '\0');
    size_t got = z->decompress(out.data(), out.size(), k.zptx.data(), k.zptx.size());
    if (z->isError(got) || got != k.ptxBytes) {
      std::fprintf(stderr, "%s does not decompress\n", k.name.c_str());
      return 1;
    }
    why = writeGlobalTable(out, addresses);
    if (!why.empty()) {
      std::fprintf(stderr, "%s\n", why.c_str());
      return 1;
    }
    std::ofstream(argv[4]) << out;
  }
  return 0;
}

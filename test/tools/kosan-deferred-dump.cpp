//===- test/tools/kosan-deferred-dump.cpp - Read a module's deferred clones ===//
//
// Test-only: reads the table of deferred clones (abi.h) from the PTX of a
// device module (kosan-clang++ --cuda-device-only -S
// -fplugin-arg-kosan-defer=1 or =ptx) with the runtime's own reader, and
// prints each clone and the globals it reaches. With --ptx NAME FILE it
// writes that clone's PTX as the runtime hands it to the driver (a clone
// kept as bitcode made PTX as the runtime makes it: core/clone_codegen.h);
// with --code NAME FILE, its code as kept (bitcode or PTX).
//
//   kosan-deferred-dump module.ptx [--ptx|--code CLONE FILE]
//
//===----------------------------------------------------------------------===//
#include "core/clone_codegen.h"
#include "core/deferred_table.h"
#include "core/options.h"
#include "kosan/zstd_api.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace kosan::rt;

int main(int argc, char **argv) {
  if ((argc != 2 && argc != 5) ||
      (argc == 5 && std::strcmp(argv[2], "--ptx") != 0 && std::strcmp(argv[2], "--code") != 0)) {
    std::fprintf(stderr, "usage: %s module.ptx [--ptx|--code CLONE FILE]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::string ptx = text.str();
  // .global .align 8 .b8 __kosan_deferred[N] = {b0, b1, ...}; trailing zeros
  // may be left out.
  size_t at = ptx.find(KOSAN_DEFERRED_SYMBOL "[");
  size_t open = at == std::string::npos ? at : ptx.find("] = {", at);
  size_t close = open == std::string::npos ? open : ptx.find('}', open);
  if (close == std::string::npos) {
    std::fprintf(stderr, "no %s in %s\n", KOSAN_DEFERRED_SYMBOL, argv[1]);
    return 1;
  }
  at += std::strlen(KOSAN_DEFERRED_SYMBOL "[");
  std::vector<char> blob(std::stoull(ptx.substr(at, open - at)), '\0');
  std::stringstream bytes(ptx.substr(open + 5, close - open - 5));
  size_t n = 0;
  for (std::string b; std::getline(bytes, b, ',') && n < blob.size();)
    blob[n++] = char(std::stoi(b));
  DeferredTable table;
  std::string why = parseDeferredTable(blob, table);
  if (!why.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return 1;
  }
  const kosan::detail::ZstdApi *z = kosan::detail::zstdApi();
  std::string payload(table.payloadBytes, '\0');
  size_t got = z->decompress(payload.data(), payload.size(), table.zpayload.data(),
                             table.zpayload.size());
  if (z->isError(got) || got != payload.size()) {
    std::fprintf(stderr, "the payload does not decompress\n");
    return 1;
  }
  const char *form = table.format == KOSAN_DEFERRED_BITCODE ? "bitcode" : "PTX";
  std::printf("%zu clones, %zu bytes of %s in %zu\n", table.kernels.size(), payload.size(), form,
              table.zpayload.size());
  for (const DeferredKernel &k : table.kernels) {
    std::printf("clone %s: %zu bytes of %s\n", k.name.c_str(), size_t(k.codeBytes), form);
    for (const DeferredRef &r : k.refs) {
      std::printf("  %s %s %zu bytes\n", r.kind == KOSAN_DEFERRED_MIRROR ? "mirror" : "address",
                  r.name.c_str(), size_t(r.bytes));
    }
    if (argc != 5 || k.name != argv[3])
      continue;
    std::string code = payload.substr(k.codeOffset, k.codeBytes);
    if (std::strcmp(argv[2], "--ptx") == 0 && table.format == KOSAN_DEFERRED_BITCODE) {
      // The cache's size as the runtime reads it (KOSAN_OPTIONS ptx_cache_mb).
      Options opts = parseOptions(std::getenv("KOSAN_OPTIONS")).options;
      ClonePtx made = clonePtx(code, uint64_t(opts.ptx_cache_mb) << 20);
      if (made.ptx.empty()) {
        std::fprintf(stderr, "%s\n", made.why.c_str());
        return 1;
      }
      std::printf("  made PTX: %zu bytes, %s\n", made.ptx.size(),
                  made.generated ? "generated" : "from the cache");
      code = std::move(made.ptx);
    }
    std::ofstream(argv[4], std::ios::binary) << code;
  }
  return 0;
}

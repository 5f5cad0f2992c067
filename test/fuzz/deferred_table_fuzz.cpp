//===- deferred_table_fuzz.cpp - libFuzzer target: a table of deferred clones ===//
//
// The input is a module's table of deferred clones (abi.h,
// KOSAN_DEFERRED_SYMBOL) as the runtime copies it from the device: the
// runtime reads such tables from whatever module a process loads.
// parseDeferredTable must refuse a malformed one without a crash or a read
// outside it; for a table it accepts, the frame lies inside the table and
// every kernel's code inside the payload, and the runtime's decompression
// (the bound it checks first, then zstd) stays within the payload's size.
//
//===----------------------------------------------------------------------===//
#include "core/deferred_table.h"
#include "kosan/zstd_api.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace kosan::rt;

namespace {

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "deferred table: %s\n", what);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::span<const char> blob(reinterpret_cast<const char *>(data), size);
  DeferredTable t;
  std::string why = parseDeferredTable(blob, t);
  if (!why.empty()) {
    if (!t.kernels.empty())
      fail("a refused table kept kernels");
    return 0;
  }
  if (t.format != KOSAN_DEFERRED_PTX && t.format != KOSAN_DEFERRED_BITCODE)
    fail("a table of unknown form accepted");
  if (t.zpayload.data() < blob.data() ||
      t.zpayload.data() + t.zpayload.size() > blob.data() + blob.size())
    fail("the frame lies outside the table");
  for (const DeferredKernel &k : t.kernels)
    if (k.codeOffset > t.payloadBytes || k.codeBytes > t.payloadBytes - k.codeOffset)
      fail("a kernel's code lies outside the payload");
  // As Runtime::loadDeferredClone decompresses (bounded here to keep the
  // fuzzer's memory small).
  if (t.payloadBytes > kosan::detail::maxZstdContentSize(t.zpayload.size()) ||
      t.payloadBytes > (16u << 20))
    return 0;
  const kosan::detail::ZstdApi *z = kosan::detail::zstdApi();
  std::string payload(t.payloadBytes, '\0');
  size_t got = z->decompress(payload.data(), payload.size(), t.zpayload.data(), t.zpayload.size());
  if (!z->isError(got) && got != t.payloadBytes && got > payload.size())
    fail("decompression ran past the payload");
  return 0;
}

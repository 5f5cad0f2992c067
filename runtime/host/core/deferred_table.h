//===- runtime/host/core/deferred_table.h - The table of deferred clones ---===//
//
// Reading a module's table of deferred clones (abi.h, KOSAN_DEFERRED_SYMBOL):
// a pure function, tested on tables the pass wrote
// (test/lit/pass/defer_clones.test, through test/tools/kosan-deferred-dump).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_DEFERRED_TABLE_H
#define KOSAN_RUNTIME_HOST_CORE_DEFERRED_TABLE_H

#include "kosan/abi.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kosan::rt {

struct DeferredRef {
  std::string name;
  uint32_t kind = KOSAN_DEFERRED_ADDRESS; // kosan_deferred_ref_kind
  uint64_t bytes = 0;
};

struct DeferredKernel {
  std::string name; // the clone's
  std::vector<DeferredRef> refs;
  uint64_t codeOffset = 0, codeBytes = 0; // in the decompressed payload
};

struct DeferredTable {
  uint32_t format = KOSAN_DEFERRED_PTX; // kosan_deferred_format
  std::vector<DeferredKernel> kernels;
  std::string_view zpayload; // the zstd frame, in the table
  uint64_t payloadBytes = 0; // what it decompresses to
};

// The kernels of a table; an error (one line), and `out` empty, when it is
// not one this kosan wrote, or is damaged.
std::string parseDeferredTable(std::span<const char> blob, DeferredTable &out);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_DEFERRED_TABLE_H

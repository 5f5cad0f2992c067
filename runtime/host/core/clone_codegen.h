//===- runtime/host/core/clone_codegen.h - PTX of clones kept as bitcode -*- C++ -*-===//
//
// A deferred clone kept as LLVM bitcode (abi.h, KOSAN_DEFERRED_BITCODE)
// becomes PTX at its kernel's first checked launch: read from kosan's cache
// on disk, ${XDG_CACHE_HOME:-$HOME/.cache}/kosan/ptx/, or else made by
// libkosan_codegen.so (kosan/codegen.h; KOSAN_CODEGEN, or next to the
// library this code is in) and written there for later runs. The cache's
// key is the bitcode (which names the target, the fusion and the code
// generator's options) and the LLVM kosan was built with.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_RUNTIME_HOST_CORE_CLONE_CODEGEN_H
#define KOSAN_RUNTIME_HOST_CORE_CLONE_CODEGEN_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace kosan::rt {

struct ClonePtx {
  std::string ptx;        // empty: none, and why says why
  std::string why;
  bool generated = false; // made now (not read from the cache)
  double seconds = 0;     // the code generator's time, when it ran
};

// Thread-safe (the code generator compiles one module at a time).
// cacheBytes: the most the cache may hold (KOSAN_OPTIONS ptx_cache_mb; 0:
// neither read nor written). beforeGenerating, when given, is called once
// the cache has missed, just before the code generator runs (a note for a
// long wait).
ClonePtx clonePtx(std::string_view bitcode, uint64_t cacheBytes,
                  const std::function<void()> &beforeGenerating = {});

// Where clonePtx keeps PTX (empty: nowhere, neither XDG_CACHE_HOME nor HOME
// is set) and the file name of a bitcode's PTX in it.
std::string clonePtxCacheDir();
std::string clonePtxCacheName(std::string_view bitcode);

// Removes the PTX files (*.ptx) of dir used least recently (by modification
// time, which a read from the cache renews) until they hold at most
// maxBytes, never `keep` (a file name in dir); returns how many it removed.
size_t prunePtxCache(const std::string &dir, uint64_t maxBytes, const std::string &keep);

} // namespace kosan::rt

#endif // KOSAN_RUNTIME_HOST_CORE_CLONE_CODEGEN_H

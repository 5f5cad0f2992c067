//===- kosan/zstd_api.h - The zstd functions the trace uses ----------------===//
//
// Snapshots are compressed with zstd. Tools and libkosan_host link libzstd
// (lib/zstd_linked.cpp); the runtime, which is linked into user programs
// and their shared libraries, loads it at run time instead
// (runtime/host/core/zstd_dlopen.cpp): Debian's libzstd.a is not position
// independent, and a program must not need a library it did not ask for.
// Without zstd the runtime writes snapshots uncompressed ("base64").
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_ZSTD_API_H
#define KOSAN_ZSTD_API_H

#include <cstddef>

namespace kosan::detail {

struct ZstdApi {
  size_t (*compressBound)(size_t srcSize);
  size_t (*compress)(void *dst, size_t dstCapacity, const void *src,
                     size_t srcSize, int level);
  unsigned long long (*getFrameContentSize)(const void *src, size_t srcSize);
  size_t (*decompress)(void *dst, size_t dstCapacity, const void *src,
                       size_t compressedSize);
  unsigned (*isError)(size_t code);
  const char *(*getErrorName)(size_t code);
};

// The functions, or nullptr where zstd is not available.
const ZstdApi *zstdApi();

// ZSTD_getFrameContentSize's special values.
inline constexpr unsigned long long kZstdContentSizeUnknown = 0ULL - 1;
inline constexpr unsigned long long kZstdContentSizeError = 0ULL - 2;

// The most bytes `compressedBytes` of zstd frames can decompress to: every
// block has a 3-byte header and at least one byte of content, and holds at
// most 128 KiB (an RLE block). A size claimed beyond this is damage, and is
// rejected before anything is allocated for it.
inline constexpr unsigned long long maxZstdContentSize(unsigned long long compressedBytes) {
  constexpr unsigned long long kMaxBlockBytes = 128 * 1024;
  unsigned long long blocks = compressedBytes / 4 + 1;
  return blocks > ~0ULL / kMaxBlockBytes ? ~0ULL : blocks * kMaxBlockBytes;
}

} // namespace kosan::detail

#endif

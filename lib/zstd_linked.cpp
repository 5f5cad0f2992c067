//===- zstd_linked.cpp - zstd for tools and libkosan_host -----------------===//
#include "kosan/zstd_api.h"

#include <zstd.h>

namespace kosan::detail {

const ZstdApi *zstdApi() {
  static const ZstdApi api = {ZSTD_compressBound, ZSTD_compress,
                              ZSTD_getFrameContentSize, ZSTD_decompress,
                              ZSTD_isError, ZSTD_getErrorName};
  return &api;
}

} // namespace kosan::detail

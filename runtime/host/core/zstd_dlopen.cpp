//===- zstd_dlopen.cpp - zstd for the runtime, loaded when first needed ---===//
//
// See lib/zstd_api.h for why the runtime does not link libzstd.
//
//===----------------------------------------------------------------------===//
#include "kosan/zstd_api.h"

#include <dlfcn.h>

#include <type_traits>

namespace kosan::detail {

const ZstdApi *zstdApi() {
  static const ZstdApi *api = [] () -> const ZstdApi * {
    static ZstdApi loaded{};
    void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return nullptr;
    bool ok = true;
    auto get = [&](const char *name, auto &fn) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      ok = ok && fn;
    };
    get("ZSTD_compressBound", loaded.compressBound);
    get("ZSTD_compress", loaded.compress);
    get("ZSTD_getFrameContentSize", loaded.getFrameContentSize);
    get("ZSTD_decompress", loaded.decompress);
    get("ZSTD_isError", loaded.isError);
    get("ZSTD_getErrorName", loaded.getErrorName);
    return ok ? &loaded : nullptr;
  }();
  return api;
}

} // namespace kosan::detail

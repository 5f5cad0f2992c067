//===- runtime/host/core/clone_codegen.cpp - PTX of clones kept as bitcode ===//
#include "core/clone_codegen.h"

#include "kosan/codegen.h"
#include "kosan/fnv.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>
#include <vector>

#ifndef KOSAN_LLVM_VERSION
#error "KOSAN_LLVM_VERSION: the version of the LLVM libkosan_codegen.so is built with"
#endif

namespace kosan::rt {

namespace {

struct CodegenLib {
  kosan_codegen_ptx_fn ptx = nullptr;
  kosan_codegen_free_fn release = nullptr;
  std::string error; // why it did not load
};

std::string codegenPath() {
  if (const char *env = std::getenv("KOSAN_CODEGEN"); env && *env)
    return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&clonePtx), &info) && info.dli_fname) {
    std::string self = info.dli_fname;
    size_t slash = self.rfind('/');
    if (slash != std::string::npos)
      return self.substr(0, slash + 1) + KOSAN_CODEGEN_LIBRARY;
  }
  return KOSAN_CODEGEN_LIBRARY;
}

const CodegenLib &codegenLib() {
  static const CodegenLib lib = [] {
    CodegenLib l;
    std::string path = codegenPath();
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      l.error = e ? e : path + " does not load";
      return l;
    }
    l.ptx = reinterpret_cast<kosan_codegen_ptx_fn>(dlsym(h, KOSAN_CODEGEN_PTX_SYMBOL));
    l.release = reinterpret_cast<kosan_codegen_free_fn>(dlsym(h, KOSAN_CODEGEN_FREE_SYMBOL));
    if (!l.ptx || !l.release)
      l.error = path + " lacks " KOSAN_CODEGEN_PTX_SYMBOL;
    return l;
  }();
  return lib;
}

} // namespace

std::string clonePtxCacheDir() {
  // The XDG base directory spec says to ignore a relative XDG_CACHE_HOME.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::string(xdg) + "/kosan/ptx";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/kosan/ptx";
  return {};
}

std::string clonePtxCacheName(std::string_view bitcode) {
  static constexpr char llvm[] = "LLVM " KOSAN_LLVM_VERSION;
  uint64_t h = kosan_fnv1a(llvm, sizeof llvm - 1);
  for (unsigned char c : bitcode)
    h = kosan_fnv1a_step(h, c);
  char name[64];
  std::snprintf(name, sizeof name, "%016llx-%zu.ptx", static_cast<unsigned long long>(h),
                bitcode.size());
  return name;
}

size_t prunePtxCache(const std::string &dir, uint64_t maxBytes, const std::string &keep) {
  namespace fs = std::filesystem;
  struct Entry {
    fs::file_time_type used;
    uint64_t bytes;
    fs::path path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  // Without exceptions: a folder that changes under the runtime (another
  // process pruning it) ends the walk, not the program.
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry &e = *it;
    std::error_code fileEc;
    if (e.path().extension() != ".ptx" || !e.is_regular_file(fileEc))
      continue;
    uint64_t bytes = e.file_size(fileEc);
    fs::file_time_type used = e.last_write_time(fileEc);
    if (fileEc)
      continue;
    total += bytes;
    if (e.path().filename() != keep)
      entries.push_back({used, bytes, e.path()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  size_t removed = 0;
  for (const Entry &e : entries) {
    if (total <= maxBytes)
      break;
    std::error_code rmEc;
    if (fs::remove(e.path, rmEc)) {
      total -= e.bytes;
      ++removed;
    }
  }
  return removed;
}

ClonePtx clonePtx(std::string_view bitcode, uint64_t cacheBytes,
                  const std::function<void()> &beforeGenerating) {
  ClonePtx out;
  std::string dir = cacheBytes ? clonePtxCacheDir() : std::string();
  std::string name = clonePtxCacheName(bitcode);
  std::string file = dir.empty() ? std::string() : dir + "/" + name;
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    if (in && (text << in.rdbuf())) {
      out.ptx = text.str();
      if (!out.ptx.empty()) {
        // Used now: the last to go when the cache is pruned.
        std::error_code ec;
        std::filesystem::last_write_time(file, std::filesystem::file_time_type::clock::now(), ec);
        return out;
      }
    }
  }
  const CodegenLib &lib = codegenLib();
  if (!lib.ptx) {
    out.why = "the code generator, " KOSAN_CODEGEN_LIBRARY ", does not load (" + lib.error + ")";
    return out;
  }
  if (beforeGenerating)
    beforeGenerating();
  char *made = nullptr;
  size_t bytes = 0;
  auto start = std::chrono::steady_clock::now();
  int rc = lib.ptx(bitcode.data(), bitcode.size(), &made, &bytes);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!made) {
    out.why = "the code generator ran out of memory";
    return out;
  }
  if (rc != 0) {
    out.why = made;
  } else {
    out.ptx.assign(made, bytes);
    out.generated = true;
  }
  lib.release(made);
  if (!out.generated || file.empty())
    return out;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return out;
  // Written whole under another name first, so that a concurrent run reads
  // the entire file or none.
  std::string tmp = file + ".tmp" + std::to_string(getpid());
  bool written = false;
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    written = o && o.write(out.ptx.data(), std::streamsize(out.ptx.size())) && o.flush();
  }
  if (!written || std::rename(tmp.c_str(), file.c_str()) != 0)
    std::remove(tmp.c_str());
  else
    prunePtxCache(dir, cacheBytes, name);
  return out;
}

} // namespace kosan::rt

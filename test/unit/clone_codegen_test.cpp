//===- clone_codegen_test.cpp - The runtime's cache of clones' PTX --------===//
//
// runtime/host/core/clone_codegen.h: what the cache holds past ptx_cache_mb
// (the files used least recently go first, never the one just written,
// nothing but *.ptx), that a read renews a file, and that ptx_cache_mb=0
// reads nothing from it. The code generator itself is tested on the
// runtime's path in test/lit/pass/defer_clones.test.
//
//===----------------------------------------------------------------------===//
#include "core/clone_codegen.h"
#include "temp_dir_test.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace kosan::rt {
namespace {

namespace fs = std::filesystem;

class PtxCache : public test::TempDirTest {
protected:
  // A file of `bytes` bytes, last used `minutesAgo` minutes ago.
  void put(const std::string &name, size_t bytes, int minutesAgo) {
    std::ofstream(path(name), std::ios::binary) << std::string(bytes, 'x');
    fs::last_write_time(path(name),
                        fs::file_time_type::clock::now() - std::chrono::minutes(minutesAgo));
  }
  bool has(const std::string &name) const { return fs::exists(path(name)); }
};

TEST_F(PtxCache, PrunesTheLeastRecentlyUsedFirstButNeverTheFileJustWritten) {
  put("old.ptx", 100, 30);
  put("middle.ptx", 100, 20);
  put("new.ptx", 100, 10);
  put("notes.txt", 1000, 40);
  // The oldest is the one just written: the next oldest go instead.
  EXPECT_EQ(prunePtxCache(dir_, 150, "old.ptx"), 2u);
  EXPECT_TRUE(has("old.ptx"));
  EXPECT_FALSE(has("middle.ptx"));
  EXPECT_FALSE(has("new.ptx"));
  EXPECT_TRUE(has("notes.txt")); // not PTX: neither counted nor removed
}

TEST_F(PtxCache, StopsAsSoonAsTheFilesFit) {
  put("a.ptx", 100, 30);
  put("b.ptx", 100, 20);
  put("c.ptx", 100, 10);
  EXPECT_EQ(prunePtxCache(dir_, 300, "c.ptx"), 0u);
  EXPECT_EQ(prunePtxCache(dir_, 250, "c.ptx"), 1u);
  EXPECT_FALSE(has("a.ptx"));
  EXPECT_TRUE(has("b.ptx"));
  EXPECT_TRUE(has("c.ptx"));
}

TEST_F(PtxCache, AReadRenewsTheFileAndSizeZeroReadsNothing) {
  ASSERT_EQ(setenv("XDG_CACHE_HOME", dir_.c_str(), 1), 0);
  // No code generator in this process: what clonePtx returns comes from
  // the cache or not at all.
  ASSERT_EQ(setenv("KOSAN_CODEGEN", "/nonexistent/libkosan_codegen.so", 1), 0);
  std::string bitcode = "not really bitcode";
  ASSERT_EQ(clonePtxCacheDir(), dir_ + "/kosan/ptx");
  fs::create_directories(clonePtxCacheDir());
  std::string name = "kosan/ptx/" + clonePtxCacheName(bitcode);
  put(name, 64, 60);
  auto before = fs::last_write_time(path(name));

  ClonePtx hit = clonePtx(bitcode, 1 << 20);
  EXPECT_EQ(hit.ptx, std::string(64, 'x'));
  EXPECT_FALSE(hit.generated);
  EXPECT_GT(fs::last_write_time(path(name)), before + std::chrono::minutes(30));

  ClonePtx off = clonePtx(bitcode, 0);
  EXPECT_TRUE(off.ptx.empty());
  EXPECT_NE(off.why.find("does not load"), std::string::npos) << off.why;
  unsetenv("KOSAN_CODEGEN");
  unsetenv("XDG_CACHE_HOME");
}

} // namespace
} // namespace kosan::rt

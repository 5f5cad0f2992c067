//===- temp_dir_test.h - Fixtures for tests that write files ----*- C++ -*-===//
//
// A GoogleTest fixture with a fresh folder per test, removed after it, and
// the small file helpers the trace, snapshot, precision and diff tests share.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TEST_UNIT_TEMP_DIR_TEST_H
#define KOSAN_TEST_UNIT_TEMP_DIR_TEST_H

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kosan::test {

class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "kosan-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }

  std::string path(const std::string &name) const { return dir_ + "/" + name; }

  static std::string readFile(const std::string &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string dir_;
};

inline std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    lines.push_back(line);
  return lines;
}

} // namespace kosan::test

#endif

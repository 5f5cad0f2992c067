// KOSAN_CHECKS (kosan/abi.h) is the one list of checks: the builds take each
// check's folders by its name, so a folder no row names would be left out of
// the build without a word. Each row must have its folders and each folder
// its row; the names the parsers accept are the table's.
#include "kosan/checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path kSource = KOSAN_SOURCE_DIR;

std::set<std::string> tableChecks() {
  std::set<std::string> names;
  for (const kosan::Check &c : kosan::kChecks)
    names.insert(std::string(c.name));
  return names;
}

// The sub-folders of `dir`, less `except`.
std::set<std::string> folders(const fs::path &dir, const std::set<std::string> &except = {}) {
  std::set<std::string> names;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (e.is_directory() && !except.count(e.path().filename().string()))
      names.insert(e.path().filename().string());
  return names;
}

bool hasCpp(const fs::path &dir) {
  if (!fs::is_directory(dir))
    return false;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (e.path().extension() == ".cpp")
      return true;
  return false;
}

TEST(CheckTable, EveryCheckHasItsFolders) {
  for (const kosan::Check &c : kosan::kChecks) {
    std::string name(c.name);
    EXPECT_TRUE(hasCpp(kSource / "passes/checks" / name)) << name << ": its instrumenter";
    EXPECT_TRUE(hasCpp(kSource / "runtime/host/checks" / name)) << name << ": its collector";
    EXPECT_TRUE(fs::is_regular_file(kSource / "runtime/device" / (name + ".cpp")))
        << name << ": its device runtime";
    EXPECT_TRUE(fs::is_regular_file(kSource / "docs" / (name + ".md")) ||
                name == "oob") // the OOB check's page is docs/design.md
        << name << ": its page in docs/";
  }
}

TEST(CheckTable, EveryCheckFolderHasItsRow) {
  EXPECT_EQ(folders(kSource / "passes/checks"), tableChecks());
  // Snapshots have a collector but are no check (snapshot=1).
  EXPECT_EQ(folders(kSource / "runtime/host/checks", {"snapshot"}), tableChecks());
}

TEST(CheckTable, NamesAndBits) {
  // What the parsers accept and messages list: the checks, then the variants
  // at their check's place.
  EXPECT_EQ(kosan::checkNameList(false), "oob, precision, order, order-ops, race, all, none");
  EXPECT_EQ(kosan::checkNameList(true), "oob, precision, order, race, all, none");
  EXPECT_EQ(kosan::kAllChecks, KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION | KOSAN_CHECK_ORDER);
  EXPECT_EQ(kosan::kEveryCheck, kosan::kAllChecks | KOSAN_CHECK_RACE);
  auto orderOps = std::find_if(std::begin(kosan::kCheckNames), std::end(kosan::kCheckNames),
                               [](const kosan::CheckName &n) { return n.name == "order-ops"; });
  ASSERT_NE(orderOps, std::end(kosan::kCheckNames));
  EXPECT_EQ(orderOps->bits, KOSAN_CHECK_ORDER | KOSAN_CHECK_ORDER_OPS);
  EXPECT_FALSE(orderOps->runtime);
}

} // namespace

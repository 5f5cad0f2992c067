//===- options_test.cpp - KOSAN_OPTIONS parsing ---------------------------===//
#include "core/options.h"

#include "kosan/abi.h"
#include "kosan/checks.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using kosan::rt::expandTracePath;
using kosan::rt::Options;
using kosan::rt::optionsAsList;
using kosan::rt::optionsHelp;
using kosan::rt::ParsedOptions;
using kosan::rt::parseOptions;

namespace {

struct FlagInfo {
  std::string name, type;
};

const std::vector<FlagInfo> &allFlags() {
  static const std::vector<FlagInfo> flags = {
#define KOSAN_FLAG(Type, Name, DefaultValue, Description) {#Name, #Type},
#include "core/flags.inc"
  };
  return flags;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

std::string joined(const std::vector<std::string> &lines) {
  std::string all;
  for (const std::string &line : lines)
    all += line + "\n";
  return all;
}

TEST(Options, NullAndEmptyGiveDefaultsSilently) {
  for (const char *text : {static_cast<const char *>(nullptr), "", " : \n:"}) {
    ParsedOptions parsed = parseOptions(text);
    EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
    const Options &o = parsed.options;
    EXPECT_EQ(o.checks, "oob");
    EXPECT_EQ(o.check_bits(), KOSAN_CHECK_OOB);
    EXPECT_FALSE(o.halt_on_error);
    EXPECT_EQ(o.log_path, "");
    EXPECT_EQ(o.error_exitcode, 0);
    EXPECT_EQ(o.print_limit, 20);
    EXPECT_EQ(o.trace, "");
    EXPECT_EQ(o.verbosity, 0);
    EXPECT_TRUE(o.check_unresolved);
    EXPECT_TRUE(o.print_summary);
    EXPECT_EQ(o.log_capacity, 4096);
    EXPECT_EQ(o.precision_sites, 4096);
    EXPECT_FALSE(o.snapshot);
    EXPECT_FALSE(o.poison);
    EXPECT_EQ(o.snapshot_max_mb, 1024);
    EXPECT_FALSE(o.help);
  }
}

TEST(Options, SetsEveryFlag) {
  ParsedOptions parsed = parseOptions(
      "checks=all:halt_on_error=1:log_path=/tmp/kosan:error_exitcode=3:"
      "print_limit=0:trace=/tmp/t.%p.jsonl:verbosity=2:check_unresolved=0:"
      "print_summary=false:log_capacity=65536:precision_sites=1000:snapshot=1:"
      "poison=yes:snapshot_max_mb=64:help=yes");
  EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
  const Options &o = parsed.options;
  EXPECT_EQ(o.checks, "oob,precision,order");
  EXPECT_TRUE(o.halt_on_error);
  EXPECT_EQ(o.log_path, "/tmp/kosan");
  EXPECT_EQ(o.error_exitcode, 3);
  EXPECT_EQ(o.print_limit, 0);
  EXPECT_EQ(o.trace, "/tmp/t.%p.jsonl");
  EXPECT_EQ(o.verbosity, 2);
  EXPECT_FALSE(o.check_unresolved);
  EXPECT_FALSE(o.print_summary);
  EXPECT_EQ(o.log_capacity, 65536);
  EXPECT_EQ(o.precision_sites, 1000);
  EXPECT_TRUE(o.snapshot);
  EXPECT_TRUE(o.poison);
  EXPECT_EQ(o.snapshot_max_mb, 64);
  EXPECT_TRUE(o.help);
}

TEST(Options, WhitespaceSeparatesLikeColon) {
  ParsedOptions parsed = parseOptions(
      "  verbosity=1 halt_on_error=1\nprint_limit=5\tprint_summary=0\r\n");
  EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
  EXPECT_EQ(parsed.options.verbosity, 1);
  EXPECT_TRUE(parsed.options.halt_on_error);
  EXPECT_EQ(parsed.options.print_limit, 5);
  EXPECT_FALSE(parsed.options.print_summary);
}

TEST(Options, BoolSpellings) {
  for (const char *yes : {"1", "true", "yes"}) {
    ParsedOptions parsed =
        parseOptions((std::string("halt_on_error=") + yes).c_str());
    EXPECT_TRUE(parsed.options.halt_on_error) << yes;
    EXPECT_TRUE(parsed.warnings.empty()) << yes;
  }
  for (const char *no : {"0", "false", "no"}) {
    ParsedOptions parsed =
        parseOptions((std::string("print_summary=") + no).c_str());
    EXPECT_FALSE(parsed.options.print_summary) << no;
    EXPECT_TRUE(parsed.warnings.empty()) << no;
  }
}

TEST(Options, LastOccurrenceWins) {
  ParsedOptions parsed = parseOptions("verbosity=1:verbosity=3");
  EXPECT_EQ(parsed.options.verbosity, 3);
}

TEST(Options, QuotedValuesMayContainSeparators) {
  ParsedOptions parsed = parseOptions(
      "log_path='/tmp/a:b' trace=\"/tmp/my trace:%p\" checks='oob, order'");
  EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
  EXPECT_EQ(parsed.options.log_path, "/tmp/a:b");
  EXPECT_EQ(parsed.options.trace, "/tmp/my trace:%p");
  EXPECT_EQ(parsed.options.check_bits(), KOSAN_CHECK_OOB | KOSAN_CHECK_ORDER);
}

TEST(Options, OtherQuoteInsideQuotedValue) {
  ParsedOptions parsed = parseOptions("log_path=\"/tmp/it's\":verbosity=1");
  EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
  EXPECT_EQ(parsed.options.log_path, "/tmp/it's");
  EXPECT_EQ(parsed.options.verbosity, 1);
}

TEST(Options, UnterminatedQuoteWarnsAndIgnoresTheRest) {
  ParsedOptions parsed =
      parseOptions("verbosity=2:log_path='/tmp/a:print_limit=3");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: unterminated quote "
            "in the value of 'log_path'; ignored");
  EXPECT_EQ(parsed.options.verbosity, 2);
  EXPECT_EQ(parsed.options.log_path, "");
  EXPECT_EQ(parsed.options.print_limit, 20);
}

TEST(Options, TextGluedToClosingQuoteIsRejected) {
  ParsedOptions parsed = parseOptions("log_path='/tmp/a'b:verbosity=1");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_PRED2(contains, parsed.warnings[0],
               "after the quoted value of 'log_path'");
  EXPECT_EQ(parsed.options.log_path, "");
  EXPECT_EQ(parsed.options.verbosity, 1);
}

TEST(Options, UnknownOptionWarningNamesIt) {
  ParsedOptions parsed = parseOptions("halt_on_eror=1:verbosity=1");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: unknown option 'halt_on_eror' in "
            "KOSAN_OPTIONS (see KOSAN_OPTIONS=help=1)");
  EXPECT_FALSE(parsed.options.halt_on_error);
  EXPECT_EQ(parsed.options.verbosity, 1);
}

TEST(Options, InvalidBoolKeepsValue) {
  ParsedOptions parsed = parseOptions("halt_on_error=maybe");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: invalid value 'maybe' "
            "for bool option 'halt_on_error'; keeping 0");
  EXPECT_FALSE(parsed.options.halt_on_error);

  // "Keeping" means the value before the bad one, not the default.
  parsed = parseOptions("check_unresolved=0:check_unresolved=TRUE");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_PRED2(contains, parsed.warnings[0], "keeping 0");
  EXPECT_FALSE(parsed.options.check_unresolved);
}

TEST(Options, InvalidIntKeepsValue) {
  for (const char *bad : {"verbosity=", "verbosity=two", "verbosity=1x",
                          "verbosity=0x10", "verbosity=99999999999"}) {
    ParsedOptions parsed = parseOptions(bad);
    ASSERT_EQ(parsed.warnings.size(), 1u) << bad;
    EXPECT_PRED2(contains, parsed.warnings[0],
                 "for int option 'verbosity'; keeping 0")
        << bad;
    EXPECT_EQ(parsed.options.verbosity, 0) << bad;
  }
  EXPECT_EQ(parseOptions("verbosity=-1").options.verbosity, -1);
}

TEST(Options, MissingEqualsWarnsAndGoesOn) {
  ParsedOptions parsed = parseOptions("halt_on_error verbosity=1");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: expected name=value, "
            "got 'halt_on_error'; ignored");
  EXPECT_FALSE(parsed.options.halt_on_error);
  EXPECT_EQ(parsed.options.verbosity, 1);
}

TEST(Options, MissingNameWarns) {
  ParsedOptions parsed = parseOptions("=1:verbosity=1");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_EQ(
      parsed.warnings[0],
      "kosan: warning: KOSAN_OPTIONS: missing option name in '=1'; ignored");
  EXPECT_EQ(parsed.options.verbosity, 1);
}

TEST(Options, CheckLists) {
  struct Case {
    const char *text;
    uint32_t bits;
    const char *normalized;
  } cases[] = {
      {"checks=oob,precision", KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION,
       "oob,precision"},
      {"checks=order,oob", KOSAN_CHECK_OOB | KOSAN_CHECK_ORDER, "oob,order"},
      {"checks=all",
       KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION | KOSAN_CHECK_ORDER,
       "oob,precision,order"},
      {"checks=none", 0, "none"},
      {"checks=", 0, "none"},
      {"checks=oob,,oob,", KOSAN_CHECK_OOB, "oob"},
  };
  for (const Case &c : cases) {
    ParsedOptions parsed = parseOptions(c.text);
    EXPECT_TRUE(parsed.warnings.empty()) << c.text << ": " << joined(parsed.warnings);
    EXPECT_EQ(parsed.options.check_bits(), c.bits) << c.text;
    EXPECT_EQ(parsed.options.checks, c.normalized) << c.text;
  }
}

TEST(Options, OrderFlagsAreChecked) {
  EXPECT_TRUE(parseOptions("checks=oob,order").warnings.empty());
  ParsedOptions parsed =
      parseOptions("order_leaves=rows:order_stores=-1:order_atomics=0:order_ops=100");
  ASSERT_EQ(parsed.warnings.size(), 3u) << joined(parsed.warnings);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: order_leaves=rows is neither position nor "
            "value; using position");
  EXPECT_EQ(parsed.warnings[1],
            "kosan: warning: KOSAN_OPTIONS: order_stores=-1 is not from 0 to 67108864; "
            "using 4194304");
  EXPECT_EQ(parsed.warnings[2],
            "kosan: warning: KOSAN_OPTIONS: order_atomics=0 is not from 1 to 67108864; "
            "using 4194304");
  EXPECT_EQ(parsed.options.order_leaves, "position");
  EXPECT_EQ(parsed.options.order_ops, 100);
  // 0: no store records at all (only float atomics).
  ParsedOptions none = parseOptions("order_stores=0");
  EXPECT_TRUE(none.warnings.empty()) << joined(none.warnings);
  EXPECT_EQ(none.options.order_stores, 0);
  EXPECT_EQ(parseOptions("order_leaves=value").options.order_leaves, "value");
  EXPECT_TRUE(parseOptions("checks=oob").warnings.empty());
  EXPECT_TRUE(parseOptions("checks=precision").warnings.empty());
  EXPECT_TRUE(parseOptions("checks=oob,precision").warnings.empty());
}

TEST(Options, UnknownCheckWarnsAndIsIgnored) {
  ParsedOptions parsed = parseOptions("checks=oob,bogus");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: unknown check 'bogus' in checks "
            "(valid: oob, precision, order, race, all, none); ignored");
  EXPECT_EQ(parsed.options.check_bits(), KOSAN_CHECK_OOB);
  EXPECT_EQ(parsed.options.checks, "oob");
}

TEST(Options, CheckNamesIgnoreCase) {
  ParsedOptions parsed = parseOptions("checks=OOB,Precision");
  EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
  EXPECT_EQ(parsed.options.check_bits(), KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION);
  EXPECT_EQ(parseOptions("checks=ALL").options.check_bits(),
            KOSAN_CHECK_OOB | KOSAN_CHECK_PRECISION | KOSAN_CHECK_ORDER);
  EXPECT_EQ(parseOptions("checks=None").options.check_bits(), 0u);
}

TEST(Options, OnlyUnknownChecksKeepTheDefault) {
  ParsedOptions parsed = parseOptions("checks=obo");
  ASSERT_EQ(parsed.warnings.size(), 2u) << joined(parsed.warnings);
  EXPECT_PRED2(contains, parsed.warnings[0], "unknown check 'obo'");
  EXPECT_EQ(parsed.warnings[1], "kosan: warning: KOSAN_OPTIONS: no valid check in "
                                "checks=obo; using the default, oob");
  EXPECT_EQ(parsed.options.check_bits(), KOSAN_CHECK_OOB);
  // Turning checks off stays possible, and silent.
  parsed = parseOptions("checks=none");
  EXPECT_TRUE(parsed.warnings.empty());
  EXPECT_EQ(parsed.options.check_bits(), 0u);
}

TEST(Options, WarningsStayOnOneLine) {
  // A quoted value may hold a newline; the warning that quotes it may not.
  ParsedOptions parsed = parseOptions("='a\nb' c\x1b" "d");
  ASSERT_EQ(parsed.warnings.size(), 2u) << joined(parsed.warnings);
  for (const std::string &w : parsed.warnings) {
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
    EXPECT_EQ(w.find('\x1b'), std::string::npos) << w;
  }
  EXPECT_PRED2(contains, parsed.warnings[0], "a\\nb");
  EXPECT_PRED2(contains, parsed.warnings[1], "c\\x1bd");
}

TEST(Options, NegativeSnapshotLimitFallsBack) {
  ParsedOptions parsed = parseOptions("snapshot_max_mb=-5");
  ASSERT_EQ(parsed.warnings.size(), 1u) << joined(parsed.warnings);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: snapshot_max_mb=-5 is negative; using 1024");
  EXPECT_EQ(parsed.options.snapshot_max_mb, 1024);
}

TEST(Options, QuarantineStopAfterAndUninit) {
  ParsedOptions parsed = parseOptions("quarantine_mb=0:stop_after=1000:uninit=1:handle_signals=0");
  EXPECT_TRUE(parsed.warnings.empty()) << joined(parsed.warnings);
  EXPECT_EQ(parsed.options.quarantine_mb, 0);
  EXPECT_EQ(parsed.options.stop_after, 1000);
  EXPECT_TRUE(parsed.options.uninit);
  EXPECT_FALSE(parsed.options.handle_signals);

  parsed = parseOptions("quarantine_mb=-1:stop_after=-7");
  ASSERT_EQ(parsed.warnings.size(), 2u) << joined(parsed.warnings);
  EXPECT_EQ(parsed.warnings[0],
            "kosan: warning: KOSAN_OPTIONS: stop_after=-7 is negative; using 1073741824");
  EXPECT_EQ(parsed.warnings[1], "kosan: warning: KOSAN_OPTIONS: quarantine_mb=-1 is not from "
                                "0 to 1048576; using 256");
  EXPECT_EQ(parsed.options.quarantine_mb, 256);
  EXPECT_EQ(parsed.options.stop_after, 1073741824);
}

TEST(Options, LogPathStderrAndStdout) {
  ParsedOptions parsed = parseOptions("log_path=stderr");
  EXPECT_TRUE(parsed.warnings.empty());
  EXPECT_EQ(parsed.options.log_path, "");

  parsed = parseOptions("log_path=stdout");
  ASSERT_EQ(parsed.warnings.size(), 1u);
  EXPECT_PRED2(contains, parsed.warnings[0],
               "log_path=stdout is not supported");
  EXPECT_PRED2(contains, parsed.warnings[0], "using stderr");
  EXPECT_EQ(parsed.options.log_path, "");
}

TEST(Options, OutOfRangeNumbersFallBackToDefaults) {
  ParsedOptions parsed = parseOptions("print_limit=-5:error_exitcode=256");
  ASSERT_EQ(parsed.warnings.size(), 2u) << joined(parsed.warnings);
  EXPECT_EQ(
      parsed.warnings[0],
      "kosan: warning: KOSAN_OPTIONS: print_limit=-5 is negative; using 20");
  EXPECT_EQ(parsed.warnings[1],
            "kosan: warning: KOSAN_OPTIONS: error_exitcode=256 "
            "is not an exit status (0 to 255); using 0");
  EXPECT_EQ(parsed.options.print_limit, 20);
  EXPECT_EQ(parsed.options.error_exitcode, 0);
  EXPECT_EQ(parseOptions("error_exitcode=255").options.error_exitcode, 255);
}

TEST(Options, LogCapacityIsAPowerOfTwoInRange) {
  struct Case {
    int given, used;
  } cases[] = {{1000, 1024}, {10, 64},           {0, 64},
               {-1, 64},     {1 << 21, 1 << 20}, {65, 128}};
  for (const Case &c : cases) {
    std::string text = "log_capacity=" + std::to_string(c.given);
    ParsedOptions parsed = parseOptions(text.c_str());
    EXPECT_EQ(parsed.options.log_capacity, c.used) << text;
    ASSERT_EQ(parsed.warnings.size(), 1u) << text;
    EXPECT_EQ(parsed.warnings[0],
              "kosan: warning: KOSAN_OPTIONS: " + text +
                  " is not a power of two from 64 to 1048576; "
                  "using " +
                  std::to_string(c.used));
  }
  for (int good : {64, 4096, 1 << 20}) {
    std::string text = "log_capacity=" + std::to_string(good);
    ParsedOptions parsed = parseOptions(text.c_str());
    EXPECT_TRUE(parsed.warnings.empty()) << text;
    EXPECT_EQ(parsed.options.log_capacity, good);
  }
}

TEST(Options, PrecisionSitesInRange) {
  struct Case {
    int given, used;
  } cases[] = {{0, 1}, {-5, 1}, {(1 << 16) + 1, 1 << 16}};
  for (const Case &c : cases) {
    std::string text = "precision_sites=" + std::to_string(c.given);
    ParsedOptions parsed = parseOptions(text.c_str());
    EXPECT_EQ(parsed.options.precision_sites, c.used) << text;
    ASSERT_EQ(parsed.warnings.size(), 1u) << text;
    EXPECT_EQ(parsed.warnings[0], "kosan: warning: KOSAN_OPTIONS: " + text +
                                      " is not from 1 to 65536; using " +
                                      std::to_string(c.used));
  }
  for (int good : {1, 1000, 1 << 16}) {
    std::string text = "precision_sites=" + std::to_string(good);
    ParsedOptions parsed = parseOptions(text.c_str());
    EXPECT_TRUE(parsed.warnings.empty()) << text;
    EXPECT_EQ(parsed.options.precision_sites, good);
  }
}

TEST(Options, HelpListsEveryFlagWithTypeAndDefault) {
  const std::string help = optionsHelp();
  const auto defaults = optionsAsList(Options());
  ASSERT_EQ(defaults.size(), allFlags().size());
  for (size_t i = 0; i < defaults.size(); ++i) {
    const FlagInfo &flag = allFlags()[i];
    const std::string shownDefault =
        defaults[i].second.empty() ? "\"\"" : defaults[i].second;
    std::istringstream lines(help);
    std::string line;
    bool found = false;
    while (std::getline(lines, line)) {
      if (line.size() < 3 || line[2] == ' ')
        continue; // a description's continuation, indented past the names
      std::istringstream words(line);
      std::string name, type, value;
      words >> name >> type >> value;
      if (name != flag.name)
        continue;
      found = true;
      EXPECT_EQ(type, flag.type == "std::string" ? "string" : flag.type)
          << line;
      EXPECT_EQ(value, shownDefault) << line;
      EXPECT_GT(line.size(), line.find(value) + value.size() + 1)
          << "no description: " << line;
    }
    EXPECT_TRUE(found) << flag.name << " missing from:\n" << help;
  }
}

TEST(Options, TheDocsTableListsEveryFlagWithTypeAndDefault) {
  // docs/options.md's table of flags, row by row, against flags.inc: the
  // same flags in the same order, each with its type and default, so that
  // a flag added, renamed or given another default there fails here until
  // the documentation says so too.
  std::ifstream doc(std::string(KOSAN_SOURCE_DIR) + "/docs/options.md");
  ASSERT_TRUE(doc) << "no docs/options.md";
  struct Row {
    std::string name, type, value;
  };
  std::vector<Row> rows;
  std::string line;
  auto ticked = [](const std::string &cell) { // the first `...` of a cell
    size_t a = cell.find('`'), b = a == std::string::npos ? a : cell.find('`', a + 1);
    return b == std::string::npos ? std::string() : cell.substr(a + 1, b - a - 1);
  };
  auto trimmed = [](std::string t) {
    t.erase(0, t.find_first_not_of(' '));
    t.erase(t.find_last_not_of(' ') + 1);
    return t;
  };
  while (std::getline(doc, line)) {
    if (line.rfind("| `", 0) != 0)
      continue;
    std::vector<std::string> cells;
    std::istringstream parts(line.substr(1));
    for (std::string cell; std::getline(parts, cell, '|');)
      cells.push_back(cell);
    ASSERT_GE(cells.size(), 4u) << line;
    rows.push_back({ticked(cells[0]), trimmed(cells[1]), ticked(cells[2])});
  }
  const auto defaults = optionsAsList(Options());
  ASSERT_EQ(rows.size(), allFlags().size()) << "rows of the table of flags in docs/options.md";
  for (size_t i = 0; i < rows.size(); ++i) {
    const FlagInfo &flag = allFlags()[i];
    EXPECT_EQ(rows[i].name, flag.name) << "row " << i + 1;
    EXPECT_EQ(rows[i].type, flag.type == "std::string" ? "string" : flag.type) << flag.name;
    EXPECT_EQ(rows[i].value, defaults[i].second.empty() ? "\"\"" : defaults[i].second)
        << flag.name;
  }
}

TEST(Options, HelpNamesEveryCheckOfTheTable) {
  // The checks' names come from KOSAN_CHECKS (abi.h): a check added there
  // is in the help without a word changed here.
  const std::string help = optionsHelp();
  std::string flat; // the descriptions wrap: words one space apart
  for (char c : help) {
    bool space = c == ' ' || c == '\n';
    if (!space)
      flat += c;
    else if (!flat.empty() && flat.back() != ' ')
      flat += ' ';
  }
  size_t from = flat.find("Checks to run:");
  ASSERT_NE(from, std::string::npos) << help;
  std::string checks = flat.substr(from, flat.find("or none.", from) - from);
  for (const kosan::Check &c : kosan::kChecks)
    EXPECT_TRUE(contains(checks, std::string(c.name))) << c.name << " missing from: " << checks;
  EXPECT_TRUE(contains(flat, "Checks to run: a comma-separated list of oob, precision, order "
                             "and race, or all (oob, precision and order), or none."))
      << help;
}

TEST(Options, HelpFitsInEightyColumns) {
  std::istringstream lines(optionsHelp());
  std::string line;
  while (std::getline(lines, line))
    EXPECT_LE(line.size(), 80u) << line;
}

TEST(Options, ListGivesEffectiveValuesInFlagOrder) {
  ParsedOptions parsed =
      parseOptions("halt_on_error=yes:checks=order,oob:trace=t.%p");
  auto list = optionsAsList(parsed.options);
  ASSERT_EQ(list.size(), allFlags().size());
  for (size_t i = 0; i < list.size(); ++i)
    EXPECT_EQ(list[i].first, allFlags()[i].name);
  auto value = [&](const std::string &name) {
    for (const auto &[key, v] : list)
      if (key == name)
        return v;
    return std::string("<absent>");
  };
  EXPECT_EQ(value("halt_on_error"), "1");
  EXPECT_EQ(value("print_summary"), "1");
  EXPECT_EQ(value("checks"), "oob,order");
  EXPECT_EQ(value("trace"), "t.%p");
  EXPECT_EQ(value("print_limit"), "20");
  EXPECT_EQ(value("log_path"), "");
}

TEST(Options, ExpandTracePath) {
  EXPECT_EQ(expandTracePath("/tmp/kosan.%p.jsonl", 4242),
            "/tmp/kosan.4242.jsonl");
  EXPECT_EQ(expandTracePath("%p/%p", 7), "7/7");
  EXPECT_EQ(expandTracePath("/tmp/trace.jsonl", 7), "/tmp/trace.jsonl");
  EXPECT_EQ(expandTracePath("/tmp/100%", 7), "/tmp/100%");
  EXPECT_EQ(expandTracePath("", 7), "");
}

} // namespace

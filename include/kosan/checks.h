//===- kosan/checks.h - The checks, for C++ ----------------------*- C++ -*-===//
//
// KOSAN_CHECKS (abi.h) as tables: the checks with their bits and ranks, the
// names every parser accepts, and the list of names that messages give, so
// that the plugin, the drivers and the runtime accept and name the same
// checks. The compile-time asserts below keep the table consistent.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_CHECKS_H
#define KOSAN_CHECKS_H

#include "kosan/abi.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace kosan {

// One check: a folder of its own in passes/checks, runtime/host/checks and
// a file in runtime/device (abi.h says what each defines).
struct Check {
  std::string_view name;
  uint32_t bit;
  bool inAll;        // one of "all"
  unsigned rank;     // instrumenters run on a clone by rising rank
  std::string_view help;
};

inline constexpr Check kChecks[] = {
#define KOSAN_CHECK_ROW(ID, Name, name, bit, all, rank, help)                                      \
  {name, KOSAN_CHECK_##ID, (all) != 0, rank, help},
    KOSAN_CHECKS(KOSAN_CHECK_ROW, KOSAN_CHECK_ROW_NONE)
#undef KOSAN_CHECK_ROW
};

// A name the parsers accept besides "all" and "none": a check's or a
// variant's.
struct CheckName {
  std::string_view name;
  uint32_t bits;
  bool runtime; // also a KOSAN_OPTIONS=checks= name (a check, not a variant)
  std::string_view help;
};

inline constexpr CheckName kCheckNames[] = {
#define KOSAN_CHECK_ROW(ID, Name, name, bit, all, rank, help) {name, KOSAN_CHECK_##ID, true, help},
#define KOSAN_VARIANT_ROW(ID, name, bit, of, help)                                                 \
  {name, KOSAN_CHECK_##ID | KOSAN_CHECK_##of, false, help},
    KOSAN_CHECKS(KOSAN_CHECK_ROW, KOSAN_VARIANT_ROW)
#undef KOSAN_CHECK_ROW
#undef KOSAN_VARIANT_ROW
};

constexpr uint32_t checkBits(bool onlyInAll) {
  uint32_t bits = 0;
  for (const Check &c : kChecks)
    if (c.inAll || !onlyInAll)
      bits |= c.bit;
  return bits;
}

// "all"; every check (what an instrumented clone may hold).
inline constexpr uint32_t kAllChecks = checkBits(true);
inline constexpr uint32_t kEveryCheck = checkBits(false);

namespace detail {
constexpr bool oneBit(uint32_t bits) { return bits && !(bits & (bits - 1)); }

constexpr bool checkTableIsSound() {
  uint32_t checks = 0, variants = 0;
  for (const CheckName &n : kCheckNames) {
    if (n.runtime) { // a check: one bit of its own
      if (!oneBit(n.bits) || (n.bits & (checks | variants)))
        return false;
      checks |= n.bits;
    } else { // a variant: a bit of its own, and its check's
      uint32_t own = n.bits & ~kEveryCheck;
      if (!oneBit(own) || !oneBit(n.bits & kEveryCheck) || (own & (checks | variants)))
        return false;
      variants |= own;
    }
    for (const CheckName &m : kCheckNames)
      if (&m != &n && m.name == n.name)
        return false;
    if (n.name.empty() || n.name == "all" || n.name == "none" || n.help.empty())
      return false;
  }
  for (const Check &a : kChecks)
    for (const Check &b : kChecks)
      if (&a != &b && a.rank == b.rank)
        return false;
  return true;
}
} // namespace detail
static_assert(detail::checkTableIsSound(),
              "KOSAN_CHECKS (abi.h): every check needs a bit and a rank of its own, every name "
              "must be unique and neither 'all' nor 'none', a variant a bit of its own, "
              "every row a help text");

// "oob, precision, order, order-ops, all, none"; runtimeOnly: the names
// KOSAN_OPTIONS takes.
inline std::string checkNameList(bool runtimeOnly) {
  std::string out;
  for (const CheckName &c : kCheckNames)
    if (c.runtime || !runtimeOnly)
      out += std::string(c.name) + ", ";
  return out + "all, none";
}

// The checks' names as a sentence says them: "oob, precision, order and
// race"; onlyInAll: those of "all" only.
inline std::string checkNamesInProse(bool onlyInAll) {
  std::string out;
  size_t n = 0, count = 0;
  for (const Check &c : kChecks)
    count += c.inAll || !onlyInAll;
  for (const Check &c : kChecks) {
    if (!c.inAll && onlyInAll)
      continue;
    if (n++)
      out += n == count ? " and " : ", ";
    out += c.name;
  }
  return out;
}

// Appends LINE, whose first COLUMN characters are already there, with
// WORDS after them wrapped at TEXT_WIDTH characters; continuation lines
// start COLUMN spaces in. For help texts.
inline void appendWrapped(std::string &out, std::string line, std::string_view words,
                          size_t column, size_t textWidth) {
  size_t used = 0;
  while (!words.empty()) {
    size_t space = words.find(' ');
    std::string_view word = words.substr(0, space);
    words = space == std::string_view::npos ? std::string_view() : words.substr(space + 1);
    if (used && used + 1 + word.size() > textWidth) {
      out += line + '\n';
      line.assign(column, ' ');
      used = 0;
    }
    if (used) {
      line += ' ';
      ++used;
    }
    line += word;
    used += word.size();
  }
  out += line + '\n';
}

// Every name --kosan-checks= takes with what it finds, for a help text:
// one entry per name, `indent` spaces in, the name in a column of its own
// and the help wrapped to `width` columns.
inline std::string checkHelp(size_t indent, size_t width) {
  size_t nameWidth = 0;
  for (const CheckName &c : kCheckNames)
    nameWidth = c.name.size() > nameWidth ? c.name.size() : nameWidth;
  const size_t textColumn = indent + nameWidth + 2;
  std::string out;
  for (const CheckName &c : kCheckNames) {
    std::string line(indent, ' ');
    line += c.name;
    line.resize(textColumn, ' ');
    appendWrapped(out, std::move(line), c.help, textColumn,
                  width > textColumn ? width - textColumn : 1);
  }
  return out;
}

} // namespace kosan

#endif // KOSAN_CHECKS_H

//===- kosan/checks.h - The check names, for C++ -----------------*- C++ -*-===//
//
// KOSAN_CHECK_NAMES (abi.h) as a table, and the list of names that messages
// give, so that the plugin, kosan-clang++ and the runtime accept and name
// the same checks.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_CHECKS_H
#define KOSAN_CHECKS_H

#include "kosan/abi.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace kosan {

struct CheckName {
  std::string_view name;
  uint32_t bits;
  bool runtime; // also a KOSAN_OPTIONS=checks= name
};

inline constexpr CheckName kCheckNames[] = {
#define KOSAN_CHECK_ROW(name, bits, runtime) {name, bits, (runtime) != 0},
    KOSAN_CHECK_NAMES(KOSAN_CHECK_ROW)
#undef KOSAN_CHECK_ROW
};

inline constexpr uint32_t kAllChecks = KOSAN_CHECKS_ALL;

// "oob, precision, order, order-ops, all, none"; runtimeOnly: the names
// KOSAN_OPTIONS takes.
inline std::string checkNameList(bool runtimeOnly) {
  std::string out;
  for (const CheckName &c : kCheckNames)
    if (c.runtime || !runtimeOnly)
      out += std::string(c.name) + ", ";
  return out + "all, none";
}

} // namespace kosan

#endif // KOSAN_CHECKS_H

//===- kosan/printable.h - Text quoted in one line ---------------*- C++ -*-===//
//
// Control characters as C escapes (\n, \t, \x1f), so that text a message
// quotes (an option's value, an argument) cannot break it across lines or
// into terminal control sequences. Used by the runtime's option warnings and
// the drivers' errors.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_PRINTABLE_H
#define KOSAN_PRINTABLE_H

#include <string>
#include <string_view>

namespace kosan {

inline std::string printable(std::string_view text) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else
      out += static_cast<char>(c);
  }
  return out;
}

} // namespace kosan

#endif // KOSAN_PRINTABLE_H

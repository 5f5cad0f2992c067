//===- test/fuzz/driver_fuzz_input.h - A fuzz input as a command line -----===//
//
// The drivers' fuzz targets read their input as a command line:
//
//   byte 0       flags for the target (which environment, whether "-o OUT"
//                is put first)
//   the rest     arguments separated by NUL bytes; an argument that starts
//                with \x01 is no argument but a response file held in
//                memory: "\x01NAME=TEXT" (read by "@NAME" or nvcc's
//                "--options-file NAME")
//
// and check what every plan must hold (DriverInvariants).
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TEST_FUZZ_DRIVER_FUZZ_INPUT_H
#define KOSAN_TEST_FUZZ_DRIVER_FUZZ_INPUT_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosan::fuzz {

/// The output file the targets put first ("-o OUT") when flag 1 is set.
constexpr const char *FuzzOutput = "fuzz-out.o";

struct DriverInput {
  uint8_t Flags = 0;
  std::vector<std::string> Args;
  std::map<std::string, std::string> Files;

  std::optional<std::string> read(const std::string &Name) const {
    auto It = Files.find(Name);
    if (It == Files.end())
      return std::nullopt;
    return It->second;
  }
};

inline DriverInput splitInput(const uint8_t *Data, size_t Size) {
  DriverInput In;
  if (Size == 0)
    return In;
  In.Flags = Data[0];
  std::string_view Rest(reinterpret_cast<const char *>(Data) + 1, Size - 1);
  if (In.Flags & 1)
    In.Args = {"-o", FuzzOutput};
  if (Rest.empty())
    return In;
  size_t Begin = 0;
  while (true) {
    size_t End = Rest.find('\0', Begin);
    std::string_view Piece = Rest.substr(Begin, End - Begin);
    if (!Piece.empty() && Piece[0] == '\x01') {
      size_t Equals = Piece.find('=');
      std::string_view Name = Piece.substr(1, Equals == std::string_view::npos
                                                  ? std::string_view::npos
                                                  : Equals - 1);
      std::string_view Text =
          Equals == std::string_view::npos ? std::string_view() : Piece.substr(Equals + 1);
      In.Files[std::string(Name)] = std::string(Text);
    } else {
      In.Args.emplace_back(Piece);
    }
    if (End == std::string_view::npos)
      return In;
    Begin = End + 1;
  }
}

[[noreturn]] inline void fail(const char *What, const std::string &Detail) {
  std::fprintf(stderr, "INVARIANT BROKEN: %s: [%s]\n", What, Detail.c_str());
  std::abort();
}

/// A message for the user: one line, no control characters, not empty.
inline void checkOneLine(const char *What, const std::string &Text) {
  if (Text.empty())
    fail(What, "(empty)");
  for (unsigned char C : Text)
    if (C < 0x20 || C == 0x7f)
      fail(What, Text);
}

/// A command to run: a program and its arguments, none holding a NUL.
inline void checkCommand(const char *What, const std::vector<std::string> &Command) {
  if (Command.empty() || Command.front().empty())
    fail(What, "a command without a program");
  for (const std::string &Arg : Command)
    if (Arg.find('\0') != std::string::npos)
      fail(What, "an argument holds a NUL");
}

/// Whether \p Command has "-o" immediately followed by \p Output.
inline bool writes(const std::vector<std::string> &Command, const std::string &Output) {
  for (size_t I = 0; I + 1 < Command.size(); ++I)
    if (Command[I] == "-o" && Command[I + 1] == Output)
      return true;
  return false;
}

} // namespace kosan::fuzz

#endif // KOSAN_TEST_FUZZ_DRIVER_FUZZ_INPUT_H

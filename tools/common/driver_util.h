//===- tools/common/driver_util.h - What both compiler drivers need -------===//
//
// Small helpers that kosan-clang++, kosan-nvcc and kosan-hipcc share: string splitting,
// reading a file, quoting an argument for a shell, finding a program on PATH.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TOOLS_DRIVER_UTIL_H
#define KOSAN_TOOLS_DRIVER_UTIL_H

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "kosan/printable.h"

namespace kosan::cli {

/// clang's options whose value is the next argument (when not written
/// joined). A driver must skip those values so as not to mistake them for inputs.
// clang-format off
inline const std::set<std::string_view> SeparateValueOptions = {
    "-A", "-B", "-D", "-F", "-I", "-L", "-MF", "-MJ", "-MQ", "-MT", "-T", "-U",
    "-Xarch_device", "-Xarch_host", "-Xassembler", "-Xclang",
    "-Xcuda-fatbinary", "-Xcuda-ptxas", "-Xlinker", "-Xoffload-linker",
    "-Xopenmp-target", "-Xpreprocessor", "--config", "--param", "--sysroot",
    "-arch", "-cxx-isystem", "-dependency-dot", "-dependency-file", "-e",
    "-iframework", "-idirafter", "-imacros", "-include", "-include-pch",
    "-iprefix", "-iquote", "-isysroot", "-isystem", "-ivfsoverlay",
    "-iwithprefix", "-iwithprefixbefore", "-mllvm", "-o", "-rpath",
    "-serialize-diagnostics", "-target", "-u", "-z"};
// clang-format on

/// clang's options that stop before the link.
inline const std::set<std::string_view> StopBeforeLinkOptions = {
    "-c",           "-S",
    "-E",           "-M",
    "-MM",          "-fsyntax-only",
    "--precompile", "--cuda-device-only"};

inline bool startsWith(std::string_view S, std::string_view Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

inline std::vector<std::string> split(std::string_view S, char Separator) {
  std::vector<std::string> Parts;
  size_t Begin = 0;
  while (true) {
    size_t End = S.find(Separator, Begin);
    Parts.emplace_back(S.substr(Begin, End - Begin));
    if (End == std::string_view::npos)
      return Parts;
    Begin = End + 1;
  }
}

inline std::optional<std::string> readFile(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::ostringstream Buffer;
  Buffer << In.rdbuf();
  return Buffer.str();
}

/// A driver's refusal of its command line: one sentence, printed as
/// "<tool>: error: <what()>". The translation of a command line throws it,
/// so that it can be tested and fuzzed as a function; the tool prints it.
struct DriverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// \p Text with control characters (newlines, escapes, NUL) written as \n,
/// \t or \xHH, so that an error quoting a user's argument stays one line
/// (kosan/printable.h, as the runtime's option warnings write them).
inline std::string escapeControl(std::string_view Text) { return kosan::printable(Text); }

/// Reads the text of a response file; nothing when it cannot be read. The
/// drivers read through one, so that their translation can be run on
/// response files held in memory.
using FileReader = std::function<std::optional<std::string>(const std::string &)>;

/// Quotes \p Arg for a POSIX shell, leaving common arguments readable.
inline std::string shellQuote(std::string_view Arg) {
  bool Plain =
      !Arg.empty() && std::all_of(Arg.begin(), Arg.end(), [](unsigned char C) {
        return std::isalnum(C) || std::strchr("_-+=/.,:@%", C);
      });
  if (Plain)
    return std::string(Arg);
  std::string Quoted = "'";
  for (char C : Arg)
    Quoted += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Quoted + "'";
}

/// A command as a shell would take it back, for printing.
inline std::string commandLine(const std::vector<std::string> &Command) {
  std::string Line;
  for (const std::string &Arg : Command)
    Line += (Line.empty() ? "" : " ") + shellQuote(Arg);
  return Line;
}

inline bool isExecutableFile(const std::filesystem::path &P) {
  std::error_code EC;
  return std::filesystem::is_regular_file(P, EC) && ::access(P.c_str(), X_OK) == 0;
}

inline std::optional<std::filesystem::path> findOnPath(const std::string &Name) {
  const char *Path = std::getenv("PATH");
  if (!Path)
    return std::nullopt;
  for (const std::string &Dir : split(Path, ':')) {
    std::filesystem::path Candidate = std::filesystem::path(Dir.empty() ? "." : Dir) / Name;
    if (isExecutableFile(Candidate))
      return Candidate;
  }
  return std::nullopt;
}

/// A private directory for intermediate files (under $TMPDIR, else /tmp),
/// removed with everything in it when the object goes. Error says why it
/// could not be made; Path is then empty.
struct TempDir {
  std::filesystem::path Path;
  std::string Error;
  explicit TempDir(std::string_view Name) {
    const char *Tmp = std::getenv("TMPDIR");
    std::string Pattern =
        (std::filesystem::path(Tmp && *Tmp ? Tmp : "/tmp") / (std::string(Name) + ".XXXXXX"))
            .string();
    if (::mkdtemp(Pattern.data()))
      Path = Pattern;
    else
      Error = "cannot create a temporary directory: " + std::string(std::strerror(errno));
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  ~TempDir() {
    std::error_code EC;
    if (!Path.empty())
      std::filesystem::remove_all(Path, EC);
  }
};

} // namespace kosan::cli

#endif // KOSAN_TOOLS_DRIVER_UTIL_H

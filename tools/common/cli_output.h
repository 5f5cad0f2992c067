//===- tools/common/cli_output.h - What every kosan tool prints alike ------===//
//
// Error lines ("<tool>: error: ...") and writing the output to stdout or a
// file (-o), shared by kosan-report and kosan-diff.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TOOLS_CLI_OUTPUT_H
#define KOSAN_TOOLS_CLI_OUTPUT_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace kosan::cli {

inline void printError(const char *tool, const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", tool, message.c_str());
}

// text to stdout ("" or "-") or to the file path; false, with an error
// line, when it cannot be written.
inline bool writeOutput(const char *tool, const std::string &path, const std::string &text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f) {
    printError(tool, "cannot write " + path + ": " + std::strerror(errno));
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    printError(tool, "cannot write " + path + ": " + std::strerror(errno));
  return ok;
}

// Runs a tool's body. The library turns every bad input into a message;
// should anything still throw, it is one error line and the tool's status
// for trouble, not an abort.
template <typename Body> int runGuarded(const char *tool, int troubleStatus, Body body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    printError(tool, "out of memory");
  } catch (const std::exception &e) {
    printError(tool, std::string("internal error: ") + e.what());
  }
  return troubleStatus;
}

} // namespace kosan::cli

#endif

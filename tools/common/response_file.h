//===- tools/common/response_file.h - Split response files ---------------===//
//
// Splits the text of a response file (@file, nvcc's --options-file) into
// arguments the way clang and gcc do on Linux: whitespace separates
// arguments, single quotes keep everything literally, double quotes keep
// whitespace, a backslash escapes the next character.
//
//===----------------------------------------------------------------------===//
#ifndef KOSAN_TOOLS_RESPONSE_FILE_H
#define KOSAN_TOOLS_RESPONSE_FILE_H

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace kosan::cli {

inline std::vector<std::string> splitGnuArguments(std::string_view Text) {
  std::vector<std::string> Tokens;
  std::string Token;
  bool InToken = false;
  char Quote = 0;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (Quote == '\'' && C != '\'') {
      Token += C;
    } else if (C == Quote) {
      Quote = 0;
    } else if (C == '\\' && I + 1 < Text.size()) {
      Token += Text[++I];
      InToken = true;
    } else if (Quote) {
      Token += C;
    } else if (C == '\'' || C == '"') {
      Quote = C;
      InToken = true;
    } else if (std::isspace(static_cast<unsigned char>(C))) {
      if (InToken)
        Tokens.push_back(std::move(Token));
      Token.clear();
      InToken = false;
    } else {
      Token += C;
      InToken = true;
    }
  }
  if (InToken)
    Tokens.push_back(std::move(Token));
  return Tokens;
}

} // namespace kosan::cli

#endif // KOSAN_TOOLS_RESPONSE_FILE_H

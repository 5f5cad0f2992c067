//===- kosan-mutate - The mutants of a build -------------------------------===//
//
//   kosan-mutate list [--format text|json] [-o FILE] -- kosan-clang++ -O2 k.cu
//   kosan-mutate list -- k.cu -O2          (a source: its device code only)
//   kosan-mutate operators
//
// `list` runs the build command once with --kosan-mutate-list (the plugin
// appends each device module's mutants to a file), writing its output to a
// temporary directory, and prints the mutants, one per id (the device
// modules of several GPU architectures have the same ones). Building with
// --kosan-mutate=ID (kosan-clang++ or kosan-nvcc) then makes one of them.
//
// Exit status: 0, or 2 when the flags are wrong or the build fails.
//
//===----------------------------------------------------------------------===//
#include "kosan/mutate.h"

#include "common/cli_output.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace fs = std::filesystem;

namespace {

constexpr const char *Tool = "kosan-mutate";
constexpr int kExitTrouble = 2;

void printError(const std::string &message) { kosan::cli::printError(Tool, message); }

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool isSource(const std::string &arg) {
  for (const char *ext : {".cu", ".cpp", ".cc", ".cxx", ".c++"})
    if (endsWith(arg, ext))
      return true;
  return false;
}

// kosan-clang++ beside this executable (<prefix>/bin).
std::string siblingDriver() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (ec ? fs::path("kosan-clang++") : self.parent_path() / "kosan-clang++").string();
}

// The build command with its output sent to \p out, without a
// --kosan-mutate= of its own, and listing to \p list.
std::vector<std::string> listingCommand(std::vector<std::string> command, const fs::path &out,
                                        const fs::path &list) {
  if (isSource(command[0])) {
    // Device code only, unless several architectures make several outputs.
    int archs = 0;
    for (const std::string &a : command)
      archs += a.rfind("--cuda-gpu-arch=", 0) == 0 || a.rfind("--offload-arch=", 0) == 0;
    if (archs > 1)
      command.insert(command.begin(), {siblingDriver(), "-c"});
    else
      command.insert(command.begin(), {siblingDriver(), "--cuda-device-only", "-c"});
  }
  std::vector<std::string> result;
  bool hasOutput = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const std::string &a = command[i];
    if ((a == "-o" || a == "--output-file") && i + 1 < command.size()) {
      result.push_back(a);
      result.push_back(out.string());
      ++i;
      hasOutput = true;
    } else if (a.rfind("--output-file=", 0) == 0 || (a.rfind("-o", 0) == 0 && a.size() > 2 &&
                                                      a.rfind("-offload", 0) != 0)) {
      result.push_back("-o");
      result.push_back(out.string());
      hasOutput = true;
    } else if (a.rfind("--kosan-mutate=", 0) == 0 || a.rfind("--kosan-mutate-list=", 0) == 0) {
      continue;
    } else {
      result.push_back(a);
    }
  }
  if (!hasOutput) {
    result.push_back("-o");
    result.push_back(out.string());
  }
  result.push_back("--kosan-mutate-list=" + list.string());
  return result;
}

// Runs \p argv with its standard output on our standard error (ours is the
// listing); returns the exit status, 127 when it cannot be started.
int run(const std::vector<std::string> &argv) {
  std::vector<char *> cargv;
  for (const std::string &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  pid_t pid;
  int error = ::posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error)
    return 127;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct TempDir {
  fs::path path;
  TempDir() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = (fs::path(tmp && *tmp ? tmp : "/tmp") / "kosan-mutate.XXXXXX").string();
    if (::mkdtemp(pattern.data()))
      path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty())
      fs::remove_all(path, ec);
  }
};

std::string textListing(const std::vector<nlohmann::json> &mutants) {
  std::string out;
  std::map<std::string, int> byOperator;
  for (const nlohmann::json &m : mutants) {
    std::string where = m.value("file", "?") + ":" + std::to_string(m.value("line", 0)) + ":" +
                        std::to_string(m.value("column", 0));
    char line[1024];
    std::snprintf(line, sizeof line, "%s  %-24s %-16s %s  [%s]\n",
                  m.value("id", "").c_str(), where.c_str(), m.value("operator", "").c_str(),
                  m.value("description", "").c_str(), m.value("function", "").c_str());
    out += line;
    ++byOperator[m.value("operator", "")];
  }
  out += std::to_string(mutants.size()) + " mutants";
  const char *sep = ": ";
  for (const kosan::MutationOperator &op : kosan::kMutationOperators)
    if (int n = byOperator[std::string(op.name)]) {
      out += sep + std::string(op.name) + " " + std::to_string(n);
      sep = ", ";
    }
  return out + "\n";
}

int listMutants(const std::vector<std::string> &command, const std::string &format,
                const std::string &output) {
  if (command.empty()) {
    printError("list: give the build command after '--' (kosan-mutate list -- kosan-clang++ "
               "-O2 k.cu), or a source and its flags (kosan-mutate list -- k.cu -O2)");
    return kExitTrouble;
  }
  TempDir tmp;
  if (tmp.path.empty()) {
    printError("cannot create a temporary directory: " + std::string(std::strerror(errno)));
    return kExitTrouble;
  }
  fs::path list = tmp.path / "mutants.jsonl";
  std::vector<std::string> argv = listingCommand(command, tmp.path / "out", list);
  int status = run(argv);
  if (status == 127) {
    printError("cannot run '" + argv[0] + "'");
    return kExitTrouble;
  }
  if (status != 0) {
    printError("the build failed (exit status " + std::to_string(status) +
               "); its errors are above");
    return kExitTrouble;
  }
  std::vector<nlohmann::json> mutants;
  std::set<std::string> seen;
  std::ifstream in(list);
  if (!in) {
    printError("the build listed no device code: was it built by kosan-clang++ or kosan-nvcc, "
               "and does it compile CUDA?");
    return kExitTrouble;
  }
  for (std::string line; std::getline(in, line);) {
    if (line.empty())
      continue;
    nlohmann::json m = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (m.is_discarded() || !m.contains("id")) {
      printError("unreadable line in the plugin's list: " + line.substr(0, 80));
      return kExitTrouble;
    }
    if (seen.insert(m["id"].get<std::string>()).second)
      mutants.push_back(std::move(m));
  }
  std::string text;
  if (format == "json") {
    nlohmann::json doc;
    doc["mutants"] = mutants;
    doc["count"] = mutants.size();
    nlohmann::json byOperator = nlohmann::json::object();
    for (const nlohmann::json &m : mutants)
      byOperator[m.value("operator", "")] = byOperator.value(m.value("operator", ""), 0) + 1;
    doc["by_operator"] = byOperator;
    text = doc.dump(2) + "\n";
  } else {
    text = textListing(mutants);
  }
  return kosan::cli::writeOutput(Tool, output, text) ? 0 : kExitTrouble;
}

} // namespace

static int runTool(int argc, char **argv) {
  // Everything after the first "--" is the build command, untouched.
  std::vector<std::string> own, command;
  bool inCommand = false;
  for (int i = 1; i < argc; ++i) {
    if (!inCommand && std::string(argv[i]) == "--")
      inCommand = true;
    else
      (inCommand ? command : own).push_back(argv[i]);
  }

  CLI::App app{"Lists the mutants kosan's plugin makes of a build's device code "
               "(mutation analysis: docs/mutate.md).",
               Tool};
  app.set_version_flag("--version", std::string(Tool) + " " KOSAN_VERSION_STRING);
  app.failure_message([](const CLI::App *, const CLI::Error &e) {
    return std::string(Tool) + ": error: " + e.what() + "\nRun with --help for more information.\n";
  });
  app.require_subcommand(1);
  std::string format = "text", output;
  CLI::App *list = app.add_subcommand(
      "list", "List the mutants of a build: kosan-mutate list -- BUILD COMMAND (or SOURCE FLAGS)");
  list->add_option("--format", format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  list->add_option("-o,--output", output, "Write to FILE instead of stdout")->option_text("FILE");
  CLI::App *operators = app.add_subcommand("operators", "List the mutation operators");
  operators->add_option("--format", format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();

  std::vector<std::string> reversed(own.rbegin(), own.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitTrouble;
  }
  if (*operators) {
    if (format == "json") {
      nlohmann::json doc = nlohmann::json::array();
      for (const kosan::MutationOperator &op : kosan::kMutationOperators)
        doc.push_back({{"name", std::string(op.name)}, {"summary", std::string(op.summary)}});
      std::printf("%s\n", doc.dump(2).c_str());
    } else {
      for (const kosan::MutationOperator &op : kosan::kMutationOperators)
        std::printf("%-16s %s\n", std::string(op.name).c_str(), std::string(op.summary).c_str());
    }
    return 0;
  }
  if (!command.empty() && !*list) {
    printError("'--' and a build command belong to 'list'");
    return kExitTrouble;
  }
  return listMutants(command, format, output);
}

int main(int argc, char **argv) {
  return kosan::cli::runGuarded(Tool, kExitTrouble, [&] { return runTool(argc, argv); });
}

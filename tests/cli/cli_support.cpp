#include "tests/cli/cli_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/topology_loader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>

namespace kb::test {

// -- collecting every `run --json` file for the schema check -----------------

namespace {

/// $KB_RESULTS_COLLECT, or empty: collect nothing.
std::string collect_dir() {
  const char* d = std::getenv("KB_RESULTS_COLLECT");
  return d ? d : "";
}

/// The running test's name as a file name ("Suite.Name", '/' made '_').
std::string test_file_name() {
  const auto* t = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = t ? std::string(t->test_suite_name()) + "." + t->name() : "no_test";
  for (char& c : name)
    if (c == '/' || c == ' ')
      c = '_';
  return name;
}

/// Records each test that starts in $KB_RESULTS_COLLECT/tests/, holding the
/// number of tests of this executable: the schema check knows from them
/// whether the whole suite ran, and so whether its minimum of files applies.
class collect_marker : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override {
    const std::filesystem::path dir = std::filesystem::path(collect_dir()) / "tests";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream(dir / test_file_name())
      << ::testing::UnitTest::GetInstance()->total_test_count() << "\n";
  }
};

[[maybe_unused]] const bool collect_marker_added = [] {
  if (!collect_dir().empty()) // the listeners own it
    ::testing::UnitTest::GetInstance()->listeners().Append(new collect_marker);
  return true;
}();

/// The words of a shell command line, quotes removed (what the tests pass).
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string w;
  bool in_word = false;
  char quote = 0;
  for (const char c : line) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        w += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word)
        words.push_back(std::move(w));
      w.clear();
      in_word = false;
    } else {
      w += c;
      in_word = true;
    }
  }
  if (in_word)
    words.push_back(std::move(w));
  return words;
}

/// Copies the `--json` file of a `run` in `args` to $KB_RESULTS_COLLECT/json/.
void collect_results(const std::string& args, const std::string& env) {
  const std::string dir = collect_dir();
  const auto words = shell_words(args);
  if (dir.empty() || words.empty() || words[0] != "run")
    return;
  for (size_t i = 1; i < words.size(); ++i) {
    std::string path;
    if (words[i] == "--json" && i + 1 < words.size())
      path = words[i + 1];
    else if (words[i].rfind("--json=", 0) == 0)
      path = words[i].substr(7);
    // `-` is standard output; a relative path after the env's `cd` is not ours to find.
    if (!path.empty() && path != "-" &&
        (path[0] == '/' || env.find("cd ") == std::string::npos))
      collect_json(path);
  }
}

} // namespace

void collect_json(const std::string& path) {
  static int n = 0;
  const std::string dir = collect_dir();
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_regular_file(path, ec))
    return;
  const auto to = std::filesystem::path(dir) / "json";
  std::filesystem::create_directories(to, ec);
  const std::string name = test_file_name() + "." + std::to_string(::getpid()) + "." +
                           std::to_string(++n) + "." +
                           std::filesystem::path(path).filename().string();
  std::filesystem::copy_file(path, to / name, std::filesystem::copy_options::overwrite_existing,
                             ec);
  if (ec)
    ADD_FAILURE() << "cannot collect " << path << " into " << to.string() << ": "
                  << ec.message();
}

std::vector<char*> kernbench_argv(const std::vector<std::string>& args,
                                  std::vector<std::string>& storage) {
  storage.assign(1, KB_KERNBENCH_EXE);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string file_size_limit(unsigned bytes) {
  return "trap '' XFSZ; ulimit -f " + std::to_string(bytes / 512) + ";";
}

namespace {

/// This test process's own folder of temporaries; removed when it exits
/// (ctest runs each test in a process of its own: 6,800 folders were left
/// in /tmp after a few suites).
const std::filesystem::path& temp_root() {
  static const pid_t owner = ::getpid();
  static const std::filesystem::path root =
    std::filesystem::temp_directory_path() / ("kb_cli_tests." + std::to_string(owner));
  static const bool registered = std::atexit([] {
    if (::getpid() == owner) { // not a forked child's exit
      std::error_code ec;
      std::filesystem::remove_all(root, ec);
    }
  }) == 0;
  (void)registered;
  return root;
}

} // namespace

std::string temp_dir(const std::string& name) {
  const auto dir = temp_root() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string source_dir() {
  const char* d = std::getenv("KB_SOURCE_DIR");
  return d ? d : ".";
}

cli_result run_kernbench(const std::string& args, const std::string& env,
                         const std::string& stdout_to) {
  static int n = 0;
  const std::string dir = temp_dir("run" + std::to_string(++n));
  const std::string out = dir + "/out", err = dir + "/err";
  const std::string cmd = env + " " KB_KERNBENCH_EXE " " + args + " >" + (stdout_to.empty() ? out : stdout_to) + " 2>" + err;
  const int status = std::system(cmd.c_str());
  cli_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);
  // Whole files only: a run that succeeded, failed verification (3) or was
  // stopped by SIGINT/SIGTERM (130/143, `complete` false) writes its JSON.
  if (r.exit_code == 0 || r.exit_code == 3 || r.exit_code == 130 || r.exit_code == 143)
    collect_results(args, env);
  return r;
}

cli_result run_kernbench_on_full_disk(const std::string& args, unsigned bytes) {
  static int n = 0;
  const std::string dir = temp_dir("full" + std::to_string(++n));
  const std::string out = dir + "/out", err = dir + "/err", rc = dir + "/rc";
  const std::string cmd = "{ (" + file_size_limit(bytes) + " exec " KB_KERNBENCH_EXE " " + args +
                          " 2>" + err + "); echo $? >" + rc + "; } | cat >" + out;
  cli_result r;
  if (std::system(cmd.c_str()) == 0) {
    const std::string code = slurp(rc);
    r.exit_code = std::atoi(code.c_str());
    if (r.exit_code >= 128) // the shell's code for a signal
      r.exit_code = -1;
  }
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove_all(dir);
  return r;
}

std::string without_wall(const std::string& out) {
  const std::string a =
    std::regex_replace(out, std::regex(R"(in [0-9]+ batches, ([0-9.]+) GFLOP, [0-9.]+ s)"),
                       "in B batches, $1 GFLOP, W s");
  const std::string b = std::regex_replace(a, std::regex(R"(\nengine: [^\n]*\n)"), "\nengine: E\n");
  return std::regex_replace(b, std::regex(R"(each, [0-9]+ thread\(s\))"), "each, T thread(s)");
}

std::string json_results(const std::string& json) {
  // `invocation` is the last top-level field (docs/results-schema.md).
  const auto at = json.find(",\n  \"invocation\": {");
  return at == std::string::npos ? json : json.substr(0, at) + "\n}\n";
}

std::string json_without_program_and_kernel(const std::string& json) {
  std::string s = std::regex_replace(json_results(json),
                                     std::regex(R"("program": \[[^\]]*\],\n  )"), "");
  // The `kernel` object ends where the next top-level field starts.
  const auto kernel = s.find(",\n  \"kernel\": {");
  if (kernel != std::string::npos) {
    const auto next = s.find("\n  },\n  \"", kernel);
    s.erase(kernel, next == std::string::npos ? s.size() - kernel - 3 : next + 4 - kernel);
  }
  // A kernel's PE_CPUs report each program's span (the driver runs none).
  return std::regex_replace(s, std::regex(R"(,\n *"program\d+\.(start|end)_ps": \d+)"), "");
}

topology_spec config_machine(const std::string& file) {
  const std::string dir = std::string(KB_SOURCE_DIR_FOR_TESTS) + "/config/";
  return load_topology(dir + file, builtin_kinds().catalog());
}

} // namespace kb::test

#include "tests/cli/cli_support.hpp"

#include "actors/builtin_kinds.hpp"
#include "runtime/config/impl_registry.hpp"
#include "runtime/config/topology_loader.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>

namespace kb::test {

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

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kb_cli_tests." + std::to_string(::getpid())) / name;
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

std::string json_without_program_and_kernel(const std::string& json) {
  std::string s = std::regex_replace(json, std::regex(R"("program": \[[^\]]*\],\n  )"), "");
  // The `kernel` object ends where the next top-level field starts.
  const auto kernel = s.find(",\n  \"kernel\": {");
  if (kernel != std::string::npos) {
    const auto next = s.find("\n  },\n  \"", kernel);
    s.erase(kernel, next == std::string::npos ? s.size() - kernel - 3 : next + 4 - kernel);
  }
  return s;
}

topology_spec config_machine(const std::string& file) {
  const std::string dir = std::string(KB_SOURCE_DIR_FOR_TESTS) + "/config/";
  return load_topology(dir + file, load_impl_registry(dir + "components.yaml"),
                       builtin_kinds().catalog());
}

} // namespace kb::test

#pragma once
// Runs the kernbench executable as a user would and collects what it says.

#include "runtime/config/topology_spec.hpp"

#include <string>
#include <vector>

namespace kb::test {

struct cli_result {
  int exit_code = -1; ///< -1: killed by a signal
  std::string out, err;
};

/// Runs `env kernbench args` through /bin/sh (so `args` may quote) and
/// returns its exit code, standard output and standard error. With
/// `stdout_to`, standard output goes there instead. With KB_RESULTS_COLLECT
/// set (CTest sets it for every test here), a `run` that wrote a `--json`
/// file (exit 0, 3, 130 or 143) leaves a copy of it in
/// $KB_RESULTS_COLLECT/json/, which results_schema.every_json_the_suite_wrote
/// validates against schema/results.schema.json (tests/cli/CMakeLists.txt).
cli_result run_kernbench(const std::string& args, const std::string& env = "",
                         const std::string& stdout_to = "");

/// Copies `path`, a `run --json` file of a run started another way (e.g.
/// with kernbench_argv and posix_spawn), into $KB_RESULTS_COLLECT/json/ as
/// run_kernbench does (nothing if the variable is unset or there is no file).
void collect_json(const std::string& path);

/// An `env` prefix for run_kernbench that limits each file the run writes
/// to `bytes` (RLIMIT_FSIZE in whole 512-byte blocks, SIGXFSZ ignored):
/// a write past it fails with EFBIG, "File too large", as a full disk would,
/// with no device touched.
std::string file_size_limit(unsigned bytes);

/// run_kernbench with `file_size_limit(bytes)` on kernbench alone: standard
/// output goes through a pipe, so only the files the run writes (and its
/// standard error) are limited.
cli_result run_kernbench_on_full_disk(const std::string& args, unsigned bytes);

/// `kernbench args...` as the argv of exec or posix_spawn (null-terminated):
/// the strings live in `storage`, which must outlive the argv.
std::vector<char*> kernbench_argv(const std::vector<std::string>& args,
                                  std::vector<std::string>& storage);

/// A fresh empty directory under the test's temporary directory.
std::string temp_dir(const std::string& name);

/// The whole file (empty if it cannot be read).
std::string slurp(const std::string& path);
/// A run's standard output without what the thread or process count may
/// change: Phase 2's batch count and wall time, the engine's line (its
/// windows and sync messages differ when split) and the first line's
/// thread count.
std::string without_wall(const std::string& out);

/// The source tree ($KB_SOURCE_DIR, set by CTest).
std::string source_dir();

/// A run's JSON without the driver's `program` list and a kernel run's
/// `kernel` object: the two places where a driver run and a kernel run of
/// the same work are meant to differ.
std::string json_without_program_and_kernel(const std::string& json);
/// A `run --json` document without its `invocation` (the command line,
/// threads, processes and host, which differ between runs whose results are
/// the same bytes): what identical runs must agree on.
std::string json_results(const std::string& json);

/// config/FILE of the source tree, loaded with the builtin
/// implementations (e.g. "scale/2sip_2cube_4pe.yaml").
topology_spec config_machine(const std::string& file);

} // namespace kb::test

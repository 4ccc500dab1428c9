#pragma once
// The options of `kernbench run` (runtime/cli/run_command.cpp), shared with
// the code that turns them into each PE's program (run_program).

#include "runtime/cli/trace_filter_cli.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace kb {

struct run_cli {
  std::string topology;
  std::string op = "gemm";
  std::string op_kind = "exp";
  uint32_t m = 1024, k = 1024, n = 1024;
  std::vector<uint32_t> tile{128, 128, 128};
  std::string dtype_name = "f16";
  std::string out_dtype_name;
  bool a_pinned = false, b_pinned = false;
  std::vector<std::string> epilogue;
  uint32_t repeat = 1;
  std::string pes = "1";
  bool pes_given = false;   ///< --pes on the command line (a kernel's grid defaults to all PEs)
  size_t threads = 1;
  std::string delivery = "direct";
  std::string partition = "auto";
  std::string placement = "local";
  std::string cut = "auto";
  uint32_t shards = 0;
  std::string json, trace, csv, trace_stream;
  std::string records; // --records: every tile's stages, streamed (Cap'n Proto)
  std::string out_dir; ///< --out DIR: every output in one folder (apply_out_dir)
  std::vector<std::string> set; ///< --set KEY=VALUE on the topology
  bool quiet = false;
  bool timings = false;     // --timings: the phases' wall time and memory at the end
  bool memory = false;      // --memory: the heap each node kind held once built
  bool trace_hops = false;
  trace_filter_args trace_filters; ///< --trace-select, --trace-window, --trace-kinds
  uint32_t procs = 1;
  uint32_t rank = 0;        // workers of a split run
  std::string connect;      // workers: HOST:PORT of rank 0
  std::string peers;        // HOST:PORT,... of `kernbench peer` processes
  std::string wire_stats;   // workers: where to leave the cross-process counters
  bool per_pe = false;      // every PE's lines in the summary, however many ran
  bool per_command = false; // every command's line in a kernel's or program's summary
  bool record = false;      // workers: record because rank 0 writes --trace
  bool record_stages = false; // workers: tally stages, rank 0 writes --json
  bool ship_ops = false;    // workers: ship the op log's records to rank 0
  bool one_host = false;    // workers: every rank runs on this host (--procs)
  std::string max_sim_time; ///< --max-sim-time: stop there, failing if work is pending
  double stall_timeout = 60; ///< --stall-timeout seconds without an event (0: off)
  // -- kernels (runtime/cli/kernel_cli.cpp) --
  std::string kernel;                ///< set: run this kernel instead of --op
  std::string program;               ///< set: run this host program (kernels/program.hpp)
  /// --kernel or --program: the run's work is kernels, not the built-in driver.
  bool runs_kernels() const { return !kernel.empty() || !program.empty(); }
  /// "--kernel" or "--program", as messages name the option given.
  const char* work_option() const { return program.empty() ? "--kernel" : "--program"; }
  std::vector<std::string> args;     ///< --arg KEY=VALUE
  std::vector<std::string> inputs;   ///< --input TENSOR=FILE.npy
  std::vector<std::string> places;   ///< --place TENSOR=WHERE
  bool input_cast = false;           ///< --input-cast: convert --input files even if values change
  std::vector<std::string> kernel_libs; ///< --kernel-lib PATH: kernel libraries to load
  uint32_t kernel_stack_kib = 512;   ///< --kernel-stack: each kernel's fiber stack
  // -- data (kernel and driver runs) --
  bool verify = false;
  bool verify_given = false;         ///< --verify or --no-verify on the command line
  std::string dump_tensors, oplog, op_digests;
  uint64_t seed = 1;
  unsigned phase2_workers = 0;
  std::set<std::string> given; ///< options given on the command line ("--M")
};

} // namespace kb

#pragma once
// What a run's report says of its kernel (docs/adr/0024-one-report-for-
// every-run.md): per PE, where the kernel's time went (computing, blocked
// on a load's data, waiting on handles, waiting for TCM) and the critical
// path of its latency; for `run --kernel`, the kernel itself: name, args,
// grid, each tensor's shape, dtype and place, and the verdict per output.

#include "kernels/dtype.hpp"
#include "runtime/io/json_writer.hpp"
#include "runtime/report/pe_commands.hpp"

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kb {

/// One output's check against the kernel's reference.
struct output_verdict {
  std::string tensor;
  bool ok = true;
  uint64_t elements = 0, mismatches = 0;
  double max_abs_error = 0;
  std::string text; ///< the verifier's line
};

/// The kernel of a `run --kernel`.
struct kernel_info {
  std::string name;
  std::map<std::string, std::string> args; ///< every argument, defaults filled in
  uint32_t programs = 0;                   ///< programs in the grid
  std::array<uint32_t, 3> grid{1, 1, 1};   ///< along axes 0, 1, 2
  uint64_t pes = 0;                        ///< PEs the grid was dealt to
  struct tensor {
    std::string name;
    uint32_t rows = 0, cols = 0;
    dtype type = dtype::f32;
    bool output = false;
    bool scratch = false; ///< allocated, not initialised, not verified
    uint64_t address = 0;
    std::string where; ///< "hbm of sip0.cube0"
  };
  std::vector<tensor> tensors;
  bool verified = false;                 ///< --verify ran
  std::vector<output_verdict> verdicts;  ///< one per output (with verify)
  /// A host program's launches (`run --program`; empty for a kernel).
  struct launch {
    std::string kernel, queue;
    uint64_t pes = 0, programs = 0;
    std::vector<uint32_t> after;     ///< launches it waited for
    uint64_t issue_ps = 0, done_ps = 0;
    std::optional<uint32_t> decided_by; ///< the launch whose completion let it go
    bool critical = false;           ///< on the program's critical path
    std::string ended_on; ///< the PE whose kernel returned last ("": unknown)
    std::optional<uint64_t> ended_by_command; ///< the command whose done notice resumed it
  };
  std::vector<launch> launches;
};

/// The unit a command's stage runs on ("pe_dma/read"; "pipeline" for a
/// composite command, unit 0xff).
std::string unit_name(uint8_t unit);

/// The detailed summary's "kernel time" and "critical path" sections
/// (`every_step`: the whole path; else its first and last 32 commands).
void write_kernel_summary(std::ostream& out, const std::vector<pe_commands>& pes, bool grouped,
                          bool every_step);
/// The JSON's `kernel_time` (per PE; empty unless `per_pe`) and
/// `critical_path` objects.
void write_kernel_json(json_writer& j, const std::vector<pe_commands>& pes, bool per_pe);
/// The JSON's `kernel` object.
void write_kernel_info_json(json_writer& j, const kernel_info& k);

} // namespace kb

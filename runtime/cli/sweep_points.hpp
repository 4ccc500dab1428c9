#pragma once
// The points of `kernbench sweep`: each `--param KEY=v1,v2,...` is an axis,
// the points are their cross product (the first axis varies slowest), and
// each point is a `kernbench run` command line: the run options after `--`,
// then per axis either the run option (`M=256` -> `--M 256`, `kernel=gemm`
// -> `--kernel gemm`), a kernel argument (`arg.block_m=64` -> `--arg
// block_m=64`) or a topology override (`cube.pe_template.pe_gemm.mac_rows=64`
// -> `--set ...`).

#include <CLI/App.hpp>

#include <string>
#include <vector>

namespace kb {

struct sweep_axis {
  std::string key;                 ///< as written, without leading dashes
  std::string run_option;          ///< "--M" when KEY names a `run` option, else empty
  std::string kernel_arg;          ///< "block_m" for KEY arg.block_m (run_option "--arg")
  size_t option_arity = 1;         ///< values the run option takes (3 for --tile)
  std::vector<std::string> values; ///< as written
};

/// Parses "KEY=v1,v2,...". KEY is a kernel argument when it is `arg.NAME`
/// (passed as `--arg NAME=v`), a `run` option when `run` (the run
/// subcommand) has `--KEY`, else a topology key passed as `--set`. A value
/// of a multi-value option separates its parts with 'x' or spaces
/// (`tile=64x64x64`). Throws std::invalid_argument naming `--param` and the
/// text for a missing '=', an empty key or value, or a value of the wrong
/// number of parts.
sweep_axis parse_axis(const std::string& text, const CLI::App& run);

/// Refuses axes that repeat a key, run options the sweep sets itself
/// (--csv, --json, --trace, --quiet) and run options given both as an axis
/// and after `--`. Throws std::invalid_argument naming the option.
void check_axes(const std::vector<sweep_axis>& axes, const std::vector<std::string>& base);

/// The most points a sweep may have: each is a `kernbench run` process and
/// a CSV row held until the end.
inline constexpr size_t max_sweep_points = 100000;

/// Number of points (product of the axes' sizes; SIZE_MAX if it overflows).
size_t point_count(const std::vector<sweep_axis>& axes);

/// Refuses more than max_sweep_points points (std::invalid_argument naming
/// the axes' sizes and the limit), before any point is made.
void check_point_count(const std::vector<sweep_axis>& axes);

/// The axis values of point `i` (first axis slowest).
std::vector<std::string> point_values(const std::vector<sweep_axis>& axes, size_t i);

/// The `run` arguments of a point: "run", `base`, then each axis's value.
std::vector<std::string> point_args(const std::vector<sweep_axis>& axes,
                                    const std::vector<std::string>& values,
                                    const std::vector<std::string>& base);

} // namespace kb

#pragma once
// Runs the points of a sweep as `kernbench run` child processes (this same
// executable), up to `jobs` at a time, each writing its summary row with
// `--csv` to a file of its own in a private temporary directory. A point
// that fails keeps its error (the child's standard error) and the others go
// on.

#include <functional>
#include <string>
#include <vector>

namespace kb {

struct point_result {
  bool ok = false;
  std::string error;               ///< empty when ok: the child's stderr, one line
  double wall_s = 0;               ///< the child process's wall time
  std::vector<std::string> fields; ///< its run summary row (run_csv_header order)
};

/// Runs `kernbench <args_of(i)...> --quiet --csv <tmp>` for every point i
/// below `n`, at most `jobs` at a time, making each command line only when
/// the point starts; `on_done(i, result)` is called in this thread as each
/// point ends. Results come back in point order.
std::vector<point_result> run_points(
  size_t n, const std::function<std::vector<std::string>(size_t)>& args_of, unsigned jobs,
  const std::function<void(size_t, const point_result&)>& on_done);

/// Standard error of a failed point as one line: lines joined with " | ",
/// without the "kernbench: error: " prefix.
std::string one_line_error(const std::string& err);

} // namespace kb

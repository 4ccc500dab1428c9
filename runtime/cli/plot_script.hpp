#pragma once
// scripts/plot_sweep.py, the plot script of `kernbench sweep --plot` and
// `kernbench plot`: its --plot SPEC, where it is, and running it with the
// Python that has matplotlib. The figures themselves are the script's
// (scripts/kbplot/); kernbench checks what it can before any point runs.

#include <string>
#include <vector>

namespace kb {

/// A --plot SPEC: METRIC:PARAM, METRIC:PARAM:SERIES (one line per value of
/// SERIES) or roofline[:PARAM[:SERIES]].
struct plot_spec {
  std::string text;   ///< as given
  std::string metric; ///< a CSV column, or "roofline"
  std::string param;  ///< empty: not given (roofline only)
  std::string series; ///< empty: not given
  bool roofline() const { return metric == "roofline"; }
};

/// Parses a --plot SPEC; std::invalid_argument naming it when its shape is
/// none of those.
plot_spec parse_plot_spec(const std::string& text);

/// The plot script: `given` (--plot-script) when not empty, else
/// plot_sweep.py beside the binary (the build copies it there with its
/// kbplot package), in the installation's share/kernbench, or in the source
/// tree's scripts/. std::invalid_argument when there is none.
std::string find_plot_script(const std::string& given);

/// What running the script came to.
struct plot_outcome {
  /// The script's exit status (0 plotted, 1 a file not written, 2 bad
  /// input, 3 no matplotlib); -1 when it did not run or was killed.
  int exit_code = 0;
  std::string error; ///< why, when exit_code is not 0 (the script said more)
};

/// Runs `PYTHON script args...` and waits for it; its messages go to our
/// standard error. PYTHON is $KB_PYTHON, else /usr/bin/python3 (Debian's,
/// where python3-matplotlib is), else python3 on PATH; the script itself
/// runs /usr/bin/python3 when the Python it got has no matplotlib.
plot_outcome run_plot_script(const std::string& script, const std::vector<std::string>& args);

} // namespace kb

#pragma once
// `--json -` and `--csv -`: an output named "-" is standard output, as with
// most tools (it used to make a file called "-"). So that standard output
// then carries only that data (a script pipes it on), the run's text report
// moves to standard error: claim() keeps the original standard output for
// the data and points descriptor 1, and with it every print, at standard
// error.

namespace kb::data_stdout {

/// The output name that means standard output.
inline constexpr const char* name = "-";

/// From now on descriptor 1 is standard error, and fd() the original
/// standard output (once; later calls do nothing).
void claim();

/// Where an output named "-" goes: the original standard output (claimed or
/// not).
int fd();

} // namespace kb::data_stdout

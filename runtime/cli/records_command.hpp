#pragma once
// `kernbench records convert IN --csv OUT`: the stages of a run's
// `--records` stream (or of any trace with stages) as one CSV row each.

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_records_command(CLI::App& app, int& exit_code);

} // namespace kb

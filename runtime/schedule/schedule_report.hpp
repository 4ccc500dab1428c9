#pragma once
// What `kernbench schedule` prints: a readable table and the JSON document
// {"strategy", "success", "ii", "mii", "ops": [...], "diagnostics": [...]}.

#include "runtime/schedule/analysis.hpp"
#include "runtime/schedule/problem.hpp"
#include "runtime/schedule/validator.hpp"

#include <string>

namespace kb::sched {

std::string render_text(const problem& p, const schedule_analysis& a, const validation& v);
std::string render_json(const problem& p, const schedule_analysis& a, const validation& v);

} // namespace kb::sched

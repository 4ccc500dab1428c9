#pragma once
// Reading a scheduling problem from JSON or YAML (JSON is read as YAML flow
// style). Structural errors are `kb::config_error`s reading
// `file:line: key.path: message`; a well-formed problem that `check_problem`
// rejects throws its `problem_error`.

#include "runtime/schedule/problem.hpp"

#include <string>

namespace kb::sched {

/// Reads the problem in the file at `path`; `problem::source` is `path`.
/// Throws `kb::config_error` (missing file, malformed text, unknown or
/// misspelt keys, wrong types, unknown pools or ops) or `problem_error`
/// (from `check_problem`, e.g. an op using more of a pool than it has).
///
/// The form, with only `resources` and `ops` required:
/// ```
/// {"resources": {"dma": 1, "tc": 1},
///  "attributes": {"force_serial_execution": false, "serial_threshold": 8},
///  "ops": [{"name": "load_a", "latency": 4, "reservation": [{"dma": 1}, {}],
///           "max_depth": 1, "gid": 3, "leader_gid": 3}],
///  "edges": [{"from": "load_a", "to": "mma", "latency": 4, "distance": 0}]}
/// ```
/// Pools are indexed in file order, ops kept in program (file) order. An op's
/// latency defaults to 1; an edge's latency to its source op's latency and its
/// distance to 0.
problem read_problem_file(const std::string& path);

/// Reads a problem from `text` as if it were the file `name` (used in messages
/// and as `problem::source`). Throws as `read_problem_file`.
problem read_problem_text(const std::string& text, const std::string& name);

} // namespace kb::sched

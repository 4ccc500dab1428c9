#pragma once
// The JSON's `groups`: the run's figures over its PEs (and cubes), as the
// summary prints them for a run of many PEs (pe_groups.hpp). Every run has
// them; a run of more than summary_pe_lines PEs has them instead of every
// PE's figures unless `--per-pe` (docs/results-schema.md).

#include "runtime/io/json_writer.hpp"
#include "runtime/report/pe_groups.hpp"

namespace kb {

void write_groups_json(json_writer& j, const pe_group_summary& g);

} // namespace kb

#include "runtime/report/pe_commands.hpp"
#include "runtime/parallel_indices.hpp"
#include "runtime/machine/pipeline_stats.hpp"

#include <algorithm>
#include <unordered_map>

namespace kb {

namespace {

pe_commands commands_of_pe(const run_result& r, const std::string& pe) {
  pe_commands p;
  p.pe = pe;
  p.cpu = find_node(r, pe + ".pe_cpu");
  p.scheduler = find_node(r, pe + ".pe_scheduler");
  if (p.cpu)
    p.rows = command_table::rows_of(p.cpu->tables);
  std::unordered_map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < p.rows.size(); ++i)
    by_id.emplace(p.rows[i].id, i);
  if (p.scheduler)
    for (const command_stat& s : command_table::rows_of(p.scheduler->tables)) {
      const auto it = by_id.find(s.id);
      if (it == by_id.end())
        continue;
      command_stat& c = p.rows[it->second];
      c.arrive_ps = s.arrive_ps;
      c.start_ps = s.start_ps;
      c.held = s.held;
      c.held_by = s.held_by;
      c.body_tiles = s.body_tiles;
      c.predicted_ii_ps = s.predicted_ii_ps;
      c.predicted_mii_ps = s.predicted_mii_ps;
      c.steady_interval_ps = s.steady_interval_ps;
      c.has_mii = s.has_mii;
      c.has_steady = s.has_steady;
    }
  return p;
}

} // namespace

std::vector<pe_commands> commands_of(const run_result& r, const std::vector<std::string>& pes,
                                     size_t threads) {
  std::vector<pe_commands> out(pes.size());
  for_each_index(pes.size(), threads, [&](size_t i) { out[i] = commands_of_pe(r, pes[i]); });
  return out;
}

uint64_t kernel_time::running_ps() const {
  const uint64_t waited = blocked_load_ps + wait_ps + tcm_wait_ps;
  const uint64_t span = end_ps > start_ps ? end_ps - start_ps : 0;
  return span > waited ? span - waited : 0;
}

kernel_time kernel_time_of(const pe_commands& p) {
  kernel_time t;
  if (!p.cpu)
    return t;
  // Every kernel statistic is there when the PE ran a kernel (pe_cpu).
  for (const auto& f : p.cpu->figures) {
    if (f.is(kernel_stats::finished))
      t.finished = f.value != 0;
    else if (f.is(kernel_stats::start_ps))
      t.start_ps = f.value;
    else if (f.is(kernel_stats::end_ps))
      t.end_ps = f.value;
    else if (f.is(kernel_stats::blocked_load_ps))
      t.blocked_load_ps = f.value;
    else if (f.is(kernel_stats::wait_ps))
      t.wait_ps = f.value;
    else if (f.is(kernel_stats::tcm_wait_ps))
      t.tcm_wait_ps = f.value;
    else if (f.is(kernel_stats::last_resumed_by))
      t.last_resumed_by = f.value;
    else if (!f.is(kernel_stats::tcm_peak_bytes))
      continue;
    t.ran = true;
  }
  return t;
}

critical_path critical_path_of(const std::vector<pe_commands>& pes) {
  critical_path path;
  const pe_commands* last = nullptr;
  for (const auto& p : pes) {
    const kernel_time t = kernel_time_of(p);
    if (t.finished && (!last || t.end_ps > path.time.end_ps)) {
      last = &p;
      path.time = t;
    }
  }
  if (!last)
    return path;
  path.pe = std::string(last->pe);
  auto row = [&](uint64_t id) -> const command_stat* {
    // Rows are by id from 1 (PE_CPU issues them so); search otherwise.
    if (id >= 1 && id <= last->rows.size() && last->rows[id - 1].id == id)
      return &last->rows[id - 1];
    for (const auto& r : last->rows)
      if (r.id == id)
        return &r;
    return nullptr;
  };
  uint64_t cur = path.time.last_resumed_by;
  while (cur != 0) {
    const command_stat* c = row(cur);
    if (!c)
      break;
    uint64_t pred = c->after;
    std::string_view how = "kernel";
    if (c->held == static_cast<uint8_t>(held_why::depends)) {
      pred = c->held_by;
      how = "depends";
    } else if (c->held == static_cast<uint8_t>(held_why::engine)) {
      pred = c->held_by;
      how = "engine";
    }
    path.steps.push_back({c, how});
    // Each predecessor finished, or started, no later than its successor
    // started; the bound only guards against a malformed table.
    if (pred == cur || path.steps.size() > last->rows.size())
      break;
    cur = pred;
  }
  std::reverse(path.steps.begin(), path.steps.end());
  return path;
}

} // namespace kb

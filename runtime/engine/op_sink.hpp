#pragma once
// Where the op log goes (ADR-0020 D2, D5): the unit base class's hook hands
// every data op of every stage it serves to the run's sink. Shared by all
// nodes of a process, so an implementation is thread-safe; the order of the
// log it writes must not depend on thread count (sort by op_key).

#include "runtime/data/op_record.hpp"

#include <string>
#include <tuple>
#include <vector>

namespace kb {

class op_sink {
public:
  virtual ~op_sink() = default;
  virtual void append(op_record r) = 0;
  /// A process of a split run other than rank 0 ships its ops to rank 0 in
  /// the node summaries: the records of `component` so far, encoded (and
  /// forgotten here). Empty where ops are written in this process.
  virtual std::vector<char> take_shipped(const std::string& /*component*/) { return {}; }
};

/// The log's order: service start, then service end, then the op id (which
/// leads with the node id), the same whatever ran where.
inline auto op_key(const op_record& r) { return std::tuple(r.t_start_ps, r.t_end_ps, r.id); }

} // namespace kb

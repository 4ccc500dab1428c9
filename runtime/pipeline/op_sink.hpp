#pragma once
// Where the op log goes (seed ADR-0020 D2, D5): the unit base class's hook hands
// every data op of every stage it serves to the run's sink. Shared by all
// nodes of a process, so an implementation is thread-safe; the order of the
// log it writes must not depend on thread count (sort by op_key).
// The engine carries it to every node as a node_sink; a process other than
// rank 0 ships the records to rank 0 in the node summaries (take_shipped).

#include "runtime/data/op_record.hpp"
#include "runtime/engine/node_sink.hpp"

#include <tuple>

namespace kb {

class op_sink : public node_sink {
public:
  virtual void append(op_record r) = 0;
};

/// The log's order: service start, then service end, then the op id (which
/// leads with the node id), the same whatever ran where.
inline auto op_key(const op_record& r) { return std::tuple(r.t_start_ps, r.t_end_ps, r.id); }

} // namespace kb

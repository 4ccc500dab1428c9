#pragma once
// The sink behind a node's hook points. Each node owns its own recorder
// (no state is shared between actors); records come back with the node's
// end-of-run summary and are merged by key, so output never depends on
// thread or process count.

#include "runtime/engine/event.hpp"

#include <string>
#include <vector>

namespace kb {

/// What a unit is serving: enough to name it in a trace or op log.
struct service_tag {
  uint16_t lane = 0;      ///< lane/channel of the node (e.g. read channel)
  uint16_t what = 0;      ///< stage type or operation kind
  uint64_t item = 0;      ///< token / tile / request id
  uint64_t context = 0;   ///< command id
  uint64_t bytes = 0;
};

class recorder {
public:
  virtual ~recorder() = default;
  virtual void service_start(SimTime t, node_id node, const service_tag& tag) = 0;
  virtual void service_end(SimTime t, node_id node, const service_tag& tag) = 0;
  /// The records so far, serialised; called once at the end.
  virtual std::vector<char> take_records() = 0;
};

} // namespace kb

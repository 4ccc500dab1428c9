#pragma once
// What the layer above collects from the nodes besides their messages: one
// object per process, shared by all nodes of a run (the op log,
// runtime/pipeline/op_sink.hpp). The engine only hands it to every node and,
// when a node sums up, asks it for the bytes to ship to rank 0 with the
// node's summary; what the bytes mean is the layer above's business.
// Thread-safe: nodes of different shards use it at once.

#include <string>
#include <vector>

namespace kb {

class node_sink {
public:
  virtual ~node_sink() = default;
  /// A process of a split run other than rank 0 ships what it collected to
  /// rank 0 in the node summaries: that of `component` so far, encoded (and
  /// forgotten here). Empty where it is kept in this process.
  virtual std::vector<char> take_shipped(const std::string& /*component*/) { return {}; }
};

} // namespace kb

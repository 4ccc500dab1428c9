#pragma once
// The op sink of a split run's processes other than rank 0: each unit's
// records are held by component until its node's summary takes them
// (op_sink::take_shipped), and travel to rank 0 with it, where the run's one
// op log is written (data_session::absorb). The log's order is op_key, so
// it is the same bytes whatever process logged an op.

#include "runtime/pipeline/op_sink.hpp"

#include <map>
#include <mutex>

namespace kb {

class op_shipper final : public op_sink {
public:
  void append(op_record r) override;
  std::vector<char> take_shipped(const std::string& component) override;

private:
  std::mutex mutex_;
  std::map<std::string, std::vector<op_record>, std::less<>> by_component_;
};

} // namespace kb

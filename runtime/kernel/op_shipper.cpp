#include "runtime/kernel/op_shipper.hpp"

#include "runtime/data/oplog_stream.hpp"

namespace kb {

void op_shipper::append(op_record r) {
  std::lock_guard lock(mutex_);
  auto& v = by_component_[r.component];
  v.push_back(std::move(r));
}

std::vector<char> op_shipper::take_shipped(const std::string& component) {
  std::vector<op_record> mine;
  {
    std::lock_guard lock(mutex_);
    auto it = by_component_.find(component);
    if (it == by_component_.end())
      return {};
    mine = std::move(it->second);
    by_component_.erase(it);
  }
  return encode_ops(mine);
}

} // namespace kb

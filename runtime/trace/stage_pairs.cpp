#include "runtime/trace/stage_pairs.hpp"

namespace kb {

std::optional<stage_record> stage_pairer::add(const trace_record& r) {
  if (r.kind != trace_kind::engine_start && r.kind != trace_kind::engine_complete)
    return std::nullopt;
  const auto k = std::make_pair(r.node, r.tag.lane);
  if (r.kind == trace_kind::engine_start) {
    open_[k] = r;
    return std::nullopt;
  }
  const auto it = open_.find(k);
  if (it == open_.end()) {
    ++unmatched_;
    return std::nullopt;
  }
  const trace_record& s = it->second;
  const stage_record out{r.node,        r.tag.lane, static_cast<stage_type>(s.tag.what),
                         s.tag.context, s.tag.item, s.t,
                         r.t,           s.tag.bytes};
  open_.erase(it);
  return out;
}

} // namespace kb

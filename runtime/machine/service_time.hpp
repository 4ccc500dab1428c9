#pragma once
// The service-time function a node kind declares for the II prediction
// (issue 9, ADR-0007): what the node does to one request when nothing else is
// in flight, from its own config. A unit kind (PE_GEMM, PE_MATH, PE_DMA's
// setup, PE_TCM) adds its service to the arrival; a fabric kind (XBAR, HBM)
// maps the arriving head and tail to the leaving ones. Links are not kinds:
// the predictor crosses them with the engine's own `out_link::cross`.

#include "runtime/engine/link.hpp"
#include "runtime/plan/pipeline_plan.hpp"

#include <cstdint>
#include <functional>

namespace kb {

struct service_request {
  const stage* s = nullptr; ///< the stage served (unit kinds); null on a fabric hop
  uint64_t bytes = 0;       ///< payload of the request or reply
  bool write = false;       ///< a DMA write (its ack) rather than a read (its data)
  crossing in;              ///< head and tail arriving at the node
};

/// Head and tail leaving the node (for a unit: when its service ends).
using service_time_fn = std::function<crossing(const service_request&)>;

} // namespace kb

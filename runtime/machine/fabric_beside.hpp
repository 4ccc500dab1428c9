#pragma once
// A machine's fabric routes computed on a thread of their own while the rest
// of the machine is built (a run of two or more threads: ~18 ms of a
// 1,024-PE machine's serial set-up). The nodes are given the map at once and
// read it only when spawned, after wait(): it is filled by then.

#include "runtime/machine/fabric_map.hpp"
#include "runtime/machine/machine.hpp"

#include <exception>
#include <memory>
#include <thread>

namespace kb {

class fabric_beside {
public:
  /// Starts computing the routes of `in`.
  explicit fabric_beside(fabric_inputs in);
  fabric_beside(const fabric_beside&) = delete;
  fabric_beside& operator=(const fabric_beside&) = delete;
  ~fabric_beside(); ///< waits, and drops any error

  /// The map the routes go into (empty until wait() returns).
  std::shared_ptr<const fabric_map> fabric() const { return map_; }
  /// Returns once the routes are in; rethrows what computing them threw (as
  /// build_fabric would have).
  void wait();

private:
  std::shared_ptr<fabric_map> map_;
  std::exception_ptr error_;
  std::thread thread_;
};

} // namespace kb

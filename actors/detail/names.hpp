#pragma once
// The names of a node's scopes, from its dotted id ("sip0.cube0.pe0.pe_dma"):
// its cube's and its parent's (the PE of a unit), for naming neighbours in
// messages and links not yet declared as ports. Numbers come from the
// node's place (node::place()), never from here.

#include "runtime/address.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace kb::detail {

/// The first two segments of `node_name` ("sip0.cube0" for
/// "sip0.cube0.pe0.pe_dma"); throws if the name is not inside a cube.
inline std::string cube_of(std::string_view node_name) {
  const auto first = node_name.find('.');
  const auto second =
    first == std::string_view::npos ? first : node_name.find('.', first + 1);
  if (second == std::string_view::npos)
    throw std::runtime_error("node '" + std::string(node_name) +
                             "' is not inside a cube (expected sipS.cubeC.<name>)");
  return std::string(node_name.substr(0, second));
}

/// `node_name` without its last segment ("sip0.cube0.pe0" for
/// "sip0.cube0.pe0.pe_fetch_store"); throws for a name without a dot.
inline std::string parent_of(std::string_view node_name) {
  const auto last = node_name.rfind('.');
  if (last == std::string_view::npos)
    throw std::runtime_error("node '" + std::string(node_name) +
                             "' has no parent in the hierarchy");
  return std::string(node_name.substr(0, last));
}

/// runtime/address.hpp's, for the kinds' `detail::describe_address`.
using kb::describe_address;

} // namespace kb::detail

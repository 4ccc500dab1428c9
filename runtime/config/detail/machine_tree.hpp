#pragma once
// The machine's hierarchy (system > SIPs > cubes > PEs) as levels of
// templates, expanded into every node and link in id order without sorting
// strings. Every instance of a level holds the same nodes under its own
// prefix, in the same order, so that order is worked out once per level from
// the names alone, and each level's links are expanded once, on its first
// instance, and then placed on every instance by offset (issue 31: loading
// grows linearly with the machine).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config/detail/scope_template.hpp"
#include "runtime/config/topology_spec.hpp"

namespace kb::detail {

/// One level of the hierarchy: its components and links (each relative to
/// one instance of the level), and how many instances of the next level each
/// of its instances holds.
struct level_tmpl {
  const std::vector<component_tmpl>* components = nullptr;
  const std::vector<link_tmpl>* links = nullptr;
  /// The next level's instances are `<child_name><i>` ("sip", "cube", "pe");
  /// unused at the innermost level.
  std::string_view child_name;
  /// 0 at the innermost level.
  uint32_t children = 0;
};

class machine_tree {
public:
  // -- construction -----------------------------------------------------------

  /// `levels` from the outermost (the system) to the innermost (the PE); the
  /// templates they point at must outlive the tree. The machine must have at
  /// most kb::max_topology_nodes nodes.
  explicit machine_tree(std::vector<level_tmpl> levels);

  // -- expansion --------------------------------------------------------------

  /// Throws for a component name given twice in one level, naming the id of
  /// its first instance (`sip0.cube0.xbar`).
  void check_unique_names() const;

  /// Every node, sorted by id (plain string order).
  std::vector<node_spec> nodes() const;

  /// Every directed link between `nodes` (as returned by `nodes()`), sorted
  /// by (src, dst). Throws for an unknown end, a pattern that matches no
  /// node, a link to itself or a pair declared twice.
  std::vector<link_spec> links(const std::vector<node_spec>& nodes) const;

private:
  // -- member types -----------------------------------------------------------

  static constexpr uint32_t no_component = UINT32_MAX;

  /// A component of the level, or an instance of the next level.
  struct entry {
    uint32_t component = no_component;
    uint32_t child = 0;
  };

  /// One instance of a level, in id order.
  struct level_order {
    std::vector<entry> entries;
    /// By child number: where its nodes start within the instance.
    std::vector<uint64_t> child_offset;
    /// Nodes in one instance.
    uint64_t size = 0;
  };

  // -- implementation ---------------------------------------------------------

  /// The nodes of the instance of `level` at `prefix`, which sits at
  /// `place` (the numbers of the levels above it).
  void emit(std::size_t level, const std::string& prefix, const node_place& place,
            std::vector<node_spec>& out) const;

  /// Where each instance of `level` starts, over the whole machine.
  std::vector<uint64_t> instance_bases(std::size_t level) const;

  std::vector<level_tmpl> levels_;
  std::vector<level_order> order_;
};

} // namespace kb::detail

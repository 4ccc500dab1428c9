// The registry picks a node's class by its impl: two impls of one kind are
// different classes and coexist in one machine (seed ADR-0021 D8).

#include "runtime/config/config_error.hpp"
#include "runtime/machine/kind_registry.hpp"
#include "runtime/machine/machine.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace kb {
namespace {

struct probe_config {
  uint64_t level = 0;
};

// Reports "<which>.level" when the run ends.
template <char Which>
class probe : public node {
public:
  using config = probe_config;
  static const impl_decl<config>& decl() {
    static const impl_decl<config> d{
      "probe",
      std::string("a node that reports which class built it: ") + Which,
      {param(&config::level, "level", "reported").init(uint64_t{1})}};
    return d;
  }
  static config read_config(const param_reader& p, const machine_context&) {
    return decl().read(p);
  }
  probe(caf::actor_config& cfg, node_init init, config c) : node(cfg, std::move(init)), c_(c) {}

protected:
  void on_message(sim_event&) override {}
  static constexpr stat_decl level = declare_stat("probe", "{}.level", stat_unit::count, "");
  void on_finish() override { add_figure(level, std::string(1, Which), c_.level); }

private:
  config c_;
};

node_spec spec(const std::string& id, const std::string& impl, const std::string& yaml) {
  node_spec s;
  s.id = id;
  s.kind = "probe";
  s.impl = impl;
  s.params = param_reader::root(YAML::Load(yaml), "machine.yaml");
  return s;
}

TEST(KindRegistry, TwoImplsOfOneKindBuildTheirOwnClasses) {
  kind_registry reg;
  reg.add<probe<'a'>>("probe_a");
  reg.add<probe<'b'>>("probe_b");
  ASSERT_TRUE(reg.catalog().has_kind("probe"));
  ASSERT_NE(reg.catalog().find("probe_b"), nullptr);
  EXPECT_EQ(reg.catalog().find("probe_b")->description,
            "a node that reports which class built it: b");
  machine_context ctx;
  simulation sim;
  sim.add_node("n1", reg.make(spec("n1", "probe_a", "{level: 3}"), ctx));
  sim.add_node("n2", reg.make(spec("n2", "probe_b", "{level: 5}"), ctx));
  const run_result r = sim.run({});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(figure_of(r, "n1", "a.level"), 3u);
  EXPECT_EQ(figure_of(r, "n2", "b.level"), 5u);
  EXPECT_THROW(figure_of(r, "n1", "b.level"), std::runtime_error);
}

TEST(KindRegistry, AnImplWithoutAClassNamesTheNodeAndTheBuiltImpls) {
  kind_registry reg;
  reg.add<probe<'a'>>("probe_a");
  reg.add<probe<'b'>>("probe_b");
  try {
    (void)reg.make(spec("n3", "probe_c", "{}"), machine_context{});
    FAIL() << "expected a config_error";
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                "n3: impl 'probe_c' of kind 'probe' has no implementation in this build "
                "(built: probe_a, probe_b)"),
              std::string::npos)
      << e.what();
  }
}

// A kind that declares a port: it sends to the component "listener" of its
// own scope.
class talker : public probe<'t'> {
public:
  static const impl_decl<config>& decl() {
    static const impl_decl<config> d{"talker", "a node with a declared port"};
    return d;
  }
  static config read_config(const param_reader&, const machine_context&) { return {}; }
  static std::span<const port_doc> ports() {
    static constexpr port_doc p[] = {{"out", "listener"}};
    return p;
  }
  using probe<'t'>::probe;

protected:
  void on_finish() override {
    // Resolved at build: the name (not a node of the machine) goes unused.
    static constexpr stat_decl out_link =
      declare_stat("talker", "out_link", stat_unit::number, "");
    static constexpr stat_decl cube = declare_stat("talker", "cube", stat_unit::number, "");
    add_figure(out_link, port_link(0, "nowhere"));
    add_figure(cube, place().cube.value_or(99));
  }
};

// sip0.cube0.talker and sip0.cube0.listener, with or without the link.
topology_spec talker_machine(bool linked) {
  topology_spec t;
  t.file = "machine.yaml";
  node_spec talk = spec("sip0.cube0.talker", "talker_v1", "{}");
  talk.kind = "talker";
  talk.place = {0, 0, {}};
  t.nodes = {spec("sip0.cube0.listener", "probe_a", "{level: 1}"), talk};
  if (linked) {
    link_spec l;
    l.src = "sip0.cube0.talker";
    l.dst = "sip0.cube0.listener";
    l.latency = ns(1);
    t.links.push_back(l);
  }
  return t;
}

TEST(KindRegistry, ADeclaredPortWithoutALinkFailsTheBuildNamingNodeAndPort) {
  kind_registry reg;
  reg.add<probe<'a'>>("probe_a");
  reg.add<talker>("talker_v1");
  ASSERT_EQ(reg.ports_of("talker_v1").size(), 1u);
  EXPECT_EQ(reg.catalog().find("talker_v1")->ports.at(0).to, "listener");
  {
    simulation sim;
    try {
      build_machine(talker_machine(false), reg, machine_context{}, sim);
      FAIL() << "expected the build to fail";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), "machine.yaml: sip0.cube0.talker: port 'out' has no link "
                                       "(to sip0.cube0.listener)");
    }
  }
  simulation sim; // with the link, it builds and runs
  build_machine(talker_machine(true), reg, machine_context{}, sim);
  const run_result r = sim.run({});
  ASSERT_EQ(r.error, "");
  // Its port is its only out link; its place is the one its spec gave.
  EXPECT_EQ(figure_of(r, "sip0.cube0.talker", "out_link"), 0u);
  EXPECT_EQ(figure_of(r, "sip0.cube0.talker", "cube"), 0u);
}

TEST(KindRegistry, AnImplRegisteredTwiceIsRejected) {
  kind_registry reg;
  reg.add<probe<'a'>>("probe_a");
  EXPECT_THROW(reg.add<probe<'b'>>("probe_a"), std::invalid_argument);
}

} // namespace
} // namespace kb

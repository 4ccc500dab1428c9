#include "tests/kernel/kernel_support.hpp"
#include "tests/command_figure.hpp"

#include "runtime/data/executor.hpp"
#include "runtime/data/oplog_stream.hpp"
#include "runtime/kernel/op_log.hpp"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

namespace kb::test {

std::string config_file(const std::string& name) {
  const char* env = std::getenv("KB_SOURCE_DIR");
  return std::string(env && *env ? env : KB_TEST_SOURCE_DIR) + "/config/" + name;
}

kernel_outcome run_kernels(const std::map<std::string, test_kernel>& kernels,
                           std::shared_ptr<const memory_image> deploy, const std::string& name,
                           size_t threads) {
  static std::atomic<int> n{0};
  const std::string path = (std::filesystem::path(::testing::TempDir()) /
                            ("kb_kernel_run_" + std::to_string(::getpid()) + "_" +
                             std::to_string(n++) + ".oplog"))
                             .string();
  std::map<std::string, std::shared_ptr<const pe_program>> programs;
  for (const auto& [pe, body] : kernels) {
    auto p = std::make_shared<pe_program>();
    p->kernel = name;
    p->fn = body;
    programs[pe] = std::move(p);
  }
  auto log = std::make_shared<op_log>(path);
  machine_options o;
  o.threads = threads;
  o.deploy = deploy;
  o.ops = log;
  kernel_outcome out;
  out.run = run_machine(config_file("topology.yaml"), programs, o);
  if (!out.run.error.empty())
    return out;
  log->finish();
  out.ops = read_oplog(path);
  out.final_image = deploy ? *deploy : memory_image();
  replay_options ro;
  ro.workers = 1;
  replay(out.ops, out.final_image, ro);
  out.replayed = true;
  std::filesystem::remove(path);
  return out;
}

kernel_outcome run_kernel_on_pe0(test_kernel body, std::shared_ptr<const memory_image> deploy,
                                 const std::string& name) {
  return run_kernels({{"sip0.cube0.pe0", std::move(body)}}, std::move(deploy), name);
}

uint64_t figure(const machine_run& r, const std::string& node, const std::string& name) {
  return figure_or_command(r.result, node, name);
}

} // namespace kb::test

// ABI stability: the current host loads and runs a plugin built against the frozen 1.0 header,
// and a host claiming an older minor refuses a plugin built against the current header.
#include <schedhost/plugin.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/evaluate/evaluate.h"
#include "host/plugin/loader.h"
#include "host/plugin/registry.h"

namespace {

// Two nodes, one labelled for the 1.0 plugin's Filter to reject, and a pod to place.
constexpr const char* kScenario = R"({
  "name": "abi-1-0",
  "nodes": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "rejected", "labels": {"abi-1-0/reject": "true"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "accepted", "labels": {"abi-1-0/reject": "false"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
  ],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "default", "uid": "p"},
          "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
  "plugins": [{"name": "Abi10Filter"}]
})";

TEST(AbiStabilityTest, APluginBuiltForAbi10RunsOnTheCurrentHost) {
  sh::plugin::PluginRegistry registry;
  auto plugin = registry.add(SCHEDHOST_ABI10_PLUGIN);
  EXPECT_EQ(plugin->name, "Abi10Filter");
  EXPECT_EQ(plugin->abiMajor, 1);
  EXPECT_EQ(plugin->abiMinor, 0);  // what the frozen header says
  EXPECT_EQ(plugin->points, SH_POINT_FILTER);
  EXPECT_TRUE(plugin->warnings.empty());

  std::string error;
  auto scenario = sh::evaluate::parseScenario(boost::json::parse(kScenario), error);
  ASSERT_TRUE(scenario.has_value()) << error;
  sh::evaluate::Options options;
  options.registry = &registry;
  sh::evaluate::Result result = sh::evaluate::run(*scenario, options);

  ASSERT_TRUE(result.selected.has_value()) << result.message;
  EXPECT_EQ(*result.selected, "accepted");
  const sh::evaluate::PluginStatus& status = result.nodes.at("rejected").filter.at("Abi10Filter");
  EXPECT_EQ(status.code, "Unschedulable");
  EXPECT_EQ(status.reasons, std::vector<std::string>{"node(s) were rejected by a 1.0 plugin"});
  EXPECT_FALSE(result.nodes.at("rejected").feasible);
  EXPECT_TRUE(result.nodes.at("accepted").feasible);
}

TEST(AbiStabilityTest, AnOlderHostRefusesAPluginBuiltForTheCurrentMinor) {
  static_assert(SH_ABI_MINOR >= 1, "an older minor needs a current minor above 0");
  const std::string path = std::filesystem::canonical(SCHEDHOST_CURRENT_PLUGIN).string();
  sh::plugin::LoadOptions olderHost;
  olderHost.hostAbiMinor = SH_ABI_MINOR - 1;
  try {
    sh::plugin::loadPlugin(path, olderHost);
    ADD_FAILURE() << "a host claiming ABI 1." << olderHost.hostAbiMinor << " loaded " << path;
  } catch (const sh::plugin::LoadError& e) {
    // With the ABI at 1.1: "plugin [<path>]: built for ABI 1.1; host supports up to 1.0".
    EXPECT_EQ(std::string(e.what()), "plugin [" + path + "]: built for ABI 1." +
                                         std::to_string(SH_ABI_MINOR) + "; host supports up to 1." +
                                         std::to_string(SH_ABI_MINOR - 1));
  }
  // The same host claiming the current minor loads it: the production default.
  EXPECT_EQ(sh::plugin::LoadOptions().hostAbiMinor, unsigned{SH_ABI_MINOR});
  EXPECT_EQ(sh::plugin::loadPlugin(path)->abiMinor, SH_ABI_MINOR);
}

}  // namespace

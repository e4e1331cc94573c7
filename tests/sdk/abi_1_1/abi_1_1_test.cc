// ABI stability: the current host loads and runs a plugin built against the frozen 1.1 header.
// Its descriptor ends before 1.2's kinds, so it declares none; its PreFilter finds the 1.1 slot
// cycle_activate_pod in the (larger) 1.2 host table and calls it.
#include <schedhost/plugin.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/evaluate/evaluate.h"
#include "host/plugin/registry.h"

namespace {

// Two nodes, one labelled for the 1.1 plugin's Filter to reject, and a pod to place.
constexpr const char* kScenario = R"({
  "name": "abi-1-1",
  "nodes": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "rejected", "labels": {"abi-1-1/reject": "true"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "accepted", "labels": {"abi-1-1/reject": "false"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
  ],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "default", "uid": "p"},
          "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
  "plugins": [{"name": "Abi11Filter"}]
})";

TEST(Abi11StabilityTest, APluginBuiltForAbi11LoadsWithoutKinds) {
  static_assert(SH_ABI_MINOR >= 2, "the 1.1 plugin is older than the current header");
  sh::plugin::PluginRegistry registry;
  auto plugin = registry.add(SCHEDHOST_ABI11_PLUGIN);
  EXPECT_EQ(plugin->name, "Abi11Filter");
  EXPECT_EQ(plugin->abiMajor, 1);
  EXPECT_EQ(plugin->abiMinor, 1);  // what the frozen header says
  EXPECT_EQ(plugin->points, SH_POINT_PRE_FILTER | SH_POINT_FILTER);
  EXPECT_TRUE(plugin->warnings.empty());
  // The 1.1 descriptor is 64 bytes: the kinds 1.2 appended are not read, and there are none.
  EXPECT_EQ(plugin->descriptor->struct_size, offsetof(sh_plugin_descriptor, kinds));
  EXPECT_TRUE(plugin->kinds.empty());
}

TEST(Abi11StabilityTest, APluginBuiltForAbi11RunsOnTheCurrentHost) {
  sh::plugin::PluginRegistry registry;
  registry.add(SCHEDHOST_ABI11_PLUGIN);
  std::string error;
  auto scenario = sh::evaluate::parseScenario(boost::json::parse(kScenario), error);
  ASSERT_TRUE(scenario.has_value()) << error;
  sh::evaluate::Options options;
  options.registry = &registry;
  sh::evaluate::Result result = sh::evaluate::run(*scenario, options);

  // PreFilter found cycle_activate_pod (it answers Error when the slot is missing).
  ASSERT_EQ(result.preFilter.count("Abi11Filter"), 1u);
  EXPECT_EQ(result.preFilter.at("Abi11Filter").code, "Success");
  ASSERT_TRUE(result.selected.has_value()) << result.message;
  EXPECT_EQ(*result.selected, "accepted");
  const sh::evaluate::PluginStatus& status = result.nodes.at("rejected").filter.at("Abi11Filter");
  EXPECT_EQ(status.code, "Unschedulable");
  EXPECT_EQ(status.reasons, std::vector<std::string>{"node(s) were rejected by a 1.1 plugin"});
  EXPECT_FALSE(result.nodes.at("rejected").feasible);
  EXPECT_TRUE(result.nodes.at("accepted").feasible);
}

}  // namespace

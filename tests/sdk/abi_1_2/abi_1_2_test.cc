// ABI stability: the current host loads and runs a plugin built against the frozen 1.2 header.
// Its descriptor declares a kind, which the host registers and fills from the scenario's
// objects; its PreFilter reads one through the 1.2 object and JSON services of the (larger) 1.3
// host table, and its PreFilter and Filter get the (larger) 1.3 pod and node views, of which
// they read only the 1.2 prefix.
#include <schedhost/plugin.h>

#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/evaluate/evaluate.h"
#include "host/plugin/registry.h"

namespace {

// Two nodes, one labelled for the 1.2 plugin's Filter to reject, a pod to place in namespace
// "ns", and the Widget ns/gate the plugin's PreFilter reads (open unless `closed`).
std::string scenario(bool closed) {
  return std::string(R"({
  "name": "abi-1-2",
  "nodes": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "rejected", "labels": {"abi-1-2/reject": "true"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "accepted", "labels": {"abi-1-2/reject": "false"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
  ],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "ns", "uid": "p"},
          "spec": {"containers": [{"name": "c", "image": "busybox"}],
                   "volumes": [{"name": "scratch", "emptyDir": {}}]}},
  "objects": [
    {"apiVersion": "example.com/v1", "kind": "Widget",
     "metadata": {"name": "gate", "namespace": "ns"}, "spec": {"open": )") +
         (closed ? "false" : "true") + R"(}}
  ],
  "plugins": [{"name": "Abi12Gate"}]
})";
}

sh::evaluate::Result evaluate(bool closed) {
  sh::plugin::PluginRegistry registry;
  registry.add(SCHEDHOST_ABI12_PLUGIN);
  std::string error;
  auto s = sh::evaluate::parseScenario(boost::json::parse(scenario(closed)), error);
  EXPECT_TRUE(s.has_value()) << error;
  sh::evaluate::Options options;
  options.registry = &registry;
  return sh::evaluate::run(*s, options);
}

TEST(Abi12StabilityTest, APluginBuiltForAbi12LoadsWithItsKinds) {
  static_assert(SH_ABI_MINOR >= 3, "the 1.2 plugin is older than the current header");
  sh::plugin::PluginRegistry registry;
  auto plugin = registry.add(SCHEDHOST_ABI12_PLUGIN);
  EXPECT_EQ(plugin->name, "Abi12Gate");
  EXPECT_EQ(plugin->abiMajor, 1);
  EXPECT_EQ(plugin->abiMinor, 2);  // what the frozen header says
  EXPECT_EQ(plugin->points, SH_POINT_PRE_FILTER | SH_POINT_FILTER);
  EXPECT_TRUE(plugin->warnings.empty());
  // 1.3 appended nothing to the descriptor: the 1.2 one is the current size, kinds included.
  EXPECT_EQ(plugin->descriptor->struct_size, sizeof(sh_plugin_descriptor));
  ASSERT_EQ(plugin->kinds.size(), 1u);
  EXPECT_EQ(plugin->kinds[0].group, "example.com");
  EXPECT_EQ(plugin->kinds[0].resource, "widgets");
  EXPECT_TRUE(plugin->kinds[0].namespaced);
}

TEST(Abi12StabilityTest, APluginBuiltForAbi12RunsOnTheCurrentHost) {
  sh::evaluate::Result result = evaluate(/*closed=*/false);
  // PreFilter found the 1.2 slots, a pod view at least as large as its own, and the Widget
  // open (it answers Error without the slots or with a smaller view).
  ASSERT_EQ(result.preFilter.count("Abi12Gate"), 1u);
  EXPECT_EQ(result.preFilter.at("Abi12Gate").code, "Success");
  EXPECT_TRUE(result.preFilter.at("Abi12Gate").reasons.empty());
  ASSERT_TRUE(result.selected.has_value()) << result.message;
  EXPECT_EQ(*result.selected, "accepted");
  const sh::evaluate::PluginStatus& status = result.nodes.at("rejected").filter.at("Abi12Gate");
  EXPECT_EQ(status.code, "Unschedulable");
  EXPECT_EQ(status.reasons, std::vector<std::string>{"node(s) were rejected by a 1.2 plugin"});
  EXPECT_FALSE(result.nodes.at("rejected").feasible);
  EXPECT_TRUE(result.nodes.at("accepted").feasible);
}

TEST(Abi12StabilityTest, APluginBuiltForAbi12ReadsItsObjectsOnTheCurrentHost) {
  sh::evaluate::Result result = evaluate(/*closed=*/true);
  EXPECT_FALSE(result.selected.has_value());
  ASSERT_EQ(result.preFilter.count("Abi12Gate"), 1u);
  EXPECT_EQ(result.preFilter.at("Abi12Gate").code, "Unschedulable");
  EXPECT_EQ(result.preFilter.at("Abi12Gate").reasons,
            std::vector<std::string>{"widget ns/gate is closed"});
}

}  // namespace

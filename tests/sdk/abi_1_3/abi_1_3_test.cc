// ABI stability: the current host loads and runs a plugin built against the frozen 1.3 header.
// Its PreFilter and Filter call the 1.3 manifest and JSON services through the (larger) 1.4
// host table, of which they read only the 1.3 prefix.
#include <schedhost/plugin.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/evaluate/evaluate.h"
#include "host/plugin/registry.h"

namespace {

// Two nodes, one cordoned (spec.unschedulable, which the 1.3 plugin reads from the manifest),
// and a pod whose annotation the plugin's PreFilter reads (allowed unless `denied`).
std::string scenario(bool denied) {
  return std::string(R"({
  "name": "abi-1-3",
  "nodes": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "cordoned"}, "spec": {"unschedulable": true},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "open"},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
  ],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "ns", "uid": "p",
                       "annotations": {"abi-1-3/allowed": ")") +
         (denied ? "no" : "yes") + R"("}},
          "spec": {"containers": [{"name": "c", "image": "busybox"}]}},
  "plugins": [{"name": "Abi13Gate"}]
})";
}

sh::evaluate::Result evaluate(bool denied) {
  sh::plugin::PluginRegistry registry;
  registry.add(SCHEDHOST_ABI13_PLUGIN);
  std::string error;
  auto s = sh::evaluate::parseScenario(boost::json::parse(scenario(denied)), error);
  EXPECT_TRUE(s.has_value()) << error;
  sh::evaluate::Options options;
  options.registry = &registry;
  return sh::evaluate::run(*s, options);
}

TEST(Abi13StabilityTest, APluginBuiltForAbi13Loads) {
  static_assert(SH_ABI_MINOR >= 4, "the 1.3 plugin is older than the current header");
  sh::plugin::PluginRegistry registry;
  auto plugin = registry.add(SCHEDHOST_ABI13_PLUGIN);
  EXPECT_EQ(plugin->name, "Abi13Gate");
  EXPECT_EQ(plugin->abiMajor, 1);
  EXPECT_EQ(plugin->abiMinor, 3);  // what the frozen header says
  EXPECT_EQ(plugin->points, SH_POINT_PRE_FILTER | SH_POINT_FILTER);
  EXPECT_TRUE(plugin->warnings.empty());
  // 1.4 appended nothing to the descriptor.
  EXPECT_EQ(plugin->descriptor->struct_size, sizeof(sh_plugin_descriptor));
}

TEST(Abi13StabilityTest, APluginBuiltForAbi13ReadsManifestsOnTheCurrentHost) {
  sh::evaluate::Result result = evaluate(/*denied=*/false);
  // PreFilter found the 1.3 slots (Error otherwise) and the pod's annotation.
  ASSERT_EQ(result.preFilter.count("Abi13Gate"), 1u);
  EXPECT_EQ(result.preFilter.at("Abi13Gate").code, "Success");
  ASSERT_TRUE(result.selected.has_value()) << result.message;
  EXPECT_EQ(*result.selected, "open");
  const sh::evaluate::PluginStatus& status = result.nodes.at("cordoned").filter.at("Abi13Gate");
  EXPECT_EQ(status.code, "Unschedulable");
  EXPECT_EQ(status.reasons, std::vector<std::string>{"node(s) were rejected by a 1.3 plugin"});
}

TEST(Abi13StabilityTest, APluginBuiltForAbi13RejectsByItsManifestReadOnTheCurrentHost) {
  sh::evaluate::Result result = evaluate(/*denied=*/true);
  EXPECT_FALSE(result.selected.has_value());
  ASSERT_EQ(result.preFilter.count("Abi13Gate"), 1u);
  EXPECT_EQ(result.preFilter.at("Abi13Gate").code, "Unschedulable");
  EXPECT_EQ(result.preFilter.at("Abi13Gate").reasons,
            std::vector<std::string>{"pod is not allowed by a 1.3 plugin"});
}

}  // namespace

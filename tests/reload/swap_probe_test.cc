// SwapProbe's two builds: the same plugin name at two paths, told apart by version and hash,
// and both resident at once (as they are while a scheduler switches from one to the other);
// each created by the host with its args and scoring by its own offset.
#include <schedhost/plugin.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "host/common/status.h"
#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/framework/host_services.h"
#include "host/framework/plugin_instance.h"
#include "host/plugin/loader.h"

namespace {

const std::string kV1 = std::string(SCHEDHOST_SWAP_PROBE_V1_DIR) + "/libswap_probe.so";
const std::string kV2 = std::string(SCHEDHOST_SWAP_PROBE_V2_DIR) + "/libswap_probe.so";

TEST(SwapProbe, TwoBuildsLoadSideBySide) {
  std::shared_ptr<const sh::plugin::LoadedPlugin> v1 = sh::plugin::loadPlugin(kV1);
  std::shared_ptr<const sh::plugin::LoadedPlugin> v2 = sh::plugin::loadPlugin(kV2);
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2, nullptr);

  EXPECT_EQ(v1->name, "SwapProbe");
  EXPECT_EQ(v2->name, "SwapProbe");
  EXPECT_EQ(v1->version, "1.0.0");
  EXPECT_EQ(v2->version, "2.0.0");
  EXPECT_NE(v1->path, v2->path);
  EXPECT_EQ(v1->sha256.size(), 64u);
  EXPECT_NE(v1->sha256, v2->sha256);
  EXPECT_EQ(v1->points, v2->points);
  EXPECT_TRUE(v1->warnings.empty());
  EXPECT_TRUE(v2->warnings.empty());

  // Both resident: two libraries, two descriptors, each still reporting its own version.
  EXPECT_NE(v1->library.get(), v2->library.get());
  EXPECT_NE(v1->descriptor, v2->descriptor);
  EXPECT_NE(v1->vtable, v2->vtable);
  EXPECT_STREQ(v1->descriptor->version, "1.0.0");
  EXPECT_STREQ(v2->descriptor->version, "2.0.0");
  EXPECT_STREQ(v1->descriptor->name, "SwapProbe");
  EXPECT_STREQ(v2->descriptor->name, "SwapProbe");

  // Loading a build again reuses its resident library.
  std::shared_ptr<const sh::plugin::LoadedPlugin> again = sh::plugin::loadPlugin(kV1);
  EXPECT_EQ(again->sha256, v1->sha256);
  EXPECT_EQ(again->descriptor, v1->descriptor);
}

// Creates the plugin in `library` with `argsJson` merged over its defaults; on failure returns
// nullptr and the diagnostics in `errors`.
std::shared_ptr<sh::PluginInstance> create(
    const std::shared_ptr<const sh::plugin::LoadedPlugin>& library, const std::string& argsJson,
    std::string& errors) {
  static sh::NullHostServices services;
  std::optional<sh::config::ArgNode> defaults =
      sh::config::ArgNode::fromJsonText(library->descriptor->default_args_json, "args");
  std::optional<sh::config::ArgNode> user = sh::config::ArgNode::fromJsonText(argsJson, "args");
  EXPECT_TRUE(defaults.has_value());
  EXPECT_TRUE(user.has_value());
  sh::config::ArgNode args = sh::config::mergeDefaults(*defaults, *user);
  sh::config::Diagnostics diags;
  std::shared_ptr<sh::PluginInstance> instance =
      sh::PluginInstance::create(library, args, &services, diags);
  errors = diags.str();
  return instance;
}

// The instance's Score for a node named `nodeName`.
int64_t scoreFor(const sh::PluginInstance& instance, const std::string& nodeName) {
  sh_node node{};
  node.struct_size = sizeof(sh_node);
  node.name = sh_str{nodeName.data(), nodeName.size()};
  sh_node_info info{};
  info.struct_size = sizeof(sh_node_info);
  info.node = &node;
  sh_pod pod{};
  pod.struct_size = sizeof(sh_pod);
  sh_status status;
  int64_t score = -1;
  sh_code code = instance.vtable().score(instance.self(), nullptr, &pod, &info, &score, &status);
  EXPECT_EQ(code, SH_SUCCESS) << status.status.message();
  return score;
}

TEST(SwapProbe, EachBuildScoresItsOwnNode) {
  std::shared_ptr<const sh::plugin::LoadedPlugin> v1 = sh::plugin::loadPlugin(kV1);
  std::shared_ptr<const sh::plugin::LoadedPlugin> v2 = sh::plugin::loadPlugin(kV2);
  std::string errors;
  std::shared_ptr<sh::PluginInstance> v1Default = create(v1, "{}", errors);
  ASSERT_NE(v1Default, nullptr) << errors;
  std::shared_ptr<sh::PluginInstance> v2Default = create(v2, "{}", errors);
  ASSERT_NE(v2Default, nullptr) << errors;
  std::shared_ptr<sh::PluginInstance> v1Node3 = create(v1, R"({"node": 3})", errors);
  ASSERT_NE(v1Node3, nullptr) << errors;
  std::shared_ptr<sh::PluginInstance> v2Node3 = create(v2, R"({"node": 3})", errors);
  ASSERT_NE(v2Node3, nullptr) << errors;

  EXPECT_EQ(scoreFor(*v1Default, "big-0"), 100);
  EXPECT_EQ(scoreFor(*v1Default, "big-1"), 0);
  EXPECT_EQ(scoreFor(*v2Default, "big-0"), 0);
  EXPECT_EQ(scoreFor(*v2Default, "big-1"), 100);
  EXPECT_EQ(scoreFor(*v1Node3, "big-3"), 100);
  EXPECT_EQ(scoreFor(*v1Node3, "big-4"), 0);
  EXPECT_EQ(scoreFor(*v2Node3, "big-3"), 0);
  EXPECT_EQ(scoreFor(*v2Node3, "big-4"), 100);
  EXPECT_EQ(scoreFor(*v2Node3, "big-40"), 0);
  EXPECT_EQ(scoreFor(*v2Node3, "small-4"), 0);
  EXPECT_FALSE(v1Default->events().empty());
}

TEST(SwapProbe, RejectsANodeArgThatIsNotANonNegativeInteger) {
  std::shared_ptr<const sh::plugin::LoadedPlugin> v1 = sh::plugin::loadPlugin(kV1);
  for (const char* args : {R"({"node": -1})", R"({"node": 1.5})", R"({"node": "big-1"})"}) {
    std::string errors;
    EXPECT_EQ(create(v1, args, errors), nullptr) << args;
    EXPECT_NE(errors.find("must be a non-negative integer"), std::string::npos)
        << args << ": " << errors;
    EXPECT_NE(errors.find("node"), std::string::npos) << errors;
  }
}

}  // namespace

// The plain-C plugin (c_compile/plugin.c) loads into the real host and runs: its Filter
// rejects nodes labelled c-plugin/reject=true, its Score prefers c-plugin/preferred=true, and
// its args are read and checked from C.
#include <schedhost/plugin.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "host/cache/snapshot.h"
#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/framework/cycle_state.h"
#include "host/framework/host_services.h"
#include "host/framework/plugin_instance.h"
#include "host/model/testing/wrappers.h"
#include "host/plugin/registry.h"

#ifndef SCHEDHOST_TEST_PLUGINS_DIR
#error "SCHEDHOST_TEST_PLUGINS_DIR must name the directory of the test plugins"
#endif

namespace {

using sh::model::testing::makeNode;
using sh::model::testing::makePod;

std::shared_ptr<const sh::plugin::LoadedPlugin> cPlugin() {
  static sh::plugin::PluginRegistry registry;
  return registry.add(SCHEDHOST_TEST_PLUGINS_DIR "/libcplugin.so");
}

// The plugin created with `argsJson`, or nullptr with the diagnostics in `errors`.
std::shared_ptr<sh::PluginInstance> create(const std::string& argsJson, std::string& errors) {
  static sh::NullHostServices services;
  auto args = sh::config::ArgNode::fromJsonText(argsJson, "args");
  sh::config::Diagnostics diags;
  auto instance = sh::PluginInstance::create(cPlugin(), *args, &services, diags);
  errors = diags.str();
  return instance;
}

TEST(CPluginTest, Loads) {
  auto lib = cPlugin();
  EXPECT_EQ(lib->name, "CPlugin");
  EXPECT_EQ(lib->version, "1.0.0");
  EXPECT_EQ(lib->points, SH_POINT_FILTER | SH_POINT_SCORE);
}

TEST(CPluginTest, FilterAndScore) {
  std::string errors;
  auto plugin = create("{}", errors);
  ASSERT_NE(plugin, nullptr) << errors;
  auto snapshot = sh::cache::buildSnapshot(
      {makeNode().name("rejected").label("c-plugin/reject", "true").obj(),
       makeNode().name("preferred").label("c-plugin/preferred", "true").obj(),
       makeNode().name("plain").label("c-plugin/reject", "false").obj()},
      {});
  auto pod = makePod().name("p").uid("p").obj();
  sh::CycleState cycle;
  cycle.snapshot = snapshot.get();
  const sh_plugin_vtable& vt = plugin->vtable();
  for (const sh_node_info* ni : snapshot->views) {
    std::string name(ni->node->name.ptr, ni->node->name.len);
    SCOPED_TRACE(name);
    sh_status status{};
    sh_code code = vt.filter(plugin->self(), &cycle, &pod->view(), ni, &status);
    int64_t score = -1;
    sh_status scoreStatus{};
    EXPECT_EQ(vt.score(plugin->self(), &cycle, &pod->view(), ni, &score, &scoreStatus), SH_SUCCESS);
    if (name == "rejected") {
      EXPECT_EQ(code, SH_UNSCHEDULABLE);
      EXPECT_EQ(status.status.reasons(),
                std::vector<std::string>{"node(s) were rejected by the C plugin"});
    } else {
      EXPECT_EQ(code, SH_SUCCESS);
    }
    EXPECT_EQ(score, name == "preferred" ? 100 : 0);
  }
}

TEST(CPluginTest, Args) {
  std::string errors;
  auto plugin = create(R"({"rejectValue": "false"})", errors);
  ASSERT_NE(plugin, nullptr) << errors;
  auto snapshot = sh::cache::buildSnapshot(
      {makeNode().name("plain").label("c-plugin/reject", "false").obj()}, {});
  auto pod = makePod().name("p").uid("p").obj();
  sh::CycleState cycle;
  sh_status status{};
  EXPECT_EQ(
      plugin->vtable().filter(plugin->self(), &cycle, &pod->view(), snapshot->views[0], &status),
      SH_UNSCHEDULABLE);

  EXPECT_EQ(create(R"({"rejectValue": 5})", errors), nullptr);
  EXPECT_NE(errors.find("args.rejectValue: Invalid value: expected a string"), std::string::npos)
      << errors;
}

}  // namespace

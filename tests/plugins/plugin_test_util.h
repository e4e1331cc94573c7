// Shared fixtures for the plugin tests: run plugins through the real host.
//
//   Evaluate(...)        one scheduling decision through sh::evaluate::run (PreFilter, Filter,
//                        PreScore, Score, NormalizeScore), with the plugins built into
//                        SCHEDHOST_TEST_PLUGIN_DIR.
//   LoadedPlugin         one plugin instance created by the host, for the points evaluate
//                        does not exercise: PreEnqueue, QueueSort, Bind, queueing hints.
#ifndef SCHEDHOST_TESTS_PLUGINS_PLUGIN_TEST_UTIL_H
#define SCHEDHOST_TESTS_PLUGINS_PLUGIN_TEST_UTIL_H

#include <schedhost/plugin.h>

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/evaluate/evaluate.h"
#include "host/framework/framework.h"
#include "host/framework/host_services.h"
#include "host/framework/plugin_instance.h"
#include "host/model/testing/wrappers.h"
#include "host/plugin/registry.h"

#ifndef SCHEDHOST_TEST_PLUGIN_DIR
#error "SCHEDHOST_TEST_PLUGIN_DIR must name the directory the default plugins are built into"
#endif

namespace schedhost::testing {

using sh::model::testing::makeNode;
using sh::model::testing::makePod;
using NodePtr = std::shared_ptr<const sh::model::Node>;
using PodPtr = std::shared_ptr<const sh::model::Pod>;

// The plugin registry of the test process: the default plugins, loaded once.
inline sh::plugin::PluginRegistry& testRegistry() {
  static sh::plugin::PluginRegistry* registry = [] {
    auto* r = new sh::plugin::PluginRegistry();
    std::vector<sh::plugin::ScanError> errors;
    r->scanDirs({SCHEDHOST_TEST_PLUGIN_DIR}, errors);
    return r;
  }();
  return *registry;
}

inline sh::evaluate::Options testOptions() {
  sh::evaluate::Options options;
  options.pluginDirs = {SCHEDHOST_TEST_PLUGIN_DIR};
  options.registry = &testRegistry();
  return options;
}

// Runs `plugins` (name, args JSON or "" for the defaults) for `pod` over `nodes`, with
// `placed` already running on them.
inline sh::evaluate::Result evaluate(std::vector<sh::evaluate::PluginSpec> plugins,
                                     std::vector<NodePtr> nodes, std::vector<PodPtr> placed,
                                     PodPtr pod) {
  sh::evaluate::Scenario scenario;
  scenario.name = "plugin test";
  scenario.nodes = std::move(nodes);
  scenario.pods = std::move(placed);
  scenario.pod = std::move(pod);
  scenario.plugins = std::move(plugins);
  return sh::evaluate::run(scenario, testOptions());
}

// The status a Filter plugin gave a node; "Success" with no reasons when it passed (or did not
// run because its PreFilter returned Skip).
inline sh::evaluate::PluginStatus filterStatus(const sh::evaluate::Result& result,
                                               const std::string& node, const std::string& plugin) {
  auto n = result.nodes.find(node);
  if (n != result.nodes.end()) {
    auto p = n->second.filter.find(plugin);
    if (p != n->second.filter.end()) {
      return p->second;
    }
  }
  sh::evaluate::PluginStatus ok;
  ok.code = "Success";
  return ok;
}

// A plugin's score for a node after NormalizeScore, or -1 when it was not scored.
inline int64_t scoreOf(const sh::evaluate::Result& result, const std::string& node,
                       const std::string& plugin) {
  auto n = result.nodes.find(node);
  if (n == result.nodes.end()) {
    return -1;
  }
  auto s = n->second.scores.find(plugin);
  return s == n->second.scores.end() ? -1 : s->second;
}

// The message of the configuration error evaluate reports for `plugin` with `argsJson`, or ""
// when the plugin was created.
inline std::string argsError(const std::string& plugin, const std::string& argsJson) {
  try {
    evaluate({{plugin, argsJson}}, {makeNode().name("n1").obj()}, {},
             makePod().name("p").uid("p").obj());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Whether `text` contains `part`, printing both when it does not.
inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// One plugin created by the host with `argsJson` merged over its defaults, wrapped in a
// framework that enables it at every point it implements.
class LoadedPlugin {
 public:
  explicit LoadedPlugin(const std::string& name, const std::string& argsJson = "",
                        sh::HostServices* services = nullptr) {
    static sh::NullHostServices nullServices;
    auto library = testRegistry().find(name);
    if (library == nullptr) {
      throw std::runtime_error("plugin \"" + name + "\" not found in " SCHEDHOST_TEST_PLUGIN_DIR);
    }
    const char* defaultsText = library->descriptor->default_args_json;
    std::string error;
    auto defaults = sh::config::ArgNode::fromJsonText(defaultsText != nullptr ? defaultsText : "{}",
                                                      "args", {}, &error);
    args_ = std::make_shared<sh::config::ArgNode>(defaults->clone());
    if (!argsJson.empty()) {
      auto user = sh::config::ArgNode::fromJsonText(argsJson, "args", {}, &error);
      args_ = std::make_shared<sh::config::ArgNode>(sh::config::mergeDefaults(*defaults, *user));
    }
    sh::config::Diagnostics diags;
    instance_ = sh::PluginInstance::create(library, *args_,
                                           services != nullptr ? services : &nullServices, diags);
    if (instance_ == nullptr) {
      throw std::runtime_error(diags.str());
    }
    sh::Framework::Config config;
    config.profileName = "test";
    for (std::size_t p = 0; p < sh::kExtensionPointCount; ++p) {
      if ((instance_->points() & sh::pointBit(static_cast<sh::ExtensionPoint>(p))) != 0) {
        config.plugins[p].push_back(instance_);
      }
    }
    config.scoreWeights.assign(
        config.plugins[static_cast<std::size_t>(sh::ExtensionPoint::kScore)].size(), 1);
    framework_ = std::make_unique<sh::Framework>(std::move(config));
  }

  const sh::PluginInstance& instance() const { return *instance_; }
  const sh::Framework& framework() const { return *framework_; }
  const std::vector<sh_event_registration>& events() const { return instance_->events(); }

  // The plugin's QueueingHint for registration `index`.
  sh_queueing_hint hint(std::size_t index, const sh_pod& pod, const sh_event_objects& event) const {
    return instance_->vtable().queueing_hint(instance_->self(), index, &pod, &event);
  }

 private:
  std::shared_ptr<sh::config::ArgNode> args_;
  std::shared_ptr<sh::PluginInstance> instance_;
  std::unique_ptr<sh::Framework> framework_;
};

// An event on pods: `before` NULL for Add, `after` NULL for Delete.
inline sh_event_objects podEvent(uint32_t actions, const PodPtr& before, const PodPtr& after) {
  sh_event_objects e{};
  e.struct_size = sizeof(sh_event_objects);
  e.resource = SH_RESOURCE_POD;
  e.actions = actions;
  e.old_pod = before ? &before->view() : nullptr;
  e.new_pod = after ? &after->view() : nullptr;
  return e;
}

// An event on nodes: `before` NULL for Add, `after` NULL for Delete.
inline sh_event_objects nodeEvent(uint32_t actions, const NodePtr& before, const NodePtr& after) {
  sh_event_objects e{};
  e.struct_size = sizeof(sh_event_objects);
  e.resource = SH_RESOURCE_NODE;
  e.actions = actions;
  e.old_node = before ? &before->view() : nullptr;
  e.new_node = after ? &after->view() : nullptr;
  return e;
}

// The registrations as comparable tuples (resource, actions, has_hint).
inline std::vector<std::tuple<int32_t, uint32_t, int32_t>> registrations(
    const LoadedPlugin& plugin) {
  std::vector<std::tuple<int32_t, uint32_t, int32_t>> out;
  for (const sh_event_registration& r : plugin.events()) {
    out.emplace_back(r.resource, r.actions, r.has_hint);
  }
  return out;
}

}  // namespace schedhost::testing

#endif  // SCHEDHOST_TESTS_PLUGINS_PLUGIN_TEST_UTIL_H

// Fixtures for the queue tests: plugins created by the host from the real build
// (PrioritySort, SchedulingGates) or from queue_plugin.cc (scripted), frameworks assembled by
// hand so a test decides at which points a plugin sits, and pods from the model's wrappers.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/cycle/queue_profiles.h"
#include "host/framework/framework.h"
#include "host/framework/host_services.h"
#include "host/framework/plugin_instance.h"
#include "host/model/testing/wrappers.h"
#include "host/plugin/registry.h"
#include "host/queue/scheduling_queue.h"

namespace sh::queue {
// The extension points, short, in these tests.
using Point = ExtensionPoint;
}  // namespace sh::queue

namespace sh::queue::testing {

using model::testing::makeNode;
using model::testing::makePod;

inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kMillisecond = 1'000'000;
// Tests start on a whole second, far from zero.
inline constexpr int64_t kStart = 1'000 * kSecond;

inline plugin::PluginRegistry& registry() {
  static plugin::PluginRegistry* registry = [] {
    auto* r = new plugin::PluginRegistry();
    std::vector<plugin::ScanError> errors;
    r->scanDirs({SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_QUEUE_PLUGIN_DIR}, errors);
    return r;
  }();
  return *registry;
}

// A plugin instance created by the host with `argsJson` merged over its defaults.
inline PluginPtr createPlugin(const std::string& name, const std::string& argsJson = "") {
  static NullHostServices services;
  auto library = registry().find(name);
  if (library == nullptr) {
    throw std::runtime_error("plugin \"" + name + "\" not found");
  }
  const char* defaults = library->descriptor->default_args_json;
  std::string error;
  auto args = config::ArgNode::fromJsonText(
      argsJson.empty() ? (defaults != nullptr ? defaults : "{}") : argsJson, "args", {}, &error);
  if (!args) {
    throw std::runtime_error("bad args: " + error);
  }
  config::Diagnostics diags;
  auto inst = PluginInstance::create(library, *args, &services, diags);
  if (inst == nullptr) {
    throw std::runtime_error(diags.str());
  }
  return inst;
}

// A framework with PrioritySort as QueueSort (unless `withSort` is false) and each plugin at
// the points given.
inline std::shared_ptr<const Framework> makeFramework(
    const std::string& profile, const std::vector<std::pair<Point, PluginPtr>>& plugins,
    bool withSort = true) {
  Framework::Config config;
  config.profileName = profile;
  if (withSort) {
    config.plugins[static_cast<std::size_t>(Point::kQueueSort)].push_back(
        createPlugin("PrioritySort"));
  }
  for (const auto& [point, plugin] : plugins) {
    config.plugins[static_cast<std::size_t>(point)].push_back(plugin);
  }
  return std::make_shared<Framework>(std::move(config));
}

inline Frameworks oneProfile(const std::vector<std::pair<Point, PluginPtr>>& plugins,
                             const std::string& name = "default-scheduler") {
  Frameworks out;
  out[name] = makeFramework(name, plugins);
  return out;
}

// A pod named `name` in namespace "ns" with uid "uid-<name>".
inline model::testing::PodWrapper testPod(const std::string& name) {
  auto w = makePod();
  w.name(name).inNamespace("ns").uid("uid-" + name);
  return w;
}

inline std::string key(const std::string& name) { return "ns/" + name; }

inline PluginSet plugins(std::initializer_list<const char*> names) {
  PluginSet out;
  for (const char* n : names) {
    out.insert(n);
  }
  return out;
}

// Marks a popped pod as rejected, like the failure handler does from the Diagnosis.
inline QueuedPodInfoPtr rejected(QueuedPodInfoPtr info, PluginSet unschedulable,
                                 PluginSet pending = {}) {
  info->unschedulablePlugins = std::move(unschedulable);
  info->pendingPlugins = std::move(pending);
  return info;
}

inline const char* locationName(PodLocation l) {
  switch (l) {
    case PodLocation::kActive:
      return "active";
    case PodLocation::kBackoff:
      return "backoff";
    case PodLocation::kUnschedulable:
      return "unschedulable";
    case PodLocation::kInFlight:
      return "inflight";
  }
  return "?";
}

// Where the pod "ns/<name>" is: "active", "backoff", "unschedulable", "inflight" or "none".
inline std::string where(const SchedulingQueue& q, const std::string& name) {
  auto found = q.lookupForTest(key(name));
  return found ? locationName(found->where) : "none";
}

// A cluster event on resource `r` with `actions`, no label.
inline ClusterEvent ev(sh_event_resource r, uint32_t actions) {
  return ClusterEvent{r, actions, {}};
}

}  // namespace sh::queue::testing

// What the scheduling queue needs of one profile, as upstream's PriorityQueue takes a LessFunc,
// a PreEnqueue plugin map and a queueing-hint map rather than a framework. The layer that owns
// the frameworks builds these (cycle::queueProfiles).
#pragma once

#include <schedhost/plugin.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "host/common/status.h"

namespace sh::queue {

// QueueSort's less-function over two queued pods.
using LessFunc = std::function<bool(const sh_queued_pod&, const sh_queued_pod&)>;

// One PreEnqueue plugin: its name and a call that runs it on a pod.
struct PreEnqueuePlugin {
  std::string name;
  std::function<Status(const sh_pod&)> run;
};

// One plugin whose rejections may be requeued (a PreEnqueue, PreFilter, Filter, Reserve or
// Permit plugin): the events it registered and its queueing hint.
struct EventPlugin {
  std::string name;
  // False: the plugin has no EnqueueExtensions (every event requeues its pods).
  bool hasEventsToRegister = false;
  std::vector<sh_event_registration> events;
  // The plugin's queueing_hint for registration `index`; empty when it has none.
  std::function<sh_queueing_hint(std::size_t index, const sh_pod&, const sh_event_objects&)> hint;
};

struct QueueProfile {
  LessFunc less;  // empty: the profile has no QueueSort plugin
  // Identifies the QueueSort behind `less` (plugin, build and args): when a new set of profiles
  // brings another key, the queue re-sorts activeQ and backoffQ.
  std::string lessKey;
  std::vector<PreEnqueuePlugin> preEnqueue;
  std::vector<EventPlugin> eventPlugins;  // each plugin once, in extension-point order
  // Every plugin of the profile: a pod turned away by a plugin that one generation lacks (the
  // host refusing a claim for want of VolumeBinding) is retried when the profile changes.
  std::set<std::string, std::less<>> pluginNames;
  std::shared_ptr<const void> owner;  // keeps what the calls above use alive
};

// The queue's profiles by schedulerName.
using QueueProfiles = std::map<std::string, QueueProfile, std::less<>>;

}  // namespace sh::queue

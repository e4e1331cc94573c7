#include "host/cycle/queue_profiles.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "host/cycle/extender.h"
#include "host/framework/plugin_call.h"

namespace sh::cycle {
namespace {

// Only plugins at these points may requeue pods they rejected (upstream: the framework fills
// EnqueueExtensions for PreEnqueue, PreFilter, Filter, Reserve and Permit plugins).
constexpr ExtensionPoint kRejectorPoints[] = {ExtensionPoint::kPreEnqueue,
                                              ExtensionPoint::kPreFilter, ExtensionPoint::kFilter,
                                              ExtensionPoint::kReserve, ExtensionPoint::kPermit};

// Calls fn() holding the plugin's serializer when it asked for one, the thread marked as
// running the plugin at `point` (framework/plugin_call.h).
template <typename Fn>
auto withSerializer(const PluginInstance& p, const char* point, Fn&& fn) {
  if (std::mutex* m = p.serializer()) {
    std::lock_guard<std::mutex> lock(*m);
    PluginCallScope scope(p, p.stableName(), point);
    return fn();
  }
  PluginCallScope scope(p, p.stableName(), point);
  return fn();
}

Status runPreEnqueuePlugin(const PluginInstance& p, const sh_pod& pod) {
  auto fn = p.vtable().pre_enqueue;
  if (fn == nullptr) {
    return Status();
  }
  sh_status raw;
  int code = withSerializer(p, call_point::kPreEnqueue,
                            [&] { return static_cast<int>(fn(p.self(), &pod, &raw)); });
  return checkedStatus(p, code, raw);
}

queue::QueueProfile queueProfile(const std::shared_ptr<const Framework>& fw, bool withExtenders) {
  queue::QueueProfile out;
  out.owner = fw;
  for (const PluginPtr& plugin : fw->allPlugins()) {
    out.pluginNames.insert(plugin->name());
  }
  if (!fw->plugins(ExtensionPoint::kQueueSort).empty()) {
    out.less = [f = fw.get()](const sh_queued_pod& a, const sh_queued_pod& b) {
      return f->queueSortLess(a, b);
    };
    out.lessKey = fw->queueSortKey();
  }
  for (const PluginPtr& plugin : fw->plugins(ExtensionPoint::kPreEnqueue)) {
    out.preEnqueue.push_back(queue::PreEnqueuePlugin{
        plugin->name(),
        [p = plugin.get()](const sh_pod& pod) { return runPreEnqueuePlugin(*p, pod); }});
  }
  std::vector<const PluginInstance*> seen;
  for (ExtensionPoint point : kRejectorPoints) {
    for (const PluginPtr& plugin : fw->plugins(point)) {
      if (std::find(seen.begin(), seen.end(), plugin.get()) != seen.end()) {
        continue;
      }
      seen.push_back(plugin.get());
      queue::EventPlugin entry;
      entry.name = plugin->name();
      entry.hasEventsToRegister = plugin->hasEventsToRegister();
      entry.events = plugin->resolvedEvents();
      if (plugin->vtable().queueing_hint != nullptr) {
        entry.hint = [p = plugin.get()](std::size_t index, const sh_pod& pod,
                                        const sh_event_objects& objects) {
          auto fn = p->vtable().queueing_hint;
          if (objects.old_object == nullptr && objects.new_object == nullptr) {
            return withSerializer(*p, call_point::kQueueingHint,
                                  [&] { return fn(p->self(), index, &pod, &objects); });
          }
          // An object event: the plugin knows the kind by its own index.
          sh_event_objects local = objects;
          const std::vector<std::size_t>& ids = p->kindIds();
          auto it = std::find(ids.begin(), ids.end(), static_cast<std::size_t>(objects.kind));
          local.kind = static_cast<uint32_t>(it - ids.begin());
          return withSerializer(*p, call_point::kQueueingHint,
                                [&] { return fn(p->self(), index, &pod, &local); });
        };
      }
      out.eventPlugins.push_back(std::move(entry));
    }
  }
  if (withExtenders) {
    // Extenders register no events: a pod they turned nodes away for is woken by every event
    // (upstream's defaultEnqueueExtension for framework.ExtenderName).
    queue::EventPlugin entry;
    entry.name = kExtenderPluginName;
    out.eventPlugins.push_back(std::move(entry));
    out.pluginNames.insert(kExtenderPluginName);
  }
  return out;
}

}  // namespace

queue::QueueProfiles queueProfiles(const Frameworks& frameworks, bool withExtenders) {
  queue::QueueProfiles out;
  for (const auto& [name, fw] : frameworks) {
    if (fw != nullptr) {
      out.emplace(name, queueProfile(fw, withExtenders));
    }
  }
  return out;
}

}  // namespace sh::cycle

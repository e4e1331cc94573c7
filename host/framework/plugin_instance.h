// PluginInstance: one plugin created from a loaded library with a profile's args.
// It owns the plugin's `self` and destroys it (through the plugin's own destroy)
// when the last framework using it lets go. The library outlives it.
#pragma once

#include <schedhost/plugin.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/framework/host_services.h"
#include "host/plugin/loader.h"

// The per-instance context handed to a plugin as sh_host.
struct sh_host {
  std::string pluginName;
  sh::HostServices* services = nullptr;
  sh::config::Diagnostics* argsErrors = nullptr;  // set only while `create` runs
  // The plugin's declared kinds (ABI 1.2), by its own index: the ObjectStore's kind id of
  // each, and the write verbs it declared. Empty when the host has no object store.
  std::vector<std::size_t> kindIds;
  std::vector<uint32_t> kindVerbs;
  std::vector<int32_t> kindResources;  // connectors::eventResourceOf each kind
};

namespace sh {

class PluginInstance {
 public:
  // Creates the plugin with `args` (already merged over its defaults). Errors the plugin
  // reports about its args, or its refusal to start, go to `diags`; returns nullptr then.
  static std::shared_ptr<PluginInstance> create(std::shared_ptr<const plugin::LoadedPlugin> library,
                                                const config::ArgNode& args, HostServices* services,
                                                config::Diagnostics& diags);

  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const std::string& name() const { return library_->name; }
  // The name as a C string that outlives the instance (for the fatal-signal report).
  const char* stableName() const { return stableName_; }
  const sh_plugin_vtable& vtable() const { return *library_->vtable; }
  uint32_t points() const { return library_->points; }
  void* self() const { return self_; }
  const plugin::LoadedPlugin& library() const { return *library_; }
  // Non-null when the plugin asked to be called by one thread at a time.
  std::mutex* serializer() const { return serializer_.get(); }

  // At most this many event registrations are taken from a plugin: events_to_register is
  // called with room for kFirstEventCapacity, and called again with room for as many as it
  // returned when that is more, up to this bound. A plugin that asks for more keeps the
  // first kFirstEventCapacity, with an error logged and a failure counted.
  static constexpr std::size_t kFirstEventCapacity = 16;
  static constexpr std::size_t kMaxEventRegistrations = 4096;

  // The cluster events the plugin registered (EnqueueExtensions).
  const std::vector<sh_event_registration>& events() const { return events_; }
  // The ObjectStore kind id of each kind the plugin declared, by its own index.
  const std::vector<std::size_t>& kindIds() const { return host_->kindIds; }
  // The cluster-event resource of each declared kind (connectors::eventResourceOf).
  const std::vector<int32_t>& kindResources() const { return host_->kindResources; }
  // events() with each registration of a declared kind (SH_RESOURCE_DECLARED_KIND + i) turned
  // into its kind's event resource, in the same positions (the hint's index). A registration
  // naming a kind the plugin did not declare never matches (actions 0); it is logged once.
  std::vector<sh_event_registration> resolvedEvents() const;
  bool hasEventsToRegister() const { return library_->vtable->events_to_register != nullptr; }

  // Run-time failures of this plugin (errors, exceptions, invalid answers).
  void countFailure() { failures_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  PluginInstance() = default;
  void registerEvents();
  std::shared_ptr<const plugin::LoadedPlugin> library_;
  const char* stableName_ = "";
  std::unique_ptr<sh_host> host_;
  void* self_ = nullptr;
  std::unique_ptr<std::mutex> serializer_;
  std::vector<sh_event_registration> events_;
  std::atomic<uint64_t> failures_{0};
};

// The host function table given to every plugin.
const sh_host_api* hostApi();

// Calls of hostApi() services the process refused for invalid arguments (a NULL pointer, a
// NULL string with a length, an absurd length or count); each is also a failure of the plugin
// that made it, when it came from a plugin call.
uint64_t hostServiceMisuses();

}  // namespace sh

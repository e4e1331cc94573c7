#include "host/framework/plugin_instance.h"

#include <limits>

#include "host/connectors/object_store.h"

#include <spdlog/spdlog.h>

#include "host/framework/plugin_call.h"

namespace sh {

std::shared_ptr<PluginInstance> PluginInstance::create(
    std::shared_ptr<const plugin::LoadedPlugin> library, const config::ArgNode& args,
    HostServices* services, config::Diagnostics& diags) {
  std::shared_ptr<PluginInstance> inst(new PluginInstance());
  inst->library_ = std::move(library);
  inst->stableName_ = stablePluginName(inst->library_->name);
  inst->host_ = std::make_unique<sh_host>();
  inst->host_->pluginName = inst->library_->name;
  inst->host_->services = services;

  // The declared kinds first: a kind the host refuses refuses the plugin, before its code runs.
  if (!inst->library_->kinds.empty()) {
    connectors::ObjectStore* store = services != nullptr ? services->objectStore() : nullptr;
    for (std::size_t i = 0; i < inst->library_->kinds.size(); ++i) {
      const plugin::DeclaredKind& dk = inst->library_->kinds[i];
      connectors::ObjectKind kind{dk.group,      dk.version,       dk.resource,     dk.kind,
                                  dk.namespaced, dk.labelSelector, dk.fieldSelector};
      if (std::string why = connectors::checkKind(kind); !why.empty()) {
        diags.error(args.where(), args.path(),
                    "plugin \"" + inst->library_->name + "\" declares kind " + std::to_string(i) +
                        " " + kind.describe() + ": " + why);
        return nullptr;
      }
      const std::size_t id = store != nullptr ? store->addKind(kind, dk.verbs, inst->library_->name)
                                              : std::numeric_limits<std::size_t>::max();
      inst->host_->kindIds.push_back(id);
      inst->host_->kindVerbs.push_back(dk.verbs);
      // Without a store the kind has no events: a resource nothing sends.
      inst->host_->kindResources.push_back(store != nullptr ? connectors::eventResourceOf(kind, id)
                                                            : std::numeric_limits<int32_t>::max());
    }
  }

  config::Diagnostics argErrors;
  inst->host_->argsErrors = &argErrors;
  const sh_plugin_descriptor* d = inst->library_->descriptor;
  void* self = nullptr;
  {
    PluginCallScope scope(*inst, inst->stableName(), call_point::kCreate);
    self = d->create(hostApi(), inst->host_.get(), args.asShArgs());
  }
  inst->host_->argsErrors = nullptr;
  for (const config::Diagnostic& e : argErrors.items()) {
    diags.add(e);
  }
  if (self == nullptr) {
    if (!argErrors.hasErrors()) {
      diags.error(
          args.where(), args.path(),
          "plugin \"" + inst->library_->name + "\" refused to start (create returned NULL)");
    }
    return nullptr;
  }
  inst->self_ = self;
  if ((d->flags & SH_PLUGIN_SERIALIZE) != 0) {
    inst->serializer_ = std::make_unique<std::mutex>();
  }

  const sh_plugin_vtable& vt = *inst->library_->vtable;
  if (vt.events_to_register != nullptr) {
    inst->registerEvents();
  }
  return inst;
}

void PluginInstance::registerEvents() {
  const sh_plugin_vtable& vt = *library_->vtable;
  PluginCallScope scope(*this, stableName(), call_point::kEventsToRegister);
  std::vector<sh_event_registration> regs(kFirstEventCapacity);
  size_t n = vt.events_to_register(self_, regs.data(), regs.size());
  if (n > regs.size() && n <= kMaxEventRegistrations) {
    // As the ABI says: called again with room for all of them.
    regs.resize(n);
    n = vt.events_to_register(self_, regs.data(), regs.size());
  }
  if (n > regs.size()) {
    // More than the host takes, or more on the second call than the first announced.
    countFailure();
    spdlog::error(
        "plugin \"{}\": events_to_register returned {} registrations, more than the {} it "
        "could write (at most {} are taken); keeping the first {}",
        name(), n, regs.size(), kMaxEventRegistrations, regs.size());
    n = regs.size();
  }
  regs.resize(n);
  events_ = std::move(regs);
}

std::vector<sh_event_registration> PluginInstance::resolvedEvents() const {
  std::vector<sh_event_registration> out = events_;
  for (sh_event_registration& r : out) {
    if (r.resource < SH_RESOURCE_DECLARED_KIND) {
      continue;
    }
    const auto index = static_cast<std::size_t>(r.resource - SH_RESOURCE_DECLARED_KIND);
    if (index < host_->kindResources.size()) {
      r.resource = host_->kindResources[index];
      continue;
    }
    spdlog::error(
        "plugin \"{}\": an event registration names declared kind {}, but the plugin "
        "declares {}; it is ignored",
        name(), index, host_->kindResources.size());
    r.actions = 0;
  }
  return out;
}

PluginInstance::~PluginInstance() {
  if (self_ != nullptr) {
    PluginCallScope scope(*this, stableName(), call_point::kDestroy);
    library_->descriptor->destroy(self_);
  }
}

}  // namespace sh

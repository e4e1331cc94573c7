#include "host/framework/plugin_instance.h"

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

PluginInstance::~PluginInstance() {
  if (self_ != nullptr) {
    PluginCallScope scope(*this, stableName(), call_point::kDestroy);
    library_->descriptor->destroy(self_);
  }
}

}  // namespace sh

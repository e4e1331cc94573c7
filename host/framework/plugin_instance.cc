#include "host/framework/plugin_instance.h"

#include <spdlog/spdlog.h>

namespace sh {

std::shared_ptr<PluginInstance> PluginInstance::create(
    std::shared_ptr<const plugin::LoadedPlugin> library, const config::ArgNode& args,
    HostServices* services, config::Diagnostics& diags) {
  std::shared_ptr<PluginInstance> inst(new PluginInstance());
  inst->library_ = std::move(library);
  inst->host_ = std::make_unique<sh_host>();
  inst->host_->pluginName = inst->library_->name;
  inst->host_->services = services;

  config::Diagnostics argErrors;
  inst->host_->argsErrors = &argErrors;
  const sh_plugin_descriptor* d = inst->library_->descriptor;
  void* self = d->create(hostApi(), inst->host_.get(), args.asShArgs());
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
    std::vector<sh_event_registration> regs(16);
    size_t n = vt.events_to_register(self, regs.data(), regs.size());
    if (n > regs.size() && n < 4096) {
      regs.resize(n);
      n = vt.events_to_register(self, regs.data(), regs.size());
    }
    regs.resize(std::min(n, regs.size()));
    inst->events_ = std::move(regs);
  }
  return inst;
}

PluginInstance::~PluginInstance() {
  if (self_ != nullptr) {
    library_->descriptor->destroy(self_);
  }
}

}  // namespace sh

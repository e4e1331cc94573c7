// SchedulerServices: the HostServices of a running scheduler — binding through the
// cluster connector and the Permit waiting-pods map. Plugins are created (at profile
// load) before the scheduler exists, so the services are attached afterwards.
#pragma once

#include <atomic>
#include <string_view>

#include "host/connectors/connector.h"
#include "host/cycle/waiting_pods.h"
#include "host/framework/host_services.h"

namespace sh::cycle {

class SchedulerServices : public HostServices {
 public:
  void attach(connectors::Connector* connector, WaitingPods* waiting) {
    connector_.store(connector);
    waiting_.store(waiting);
  }

  Status bindPod(const sh_pod& pod, std::string_view nodeName) override {
    connectors::Connector* c = connector_.load();
    const model::Pod* p = model::Pod::fromView(&pod);
    if (c == nullptr || p == nullptr) {
      return Status(SH_ERROR, "no cluster connector to bind with");
    }
    return c->bind(*p, nodeName);
  }
  bool allowWaitingPod(std::string_view uid, std::string_view plugin) override {
    WaitingPods* w = waiting_.load();
    auto wp = w == nullptr ? nullptr : w->get(std::string(uid));
    return wp != nullptr && wp->allow(std::string(plugin));
  }
  bool rejectWaitingPod(std::string_view uid, std::string_view plugin,
                        std::string_view message) override {
    WaitingPods* w = waiting_.load();
    auto wp = w == nullptr ? nullptr : w->get(std::string(uid));
    return wp != nullptr && wp->reject(std::string(plugin), std::string(message));
  }

 private:
  std::atomic<connectors::Connector*> connector_{nullptr};
  std::atomic<WaitingPods*> waiting_{nullptr};
};

}  // namespace sh::cycle

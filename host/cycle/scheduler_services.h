// SchedulerServices: the HostServices of a running scheduler — binding through the
// cluster connector and the Permit waiting-pods map. Plugins are created (at profile
// load) before the scheduler exists, so the services are attached afterwards.
#pragma once

#include <atomic>
#include <string_view>

#include <spdlog/spdlog.h>

#include "host/connectors/connector.h"
#include "host/cycle/waiting_pods.h"
#include "host/framework/host_services.h"

namespace sh::cycle {

// The asynchronous preemptions of a running scheduler, as DefaultPreemption's PreEnqueue asks
// about them (preemption_running). Thread-safe.
class RunningPreemptions {
 public:
  virtual ~RunningPreemptions() = default;
  // True while the victims of a preemption made for the pod of `uid` are still being evicted.
  virtual bool preemptionRunning(std::string_view uid) const = 0;
};

class SchedulerServices : public HostServices {
 public:
  // What the services reach of the running scheduler; all null when it is gone.
  void attach(connectors::Connector* connector, WaitingPods* waiting,
              const RunningPreemptions* preemptions) {
    connector_.store(connector);
    waiting_.store(waiting);
    preemptions_.store(preemptions);
  }

  Status bindPod(const sh_pod& pod, std::string_view nodeName) override {
    connectors::Connector* c = connector_.load();
    const model::Pod* p = model::Pod::fromView(&pod);
    if (c == nullptr || p == nullptr) {
      return Status(SH_ERROR, "no cluster connector to bind with");
    }
    return c->bind(*p, nodeName);
  }
  connectors::ObjectStore* objectStore() override { return &objects_; }
  Status writeObject(const connectors::ObjectKind& kind, const connectors::ObjectWrite& write,
                     std::string_view plugin, std::string_view point) override {
    connectors::Connector* c = connector_.load();
    if (c == nullptr) {
      return Status(SH_ERROR, "no cluster connector to write " + write.describe(kind) + " with");
    }
    Status s = c->writeObject(kind, write);
    if (!s.ok()) {
      spdlog::debug("plugin {} ({}): {} failed: {}", plugin, point, write.describe(kind),
                    s.message());
    }
    return s;
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
  bool podRunningPreemption(std::string_view uid) const override {
    const RunningPreemptions* p = preemptions_.load();
    return p != nullptr && p->preemptionRunning(uid);
  }

 private:
  std::atomic<connectors::Connector*> connector_{nullptr};
  // The objects of the kinds plugins declare; before the connector is attached, plugins
  // created at profile load register their kinds here.
  connectors::ObjectStore objects_;
  std::atomic<WaitingPods*> waiting_{nullptr};
  std::atomic<const RunningPreemptions*> preemptions_{nullptr};
};

}  // namespace sh::cycle

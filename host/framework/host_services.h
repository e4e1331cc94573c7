// HostServices: what the running host offers plugins beyond the cycle itself — binding
// through the cluster connector and the waiting-pods map. The framework forwards the
// matching sh_host_api calls here.
#pragma once

#include <schedhost/plugin.h>

#include <string_view>

#include "host/common/status.h"

namespace sh {

namespace connectors {
class ObjectStore;
struct ObjectKind;
struct ObjectWrite;
}  // namespace connectors

class HostServices {
 public:
  virtual ~HostServices() = default;
  // The store of the objects plugins declare (ABI 1.2); nullptr: none, and a plugin's
  // declared kinds read as empty.
  virtual connectors::ObjectStore* objectStore() { return nullptr; }
  // A write `plugin` makes at `point` (a call_point name) to an object of `kind`: through the
  // cluster connector, or recorded (evaluate). The default refuses.
  virtual Status writeObject(const connectors::ObjectKind& kind,
                             const connectors::ObjectWrite& write, std::string_view plugin,
                             std::string_view point) {
    (void)kind;
    (void)write;
    (void)plugin;
    (void)point;
    return Status::error("this host does not write objects");
  }
  // True when writeObject only plans writes (evaluate): nothing will act on them, so plugins
  // do not wait for a controller (writes_planned).
  virtual bool writesPlanned() const { return false; }
  // Binds the pod to the node through the cluster connector.
  virtual Status bindPod(const sh_pod& pod, std::string_view nodeName) = 0;
  virtual bool allowWaitingPod(std::string_view uid, std::string_view plugin) = 0;
  virtual bool rejectWaitingPod(std::string_view uid, std::string_view plugin,
                                std::string_view message) = 0;
  // True while the victims of an asynchronous preemption made for the pod of `uid` are still
  // being evicted (preemption_running). The default: never, as a host that evicts in line.
  virtual bool podRunningPreemption(std::string_view uid) const {
    (void)uid;
    return false;
  }
};

// Services for a host that never binds (schedhost evaluate, tests): binding succeeds
// without effect and no pod ever waits.
class NullHostServices : public HostServices {
 public:
  Status bindPod(const sh_pod&, std::string_view) override { return Status(); }
  bool allowWaitingPod(std::string_view, std::string_view) override { return false; }
  bool rejectWaitingPod(std::string_view, std::string_view, std::string_view) override {
    return false;
  }
};

}  // namespace sh

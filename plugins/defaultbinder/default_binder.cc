// DefaultBinder: binds the pod to the chosen node through the cluster connector (the
// pods/<name>/binding subresource with target {kind: Node, name}).
//
// Extension points: Bind.
// Upstream: pkg/scheduler/framework/plugins/defaultbinder/default_binder.go (v1.36).
#include <schedhost/plugin.hpp>

#include <string_view>

namespace schedhost::plugins::defaultbinder {

constexpr const char* kName = "DefaultBinder";

class DefaultBinder : public BindPlugin {
 public:
  DefaultBinder(Host& host, const Args& /*args*/) : host_(host) {}

  // The connector's answer is the plugin's: its reasons go straight into the call's status.
  Status bind(Cycle& cycle, const sh_pod& pod, std::string_view node) {
    return host_.bindPod(cycle, pod, node);
  }

 private:
  Host host_;
};

}  // namespace schedhost::plugins::defaultbinder

SCHEDHOST_PLUGIN(schedhost::plugins::defaultbinder::DefaultBinder,
                 schedhost::plugins::defaultbinder::kName, "1.36.0")

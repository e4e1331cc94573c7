// NodeName: a pod with spec.nodeName set fits only the node of that name.
//
// Extension points: Filter, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/nodename/node_name.go (v1.36).
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <vector>

namespace schedhost::plugins::nodename {

constexpr const char* kName = "NodeName";
constexpr char kErrReason[] = "node(s) didn't match the requested node name";

class NodeName : public FilterPlugin, public EnqueueExtensions {
 public:
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
};

Status NodeName::filter(Cycle& /*cycle*/, const sh_pod& pod, const sh_node_info& nodeInfo) {
  std::string_view wanted = view(pod.node_name);
  if (wanted.empty() || wanted == view(nodeInfo.node->name)) {
    return Status::success();
  }
  return Status::unresolvable(kErrReason);
}

// Node/Add without a hint: a new node is always worth a retry (with backoff).
std::vector<EventRegistration> NodeName::eventsToRegister() {
  return {{SH_RESOURCE_NODE, SH_ACTION_ADD, false}};
}

}  // namespace schedhost::plugins::nodename

SCHEDHOST_PLUGIN(schedhost::plugins::nodename::NodeName, schedhost::plugins::nodename::kName,
                 "1.36.0")

// NodeUnschedulable: filters out nodes with spec.unschedulable set, unless the pod tolerates
// the taint {key: node.kubernetes.io/unschedulable, effect: NoSchedule}.
//
// Extension points: Filter, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go (v1.36).
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <vector>

namespace schedhost::plugins::nodeunschedulable {

constexpr const char* kName = "NodeUnschedulable";
constexpr char kErrReasonUnschedulable[] = "node(s) were unschedulable";
constexpr char kTaintNodeUnschedulable[] = "node.kubernetes.io/unschedulable";

class NodeUnschedulable : public FilterPlugin, public EnqueueExtensions {
 public:
  NodeUnschedulable(Host& host, const Args& args);

  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  enum Event : std::size_t { kNodeAddOrTaint = 0, kPodToleration = 1 };

  bool toleratesUnschedulable(const sh_pod& pod) const noexcept {
    return tolerationsTolerateTaint(pod.tolerations, pod.toleration_count, unschedulableTaint_);
  }

  sh_taint unschedulableTaint_{};
};

NodeUnschedulable::NodeUnschedulable(Host& host, const Args& /*args*/) {
  unschedulableTaint_.key = host.intern(kTaintNodeUnschedulable);
  unschedulableTaint_.value = SH_ID_NONE;
  unschedulableTaint_.effect = SH_EFFECT_NO_SCHEDULE;
}

Status NodeUnschedulable::filter(Cycle& /*cycle*/, const sh_pod& pod,
                                 const sh_node_info& nodeInfo) {
  if (nodeInfo.node->unschedulable == 0 || toleratesUnschedulable(pod)) {
    return Status::success();
  }
  return Status::unresolvable(kErrReasonUnschedulable);
}

std::vector<EventRegistration> NodeUnschedulable::eventsToRegister() {
  return {
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT, true},
      {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_TOLERATION, true},
  };
}

sh_queueing_hint NodeUnschedulable::queueingHint(std::size_t index, const sh_pod& pod,
                                                 const sh_event_objects& event) {
  if (index == kNodeAddOrTaint) {
    // Queue when a node turns schedulable, or a schedulable node is added.
    const sh_node* original = event.old_node;
    const sh_node* modified = event.new_node;
    if (modified == nullptr) {
      return SH_QUEUE;  // not a node add or update: upstream's type error, treated as Queue
    }
    bool nowSchedulable = modified->unschedulable == 0;
    if (nowSchedulable && (original == nullptr || original->unschedulable != 0)) {
      return SH_QUEUE;
    }
    return SH_QUEUE_SKIP;
  }
  // Pod toleration update: only the pod itself, and only once it tolerates the taint.
  const sh_pod* modified = event.new_pod;
  if (modified == nullptr) {
    return SH_QUEUE;
  }
  if (view(modified->uid) == view(pod.uid) && toleratesUnschedulable(*modified)) {
    return SH_QUEUE;
  }
  return SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::nodeunschedulable

SCHEDHOST_PLUGIN(schedhost::plugins::nodeunschedulable::NodeUnschedulable,
                 schedhost::plugins::nodeunschedulable::kName, "1.36.0")

// SchedulingGates: keeps a pod out of the active queue while it carries
// spec.schedulingGates.
//
// Extension points: PreEnqueue, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (v1.36).
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <string>
#include <vector>

namespace schedhost::plugins::schedulinggates {

constexpr const char* kName = "SchedulingGates";

class SchedulingGates : public PreEnqueuePlugin, public EnqueueExtensions {
 public:
  Status preEnqueue(const sh_pod& pod);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);
};

// "waiting for scheduling gates: [a b]" (Go's %v of the gate names).
Status SchedulingGates::preEnqueue(const sh_pod& pod) {
  if (pod.scheduling_gate_count == 0) {
    return Status::success();
  }
  std::string reason = "waiting for scheduling gates: [";
  for (uint32_t i = 0; i < pod.scheduling_gate_count; ++i) {
    if (i > 0) {
      reason += ' ';
    }
    reason.append(view(pod.scheduling_gates[i]));
  }
  reason += ']';
  return Status::unresolvable(std::move(reason));
}

std::vector<EventRegistration> SchedulingGates::eventsToRegister() {
  return {{SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, true}};
}

// Queue only when the pod whose gates were removed is the pod waiting.
sh_queueing_hint SchedulingGates::queueingHint(std::size_t /*index*/, const sh_pod& pod,
                                               const sh_event_objects& event) {
  const sh_pod* modified = event.new_pod;
  if (modified == nullptr || view(modified->uid) != view(pod.uid)) {
    return SH_QUEUE_SKIP;
  }
  return SH_QUEUE;
}

}  // namespace schedhost::plugins::schedulinggates

SCHEDHOST_PLUGIN(schedhost::plugins::schedulinggates::SchedulingGates,
                 schedhost::plugins::schedulinggates::kName, "1.36.0")

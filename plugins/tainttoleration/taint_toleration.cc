// TaintToleration: filters out nodes with a NoSchedule or NoExecute taint the pod does not
// tolerate, and prefers nodes with fewer untolerated PreferNoSchedule taints.
//
// Extension points: Filter, PreScore, Score, NormalizeScore (reversed), EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go (v1.36).
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <memory>
#include <string>
#include <vector>

namespace schedhost::plugins::tainttoleration {

constexpr const char* kName = "TaintToleration";
constexpr char kErrReasonUntolerated[] = "node(s) had untolerated taint(s)";

// The pod's tolerations whose effect is empty or PreferNoSchedule.
using PreScoreState = std::vector<sh_toleration>;

class TaintToleration : public FilterPlugin,
                        public PreScorePlugin,
                        public ScorePlugin,
                        public ScoreExtensions,
                        public EnqueueExtensions {
 public:
  TaintToleration(Host& host, const Args& args);

  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
  Status normalizeScore(Cycle& cycle, const sh_pod& pod, sh_node_score* scores, std::size_t count);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  enum Event : std::size_t { kNodeAddOrTaint = 0, kPodToleration = 1 };
  sh_id preScoreStateKey_;
};

TaintToleration::TaintToleration(Host& host, const Args& /*args*/)
    : preScoreStateKey_(host.intern(std::string("PreScore") + kName)) {}

Status TaintToleration::filter(Cycle& /*cycle*/, const sh_pod& pod, const sh_node_info& nodeInfo) {
  if (findUntoleratedTaint(*nodeInfo.node, pod, kDoNotScheduleEffects) == nullptr) {
    return Status::success();
  }
  return Status::unresolvable(kErrReasonUntolerated);
}

Status TaintToleration::preScore(Cycle& cycle, const sh_pod& pod,
                                 const sh_node_info* const* /*nodes*/, std::size_t /*count*/) {
  auto state = std::make_unique<PreScoreState>();
  for (uint32_t i = 0; i < pod.toleration_count; ++i) {
    const sh_toleration& t = pod.tolerations[i];
    if (t.effect == SH_EFFECT_NONE || t.effect == SH_EFFECT_PREFER_NO_SCHEDULE) {
      state->push_back(t);
    }
  }
  cycle.write(preScoreStateKey_, std::move(state));
  return Status::success();
}

// The number of PreferNoSchedule taints that the kept tolerations do not tolerate.
Status TaintToleration::score(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& nodeInfo,
                              int64_t& score) {
  const PreScoreState* tolerations = cycle.read<PreScoreState>(preScoreStateKey_);
  if (tolerations == nullptr) {
    return Status::error(std::string("failed to read \"PreScore") + kName +
                         "\" from cycleState: not found");
  }
  const sh_node& node = *nodeInfo.node;
  int64_t intolerable = 0;
  for (uint32_t i = 0; i < node.taint_count; ++i) {
    const sh_taint& taint = node.taints[i];
    if (taint.effect != SH_EFFECT_PREFER_NO_SCHEDULE) {
      continue;
    }
    if (!tolerationsTolerateTaint(tolerations->data(), static_cast<uint32_t>(tolerations->size()),
                                  taint)) {
      ++intolerable;
    }
  }
  score = intolerable;
  return Status::success();
}

// Fewer untolerated taints is better: 100 - 100*s/max, or 100 everywhere when max is 0.
Status TaintToleration::normalizeScore(Cycle& /*cycle*/, const sh_pod& /*pod*/,
                                       sh_node_score* scores, std::size_t count) {
  defaultNormalizeScore(SH_MAX_NODE_SCORE, true, scores, count);
  return Status::success();
}

std::vector<EventRegistration> TaintToleration::eventsToRegister() {
  return {
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT, true},
      {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_TOLERATION, true},
  };
}

sh_queueing_hint TaintToleration::queueingHint(std::size_t index, const sh_pod& pod,
                                               const sh_event_objects& event) {
  if (index == kNodeAddOrTaint) {
    // Queue when the node had an untolerated NoSchedule/NoExecute taint (or is new) and now
    // has none.
    if (event.new_node == nullptr) {
      return SH_QUEUE;
    }
    bool wasUntolerated =
        event.old_node == nullptr ||
        findUntoleratedTaint(*event.old_node, pod, kDoNotScheduleEffects) != nullptr;
    bool isUntolerated =
        findUntoleratedTaint(*event.new_node, pod, kDoNotScheduleEffects) != nullptr;
    return (wasUntolerated && !isUntolerated) ? SH_QUEUE : SH_QUEUE_SKIP;
  }
  // Pod toleration update: only the rejected pod itself may have become schedulable.
  if (event.new_pod == nullptr) {
    return SH_QUEUE;
  }
  return view(event.new_pod->uid) == view(pod.uid) ? SH_QUEUE : SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::tainttoleration

SCHEDHOST_PLUGIN(schedhost::plugins::tainttoleration::TaintToleration,
                 schedhost::plugins::tainttoleration::kName, "1.36.0")

// NodeAffinity: a pod fits a node when the node matches the pod's spec.nodeSelector and
// required node affinity, and the scheduler-enforced addedAffinity; nodes matching more
// preferred terms (the pod's and addedAffinity's) score higher.
//
// Extension points: PreFilter (with a metadata.name PreFilterResult), Filter, PreScore, Score,
// NormalizeScore, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (v1.36) and
// component-helpers/scheduling/corev1/nodeaffinity.
#include "args.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace schedhost::plugins::nodeaffinity {

constexpr const char* kName = "NodeAffinity";
constexpr char kErrReasonPod[] = "node(s) didn't match Pod's node affinity/selector";
constexpr char kErrReasonEnforced[] = "node(s) didn't match scheduler-enforced node affinity";
constexpr char kErrReasonConflict[] = "pod affinity terms conflict";

class NodeAffinity : public PreFilterPlugin,
                     public FilterPlugin,
                     public PreScorePlugin,
                     public ScorePlugin,
                     public ScoreExtensions,
                     public EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson = R"({"addedAffinity":null})";

  NodeAffinity(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
  Status normalizeScore(Cycle& cycle, const sh_pod& pod, sh_node_score* scores, std::size_t count);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  bool matchesAdded(const sh_node& node) const noexcept {
    return !args_.hasRequired() ||
           matchNodeSelectorTerms(args_.required().data(),
                                  static_cast<uint32_t>(args_.required().size()), node,
                                  metadataName_);
  }

  Host host_;
  NodeAffinityArgs args_;
  sh_id metadataName_;
};

namespace {

bool hasRequiredAffinity(const sh_pod& pod) noexcept {
  return pod.node_affinity != nullptr && pod.node_affinity->has_required != 0;
}

// The pod's preferred terms that take part in scoring all parse
// (nodeaffinity.NewPreferredSchedulingTerms would fail otherwise).
bool preferredTermsValid(const sh_pod& pod) noexcept {
  if (pod.node_affinity == nullptr) {
    return true;
  }
  for (uint32_t i = 0; i < pod.node_affinity->preferred_count; ++i) {
    const sh_preferred_term& t = pod.node_affinity->preferred[i];
    if (preferredTermCounts(t) && !termValid(t.preference)) {
      return false;
    }
  }
  return true;
}

// RequiredNodeAffinity.Match with its error: a required selector that matched nothing and had
// an unparsable term reports an error (which a queueing hint turns into Queue).
struct MatchResult {
  bool matched;
  bool error;
};
MatchResult matchRequired(const sh_pod& pod, const sh_node& node, sh_id metadataName) noexcept {
  bool matched = matchRequiredNodeAffinity(pod, node, metadataName);
  bool error = false;
  if (!matched && hasRequiredAffinity(pod) &&
      matchNodeSelectorMap(pod.node_selector, pod.node_selector_count, node)) {
    const sh_node_affinity& a = *pod.node_affinity;
    for (uint32_t i = 0; i < a.required_count; ++i) {
      error = error || (!termEmpty(a.required[i]) && !termValid(a.required[i]));
    }
  }
  return {matched, error};
}

// The node names a term's matchFields (metadata.name In ...) allow, intersected; false when
// the term has no such field.
bool termNodeNames(const sh_node_selector_term& term, sh_id metadataName,
                   std::vector<sh_id>& names) {
  bool found = false;
  for (uint32_t i = 0; i < term.match_field_count; ++i) {
    const sh_requirement& f = term.match_fields[i];
    if (f.key != metadataName || f.op != SH_OP_IN) {
      continue;
    }
    std::vector<sh_id> values(f.values, f.values + f.value_count);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (!found) {
      names = std::move(values);
      found = true;
    } else {
      std::vector<sh_id> both;
      std::set_intersection(names.begin(), names.end(), values.begin(), values.end(),
                            std::back_inserter(both));
      names = std::move(both);
    }
  }
  return found;
}

}  // namespace

NodeAffinity::NodeAffinity(Host& host, const Args& args)
    : host_(host), args_(parseArgs(host, args)), metadataName_(host.intern("metadata.name")) {}

Status NodeAffinity::preFilter(Cycle& /*cycle*/, const sh_pod& pod, PreFilterResult& result) {
  bool noNodeAffinity = !hasRequiredAffinity(pod);
  if (noNodeAffinity && !args_.hasRequired() && pod.node_selector_count == 0) {
    return Status::skip();
  }
  if (noNodeAffinity || pod.node_affinity->required_count == 0) {
    return Status::success();
  }
  // Terms are ORed: the union of the terms' metadata.name sets, unless a term has none (then
  // every node may match).
  const sh_node_affinity& a = *pod.node_affinity;
  std::vector<sh_id> nodeNames;
  for (uint32_t i = 0; i < a.required_count; ++i) {
    std::vector<sh_id> names;
    if (!termNodeNames(a.required[i], metadataName_, names)) {
      return Status::success();
    }
    std::vector<sh_id> merged;
    std::set_union(nodeNames.begin(), nodeNames.end(), names.begin(), names.end(),
                   std::back_inserter(merged));
    nodeNames = std::move(merged);
  }
  if (nodeNames.empty()) {
    return Status::unresolvable(kErrReasonConflict);
  }
  for (sh_id name : nodeNames) {
    result.addNode(host_.str(name));
  }
  return Status::success();
}

Status NodeAffinity::filter(Cycle& /*cycle*/, const sh_pod& pod, const sh_node_info& nodeInfo) {
  const sh_node& node = *nodeInfo.node;
  if (!matchesAdded(node)) {
    return Status::unresolvable(kErrReasonEnforced);
  }
  if (!matchRequiredNodeAffinity(pod, node, metadataName_)) {
    return Status::unresolvable(kErrReasonPod);
  }
  return Status::success();
}

Status NodeAffinity::preScore(Cycle& /*cycle*/, const sh_pod& pod,
                              const sh_node_info* const* /*nodes*/, std::size_t /*count*/) {
  if (!preferredTermsValid(pod)) {
    return Status::error("parsing the pod's preferred node affinity: invalid term");
  }
  bool podPreferred = pod.node_affinity != nullptr && pod.node_affinity->preferred_count > 0;
  if (!podPreferred && !args_.hasPreferred()) {
    return Status::skip();
  }
  return Status::success();
}

// The sum of the weights of the matching preferred terms, addedAffinity's and the pod's.
Status NodeAffinity::score(Cycle& /*cycle*/, const sh_pod& pod, const sh_node_info& nodeInfo,
                           int64_t& score) {
  const sh_node& node = *nodeInfo.node;
  int64_t count =
      scorePreferredTerms(args_.preferred().data(), static_cast<uint32_t>(args_.preferred().size()),
                          node, metadataName_);
  if (pod.node_affinity != nullptr) {
    if (!preferredTermsValid(pod)) {
      return Status::error("parsing the pod's preferred node affinity: invalid term");
    }
    count += scorePreferredTerms(pod.node_affinity->preferred, pod.node_affinity->preferred_count,
                                 node, metadataName_);
  }
  score = count;
  return Status::success();
}

// 100*s/max, all zero when no node matched any term.
Status NodeAffinity::normalizeScore(Cycle& /*cycle*/, const sh_pod& /*pod*/, sh_node_score* scores,
                                    std::size_t count) {
  defaultNormalizeScore(SH_MAX_NODE_SCORE, false, scores, count);
  return Status::success();
}

std::vector<EventRegistration> NodeAffinity::eventsToRegister() {
  return {{SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, true}};
}

// Queue when an added node matches, or an updated node went from not matching to matching.
sh_queueing_hint NodeAffinity::queueingHint(std::size_t /*index*/, const sh_pod& pod,
                                            const sh_event_objects& event) {
  const sh_node* modified = event.new_node;
  if (modified == nullptr) {
    return SH_QUEUE;
  }
  if (!matchesAdded(*modified)) {
    return SH_QUEUE_SKIP;
  }
  MatchResult now = matchRequired(pod, *modified, metadataName_);
  if (now.error) {
    return SH_QUEUE;
  }
  if (!now.matched) {
    return SH_QUEUE_SKIP;
  }
  if (event.old_node == nullptr) {
    return SH_QUEUE;
  }
  MatchResult before = matchRequired(pod, *event.old_node, metadataName_);
  if (before.error) {
    return SH_QUEUE;
  }
  return before.matched ? SH_QUEUE_SKIP : SH_QUEUE;
}

}  // namespace schedhost::plugins::nodeaffinity

SCHEDHOST_PLUGIN(schedhost::plugins::nodeaffinity::NodeAffinity,
                 schedhost::plugins::nodeaffinity::kName, "1.36.0")

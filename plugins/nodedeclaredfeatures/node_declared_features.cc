// NodeDeclaredFeatures: a pod that needs a node feature (one a kubelet lists in the node's
// status.declaredFeatures, KEP-5328) fits only the nodes that declare it.
//
// Extension points: PreFilter, Filter, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/nodedeclaredfeatures/nodedeclaredfeatures.go (v1.36)
// over k8s.io/component-helpers/nodedeclaredfeatures (v0.36.2).
//
// The fields the features look at (hostNetwork, hostUsers, restart rules) are not in sh_pod:
// PreFilter reads them once per cycle from the pod's manifest (the pod_manifest service, ABI
// 1.3), and Filter compares bit sets.
#include "features.h"
#include "framework.h"

#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::nodedeclaredfeatures {

constexpr const char* kName = "NodeDeclaredFeatures";
constexpr char kErrReasonUnsatisfiedRequirements[] = "node(s) didn't match Pod's required features";

// The pod's required features, computed at PreFilter and read by Filter.
struct PreFilterState {
  FeatureSet reqs = 0;
};

class NodeDeclaredFeatures : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  NodeDeclaredFeatures(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  enum Event : std::size_t { kNodeAddOrDeclaredFeature = 0, kPodUpdate = 1 };

  // The features scheduling `pod` needs; nullopt with `error` set when its manifest cannot be
  // read or a field the features look at is malformed.
  std::optional<FeatureSet> infer(const sh_pod& pod, std::string& error) const;

  Host host_;
  Framework framework_;
  sh_id preFilterStateKey_;
};

namespace {

bool sameFeatures(const sh_node& a, const sh_node& b) noexcept {
  Strings before = declaredFeatures(a);
  Strings after = declaredFeatures(b);
  return before.size() == after.size() && std::equal(before.begin(), before.end(), after.begin());
}

std::string podName(const sh_pod& pod) {
  return std::string(view(pod.namespace_)) + "/" + std::string(view(pod.name));
}

}  // namespace

NodeDeclaredFeatures::NodeDeclaredFeatures(Host& host, const Args& /*args*/)
    : host_(host),
      framework_(allFeatures()),
      preFilterStateKey_(host.intern(std::string("PreFilter") + kName)) {}

std::optional<FeatureSet> NodeDeclaredFeatures::infer(const sh_pod& pod, std::string& error) const {
  // Every feature that matters to scheduling reads spec.hostUsers or a container's
  // restartPolicyRules (features.cc): a pod whose view says it sets neither needs none, and
  // its manifest is not parsed. A view without spec_fields says nothing: the manifest is read.
  constexpr uint32_t kReadFields = SH_POD_FIELD_HOST_USERS | SH_POD_FIELD_RESTART_POLICY_RULES;
  constexpr std::size_t kFlagsEnd = offsetof(sh_pod, spec_fields) + sizeof(uint32_t);
  if (pod.struct_size >= kFlagsEnd && host_.servesClaimsAndManifests() &&
      (specFields(pod) & kReadFields) == 0) {
    return FeatureSet{0};
  }
  if (!host_.servesClaimsAndManifests()) {
    error = "the host does not serve pod manifests (pod_manifest, ABI 1.3)";
    return std::nullopt;
  }
  Json manifest = host_.podManifest(pod);
  if (!manifest.present()) {
    error = "pod \"" + podName(pod) + "\": no manifest";
    return std::nullopt;
  }
  // The spec only: the pod's status is not known yet when it is scheduled.
  Json spec = manifest["spec"];
  SpecError bad;
  FeatureSet reqs = framework_.inferForPodScheduling(spec, kSchedulerVersion, bad);
  if (!bad.empty()) {
    error = "pod \"" + podName(pod) + "\": " + bad.field + ": expected " + bad.expected;
    return std::nullopt;
  }
  return reqs;
}

Status NodeDeclaredFeatures::preFilter(Cycle& cycle, const sh_pod& pod,
                                       PreFilterResult& /*result*/) {
  std::string error;
  std::optional<FeatureSet> reqs = infer(pod, error);
  if (!reqs) {
    return Status::error(std::move(error));
  }
  if (*reqs == 0) {
    return Status::skip();
  }
  cycle.write(preFilterStateKey_, std::make_unique<PreFilterState>(PreFilterState{*reqs}));
  return Status::success();
}

Status NodeDeclaredFeatures::filter(Cycle& cycle, const sh_pod& /*pod*/,
                                    const sh_node_info& nodeInfo) {
  const PreFilterState* state = cycle.read<PreFilterState>(preFilterStateKey_);
  if (state == nullptr) {
    return Status::error(std::string("error reading \"PreFilter") + kName +
                         "\" from cycle-state: not found");
  }
  if (!Framework::isSubset(state->reqs, framework_.tryMap(declaredFeatures(*nodeInfo.node)))) {
    return Status::unresolvable(kErrReasonUnsatisfiedRequirements);
  }
  return Status::success();
}

std::vector<EventRegistration> NodeDeclaredFeatures::eventsToRegister() {
  return {
      {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_DECLARED_FEATURE, true},
      {SH_RESOURCE_POD, SH_ACTION_UPDATE, true},
  };
}

sh_queueing_hint NodeDeclaredFeatures::queueingHint(std::size_t index, const sh_pod& pod,
                                                    const sh_event_objects& event) {
  if (index == kNodeAddOrDeclaredFeature) {
    // Queue for a new node, or one whose declared features changed.
    if (event.new_node == nullptr) {
      return SH_QUEUE;  // not a node add or update: upstream's type error, treated as Queue
    }
    if (event.old_node != nullptr && sameFeatures(*event.old_node, *event.new_node)) {
      return SH_QUEUE_SKIP;
    }
    return SH_QUEUE;
  }
  // A pod update: only the pod itself, and only when what it requires changed.
  if (event.old_pod == nullptr || event.new_pod == nullptr) {
    return SH_QUEUE;
  }
  if (view(pod.uid) != view(event.new_pod->uid)) {
    return SH_QUEUE_SKIP;
  }
  std::string error;
  std::optional<FeatureSet> before = infer(*event.old_pod, error);
  std::optional<FeatureSet> after = before ? infer(*event.new_pod, error) : std::nullopt;
  if (!before || !after) {
    host_.log(SH_LOG_ERROR, "failed to infer pod feature requirements: " + error);
    return SH_QUEUE;
  }
  return *before == *after ? SH_QUEUE_SKIP : SH_QUEUE;
}

}  // namespace schedhost::plugins::nodedeclaredfeatures

SCHEDHOST_PLUGIN(schedhost::plugins::nodedeclaredfeatures::NodeDeclaredFeatures,
                 schedhost::plugins::nodedeclaredfeatures::kName, "1.36.0")

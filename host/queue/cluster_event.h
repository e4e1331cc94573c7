// ClusterEvent: a change in the cluster that may make rejected pods schedulable (upstream
// framework/events.go and kube-scheduler framework/types.go: ClusterEvent, QueueingHint).
//
// A plugin registers events {resource, actions} (sh_event_registration); the host turns every
// informer change into incoming events and asks the queue to move pods whose rejector plugins
// registered a matching event. `matches(registered, incoming)` is upstream's
// MatchClusterEvents. The wildcard {*, All} is special on both sides: registered, it matches
// everything; incoming (UnschedulableTimeout, ForceActivate), it matches only a registered
// wildcard, and the queue treats it as "requeue after backoff" without asking any plugin.
#pragma once

#include <schedhost/plugin.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/model/node.h"
#include "host/model/pod.h"

namespace sh::queue {

using PodPtr = std::shared_ptr<const model::Pod>;
using NodePtr = std::shared_ptr<const model::Node>;

inline constexpr uint32_t kActionNone = 0;

// An event's resource: an sh_event_resource, or a host-wide id above them for an object kind
// that plugins declared (connectors::eventResourceOf). An int, not the enum: the declared-kind
// ids lie outside the enum's range.
using EventResource = int32_t;

struct ClusterEvent {
  EventResource resource = SH_RESOURCE_WILDCARD;
  uint32_t actions = kActionNone;
  // Replaces the derived label in logs and metrics (special events only).
  std::string customLabel;

  // customLabel, else resource name + action name: "NodeAdd", "AssignedPodDelete",
  // "UnschedulablePodUpdatePodLabel". A combination of actions has no name ("Node").
  std::string label() const;
  // {*, All}, whatever the label.
  bool isWildcard() const { return resource == SH_RESOURCE_WILDCARD && actions == SH_ACTION_ALL; }
  bool operator==(const ClusterEvent&) const = default;
};

// "Pod", "Node", "storage.k8s.io/CSINode", "*", "AssignedPod", "UnschedulablePod", ...
std::string_view resourceName(EventResource r);
// "Add", "UpdateNodeTaint", "Update", "All"; "" for None and for other combinations.
std::string_view actionName(uint32_t actions);

// Upstream MatchClusterEvents: `registered` is what a plugin asked for, `incoming` what
// happened. True when registered is the wildcard, or the resources match (equal, registered
// `*`, or registered Pod for AssignedPod/UnschedulablePod), the actions intersect and the
// incoming actions are <= the registered ones.
bool matches(const ClusterEvent& registered, const ClusterEvent& incoming);
// Whether any of `registered` matches `incoming` (upstream MatchAnyClusterEvent).
bool matchesAny(const ClusterEvent& incoming, const std::vector<ClusterEvent>& registered);

// Queue-internal labels (metrics `event` label and in-flight bookkeeping).
inline constexpr std::string_view kScheduleAttemptFailure = "ScheduleAttemptFailure";
inline constexpr std::string_view kBackoffComplete = "BackoffComplete";
inline constexpr std::string_view kPopFromBackoffQ = "PopFromBackoffQ";
inline constexpr std::string_view kForceActivate = "ForceActivate";
inline constexpr std::string_view kUnschedulableTimeout = "UnschedulableTimeout";
inline constexpr std::string_view kUnschedulablePodAdd = "UnschedulablePodAdd";
inline constexpr std::string_view kUnschedulablePodUpdate = "UnschedulablePodUpdate";
// The event handlers' label for an unscheduled pod's deletion (upstream
// EventUnscheduledPodDelete), in scheduler_event_handling_duration_seconds.
inline constexpr std::string_view kUnschedulablePodDelete = "UnschedulablePodDelete";
// schedhost's own: a new profile generation lifted a pod's PreEnqueue gate, or retries the
// pods the old one turned away.
inline constexpr std::string_view kProfileChange = "ProfileChange";

// The special wildcard events.
ClusterEvent eventUnschedulableTimeout();
ClusterEvent eventForceActivate();
// {*, All} labelled ProfileChange: what a new profile generation moves the pods with.
ClusterEvent eventProfileChange();
// The events the host's informer handlers send (eventhandlers.go).
ClusterEvent eventNodeAdd();
ClusterEvent eventNodeDelete();
ClusterEvent eventAssignedPodAdd();
ClusterEvent eventAssignedPodDelete();

// Upstream PodSchedulingPropertiesChange: the events an update of a pod means, on resource
// AssignedPod when cur has a nodeName, else UnschedulablePod, in this order:
// UpdatePodLabel, UpdatePodScaleDown (a request decreased or was removed),
// UpdatePodSchedulingGatesEliminated, UpdatePodToleration (count changed),
// UpdatePodGeneratedResourceClaim (status.resourceClaimStatuses or
// status.extendedResourceClaimStatus changed; read from the manifests, parsed only when
// either carries those fields). None of them: one generic Update.
std::vector<ClusterEvent> podUpdateEvents(const model::Pod& old, const model::Pod& cur);

// Upstream NodeSchedulingPropertiesChange, in this order: spec.unschedulable true->false
// (UpdateNodeTaint), allocatable (UpdateNodeAllocatable), labels (UpdateNodeLabel), taints
// (UpdateNodeTaint), condition type->status (UpdateNodeCondition), annotations
// (UpdateNodeAnnotation), status.declaredFeatures (UpdateNodeDeclaredFeature). The first four
// come from the views; the last three from the manifests (Node::json()), parsed only when the
// two manifests differ. May return none, or UpdateNodeTaint twice, as upstream.
std::vector<ClusterEvent> nodeUpdateEvents(const model::Node& old, const model::Node& cur);

// The old or new object of an event: a pod, a node, or nothing (Add has no old object,
// Delete no new one, and resources without a host model carry none). Holds a reference, so
// an event remembered for in-flight pods keeps its objects alive.
class EventObject {
 public:
  EventObject() = default;
  EventObject(std::nullptr_t) {}  // NOLINT: implicit on purpose, like upstream's nil
  EventObject(PodPtr pod) : pod_(std::move(pod)) {}      // NOLINT
  EventObject(NodePtr node) : node_(std::move(node)) {}  // NOLINT

  // An object of a declared kind (ABI 1.2): `owner` keeps `view` alive; `kind` is its
  // ObjectStore kind id.
  EventObject(std::shared_ptr<const void> owner, const sh_object* view, std::size_t kind)
      : object_(std::move(owner)), objectView_(view), objectKind_(kind) {}

  const model::Pod* pod() const { return pod_.get(); }
  const model::Node* node() const { return node_.get(); }
  const sh_object* object() const { return objectView_; }
  std::size_t objectKind() const { return objectKind_; }
  bool empty() const { return !pod_ && !node_ && !object_; }

 private:
  PodPtr pod_;
  NodePtr node_;
  std::shared_ptr<const void> object_;
  const sh_object* objectView_ = nullptr;
  std::size_t objectKind_ = 0;
};

// The ABI view handed to queueing_hint. Valid while the EventObjects live. For an object
// event, `kind` holds the ObjectStore kind id; the framework turns it into the receiving
// plugin's own index.
sh_event_objects toAbi(const ClusterEvent& event, const EventObject& oldObj,
                       const EventObject& newObj);

}  // namespace sh::queue

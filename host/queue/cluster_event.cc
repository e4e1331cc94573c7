#include "host/queue/cluster_event.h"

#include <boost/json.hpp>
#include <map>
#include <string>

namespace sh::queue {
namespace {

bool sameLabels(const sh_label* a, uint32_t na, const sh_label* b, uint32_t nb) {
  if (na != nb) {
    return false;
  }
  // Both are sorted by key id, so equal maps have equal arrays.
  for (uint32_t i = 0; i < na; ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value) {
      return false;
    }
  }
  return true;
}

bool sameResources(const sh_resources& a, const sh_resources& b) {
  if (a.milli_cpu != b.milli_cpu || a.memory != b.memory ||
      a.ephemeral_storage != b.ephemeral_storage || a.allowed_pod_number != b.allowed_pod_number ||
      a.scalar_count != b.scalar_count) {
    return false;
  }
  for (uint32_t i = 0; i < a.scalar_count; ++i) {
    if (a.scalars[i].name != b.scalars[i].name || a.scalars[i].value != b.scalars[i].value) {
      return false;
    }
  }
  return true;
}

// upstream extractPodScaleDown over resource.PodRequests: some request of `old` is missing
// from `cur` or larger than it. The fixed resources count as requested when non-zero.
bool scaledDown(const sh_resources& old, const sh_resources& cur) {
  if (old.milli_cpu > cur.milli_cpu || old.memory > cur.memory ||
      old.ephemeral_storage > cur.ephemeral_storage) {
    return true;
  }
  // Scalars are sorted by name id in both.
  uint32_t j = 0;
  for (uint32_t i = 0; i < old.scalar_count; ++i) {
    const sh_quantity& o = old.scalars[i];
    while (j < cur.scalar_count && cur.scalars[j].name < o.name) {
      ++j;
    }
    if (j == cur.scalar_count || cur.scalars[j].name != o.name || cur.scalars[j].value < o.value) {
      return true;
    }
  }
  return false;
}

bool sameTaints(const sh_node& a, const sh_node& b) {
  if (a.taint_count != b.taint_count) {
    return false;
  }
  for (uint32_t i = 0; i < a.taint_count; ++i) {
    if (a.taints[i].key != b.taints[i].key || a.taints[i].value != b.taints[i].value ||
        a.taints[i].effect != b.taints[i].effect) {
      return false;
    }
  }
  return true;
}

// The value at obj[k1][k2], or nullptr.
const boost::json::value* at(const boost::json::value& root, std::string_view k1,
                             std::string_view k2) {
  const boost::json::object* o = root.if_object();
  if (o == nullptr) {
    return nullptr;
  }
  const boost::json::value* v = o->if_contains(k1);
  if (v == nullptr || !v->is_object()) {
    return nullptr;
  }
  return v->as_object().if_contains(k2);
}

bool sameValue(const boost::json::value* a, const boost::json::value* b) {
  static const boost::json::value kNull;
  return (a != nullptr ? *a : kNull) == (b != nullptr ? *b : kNull);
}

boost::json::value parseOrNull(const std::string& text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  return ec ? boost::json::value() : v;
}

// Node condition type -> status, as upstream's strip().
std::map<std::string, std::string> conditionStatuses(const boost::json::value* conditions) {
  std::map<std::string, std::string> out;
  if (conditions == nullptr || !conditions->is_array()) {
    return out;
  }
  for (const boost::json::value& c : conditions->as_array()) {
    const boost::json::object* o = c.if_object();
    if (o == nullptr) {
      continue;
    }
    std::string type;
    std::string status;
    if (const boost::json::value* t = o->if_contains("type"); t != nullptr && t->is_string()) {
      type = t->as_string().c_str();
    }
    if (const boost::json::value* s = o->if_contains("status"); s != nullptr && s->is_string()) {
      status = s->as_string().c_str();
    }
    out[type] = status;
  }
  return out;
}

// An empty map and a missing one are semantically equal (equality.Semantic on maps).
bool sameObjectOrEmpty(const boost::json::value* a, const boost::json::value* b) {
  auto empty = [](const boost::json::value* v) {
    return v == nullptr || v->is_null() || (v->is_object() && v->as_object().empty());
  };
  if (empty(a) && empty(b)) {
    return true;
  }
  return sameValue(a, b);
}

bool mentionsClaimStatuses(const std::string& json) {
  return json.find("resourceClaimStatuses") != std::string::npos ||
         json.find("extendedResourceClaimStatus") != std::string::npos;
}

}  // namespace

std::string_view resourceName(EventResource r) {
  switch (r) {
    case SH_RESOURCE_POD:
      return "Pod";
    case SH_RESOURCE_NODE:
      return "Node";
    case SH_RESOURCE_PERSISTENT_VOLUME:
      return "PersistentVolume";
    case SH_RESOURCE_PERSISTENT_VOLUME_CLAIM:
      return "PersistentVolumeClaim";
    case SH_RESOURCE_CSI_NODE:
      return "storage.k8s.io/CSINode";
    case SH_RESOURCE_CSI_DRIVER:
      return "storage.k8s.io/CSIDriver";
    case SH_RESOURCE_VOLUME_ATTACHMENT:
      return "storage.k8s.io/VolumeAttachment";
    case SH_RESOURCE_CSI_STORAGE_CAPACITY:
      return "storage.k8s.io/CSIStorageCapacity";
    case SH_RESOURCE_STORAGE_CLASS:
      return "storage.k8s.io/StorageClass";
    case SH_RESOURCE_RESOURCE_CLAIM:
      return "resource.k8s.io/ResourceClaim";
    case SH_RESOURCE_RESOURCE_SLICE:
      return "resource.k8s.io/ResourceSlice";
    case SH_RESOURCE_DEVICE_CLASS:
      return "resource.k8s.io/DeviceClass";
    case SH_RESOURCE_WILDCARD:
      return "*";
    case SH_RESOURCE_ASSIGNED_POD:
      return "AssignedPod";
    case SH_RESOURCE_UNSCHEDULED_POD:
      return "UnschedulablePod";
  }
  return "";
}

std::string_view actionName(uint32_t actions) {
  switch (actions) {
    case SH_ACTION_ADD:
      return "Add";
    case SH_ACTION_DELETE:
      return "Delete";
    case SH_ACTION_UPDATE_NODE_ALLOCATABLE:
      return "UpdateNodeAllocatable";
    case SH_ACTION_UPDATE_NODE_LABEL:
      return "UpdateNodeLabel";
    case SH_ACTION_UPDATE_NODE_TAINT:
      return "UpdateNodeTaint";
    case SH_ACTION_UPDATE_NODE_CONDITION:
      return "UpdateNodeCondition";
    case SH_ACTION_UPDATE_NODE_ANNOTATION:
      return "UpdateNodeAnnotation";
    case SH_ACTION_UPDATE_NODE_DECLARED_FEATURE:
      return "UpdateNodeDeclaredFeature";
    case SH_ACTION_UPDATE_POD_LABEL:
      return "UpdatePodLabel";
    case SH_ACTION_UPDATE_POD_SCALE_DOWN:
      return "UpdatePodScaleDown";
    case SH_ACTION_UPDATE_POD_TOLERATION:
      return "UpdatePodToleration";
    case SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED:
      return "UpdatePodSchedulingGatesEliminated";
    case SH_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM:
      return "UpdatePodGeneratedResourceClaim";
    case SH_ACTION_ALL:
      return "All";
    case SH_ACTION_UPDATE:
      return "Update";
    default:
      return "";
  }
}

std::string ClusterEvent::label() const {
  if (!customLabel.empty()) {
    return customLabel;
  }
  std::string out(resourceName(resource));
  out += actionName(actions);
  return out;
}

bool matches(const ClusterEvent& registered, const ClusterEvent& incoming) {
  if (registered.isWildcard()) {
    return true;
  }
  const EventResource r = registered.resource;
  const EventResource in = incoming.resource;
  bool resourceMatches = r == SH_RESOURCE_WILDCARD || r == in ||
                         (r == SH_RESOURCE_POD &&
                          (in == SH_RESOURCE_ASSIGNED_POD || in == SH_RESOURCE_UNSCHEDULED_POD));
  return resourceMatches && (registered.actions & incoming.actions) != 0 &&
         incoming.actions <= registered.actions;
}

bool matchesAny(const ClusterEvent& incoming, const std::vector<ClusterEvent>& registered) {
  for (const ClusterEvent& r : registered) {
    if (matches(r, incoming)) {
      return true;
    }
  }
  return false;
}

ClusterEvent eventUnschedulableTimeout() {
  return {SH_RESOURCE_WILDCARD, SH_ACTION_ALL, std::string(kUnschedulableTimeout)};
}
ClusterEvent eventForceActivate() {
  return {SH_RESOURCE_WILDCARD, SH_ACTION_ALL, std::string(kForceActivate)};
}
ClusterEvent eventProfileChange() {
  return {SH_RESOURCE_WILDCARD, SH_ACTION_ALL, std::string(kProfileChange)};
}
ClusterEvent eventNodeAdd() { return {SH_RESOURCE_NODE, SH_ACTION_ADD, {}}; }
ClusterEvent eventNodeDelete() { return {SH_RESOURCE_NODE, SH_ACTION_DELETE, {}}; }
ClusterEvent eventAssignedPodAdd() { return {SH_RESOURCE_ASSIGNED_POD, SH_ACTION_ADD, {}}; }
ClusterEvent eventAssignedPodDelete() { return {SH_RESOURCE_ASSIGNED_POD, SH_ACTION_DELETE, {}}; }

std::vector<ClusterEvent> podUpdateEvents(const model::Pod& old, const model::Pod& cur) {
  const sh_pod& o = old.view();
  const sh_pod& c = cur.view();
  const EventResource r =
      c.node_name.len != 0 ? SH_RESOURCE_ASSIGNED_POD : SH_RESOURCE_UNSCHEDULED_POD;
  std::vector<ClusterEvent> out;
  auto emit = [&](uint32_t action) { out.push_back(ClusterEvent{r, action, {}}); };
  if (!sameLabels(o.labels, o.label_count, c.labels, c.label_count)) {
    emit(SH_ACTION_UPDATE_POD_LABEL);
  }
  if (scaledDown(o.requests, c.requests)) {
    emit(SH_ACTION_UPDATE_POD_SCALE_DOWN);
  }
  if (c.scheduling_gate_count == 0 && o.scheduling_gate_count != 0) {
    emit(SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED);
  }
  if (c.toleration_count != o.toleration_count) {
    emit(SH_ACTION_UPDATE_POD_TOLERATION);
  }
  if (mentionsClaimStatuses(old.json()) || mentionsClaimStatuses(cur.json())) {
    boost::json::value oj = parseOrNull(old.json());
    boost::json::value cj = parseOrNull(cur.json());
    if (!sameValue(at(oj, "status", "resourceClaimStatuses"),
                   at(cj, "status", "resourceClaimStatuses")) ||
        !sameValue(at(oj, "status", "extendedResourceClaimStatus"),
                   at(cj, "status", "extendedResourceClaimStatus"))) {
      emit(SH_ACTION_UPDATE_POD_GENERATED_RESOURCE_CLAIM);
    }
  }
  if (out.empty()) {
    emit(SH_ACTION_UPDATE);
  }
  return out;
}

std::vector<ClusterEvent> nodeUpdateEvents(const model::Node& old, const model::Node& cur) {
  const sh_node& o = old.view();
  const sh_node& c = cur.view();
  std::vector<ClusterEvent> out;
  auto emit = [&](uint32_t action) { out.push_back(ClusterEvent{SH_RESOURCE_NODE, action, {}}); };
  if (o.unschedulable != c.unschedulable && c.unschedulable == 0) {
    emit(SH_ACTION_UPDATE_NODE_TAINT);
  }
  if (!sameResources(o.allocatable, c.allocatable)) {
    emit(SH_ACTION_UPDATE_NODE_ALLOCATABLE);
  }
  if (!sameLabels(o.labels, o.label_count, c.labels, c.label_count)) {
    emit(SH_ACTION_UPDATE_NODE_LABEL);
  }
  if (!sameTaints(o, c)) {
    emit(SH_ACTION_UPDATE_NODE_TAINT);
  }
  if (old.json() != cur.json()) {
    boost::json::value oj = parseOrNull(old.json());
    boost::json::value cj = parseOrNull(cur.json());
    if (conditionStatuses(at(oj, "status", "conditions")) !=
        conditionStatuses(at(cj, "status", "conditions"))) {
      emit(SH_ACTION_UPDATE_NODE_CONDITION);
    }
    if (!sameObjectOrEmpty(at(oj, "metadata", "annotations"), at(cj, "metadata", "annotations"))) {
      emit(SH_ACTION_UPDATE_NODE_ANNOTATION);
    }
    if (!sameValue(at(oj, "status", "declaredFeatures"), at(cj, "status", "declaredFeatures"))) {
      emit(SH_ACTION_UPDATE_NODE_DECLARED_FEATURE);
    }
  }
  return out;
}

sh_event_objects toAbi(const ClusterEvent& event, const EventObject& oldObj,
                       const EventObject& newObj) {
  sh_event_objects out{};
  out.struct_size = sizeof(sh_event_objects);
  out.resource = event.resource;
  out.actions = event.actions;
  out.old_pod = oldObj.pod() != nullptr ? &oldObj.pod()->view() : nullptr;
  out.new_pod = newObj.pod() != nullptr ? &newObj.pod()->view() : nullptr;
  out.old_node = oldObj.node() != nullptr ? &oldObj.node()->view() : nullptr;
  out.new_node = newObj.node() != nullptr ? &newObj.node()->view() : nullptr;
  out.old_object = oldObj.object();
  out.new_object = newObj.object();
  if (out.old_object != nullptr || out.new_object != nullptr) {
    out.kind = static_cast<uint32_t>(out.old_object != nullptr ? oldObj.objectKind()
                                                               : newObj.objectKind());
  }
  return out;
}

}  // namespace sh::queue

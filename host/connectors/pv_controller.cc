#include "host/connectors/pv_controller.h"

#include <boost/json.hpp>

namespace sh::connectors {
namespace {

constexpr std::string_view kSelectedNode = "volume.kubernetes.io/selected-node";
constexpr std::string_view kBindCompleted = "pv.kubernetes.io/bind-completed";
constexpr std::string_view kBoundByController = "pv.kubernetes.io/bound-by-controller";
constexpr std::string_view kProvisionedBy = "pv.kubernetes.io/provisioned-by";
constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kHostname = "kubernetes.io/hostname";

const boost::json::value* member(const boost::json::value& v,
                                 std::initializer_list<std::string_view> path) {
  const boost::json::value* cur = &v;
  for (std::string_view key : path) {
    if (!cur->is_object()) {
      return nullptr;
    }
    cur = cur->as_object().if_contains(key);
    if (cur == nullptr) {
      return nullptr;
    }
  }
  return cur;
}

std::string text(const boost::json::value& v, std::initializer_list<std::string_view> path) {
  const boost::json::value* x = member(v, path);
  return x != nullptr && x->is_string() ? std::string(x->as_string()) : std::string();
}

boost::json::object& object(boost::json::object& o, std::string_view key) {
  boost::json::value& v = o[key];
  if (!v.is_object()) {
    v = boost::json::object();
  }
  return v.as_object();
}

// The claim's class: spec.storageClassName, or the beta annotation before it.
std::string classOf(const boost::json::value& claim) {
  std::string beta =
      text(claim, {"metadata", "annotations", "volume.beta.kubernetes.io/storage-class"});
  return beta.empty() ? text(claim, {"spec", "storageClassName"}) : beta;
}

// bindVolumeToClaim and bindClaimToVolume: the pair as the controller leaves it.
std::vector<PvControllerWrite> bind(boost::json::value volume, bool volumeIsNew,
                                    const boost::json::value& claim) {
  std::vector<PvControllerWrite> out;
  const std::string volumeName = text(volume, {"metadata", "name"});

  boost::json::object& pv = volume.as_object();
  boost::json::object& ref = object(object(pv, "spec"), "claimRef");
  ref["kind"] = "PersistentVolumeClaim";
  ref["apiVersion"] = "v1";
  ref["namespace"] = text(claim, {"metadata", "namespace"});
  ref["name"] = text(claim, {"metadata", "name"});
  ref["uid"] = text(claim, {"metadata", "uid"});
  object(pv, "status")["phase"] = "Bound";
  const boost::json::value* capacity = member(volume, {"spec", "capacity"});
  boost::json::value capacityCopy = capacity != nullptr ? *capacity : boost::json::value();
  out.push_back({PvControllerWrite::Kind::kVolume, volumeIsNew, std::move(volume)});

  boost::json::value bound = claim;
  boost::json::object& pvc = bound.as_object();
  boost::json::object& annotations = object(object(pvc, "metadata"), "annotations");
  annotations[kBindCompleted] = "yes";
  annotations[kBoundByController] = "yes";
  object(pvc, "spec")["volumeName"] = volumeName;
  boost::json::object& status = object(pvc, "status");
  status["phase"] = "Bound";
  if (const boost::json::value* modes = member(claim, {"spec", "accessModes"})) {
    status["accessModes"] = *modes;
  }
  if (capacityCopy.is_object()) {
    status["capacity"] = std::move(capacityCopy);
  }
  out.push_back({PvControllerWrite::Kind::kClaim, false, std::move(bound)});
  return out;
}

// provisionClaimOperation: a volume for the claim on its selected node.
std::vector<PvControllerWrite> provision(const boost::json::value& claim, const PvWorld& world) {
  const std::string node = text(claim, {"metadata", "annotations", std::string(kSelectedNode)});
  const std::string className = classOf(claim);
  const boost::json::value* cls = className.empty() ? nullptr : world.storageClass(className);
  if (node.empty() || cls == nullptr) {
    return {};
  }
  const std::string provisioner = text(*cls, {"provisioner"});
  std::map<std::string, std::string, std::less<>> labels;
  if (provisioner.empty() || provisioner == kNoProvisioner || !world.nodeLabels(node, labels)) {
    return {};
  }
  const std::string uid = text(claim, {"metadata", "uid"});
  const std::string name = "pvc-" + (uid.empty() ? text(claim, {"metadata", "name"}) : uid);
  if (world.volume(name) != nullptr) {
    return {};  // provisioned already; its own write binds it
  }
  // Affinity to the node's zone when it has one (a zonal disk), else to the node (a local one).
  std::string key(kHostname);
  std::string value = node;
  if (auto zone = labels.find(kZone); zone != labels.end()) {
    key = std::string(kZone);
    value = zone->second;
  }
  const boost::json::value* storage = member(claim, {"spec", "resources", "requests", "storage"});
  boost::json::object spec{
      {"capacity", boost::json::object{{"storage", storage != nullptr ? *storage : "1Gi"}}},
      {"storageClassName", className},
      {"persistentVolumeReclaimPolicy",
       text(*cls, {"reclaimPolicy"}).empty() ? "Delete" : text(*cls, {"reclaimPolicy"})},
      {"csi", boost::json::object{{"driver", provisioner}, {"volumeHandle", name}}},
      {"nodeAffinity",
       boost::json::object{
           {"required",
            boost::json::object{
                {"nodeSelectorTerms",
                 boost::json::array{boost::json::object{
                     {"matchExpressions",
                      boost::json::array{boost::json::object{
                          {"key", key},
                          {"operator", "In"},
                          {"values", boost::json::array{boost::json::value(value)}}}}}}}}}}}}};
  if (const boost::json::value* modes = member(claim, {"spec", "accessModes"})) {
    spec["accessModes"] = *modes;
  }
  if (const boost::json::value* mode = member(claim, {"spec", "volumeMode"})) {
    spec["volumeMode"] = *mode;
  }
  boost::json::value volume = boost::json::object{
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata",
       boost::json::object{{"name", name},
                           {"annotations", boost::json::object{{kProvisionedBy, provisioner}}}}},
      {"spec", std::move(spec)},
      {"status", boost::json::object{{"phase", "Available"}}}};
  return bind(std::move(volume), true, claim);
}

}  // namespace

std::vector<PvControllerWrite> reconcileAfterWrite(const boost::json::value& written, bool isVolume,
                                                   const PvWorld& world) {
  if (!written.is_object()) {
    return {};
  }
  if (isVolume) {
    // A volume reserved for a claim (claimRef) that the claim does not yet name as bound.
    const std::string ns = text(written, {"spec", "claimRef", "namespace"});
    const std::string name = text(written, {"spec", "claimRef", "name"});
    if (name.empty()) {
      return {};
    }
    const boost::json::value* claim = world.claim(ns, name);
    if (claim == nullptr) {
      return {};
    }
    const std::string refUid = text(written, {"spec", "claimRef", "uid"});
    const std::string volumeName = text(*claim, {"spec", "volumeName"});
    const std::string self = text(written, {"metadata", "name"});
    const bool complete =
        !text(*claim, {"metadata", "annotations", std::string(kBindCompleted)}).empty();
    if ((!refUid.empty() && refUid != text(*claim, {"metadata", "uid"})) ||
        (!volumeName.empty() && volumeName != self) || (volumeName == self && complete)) {
      return {};  // another claim's, bound to another volume, or bound already
    }
    return bind(written, false, *claim);
  }
  if (!text(written, {"spec", "volumeName"}).empty()) {
    return {};
  }
  return provision(written, world);
}

}  // namespace sh::connectors

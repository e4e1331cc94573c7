// Reading the claims of a pod and their StorageClasses.
#include "claims.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace schedhost::plugins::volumebinding {

bool hasClaimVolume(const sh_pod& pod) noexcept {
  for (Volume vol : volumes(pod)) {
    if (vol.usesClaim()) {
      return true;
    }
  }
  return false;
}

std::string_view annotation(const Json& root, std::string_view key, bool* found) {
  Json value = root["metadata"]["annotations"][key];
  if (found != nullptr) {
    *found = value.isString();
  }
  return value.asString();
}

ClaimInfo readClaim(const Host& host, const Object& object) {
  ClaimInfo c;
  c.object = object;
  c.ns = std::string(object.ns());
  c.name = std::string(object.name());
  c.uid = std::string(object.uid());
  c.resourceVersion = std::string(object.resourceVersion());
  c.deleting = object.deleting();
  Json root = object.root();
  Json spec = root["spec"];
  c.annotations = root["metadata"]["annotations"].isObject();
  bool betaClass = false;
  std::string_view beta = annotation(root, kAnnBetaStorageClass, &betaClass);
  if (betaClass) {
    c.className = std::string(beta);
    c.hasClass = true;
  } else if (spec["storageClassName"].isString()) {
    c.className = std::string(spec["storageClassName"].asString());
    c.hasClass = true;
  }
  annotation(root, kAnnBindCompleted, &c.bindCompleted);
  c.selectedNode = std::string(annotation(root, kAnnSelectedNode, &c.hasSelectedNode));
  c.volumeName = std::string(spec["volumeName"].asString());
  c.volumeMode = spec["volumeMode"].isString() ? std::string(spec["volumeMode"].asString())
                                               : std::string("Filesystem");
  Json modes = spec["accessModes"];
  for (std::size_t i = 0; i < modes.size() && modes.isArray(); ++i) {
    c.accessModes.emplace_back(modes.at(i).asString());
  }
  Json storage = spec["resources"]["requests"]["storage"];
  c.hasRequest = storage.present() && !storage.isNull();
  std::string quantityError;
  c.request = Quantity::fromJson(storage, &quantityError);
  if (!quantityError.empty()) {
    c.malformed = "spec.resources.requests.storage: " + quantityError;
  }
  c.vac = std::string(spec["volumeAttributesClassName"].asString());
  Json selector = spec["selector"];
  c.hasSelector = selector.isObject();
  if (c.hasSelector) {
    c.selector = LabelSelector::read(host, selector);
  }
  c.phase = std::string(root["status"]["phase"].asString());
  return c;
}

std::string claimNotForPod(const sh_pod& pod, const Object& claim) {
  bool owned = false;
  if (claim.ns() == view(pod.namespace_)) {
    // metav1.IsControlledBy: the first owner reference that is the controller is the pod.
    Json refs = claim.path("metadata.ownerReferences");
    for (std::size_t i = 0; i < refs.size() && refs.isArray(); ++i) {
      if (refs.at(i)["controller"].asBool()) {
        owned = refs.at(i)["uid"].asString() == view(pod.uid);
        break;
      }
    }
  }
  if (owned) {
    return "";
  }
  return "PVC " + std::string(claim.ns()) + "/" + std::string(claim.name()) +
         " was not created for pod " + std::string(view(pod.namespace_)) + "/" +
         std::string(view(pod.name)) + " (pod is not owner)";
}

ClassInfo readClass(const Host& host, const Object& object) {
  ClassInfo c;
  if (!object.present()) {
    return c;
  }
  c.found = true;
  c.object = object;
  Json mode = object.root()["volumeBindingMode"];
  c.modeSet = mode.isString();
  c.waitForFirstConsumer = mode.asString() == "WaitForFirstConsumer";
  c.provisioner = std::string(object.root()["provisioner"].asString());
  c.allowedTopologies = TopologyTerms::read(host, object.root()["allowedTopologies"]);
  return c;
}

}  // namespace schedhost::plugins::volumebinding

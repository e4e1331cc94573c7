// The claims of a pod as the binder reads them: its PersistentVolumeClaims (persistentVolumeClaim
// and generic ephemeral volumes), read once per cycle into the fields the binder uses, and the
// StorageClasses they name. Upstream: volumebinding/volume_binding.go (podHasPVCs),
// binder.go (GetPodVolumeClaims, isVolumeBound, isPVCFullyBound) and component-helpers/storage
// (volume/helpers.go GetPersistentVolumeClaimClass, volume/pv_helpers.go IsDelayBindingMode,
// ephemeral/ephemeral.go VolumeIsForPod).
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_CLAIMS_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_CLAIMS_H

#include "quantity.h"
#include "selectors.h"

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::volumebinding {

// Annotations and names of component-helpers/storage/volume.
inline constexpr const char* kAnnBindCompleted = "pv.kubernetes.io/bind-completed";
inline constexpr const char* kAnnBoundByController = "pv.kubernetes.io/bound-by-controller";
inline constexpr const char* kAnnSelectedNode = "volume.kubernetes.io/selected-node";
inline constexpr const char* kAnnBetaStorageClass = "volume.beta.kubernetes.io/storage-class";
inline constexpr const char* kNotSupportedProvisioner = "kubernetes.io/no-provisioner";

// Whether the pod has a persistentVolumeClaim or ephemeral volume.
bool hasClaimVolume(const sh_pod& pod) noexcept;

// One PersistentVolumeClaim, read from the cycle's version (or the latest, during the wait).
struct ClaimInfo {
  Object object;  // the view it was read from
  std::string ns;
  std::string name;
  std::string uid;
  std::string resourceVersion;
  std::string volumeName;    // spec.volumeName
  std::string className;     // GetPersistentVolumeClaimClass
  bool hasClass = false;     // the beta annotation or spec.storageClassName is set
  bool annotations = false;  // metadata.annotations is set (Go: a non-nil map)
  bool bindCompleted = false;
  bool hasSelectedNode = false;
  std::string selectedNode;
  std::string volumeMode;  // spec.volumeMode, "Filesystem" when unset
  std::vector<std::string> accessModes;
  bool hasRequest = false;  // spec.resources.requests.storage is set
  Quantity request;
  std::string vac;  // spec.volumeAttributesClassName
  bool hasSelector = false;
  LabelSelector selector;
  std::string phase;  // status.phase
  bool deleting = false;
  std::string malformed;  // a field that does not parse, named: "" when all do

  // "namespace/name": upstream's getPVCName and claimToClaimKey.
  std::string key() const { return ns + "/" + name; }
  // isPVCFullyBound.
  bool fullyBound() const noexcept { return !volumeName.empty() && bindCompleted; }
};

ClaimInfo readClaim(const Host& host, const Object& object);

// ephemeral.VolumeIsForPod: "" when the claim is the pod's, else upstream's error.
std::string claimNotForPod(const sh_pod& pod, const Object& claim);

// One StorageClass.
struct ClassInfo {
  bool found = false;
  Object object;
  bool modeSet = false;               // volumeBindingMode is set
  bool waitForFirstConsumer = false;  // volumeBindingMode is WaitForFirstConsumer
  std::string provisioner;
  TopologyTerms allowedTopologies;
};

ClassInfo readClass(const Host& host, const Object& object);

// The value of annotation `key` of an object's JSON; `found` tells an empty value from none.
std::string_view annotation(const Json& root, std::string_view key, bool* found = nullptr);

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_CLAIMS_H

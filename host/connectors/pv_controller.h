// PvController: what kube-controller-manager's PersistentVolume controller and a dynamic
// provisioner do with the writes of VolumeBinding's PreBind, for clusters that run neither:
// the embedded cluster and the test API server. Reduced to the steps that make a claim Bound
// (upstream pkg/controller/volume/persistentvolume/pv_controller.go: syncUnboundClaim,
// bindVolumeToClaim, bindClaimToVolume; external-provisioner: provisionClaimOperation):
//
//   a claim annotated volume.kubernetes.io/selected-node, without a volume, whose class names a
//   provisioner other than kubernetes.io/no-provisioner
//       -> a volume "pvc-<claim uid>" is provisioned for it: the claim's request and access
//          modes, its class, the class's provisioner as a CSI driver, and node affinity to the
//          selected node's zone (topology.kubernetes.io/zone) when the node has one, else to
//          the node (kubernetes.io/hostname); then bound as below
//   a volume whose claimRef names a claim that is not yet bound to it (the scheduler's static
//   binding, or a volume just provisioned)
//       -> the volume gets the claim's uid in its claimRef and phase Bound; the claim gets
//          spec.volumeName, pv.kubernetes.io/bind-completed and
//          pv.kubernetes.io/bound-by-controller, the volume's capacity and phase Bound
//
// Pure: it reads the cluster through PvWorld and returns the objects to create or replace.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

namespace sh::connectors {

// The cluster as the controller reads it. Each answer is a whole object, or nullptr.
class PvWorld {
 public:
  virtual ~PvWorld() = default;
  virtual const boost::json::value* claim(std::string_view ns, std::string_view name) const = 0;
  virtual const boost::json::value* volume(std::string_view name) const = 0;
  virtual const boost::json::value* storageClass(std::string_view name) const = 0;
  // The node's labels; false when there is no such node.
  virtual bool nodeLabels(std::string_view name,
                          std::map<std::string, std::string, std::less<>>& out) const = 0;
};

struct PvControllerWrite {
  enum class Kind { kVolume, kClaim };
  Kind kind = Kind::kVolume;
  bool create = false;        // a new object; else the replacement of the stored one
  boost::json::value object;  // the whole object, status included
};

// What the controller does after `object`, a PersistentVolume (`isVolume`) or a
// PersistentVolumeClaim, was written. Empty when nothing is to be done.
std::vector<PvControllerWrite> reconcileAfterWrite(const boost::json::value& object, bool isVolume,
                                                   const PvWorld& world);

}  // namespace sh::connectors

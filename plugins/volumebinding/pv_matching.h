// PersistentVolumes as the binder matches them: each read once into what FindMatchingVolume and
// CheckNodeAffinity look at (kept across cycles while its resourceVersion holds), and the
// matching itself, split into what does not depend on the node (done once per claim in
// PreFilter: the candidates) and what does (done per node in Filter: node affinity, volumes
// already chosen, the smallest fit).
// Upstream: component-helpers/storage/volume/pv_helpers.go (FindMatchingVolume,
// CheckVolumeModeMismatches, CheckAccessModes, IsVolumeBoundToClaim) and volume/helpers.go
// (GetPersistentVolumeClass, CheckNodeAffinity).
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_PV_MATCHING_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_PV_MATCHING_H

#include "claims.h"
#include "csi_migration.h"
#include "node_affinity.h"
#include "quantity.h"

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

// One PersistentVolume, as read.
struct PvInfo {
  std::string name;
  std::string uid;
  std::string resourceVersion;
  std::string className;  // GetPersistentVolumeClass
  bool hasClaimRef = false;
  std::string claimName;
  std::string claimNamespace;
  std::string claimUid;
  Quantity capacity;       // spec.capacity.storage
  std::string malformed;   // a field that does not parse, named: "" when all do
  std::string volumeMode;  // "Filesystem" when unset
  std::vector<std::string> accessModes;
  std::string vac;    // spec.volumeAttributesClassName
  std::string phase;  // status.phase
  bool deleting = false;
  std::vector<sh_label> labels;  // metadata.labels by id (no text), for a claim's selector
  VolumeNodeAffinity affinity;
  CsiMigration migration;
};
using PvPtr = std::shared_ptr<const PvInfo>;

PvInfo readPv(const Host& host, const Object& object);

// A PersistentVolume of the cycle: its view (valid through the pod's binding cycle) and what
// was read from it.
struct PvRef {
  Object object;
  PvPtr info;
};

// PvInfo kept across cycles by name, reused while the resourceVersion is the same. Assumed
// versions are read afresh (two assumptions of one version may differ). Thread-safe.
class PvCache {
 public:
  explicit PvCache(Host host) : host_(host) {}
  PvPtr get(const Object& object);
  // Drops the volumes not looked at since the previous sweep.
  void sweep();

 private:
  struct Entry {
    PvPtr info;
    uint64_t seen = 0;
  };
  Host host_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;
  uint64_t epoch_ = 1;
};

// IsVolumeBoundToClaim.
bool volumeBoundToClaim(const PvInfo& pv, const ClaimInfo& claim) noexcept;
// CheckVolumeModeMismatches: true when they differ.
bool volumeModeMismatches(const ClaimInfo& claim, const PvInfo& pv) noexcept;
// CheckAccessModes: every mode of the claim is one of the volume's.
bool accessModesMatch(const ClaimInfo& claim, const PvInfo& pv) noexcept;

// A volume FindMatchingVolume may return for a claim on some node, in the order of the list
// it came from.
struct Candidate {
  PvRef pv;
  bool boundToClaim = false;  // pre-bound to the claim: returned (or not) whatever its size
};

// The node-independent part of FindMatchingVolume(claim, volumes, node, excluded, true, true):
// the volumes that pass every check but node affinity, in order. `error` is set when the
// claim's selector does not convert (upstream's error, returned when matching is attempted).
std::vector<Candidate> matchCandidates(const ClaimInfo& claim, const std::vector<PvRef>& volumes,
                                       std::string* error);

// The node-dependent rest: the volume chosen for the claim on a node with `labels`, skipping
// the names in `chosen`; nullptr when none.
const Candidate* findMatchingVolume(const std::vector<Candidate>& candidates, LabelView labels,
                                    const std::vector<std::string_view>& chosen) noexcept;

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_PV_MATCHING_H

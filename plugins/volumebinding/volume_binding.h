// VolumeBinding: a pod's PersistentVolumeClaims decide where it can run. A bound claim's volume
// must be reachable from the node (its node affinity); an unbound claim of a
// WaitForFirstConsumer class needs a free volume the node reaches, or a node its class can
// provision on (provisioner, allowedTopologies, CSI storage capacity). The node chosen, Reserve
// assumes the bindings (the volume's claimRef, the claim's selected-node annotation) and PreBind
// writes them, then waits until the PV controller and the provisioner have bound every claim.
//
// Extension points: PreFilter, Filter, PreScore, Score, Reserve (Unreserve), PreBind,
// EnqueueExtensions. Reads PersistentVolumeClaims and PersistentVolumes (writes both: update),
// StorageClasses, CSINodes, CSIDrivers and CSIStorageCapacities, declared kinds.
// Upstream: pkg/scheduler/framework/plugins/volumebinding/ (v1.36): volume_binding.go,
// binder.go, passive_assume_cache.go.
//
//   volume_binding.cc   construction, PreScore, Score, registration (volume_binding.go)
//   prefilter.cc        PreFilter: the claims of the pod (podHasPVCs, GetPodVolumeClaims)
//   filter.cc           Filter: the claims on one node (FindPodVolumes)
//   binder.cc           Reserve, Unreserve, PreBind (AssumePodVolumes, BindPodVolumes,
//                       checkBindings)
//   events.cc           EnqueueExtensions and queueing hints
//   claims.cc           reading claims and StorageClasses
//   pv_matching.cc      reading volumes, FindMatchingVolume
//   node_affinity.cc    a volume's node affinity (CheckNodeAffinity)
//   csi_migration.cc    the CSI translation of in-tree volumes
//   provisioning.cc     dynamic provisioning and storage capacity
//   selectors.cc        label requirements, selectors and topology terms
//   quantity.cc         resource.Quantity
//   json_value.cc       the JSON of the objects it writes
//   args.cc             VolumeBindingArgs
#ifndef SCHEDHOST_PLUGINS_VOLUMEBINDING_VOLUME_BINDING_H
#define SCHEDHOST_PLUGINS_VOLUMEBINDING_VOLUME_BINDING_H

#include "args.h"
#include "claims.h"
#include "provisioning.h"
#include "pv_matching.h"

#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace schedhost::plugins::volumebinding {

constexpr const char* kName = "VolumeBinding";

// Filter's reasons (binder.go ConflictReasons), UnschedulableAndUnresolvable.
constexpr char kErrReasonBindConflict[] =
    "node(s) didn't find available persistent volumes to bind";
constexpr char kErrReasonNodeConflict[] = "node(s) didn't match PersistentVolume's node affinity";
constexpr char kErrReasonNotEnoughSpace[] = "node(s) did not have enough free storage";
constexpr char kErrReasonPVNotExist[] =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
constexpr char kErrReasonImmediate[] = "pod has unbound immediate PersistentVolumeClaims";

// A claim whose volume is bound (PreFilter), with its volume when there is one.
struct BoundClaim {
  std::size_t claim = 0;  // index in CycleData::claims
  bool found = false;
  PvRef pv;
};

// An unbound claim of a WaitForFirstConsumer class.
struct UnboundClaim {
  std::size_t claim = 0;
  std::vector<Candidate> candidates;  // for a claim without a selected node
  std::string matchError;             // FindMatchingVolume's error for it
  ProvisionPlan provision;
};

// upstream PodVolumes: what Filter found on one node.
struct StaticBinding {
  std::size_t claim = 0;
  PvRef pv;
};
struct NodeVolumes {
  std::vector<StaticBinding> staticBindings;
  std::vector<std::size_t> dynamicProvisions;  // claim indexes
};

// One object Reserve assumed (or would write as it is) and PreBind writes.
struct PendingWrite {
  std::size_t claim = 0;  // the claim it binds or provisions
  std::string ns;
  std::string name;
  std::string baseVersion;  // the resourceVersion it was derived from
  std::string body;         // the object to PUT
  bool changed = false;     // the body differs from the stored object: the API gives it a
                            // new resourceVersion (an unchanged object keeps its own)
  bool assumed = false;     // object_assume took it (Unreserve restores it)
  bool written = false;     // the API accepted it (never restored then: the watch replaces it)
};

// The migrated-plugins annotation of every node's CSINode, by the node's interned name
// (sh_node.name_id), as of one version of the CSINode kind: read once per version instead of
// once per node in every cycle with an in-tree volume.
struct MigratedPlugins {
  uint64_t version = 0;
  std::unordered_map<sh_id, std::string> byNode;

  // The annotation of the CSINode of the node named `nameId`; "" without one.
  std::string_view of(sh_id nameId) const {
    auto it = byNode.find(nameId);
    return it == byNode.end() ? std::string_view() : std::string_view(it->second);
  }
};

// The cycle state (upstream stateData), written in PreFilter. Shared by every copy of the cycle
// state, as upstream's Clone returns itself.
struct CycleData {
  std::vector<ClaimInfo> claims;        // the pod's claims, in volume order
  std::vector<BoundClaim> bound;        // boundClaims
  std::vector<UnboundClaim> unbound;    // unboundClaimsDelayBinding, in volume order
  std::vector<std::size_t> matchOrder;  // into unbound: the claims to match, by request size
  bool anyMigratable = false;           // a bound volume is an in-tree one (CSI migration)
  std::shared_ptr<const MigratedPlugins> migrated;  // set when anyMigratable

  std::mutex mu;  // guards byNode: Filter runs concurrently
  std::map<std::string, NodeVolumes, std::less<>> byNode;  // podVolumesByNode
  // Every claim is bound: each node that passes Filter gets empty PodVolumes, so none is
  // stored (a map insert per node, for nothing) and nodeVolumes() answers kNoVolumes instead.
  bool boundOnly = false;
  // What Filter found on `node`: its entry of byNode, kNoVolumes for a boundOnly pod, nullptr
  // when the node did not pass Filter.
  const NodeVolumes* nodeVolumes(std::string_view node) const;

  // Reserve's outcome, for PreBind and Unreserve.
  bool allBound = false;
  bool nodeFound = false;
  std::vector<sh_label> nodeLabels;  // the node's labels at Reserve, text from the intern table
  std::vector<PendingWrite> volumeWrites;
  std::vector<PendingWrite> claimWrites;
};

class VolumeBinding : public PreFilterPlugin,
                      public FilterPlugin,
                      public PreScorePlugin,
                      public ScorePlugin,
                      public ReservePlugin,
                      public PreBindPlugin,
                      public EnqueueExtensions {
 public:
  // The declared kinds, by index.
  static constexpr uint32_t kClaims = 0;
  static constexpr uint32_t kVolumes = 1;
  static constexpr uint32_t kClasses = 2;
  static constexpr uint32_t kCsiNodes = 3;
  static constexpr uint32_t kCsiDrivers = 4;
  static constexpr uint32_t kCapacities = 5;
  static constexpr sh_object_kind kKinds[] = {
      objectKind("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", kNamespaced,
                 SH_VERB_UPDATE),
      objectKind("", "v1", "persistentvolumes", "PersistentVolume", kClusterScoped, SH_VERB_UPDATE),
      objectKind("storage.k8s.io", "v1", "storageclasses", "StorageClass", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "csinodes", "CSINode", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "csidrivers", "CSIDriver", kClusterScoped),
      objectKind("storage.k8s.io", "v1", "csistoragecapacities", "CSIStorageCapacity",
                 kNamespaced)};
  static constexpr const char* kDefaultArgsJson = kDefaultArgs;

  VolumeBinding(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
  Status reserve(Cycle& cycle, const sh_pod& pod, std::string_view node);
  void unreserve(Cycle& cycle, const sh_pod& pod, std::string_view node);
  Status preBind(Cycle& cycle, const sh_pod& pod, std::string_view node);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  CycleData* state(const Cycle& cycle) const noexcept;
  // PreFilter's parts.
  Status readClaims(Cycle& cycle, const sh_pod& pod, CycleData& data);
  Status sortClaims(Cycle& cycle, CycleData& data);
  ProvisionPlan planProvisioning(Cycle& cycle, const ClaimInfo& claim,
                                 std::map<std::string, std::shared_ptr<const ClassInfo>>& classes,
                                 std::vector<Object>& capacities, bool& capacitiesRead);
  std::shared_ptr<const ClassInfo> storageClass(
      Cycle& cycle, const std::string& name,
      std::map<std::string, std::shared_ptr<const ClassInfo>>& classes);
  // The node affinity a bound volume is checked with on a node whose CSINode has
  // `migratedPlugins`: its own, or its CSI translation's; nullptr with `error` set when the
  // translation fails.
  static const VolumeNodeAffinity* affinityOnNode(const PvInfo& pv,
                                                  std::string_view migratedPlugins,
                                                  std::string* error);
  // The latest CSINode annotation of a node (migrated plugins).
  std::string migratedPlugins(const Cycle* cycle, std::string_view node) const;
  // Every node's, as the cycle reads the CSINodes: the kept index while their version holds.
  std::shared_ptr<const MigratedPlugins> migratedByNode(const Cycle& cycle);
  // binder.go: assume an object after upstream's checks; restore what was assumed.
  Status assume(uint32_t kind, const PendingWrite& write);
  void revert(uint32_t kind, std::vector<PendingWrite>& writes, std::size_t from);
  // checkBindings: 1 when every claim is bound, 0 to wait, -1 with `error` to give up.
  int checkBindings(const CycleData& data, std::string_view node, std::string& error) const;

  Host host_;
  VolumeBindingArgs args_;
  sh_id stateKey_;
  std::unique_ptr<PvCache> volumes_;
  std::mutex sweepMu_;
  uint64_t listings_ = 0;
  std::mutex migratedMu_;
  std::shared_ptr<const MigratedPlugins> migrated_;  // the last index built
};

}  // namespace schedhost::plugins::volumebinding

#endif  // SCHEDHOST_PLUGINS_VOLUMEBINDING_VOLUME_BINDING_H

// VolumeBinding Filter: can the pod's claims be satisfied on this node? Bound claims need their
// volume's node affinity to admit the node; unbound ones a free volume the node reaches
// (smallest fit first), else a class that provisions there. What the node gets is kept for
// Reserve. Upstream: volume_binding.go (Filter) and binder.go (FindPodVolumes,
// checkBoundClaims, findMatchingVolumes, checkVolumeProvisions).
#include "volume_binding.h"

#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

const VolumeNodeAffinity* VolumeBinding::affinityOnNode(const PvInfo& pv,
                                                        std::string_view migratedPlugins,
                                                        std::string* error) {
  if (pv.migration.plugin.empty() || !pluginMigratedOnNode(pv.migration.plugin, migratedPlugins)) {
    return &pv.affinity;
  }
  if (!pv.migration.error.empty()) {
    *error = pv.migration.error;
    return nullptr;
  }
  return &pv.migration.affinity;
}

std::string VolumeBinding::migratedPlugins(const Cycle* cycle, std::string_view node) const {
  Object csiNode = cycle != nullptr ? host_.objectGet(*cycle, kCsiNodes, "", node)
                                    : host_.objectGet(kCsiNodes, "", node);
  return std::string(annotation(csiNode.root(), kMigratedPluginsAnnotation));
}

std::shared_ptr<const MigratedPlugins> VolumeBinding::migratedByNode(const Cycle& cycle) {
  const uint64_t version = host_.objectKindVersion(cycle, kCsiNodes);
  std::lock_guard<std::mutex> lock(migratedMu_);
  if (version != 0 && migrated_ != nullptr && migrated_->version == version) {
    return migrated_;
  }
  auto built = std::make_shared<MigratedPlugins>();
  built->version = version;
  for (Object csiNode : host_.objectList(cycle, kCsiNodes)) {
    std::string_view value = annotation(csiNode.root(), kMigratedPluginsAnnotation);
    if (!value.empty()) {
      built->byNode.emplace(host_.intern(csiNode.name()), std::string(value));
    }
  }
  if (version != 0) {
    migrated_ = built;  // 0 names no version (an older host): never kept
  }
  return built;
}

Status VolumeBinding::filter(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& nodeInfo) {
  CycleData* data = state(cycle);
  if (data == nullptr) {
    return Status::error("VolumeBinding: no PreFilter state in the cycle");
  }
  const sh_node& node = *nodeInfo.node;
  const std::string_view nodeName = view(node.name);
  const LabelView labels{node.labels, node.label_count};

  bool boundSatisfied = true;    // boundVolumesSatisfied
  bool boundFound = true;        // boundPVsFound
  bool unboundSatisfied = true;  // unboundVolumesSatisfied
  bool storageSufficient = true;
  NodeVolumes found;

  // checkBoundClaims: stops at the first claim whose volume is missing or out of reach.
  if (!data->bound.empty()) {
    std::string_view migrated;
    if (data->migrated != nullptr) {
      migrated = data->migrated->of(node.name_id);
    }
    for (const BoundClaim& b : data->bound) {
      if (!b.found) {
        boundFound = false;
        break;
      }
      std::string error;
      const VolumeNodeAffinity* affinity = affinityOnNode(*b.pv.info, migrated, &error);
      if (affinity == nullptr) {
        return Status::error(error);
      }
      if (!affinity->matches(labels)) {
        boundSatisfied = false;
        break;
      }
    }
  }

  if (!data->unbound.empty()) {
    std::vector<std::size_t> toProvision;  // into unbound
    bool otherNodeSelected = false;
    for (std::size_t k = 0; k < data->unbound.size(); ++k) {
      const ClaimInfo& claim = data->claims[data->unbound[k].claim];
      if (claim.hasSelectedNode) {
        if (claim.selectedNode != nodeName) {
          otherNodeSelected = true;  // provisioning was asked for another node: fast path
          break;
        }
        toProvision.push_back(k);
      }
    }
    if (otherNodeSelected) {
      unboundSatisfied = false;
    } else {
      std::vector<std::string_view> chosen;  // volumes taken by earlier claims of the pod
      for (std::size_t k : data->matchOrder) {
        const UnboundClaim& u = data->unbound[k];
        if (!u.matchError.empty()) {
          return Status::error(u.matchError);
        }
        const Candidate* match = findMatchingVolume(u.candidates, labels, chosen);
        if (match == nullptr) {
          unboundSatisfied = false;
          toProvision.push_back(k);
          continue;
        }
        chosen.emplace_back(match->pv.info->name);
        found.staticBindings.push_back(StaticBinding{u.claim, match->pv});
      }
      // checkVolumeProvisions decides for every claim left: its verdict replaces the match's.
      if (!toProvision.empty()) {
        unboundSatisfied = true;
        for (std::size_t k : toProvision) {
          const ProvisionPlan& plan = data->unbound[k].provision;
          if (!plan.error.empty()) {
            return Status::error(plan.error);
          }
          ProvisionOutcome outcome = checkProvision(plan, labels);
          if (outcome == ProvisionOutcome::kNotPossible) {
            unboundSatisfied = false;
            break;
          }
          if (outcome == ProvisionOutcome::kNoCapacity) {
            storageSufficient = false;
            break;
          }
          found.dynamicProvisions.push_back(data->unbound[k].claim);
        }
      }
    }
  }

  if (!boundSatisfied || !unboundSatisfied || !storageSufficient || !boundFound) {
    Status status(SH_UNSCHEDULABLE_AND_UNRESOLVABLE);
    if (!boundSatisfied) {
      status.addReason(kErrReasonNodeConflict);
    }
    if (!unboundSatisfied) {
      status.addReason(kErrReasonBindConflict);
    }
    if (!storageSufficient) {
      status.addReason(kErrReasonNotEnoughSpace);
    }
    if (!boundFound) {
      status.addReason(kErrReasonPVNotExist);
    }
    return status;
  }
  if (data->boundOnly) {
    return {};  // empty PodVolumes: nodeVolumes() answers them without an entry
  }
  std::lock_guard<std::mutex> lock(data->mu);
  data->byNode[std::string(nodeName)] = std::move(found);
  return {};
}

const NodeVolumes* CycleData::nodeVolumes(std::string_view node) const {
  static const NodeVolumes kNoVolumes;
  if (boundOnly) {
    return &kNoVolumes;
  }
  auto it = byNode.find(node);
  return it == byNode.end() ? nullptr : &it->second;
}

}  // namespace schedhost::plugins::volumebinding

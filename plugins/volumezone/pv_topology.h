// The zone and region labels of a PersistentVolume, as VolumeZone compares them with a node's.
// Upstream: volumezone/volume_zone.go (topologyLabels, translateToGALabel, getPVTopologies) and
// k8s.io/cloud-provider/volume/helpers (LabelZonesToSet).
#ifndef SCHEDHOST_PLUGINS_VOLUMEZONE_PV_TOPOLOGY_H
#define SCHEDHOST_PLUGINS_VOLUMEZONE_PV_TOPOLOGY_H

#include <schedhost/plugin.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::volumezone {

constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";

// One topology label: its key as text and interned, and the GA key a node may carry instead
// (translateToGALabel; the key itself for the GA labels).
struct TopologyLabel {
  std::string_view key;
  sh_id id;
  sh_id gaId;
};

// The four labels in upstream's order: beta zone, beta region, zone, region.
using TopologyLabels = std::array<TopologyLabel, 4>;
TopologyLabels makeTopologyLabels(const Host& host);

// pvTopology: one topology label of a PV and the set of zones (or regions) its value names.
struct PvTopology {
  std::string pvName;
  const TopologyLabel* label;       // into the plugin's TopologyLabels
  std::vector<std::string> values;  // sorted, unique

  bool operator==(const PvTopology& o) const {
    return pvName == o.pvName && label == o.label && values == o.values;
  }
};

// volumehelpers.LabelZonesToSet: the "__"-separated list `value` as a sorted set, each element
// with surrounding white space trimmed; nullopt when an element is empty (the label is then
// ignored, as upstream ignores a label it cannot parse).
std::optional<std::vector<std::string>> labelZonesToSet(std::string_view value);

// getPVTopologies: the PV's topology labels that parse, in the order of `labels`.
std::vector<PvTopology> pvTopologies(const TopologyLabels& labels, const Object& pv);

}  // namespace schedhost::plugins::volumezone

#endif  // SCHEDHOST_PLUGINS_VOLUMEZONE_PV_TOPOLOGY_H

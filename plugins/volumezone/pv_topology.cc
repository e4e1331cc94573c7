// The zone and region labels of a PersistentVolume. Upstream: volumezone/volume_zone.go and
// k8s.io/cloud-provider/volume/helpers/zones.go (LabelZonesToSet, stringToSet).
#include "pv_topology.h"

#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::volumezone {

namespace {

// cloudvolume.LabelMultiZoneDelimiter.
constexpr std::string_view kMultiZoneDelimiter = "__";

bool isSpace(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// strings.TrimSpace for the characters a label value can hold (label values are ASCII).
std::string_view trimSpace(std::string_view s) noexcept {
  while (!s.empty() && isSpace(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && isSpace(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

TopologyLabels makeTopologyLabels(const Host& host) {
  const sh_id betaZone = host.intern(kBetaZone);
  const sh_id betaRegion = host.intern(kBetaRegion);
  const sh_id zone = host.intern(kZone);
  const sh_id region = host.intern(kRegion);
  return {TopologyLabel{kBetaZone, betaZone, zone}, TopologyLabel{kBetaRegion, betaRegion, region},
          TopologyLabel{kZone, zone, zone}, TopologyLabel{kRegion, region, region}};
}

std::optional<std::vector<std::string>> labelZonesToSet(std::string_view value) {
  std::vector<std::string> out;
  for (;;) {
    const std::size_t at = value.find(kMultiZoneDelimiter);
    const std::string_view zone = trimSpace(value.substr(0, at));
    if (zone.empty()) {
      return std::nullopt;
    }
    out.emplace_back(zone);
    if (at == std::string_view::npos) {
      break;
    }
    value.remove_prefix(at + kMultiZoneDelimiter.size());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<PvTopology> pvTopologies(const TopologyLabels& labels, const Object& pv) {
  std::vector<PvTopology> out;
  for (const TopologyLabel& label : labels) {
    bool found = false;
    const std::string_view value = pv.label(label.key, &found);
    if (!found) {
      continue;
    }
    std::optional<std::vector<std::string>> zones = labelZonesToSet(value);
    if (!zones) {
      continue;  // upstream logs "failed to parse PV's topology label" and ignores the label
    }
    out.push_back(PvTopology{std::string(pv.name()), &label, std::move(*zones)});
  }
  return out;
}

}  // namespace schedhost::plugins::volumezone

// The CSI translation of in-tree PersistentVolumes, for their node affinity (upstream
// csi-translation-lib: plugins/{gce_pd,aws_ebs,azure_disk,openstack_cinder,portworx}.go and
// plugins/in_tree_volume.go).
#include "csi_migration.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

namespace {

constexpr const char* kZoneGA = "topology.kubernetes.io/zone";
constexpr const char* kZoneBeta = "failure-domain.beta.kubernetes.io/zone";
constexpr const char* kRegionGA = "topology.kubernetes.io/region";
constexpr const char* kRegionBeta = "failure-domain.beta.kubernetes.io/region";
constexpr const char* kMultiZoneDelimiter = "__";

using Labels = std::vector<std::pair<std::string, std::string>>;

std::optional<std::string> labelOf(const Labels& labels, std::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) {
      return v;
    }
  }
  return std::nullopt;
}

std::vector<std::string> split(std::string_view s, std::string_view sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, at - start));
    start = at + sep.size();
  }
}

std::string trimSpace(std::string_view s) {
  const char* ws = " \t\n\r\v\f";
  std::size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) {
    return std::string();
  }
  std::size_t e = s.find_last_not_of(ws);
  return std::string(s.substr(b, e - b + 1));
}

bool hasTerms(const NodeAffinityText& a) noexcept {
  return a.present && a.requiredPresent && !a.terms.empty();
}

// TopologyKeyExist.
bool keyExists(const NodeAffinityText& a, std::string_view key) {
  if (!hasTerms(a)) {
    return false;
  }
  for (const NodeAffinityText::Term& t : a.terms) {
    for (const RequirementText& r : t.expressions) {
      if (r.key == key) {
        return true;
      }
    }
  }
  return false;
}

// getTopologyValues: the unique values of `key`'s expressions, sorted.
std::vector<std::string> topologyValues(const NodeAffinityText& a, std::string_view key) {
  std::set<std::string> values;
  if (hasTerms(a)) {
    for (const NodeAffinityText::Term& t : a.terms) {
      for (const RequirementText& r : t.expressions) {
        if (r.key == key) {
          values.insert(r.values.begin(), r.values.end());
        }
      }
    }
  }
  return std::vector<std::string>(values.begin(), values.end());
}

// replaceTopology.
void replaceKey(NodeAffinityText& a, std::string_view oldKey, const std::string& newKey) {
  if (!hasTerms(a)) {
    return;
  }
  for (NodeAffinityText::Term& t : a.terms) {
    for (RequirementText& r : t.expressions) {
      if (r.key == oldKey) {
        r.key = newKey;
      }
    }
  }
}

// addTopology (its error, no valid zone, is ignored by its caller).
void addTopology(NodeAffinityText& a, const std::string& key, const std::vector<std::string>& in) {
  std::set<std::string> zones;
  for (const std::string& z : in) {
    std::string t = trimSpace(z);
    if (!t.empty()) {
      zones.insert(t);
    }
  }
  if (zones.empty()) {
    return;
  }
  a.present = true;
  a.requiredPresent = true;
  if (a.terms.empty()) {
    a.terms.emplace_back();
  }
  RequirementText r;
  r.key = key;
  r.op = "In";
  r.values.assign(zones.begin(), zones.end());
  r.valuesPresent = true;
  for (NodeAffinityText::Term& t : a.terms) {
    t.expressions.push_back(r);
  }
}

// translateTopologyFromInTreeToCSI.
void translateTopology(NodeAffinityText& a, const Labels& labels, const std::string& csiKey) {
  std::string zoneLabel = kZoneGA;
  std::string regionLabel = kRegionGA;
  if (keyExists(a, kZoneGA)) {
  } else if (keyExists(a, kZoneBeta)) {
    zoneLabel = kZoneBeta;
    regionLabel = kRegionBeta;
  } else if (labelOf(labels, kZoneGA)) {
  } else if (labelOf(labels, kZoneBeta)) {
    zoneLabel = kZoneBeta;
    regionLabel = kRegionBeta;
  }
  if (!topologyValues(a, zoneLabel).empty()) {
    replaceKey(a, zoneLabel, csiKey);
  } else if (std::optional<std::string> zones = labelOf(labels, zoneLabel)) {
    addTopology(a, csiKey, split(*zones, kMultiZoneDelimiter));
  }
  if (regionLabel == kRegionBeta && !topologyValues(a, kRegionBeta).empty()) {
    replaceKey(a, kRegionBeta, kRegionGA);
  }
}

// gceGetRegionFromZones.
std::string gceRegionError(const std::vector<std::string>& zones) {
  std::set<std::string> regions;
  for (const std::string& zone : zones) {
    std::vector<std::string> parts = split(zone, "-");
    if (parts.size() != 3) {
      return "zone in unexpected format, expected: {locale}-{region}-{zone}, got: " + zone;
    }
    regions.insert(parts[0] + "-" + parts[1]);
  }
  if (regions.size() != 1) {
    std::string set = "map[";
    bool first = true;
    for (const std::string& r : regions) {
      set += (first ? "" : " ") + r + ":{}";
      first = false;
    }
    return "multiple or no regions gotten from zones, got: " + set + "]";
  }
  return "";
}

int hexValue(char c) noexcept {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// KubernetesVolumeIDToEBSVolumeID: "" when the ID translates, else its error.
std::string ebsVolumeIdError(const std::string& id) {
  const std::string_view prefix = "aws://";
  if (id.compare(0, prefix.size(), prefix) != 0) {
    return "";  // a bare volume ID
  }
  for (char c : id) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return "Invalid disk name (" + id + "): parse \"" + id +
             "\": net/url: invalid control character in URL";
    }
  }
  // url.Parse: the path follows the host, up to a query or fragment, percent-decoded.
  std::string_view rest = std::string_view(id).substr(prefix.size());
  rest = rest.substr(0, std::min(rest.find('?'), rest.find('#')));
  const std::size_t slash = rest.find('/');
  std::string_view rawPath =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  std::string path;
  for (std::size_t i = 0; i < rawPath.size(); ++i) {
    if (rawPath[i] != '%') {
      path += rawPath[i];
      continue;
    }
    if (i + 2 >= rawPath.size() || hexValue(rawPath[i + 1]) < 0 || hexValue(rawPath[i + 2]) < 0) {
      std::string bad(rawPath.substr(i, std::min<std::size_t>(3, rawPath.size() - i)));
      return "Invalid disk name (" + id + "): parse \"" + id + "\": invalid URL escape \"" + bad +
             "\"";
    }
    path += static_cast<char>(hexValue(rawPath[i + 1]) * 16 + hexValue(rawPath[i + 2]));
    i += 2;
  }
  std::size_t b = path.find_first_not_of('/');
  std::size_t e = path.find_last_not_of('/');
  std::string awsId = b == std::string::npos ? std::string() : path.substr(b, e - b + 1);
  if (awsId.compare(0, 4, "vol-") != 0 || awsId.find('/', 4) != std::string::npos) {
    return "Invalid format for AWS volume (" + id + ")";
  }
  return "";
}

bool equalFold(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    char y = b[i] >= 'A' && b[i] <= 'Z' ? static_cast<char>(b[i] - 'A' + 'a') : b[i];
    if (x != y) {
      return false;
    }
  }
  return true;
}

}  // namespace

CsiMigration translateForMigration(const Host& host, const Json& pv, const Labels& labels,
                                   const NodeAffinityText& affinity) {
  CsiMigration m;
  Json spec = pv["spec"];
  NodeAffinityText translated = affinity;
  std::string error;
  if (spec["gcePersistentDisk"].isObject()) {
    m.plugin = "kubernetes.io/gce-pd";
    std::string zonesLabel = labelOf(labels, kZoneBeta).value_or("");
    if (zonesLabel.empty()) {
      zonesLabel = labelOf(labels, kZoneGA).value_or("");
    }
    std::vector<std::string> zones = split(zonesLabel, kMultiZoneDelimiter);
    if (zones.size() > 1) {
      std::string regionError = gceRegionError(zones);
      if (!regionError.empty()) {
        error = "failed to get region from zones: " + regionError;
      }
    }
    if (error.empty()) {
      translateTopology(translated, labels, "topology.gke.io/zone");
    }
  } else if (spec["awsElasticBlockStore"].isObject()) {
    m.plugin = "kubernetes.io/aws-ebs";
    std::string idError =
        ebsVolumeIdError(std::string(spec["awsElasticBlockStore"]["volumeID"].asString()));
    if (!idError.empty()) {
      error = "failed to translate Kubernetes ID to EBS Volume ID " + idError;
    } else {
      translateTopology(translated, labels, "topology.ebs.csi.aws.com/zone");
    }
  } else if (spec["azureDisk"].isObject()) {
    m.plugin = "kubernetes.io/azure-disk";
    Json kind = spec["azureDisk"]["kind"];
    if (kind.isString() && !equalFold(kind.asString(), "Managed")) {
      error = "kind(" + std::string(kind.asString()) + ") is not supported in csi migration";
    }
  } else if (spec["cinder"].isObject()) {
    m.plugin = "kubernetes.io/cinder";
    translateTopology(translated, labels, "topology.cinder.csi.openstack.org/zone");
  } else if (spec["portworxVolume"].isObject()) {
    m.plugin = "kubernetes.io/portworx-volume";
  }
  if (!error.empty()) {
    m.error = "could not translate pv: " + error;
  } else if (!m.plugin.empty()) {
    m.affinity = VolumeNodeAffinity::compile(host, translated);
  }
  return m;
}

bool pluginMigratedOnNode(std::string_view plugin, std::string_view annotation) noexcept {
  if (annotation.empty()) {
    return false;
  }
  std::size_t start = 0;
  while (true) {
    std::size_t comma = annotation.find(',', start);
    std::string_view item = annotation.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (item == plugin) {
      return true;
    }
    if (comma == std::string_view::npos) {
      return false;
    }
    start = comma + 1;
  }
}

}  // namespace schedhost::plugins::volumebinding

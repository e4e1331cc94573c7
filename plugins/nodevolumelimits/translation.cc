#include "translation.h"

#include "fields.h"

#include <array>
#include <set>
#include <vector>

namespace schedhost::plugins::nodevolumelimits {

namespace {

constexpr std::string_view kAwsEbsPlugin = "kubernetes.io/aws-ebs";
constexpr std::string_view kGcePdPlugin = "kubernetes.io/gce-pd";
constexpr std::string_view kCinderPlugin = "kubernetes.io/cinder";
constexpr std::string_view kAzureDiskPlugin = "kubernetes.io/azure-disk";
constexpr std::string_view kAzureFilePlugin = "kubernetes.io/azure-file";
constexpr std::string_view kVspherePlugin = "kubernetes.io/vsphere-volume";
constexpr std::string_view kPortworxPlugin = "kubernetes.io/portworx-volume";

constexpr std::array<InTreePlugin, 7> kPlugins = {{
    {kGcePdPlugin, "pd.csi.storage.gke.io", SH_VOLUME_GCE_PD, "gcePersistentDisk"},
    {kAwsEbsPlugin, "ebs.csi.aws.com", SH_VOLUME_AWS_EBS, "awsElasticBlockStore"},
    {kCinderPlugin, "cinder.csi.openstack.org", SH_VOLUME_CINDER, "cinder"},
    {kAzureDiskPlugin, "disk.csi.azure.com", SH_VOLUME_AZURE_DISK, "azureDisk"},
    {kAzureFilePlugin, "file.csi.azure.com", SH_VOLUME_AZURE_FILE, "azureFile"},
    {kVspherePlugin, "csi.vsphere.vmware.com", SH_VOLUME_VSPHERE, "vsphereVolume"},
    {kPortworxPlugin, "pxd.portworx.com", SH_VOLUME_PORTWORX, "portworxVolume"},
}};

// gce_pd.go: volIDZonalFmt, volIDRegionalFmt, UnspecifiedValue.
constexpr std::string_view kUnspecified = "UNSPECIFIED";
std::string gceZonalId(std::string_view zone, std::string_view pdName) {
  return "projects/" + std::string(kUnspecified) + "/zones/" + std::string(zone) + "/disks/" +
         std::string(pdName);
}
std::string gceRegionalId(std::string_view region, std::string_view pdName) {
  return "projects/" + std::string(kUnspecified) + "/regions/" + std::string(region) + "/disks/" +
         std::string(pdName);
}

// Go's strings.Split.
std::vector<std::string_view> split(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  for (std::size_t i = s.find(sep); i != std::string_view::npos; i = s.find(sep, at)) {
    out.push_back(s.substr(at, i - at));
    at = i + sep.size();
  }
  out.push_back(s.substr(at));
  return out;
}

// Go's fmt %v of a sets.String (a map, printed with sorted keys): "map[a:{} b:{}]".
std::string goSet(const std::set<std::string>& items) {
  std::string out = "map[";
  bool first = true;
  for (const std::string& s : items) {
    out += (first ? "" : " ") + s + ":{}";
    first = false;
  }
  return out + "]";
}

// gceGetRegionFromZones: every zone is <locale>-<region>-<zone>, all in one region.
Translation gceRegionFromZones(const std::vector<std::string_view>& zones) {
  if (zones.empty()) {
    return {"", "no zones specified"};
  }
  std::set<std::string> regions;
  for (std::string_view zone : zones) {
    std::vector<std::string_view> parts = split(zone, "-");
    if (parts.size() != 3) {
      return {"", "zone in unexpected format, expected: {locale}-{region}-{zone}, got: " +
                      std::string(zone)};
    }
    regions.insert(std::string(parts[0]) + "-" + std::string(parts[1]));
  }
  if (regions.size() != 1) {
    return {"", "multiple or no regions gotten from zones, got: " + goSet(regions)};
  }
  return {*regions.begin(), ""};
}

// strings.EqualFold for ASCII.
bool equalFold(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

// azure_disk.go: only managed disks migrate.
std::string azureKindError(std::string_view kind) {
  return "kind(" + std::string(kind) + ") is not supported in csi migration";
}

// ---- Go's url.Parse, as far as KubernetesVolumeIDToEBSVolumeID reaches it ------------------

bool isHex(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
int unhex(char c) noexcept { return c <= '9' ? c - '0' : (c >= 'a' ? c - 'a' + 10 : c - 'A' + 10); }
bool isAlnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

enum class Encoding { kPath, kHost, kUserPassword, kFragment };

// shouldEscape for the host: what a host may hold unescaped.
bool hostShouldEscape(char c) noexcept {
  if (isAlnum(c)) {
    return false;
  }
  switch (c) {
    case '!':
    case '$':
    case '&':
    case '\'':
    case '(':
    case ')':
    case '*':
    case '+':
    case ',':
    case ';':
    case '=':
    case ':':
    case '[':
    case ']':
    case '<':
    case '>':
    case '"':
    case '-':
    case '_':
    case '.':
    case '~':
      return false;
    default:
      return true;
  }
}

// unescape: the decoded text, or Go's error text ("invalid URL escape \"%zz\"").
Translation unescape(std::string_view s, Encoding mode) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        return {"", "invalid URL escape " + goQuote(s.substr(i, 3))};
      }
      if (mode == Encoding::kHost && unhex(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
        return {"", "invalid URL escape " + goQuote(s.substr(i, 3))};
      }
      out += static_cast<char>(unhex(s[i + 1]) * 16 + unhex(s[i + 2]));
      i += 3;
      continue;
    }
    if (mode == Encoding::kHost && static_cast<unsigned char>(c) < 0x80 && hostShouldEscape(c)) {
      return {"", "invalid character " + goQuote(s.substr(i, 1)) + " in host name"};
    }
    out += c;
    ++i;
  }
  return {out, ""};
}

// validOptionalPort: "" or ":" followed by digits.
bool validOptionalPort(std::string_view port) noexcept {
  if (port.empty()) {
    return true;
  }
  if (port[0] != ':') {
    return false;
  }
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

// parseHost, without the IPv6 zone and IP-literal checks.
std::string parseHostError(std::string_view host) {
  if (!host.empty() && host[0] == '[') {
    std::size_t close = host.rfind(']');
    if (close == std::string_view::npos) {
      return "missing ']' in host";
    }
    std::string_view colonPort = host.substr(close + 1);
    if (!validOptionalPort(colonPort)) {
      return "invalid port " + goQuote(colonPort) + " after host";
    }
  } else if (std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    std::string_view colonPort = host.substr(colon);
    if (!validOptionalPort(colonPort)) {
      return "invalid port " + goQuote(colonPort) + " after host";
    }
  }
  return unescape(host, Encoding::kHost).error;
}

bool validUserinfo(std::string_view s) noexcept {
  for (char c : s) {
    if (isAlnum(c)) {
      continue;
    }
    switch (c) {
      case '-':
      case '.':
      case '_':
      case ':':
      case '~':
      case '!':
      case '$':
      case '&':
      case '\'':
      case '(':
      case ')':
      case '*':
      case '+':
      case ',':
      case ';':
      case '=':
      case '%':
      case '@':
        continue;
      default:
        return false;
    }
  }
  return true;
}

// url.Parse of `raw`, which starts with "aws://": the unescaped path, or the *url.Error text
// (`parse "<url>": <cause>`).
Translation parseAwsUrlPath(std::string_view raw) {
  auto urlError = [](std::string_view url, const std::string& cause) {
    return Translation{"", "parse " + goQuote(url) + ": " + cause};
  };
  std::size_t hash = raw.find('#');
  std::string_view u = raw.substr(0, hash);
  for (char c : u) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return urlError(u, "net/url: invalid control character in URL");
    }
  }
  std::string_view rest = u.substr(4);  // after "aws:"
  if (!(rest.size() > 0 && rest.back() == '?' && rest.find('?') == rest.size() - 1)) {
    rest = rest.substr(0, rest.find('?'));
  } else {
    rest.remove_suffix(1);
  }
  std::string_view authority = rest.substr(2);
  std::string_view path;
  if (std::size_t slash = authority.find('/'); slash != std::string_view::npos) {
    path = authority.substr(slash);
    authority = authority.substr(0, slash);
  }
  std::size_t at = authority.rfind('@');
  std::string hostError =
      parseHostError(at == std::string_view::npos ? authority : authority.substr(at + 1));
  if (!hostError.empty()) {
    return urlError(u, hostError);
  }
  if (at != std::string_view::npos) {
    std::string_view userinfo = authority.substr(0, at);
    if (!validUserinfo(userinfo)) {
      return urlError(u, "net/url: invalid userinfo");
    }
    std::size_t colon = userinfo.find(':');
    Translation user = unescape(userinfo.substr(0, colon), Encoding::kUserPassword);
    if (!user.ok()) {
      return urlError(u, user.error);
    }
    if (colon != std::string_view::npos) {
      Translation password = unescape(userinfo.substr(colon + 1), Encoding::kUserPassword);
      if (!password.ok()) {
        return urlError(u, password.error);
      }
    }
  }
  Translation decoded = unescape(path, Encoding::kPath);
  if (!decoded.ok()) {
    return urlError(u, decoded.error);
  }
  if (hash != std::string_view::npos) {
    Translation fragment = unescape(raw.substr(hash + 1), Encoding::kFragment);
    if (!fragment.ok()) {
      return urlError(raw, fragment.error);
    }
  }
  return decoded;
}

// strings.Trim(s, "/").
std::string_view trimSlashes(std::string_view s) noexcept {
  while (!s.empty() && s.front() == '/') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == '/') {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

const InTreePlugin* pluginOfInlineSource(int32_t source) noexcept {
  for (const InTreePlugin& p : kPlugins) {
    if (p.inlineSource == source) {
      return &p;
    }
  }
  return nullptr;
}

const InTreePlugin* pluginNamed(std::string_view name) noexcept {
  for (const InTreePlugin& p : kPlugins) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

const InTreePlugin* pluginOfPersistentVolume(const Object& pv) noexcept {
  Json spec = pv.path("spec");
  for (const InTreePlugin& p : kPlugins) {
    Json source = spec.get(p.pvField);
    if (source.present() && !source.isNull()) {
      return &p;
    }
  }
  return nullptr;
}

bool isCSIMigrationOn(bool hasCsiNode, std::string_view pluginName) noexcept {
  if (!hasCsiNode || pluginName.empty()) {
    return false;
  }
  return pluginName == kAwsEbsPlugin || pluginName == kPortworxPlugin ||
         pluginName == kGcePdPlugin || pluginName == kAzureDiskPlugin ||
         pluginName == kCinderPlugin;
}

Translation ebsVolumeId(std::string_view kubernetesId) {
  constexpr std::string_view kScheme = "aws://";
  if (kubernetesId.substr(0, kScheme.size()) != kScheme) {
    // A bare volume id (vol-1234...).
    return {std::string(kubernetesId), ""};
  }
  Translation path = parseAwsUrlPath(kubernetesId);
  if (!path.ok()) {
    return {"", "Invalid disk name (" + std::string(kubernetesId) + "): " + path.error};
  }
  // awsVolumeRegMatch: ^vol-[^/]*$ (the trimmed path has no '/' at either end).
  std::string_view id = trimSlashes(path.handle);
  if (id.substr(0, 4) != "vol-" || id.find('/') != std::string_view::npos) {
    return {"", "Invalid format for AWS volume (" + std::string(kubernetesId) + ")"};
  }
  return {std::string(id), ""};
}

Translation translateInlineVolume(const sh_volume& vol, std::string_view azureDiskKind) {
  std::string_view handle = view(vol.handle);
  switch (vol.source) {
    case SH_VOLUME_AWS_EBS: {
      Translation id = ebsVolumeId(handle);
      if (!id.ok()) {
        id.error = "failed to translate Kubernetes ID to EBS Volume ID " + id.error;
      }
      return id;
    }
    case SH_VOLUME_GCE_PD:
      return {gceZonalId(kUnspecified, handle), ""};
    case SH_VOLUME_AZURE_DISK:
      if (!equalFold(azureDiskKind, "Managed")) {
        return {"", azureKindError(azureDiskKind)};
      }
      return {std::string(handle), ""};
    case SH_VOLUME_AZURE_FILE:
      return {"", ""};
    default:  // cinder, vsphereVolume, portworxVolume: the id as it is
      return {std::string(handle), ""};
  }
}

Translation translatePersistentVolume(const InTreePlugin& plugin, const Object& pv) {
  Fields f(pv, "PersistentVolume");
  const std::string source = "spec." + std::string(plugin.pvField);
  auto fieldError = [&f]() { return Translation{"", f.error()}; };
  if (plugin.name == kAwsEbsPlugin) {
    std::string_view volumeId = f.string(source + ".volumeID");
    if (!f.ok()) {
      return fieldError();
    }
    Translation id = ebsVolumeId(volumeId);
    if (!id.ok()) {
      id.error = "failed to translate Kubernetes ID to EBS Volume ID " + id.error;
    }
    return id;
  }
  if (plugin.name == kGcePdPlugin) {
    std::string_view pdName = f.string(source + ".pdName");
    if (!f.ok()) {
      return fieldError();
    }
    std::string_view zones = pv.label("failure-domain.beta.kubernetes.io/zone");
    if (zones.empty()) {
      zones = pv.label("topology.kubernetes.io/zone");
    }
    std::vector<std::string_view> list = split(zones, "__");  // labelMultiZoneDelimiter
    if (list.size() == 1 && !list[0].empty()) {
      return {gceZonalId(list[0], pdName), ""};
    }
    if (list.size() > 1) {
      Translation region = gceRegionFromZones(list);
      if (!region.ok()) {
        return {"", "failed to get region from zones: " + region.error};
      }
      return {gceRegionalId(region.handle, pdName), ""};
    }
    return {gceZonalId(kUnspecified, pdName), ""};
  }
  if (plugin.name == kAzureDiskPlugin) {
    std::string_view diskUri = f.string(source + ".diskURI");
    // API defaulting: an unset kind is "Shared".
    std::string_view kind = f.optionalString(source + ".kind").value_or("Shared");
    if (!f.ok()) {
      return fieldError();
    }
    if (!equalFold(kind, "Managed")) {
      return {"", azureKindError(kind)};
    }
    return {std::string(diskUri), ""};
  }
  // cinder and portworxVolume: volumeID as it is.
  std::string_view volumeId = f.string(source + ".volumeID");
  if (!f.ok()) {
    return fieldError();
  }
  return {std::string(volumeId), ""};
}

}  // namespace schedhost::plugins::nodevolumelimits

#include "host/config/profile_resolver.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/common/quoted.h"
#include "host/config/default_plugins.h"

namespace sh::config {

namespace {

constexpr int64_t kMaxNodeScore = 100;
constexpr int64_t kMaxTotalScore = std::numeric_limits<int64_t>::max();
constexpr std::string_view kAll = "*";

std::string pluginType(ExtensionPoint point) { return std::string(typeName(point)) + "Plugin"; }

// Everything resolve() needs to carry between its steps.
class Resolver {
 public:
  Resolver(const ProfileConfig& profile, const PluginCatalog& catalog, Diagnostics& diags)
      : profile_(profile),
        catalog_(catalog),
        diags_(diags),
        defaultKey_(profile.fieldKey("schedulerName")) {}

  ResolvedProfile run();

 private:
  // The key to report a problem with `field` of `ref` under; defaults have no key of their own.
  std::string keyOf(const PluginRef& ref, std::string_view field) const {
    return ref.key.empty() ? defaultKey_ : ArgNode::memberPath(ref.key, field);
  }
  ResolvedPlugin resolved(const PluginRef& ref) const {
    return ResolvedPlugin{ref.name, 0, ref.where, ref.key.empty() ? defaultKey_ : ref.key};
  }
  void collectNotInstalled();
  void checkPointLists();
  void checkMultiPoint();
  void expand(ExtensionPoint point);
  void assignScoreWeights();
  void checkCounts();
  void checkPluginConfig();
  void collectPlugins();
  std::shared_ptr<const ArgNode> effectiveArgs(const std::string& name);

  const ProfileConfig& profile_;
  const PluginCatalog& catalog_;
  Diagnostics& diags_;
  const std::string defaultKey_;

  Plugins merged_;
  ResolvedProfile out_;
  // The valid explicit entries of each point, after step 3.
  std::array<std::vector<const PluginRef*>, kExtensionPointCount> explicit_;
  std::array<bool, kExtensionPointCount> pointFailed_{};
  // The valid MultiPoint entries.
  std::vector<const PluginRef*> multiPoint_;
  std::set<const PluginRef*> reportedDuplicates_;
};

ResolvedProfile Resolver::run() {
  out_.schedulerName = profile_.schedulerName;
  out_.where = profile_.where;
  out_.key = profile_.key;
  out_.percentageOfNodesToScore = profile_.percentageOfNodesToScore;
  out_.libraries = profile_.libraries;

  merged_ = mergePlugins(defaultPlugins(catalog_, profile_.where), profile_.plugins);
  collectNotInstalled();
  checkPointLists();
  checkMultiPoint();
  for (ExtensionPoint point : kAllExtensionPoints) {
    expand(point);
  }
  assignScoreWeights();
  checkCounts();
  checkPluginConfig();
  collectPlugins();
  return std::move(out_);
}

// The default plugins the profile's MultiPoint does not disable but no installed file provides.
void Resolver::collectNotInstalled() {
  const std::vector<PluginRef>& disabled = profile_.plugins.multiPoint.disabled;
  for (const DefaultPlugin& plugin : defaultMultiPointPlugins()) {
    if (catalog_.find(plugin.name) != nullptr) {
      continue;
    }
    const bool off = std::any_of(disabled.begin(), disabled.end(), [&](const PluginRef& ref) {
      return ref.name == kAll || ref.name == plugin.name;
    });
    if (!off) {
      out_.notInstalled.emplace_back(plugin.name);
    }
  }
}

// Step 3, upstream's updatePluginList.
void Resolver::checkPointLists() {
  for (ExtensionPoint point : kAllExtensionPoints) {
    std::set<std::string, std::less<>> seen;
    for (const PluginRef& ref : merged_.at(point).enabled) {
      const CatalogEntry* entry = catalog_.find(ref.name);
      if (entry == nullptr) {
        diags_.error(ref.where, keyOf(ref, "name"),
                     "plugin " + sh::quoted(ref.name) + " does not exist");
        pointFailed_[indexOf(point)] = true;
        continue;
      }
      if ((entry->points & pointBit(point)) == 0) {
        diags_.error(ref.where, keyOf(ref, "name"),
                     "plugin " + sh::quoted(ref.name) + " does not extend " + pluginType(point));
        pointFailed_[indexOf(point)] = true;
        continue;
      }
      if (!seen.insert(ref.name).second) {
        diags_.error(ref.where, keyOf(ref, "name"),
                     "plugin " + sh::quoted(ref.name) + " already registered as " +
                         sh::quoted(pluginType(point)));
        pointFailed_[indexOf(point)] = true;
        continue;
      }
      explicit_[indexOf(point)].push_back(&ref);
    }
  }
}

void Resolver::checkMultiPoint() {
  for (const PluginRef& ref : merged_.multiPoint.enabled) {
    if (catalog_.find(ref.name) == nullptr) {
      diags_.error(ref.where, keyOf(ref, "name"),
                   "plugin " + sh::quoted(ref.name) + " does not exist");
      for (bool& failed : pointFailed_) {
        failed = true;  // any point could have been missing it
      }
      continue;
    }
    multiPoint_.push_back(&ref);
  }
}

// Step 4, upstream's expandMultiPointPlugins for one point.
void Resolver::expand(ExtensionPoint point) {
  std::vector<ResolvedPlugin>& result = out_.points[indexOf(point)];
  const std::vector<const PluginRef*>& explicitRefs = explicit_[indexOf(point)];
  std::set<std::string, std::less<>> disabled;
  for (const PluginRef& ref : merged_.at(point).disabled) {
    disabled.insert(ref.name);
  }
  const auto isExplicit = [&](std::string_view name) {
    return std::any_of(explicitRefs.begin(), explicitRefs.end(),
                       [&](const PluginRef* ref) { return ref->name == name; });
  };

  std::set<std::string, std::less<>> overrides;
  std::vector<const PluginRef*> fromMultiPoint;
  if (disabled.count(kAll) != 0) {
    spdlog::debug("profile \"{}\": MultiPoint expansion skipped at {}: all plugins are disabled",
                  profile_.schedulerName, typeName(point));
  } else {
    for (const PluginRef* ref : multiPoint_) {
      const CatalogEntry* entry = catalog_.find(ref->name);
      if ((entry->points & pointBit(point)) == 0 || disabled.count(ref->name) != 0) {
        continue;
      }
      if (isExplicit(ref->name)) {
        overrides.insert(ref->name);
        continue;
      }
      const bool duplicate =
          std::any_of(fromMultiPoint.begin(), fromMultiPoint.end(),
                      [&](const PluginRef* other) { return other->name == ref->name; });
      if (duplicate) {
        // Report a duplicated MultiPoint entry once, at the first point it reaches.
        if (reportedDuplicates_.insert(ref).second) {
          diags_.error(ref->where, keyOf(*ref, "name"),
                       "plugin " + sh::quoted(ref->name) + " already registered as " +
                           sh::quoted(pluginType(point)));
        }
        pointFailed_[indexOf(point)] = true;
        continue;
      }
      fromMultiPoint.push_back(ref);
    }
  }

  for (const PluginRef* ref : explicitRefs) {
    if (overrides.count(ref->name) != 0) {
      result.push_back(resolved(*ref));
    }
  }
  for (const PluginRef* ref : fromMultiPoint) {
    result.push_back(resolved(*ref));
  }
  for (const PluginRef* ref : explicitRefs) {
    if (overrides.count(ref->name) == 0) {
      result.push_back(resolved(*ref));
    }
  }
}

// Step 5, upstream's getScoreWeights.
void Resolver::assignScoreWeights() {
  std::map<std::string, int64_t, std::less<>> weights;
  int64_t total = 0;
  bool overflowed = false;
  const auto consider = [&](const PluginRef& ref) {
    const CatalogEntry* entry = catalog_.find(ref.name);
    if (entry == nullptr || (entry->points & pointBit(ExtensionPoint::kScore)) == 0 ||
        weights.count(ref.name) != 0) {
      return;
    }
    const int64_t weight = ref.weight == 0 ? 1 : ref.weight;
    weights.emplace(ref.name, weight);
    if (overflowed) {
      return;
    }
    // weight * 100 > max - total, without overflowing on the left.
    if (weight > (kMaxTotalScore - total) / kMaxNodeScore) {
      diags_.error(ref.where, keyOf(ref, "weight"), "total score of Score plugins could overflow");
      overflowed = true;
      return;
    }
    total += weight * kMaxNodeScore;
  };
  for (const PluginRef& ref : merged_.at(ExtensionPoint::kScore).enabled) {
    consider(ref);
  }
  for (const PluginRef& ref : merged_.multiPoint.enabled) {
    consider(ref);
  }
  for (ResolvedPlugin& plugin : out_.points[indexOf(ExtensionPoint::kScore)]) {
    const auto it = weights.find(plugin.name);
    plugin.weight = it == weights.end() ? 1 : it->second;
  }
}

// Step 6.
void Resolver::checkCounts() {
  const std::string name = sh::quoted(profile_.schedulerName);
  const auto& queueSort = out_.at(ExtensionPoint::kQueueSort);
  if (queueSort.size() != 1 && !pointFailed_[indexOf(ExtensionPoint::kQueueSort)]) {
    std::string message = "exactly one queueSort plugin is required for profile " + name +
                          ", got " + std::to_string(queueSort.size());
    for (std::size_t i = 0; i < queueSort.size(); ++i) {
      message += (i == 0 ? ": " : ", ") + sh::quoted(queueSort[i].name);
    }
    const bool hasSecond = queueSort.size() > 1;
    diags_.error(hasSecond ? queueSort[1].where : profile_.where,
                 hasSecond ? queueSort[1].key : defaultKey_, message);
  }
  if (out_.at(ExtensionPoint::kBind).empty() && !pointFailed_[indexOf(ExtensionPoint::kBind)]) {
    diags_.error(profile_.where, defaultKey_,
                 "at least one bind plugin is required for profile " + name);
  }
}

// pluginConfig may only name installed plugins. Upstream keeps the args of a name its registry
// lacks undecoded and never reads them; here a misspelt name would silently drop its args, so
// it is an error. Args for an installed plugin the profile does not enable are ignored, as
// upstream does.
void Resolver::checkPluginConfig() {
  for (const PluginConfigEntry& entry : profile_.pluginConfig) {
    if (catalog_.find(entry.name) == nullptr) {
      diags_.error(entry.where, ArgNode::memberPath(entry.key, "name"),
                   "pluginConfig for plugin " + sh::quoted(entry.name) + " in profile " +
                       sh::quoted(profile_.schedulerName) + ": plugin does not exist");
    }
  }
}

// Step 7.
void Resolver::collectPlugins() {
  for (ExtensionPoint point : kAllExtensionPoints) {
    for (const ResolvedPlugin& plugin : out_.at(point)) {
      auto it = std::find_if(out_.plugins.begin(), out_.plugins.end(),
                             [&](const EnabledPlugin& p) { return p.name == plugin.name; });
      if (it == out_.plugins.end()) {
        out_.plugins.push_back(EnabledPlugin{plugin.name, 0, nullptr});
        it = std::prev(out_.plugins.end());
      }
      it->points |= pointBit(point);
    }
  }
  for (EnabledPlugin& plugin : out_.plugins) {
    plugin.args = effectiveArgs(plugin.name);
  }
}

std::shared_ptr<const ArgNode> Resolver::effectiveArgs(const std::string& name) {
  const auto config = std::find_if(profile_.pluginConfig.begin(), profile_.pluginConfig.end(),
                                   [&](const PluginConfigEntry& e) { return e.name == name; });
  const bool configured = config != profile_.pluginConfig.end();
  const std::string path =
      configured ? ArgNode::memberPath(config->key, "args")
                 : ArgNode::memberPath(profile_.key, "pluginConfig") + "[" + name + "].args";
  const SourceLocation where{configured ? config->where.file : profile_.where.file, 0, 0};

  std::optional<ArgNode> defaults;
  const CatalogEntry* entry = catalog_.find(name);
  if (entry != nullptr && !entry->defaultArgsJson.empty()) {
    std::string error;
    defaults = ArgNode::fromJsonText(entry->defaultArgsJson, path, where, &error);
    if (!defaults) {
      diags_.error(configured ? config->where : profile_.where,
                   configured ? config->key : defaultKey_,
                   "plugin " + sh::quoted(name) + " has invalid default args: " + error);
    }
  }
  if (configured && config->args != nullptr) {
    if (defaults) {
      return std::make_shared<const ArgNode>(mergeDefaults(*defaults, *config->args));
    }
    return config->args;
  }
  if (defaults) {
    return std::make_shared<const ArgNode>(std::move(*defaults));
  }
  return std::make_shared<const ArgNode>(*ArgNode::fromJsonText("null", path, where));
}

}  // namespace

std::vector<std::string> ResolvedProfile::names(ExtensionPoint point) const {
  std::vector<std::string> out;
  for (const ResolvedPlugin& plugin : at(point)) {
    out.push_back(plugin.name);
  }
  return out;
}

int64_t ResolvedProfile::scoreWeight(std::string_view name) const {
  for (const ResolvedPlugin& plugin : at(ExtensionPoint::kScore)) {
    if (plugin.name == name) {
      return plugin.weight;
    }
  }
  return 0;
}

const EnabledPlugin* ResolvedProfile::plugin(std::string_view name) const {
  for (const EnabledPlugin& p : plugins) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

const ArgNode* ResolvedProfile::args(std::string_view name) const {
  const EnabledPlugin* p = plugin(name);
  return p != nullptr ? p->args.get() : nullptr;
}

Plugins defaultPlugins(const PluginCatalog& catalog, const SourceLocation& where) {
  Plugins plugins;
  for (const DefaultPlugin& plugin : defaultMultiPointPlugins()) {
    if (catalog.find(plugin.name) == nullptr) {
      spdlog::debug("default plugin \"{}\" is not installed; left out of the default set",
                    plugin.name);
      continue;
    }
    plugins.multiPoint.enabled.push_back(
        PluginRef{std::string(plugin.name), plugin.weight, where, std::string()});
  }
  return plugins;
}

PluginSet mergePluginSet(const PluginSet& defaults, const PluginSet& custom) {
  PluginSet out;
  std::set<std::string, std::less<>> disabled;
  for (const PluginRef& ref : custom.disabled) {
    out.disabled.push_back(ref);
    disabled.insert(ref.name);
  }
  for (const PluginRef& ref : defaults.disabled) {
    out.disabled.push_back(ref);
    disabled.insert(ref.name);
  }
  // Name -> index of its last custom entry, as upstream's map does.
  std::map<std::string, std::size_t, std::less<>> customIndex;
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    customIndex[custom.enabled[i].name] = i;
  }
  std::set<std::size_t> replaced;
  if (disabled.count(kAll) == 0) {
    for (const PluginRef& ref : defaults.enabled) {
      if (disabled.count(ref.name) != 0) {
        continue;
      }
      const auto it = customIndex.find(ref.name);
      if (it != customIndex.end()) {
        out.enabled.push_back(custom.enabled[it->second]);
        replaced.insert(it->second);
      } else {
        out.enabled.push_back(ref);
      }
    }
  }
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    if (replaced.count(i) == 0) {
      out.enabled.push_back(custom.enabled[i]);
    }
  }
  return out;
}

Plugins mergePlugins(const Plugins& defaults, const Plugins& custom) {
  Plugins out;
  for (ExtensionPoint point : kAllExtensionPoints) {
    out.at(point) = mergePluginSet(defaults.at(point), custom.at(point));
  }
  out.multiPoint = mergePluginSet(defaults.multiPoint, custom.multiPoint);
  return out;
}

ResolvedProfile resolve(const ProfileConfig& profile, const PluginCatalog& catalog,
                        Diagnostics& diags) {
  return Resolver(profile, catalog, diags).run();
}

std::vector<ResolvedProfile> resolveAll(const std::vector<ProfileConfig>& profiles,
                                        const PluginCatalog& catalog, Diagnostics& diags) {
  std::vector<ResolvedProfile> out;
  out.reserve(profiles.size());
  for (const ProfileConfig& profile : profiles) {
    out.push_back(resolve(profile, catalog, diags));
  }
  validateProfiles(out, diags);
  return out;
}

void validateProfiles(const std::vector<ResolvedProfile>& profiles, Diagnostics& diags) {
  const ResolvedProfile* first = nullptr;
  for (const ResolvedProfile& profile : profiles) {
    if (profile.at(ExtensionPoint::kQueueSort).size() != 1) {
      continue;  // already reported by resolve()
    }
    if (first == nullptr) {
      first = &profile;
      continue;
    }
    const ResolvedPlugin& want = first->at(ExtensionPoint::kQueueSort).front();
    const ResolvedPlugin& got = profile.at(ExtensionPoint::kQueueSort).front();
    if (want.name != got.name) {
      diags.error(got.where, got.key,
                  "queueSort plugin " + sh::quoted(got.name) + " of profile " +
                      sh::quoted(profile.schedulerName) + " differs from " + sh::quoted(want.name) +
                      " of profile " + sh::quoted(first->schedulerName) +
                      "; all profiles must use the same queueSort plugin");
      continue;
    }
    const ArgNode* wantArgs = first->args(want.name);
    const ArgNode* gotArgs = profile.args(got.name);
    if (wantArgs != nullptr && gotArgs != nullptr && !wantArgs->sameValue(*gotArgs)) {
      const bool located = gotArgs->where().hasPosition();
      diags.error(located ? gotArgs->where() : got.where, located ? gotArgs->path() : got.key,
                  "args of queueSort plugin " + sh::quoted(got.name) + " in profile " +
                      sh::quoted(profile.schedulerName) + " differ from those in profile " +
                      sh::quoted(first->schedulerName) +
                      "; all profiles must use the same queueSort plugin and args");
    }
  }
}

}  // namespace sh::config

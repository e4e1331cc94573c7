#include "host/config/profile_resolver.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/config/default_plugins.h"

namespace sh::config {

namespace {

constexpr int64_t kMaxNodeScore = 100;
constexpr int64_t kMaxTotalScore = std::numeric_limits<int64_t>::max();
constexpr std::string_view kAll = "*";

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string plugin_type(ExtensionPoint point) { return std::string(type_name(point)) + "Plugin"; }

// Everything resolve() needs to carry between its steps.
class Resolver {
 public:
  Resolver(const ProfileConfig& profile, const PluginCatalog& catalog, Diagnostics& diags)
      : profile_(profile),
        catalog_(catalog),
        diags_(diags),
        default_key_(profile.field_key("schedulerName")) {}

  ResolvedProfile run();

 private:
  // The key to report a problem with `field` of `ref` under; defaults have no key of their own.
  std::string key_of(const PluginRef& ref, std::string_view field) const {
    return ref.key.empty() ? default_key_ : ArgNode::member_path(ref.key, field);
  }
  ResolvedPlugin resolved(const PluginRef& ref) const {
    return ResolvedPlugin{ref.name, 0, ref.where, ref.key.empty() ? default_key_ : ref.key};
  }
  void check_point_lists();
  void check_multi_point();
  void expand(ExtensionPoint point);
  void assign_score_weights();
  void check_counts();
  void collect_plugins();
  std::shared_ptr<const ArgNode> effective_args(const std::string& name);

  const ProfileConfig& profile_;
  const PluginCatalog& catalog_;
  Diagnostics& diags_;
  const std::string default_key_;

  Plugins merged_;
  ResolvedProfile out_;
  // The valid explicit entries of each point, after step 3.
  std::array<std::vector<const PluginRef*>, kExtensionPointCount> explicit_;
  std::array<bool, kExtensionPointCount> point_failed_{};
  // The valid MultiPoint entries.
  std::vector<const PluginRef*> multi_point_;
  std::set<const PluginRef*> reported_duplicates_;
};

ResolvedProfile Resolver::run() {
  out_.scheduler_name = profile_.scheduler_name;
  out_.where = profile_.where;
  out_.key = profile_.key;
  out_.percentage_of_nodes_to_score = profile_.percentage_of_nodes_to_score;
  out_.libraries = profile_.libraries;

  merged_ = merge_plugins(default_plugins(catalog_, profile_.where), profile_.plugins);
  check_point_lists();
  check_multi_point();
  for (ExtensionPoint point : kAllExtensionPoints) {
    expand(point);
  }
  assign_score_weights();
  check_counts();
  collect_plugins();
  return std::move(out_);
}

// Step 3, upstream's updatePluginList.
void Resolver::check_point_lists() {
  for (ExtensionPoint point : kAllExtensionPoints) {
    std::set<std::string, std::less<>> seen;
    for (const PluginRef& ref : merged_.at(point).enabled) {
      const CatalogEntry* entry = catalog_.find(ref.name);
      if (entry == nullptr) {
        diags_.error(ref.where, key_of(ref, "name"),
                     "plugin " + in_quotes(ref.name) + " does not exist");
        point_failed_[index_of(point)] = true;
        continue;
      }
      if ((entry->points & point_bit(point)) == 0) {
        diags_.error(ref.where, key_of(ref, "name"),
                     "plugin " + in_quotes(ref.name) + " does not extend " + plugin_type(point));
        point_failed_[index_of(point)] = true;
        continue;
      }
      if (!seen.insert(ref.name).second) {
        diags_.error(ref.where, key_of(ref, "name"),
                     "plugin " + in_quotes(ref.name) + " already registered as " +
                         in_quotes(plugin_type(point)));
        point_failed_[index_of(point)] = true;
        continue;
      }
      explicit_[index_of(point)].push_back(&ref);
    }
  }
}

void Resolver::check_multi_point() {
  for (const PluginRef& ref : merged_.multi_point.enabled) {
    if (catalog_.find(ref.name) == nullptr) {
      diags_.error(ref.where, key_of(ref, "name"),
                   "plugin " + in_quotes(ref.name) + " does not exist");
      for (bool& failed : point_failed_) {
        failed = true;  // any point could have been missing it
      }
      continue;
    }
    multi_point_.push_back(&ref);
  }
}

// Step 4, upstream's expandMultiPointPlugins for one point.
void Resolver::expand(ExtensionPoint point) {
  std::vector<ResolvedPlugin>& result = out_.points[index_of(point)];
  const std::vector<const PluginRef*>& explicit_refs = explicit_[index_of(point)];
  std::set<std::string, std::less<>> disabled;
  for (const PluginRef& ref : merged_.at(point).disabled) {
    disabled.insert(ref.name);
  }
  const auto is_explicit = [&](std::string_view name) {
    return std::any_of(explicit_refs.begin(), explicit_refs.end(),
                       [&](const PluginRef* ref) { return ref->name == name; });
  };

  std::set<std::string, std::less<>> overrides;
  std::vector<const PluginRef*> from_multi_point;
  if (disabled.count(kAll) != 0) {
    spdlog::debug("profile \"{}\": MultiPoint expansion skipped at {}: all plugins are disabled",
                  profile_.scheduler_name, type_name(point));
  } else {
    for (const PluginRef* ref : multi_point_) {
      const CatalogEntry* entry = catalog_.find(ref->name);
      if ((entry->points & point_bit(point)) == 0 || disabled.count(ref->name) != 0) {
        continue;
      }
      if (is_explicit(ref->name)) {
        overrides.insert(ref->name);
        continue;
      }
      const bool duplicate =
          std::any_of(from_multi_point.begin(), from_multi_point.end(),
                      [&](const PluginRef* other) { return other->name == ref->name; });
      if (duplicate) {
        // Report a duplicated MultiPoint entry once, at the first point it reaches.
        if (reported_duplicates_.insert(ref).second) {
          diags_.error(ref->where, key_of(*ref, "name"),
                       "plugin " + in_quotes(ref->name) + " already registered as " +
                           in_quotes(plugin_type(point)));
        }
        point_failed_[index_of(point)] = true;
        continue;
      }
      from_multi_point.push_back(ref);
    }
  }

  for (const PluginRef* ref : explicit_refs) {
    if (overrides.count(ref->name) != 0) {
      result.push_back(resolved(*ref));
    }
  }
  for (const PluginRef* ref : from_multi_point) {
    result.push_back(resolved(*ref));
  }
  for (const PluginRef* ref : explicit_refs) {
    if (overrides.count(ref->name) == 0) {
      result.push_back(resolved(*ref));
    }
  }
}

// Step 5, upstream's getScoreWeights.
void Resolver::assign_score_weights() {
  std::map<std::string, int64_t, std::less<>> weights;
  int64_t total = 0;
  bool overflowed = false;
  const auto consider = [&](const PluginRef& ref) {
    const CatalogEntry* entry = catalog_.find(ref.name);
    if (entry == nullptr || (entry->points & point_bit(ExtensionPoint::kScore)) == 0 ||
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
      diags_.error(ref.where, key_of(ref, "weight"), "total score of Score plugins could overflow");
      overflowed = true;
      return;
    }
    total += weight * kMaxNodeScore;
  };
  for (const PluginRef& ref : merged_.at(ExtensionPoint::kScore).enabled) {
    consider(ref);
  }
  for (const PluginRef& ref : merged_.multi_point.enabled) {
    consider(ref);
  }
  for (ResolvedPlugin& plugin : out_.points[index_of(ExtensionPoint::kScore)]) {
    const auto it = weights.find(plugin.name);
    plugin.weight = it == weights.end() ? 1 : it->second;
  }
}

// Step 6.
void Resolver::check_counts() {
  const std::string name = in_quotes(profile_.scheduler_name);
  const auto& queue_sort = out_.at(ExtensionPoint::kQueueSort);
  if (queue_sort.size() != 1 && !point_failed_[index_of(ExtensionPoint::kQueueSort)]) {
    std::string message = "exactly one queueSort plugin is required for profile " + name +
                          ", got " + std::to_string(queue_sort.size());
    for (std::size_t i = 0; i < queue_sort.size(); ++i) {
      message += (i == 0 ? ": " : ", ") + in_quotes(queue_sort[i].name);
    }
    const bool has_second = queue_sort.size() > 1;
    diags_.error(has_second ? queue_sort[1].where : profile_.where,
                 has_second ? queue_sort[1].key : default_key_, message);
  }
  if (out_.at(ExtensionPoint::kBind).empty() && !point_failed_[index_of(ExtensionPoint::kBind)]) {
    diags_.error(profile_.where, default_key_,
                 "at least one bind plugin is required for profile " + name);
  }
}

// Step 7.
void Resolver::collect_plugins() {
  for (ExtensionPoint point : kAllExtensionPoints) {
    for (const ResolvedPlugin& plugin : out_.at(point)) {
      auto it = std::find_if(out_.plugins.begin(), out_.plugins.end(),
                             [&](const EnabledPlugin& p) { return p.name == plugin.name; });
      if (it == out_.plugins.end()) {
        out_.plugins.push_back(EnabledPlugin{plugin.name, 0, nullptr});
        it = std::prev(out_.plugins.end());
      }
      it->points |= point_bit(point);
    }
  }
  for (EnabledPlugin& plugin : out_.plugins) {
    plugin.args = effective_args(plugin.name);
  }
}

std::shared_ptr<const ArgNode> Resolver::effective_args(const std::string& name) {
  const auto config = std::find_if(profile_.plugin_config.begin(), profile_.plugin_config.end(),
                                   [&](const PluginConfigEntry& e) { return e.name == name; });
  const bool configured = config != profile_.plugin_config.end();
  const std::string path =
      configured ? ArgNode::member_path(config->key, "args")
                 : ArgNode::member_path(profile_.key, "pluginConfig") + "[" + name + "].args";
  const SourceLocation where{configured ? config->where.file : profile_.where.file, 0, 0};

  std::optional<ArgNode> defaults;
  const CatalogEntry* entry = catalog_.find(name);
  if (entry != nullptr && !entry->default_args_json.empty()) {
    std::string error;
    defaults = ArgNode::from_json_text(entry->default_args_json, path, where, &error);
    if (!defaults) {
      diags_.error(configured ? config->where : profile_.where,
                   configured ? config->key : default_key_,
                   "plugin " + in_quotes(name) + " has invalid default args: " + error);
    }
  }
  if (configured && config->args != nullptr) {
    if (defaults) {
      return std::make_shared<const ArgNode>(merge_defaults(*defaults, *config->args));
    }
    return config->args;
  }
  if (defaults) {
    return std::make_shared<const ArgNode>(std::move(*defaults));
  }
  return std::make_shared<const ArgNode>(*ArgNode::from_json_text("null", path, where));
}

}  // namespace

std::vector<std::string> ResolvedProfile::names(ExtensionPoint point) const {
  std::vector<std::string> out;
  for (const ResolvedPlugin& plugin : at(point)) {
    out.push_back(plugin.name);
  }
  return out;
}

int64_t ResolvedProfile::score_weight(std::string_view name) const {
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

Plugins default_plugins(const PluginCatalog& catalog, const SourceLocation& where) {
  Plugins plugins;
  for (const DefaultPlugin& plugin : default_multi_point_plugins()) {
    if (catalog.find(plugin.name) == nullptr) {
      spdlog::debug("default plugin \"{}\" is not installed; left out of the default set",
                    plugin.name);
      continue;
    }
    plugins.multi_point.enabled.push_back(
        PluginRef{std::string(plugin.name), plugin.weight, where, std::string()});
  }
  return plugins;
}

PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom) {
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
  std::map<std::string, std::size_t, std::less<>> custom_index;
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    custom_index[custom.enabled[i].name] = i;
  }
  std::set<std::size_t> replaced;
  if (disabled.count(kAll) == 0) {
    for (const PluginRef& ref : defaults.enabled) {
      if (disabled.count(ref.name) != 0) {
        continue;
      }
      const auto it = custom_index.find(ref.name);
      if (it != custom_index.end()) {
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

Plugins merge_plugins(const Plugins& defaults, const Plugins& custom) {
  Plugins out;
  for (ExtensionPoint point : kAllExtensionPoints) {
    out.at(point) = merge_plugin_set(defaults.at(point), custom.at(point));
  }
  out.multi_point = merge_plugin_set(defaults.multi_point, custom.multi_point);
  return out;
}

ResolvedProfile resolve(const ProfileConfig& profile, const PluginCatalog& catalog,
                        Diagnostics& diags) {
  return Resolver(profile, catalog, diags).run();
}

std::vector<ResolvedProfile> resolve_all(const std::vector<ProfileConfig>& profiles,
                                         const PluginCatalog& catalog, Diagnostics& diags) {
  std::vector<ResolvedProfile> out;
  out.reserve(profiles.size());
  for (const ProfileConfig& profile : profiles) {
    out.push_back(resolve(profile, catalog, diags));
  }
  validate_profiles(out, diags);
  return out;
}

void validate_profiles(const std::vector<ResolvedProfile>& profiles, Diagnostics& diags) {
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
                  "queueSort plugin " + in_quotes(got.name) + " of profile " +
                      in_quotes(profile.scheduler_name) + " differs from " + in_quotes(want.name) +
                      " of profile " + in_quotes(first->scheduler_name) +
                      "; all profiles must use the same queueSort plugin");
      continue;
    }
    const ArgNode* want_args = first->args(want.name);
    const ArgNode* got_args = profile.args(got.name);
    if (want_args != nullptr && got_args != nullptr && !want_args->same_value(*got_args)) {
      const bool located = got_args->where().has_position();
      diags.error(located ? got_args->where() : got.where, located ? got_args->path() : got.key,
                  "args of queueSort plugin " + in_quotes(got.name) + " in profile " +
                      in_quotes(profile.scheduler_name) + " differ from those in profile " +
                      in_quotes(first->scheduler_name) +
                      "; all profiles must use the same queueSort plugin and args");
    }
  }
}

}  // namespace sh::config

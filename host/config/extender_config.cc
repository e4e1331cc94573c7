#include "host/config/extender_config.h"

#include <algorithm>
#include <filesystem>
#include <iterator>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <set>

#include <schedhost/helpers/names.hpp>

#include "host/config/host_config.h"

namespace sh::config {
namespace {

void readFlag(TableReader& reader, std::string_view field, bool& target) {
  if (const std::optional<bool> v = reader.boolean(field)) {
    target = *v;
  }
}

void readText(TableReader& reader, std::string_view field, std::string& target) {
  if (auto v = reader.string(field)) {
    target = std::move(*v);
  }
}

std::string resolved(const std::string& file, const std::string& base) {
  const std::filesystem::path p(file);
  return file.empty() || p.is_absolute() || base.empty() ? file : (base / p).string();
}

void readTls(TableReader& top, ExtenderConfig::Tls& out, const std::string& base) {
  const TomlValue* table = top.table("tlsConfig");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("tlsConfig"), top.diags());
  readFlag(reader, "insecure", out.insecure);
  readText(reader, "serverName", out.serverName);
  readText(reader, "certFile", out.certFile);
  readText(reader, "keyFile", out.keyFile);
  readText(reader, "caFile", out.caFile);
  readText(reader, "certData", out.certData);
  readText(reader, "keyData", out.keyData);
  readText(reader, "caData", out.caData);
  out.certFile = resolved(out.certFile, base);
  out.keyFile = resolved(out.keyFile, base);
  out.caFile = resolved(out.caFile, base);
  reader.finish();
}

// upstream validateExtendedResourceName: a qualified name that is an extended resource (a
// domain prefix other than kubernetes.io, and not a quota's "requests." name).
void checkResourceName(const std::string& name, const SourceLocation& where,
                       const std::string& path, Diagnostics& diags) {
  const std::vector<std::string> problems = schedhost::qualifiedNameErrors(name);
  for (const std::string& p : problems) {
    diags.error(where, path, "Invalid value: \"" + name + "\": " + p);
  }
  if (problems.empty() && !schedhost::isExtendedResourceName(name)) {
    diags.error(where, path,
                "Invalid value: \"" + name + "\": is an invalid extended resource name");
  }
}

ExtenderConfig readOne(TableReader& reader, const std::string& base,
                       std::set<std::string>& managedNames) {
  Diagnostics& diags = reader.diags();
  ExtenderConfig out;
  const auto errorAt = [&](std::string_view field, std::string message) {
    const TomlValue* v = reader.find(field);
    diags.error(v != nullptr ? locationOf(*v) : reader.where(), reader.pathOf(field),
                std::move(message));
  };
  readText(reader, "urlPrefix", out.urlPrefix);
  if (out.urlPrefix.rfind("http://", 0) != 0 && out.urlPrefix.rfind("https://", 0) != 0) {
    errorAt("urlPrefix",
            out.urlPrefix.empty()
                ? "required: the extender's URL, such as \"http://127.0.0.1:8888/scheduler\""
                : "\"" + out.urlPrefix + "\" is not an http:// or https:// URL");
  }
  readText(reader, "filterVerb", out.filterVerb);
  readText(reader, "preemptVerb", out.preemptVerb);
  readText(reader, "prioritizeVerb", out.prioritizeVerb);
  readText(reader, "bindVerb", out.bindVerb);
  if (auto w = reader.integer("weight")) {
    out.weight = *w;
  }
  if (!out.prioritizeVerb.empty() && out.weight <= 0) {
    errorAt("weight", "Invalid value: " + std::to_string(out.weight) +
                          ": must have a positive weight applied to it");
  }
  readFlag(reader, "enableHTTPS", out.enableHttps);
  readTls(reader, out.tls, base);
  if (auto text = reader.string("httpTimeout")) {
    std::string error;
    const auto d = parseGoDuration(*text, error);
    if (!d) {
      errorAt("httpTimeout", error);
    } else if (*d < std::chrono::nanoseconds(0)) {
      errorAt("httpTimeout", "must not be negative, got \"" + *text + "\"");
    } else if (d->count() != 0) {  // 0: upstream's default of 5s
      out.httpTimeout = std::max(std::chrono::milliseconds(1),
                                 std::chrono::duration_cast<std::chrono::milliseconds>(*d));
    }
  }
  readFlag(reader, "nodeCacheCapable", out.nodeCacheCapable);
  readFlag(reader, "ignorable", out.ignorable);
  if (const TomlValue* list = reader.array("managedResources")) {
    std::size_t j = 0;
    for (const TomlValue& item : list->as_array()) {
      const std::string path = reader.pathOf("managedResources") + "[" + std::to_string(j++) + "]";
      if (!item.is_table()) {
        TableReader::wrongType(diags, item, path, "a table");
        continue;
      }
      TableReader r(item, path, diags);
      ExtenderConfig::ManagedResource resource;
      readText(r, "name", resource.name);
      readFlag(r, "ignoredByScheduler", resource.ignoredByScheduler);
      const TomlValue* nameValue = r.find("name");
      const SourceLocation where = nameValue != nullptr ? locationOf(*nameValue) : r.where();
      checkResourceName(resource.name, where, r.pathOf("name"), diags);
      if (!managedNames.insert(resource.name).second) {
        diags.error(
            where, r.pathOf("name"),
            "Invalid value: \"" + resource.name + "\": duplicate extender managed resource name");
      }
      r.finish();
      out.managedResources.push_back(std::move(resource));
    }
  }
  reader.finish();
  return out;
}

}  // namespace

std::vector<ExtenderConfig> readExtenders(TableReader& top, const std::string& base,
                                          Diagnostics& diags) {
  std::vector<ExtenderConfig> out;
  const TomlValue* list = top.array("extenders");
  if (list == nullptr) {
    return out;
  }
  std::set<std::string> managedNames;  // across every extender, as upstream checks them
  int binders = 0;
  std::size_t i = 0;
  for (const TomlValue& item : list->as_array()) {
    const std::string path = top.pathOf("extenders") + "[" + std::to_string(i++) + "]";
    if (!item.is_table()) {
      TableReader::wrongType(diags, item, path, "a table");
      continue;
    }
    TableReader reader(item, path, diags);
    out.push_back(readOne(reader, base, managedNames));
    if (!out.back().bindVerb.empty()) {
      ++binders;
    }
  }
  if (binders > 1) {
    diags.error(locationOf(*list), top.pathOf("extenders"),
                "Invalid value: \"found " + std::to_string(binders) +
                    " extenders implementing bind\": only one extender can implement bind");
  }
  return out;
}

std::vector<std::string> extenderIgnoredResources(const std::vector<ExtenderConfig>& extenders) {
  std::vector<std::string> out;
  for (const ExtenderConfig& e : extenders) {
    for (const ExtenderConfig::ManagedResource& r : e.managedResources) {
      if (r.ignoredByScheduler) {
        out.push_back(r.name);
      }
    }
  }
  return out;
}

void applyExtenderIgnoredResources(const std::vector<ExtenderConfig>& extenders,
                                   std::vector<ProfileConfig>& profiles) {
  const std::vector<std::string> names = extenderIgnoredResources(extenders);
  if (names.empty()) {
    return;
  }
  boost::json::array list;
  for (const std::string& n : names) {
    list.emplace_back(n);
  }
  for (ProfileConfig& profile : profiles) {
    auto it = std::find_if(profile.pluginConfig.begin(), profile.pluginConfig.end(),
                           [](const PluginConfigEntry& e) { return e.name == "NodeResourcesFit"; });
    if (it == profile.pluginConfig.end()) {
      PluginConfigEntry entry;
      entry.name = "NodeResourcesFit";
      entry.key = "extenders[].managedResources (ignoredByScheduler)";
      profile.pluginConfig.push_back(std::move(entry));
      it = std::prev(profile.pluginConfig.end());
    }
    boost::json::object args;
    if (it->args != nullptr && it->args->isObject()) {
      args = it->args->toJson().as_object();
    }
    args["ignoredResources"] = list;
    it->args = std::make_shared<const ArgNode>(boost::json::value(std::move(args)),
                                               it->key + ".args", it->where);
  }
}

}  // namespace sh::config

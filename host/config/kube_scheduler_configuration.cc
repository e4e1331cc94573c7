#include "host/config/kube_scheduler_configuration.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>

#include "host/config/toml_reader.h"

namespace sh::config {

namespace {

// The deepest nesting a KubeSchedulerConfiguration needs is about ten levels (profiles, a
// plugin's args with their own lists of tables); anything much deeper is not a configuration.
constexpr int kMaxDepth = 64;
// Values visited, aliases expanded: a few hundred in a real file. A YAML alias bomb expands
// to billions; the count stops it long before memory does.
constexpr std::size_t kMaxValues = 200'000;

constexpr std::array kTopLevelFields = {
    "apiVersion",
    "kind",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "enableProfiling",
    "enableContentionProfiling",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
    "delayCacheUntilActive",
};
constexpr std::array kProfileFields = {"schedulerName", "percentageOfNodesToScore", "plugins",
                                       "pluginConfig"};

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A TOML key: bare when it can be, quoted otherwise.
std::string tomlKey(std::string_view key) {
  const bool bare = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
  if (bare) {
    return std::string(key);
  }
  std::string out = "\"";
  for (const char c : key) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7F) {
      std::array<char, 8> buf{};
      std::snprintf(buf.data(), buf.size(), "\\u%04X", u);
      out += buf.data();
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string tomlString(std::string_view text) {
  std::string quoted = tomlKey(text);
  if (quoted.front() != '"') {
    quoted = "\"" + quoted + "\"";
  }
  return quoted;
}

bool matchesInteger(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return i < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(),
                                     [](char c) { return c >= '0' && c <= '9'; });
}

bool matchesFloat(const std::string& s) {
  // YAML 1.2 core schema: [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  std::size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    ++i;
    ++digits;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
      ++digits;
    }
  }
  if (digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      ++i;
    }
    std::size_t exponent = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      ++i;
      ++exponent;
    }
    if (exponent == 0) {
      return false;
    }
  }
  return i == s.size();
}

std::string tomlFloat(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value < 0 ? "-inf" : "inf";
  }
  std::array<char, 40> buf{};
  std::snprintf(buf.data(), buf.size(), "%.17g", value);
  std::string out = buf.data();
  if (out.find_first_of(".e") == std::string::npos) {
    out += ".0";
  }
  return out;
}

class Translator {
 public:
  Translator(const std::string& file, Diagnostics& diags) : file_(file), diags_(diags) {}

  TranslatedConfig take() { return std::move(out_); }
  bool failed() const { return failed_; }

  SourceLocation at(const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) {
      return SourceLocation{file_, 0, 0};
    }
    return SourceLocation{file_, mark.line + 1, mark.column + 1};
  }

  void error(const YAML::Node& node, const std::string& path, std::string message) {
    diags_.error(at(node), path, std::move(message));
    failed_ = true;
  }

  // The top of the document: apiVersion and kind checked and left out, the other fields
  // translated as the top-level table.
  void document(const YAML::Node& root) {
    if (!root.IsMap()) {
      error(root, "",
            "expected a KubeSchedulerConfiguration object (a mapping), got " + describe(root));
      return;
    }
    const YAML::Node apiVersion = root["apiVersion"];
    const YAML::Node kind = root["kind"];
    const auto scalarOf = [](const YAML::Node& n) {
      return n.IsScalar() ? n.Scalar() : std::string();
    };
    if (!apiVersion || apiVersion.IsNull()) {
      error(root, "apiVersion",
            "missing: a KubeSchedulerConfiguration names apiVersion \"" +
                std::string(kKubeSchedulerConfigApiVersion) + "\"");
    } else if (scalarOf(apiVersion) != kKubeSchedulerConfigApiVersion) {
      const std::string got = scalarOf(apiVersion);
      std::string message = "\"" + got + "\" is not served by kube-scheduler v1.36";
      if (got.rfind("kubescheduler.config.k8s.io/", 0) == 0) {
        message += " (removed; upstream's migration guide moves such a file to v1)";
      }
      error(apiVersion, "apiVersion",
            message + ": the version is \"" + std::string(kKubeSchedulerConfigApiVersion) + "\"");
    }
    if (!kind || kind.IsNull()) {
      error(root, "kind", "missing: the kind is \"" + std::string(kKubeSchedulerConfigKind) + "\"");
    } else if (scalarOf(kind) != kKubeSchedulerConfigKind) {
      error(kind, "kind",
            "\"" + scalarOf(kind) + "\" is not a kind of " +
                std::string(kKubeSchedulerConfigApiVersion) + ": the kind is \"" +
                std::string(kKubeSchedulerConfigKind) + "\"");
    }
    std::vector<std::string> skip = onlyFields(root, "", kTopLevelFields);
    skip.emplace_back("apiVersion");
    skip.emplace_back("kind");
    table(root, "", "", skip, 0);
  }

 private:
  static std::string describe(const YAML::Node& node) {
    switch (node.Type()) {
      case YAML::NodeType::Map:
        return "a mapping";
      case YAML::NodeType::Sequence:
        return "a list";
      case YAML::NodeType::Scalar:
        return "a scalar";
      case YAML::NodeType::Null:
        return "null";
      default:
        return "nothing";
    }
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  // Reports the fields of `map` the upstream type does not have at this level and returns
  // them, to be left out of the translation: the rest is still read, so that every problem
  // of the file is reported at once.
  template <std::size_t N>
  std::vector<std::string> onlyFields(const YAML::Node& map, const std::string& path,
                                      const std::array<const char*, N>& fields) {
    std::vector<std::string> unknown;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        continue;  // reported by table()
      }
      const std::string& key = kv.first.Scalar();
      if (std::none_of(fields.begin(), fields.end(), [&](const char* f) { return key == f; })) {
        diags_.error(at(kv.first), join(path, key), "unknown field \"" + key + "\"");
        unknown.push_back(key);
      }
    }
    return unknown;
  }

  void line(std::string text, const YAML::Node& from) {
    out_.toml += text;
    out_.toml += '\n';
    out_.lines.push_back(at(from));
  }

  bool count(const YAML::Node& node, const std::string& path, int depth) {
    if (++values_ > kMaxValues) {
      if (!tooLarge_) {
        error(node, path,
              "more than " + std::to_string(kMaxValues) +
                  " values (aliases expanded): not a scheduler configuration");
        tooLarge_ = true;
      }
      return false;
    }
    if (depth > kMaxDepth) {
      error(node, path, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
      return false;
    }
    return true;
  }

  static bool isTableArray(const YAML::Node& node) {
    if (!node.IsSequence() || node.size() == 0) {
      return false;
    }
    for (const auto& item : node) {
      if (!item.IsMap()) {
        return false;
      }
    }
    return true;
  }

  // A mapping as a TOML table whose header has been written (or the top of the document):
  // its scalars, lists of scalars and empty mappings as `key = value` lines, then its
  // mappings as sub-tables and its lists of mappings as arrays of tables. `header` is the
  // table's TOML key path, `path` its field path for messages.
  void table(const YAML::Node& map, const std::string& header, const std::string& path,
             const std::vector<std::string>& skip, int depth) {
    if (!count(map, path, depth)) {
      return;
    }
    std::map<std::string, YAML::Node> seen;
    std::vector<std::pair<std::string, YAML::Node>> later;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        error(kv.first, path, "a field name must be a string, got " + describe(kv.first));
        continue;
      }
      const std::string key = kv.first.Scalar();
      const std::string fieldPath = join(path, key);
      if (const auto it = seen.find(key); it != seen.end()) {
        error(kv.first, fieldPath,
              "duplicate field \"" + key + "\" (first written at line " +
                  std::to_string(at(it->second).line) + ")");
        continue;
      }
      seen.emplace(key, kv.first);
      if (std::find(skip.begin(), skip.end(), key) != skip.end()) {
        continue;
      }
      const YAML::Node& value = kv.second;
      if (value.IsNull()) {
        continue;  // null is "not set", as in Go's decoding
      }
      if ((value.IsMap() && value.size() > 0) || isTableArray(value)) {
        later.emplace_back(key, value);
        continue;
      }
      std::string text;
      if (inlineValue(value, fieldPath, depth + 1, text)) {
        line(tomlKey(key) + " = " + text, value);
      }
    }
    for (const auto& [key, value] : later) {
      const std::string childHeader = header.empty() ? tomlKey(key) : header + "." + tomlKey(key);
      const std::string fieldPath = join(path, key);
      if (value.IsMap()) {
        line("[" + childHeader + "]", value);
        child(value, childHeader, fieldPath, depth + 1);
      } else {
        std::size_t i = 0;
        for (const auto& item : value) {
          const std::string itemPath = fieldPath + "[" + std::to_string(i++) + "]";
          line("[[" + childHeader + "]]", item);
          child(item, childHeader, itemPath, depth + 1);
        }
      }
    }
  }

  // A sub-table, with what the upstream type says of the level it is at.
  void child(const YAML::Node& map, const std::string& header, const std::string& path, int depth) {
    std::vector<std::string> skip;
    if (depth == 1 && header == "profiles") {
      skip = onlyFields(map, path, kProfileFields);
    } else if (depth == 2 && header == "profiles.pluginConfig") {
      skip = onlyFields(map, path, std::array{"name", "args"});
      const YAML::Node name = map["name"];
      pluginName_ = name && name.IsScalar() ? name.Scalar() : std::string();
    } else if (depth == 3 && header == "profiles.pluginConfig.args") {
      skip = argsTypeMeta(map, path);
    }
    table(map, header, path, skip, depth);
  }

  // A plugin's args may carry the type of upstream's *Args object (apiVersion and kind), as
  // kube-scheduler prints them; they are checked against the plugin's name and left out.
  std::vector<std::string> argsTypeMeta(const YAML::Node& args, const std::string& path) {
    const YAML::Node kind = args["kind"];
    const YAML::Node apiVersion = args["apiVersion"];
    if (!kind && !apiVersion) {
      return {};
    }
    const std::string plugin = pluginName_;
    if (kind && (!kind.IsScalar() || kind.Scalar() != plugin + "Args")) {
      error(kind, join(path, "kind"),
            "args for plugin \"" + plugin + "\" must be of kind \"" + plugin + "Args\", got " +
                (kind.IsScalar() ? "\"" + kind.Scalar() + "\"" : describe(kind)));
    }
    if (apiVersion &&
        (!apiVersion.IsScalar() || apiVersion.Scalar() != kKubeSchedulerConfigApiVersion)) {
      error(apiVersion, join(path, "apiVersion"),
            "args are of apiVersion \"" + std::string(kKubeSchedulerConfigApiVersion) + "\", got " +
                (apiVersion.IsScalar() ? "\"" + apiVersion.Scalar() + "\"" : describe(apiVersion)));
    }
    return {"kind", "apiVersion"};
  }

  // A value on one line: a scalar, a list (inline) or a mapping (inline table).
  bool inlineValue(const YAML::Node& node, const std::string& path, int depth, std::string& out) {
    if (!count(node, path, depth)) {
      return false;
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        return scalar(node, path, out);
      case YAML::NodeType::Sequence: {
        out = "[";
        std::size_t i = 0;
        for (const auto& item : node) {
          const std::string itemPath = path + "[" + std::to_string(i) + "]";
          if (item.IsNull()) {
            error(item, itemPath, "null is not a valid list element");
            return false;
          }
          std::string text;
          if (!inlineValue(item, itemPath, depth + 1, text)) {
            return false;
          }
          out += (i++ == 0 ? "" : ", ") + text;
        }
        out += "]";
        return true;
      }
      case YAML::NodeType::Map: {
        out = "{";
        std::map<std::string, bool> seen;
        bool first = true;
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) {
            error(kv.first, path, "a field name must be a string, got " + describe(kv.first));
            return false;
          }
          const std::string key = kv.first.Scalar();
          if (!seen.emplace(key, true).second) {
            error(kv.first, join(path, key), "duplicate field \"" + key + "\"");
            return false;
          }
          if (kv.second.IsNull()) {
            continue;
          }
          std::string text;
          if (!inlineValue(kv.second, join(path, key), depth + 1, text)) {
            return false;
          }
          out += (first ? " " : ", ") + tomlKey(key) + " = " + text;
          first = false;
        }
        out += first ? "}" : " }";
        return true;
      }
      default:
        error(node, path, "expected a value, got " + describe(node));
        return false;
    }
  }

  // A scalar by YAML 1.2's core schema: quoted is a string; plain is null, a boolean, an
  // integer, a float or else a string.
  bool scalar(const YAML::Node& node, const std::string& path, std::string& out) {
    const std::string& text = node.Scalar();
    const std::string& tag = node.Tag();
    if (tag == "!" || tag == "tag:yaml.org,2002:str") {
      out = tomlString(text);
      return true;
    }
    if (tag != "?" && !tag.empty()) {
      error(node, path, "the YAML tag \"" + tag + "\" is not supported: write the plain value");
      return false;
    }
    if (text == "true" || text == "True" || text == "TRUE") {
      out = "true";
      return true;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
      out = "false";
      return true;
    }
    if (matchesInteger(text)) {
      errno = 0;
      char* end = nullptr;
      const long long value = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE) {
        error(node, path, "integer " + text + " is out of range");
        return false;
      }
      out = std::to_string(value);
      return true;
    }
    if (matchesFloat(text)) {
      out = tomlFloat(std::strtod(text.c_str(), nullptr));
      return true;
    }
    if (text == ".inf" || text == ".Inf" || text == ".INF" || text == "+.inf") {
      out = "inf";
      return true;
    }
    if (text == "-.inf" || text == "-.Inf" || text == "-.INF") {
      out = "-inf";
      return true;
    }
    if (text == ".nan" || text == ".NaN" || text == ".NAN") {
      out = "nan";
      return true;
    }
    out = tomlString(text);
    return true;
  }

 private:
  // The plugin whose pluginConfig entry is being translated (for its args' kind).
  std::string pluginName_;
  const std::string& file_;
  Diagnostics& diags_;
  TranslatedConfig out_;
  std::size_t values_ = 0;
  bool failed_ = false;
  bool tooLarge_ = false;
};

}  // namespace

ConfigFormat detectConfigFormat(std::string_view text, std::string_view fileName) {
  if (endsWith(fileName, ".toml")) {
    return ConfigFormat::kToml;
  }
  if (endsWith(fileName, ".yaml") || endsWith(fileName, ".yml") || endsWith(fileName, ".json")) {
    return ConfigFormat::kKubeSchedulerConfiguration;
  }
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    return ConfigFormat::kKubeSchedulerConfiguration;
  }
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const std::string_view lineText = text.substr(start, end - start);
    if (lineText.rfind("apiVersion:", 0) == 0 || lineText.rfind("kind:", 0) == 0) {
      return ConfigFormat::kKubeSchedulerConfiguration;
    }
    start = end + 1;
  }
  return ConfigFormat::kToml;
}

std::optional<TranslatedConfig> translateKubeSchedulerConfiguration(std::string_view text,
                                                                    const std::string& fileName,
                                                                    Diagnostics& diags,
                                                                    bool explicitDefaults) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    diags.error(SourceLocation{fileName, e.mark.is_null() ? 0 : e.mark.line + 1,
                               e.mark.is_null() ? 0 : e.mark.column + 1},
                "", "invalid YAML: " + e.msg);
    return std::nullopt;
  }
  if (!root || root.IsNull()) {
    diags.error(SourceLocation{fileName, 0, 0}, "",
                "empty: a KubeSchedulerConfiguration needs at least apiVersion and kind");
    return std::nullopt;
  }
  if (explicitDefaults && root.IsMap()) {
    root = YAML::Clone(root);
    for (const auto& [table, field, value] :
         {std::tuple{"leaderElection", "resourceName", "kube-scheduler"},
          std::tuple{"clientConnection", "contentType", "application/vnd.kubernetes.protobuf"}}) {
      YAML::Node t = root[table];
      if (!t || t.IsNull()) {
        root[table] = YAML::Node(YAML::NodeType::Map);
        t = root[table];
      }
      if (t.IsMap() && (!t[field] || t[field].IsNull())) {
        t[field] = value;
      }
    }
  }
  Translator translator(fileName, diags);
  translator.document(root);
  if (translator.failed()) {
    return std::nullopt;
  }
  return translator.take();
}

namespace {

// schedhost.toml's fields that KubeSchedulerConfiguration has no place for.
constexpr std::array kSchedhostOnlyFields = {"pluginDirs", "profileDirs", "admin",
                                             "reload",     "plugins",     "binding"};

std::string yamlKey(const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == '/';
  });
  return plain ? key : tomlString(key);  // a TOML basic string is a YAML double-quoted one
}

class YamlWriter {
 public:
  explicit YamlWriter(Diagnostics& diags) : diags_(diags) {}
  bool failed() const { return failed_; }

  // The entries of a table, each on its own line at `indent`.
  void table(const TomlValue& value, int indent, std::string& out) {
    for (const auto& [key, item] : value.as_table()) {
      out += std::string(static_cast<std::size_t>(indent), ' ') + yamlKey(key) + ":";
      block(item, indent, out);
    }
  }

 private:
  // What follows "key:" or "- ": a scalar on the same line, a table or list below.
  void block(const TomlValue& item, int indent, std::string& out) {
    if (item.is_table() && !item.as_table().empty()) {
      out += "\n";
      table(item, indent + 2, out);
    } else if (item.is_array() && !item.as_array().empty()) {
      out += "\n";
      for (const TomlValue& element : item.as_array()) {
        const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
        if (element.is_table() && !element.as_table().empty()) {
          std::string body;
          table(element, indent + 4, body);
          out += pad + "- " + body.substr(static_cast<std::size_t>(indent + 4));
        } else {
          out += pad + "-";
          out += " " + flow(element) + "\n";
        }
      }
    } else {
      out += " " + flow(item) + "\n";
    }
  }

  // A value on one line, in YAML's flow style.
  std::string flow(const TomlValue& v) {
    switch (v.type()) {
      case toml::value_t::boolean:
        return v.as_boolean() ? "true" : "false";
      case toml::value_t::integer:
        return std::to_string(v.as_integer());
      case toml::value_t::floating: {
        const double d = v.as_floating();
        if (std::isnan(d)) {
          return ".nan";
        }
        if (std::isinf(d)) {
          return d < 0 ? "-.inf" : ".inf";
        }
        return tomlFloat(d);
      }
      case toml::value_t::string:
        return tomlString(v.as_string().str);
      case toml::value_t::array: {
        std::string out = "[";
        bool first = true;
        for (const TomlValue& e : v.as_array()) {
          out += (first ? "" : ", ") + flow(e);
          first = false;
        }
        return out + "]";
      }
      case toml::value_t::table: {
        std::string out = "{";
        bool first = true;
        for (const auto& [k, e] : v.as_table()) {
          out += (first ? "" : ", ") + yamlKey(k) + ": " + flow(e);
          first = false;
        }
        return out + "}";
      }
      default:
        diags_.error(locationOf(v), "",
                     "a TOML date or time has no counterpart in a KubeSchedulerConfiguration");
        failed_ = true;
        return "null";
    }
  }

  Diagnostics& diags_;
  bool failed_ = false;
};

}  // namespace

std::optional<std::string> tomlToKubeSchedulerConfiguration(std::string_view text,
                                                            const std::string& fileName,
                                                            Diagnostics& diags) {
  std::optional<TomlValue> root = parseToml(text, fileName, diags);
  if (!root) {
    return std::nullopt;
  }
  bool ok = true;
  auto& top = root->as_table();
  for (const auto& [key, value] : top) {
    if (std::find(kSchedhostOnlyFields.begin(), kSchedhostOnlyFields.end(), key) !=
        kSchedhostOnlyFields.end()) {
      diags.error(locationOf(value), key,
                  "schedhost's own field: a KubeSchedulerConfiguration has no place for it "
                  "(keep the file in TOML, or give it on the command line)");
      ok = false;
    }
  }
  if (const auto it = top.find("profiles"); it != top.end() && it->second.is_array()) {
    std::size_t i = 0;
    for (const TomlValue& profile : it->second.as_array()) {
      if (profile.is_table() && profile.as_table().count("libraries") > 0) {
        diags.error(locationOf(profile.as_table().at("libraries")),
                    "profiles[" + std::to_string(i) + "].libraries",
                    "schedhost's own field: a KubeSchedulerConfiguration has no place for it");
        ok = false;
      }
      ++i;
    }
  }
  if (!ok) {
    return std::nullopt;
  }
  // schedhost's defaults, written out where upstream's differ.
  for (const auto& [table, field, value] :
       {std::tuple{"leaderElection", "resourceName", "schedhost"},
        std::tuple{"clientConnection", "contentType", "application/json"}}) {
    TomlValue& t = top[table];
    if (t.is_uninitialized()) {
      t = TomlValue(TomlValue::table_type{});
    }
    if (t.is_table() && t.as_table().count(field) == 0) {
      t.as_table()[field] = TomlValue(std::string(value));
    }
  }
  std::string out = "apiVersion: " + std::string(kKubeSchedulerConfigApiVersion) +
                    "\nkind: " + std::string(kKubeSchedulerConfigKind) + "\n";
  YamlWriter writer(diags);
  writer.table(*root, 0, out);
  if (writer.failed()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace sh::config

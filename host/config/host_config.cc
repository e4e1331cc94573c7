#include "host/config/host_config.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "host/config/toml_reader.h"

namespace sh::config {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
// The longest backoff and leader-election period accepted: one day. Upstream only requires
// them to be positive; past about 292 years their nanoseconds overflow (Go's time.Duration as
// our clocks), and a pod's next attempt or a lease's expiry would wrap into the past.
constexpr int64_t kMaxBackoffSeconds = 86'400;
constexpr std::chrono::hours kMaxPeriod{24};

std::vector<std::filesystem::path> readDirs(TableReader& reader, std::string_view field,
                                            const std::filesystem::path& base) {
  std::vector<std::filesystem::path> out;
  if (const auto dirs = reader.stringArray(field)) {
    for (const std::string& dir : *dirs) {
      const std::filesystem::path p(dir);
      out.push_back(p.is_absolute() || base.empty() ? p : base / p);
    }
  }
  return out;
}

void readTopLevel(TableReader& reader, HostConfig& config, Diagnostics& diags) {
  const auto errorAt = [&](std::string_view field, std::string message) {
    diags.error(locationOf(*reader.find(field)), reader.pathOf(field), std::move(message));
  };
  if (const auto v = reader.integer("parallelism")) {
    if (*v < 0 || *v > kInt32Max) {
      errorAt("parallelism", "must be 0 (one worker per core) or more, got " + std::to_string(*v));
    } else {
      config.parallelism = static_cast<int32_t>(*v);
    }
  }
  if (const auto v = reader.integer("percentageOfNodesToScore")) {
    if (*v < 0 || *v > 100) {
      errorAt("percentageOfNodesToScore",
              "must be in the range [0, 100], got " + std::to_string(*v));
    } else {
      config.percentageOfNodesToScore = static_cast<int32_t>(*v);
    }
  }
  bool initialOk = true;
  if (const auto v = reader.integer("podInitialBackoffSeconds")) {
    if (*v <= 0) {
      errorAt("podInitialBackoffSeconds", "must be greater than 0, got " + std::to_string(*v));
      initialOk = false;
    } else if (*v > kMaxBackoffSeconds) {
      errorAt("podInitialBackoffSeconds", "must be at most " + std::to_string(kMaxBackoffSeconds) +
                                              " (one day), got " + std::to_string(*v));
      initialOk = false;
    } else {
      config.podInitialBackoffSeconds = *v;
    }
  }
  if (const auto v = reader.integer("podMaxBackoffSeconds")) {
    if (*v > kMaxBackoffSeconds) {
      errorAt("podMaxBackoffSeconds", "must be at most " + std::to_string(kMaxBackoffSeconds) +
                                          " (one day), got " + std::to_string(*v));
      initialOk = false;
    } else {
      config.podMaxBackoffSeconds = *v;
    }
  }
  if (initialOk && config.podMaxBackoffSeconds < config.podInitialBackoffSeconds) {
    const std::string message = "must be greater than or equal to podInitialBackoffSeconds (" +
                                std::to_string(config.podInitialBackoffSeconds) + "), got " +
                                std::to_string(config.podMaxBackoffSeconds);
    if (reader.find("podMaxBackoffSeconds") != nullptr) {
      errorAt("podMaxBackoffSeconds", message);
    } else {
      errorAt("podInitialBackoffSeconds", "must be less than or equal to podMaxBackoffSeconds (" +
                                              std::to_string(config.podMaxBackoffSeconds) +
                                              "), got " +
                                              std::to_string(config.podInitialBackoffSeconds));
    }
  }
}

void readAdmin(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("admin");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("admin"), diags);
  if (auto v = reader.string("address")) {
    config.admin.address = *v;
  }
  if (auto v = reader.string("socket")) {
    config.admin.socket = *v;
  }
  if (const TomlValue* v = reader.find("remoteHealthAndMetrics")) {
    if (v->is_boolean()) {
      config.admin.remoteHealthAndMetrics = v->as_boolean();
    } else {
      TableReader::wrongType(diags, *v, reader.pathOf("remoteHealthAndMetrics"), "a boolean");
    }
  }
  reader.finish();
}

void readReload(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("reload");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("reload"), diags);
  if (const TomlValue* v = reader.find("watch")) {
    if (v->is_boolean()) {
      config.reload.watch = v->as_boolean();
    } else {
      TableReader::wrongType(diags, *v, reader.pathOf("watch"), "a boolean");
    }
  }
  const auto positive = [&](std::string_view field, int64_t max, int64_t& out) {
    if (const auto v = reader.integer(field)) {
      if (*v < 0 || *v > max) {
        diags.error(
            locationOf(*reader.find(field)), reader.pathOf(field),
            "must be in the range [0, " + std::to_string(max) + "], got " + std::to_string(*v));
      } else {
        out = *v;
      }
    }
  };
  positive("debounceMilliseconds", 60'000, config.reload.debounceMilliseconds);
  positive("drainWarningSeconds", 86'400, config.reload.drainWarningSeconds);
  reader.finish();
}

void readBinding(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("binding");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("binding"), diags);
  if (const auto v = reader.integer("maxConcurrent")) {
    if (*v < 1 || *v > 65'536) {
      diags.error(locationOf(*reader.find("maxConcurrent")), reader.pathOf("maxConcurrent"),
                  "must be in the range [1, 65536], got " + std::to_string(*v));
    } else {
      config.binding.maxConcurrent = static_cast<int32_t>(*v);
    }
  }
  reader.finish();
}

void readPlugins(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("plugins");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("plugins"), diags);
  if (auto user = reader.string("serviceUser")) {
    config.plugins.serviceUser = *user;
  }
  if (const TomlValue* v = reader.find("callWarningSeconds")) {
    if (!v->is_floating() && !v->is_integer()) {
      TableReader::wrongType(diags, *v, reader.pathOf("callWarningSeconds"), "a number");
    } else {
      const double seconds =
          v->is_integer() ? static_cast<double>(v->as_integer()) : v->as_floating();
      if (!std::isfinite(seconds) || seconds < 0 || seconds > 86'400) {
        std::ostringstream text;
        text << seconds;
        diags.error(locationOf(*v), reader.pathOf("callWarningSeconds"),
                    "must be in the range [0, 86400], got " + text.str());
      } else {
        config.plugins.callWarningSeconds = seconds;
      }
    }
  }
  reader.finish();
}

void readClientConnection(TableReader& top, HostConfig& config, const std::filesystem::path& base,
                          Diagnostics& diags) {
  const TomlValue* table = top.table("clientConnection");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("clientConnection"), diags);
  HostConfig::ClientConnection& out = config.clientConnection;
  if (const auto v = reader.string("kubeconfig")) {
    const std::filesystem::path p(*v);
    out.kubeconfig = v->empty() || p.is_absolute() || base.empty() ? *v : (base / p).string();
  }
  if (const TomlValue* v = reader.find("qps")) {
    if (!v->is_floating() && !v->is_integer()) {
      TableReader::wrongType(diags, *v, reader.pathOf("qps"), "a number");
    } else {
      const double qps = v->is_integer() ? static_cast<double>(v->as_integer()) : v->as_floating();
      if (!std::isfinite(qps) || qps < 0) {
        std::ostringstream text;
        text << qps;
        diags.error(locationOf(*v), reader.pathOf("qps"),
                    "must be 0 (no client-side limit) or more, got " + text.str());
      } else {
        out.qps = qps;
      }
    }
  }
  // Media types client-go knows for the core API (a comma-separated list for
  // acceptContentTypes).
  const auto contentType = [&](std::string_view field, std::string& target, bool list) {
    auto v = reader.string(field);
    if (!v) {
      return;
    }
    std::stringstream items(*v);
    std::string item;
    bool ok = list || !v->empty();
    while (ok && std::getline(items, item, list ? ',' : '\0')) {
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      ok = item == "application/json" || item == "application/vnd.kubernetes.protobuf";
    }
    if (!ok) {
      diags.error(locationOf(*reader.find(field)), reader.pathOf(field),
                  std::string(list ? "each entry must be" : "must be") +
                      " \"application/json\" or \"application/vnd.kubernetes.protobuf\", got \"" +
                      *v + "\"");
    } else {
      target = std::move(*v);
    }
  };
  contentType("contentType", out.contentType, false);
  contentType("acceptContentTypes", out.acceptContentTypes, true);
  if (const auto v = reader.integer("burst")) {
    const int64_t minimum = out.qps > 0 ? 1 : 0;
    if (*v < minimum || *v > kInt32Max) {
      diags.error(
          locationOf(*reader.find("burst")), reader.pathOf("burst"),
          std::string(out.qps > 0 ? "must be 1 or more when qps is above 0" : "must be 0 or more") +
              ", got " + std::to_string(*v));
    } else {
      out.burst = static_cast<int32_t>(*v);
    }
  }
  reader.finish();
}

void readLeaderElection(TableReader& top, HostConfig& config, Diagnostics& diags) {
  const TomlValue* table = top.table("leaderElection");
  if (table == nullptr) {
    return;
  }
  TableReader reader(*table, top.pathOf("leaderElection"), diags);
  HostConfig::LeaderElection& out = config.leaderElection;
  const auto errorAt = [&](std::string_view field, std::string message) {
    diags.error(locationOf(*reader.find(field)), reader.pathOf(field), std::move(message));
  };
  if (const TomlValue* v = reader.find("leaderElect")) {
    if (v->is_boolean()) {
      out.leaderElect = v->as_boolean();
    } else {
      TableReader::wrongType(diags, *v, reader.pathOf("leaderElect"), "a boolean");
    }
  }
  // Durations: each must parse and be at least 1ms; the relations are checked only when all
  // three are usable.
  bool durationsOk = true;
  const auto duration = [&](std::string_view field, std::chrono::milliseconds& target) {
    const auto text = reader.string(field);
    if (!text) {
      durationsOk = durationsOk && reader.find(field) == nullptr;
      return;
    }
    std::string error;
    const std::optional<std::chrono::nanoseconds> d = parseGoDuration(*text, error);
    if (!d) {
      errorAt(field, error);
      durationsOk = false;
    } else if (*d < std::chrono::milliseconds(1)) {
      errorAt(field, "must be greater than 0 (at least 1ms), got \"" + *text + "\"");
      durationsOk = false;
    } else if (*d > kMaxPeriod) {
      errorAt(field, "must be at most 24h, got \"" + *text + "\"");
      durationsOk = false;
    } else {
      target = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    }
  };
  duration("leaseDuration", out.leaseDuration);
  duration("renewDeadline", out.renewDeadline);
  duration("retryPeriod", out.retryPeriod);
  const auto name = [&](std::string_view field, std::string& target) {
    if (auto v = reader.string(field)) {
      if (v->empty()) {
        errorAt(field, "must not be empty");
      } else {
        target = std::move(*v);
      }
    }
  };
  if (auto v = reader.string("resourceLock")) {
    if (*v != "leases") {
      errorAt("resourceLock", "only \"leases\" is supported, got \"" + *v + "\"");
    }
  }
  name("resourceName", out.resourceName);
  name("resourceNamespace", out.resourceNamespace);

  // client-go NewLeaderElector: leaseDuration > renewDeadline > JitterFactor (1.2) × retryPeriod.
  // As upstream's ValidateLeaderElectionConfiguration, only when leader election is on.
  if (durationsOk && out.leaderElect) {
    const bool has = reader.find("leaseDuration") != nullptr;
    if (out.leaseDuration <= out.renewDeadline) {
      if (has) {
        errorAt("leaseDuration", "must be greater than renewDeadline (" +
                                     formatGoDuration(out.renewDeadline) + "), got " +
                                     formatGoDuration(out.leaseDuration));
      } else {
        errorAt("renewDeadline", "must be less than leaseDuration (" +
                                     formatGoDuration(out.leaseDuration) + "), got " +
                                     formatGoDuration(out.renewDeadline));
      }
    } else if (out.renewDeadline.count() * 10 <= out.retryPeriod.count() * 12) {
      if (reader.find("renewDeadline") != nullptr) {
        errorAt("renewDeadline", "must be greater than 1.2 × retryPeriod (" +
                                     formatGoDuration(out.retryPeriod) + "), got " +
                                     formatGoDuration(out.renewDeadline));
      } else {
        errorAt("retryPeriod", "must be less than renewDeadline (" +
                                   formatGoDuration(out.renewDeadline) + ") / 1.2, got " +
                                   formatGoDuration(out.retryPeriod));
      }
    }
  }
  reader.finish();
}

}  // namespace

std::optional<std::chrono::nanoseconds> parseGoDuration(std::string_view text, std::string& error) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  std::size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    negative = text[pos] == '-';
    ++pos;
  }
  if (text.substr(pos) == "0") {
    return std::chrono::nanoseconds(0);
  }
  if (pos == text.size()) {
    error = "invalid duration " + quoted + ": expected a number and a unit, as \"15s\"";
    return std::nullopt;
  }
  // Sum in long double nanoseconds, then check the int64 range (Go's limit: about 290 years).
  long double total = 0;
  while (pos < text.size()) {
    const std::size_t start = pos;
    long double value = 0;
    bool digits = false;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      value = value * 10 + (text[pos] - '0');
      digits = true;
      ++pos;
    }
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      long double scale = 0.1L;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        value += (text[pos] - '0') * scale;
        scale /= 10;
        digits = true;
        ++pos;
      }
    }
    if (!digits) {
      error = "invalid duration " + quoted + ": expected a number at \"" +
              std::string(text.substr(start)) + "\"";
      return std::nullopt;
    }
    const std::size_t unitStart = pos;
    while (pos < text.size() && !(text[pos] >= '0' && text[pos] <= '9') && text[pos] != '.') {
      ++pos;
    }
    const std::string_view unit = text.substr(unitStart, pos - unitStart);
    long double scale = 0;
    if (unit == "ns") {
      scale = 1;
    } else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") {
      scale = 1e3L;
    } else if (unit == "ms") {
      scale = 1e6L;
    } else if (unit == "s") {
      scale = 1e9L;
    } else if (unit == "m") {
      scale = 60e9L;
    } else if (unit == "h") {
      scale = 3600e9L;
    } else if (unit.empty()) {
      error = "invalid duration " + quoted + ": missing unit (ns, us, ms, s, m or h)";
      return std::nullopt;
    } else {
      error = "invalid duration " + quoted + ": unknown unit \"" + std::string(unit) +
              "\" (ns, us, ms, s, m or h)";
      return std::nullopt;
    }
    total += value * scale;
  }
  if (total > static_cast<long double>(std::numeric_limits<int64_t>::max())) {
    error = "invalid duration " + quoted + ": out of range (at most about 2562047h)";
    return std::nullopt;
  }
  const auto nanos = static_cast<int64_t>(total);
  return std::chrono::nanoseconds(negative ? -nanos : nanos);
}

std::string formatGoDuration(std::chrono::milliseconds duration) {
  int64_t ms = duration.count();
  if (ms == 0) {
    return "0s";
  }
  std::string sign;
  if (ms < 0) {
    sign = "-";
    ms = -ms;
  }
  if (ms < 1000) {
    return sign + std::to_string(ms) + "ms";
  }
  const int64_t hours = ms / 3'600'000;
  const int64_t minutes = ms / 60'000 % 60;
  const int64_t seconds = ms / 1000 % 60;
  const int64_t millis = ms % 1000;
  std::string out = sign;
  if (hours > 0) {
    out += std::to_string(hours) + "h";
  }
  if (hours > 0 || minutes > 0) {
    out += std::to_string(minutes) + "m";
  }
  out += std::to_string(seconds);
  if (millis > 0) {
    std::string frac = std::to_string(1000 + millis).substr(1);
    while (frac.back() == '0') {
      frac.pop_back();
    }
    out += "." + frac;
  }
  return out + "s";
}

std::vector<std::filesystem::path> listProfileFiles(const std::filesystem::path& dir,
                                                    const SourceLocation& where,
                                                    const std::string& key, Diagnostics& diags) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) {
    diags.error(where, key,
                "cannot read profile directory \"" + dir.string() + "\": " + ec.message());
    return files;
  }
  std::vector<std::filesystem::directory_entry> entries;
  for (const std::filesystem::directory_entry& entry : it) {
    if (entry.path().extension() == ".toml" && !entry.is_directory(ec)) {
      entries.push_back(entry);
    }
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.path().filename().string() < b.path().filename().string();
  });
  for (const std::filesystem::directory_entry& entry : entries) {
    // Opening a FIFO would block until someone writes to it, a device could be read forever.
    if (!entry.is_regular_file(ec)) {
      diags.error(SourceLocation{entry.path().string(), 0, 0}, {},
                  "not a regular file; a profile directory holds only regular files (or links "
                  "to them)");
      continue;
    }
    files.push_back(entry.path());
  }
  return files;
}

namespace {

bool readBool(TableReader& reader, std::string_view field, bool& target) {
  const std::optional<bool> v = reader.boolean(field);
  if (v) {
    target = *v;
  }
  return v.has_value();
}

// The fields of upstream's KubeSchedulerConfiguration that schedhost's TOML carries for it.
void readUpstreamFields(TableReader& reader, HostConfig& config, const std::string& base,
                        Diagnostics& diags) {
  readBool(reader, "enableProfiling", config.enableProfiling);
  // Upstream: contention profiling defaults to on only where profiling is.
  config.enableContentionProfiling = config.enableProfiling;
  readBool(reader, "enableContentionProfiling", config.enableContentionProfiling);
  readBool(reader, "delayCacheUntilActive", config.delayCacheUntilActive);
  // Ignorable extenders go last, each group in the order written (upstream buildExtenders).
  std::vector<ExtenderConfig> extenders = readExtenders(reader, base, diags);
  std::stable_partition(extenders.begin(), extenders.end(),
                        [](const ExtenderConfig& e) { return !e.ignorable; });
  config.extenders = std::move(extenders);
}

HostConfig readHostConfig(const TomlValue& root, HostConfig config, Diagnostics& diags) {
  const std::string& fileName = config.file;
  const SourceLocation fileStart{fileName, 1, 1};
  const std::filesystem::path base = std::filesystem::path(fileName).parent_path();
  TableReader reader(root, "", diags);
  readTopLevel(reader, config, diags);
  config.pluginDirs = readDirs(reader, "pluginDirs", base);
  config.profileDirs = readDirs(reader, "profileDirs", base);
  readAdmin(reader, config, diags);
  readReload(reader, config, diags);
  readBinding(reader, config, diags);
  readPlugins(reader, config, diags);
  // kube-scheduler opens a relative kubeconfig from its working directory; schedhost.toml's
  // relative paths are the file's.
  readClientConnection(
      reader, config, config.format == ConfigFormat::kToml ? base : std::filesystem::path(), diags);
  readLeaderElection(reader, config, diags);
  readUpstreamFields(reader, config, base.string(), diags);

  if (const TomlValue* profiles = reader.array("profiles")) {
    const auto& items = profiles->as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string key = ArgNode::elementPath("profiles", i);
      if (!items[i].is_table()) {
        TableReader::wrongType(diags, items[i], key, "a table");
        continue;
      }
      config.profiles.push_back(parseProfile(items[i], key, diags));
    }
  }
  if (const TomlValue* dirs = reader.find("profileDirs"); dirs != nullptr && dirs->is_array()) {
    const auto& items = dirs->as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_string()) {
        continue;  // reported by read_dirs
      }
      const std::filesystem::path dir(items[i].as_string().str);
      const std::filesystem::path resolved = dir.is_absolute() || base.empty() ? dir : base / dir;
      for (const auto& file : listProfileFiles(resolved, locationOf(items[i]),
                                               ArgNode::elementPath("profileDirs", i), diags)) {
        if (auto profile = loadProfileFile(file, diags)) {
          config.profiles.push_back(std::move(*profile));
        }
      }
    }
  }
  reader.finish();
  finalizeProfiles(config.profiles, fileStart, diags);
  applyExtenderIgnoredResources(config.extenders, config.profiles);
  return config;
}

}  // namespace

HostConfig parseHostConfig(std::string_view text, const std::string& fileName, Diagnostics& diags) {
  HostConfig config;
  config.file = fileName;
  if (detectConfigFormat(text, fileName) == ConfigFormat::kToml) {
    std::optional<TomlValue> root = parseToml(text, fileName, diags);
    if (!root) {
      config.parsed = false;
      return config;
    }
    return readHostConfig(*root, std::move(config), diags);
  }
  // Upstream's defaults where they differ from schedhost's own
  // (SetDefaults_KubeSchedulerConfiguration).
  config.format = ConfigFormat::kKubeSchedulerConfiguration;
  config.leaderElection.resourceName = "kube-scheduler";
  config.clientConnection.contentType = "application/vnd.kubernetes.protobuf";
  std::optional<TranslatedConfig> translated =
      translateKubeSchedulerConfiguration(text, fileName, diags);
  if (!translated) {
    config.parsed = false;
    return config;
  }
  const LineMapScope lines(fileName, translated->lines);
  std::optional<TomlValue> root = parseToml(translated->toml, fileName, diags);
  if (!root) {
    config.parsed = false;
    return config;
  }
  return readHostConfig(*root, std::move(config), diags);
}

HostConfig loadHostConfig(const std::filesystem::path& path, Diagnostics& diags) {
  std::optional<std::string> text = readConfigFile(path, diags);
  if (!text) {
    HostConfig config;
    config.file = path.string();
    config.parsed = false;
    return config;
  }
  return parseHostConfig(*text, path.string(), diags);
}

}  // namespace sh::config

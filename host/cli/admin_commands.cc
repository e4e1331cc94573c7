// schedhost status and schedhost reload: clients of a running scheduler's admin endpoints
// (host/admin/server.h).
//
// The /status object they read (fields not listed are ignored, missing ones tolerated):
//   {"generation":3,"ready":true,
//    "profiles":[{"schedulerName":"default-scheduler",
//                 "plugins":{"QueueSort":["PrioritySort"],
//                            "Score":[{"name":"NodeResourcesFit","weight":1}],...}}],
//    "queue":{"active":0,"backoff":0,"unschedulable":2,"gated":0},
//    "bindingsInFlight":0,"preemptionsInFlight":0,
//    "podsWithoutProfile":[{"pod":"ns/name","schedulerName":"x"}],
//    "retiredGenerationsInUse":[{"generation":2,"ageSeconds":1.5}],
//    "lastReload":{the reload result object} or null}
// and the reload result:
//   {"kind":"Reload","generation":N,"result":"Applied"|"Rejected","changed":[...],"error":"..."}
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "host/admin/client.h"
#include "host/admin/endpoint.h"
#include "host/cli/commands.h"
#include "host/config/diagnostics.h"
#include "host/config/host_config.h"

namespace sh::cli {
namespace {

namespace json = boost::json;

constexpr int kExitUnreachable = 2;

// The endpoint the flags or the configuration name; nullopt after printing why there is none.
std::optional<admin::Endpoint> resolveEndpoint(const AdminTarget& target, const char* prefix) {
  int given = (target.address.empty() ? 0 : 1) + (target.socket.empty() ? 0 : 1) +
              (target.config.empty() ? 0 : 1);
  if (given == 0) {
    std::cerr << prefix
              << ": no admin endpoint: give one of --admin-address HOST:PORT, --admin-socket "
                 "PATH or --config FILE\n";
    return std::nullopt;
  }
  if (given > 1) {
    std::cerr << prefix << ": give only one of --admin-address, --admin-socket and --config\n";
    return std::nullopt;
  }
  admin::Endpoint endpoint;
  if (!target.config.empty()) {
    config::Diagnostics diags;
    config::HostConfig hostConfig = config::loadHostConfig(target.config, diags);
    if (diags.hasErrors()) {
      std::cerr << diags.str();
      return std::nullopt;
    }
    // A configuration may enable both listeners; the Unix socket is the one used then.
    endpoint.socket = hostConfig.admin.socket;
    if (endpoint.socket.empty()) endpoint.address = hostConfig.admin.address;
    if (endpoint.socket.empty() && endpoint.address.empty()) {
      std::cerr << prefix << ": " << target.config
                << " enables no admin endpoint ([admin] address or socket)\n";
      return std::nullopt;
    }
  } else {
    endpoint.address = target.address;
    endpoint.socket = target.socket;
  }
  if (!endpoint.address.empty()) {
    admin::TcpAddress parsed;
    Status status = admin::parseTcpAddress(endpoint.address, parsed);
    if (!status.ok()) {
      std::cerr << prefix << ": " << status.message() << "\n";
      return std::nullopt;
    }
  }
  return endpoint;
}

std::chrono::milliseconds toMilliseconds(double seconds) {
  if (!(seconds > 0)) seconds = 0.001;
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

const json::value* field(const json::value& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  return object.as_object().if_contains(key);
}

std::string stringField(const json::value& object, std::string_view key,
                        std::string fallback = "") {
  const json::value* value = field(object, key);
  if (value == nullptr || !value->is_string()) return fallback;
  return std::string(value->as_string());
}

std::optional<double> numberField(const json::value& object, std::string_view key) {
  const json::value* value = field(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_int64()) return static_cast<double>(value->as_int64());
  if (value->is_uint64()) return static_cast<double>(value->as_uint64());
  if (value->is_double()) return value->as_double();
  return std::nullopt;
}

std::string integerText(const json::value& object, std::string_view key) {
  auto number = numberField(object, key);
  if (!number) return "?";
  std::ostringstream out;
  out << static_cast<int64_t>(*number);
  return out.str();
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

std::vector<std::string> stringList(const json::value& object, std::string_view key) {
  std::vector<std::string> out;
  const json::value* value = field(object, key);
  if (value == nullptr || !value->is_array()) return out;
  for (const auto& item : value->as_array()) {
    if (item.is_string()) out.emplace_back(item.as_string());
  }
  return out;
}

// "applied: generation 3 (changed: a, b)" or "rejected: <error>".
std::string reloadSummary(const json::value& result) {
  std::string kind = stringField(result, "result");
  if (kind == "Applied") {
    auto changed = stringList(result, "changed");
    return "applied: generation " + integerText(result, "generation") +
           " (changed: " + (changed.empty() ? std::string("none") : join(changed)) + ")";
  }
  if (kind == "Rejected") return "rejected: " + stringField(result, "error", "(no error given)");
  return "unknown result \"" + kind + "\"";
}

// One extension point's plugins: names, or {name, weight} objects (Score).
std::string pluginList(const json::value& plugins) {
  if (!plugins.is_array()) return "?";
  std::vector<std::string> items;
  for (const auto& plugin : plugins.as_array()) {
    if (plugin.is_string()) {
      items.emplace_back(plugin.as_string());
    } else if (plugin.is_object()) {
      std::string item = stringField(plugin, "name", "?");
      if (auto weight = numberField(plugin, "weight")) {
        item += " (weight " + integerText(plugin, "weight") + ")";
      }
      items.push_back(std::move(item));
    }
  }
  return items.empty() ? std::string("none") : join(items);
}

void printStatus(const json::value& status, std::ostream& out) {
  out << "generation " << integerText(status, "generation");
  const json::value* ready = field(status, "ready");
  if (ready != nullptr && ready->is_bool()) out << (ready->as_bool() ? " (ready)" : " (not ready)");
  out << "\n";

  const json::value* profiles = field(status, "profiles");
  if (profiles != nullptr && profiles->is_array()) {
    for (const auto& profile : profiles->as_array()) {
      out << "profile " << stringField(profile, "schedulerName", "?") << "\n";
      const json::value* plugins = field(profile, "plugins");
      if (plugins == nullptr || !plugins->is_object()) continue;
      for (const auto& [point, list] : plugins->as_object()) {
        out << "  " << std::string(point) << ": " << pluginList(list) << "\n";
      }
    }
  }

  const json::value* queue = field(status, "queue");
  if (queue != nullptr && queue->is_object()) {
    out << "queue: active " << integerText(*queue, "active") << ", backoff "
        << integerText(*queue, "backoff") << ", unschedulable "
        << integerText(*queue, "unschedulable") << ", gated " << integerText(*queue, "gated")
        << "\n";
  }
  if (field(status, "bindingsInFlight") != nullptr) {
    out << "bindings in flight: " << integerText(status, "bindingsInFlight") << "\n";
  }
  if (field(status, "preemptionsInFlight") != nullptr) {
    out << "preemptions in flight: " << integerText(status, "preemptionsInFlight") << "\n";
  }

  const json::value* orphans = field(status, "podsWithoutProfile");
  out << "pods without a profile:";
  if (orphans == nullptr || !orphans->is_array() || orphans->as_array().empty()) {
    out << " none\n";
  } else {
    out << "\n";
    for (const auto& pod : orphans->as_array()) {
      out << "  " << stringField(pod, "pod", "?") << " (schedulerName \""
          << stringField(pod, "schedulerName") << "\")\n";
    }
  }

  const json::value* draining = field(status, "retiredGenerationsInUse");
  out << "generations draining:";
  if (draining == nullptr || !draining->is_array() || draining->as_array().empty()) {
    out << " none\n";
  } else {
    out << "\n";
    for (const auto& generation : draining->as_array()) {
      out << "  generation " << integerText(generation, "generation");
      if (auto age = numberField(generation, "ageSeconds")) {
        char text[32];
        std::snprintf(text, sizeof text, "%.1f", *age);
        out << ", in use for " << text << " s";
      }
      out << "\n";
    }
  }

  const json::value* lastReload = field(status, "lastReload");
  out << "last reload: ";
  if (lastReload == nullptr || !lastReload->is_object()) {
    out << "none\n";
  } else {
    out << reloadSummary(*lastReload) << "\n";
  }
}

std::string shortBody(const std::string& body) {
  constexpr std::size_t kMax = 400;
  std::string text = body.size() > kMax ? body.substr(0, kMax) + "..." : body;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::optional<std::string> adminGet(const AdminTarget& target, const std::string& path,
                                    double timeoutSeconds, const char* prefix, int* httpStatus) {
  if (httpStatus != nullptr) *httpStatus = 0;
  auto endpoint = resolveEndpoint(target, prefix);
  if (!endpoint) return std::nullopt;
  admin::ClientResponse response =
      admin::request(*endpoint, "GET", path, toMilliseconds(timeoutSeconds));
  if (!response.ok()) {
    std::cerr << prefix << ": " << response.error << "\n";
    return std::nullopt;
  }
  if (httpStatus != nullptr) *httpStatus = response.status;
  if (response.status != 200) {
    std::cerr << prefix << ": " << endpoint->describe() << " answered HTTP " << response.status
              << ": " << shortBody(response.body) << "\n";
    return std::nullopt;
  }
  return std::move(response.body);
}

int runStatus(const StatusArgs& args) {
  constexpr const char* kPrefix = "schedhost status";
  auto endpoint = resolveEndpoint(args.target, kPrefix);
  if (!endpoint) return kExitUnreachable;
  admin::ClientResponse response =
      admin::request(*endpoint, "GET", "/status", toMilliseconds(args.timeoutSeconds));
  if (!response.ok()) {
    std::cerr << kPrefix << ": " << response.error << "\n";
    return kExitUnreachable;
  }
  if (response.status != 200) {
    std::cerr << kPrefix << ": " << endpoint->describe() << " answered HTTP " << response.status
              << ": " << shortBody(response.body) << "\n";
    return kExitUnreachable;
  }
  boost::system::error_code ec;
  json::value status = json::parse(response.body, ec);
  if (ec || !status.is_object()) {
    std::cerr << kPrefix << ": " << endpoint->describe()
              << " answered something that is not a JSON object: " << shortBody(response.body)
              << "\n";
    return kExitUnreachable;
  }
  if (args.json) {
    std::cout << response.body;
    if (response.body.empty() || response.body.back() != '\n') std::cout << "\n";
  } else {
    printStatus(status, std::cout);
  }
  return 0;
}

int runReload(const ReloadArgs& args) {
  constexpr const char* kPrefix = "schedhost reload";
  auto endpoint = resolveEndpoint(args.target, kPrefix);
  if (!endpoint) return kExitUnreachable;
  admin::ClientResponse response =
      admin::request(*endpoint, "POST", "/reload", toMilliseconds(args.timeoutSeconds));
  if (!response.ok()) {
    std::cerr << kPrefix << ": " << response.error << "\n";
    return kExitUnreachable;
  }
  boost::system::error_code ec;
  json::value result = json::parse(response.body, ec);
  std::string kind = ec ? std::string() : stringField(result, "result");
  if (response.status == 200 && kind == "Applied") {
    std::cout << "reload " << reloadSummary(result) << "\n";
    return 0;
  }
  if (response.status == 422 && kind == "Rejected") {
    std::cout << "reload " << reloadSummary(result) << "\n";
    return 1;
  }
  std::cerr << kPrefix << ": unexpected answer from " << endpoint->describe() << ": HTTP "
            << response.status << ": " << shortBody(response.body) << "\n";
  return kExitUnreachable;
}

}  // namespace sh::cli

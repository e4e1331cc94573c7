#include "host/admin/secure_routes.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

namespace sh::admin {
namespace {

constexpr std::string_view kText = "text/plain; charset=utf-8";

struct HealthRoute {
  std::string_view name;  // "healthz"
  HealthPath path;
};

constexpr HealthRoute kHealthRoutes[] = {
    {"healthz", HealthPath::kHealthz},
    {"livez", HealthPath::kLivez},
    {"readyz", HealthPath::kReadyz},
};

// The health route of `path` and the check it names after it ("" for the whole path).
std::optional<std::pair<HealthRoute, std::string_view>> healthRoute(std::string_view path) {
  for (const HealthRoute& route : kHealthRoutes) {
    if (path.size() < route.name.size() + 1 || path[0] != '/' ||
        path.substr(1, route.name.size()) != route.name) {
      continue;
    }
    std::string_view rest = path.substr(route.name.size() + 1);
    if (rest.empty()) return std::pair{route, std::string_view()};
    if (rest[0] == '/' && rest.size() > 1) return std::pair{route, rest.substr(1)};
  }
  return std::nullopt;
}

// The query's values of `key` ("exclude=a&exclude=b"); `present` says whether it appears.
std::vector<std::string> queryValues(std::string_view query, std::string_view key, bool& present) {
  std::vector<std::string> out;
  present = false;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const std::size_t eq = pair.find('=');
    if (pair.substr(0, eq) != key) continue;
    present = true;
    if (eq != std::string_view::npos) out.emplace_back(pair.substr(eq + 1));
  }
  return out;
}

SecureAnswer text(int status, std::string body) {
  return {status, std::string(kText), std::move(body)};
}

// handleRootHealth: every check in order, an excluded one counted as passed.
SecureAnswer rootHealth(const std::vector<CheckResult>& checks, std::string_view name,
                        std::string_view query) {
  bool verbose = false;
  queryValues(query, "verbose", verbose);
  bool anyExcluded = false;
  std::vector<std::string> excluded = queryValues(query, "exclude", anyExcluded);
  std::string out;
  bool failed = false;
  for (const CheckResult& check : checks) {
    if (auto it = std::find(excluded.begin(), excluded.end(), check.name); it != excluded.end()) {
      excluded.erase(it);
      out += "[+]" + check.name + " excluded: ok\n";
      continue;
    }
    if (!check.error.empty()) {
      // The reason is withheld here, as upstream does: /NAME/CHECK says it.
      out += "[-]" + check.name + " failed: reason withheld\n";
      failed = true;
    } else {
      out += "[+]" + check.name + " ok\n";
    }
  }
  if (!excluded.empty()) {
    out += "warn: some health checks cannot be excluded: no matches for ";
    for (std::size_t i = 0; i < excluded.size(); ++i) {
      out += (i > 0 ? "," : "") + ("\"" + excluded[i] + "\"");
    }
    out += "\n";
  }
  if (failed) return text(500, out + std::string(name) + " check failed\n");
  if (!verbose) return text(200, "ok");
  return text(200, out + std::string(name) + " check passed\n");
}

// A namespace or pod name as the API allows (a DNS subdomain): nothing else reaches the handler.
bool objectName(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

}  // namespace

bool isDebugPodTarget(std::string_view target) {
  return target.substr(0, target.find('?')).substr(0, kDebugPodsPrefix.size()) == kDebugPodsPrefix;
}

SecureAnswer serveDebugPod(Handler& handler, std::string_view target, std::stop_token stop) {
  const std::size_t mark = target.find('?');
  const std::string_view path = target.substr(0, mark);
  const std::string_view query =
      mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
  const std::string_view rest = path.substr(kDebugPodsPrefix.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || !objectName(rest.substr(0, slash)) ||
      !objectName(rest.substr(slash + 1))) {
    return text(404, "404 page not found: expected /debug/pods/NAMESPACE/NAME\n");
  }
  bool present = false;
  std::vector<std::string> formats = queryValues(query, "format", present);
  const std::string format = formats.empty() ? "json" : formats.back();
  if (format != "json" && format != "text" && format != "html") {
    return text(400, "format must be json, text or html, not \"" + format + "\"\n");
  }
  try {
    DebugAnswer answer =
        handler.debugPod(rest.substr(0, slash), rest.substr(slash + 1), format, stop);
    return {answer.status, std::move(answer.contentType), std::move(answer.body)};
  } catch (const std::exception& e) {
    return text(500, std::string("internal error: ") + e.what() + "\n");
  } catch (...) {
    return text(500, "internal error\n");
  }
}

bool isHealthTarget(std::string_view target) {
  return healthRoute(target.substr(0, target.find('?'))).has_value();
}

SecureAnswer serveSecure(Handler& handler, Gate& gate, std::string_view verb,
                         std::string_view target, const Caller& caller, std::stop_token stop) {
  const std::size_t mark = target.find('?');
  const std::string_view path = target.substr(0, mark);
  const std::string_view query =
      mark == std::string_view::npos ? std::string_view() : target.substr(mark + 1);
  try {
    Admission admission = gate.admit(verb, path, caller, stop);
    if (!admission.allowed) {
      return {admission.status, std::move(admission.contentType), std::move(admission.body)};
    }
    if (verb != "get" && verb != "head") return text(405, "method not allowed\n");
    if (auto health = healthRoute(path)) {
      const auto& [route, checkName] = *health;
      const std::vector<CheckResult> checks = handler.checks(route.path, stop);
      if (checkName.empty()) return rootHealth(checks, route.name, query);
      for (const CheckResult& check : checks) {
        if (check.name != checkName) continue;
        if (check.error.empty()) return text(200, "ok");
        return text(500, "internal server error: " + check.error + "\n");
      }
      return text(404, "404 page not found\n");
    }
    if (path == "/metrics") {
      return {200, "text/plain; version=0.0.4; charset=utf-8", handler.metricsText(stop)};
    }
    if (path == "/configz") return {200, "application/json", handler.configJson(stop)};
    if (isDebugPodTarget(path)) return serveDebugPod(handler, target, stop);
    return text(404, "404 page not found\n");
  } catch (const std::exception& e) {
    return text(500, std::string("internal error: ") + e.what() + "\n");
  } catch (...) {
    return text(500, "internal error\n");
  }
}

}  // namespace sh::admin

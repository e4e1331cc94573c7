#include "host/connectors/kube/resources.h"

#include <array>
#include <cctype>

namespace sh::kube {

namespace {

constexpr std::array<Resource, 9> kResources = {{
    {"Node", "v1", "/api/v1/nodes", "", false},
    {"Pod", "v1", "/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed", true},
    {"Namespace", "v1", "/api/v1/namespaces", "", false},
    {"Service", "v1", "/api/v1/services", "", true},
    {"ReplicationController", "v1", "/api/v1/replicationcontrollers", "", true},
    {"ReplicaSet", "apps/v1", "/apis/apps/v1/replicasets", "", true},
    {"StatefulSet", "apps/v1", "/apis/apps/v1/statefulsets", "", true},
    {"PodDisruptionBudget", "policy/v1", "/apis/policy/v1/poddisruptionbudgets", "", true},
    {"PriorityClass", "scheduling.k8s.io/v1", "/apis/scheduling.k8s.io/v1/priorityclasses", "",
     false},
}};

}  // namespace

std::span<const Resource> watchedResources() { return kResources; }

std::string escapeComponent(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string podPath(std::string_view ns, std::string_view name) {
  return "/api/v1/namespaces/" + escapeComponent(ns) + "/pods/" + escapeComponent(name);
}

}  // namespace sh::kube

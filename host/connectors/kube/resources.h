// The kinds the connector lists and watches, and where the API serves them. Pods are watched
// cluster-wide without the terminal ones, as kube-scheduler's pod informer does
// (pkg/scheduler/scheduler.go newPodInformer): assigned pods of every scheduler count on their
// nodes, unassigned pods go to the queue when a profile serves their schedulerName.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace sh::kube {

struct Resource {
  std::string_view kind;           // "Pod"
  std::string_view apiVersion;     // "v1", "apps/v1", "policy/v1", "scheduling.k8s.io/v1"
  std::string_view path;           // the cluster-wide collection: "/api/v1/pods"
  std::string_view fieldSelector;  // empty: none
  bool namespaced = true;
  std::string_view labelSelector = {};  // empty: none (the kinds plugins declare may have one)
};

// Nodes and Pods first, then the kinds plugins read (Namespaces, Services, ReplicaSets,
// StatefulSets, ReplicationControllers, PodDisruptionBudgets, PriorityClasses).
std::span<const Resource> watchedResources();

// "/api/v1/namespaces/ns/pods/p" and friends, with each segment escaped as a URL path segment.
std::string podPath(std::string_view ns, std::string_view name);
// "a b" -> "a%20b": the characters RFC 3986 allows unescaped in a query value or path segment
// stay as they are.
std::string escapeComponent(std::string_view text);

}  // namespace sh::kube

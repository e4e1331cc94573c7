// Diagnosis and FitError: why a pod fit no node, in upstream's exact words (upstream
// framework/types.go: Diagnosis, FitError.Error).
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "host/framework/node_to_status.h"

namespace sh {

struct Diagnosis {
  NodeToStatus nodeToStatus;
  std::set<std::string, std::less<>> unschedulablePlugins;
  std::set<std::string, std::less<>> pendingPlugins;
  std::string preFilterMsg;
  std::string postFilterMsg;

  // Records a rejecting plugin status (ignored when its plugin is unnamed).
  void addPluginStatus(const Status& s);
};

struct FitError {
  std::size_t numAllNodes = 0;
  Diagnosis diagnosis;

  // "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s)."
  std::string message() const;
};

// The message for a cluster with no nodes at all.
inline constexpr const char* kNoNodesAvailable = "no nodes available to schedule pods";

}  // namespace sh

// Comparable summaries of NodeInfos and snapshots for the cache tests: what a plugin can
// observe, minus generations and pod order (which is not stable, as upstream).
#pragma once

#include <schedhost/plugin.h>

#include <cstdint>
#include <string>
#include <vector>

#include "host/cache/cache.h"
#include "host/cache/snapshot.h"
#include "host/model/node_info.h"

namespace sh::cache::testing {

struct NodeSummary {
  std::string name;                           // "" for a NodeInfo without a node
  std::vector<std::string> pods;              // UIDs, sorted
  std::vector<std::string> podsWithAffinity;  // UIDs, sorted
  std::vector<std::string> podsWithRequiredAntiAffinity;
  int64_t milliCpu = 0;
  int64_t memory = 0;
  int64_t ephemeralStorage = 0;
  int64_t nonZeroMilliCpu = 0;
  int64_t nonZeroMemory = 0;
  std::vector<std::string> scalars;      // "name=value", zero values left out, sorted
  std::vector<std::string> usedPorts;    // "proto/ip:port", sorted
  std::vector<std::string> imageStates;  // "name size=S nodes=N", sorted

  bool operator==(const NodeSummary&) const = default;
};

struct SnapshotSummary {
  std::vector<NodeSummary> nodes;  // snapshot order
  std::vector<std::string> withAffinity;
  std::vector<std::string> withRequiredAntiAffinity;
  std::vector<std::string> usedPvcs;  // "ns/claim=count", sorted

  bool operator==(const SnapshotSummary&) const = default;
};

NodeSummary summarize(const sh_node_info& info);
NodeSummary summarize(const model::NodeInfo& info);
SnapshotSummary summarize(const Snapshot& snapshot);

// "" when equal, else a description of the first difference.
std::string diff(const NodeSummary& want, const NodeSummary& got);
std::string diff(const SnapshotSummary& want, const SnapshotSummary& got);

// Checks the snapshot's internal indexes (views, byName, the affinity lists and their
// positions) against nodeInfos; "" when consistent.
std::string checkIndexes(const Snapshot& snapshot);

// Compares an incrementally updated snapshot with one built from scratch from the cache's
// current objects, and checks its indexes; "" when they agree. With `anyNodeOrder` the node
// order is not compared (a node that changed zone keeps its place in the snapshot until a
// node is added or removed, while a rebuild follows the tree).
std::string compareWithRebuild(const Cache& cache, const Snapshot& snapshot,
                               bool anyNodeOrder = false);

// Names of the snapshot's nodes, in order.
std::vector<std::string> nodeNames(const Snapshot& snapshot);

}  // namespace sh::cache::testing

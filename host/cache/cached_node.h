// CachedNode: one entry of the cache's node list (upstream backend/cache/cache.go:
// nodeInfoListItem).
//
// The entry outlives its node while pods still name it: after removeNode, or when a pod
// arrives before its node, `info` has no node (a "ghost") and is never published.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "host/cache/image_index.h"
#include "host/model/node_info.h"

namespace sh::cache {

struct CachedNode {
  explicit CachedNode(std::string n) : name(std::move(n)) {}

  std::string name;
  model::NodeInfo info;
  // The index entries behind info's image states (parallel to them), and the
  // ImageIndex::epoch() they were read at. Before a publication, states older than the
  // index are refreshed through these pointers (no lookups); when the node's own images
  // changed (imageEntriesStale) they are looked up again.
  std::vector<const ImageIndex::Entry*> imageEntries;
  bool imageEntriesStale = true;
  uint64_t imagesEpoch = 0;
  // The last Cache::updateSnapshot round that published this node (dedupes a round's work).
  uint64_t publishRound = 0;
};

}  // namespace sh::cache

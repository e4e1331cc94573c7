// ImageIndex: the cache's image states (upstream backend/cache/cache.go: imageStates;
// framework/plugins/imagelocality).
//
// For each image name some node reports: the size first reported for it and the set of
// nodes reporting it, kept up to date by node add / update / remove, so a snapshot update
// never sums images over all nodes.
//
//   replace(holder, old, new)  moves a node from the images of its old object to those of
//                              the new one; an entry dies with its last node, and a node that
//                              is the only holder of an image replaces its size (upstream
//                              removes then re-adds a node's images)
//   statesFor(node, entries)   a node's image states, with pointers to their entries, so
//   refresh(entries, states)   later count changes are copied in without any lookup
//
// Every change of an entry's node count or size is stamped with a generation from
// model::next_generation(): epoch() is the newest stamp, and forEachHolderChangedAfter(g)
// finds the nodes whose image states differ from those of a snapshot at generation g.
//
// Holders are CachedNode pointers, owned by the Cache. Not thread-safe: the Cache's mutex
// guards it.
#pragma once

#include <schedhost/plugin.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sh::cache {

struct CachedNode;

class ImageIndex {
 public:
  struct Summary {
    int64_t sizeBytes = 0;
    uint32_t numNodes = 0;
  };
  // One image name. Callers keep pointers to the entries of their node's images (see
  // statesFor) and never look inside; an entry lives as long as some node holds it.
  struct Entry {
    sh_id name = SH_ID_NONE;
    int64_t sizeBytes = 0;
    std::unordered_set<CachedNode*> nodes;
    uint64_t generation = 0;
    std::list<Entry*>::iterator recent;
  };

  // `holder` stops reporting the images of oldNode and reports those of newNode (either may
  // be null). Returns whether any entry changed; epoch() then moved on.
  bool replace(CachedNode* holder, const sh_node* oldNode, const sh_node* newNode);

  // The image states of `node`: one per distinct image name, {name, node count, size},
  // sorted by name id, and in `entries` the entry behind each state. Names the index does
  // not hold are left out.
  std::vector<sh_image_state> statesFor(const sh_node& node,
                                        std::vector<const Entry*>& entries) const;
  // Brings the counts and sizes of states made by statesFor up to date: O(states), no
  // lookups. `entries` must still be held by the node the states describe.
  static void refresh(const std::vector<const Entry*>& entries,
                      std::vector<sh_image_state>& states);

  // The newest stamp (0 when nothing ever changed).
  uint64_t epoch() const { return epoch_; }

  // Calls fn(CachedNode*) for every node holding an image whose entry changed after
  // `generation`. A node holding several such images is reported once per image.
  template <typename Fn>
  void forEachHolderChangedAfter(uint64_t generation, Fn&& fn) const {
    for (const Entry* e : recent_) {
      if (e->generation <= generation) {
        break;
      }
      for (CachedNode* holder : e->nodes) {
        fn(holder);
      }
    }
  }

  std::optional<Summary> find(sh_id name) const;
  std::size_t size() const { return images_.size(); }

 private:
  void stamp(Entry& e);

  std::unordered_map<sh_id, Entry> images_;
  std::list<Entry*> recent_;  // most recently changed first
  uint64_t epoch_ = 0;
};

}  // namespace sh::cache

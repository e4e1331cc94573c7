// Counts per topology pair, summed over nodes and kept from one cycle to the next.
//
// PreFilter and PreScore sum, per (topologyKey, value) pair, what the pods of every node
// contribute: matched terms for Filter, term weights for Score. A node's contribution depends
// only on its pods and labels and on the incoming pod's side of the query (its terms, or its
// labels and namespace), so a PairCounter keeps each node's contribution with the node's stamp
// (schedhost/helpers/cross_cycle.hpp) and recomputes only the nodes that changed.
//
//   PairCounters      the SDK's CounterCache of PairCounters: up to 16, one per query key
//                     (the least recently used evicted first), a lock and the cycle's
//                     NodeScan; one per instance
//   PairCounter       per-node contributions and their totals
//   PairTotals        one PairMap per channel (a query may sum two things, e.g. affinity and
//                     anti-affinity), with the number of non-zero pairs and the touched keys
//   PairMap           pair -> {sum, touches}; shared read-only with the cycle states that use
//                     it, copied before a change while shared
//
// Only PreFilter and PreScore (serial) use PairCounters, under its lock; Filter, Score and the
// PreFilter extensions read the PairMaps their cycle state holds.
#ifndef SCHEDHOST_PLUGINS_INTERPODAFFINITY_PAIR_COUNTS_H
#define SCHEDHOST_PLUGINS_INTERPODAFFINITY_PAIR_COUNTS_H

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace schedhost::plugins::interpodaffinity {

// A pair's total, and how many increments made it: a pair somebody added to exists even when
// its total is back to 0 (upstream's score map keeps such entries).
struct PairTotal {
  int64_t sum = 0;
  int64_t touches = 0;
};
using PairMap = IdMap<PairTotal>;

// One contribution of a node: `touches` increments summing to `sum` on `pair` of `channel`.
struct PairDelta {
  uint32_t channel = 0;
  uint64_t pair = 0;
  int64_t sum = 0;
  int64_t touches = 0;
};

// Collects a node's contributions, merging repeated pairs.
class PairSink {
 public:
  explicit PairSink(std::vector<PairDelta>& out) noexcept : out_(out) {}
  void add(uint32_t channel, uint64_t pair, int64_t value) {
    for (PairDelta& d : out_) {
      if (d.pair == pair && d.channel == channel) {
        d.sum += value;
        ++d.touches;
        return;
      }
    }
    out_.push_back({channel, pair, value, 1});
  }

 private:
  std::vector<PairDelta>& out_;
};

struct NodePairs {
  NodeStamp stamp;
  std::vector<PairDelta> deltas;
};

class PairTotals {
 public:
  explicit PairTotals(std::size_t channels = 1) : channels_(channels) {}

  void apply(const std::vector<PairDelta>& deltas, int64_t sign);
  // Drops the pairs nobody touches any more once they are the majority, so that churn does not
  // grow the maps for ever.
  void compact();

  // The channel's totals. Read-only: they are copied before the next change while anyone
  // else holds them.
  std::shared_ptr<const PairMap> totals(std::size_t channel) const {
    return channels_[channel].totals;
  }
  // The pairs whose total is not 0.
  std::size_t nonZero(std::size_t channel) const noexcept { return channels_[channel].nonZero; }
  // The topology keys of the pairs that exist (were touched), in no particular order.
  std::vector<sh_id> touchedKeys(std::size_t channel) const;

 private:
  struct Channel {
    std::shared_ptr<PairMap> totals = std::make_shared<PairMap>();
    std::size_t nonZero = 0;  // pairs whose sum is not 0
    std::size_t touched = 0;  // pairs with touches
    IdMap<int64_t> keyTouches;
  };
  std::vector<Channel> channels_;
};

class PairCounter {
 public:
  explicit PairCounter(std::size_t channels) : totals_(channels) {}

  // Brings the totals up to date with `scan`: collect(const sh_node_info&, PairSink&) gives a
  // node's contributions and runs only for nodes that changed since the last sync.
  template <typename Collect>
  void sync(const NodeScan& scan, Collect&& collect) {
    records_.sync(
        scan, [this](const NodePairs& gone) { totals_.apply(gone.deltas, -1); },
        [&](std::size_t i, NodePairs& fresh) {
          const sh_node_info& ni = scan.at(i);
          if (ni.node == nullptr) {
            return;
          }
          PairSink sink(fresh.deltas);
          collect(ni, sink);
          totals_.apply(fresh.deltas, 1);
        });
    totals_.compact();
  }
  const PairTotals& totals() const noexcept { return totals_; }

 private:
  NodeRecords<NodePairs> records_;
  PairTotals totals_;
};

// The PairCounters of one plugin instance, by query key, with their lock and node scan.
using PairCounters = CounterCache<PairCounter>;

// Whether walking the pods `count(node)` of `nodes` each cycle costs more than checking all
// `snapshotSize` nodes for changes: a few pods are cheaper to walk than thousands of nodes to
// check. Stops counting as soon as the answer is yes.
template <typename Count>
inline bool worthKeeping(const sh_node_info* const* nodes, std::size_t n, std::size_t snapshotSize,
                         Count&& count) noexcept {
  std::size_t pods = 0;
  for (std::size_t i = 0; i < n; ++i) {
    pods += count(*nodes[i]);
    if (pods * 4 > snapshotSize) {
      return true;
    }
  }
  return false;
}

// The totals over nodeAt(0..count) computed afresh, for queries not kept across cycles.
template <typename NodeAt, typename Collect>
inline PairTotals sumDirectly(std::size_t channels, std::size_t count, NodeAt&& nodeAt,
                              Collect&& collect) {
  PairTotals totals(channels);
  std::vector<PairDelta> deltas;
  for (std::size_t i = 0; i < count; ++i) {
    const sh_node_info& ni = nodeAt(i);
    if (ni.node == nullptr) {
      continue;
    }
    deltas.clear();
    PairSink sink(deltas);
    collect(ni, sink);
    totals.apply(deltas, 1);
  }
  return totals;
}

}  // namespace schedhost::plugins::interpodaffinity

#endif  // SCHEDHOST_PLUGINS_INTERPODAFFINITY_PAIR_COUNTS_H

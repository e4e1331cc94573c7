// State kept across cycles: per-node results recomputed only where a node changed.
//
//   NodeStamp, stampOf   a node's identity and version
//   NodeScan             the nodes of one cycle's snapshot with their stamps, read once
//   NodeRecords          per-node results kept in step with the snapshot
//   CounterCache         a few such results by query key (LRU), with their lock and scan
//
// IdMap (id_map.hpp) holds totals over such records cheaply enough to share with a cycle state.
#ifndef SCHEDHOST_HELPERS_CROSS_CYCLE_HPP
#define SCHEDHOST_HELPERS_CROSS_CYCLE_HPP

#include <schedhost/plugin.h>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace schedhost {

// A NodeInfo's generation changes whenever its node or its pods change (the host draws it from
// one process-wide counter, as kube-scheduler does), so a plugin may keep per-node results from
// one cycle to the next and recompute only the nodes whose stamp moved: O(nodes) per cycle
// instead of O(pods). Such a cache belongs to the serial points (PreFilter, PreScore) and needs
// a lock of its own; Filter, Score and the PreFilter extensions run concurrently and must read
// only what the cycle state holds.

// A node's identity and version: its node object (replaced whenever the node changes) and its
// generation. Generation 0 means "unknown": such a stamp equals none.
struct NodeStamp {
  const sh_node* node = nullptr;
  uint64_t generation = 0;

  bool sameAs(const NodeStamp& other) const noexcept {
    return generation != 0 && generation == other.generation && node == other.node;
  }
};

inline NodeStamp stampOf(const sh_node_info& ni) noexcept { return {ni.node, ni.generation}; }

// The nodes of one cycle's snapshot, in snapshot order, with their stamps: read once, then
// shared by every NodeRecords the plugin brings up to date in that cycle. version() tells reads
// apart (0: never read), so a later point of the same cycle can tell whether the scan it
// recorded is still the last one and use it again instead of reading the nodes anew.
class NodeScan {
 public:
  void read(const Snapshot& snapshot) {
    ++version_;
    const std::size_t n = snapshot.size();
    nodes_.resize(n);
    stamps_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const sh_node_info& ni = snapshot.at(i);
      nodes_[i] = &ni;
      stamps_[i] = stampOf(ni);
    }
  }
  std::size_t size() const noexcept { return nodes_.size(); }
  const sh_node_info& at(std::size_t i) const noexcept { return *nodes_[i]; }
  const NodeStamp& stamp(std::size_t i) const noexcept { return stamps_[i]; }
  uint64_t version() const noexcept { return version_; }

 private:
  std::vector<const sh_node_info*> nodes_;
  std::vector<NodeStamp> stamps_;
  uint64_t version_ = 0;
};

// Per-node results R (a struct with a `NodeStamp stamp` member) by snapshot position, kept in
// step with the snapshot. sync() keeps the record of every node whose stamp is unchanged, calls
// drop(const R&) for every record that goes (its node changed or left) and fill(i, R&) for every
// node of the scan that needs a new record (its stamp already set). A caller keeping totals over
// the records subtracts in drop and adds in fill, so the totals always cover exactly the
// snapshot's nodes. When the node list changed length or order (most positions differ), records
// are matched by stamp, so a reordered snapshot costs O(nodes), not a recount.
template <typename R>
class NodeRecords {
 public:
  template <typename Drop, typename Fill>
  void sync(const NodeScan& scan, Drop&& drop, Fill&& fill) {
    const std::size_t n = scan.size();
    std::size_t changed = 0;
    if (records_.size() == n) {
      for (std::size_t i = 0; i < n; ++i) {
        changed += records_[i].stamp.sameAs(scan.stamp(i)) ? 0 : 1;
      }
    }
    if (records_.size() == n && (changed <= 8 || changed * 16 <= n)) {
      for (std::size_t i = 0; i < n && changed > 0; ++i) {
        if (!records_[i].stamp.sameAs(scan.stamp(i))) {
          drop(static_cast<const R&>(records_[i]));
          records_[i] = R{};
          records_[i].stamp = scan.stamp(i);
          fill(i, records_[i]);
          --changed;
        }
      }
      return;
    }
    std::unordered_map<uint64_t, std::size_t> byGeneration;
    byGeneration.reserve(records_.size());
    for (std::size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].stamp.generation != 0) {
        byGeneration.emplace(records_[i].stamp.generation, i);
      }
    }
    std::vector<R> next(n);
    std::vector<bool> taken(records_.size(), false);
    for (std::size_t i = 0; i < n; ++i) {
      auto it = byGeneration.find(scan.stamp(i).generation);
      if (it != byGeneration.end() && !taken[it->second] &&
          records_[it->second].stamp.sameAs(scan.stamp(i))) {
        taken[it->second] = true;
        next[i] = std::move(records_[it->second]);
        continue;
      }
      next[i].stamp = scan.stamp(i);
      fill(i, next[i]);
    }
    for (std::size_t i = 0; i < records_.size(); ++i) {
      if (!taken[i]) {
        drop(static_cast<const R&>(records_[i]));
      }
    }
    records_ = std::move(next);
  }

  std::size_t size() const noexcept { return records_.size(); }
  const R& operator[](std::size_t i) const noexcept { return records_[i]; }

 private:
  std::vector<R> records_;
};

// Up to kMaxCounters counters (per-node results of one query each, e.g. a NodeRecords and the
// totals kept over it) by query key, the least recently used evicted first, with the lock and
// the cycle's NodeScan they share. One per plugin instance. Only the serial points (PreFilter,
// PreScore) use it, and only while holding lock():
//
//   auto lock = cache.lock();
//   const NodeScan& scan = cache.scan(cycle.snapshot());
//   MyCounter& counter = cache.counter(queryKey, [] { return MyCounter(); });
//   counter.sync(scan, ...);  // recount the nodes whose stamp moved
//
// A key names everything the counts depend on besides the nodes (the pod's terms, selector,
// namespace, ...): equal keys must mean equal counts. Counter needs only to be movable.
template <typename Counter>
class CounterCache {
 public:
  static constexpr std::size_t kMaxCounters = 16;

  // Hold the lock for as long as the counters and the scan are used.
  std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mu_); }

  // Reads the cycle's nodes before counter(). `earlier` is the version of a scan read earlier
  // in the same cycle (0: none): while it is still the last one, the nodes are not read again.
  const NodeScan& scan(const Snapshot& snapshot, uint64_t earlier = 0) {
    if (earlier == 0 || earlier != scan_.version()) {
      scan_.read(snapshot);
    }
    return scan_;
  }
  // The last scan read.
  const NodeScan& lastScan() const noexcept { return scan_; }

  // The counter of `key`, made by make() when there is none (evicting the least recently used
  // when kMaxCounters are kept). Not synced: the caller brings it up to date with the scan.
  template <typename Make>
  Counter& counter(std::string key, Make&& make) {
    ++tick_;
    for (const auto& e : entries_) {
      if (e->key == key) {
        e->lastUse = tick_;
        return e->counter;
      }
    }
    if (entries_.size() >= kMaxCounters) {
      auto oldest =
          std::min_element(entries_.begin(), entries_.end(),
                           [](const auto& a, const auto& b) { return a->lastUse < b->lastUse; });
      entries_.erase(oldest);
    }
    entries_.push_back(std::unique_ptr<Entry>(new Entry{std::move(key), tick_, make()}));
    return entries_.back()->counter;
  }

  std::size_t size() const noexcept { return entries_.size(); }

 private:
  struct Entry {
    std::string key;
    uint64_t lastUse = 0;
    Counter counter;
  };

  std::mutex mu_;
  NodeScan scan_;
  std::vector<std::unique_ptr<Entry>> entries_;
  uint64_t tick_ = 0;
};

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_CROSS_CYCLE_HPP

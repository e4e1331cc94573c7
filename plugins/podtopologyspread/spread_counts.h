// Matching pods per topology domain, kept from one cycle to the next.
//
// PreFilter and PreScore need, for a constraint, the number of pods in the pod's namespace that
// are not terminating and match the constraint's selector, summed per value of its topology key
// over the nodes that carry every required key. Counting walks every pod of every node; a
// MatchCounter keeps each node's count with the node's stamp (schedhost/helpers/
// cross_cycle.hpp) and recounts only the nodes that changed since the last cycle, and keeps the
// per-domain sums up to date as it goes.
//
//   SpreadCounts      one per plugin instance: the SDK's CounterCache of MatchCounters (a
//                     lock, the cycle's NodeScan and up to 16 counters, the least recently
//                     used evicted first)
//   MatchCounter      one per CountQuery: per-node counts and their per-domain sums
//   DomainMap         domain value -> {matching pods, eligible nodes}; shared read-only with
//                     the cycle states that use it, copied before a change while shared
//   ConstraintCounts  a cycle state's view of one DomainMap, copied on its first AddPod or
//                     RemovePod
//
// Only PreFilter and PreScore (serial, one cycle at a time) use SpreadCounts, and only while
// holding its lock. Filter, Score and the PreFilter extensions read the DomainMap a cycle state
// holds, which nobody writes while it is shared.
#ifndef SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_SPREAD_COUNTS_H
#define SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_SPREAD_COUNTS_H

#include "selector.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <array>
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

// A topology domain: the matching pods on its eligible nodes and the number of those nodes. A
// domain exists while it has an eligible node (upstream creates the map entry for every node
// it visits, even with 0 pods).
struct Domain {
  int64_t count = 0;
  int64_t nodes = 0;
};
using DomainMap = IdMap<Domain>;

// criticalPaths: the two domains with the fewest matching pods (the first always holds the
// minimum), updated as upstream does.
struct CriticalPaths {
  struct Path {
    sh_id value = SH_ID_NONE;
    int64_t num = INT32_MAX;
  };
  std::array<Path, 2> p{};

  void update(sh_id value, int64_t num) noexcept {
    int i = -1;
    if (value == p[0].value) {
      i = 0;
    } else if (value == p[1].value) {
      i = 1;
    }
    if (i >= 0) {
      p[static_cast<std::size_t>(i)].num = num;
      if (p[0].num > p[1].num) {
        std::swap(p[0], p[1]);
      }
    } else if (num < p[0].num) {
      p[1] = p[0];
      p[0] = {value, num};
    } else if (num < p[1].num) {
      p[1] = {value, num};
    }
  }
};

// The critical paths over the domains that exist. Upstream walks a Go map (random order); the
// minimum does not depend on the order, and only ties between equal counts do.
CriticalPaths criticalPathsOf(const DomainMap& domains);

// countPodsMatchSelector: pods in namespace `ns`, not terminating, matching the selector; an
// empty selector counts nothing.
int64_t countMatching(const sh_node_info& ni, const Selector& selector, std::string_view ns);

// What a MatchCounter counts: pods in `ns` matching `selector`, per value of `topologyKey`, over
// the nodes that carry every key of `requiredKeys` (sorted; empty: every node).
struct CountQuery {
  const Selector* selector = nullptr;
  std::string_view ns;
  sh_id topologyKey = SH_ID_NONE;
  const std::vector<sh_id>* requiredKeys = nullptr;

  // Equal keys, equal counts.
  std::string key() const;
};

// One node's part of a query.
struct NodeCount {
  NodeStamp stamp;
  bool eligible = false;      // the node carries every required key
  sh_id domain = SH_ID_NONE;  // its value of the topology key, canonical ("" when absent)
  int64_t count = 0;          // matching pods on it
};

class MatchCounter {
 public:
  // Recounts the nodes of `scan` that changed since the last sync.
  void sync(const NodeScan& scan, const CountQuery& query);

  // The domains over the eligible nodes. Read-only: the counter copies it before its next
  // change while anyone else holds it.
  std::shared_ptr<const DomainMap> domains() const { return domains_; }
  // The number of domains that exist.
  std::size_t domainCount() const noexcept { return existing_; }
  const CriticalPaths& paths();
  // The count of the scan's i-th node.
  const NodeCount& node(std::size_t i) const noexcept { return nodes_[i]; }

 private:
  DomainMap& writableDomains();
  void add(const NodeCount& n, int64_t sign);

  NodeRecords<NodeCount> nodes_;
  std::shared_ptr<DomainMap> domains_ = std::make_shared<DomainMap>();
  std::size_t existing_ = 0;
  CriticalPaths paths_;
  bool pathsStale_ = true;
};

// One constraint's counts in a PreFilter state: the cache's DomainMap, shared read-only, until
// AddPod or RemovePod writes; the state then works on a copy of its own.
class ConstraintCounts {
 public:
  ConstraintCounts() = default;
  ConstraintCounts(std::shared_ptr<const DomainMap> shared, std::size_t domains,
                   const CriticalPaths& paths)
      : shared_(std::move(shared)), domains_(domains), paths_(paths) {}
  ConstraintCounts(const ConstraintCounts& o)
      : shared_(o.shared_),
        own_(o.own_ != nullptr ? std::make_unique<DomainMap>(*o.own_) : nullptr),
        domains_(o.domains_),
        paths_(o.paths_) {}
  ConstraintCounts& operator=(const ConstraintCounts& o) {
    ConstraintCounts copy(o);
    std::swap(shared_, copy.shared_);
    std::swap(own_, copy.own_);
    domains_ = copy.domains_;
    paths_ = copy.paths_;
    return *this;
  }
  ConstraintCounts(ConstraintCounts&&) noexcept = default;
  ConstraintCounts& operator=(ConstraintCounts&&) noexcept = default;

  // The matching pods of `domain`, 0 for a domain that does not exist.
  int64_t count(sh_id domain) const noexcept {
    const Domain* d = map().find(domain);
    return d == nullptr ? 0 : d->count;
  }
  std::size_t domains() const noexcept { return domains_; }
  const CriticalPaths& paths() const noexcept { return paths_; }

  // TpValueToMatchNum[domain] += delta, creating the domain, and the critical paths after it.
  void add(sh_id domain, int64_t delta) {
    if (own_ == nullptr) {
      own_ = std::make_unique<DomainMap>(*shared_);
      shared_.reset();
    }
    Domain& d = (*own_)[domain];
    if (d.nodes == 0) {
      d.nodes = 1;  // the domain exists from now on
      ++domains_;
    }
    d.count += delta;
    paths_.update(domain, d.count);
  }

 private:
  const DomainMap& map() const noexcept { return own_ != nullptr ? *own_ : *shared_; }

  std::shared_ptr<const DomainMap> shared_;
  std::unique_ptr<DomainMap> own_;
  std::size_t domains_ = 0;
  CriticalPaths paths_;
};

// The MatchCounters of one plugin instance, by query, with their lock and node scan.
using SpreadCounts = CounterCache<MatchCounter>;

// The counter of `query` in `counts`, synced with the scan read last (hold the lock).
MatchCounter& syncedCounter(SpreadCounts& counts, const CountQuery& query);

}  // namespace schedhost::plugins::podtopologyspread

#endif  // SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_SPREAD_COUNTS_H

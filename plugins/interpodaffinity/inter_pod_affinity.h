// InterPodAffinity: a pod fits a node when its required pod affinity is satisfied in the node's
// topology domain, its required anti-affinity is not violated there, and no existing pod's
// required anti-affinity forbids it; nodes in domains with pods the pod prefers (or that prefer
// it) score higher.
//
// Extension points: PreFilter (+AddPod/RemovePod), Filter, PreScore, Score, NormalizeScore,
// EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/interpodaffinity/{filtering,scoring,plugin}.go
// (v1.36).
//
//   inter_pod_affinity.cc  construction and registration (plugin.go)
//   filtering.cc           PreFilter, AddPod/RemovePod, Filter (filtering.go)
//   scoring.cc             PreScore, Score, NormalizeScore (scoring.go)
//   events.cc              EnqueueExtensions and queueing hints (plugin.go)
#ifndef SCHEDHOST_PLUGINS_INTERPODAFFINITY_INTER_POD_AFFINITY_H
#define SCHEDHOST_PLUGINS_INTERPODAFFINITY_INTER_POD_AFFINITY_H

#include "args.h"
#include "node_contributions.h"
#include "pair_counts.h"
#include "terms.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace schedhost::plugins::interpodaffinity {

constexpr const char* kName = "InterPodAffinity";
// Cycle-state keys, as upstream's preFilterStateKey = "PreFilter" + Name.
inline const std::string kPreFilterStateKey = std::string("PreFilter") + kName;
inline const std::string kPreScoreStateKey = std::string("PreScore") + kName;

// One topologyToMatchedTermCount of a PreFilter state: totals from the counter cache, shared
// read-only, until AddPod or RemovePod writes; the state then works on a copy of its own. A
// pair whose total is 0 counts as absent (upstream deletes such entries).
class TermCounts {
 public:
  TermCounts() = default;
  TermCounts(std::shared_ptr<const PairMap> shared, std::size_t nonZero)
      : shared_(std::move(shared)), nonZero_(nonZero) {}
  TermCounts(const TermCounts& o)
      : shared_(o.shared_),
        own_(o.own_ != nullptr ? std::make_unique<PairMap>(*o.own_) : nullptr),
        nonZero_(o.nonZero_) {}
  TermCounts& operator=(const TermCounts& o) {
    TermCounts copy(o);
    std::swap(shared_, copy.shared_);
    std::swap(own_, copy.own_);
    nonZero_ = copy.nonZero_;
    return *this;
  }
  TermCounts(TermCounts&&) noexcept = default;
  TermCounts& operator=(TermCounts&&) noexcept = default;

  int64_t count(uint64_t pair) const noexcept {
    const PairMap* m = own_ != nullptr ? own_.get() : shared_.get();
    const PairTotal* t = m == nullptr ? nullptr : m->find(pair);
    return t == nullptr ? 0 : t->sum;
  }
  bool empty() const noexcept { return nonZero_ == 0; }

  // topologyToMatchedTermCount.update: adds `value` to (key, the node's value of key) when the
  // node has the label.
  void update(const sh_node& node, sh_id key, int64_t value) {
    const sh_label* label = findLabel(node, key);
    if (label == nullptr) {
      return;
    }
    if (own_ == nullptr) {
      own_ = shared_ != nullptr ? std::make_unique<PairMap>(*shared_) : std::make_unique<PairMap>();
      shared_.reset();
    }
    PairTotal& t = (*own_)[topologyPair(key, label->value)];
    const bool wasNonZero = t.sum != 0;
    t.sum += value;
    if (t.sum != 0 && !wasNonZero) {
      ++nonZero_;
    } else if (t.sum == 0 && wasNonZero) {
      --nonZero_;
    }
  }

 private:
  std::shared_ptr<const PairMap> shared_;
  std::unique_ptr<PairMap> own_;
  std::size_t nonZero_ = 0;
};

// What PreFilter computes for Filter; AddPod/RemovePod keep it up to date on clones.
struct PreFilterState {
  // Existing pods' required anti-affinity terms matching the incoming pod.
  TermCounts existingAntiAffinityCounts;
  // The incoming pod's required affinity terms (all of them) matched by existing pods.
  TermCounts affinityCounts;
  // The incoming pod's required anti-affinity terms matched by existing pods.
  TermCounts antiAffinityCounts;
  // The labels of the incoming pod's namespace (valid for the cycle).
  NsLabels namespaceLabels;
  // The incoming pod matches all its own required affinity terms (first pod of a group).
  bool matchesOwnAffinity = false;
  // The version of the node scan PreFilter read (0: none), for PreScore to use again.
  uint64_t scanVersion = 0;
};

// What PreScore computes for Score: Σ weights per topology pair (shared, never changed), and
// the topology keys of the pairs that exist.
struct PreScoreState {
  std::shared_ptr<const PairMap> topologyScore;
  std::vector<sh_id> topologyKeys;
};

class InterPodAffinity : public PreFilterPlugin,
                         public PreFilterExtensions,
                         public FilterPlugin,
                         public PreScorePlugin,
                         public ScorePlugin,
                         public ScoreExtensions,
                         public EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson =
      R"({"hardPodAffinityWeight":1,"ignorePreferredTermsOfExistingPods":false})";

  InterPodAffinity(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status addPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& node);
  Status removePod(Cycle& cycle, const sh_pod& pod, const sh_pod& other, const sh_node_info& node);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  Status preScore(Cycle& cycle, const sh_pod& pod, const sh_node_info* const* nodes,
                  std::size_t count);
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
  Status normalizeScore(Cycle& cycle, const sh_pod& pod, sh_node_score* scores, std::size_t count);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  Status updateWithPod(Cycle& cycle, const sh_pod& pod, const sh_pod& other,
                       const sh_node_info& nodeInfo, int64_t multiplier);

  Host host_;
  InterPodAffinityArgs args_;
  sh_id preFilterKey_;
  sh_id preScoreKey_;
  // Per-node contributions kept across cycles for PreFilter and PreScore.
  std::unique_ptr<PairCounters> counters_ = std::make_unique<PairCounters>();
};

}  // namespace schedhost::plugins::interpodaffinity

#endif  // SCHEDHOST_PLUGINS_INTERPODAFFINITY_INTER_POD_AFFINITY_H

// AttemptStore: the last failed scheduling attempt of each pending pod, kept for `schedhost
// explain` and /debug/pods (docs/explaining-decisions.md).
//
// A record is what the scheduling cycle knew when the pod failed: the profile and generation,
// the FailedScheduling message, PreFilter's and PostFilter's messages, and the nodes grouped by
// the plugin that rejected them and its reasons (a node fails at its first rejecting Filter
// plugin, as upstream's). Groups keep their node count and the first kNodeNamesPerGroup names,
// so a record of 5,000 nodes costs what a few dozen names do.
//
// Bounded: at most `maxBytes` of records (estimated from their strings), the oldest dropped first
// when a new one would exceed it; a pod's new attempt replaces its record and keeps the group
// counts of the one before, to say what changed. A pod that binds, or is deleted, is forgotten.
// Thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sh::cycle {

struct AttemptRecord {
  // Nodes that failed the same way: the plugin, its status code and reasons.
  struct NodeGroup {
    std::string plugin;  // "" when no plugin is named (a node not examined)
    std::string code;    // Unschedulable, UnschedulableAndUnresolvable, Error, ...
    std::vector<std::string> reasons;
    std::size_t count = 0;
    std::vector<std::string> nodes;  // the first kNodeNamesPerGroup, in name order
    // "plugin: reasons" — what groups are compared by across attempts.
    std::string key() const;
  };

  std::string pod;  // namespace/name
  std::string uid;
  std::string profile;
  uint64_t generation = 0;
  int64_t unixNanos = 0;  // when the attempt ended
  int attempts = 0;       // the pod's attempts so far, this one included
  std::string result;     // unschedulable | error
  std::string message;    // the FailedScheduling message
  std::size_t numAllNodes = 0;
  std::string preFilterMessage;
  std::string postFilterMessage;
  std::string nominatedNode;
  std::vector<std::string> unschedulablePlugins;
  std::vector<std::string> pendingPlugins;
  std::vector<NodeGroup> groups;  // largest first, then by key
  // The profile's Filter and Score plugins, in the order they run.
  std::vector<std::string> filterPlugins;
  std::vector<std::string> scorePlugins;
  // A feasible node with each Score plugin's score and the weighted total.
  struct ScoredNode {
    std::string name;
    std::vector<std::pair<std::string, int64_t>> scores;
    int64_t total = 0;
  };
  // When the attempt found feasible nodes and failed after (Reserve, Permit): the best
  // kBestNodes, best first, and how many there were.
  std::vector<ScoredNode> best;
  std::size_t feasibleCount = 0;
  // The previous attempt's groups (key -> count), when there was one.
  std::optional<std::map<std::string, std::size_t>> previousGroups;

  std::size_t estimatedBytes() const;
};

class AttemptStore {
 public:
  static constexpr std::size_t kNodeNamesPerGroup = 50;
  static constexpr std::size_t kMaxGroups = 64;  // the rest fold into the last group
  static constexpr std::size_t kBestNodes = 10;
  static constexpr std::size_t kDefaultMaxBytes = 32u << 20;

  explicit AttemptStore(std::size_t maxBytes = kDefaultMaxBytes) : maxBytes_(maxBytes) {}

  // Keeps `record` as its pod's last attempt (replacing the previous one, whose group counts
  // become its previousGroups), then drops the oldest records while over the limit.
  void record(AttemptRecord record);
  std::optional<AttemptRecord> last(std::string_view pod) const;
  void forget(std::string_view pod);
  std::size_t size() const;
  std::size_t bytes() const;
  // No record kept (without the lock; a record being added on another thread may be missed).
  bool empty() const { return count_.load(std::memory_order_relaxed) == 0; }

 private:
  using Entry = std::pair<std::string, AttemptRecord>;
  mutable std::mutex mu_;
  std::size_t maxBytes_;
  std::size_t bytes_ = 0;
  // order_.size(), read without the lock: forget() runs for every pod bound, and there is
  // seldom anything to forget.
  std::atomic<std::size_t> count_{0};
  std::list<Entry> order_;  // oldest first
  std::unordered_map<std::string, std::list<Entry>::iterator> byPod_;
};

// Groups `statuses` (node -> (plugin, code, reasons)) as AttemptRecord::groups are: by plugin
// and reasons, largest group first, names sorted, at most kNodeNamesPerGroup names and
// kMaxGroups groups kept (or the limits given: an explanation of a scenario keeps every name).
struct NodeVerdict {
  std::string node;
  std::string plugin;
  std::string code;
  std::vector<std::string> reasons;
};
std::vector<AttemptRecord::NodeGroup> groupNodes(
    std::vector<NodeVerdict> verdicts, std::size_t maxNames = AttemptStore::kNodeNamesPerGroup,
    std::size_t maxGroups = AttemptStore::kMaxGroups);

}  // namespace sh::cycle

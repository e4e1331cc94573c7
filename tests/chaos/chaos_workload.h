// The chaos soak's workload: what a busy cluster does to a scheduler, written to the embedded
// cluster's change stream (a pipe, as `schedhost run` reads stdin) by one thread.
//
//   pods     created in batches, never more than `backlog` pending at once; each bound pod
//            "completes" (is deleted) once more than `boundTarget` per node are bound, so a
//            million pods pass through a cluster of a few dozen nodes;
//   churn    while pods are created: pending pods deleted (in a queue, in a cycle, waiting on
//            Permit or binding), nodes added, deleted (with the pods bound to them, as the pod
//            garbage collector would) and tainted or untainted;
//   doomed   every `doomEvery`-th pod can never bind: alternately it asks for more cpu than
//            any node has (labelled so that ChaosCycle leaves it alone, so its reason stays
//            Insufficient cpu), or carries the label that makes ChaosCycle fail it with Error.
//
// The workload knows what it asked for: each pod's state (pending, bound, deleted), the node a
// bound pod went to (from the connector's successful binds, noteBind()) and the nodes alive.
// What it writes is a function of the seed and of the order binds come back in.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sh::chaos {

inline constexpr char kNamespace[] = "chaos";

struct WorkloadOptions {
  std::size_t pods = 20000;
  std::size_t nodes = 64;
  uint64_t seed = 1;
  std::size_t backlog = 2000;        // pending pods at most
  std::size_t boundTarget = 18;      // bound pods per live node before the oldest completes
  std::size_t doomEvery = 5000;      // 0: no doomed pods
  std::size_t podDeleteEvery = 100;  // created pods per deletion of a pending pod
  std::size_t nodeEventEvery = 250;  // created pods per node event
};

// Requests of a pod, in the units the workload writes them in.
struct PodShape {
  int64_t milliCpu = 0;
  int64_t memoryMi = 0;
  enum class Doom { kNone, kTooBig, kError } doom = Doom::kNone;
};

// A node's allocatable resources; every node of the workload has the same.
inline constexpr int64_t kNodeMilliCpu = 8000;
inline constexpr int64_t kNodeMemoryMi = 32 * 1024;
inline constexpr int64_t kNodePods = 110;

struct ChurnCounts {
  uint64_t podsCreated = 0;
  uint64_t pendingDeleted = 0;  // deleted before any bind was seen
  uint64_t completed = 0;       // bound, then deleted to make room
  uint64_t collected = 0;       // bound to a deleted node, then deleted
  uint64_t nodesAdded = 0;
  uint64_t nodesDeleted = 0;
  uint64_t taints = 0;
  uint64_t untaints = 0;
  uint64_t deleted() const { return pendingDeleted + completed + collected; }
};

class Workload {
 public:
  enum class PodState : uint8_t { kUnborn, kPending, kBound, kDeleted };

  explicit Workload(WorkloadOptions options);

  // The initial state: the nodes, as JSON lines.
  std::string initialState() const;
  // A Namespace whose arrival in the cluster's store shows that every line written before it
  // was read.
  static std::string syncLine(uint64_t n);

  // Called by the connector for every successful bind (any thread).
  void noteBind(std::string_view podName, std::string_view node);

  // One step of the workload: takes the binds noted since, completes, creates and (with
  // `churn`) churns. Appends the change lines to `out`; returns whether it did anything.
  bool step(bool churn, std::string& out);
  // A taint or untaint of one node: what keeps the rejected pods moving once churn stops.
  void touchNode(std::string& out);

  bool allCreated() const { return churn_.podsCreated == options_.pods; }
  // Pending pods that can bind (not doomed).
  std::size_t pendingBindable() const { return pending_ - pendingDoomed_; }
  std::size_t pending() const { return pending_; }
  std::size_t bound() const { return bound_; }
  const ChurnCounts& churn() const { return churn_; }
  const WorkloadOptions& options() const { return options_; }

  PodState state(std::size_t id) const { return state_[id]; }
  // The node a bound pod went to ("" unless bound).
  std::string_view nodeOf(std::size_t id) const;
  bool nodeAlive(std::string_view name) const;
  std::size_t nodesAlive() const { return alive_.size(); }

  // The pod's shape (a function of the seed and the id) and its name ("p<id>").
  PodShape shape(std::size_t id) const;
  static std::string podName(std::size_t id) { return "p" + std::to_string(id); }
  // The id of a pod name, or -1.
  static int64_t idOf(std::string_view podName);

 private:
  struct Node {
    std::string name;
    bool alive = true;
    bool tainted = false;
  };

  void podLine(std::string& out, std::size_t id) const;
  void deletePodLine(std::string& out, std::size_t id) const;
  void nodeLine(std::string& out, const char* type, const Node& node) const;
  void deletePod(std::size_t id, std::string& out);
  void addNode(std::string& out);
  void nodeEvent(std::string& out);

  WorkloadOptions options_;
  std::mt19937_64 rng_;

  std::mutex bindsMu_;
  std::vector<std::pair<std::size_t, std::string>> binds_;  // under bindsMu_: (pod id, node)

  std::vector<PodState> state_;
  std::vector<int32_t> nodeOf_;  // index into nodes_ of a bound pod
  std::deque<std::size_t> boundOrder_;
  std::size_t pending_ = 0;
  std::size_t pendingDoomed_ = 0;
  std::size_t bound_ = 0;
  std::size_t oldestPending_ = 0;  // no pending pod has a smaller id
  std::chrono::steady_clock::time_point lastBind_ = std::chrono::steady_clock::now();
  ChurnCounts churn_;

  std::vector<Node> nodes_;
  std::unordered_map<std::string, int32_t> nodeIndex_;
  std::vector<int32_t> alive_;  // indexes of live nodes
};

}  // namespace sh::chaos

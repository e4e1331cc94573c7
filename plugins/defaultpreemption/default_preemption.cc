// DefaultPreemption: when a pod fits no node, find a node where evicting pods of lower
// priority makes it fit, evict the fewest and least important of them, and nominate that
// node for the pod (upstream default_preemption.go: PostFilter, and
// framework/preemption/preemption.go: Evaluator.Preempt).
//
//   eligibility   preemptionPolicy Never, or a victim of an earlier preemption still
//                 terminating on the nominated node: no preemption
//   candidates    nodes Filter found Unschedulable (never UnschedulableAndUnresolvable),
//                 dry-run in parallel from a random offset (the host's seeded generator)
//                 until max(10% of them, 100) candidates, one at least not violating a PDB
//   extenders     the scheduler's HTTP extenders with a preemptVerb may drop candidates or
//                 change their victims (preemption_extenders, upstream callExtenders)
//   choice        pickOneNodeForPreemption (pick_node.h)
//   actuation     the host evicts the victims (preempt_victims), then the node is nominated
//   waiting       while the host is still evicting a pod's victims (asynchronous preemption),
//                 PreEnqueue holds the pod back: UnschedulableAndUnresolvable "waiting for the
//                 preemption for this pod to be finished"; a pod deletion lets it through
//                 again, through the hints of the plugins that rejected it (this plugin's hint
//                 is always QueueSkip, as upstream's)
//
// Extension points: PreEnqueue, PostFilter; events: Pod/Delete.
// Upstream: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go and
// pkg/scheduler/framework/preemption/preemption.go, executor.go (v1.36); the evictions
// themselves are the host's (host/cycle/preemption.cc).
#include "args.h"
#include "pick_node.h"
#include "victims.h"

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace schedhost::plugins::defaultpreemption {

constexpr const char* kName = "DefaultPreemption";
constexpr char kNotHelpful[] = "Preemption is not helpful for scheduling";
constexpr char kPolicyNever[] = "not eligible due to preemptionPolicy=Never.";
constexpr char kTerminatingOnNominated[] =
    "not eligible due to a terminating pod on the nominated node.";
constexpr char kWaitingForPreemption[] = "waiting for the preemption for this pod to be finished";
constexpr char kNoCandidate[] = "no candidate node for preemption";

// A node's dry-run outcome.
struct NodeResult {
  Status status;
  Victims victims;
};

class DefaultPreemption : public PreEnqueuePlugin,
                          public PostFilterPlugin,
                          public EnqueueExtensions {
 public:
  static constexpr const char* kDefaultArgsJson =
      R"({"minCandidateNodesPercentage":10,"minCandidateNodesAbsolute":100})";

  DefaultPreemption(Host& host, const Args& args) : host_(host), args_(parseArgs(args)) {}

  Status preEnqueue(const sh_pod& pod) const {
    if (host_.preemptionRunning(pod)) {
      return Status::unresolvable(kWaitingForPreemption);
    }
    return Status::success();
  }

  // The victims' deletions are what a held pod waits for; whether one makes it schedulable is
  // for the plugins that rejected it to say.
  static std::vector<EventRegistration> eventsToRegister() {
    return {{SH_RESOURCE_POD, SH_ACTION_DELETE, true}};
  }
  static sh_queueing_hint queueingHint(std::size_t /*index*/, const sh_pod& /*pod*/,
                                       const sh_event_objects& /*event*/) {
    return SH_QUEUE_SKIP;
  }

  Status postFilter(Cycle& cycle, const sh_pod& pod) {
    Status s = preempt(cycle, pod);
    std::vector<std::string> reasons = s.reasons();
    if (reasons.empty()) {
      return s;
    }
    std::string message = "preemption: ";
    for (std::size_t i = 0; i < reasons.size(); ++i) {
      message += (i > 0 ? ", " : "") + reasons[i];
    }
    return Status::make(s.code(), std::move(message));
  }

 private:
  Status preempt(Cycle& cycle, const sh_pod& pod);
  bool eligible(const Cycle& cycle, const sh_pod& pod, Status& why) const;
  std::vector<Candidate> dryRun(const Preemption& preemption, const sh_pod& pod,
                                const std::vector<const sh_node_info*>& potential,
                                const sh_pdb* const* pdbs, std::size_t pdbCount,
                                std::map<std::string, Status>& failed, Status& error,
                                int64_t now) const;

  // The candidates the scheduler's preempting extenders keep, in their order.
  static Status callExtenders(const Preemption& preemption, const Snapshot& snapshot,
                              const sh_pod& pod, std::vector<Candidate>& candidates);

  Host host_;
  DefaultPreemptionArgs args_;
};

// "0/N nodes are available: <histogram>." over every node of the snapshot, as FitError
// writes it: the failed nodes' reasons once per node, the other nodes' as "Preemption is
// not helpful for scheduling".
std::string fitErrorMessage(std::size_t numAllNodes, const std::map<std::string, Status>& failed) {
  std::map<std::string, std::size_t> histogram;
  for (const auto& [node, status] : failed) {
    for (const std::string& r : status.reasons()) {
      ++histogram[r];
    }
  }
  if (failed.size() < numAllNodes) {
    histogram[kNotHelpful] += numAllNodes - failed.size();
  }
  std::vector<std::string> parts;
  for (const auto& [reason, count] : histogram) {
    parts.push_back(std::to_string(count) + " " + reason);
  }
  std::sort(parts.begin(), parts.end());
  std::string out = "0/" + std::to_string(numAllNodes) + " nodes are available:";
  std::string joined;
  for (const std::string& p : parts) {
    joined += (joined.empty() ? "" : ", ") + p;
  }
  if (!joined.empty()) {
    out += " " + joined + ".";
  }
  return out;
}

bool DefaultPreemption::eligible(const Cycle& cycle, const sh_pod& pod, Status& why) const {
  if (pod.preemption_policy == SH_PREEMPT_NEVER) {
    why = Status::unschedulable(kPolicyNever);
    return false;
  }
  const std::string_view nominated = view(pod.nominated_node_name);
  if (nominated.empty()) {
    return true;
  }
  // The nominated node turned out hopeless: preempting elsewhere is fine.
  if (cycle.nodeFilterCode(nominated) == SH_UNSCHEDULABLE_AND_UNRESOLVABLE) {
    return true;
  }
  // Victims of an earlier preemption still terminating there: wait for them.
  if (const sh_node_info* node = cycle.snapshot().find(nominated)) {
    for (uint32_t i = 0; i < node->pod_count; ++i) {
      const sh_pod& p = *node->pods[i];
      if (p.priority < pod.priority && terminatingByPreemption(p)) {
        why = Status::unschedulable(kTerminatingOnNominated);
        return false;
      }
    }
  }
  return true;
}

std::vector<Candidate> DefaultPreemption::dryRun(const Preemption& preemption, const sh_pod& pod,
                                                 const std::vector<const sh_node_info*>& potential,
                                                 const sh_pdb* const* pdbs, std::size_t pdbCount,
                                                 std::map<std::string, Status>& failed,
                                                 Status& error, int64_t now) const {
  const std::size_t n = potential.size();
  const std::size_t offset = static_cast<std::size_t>(preemption.random() % n);
  const std::size_t wanted = static_cast<std::size_t>(numCandidates(
      args_, static_cast<int32_t>(std::min<std::size_t>(n, std::numeric_limits<int32_t>::max()))));
  std::vector<Candidate> nonViolating;
  std::vector<Candidate> violating;
  // Nodes are tried in rounds, in parallel within a round, and read back in order, so the
  // candidates never depend on which worker finished first.
  std::size_t processed = 0;
  std::vector<NodeResult> round;
  while (processed < n) {
    const std::size_t have = nonViolating.size() + violating.size();
    const std::size_t want = wanted > have ? wanted - have : 1;
    const std::size_t len = std::min(n - processed, std::max<std::size_t>(want, 16));
    round.assign(len, NodeResult{});
    preemption.parallelFor(len, [&](std::size_t i) {
      const sh_node_info& node = *potential[(offset + processed + i) % n];
      NodeResult& r = round[i];
      r.status = selectVictimsOnNode(preemption, pod, node, pdbs, pdbCount, now, r.victims);
      if (r.status.ok() && r.victims.pods.empty()) {
        r.status = Status::error("expected at least one victim pod on node " +
                                 quoted(view(node.node->name)));
      }
    });
    bool done = false;
    for (std::size_t i = 0; i < len && !done; ++i) {
      const sh_node_info* node = potential[(offset + processed + i) % n];
      NodeResult& r = round[i];
      if (r.status.ok()) {
        std::vector<Candidate>& list = r.victims.numPdbViolations == 0 ? nonViolating : violating;
        if (list.size() < wanted) {
          list.push_back(Candidate{node, std::move(r.victims)});
        }
        done = !nonViolating.empty() && nonViolating.size() + violating.size() >= wanted;
        continue;
      }
      if (r.status.code() == SH_ERROR && error.ok()) {
        error = r.status;
      }
      failed[std::string(view(node->node->name))] = std::move(r.status);
    }
    processed += len;
    if (done) {
      break;
    }
  }
  for (Candidate& c : violating) {
    nonViolating.push_back(std::move(c));
  }
  return nonViolating;
}

Status DefaultPreemption::callExtenders(const Preemption& preemption, const Snapshot& snapshot,
                                        const sh_pod& pod, std::vector<Candidate>& candidates) {
  std::vector<sh_preemption_candidate> offered;
  offered.reserve(candidates.size());
  for (const Candidate& c : candidates) {
    offered.push_back(sh_preemption_candidate{c.node->node->name, c.victims.pods.data(),
                                              static_cast<uint32_t>(c.victims.pods.size()),
                                              static_cast<uint32_t>(c.victims.numPdbViolations)});
  }
  std::vector<sh_preemption_candidate> kept;
  if (Status s = preemption.extenders(pod, offered, kept); !s.ok()) {
    return s;
  }
  std::vector<Candidate> out;
  out.reserve(kept.size());
  for (const sh_preemption_candidate& k : kept) {
    const sh_node_info* node = snapshot.find(view(k.node_name));
    if (node == nullptr || k.victim_count == 0) {
      continue;  // the host keeps only nodes of the snapshot, with victims
    }
    Candidate c{node, {}};
    c.victims.pods.assign(k.victims, k.victims + k.victim_count);
    c.victims.numPdbViolations = k.pdb_violations;
    out.push_back(std::move(c));
  }
  candidates = std::move(out);
  return Status::success();
}

Status DefaultPreemption::preempt(Cycle& cycle, const sh_pod& pod) {
  Status why;
  if (!eligible(cycle, pod, why)) {
    return why;
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  Snapshot snapshot = cycle.snapshot();
  const std::size_t numAll = snapshot.size();
  if (numAll == 0) {
    return Status::error("no nodes available");
  }
  // Only nodes that failed Filter with Unschedulable may be helped by evicting pods.
  std::vector<const sh_node_info*> potential;
  for (std::size_t i = 0; i < numAll; ++i) {
    const sh_node_info& node = snapshot.at(i);
    if (cycle.nodeFilterCode(view(node.node->name)) == SH_UNSCHEDULABLE) {
      potential.push_back(&node);
    }
  }
  std::map<std::string, Status> failed;
  std::vector<Candidate> candidates;
  Preemption preemption(cycle);
  if (!potential.empty()) {
    auto [pdbs, pdbCount] = preemption.podDisruptionBudgets();
    Status error;
    candidates = dryRun(preemption, pod, potential, pdbs, pdbCount, failed, error, now);
    if (candidates.empty() && !error.ok()) {
      return error;
    }
  }
  if (candidates.empty()) {
    // Nothing to gain: clear the pod's nomination.
    cycle.nominate("");
    return Status::unschedulable(fitErrorMessage(numAll, failed));
  }
  if (Status s = callExtenders(preemption, snapshot, pod, candidates); !s.ok()) {
    return s;
  }
  if (candidates.empty()) {
    return Status::unschedulable(kNoCandidate);
  }
  const Candidate& best = candidates[pickOneNodeForPreemption(candidates, now)];
  const std::string_view node = view(best.node->node->name);
  Status evicted = preemption.preemptVictims(pod, node, best.victims.pods);
  if (!evicted.ok()) {
    return evicted;
  }
  cycle.nominate(node);
  return Status::success();
}

}  // namespace schedhost::plugins::defaultpreemption

SCHEDHOST_PLUGIN(schedhost::plugins::defaultpreemption::DefaultPreemption,
                 schedhost::plugins::defaultpreemption::kName, "1.36.0")

#include "tests/chaos/chaos_workload.h"

#include <algorithm>
#include <charconv>

namespace sh::chaos {

namespace {

constexpr char kFaultLabel[] = "chaos.schedhost.io/fault";
constexpr char kTaintKey[] = "chaos.schedhost.io/taint";
// Pods created per step at most, so binds are taken often.
constexpr std::size_t kBatch = 256;
// No bind for this long while pods that can bind wait: kStallCompletions pods complete.
constexpr auto kStall = std::chrono::milliseconds(200);
constexpr std::size_t kStallCompletions = 16;
// The newest pods, where a pending pod to delete is looked for first.
constexpr std::size_t kRecent = 512;

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

Workload::Workload(WorkloadOptions options)
    : options_(options),
      rng_(options.seed),
      state_(options.pods, PodState::kUnborn),
      nodeOf_(options.pods, -1) {
  for (std::size_t i = 0; i < options_.nodes; ++i) {
    const auto index = static_cast<int32_t>(nodes_.size());
    nodes_.push_back({"n" + std::to_string(i)});
    nodeIndex_.emplace(nodes_.back().name, index);
    alive_.push_back(index);
  }
}

std::string Workload::initialState() const {
  std::string out;
  for (const Node& n : nodes_) {
    std::string line;
    nodeLine(line, nullptr, n);
    out += line;
  }
  return out;
}

std::string Workload::syncLine(uint64_t n) {
  return R"({"type":"ADDED","object":{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"chaos-sync-)" +
         std::to_string(n) + "\"}}}\n";
}

PodShape Workload::shape(std::size_t id) const {
  PodShape s;
  const uint64_t h = mix(options_.seed ^ mix(id));
  static constexpr int64_t kCpu[] = {100, 200, 250, 500};
  static constexpr int64_t kMemory[] = {128, 256, 512, 1024};
  s.milliCpu = kCpu[h & 3];
  s.memoryMi = kMemory[(h >> 2) & 3];
  if (options_.doomEvery > 0 && id % options_.doomEvery == options_.doomEvery - 1) {
    if ((id / options_.doomEvery) % 2 == 0) {
      s.doom = PodShape::Doom::kTooBig;
      s.milliCpu = 4 * kNodeMilliCpu;
    } else {
      s.doom = PodShape::Doom::kError;
    }
  }
  return s;
}

int64_t Workload::idOf(std::string_view podName) {
  if (podName.size() < 2 || podName[0] != 'p') {
    return -1;
  }
  int64_t id = -1;
  const auto [end, ec] = std::from_chars(podName.data() + 1, podName.data() + podName.size(), id);
  return ec == std::errc() && end == podName.data() + podName.size() ? id : -1;
}

std::string_view Workload::nodeOf(std::size_t id) const {
  return state_[id] == PodState::kBound ? std::string_view(nodes_[nodeOf_[id]].name)
                                        : std::string_view();
}

bool Workload::nodeAlive(std::string_view name) const {
  auto it = nodeIndex_.find(std::string(name));
  return it != nodeIndex_.end() && nodes_[it->second].alive;
}

void Workload::noteBind(std::string_view podName, std::string_view node) {
  const int64_t id = idOf(podName);
  std::lock_guard<std::mutex> lock(bindsMu_);
  binds_.emplace_back(static_cast<std::size_t>(id), std::string(node));
}

void Workload::podLine(std::string& out, std::size_t id) const {
  const PodShape s = shape(id);
  const std::string name = podName(id);
  out += R"({"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":")";
  out += name;
  out += R"(","namespace":"chaos","uid":")";
  out += name;
  out += R"(-uid","labels":{"app":"chaos")";
  if (s.doom != PodShape::Doom::kNone) {
    out += R"(,")";
    out += kFaultLabel;
    out += s.doom == PodShape::Doom::kError ? R"(":"error")" : R"(":"none")";
  }
  out +=
      R"(}},"spec":{"priority":0,"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10","resources":{"requests":{"cpu":")";
  out += std::to_string(s.milliCpu);
  out += R"(m","memory":")";
  out += std::to_string(s.memoryMi);
  out += "Mi\"}}}]}}}\n";
}

void Workload::deletePodLine(std::string& out, std::size_t id) const {
  const std::string name = podName(id);
  out += R"({"type":"DELETED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":")";
  out += name;
  out += R"(","namespace":"chaos","uid":")";
  out += name;
  out += "-uid\"}}}\n";
}

void Workload::nodeLine(std::string& out, const char* type, const Node& node) const {
  if (type != nullptr) {
    out += R"({"type":")";
    out += type;
    out += R"(","object":)";
  }
  out += R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")";
  out += node.name;
  out += R"(","labels":{"kubernetes.io/hostname":")";
  out += node.name;
  out += R"("}},"spec":{)";
  if (node.tainted) {
    out += R"("taints":[{"key":")";
    out += kTaintKey;
    out += R"(","effect":"NoSchedule"}])";
  }
  const std::string resources = R"({"cpu":")" + std::to_string(kNodeMilliCpu / 1000) +
                                R"(","memory":")" + std::to_string(kNodeMemoryMi) +
                                R"(Mi","pods":")" + std::to_string(kNodePods) + "\"}";
  out += R"(},"status":{"capacity":)" + resources + R"(,"allocatable":)" + resources + "}}";
  out += type != nullptr ? "}\n" : "\n";
}

void Workload::deletePod(std::size_t id, std::string& out) {
  deletePodLine(out, id);
  if (state_[id] == PodState::kPending) {
    --pending_;
    if (shape(id).doom != PodShape::Doom::kNone) {
      --pendingDoomed_;
    }
  } else if (state_[id] == PodState::kBound) {
    --bound_;
  }
  state_[id] = PodState::kDeleted;
}

void Workload::addNode(std::string& out) {
  const auto index = static_cast<int32_t>(nodes_.size());
  nodes_.push_back({"n" + std::to_string(index)});
  nodeIndex_.emplace(nodes_.back().name, index);
  alive_.push_back(index);
  nodeLine(out, "ADDED", nodes_.back());
  ++churn_.nodesAdded;
}

void Workload::nodeEvent(std::string& out) {
  const std::size_t n = options_.nodes;
  const double r = std::uniform_real_distribution<double>(0, 1)(rng_);
  const bool add = alive_.size() < n - n / 5 || (alive_.size() <= n + n / 5 && r < 0.3);
  const bool remove = !add && (alive_.size() > n + n / 5 || r < 0.6);
  if (add) {
    addNode(out);
    return;
  }
  const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, alive_.size() - 1)(rng_);
  const int32_t index = alive_[pick];
  Node& node = nodes_[index];
  if (remove) {
    alive_.erase(alive_.begin() + static_cast<std::ptrdiff_t>(pick));
    node.alive = false;
    out += R"({"type":"DELETED","object":{"apiVersion":"v1","kind":"Node","metadata":{"name":")" +
           node.name + "\"}}}\n";
    ++churn_.nodesDeleted;
    // The pods bound to it go too, as the pod garbage collector deletes them upstream.
    for (std::size_t id : boundOrder_) {
      if (state_[id] == PodState::kBound && nodeOf_[id] == index) {
        deletePod(id, out);
        ++churn_.collected;
      }
    }
    return;
  }
  const auto tainted = static_cast<std::size_t>(
      std::count_if(alive_.begin(), alive_.end(), [&](int32_t i) { return nodes_[i].tainted; }));
  if (!node.tainted && tainted >= alive_.size() / 4) {
    return;
  }
  node.tainted = !node.tainted;
  ++(node.tainted ? churn_.taints : churn_.untaints);
  nodeLine(out, "MODIFIED", node);
}

void Workload::touchNode(std::string& out) {
  const std::size_t pick = std::uniform_int_distribution<std::size_t>(0, alive_.size() - 1)(rng_);
  int32_t index = alive_[pick];
  // At most a quarter of the nodes tainted: past that, a tainted one is untainted instead.
  const auto tainted =
      std::find_if(alive_.begin(), alive_.end(), [&](int32_t i) { return nodes_[i].tainted; });
  if (!nodes_[index].tainted &&
      static_cast<std::size_t>(std::count_if(alive_.begin(), alive_.end(), [&](int32_t i) {
        return nodes_[i].tainted;
      })) >= alive_.size() / 4) {
    index = *tainted;
  }
  Node& node = nodes_[index];
  node.tainted = !node.tainted;
  ++(node.tainted ? churn_.taints : churn_.untaints);
  nodeLine(out, "MODIFIED", node);
}

bool Workload::step(bool churn, std::string& out) {
  const std::size_t before = out.size();
  std::vector<std::pair<std::size_t, std::string>> binds;
  {
    std::lock_guard<std::mutex> lock(bindsMu_);
    binds.swap(binds_);
  }
  for (const auto& [id, node] : binds) {
    if (id >= state_.size() || state_[id] != PodState::kPending) {
      continue;  // deleted while it was being bound: the deletion removes it
    }
    const int32_t index = nodeIndex_.at(node);
    state_[id] = PodState::kBound;
    --pending_;
    ++bound_;
    nodeOf_[id] = index;
    boundOrder_.push_back(id);
    if (!nodes_[index].alive) {
      deletePod(id, out);
      ++churn_.collected;
    }
  }
  const auto now = std::chrono::steady_clock::now();
  if (!binds.empty()) {
    lastBind_ = now;
  }
  // Completions: the oldest bound pods make room, beyond the target, or when nothing bound for
  // a while though pods that can bind wait (the free room is on tainted nodes, or too
  // fragmented for them).
  std::size_t target = options_.boundTarget * alive_.size();
  if (pendingBindable() > 0 && now - lastBind_ > kStall) {
    lastBind_ = now;
    target = bound_ > kStallCompletions ? bound_ - kStallCompletions : 0;
  }
  while (bound_ > target && !boundOrder_.empty()) {
    const std::size_t id = boundOrder_.front();
    boundOrder_.pop_front();
    if (state_[id] == PodState::kBound) {
      deletePod(id, out);
      ++churn_.completed;
    }
  }
  while (!boundOrder_.empty() && state_[boundOrder_.front()] != PodState::kBound) {
    boundOrder_.pop_front();
  }
  for (std::size_t n = 0;
       n < kBatch && churn_.podsCreated < options_.pods && pending_ < options_.backlog; ++n) {
    const std::size_t id = churn_.podsCreated++;
    podLine(out, id);
    state_[id] = PodState::kPending;
    ++pending_;
    if (shape(id).doom != PodShape::Doom::kNone) {
      ++pendingDoomed_;
    }
    if (!churn) {
      continue;
    }
    if (options_.podDeleteEvery > 0 && churn_.podsCreated % options_.podDeleteEvery == 0) {
      while (oldestPending_ < churn_.podsCreated && state_[oldestPending_] != PodState::kPending) {
        ++oldestPending_;
      }
      // Pending pods are mostly the newest: the scheduler keeps up. Half the picks there.
      const std::size_t recent = churn_.podsCreated > kRecent ? churn_.podsCreated - kRecent : 0;
      std::uniform_int_distribution<std::size_t> any(oldestPending_, churn_.podsCreated - 1);
      std::uniform_int_distribution<std::size_t> young(std::max(oldestPending_, recent),
                                                       churn_.podsCreated - 1);
      for (int tries = 0; tries < 16; ++tries) {
        const std::size_t victim = tries % 2 == 0 ? young(rng_) : any(rng_);
        if (state_[victim] == PodState::kPending) {
          deletePod(victim, out);
          ++churn_.pendingDeleted;
          break;
        }
      }
    }
    if (options_.nodeEventEvery > 0 && churn_.podsCreated % options_.nodeEventEvery == 0) {
      nodeEvent(out);
    }
  }
  return out.size() != before;
}

}  // namespace sh::chaos

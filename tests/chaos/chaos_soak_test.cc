// The chaos soak: the scheduler `schedhost run` builds (profiles loaded from a schedhost.toml,
// plugins from .so files, the embedded cluster reading its change stream from a pipe) schedules
// SCHEDHOST_CHAOS_PODS pods through injected faults and cluster churn, then the final state is
// checked against what the workload asked for:
//
//   faults  ChaosCycle and ChaosBind (plugins/): Error, Unschedulable, exceptions, Permit waits
//           allowed, rejected or timed out, slow calls, PreBind and Bind failures;
//   churn   chaos_workload.h: pending pods deleted, nodes added, deleted and tainted, bound
//           pods completed, while pods are in every queue, in a cycle and binding;
//   checks  every pod created is bound exactly once (the connector counts successful binds),
//           deleted, or pending with its PodScheduled=False reason, and only the pods that
//           can never bind are pending; no node holds more than its allocatable (from the
//           cluster's pods, checked every couple of seconds and at the end); no assumed pod is
//           left in the cache, whose pods are the cluster's bound pods; the queue holds exactly
//           the pending pods, so queue + bound + deleted = created.
//
// The test drives the loop itself (Scheduler::run in follow mode on a thread) and stops it once
// the workload is done and only pods that keep failing are left, within a time bound, so it
// does not depend on how a batch run ends. It prints its figures (BENCHMARKS.md).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "host/config/diagnostics.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "host/cycle/decision_log.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/profile/profile_set.h"
#include "tests/chaos/chaos_workload.h"

namespace sh::chaos::chaos_soak_test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// 10,000 pods under the sanitizers (the CI's Debug ASan build, on two cores beside the rest of
// the suite), 100,000 otherwise; SCHEDHOST_CHAOS_PODS for the long run.
#ifdef SCHEDHOST_SANITIZED
constexpr std::size_t kDefaultPods = 10000;
#else
constexpr std::size_t kDefaultPods = 100000;
#endif
constexpr std::size_t kNodes = 64;
// How long the pods still pending when the workload is done may take to bind.
constexpr auto kSettleLimit = 120s;
// A bound on the whole run, against a scheduler that stops making progress.
constexpr auto kDeadline = 4h;
constexpr auto kCheckPeriod = 2s;

std::size_t envCount(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return fallback;
  }
  const long long n = std::atoll(v);
  return n > 0 ? static_cast<std::size_t>(n) : fallback;
}

// The decision log's lines, counted as they are written instead of kept.
class DecisionCounter : public std::streambuf {
 public:
  uint64_t bindings() const { return bindings_; }
  uint64_t failures() const { return failures_; }
  // FailedScheduling lines that carry an exception's message.
  uint64_t thrown() const { return thrown_; }

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) {
      put(static_cast<char>(c));
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) {
      put(s[i]);
    }
    return n;
  }

 private:
  void put(char c) {
    if (c != '\n') {
      line_.push_back(c);
      return;
    }
    if (line_.starts_with(R"({"kind":"Binding")")) {
      ++bindings_;
    } else if (line_.starts_with(R"({"kind":"FailedScheduling")")) {
      ++failures_;
      if (line_.find("chaos: thrown in ") != std::string::npos) {
        ++thrown_;
      }
    }
    line_.clear();
  }

  std::string line_;
  uint64_t bindings_ = 0, failures_ = 0, thrown_ = 0;
};

// What the host logs at warning level and above: counted, the first few kept.
class LogCounter : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return count_;
  }
  std::vector<std::string> first() {
    std::lock_guard<std::mutex> lock(mutex_);
    return first_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (msg.level < spdlog::level::warn) {
      return;
    }
    ++count_;
    if (first_.size() < 10) {
      first_.emplace_back(msg.payload.data(), msg.payload.size());
    }
  }
  void flush_() override {}

 private:
  std::size_t count_ = 0;
  std::vector<std::string> first_;
};

// The embedded cluster, with every successful bind counted per pod and told to the workload.
class CountingConnector final : public connectors::Connector {
 public:
  CountingConnector(connectors::EmbeddedCluster& cluster, Workload& workload, std::size_t pods)
      : cluster_(cluster), workload_(workload), binds_(pods) {}

  std::optional<connectors::ClusterChange> next(std::chrono::milliseconds timeout) override {
    return cluster_.next(timeout);
  }
  std::size_t nextBatch(std::vector<connectors::ClusterChange>& out,
                        std::chrono::milliseconds timeout) override {
    return cluster_.nextBatch(out, timeout);
  }
  bool exhausted() const override { return cluster_.exhausted(); }
  std::size_t pending() const override { return cluster_.pending(); }
  void stop() override { cluster_.stop(); }
  Status bind(const model::Pod& pod, std::string_view nodeName) override {
    Status s = cluster_.bind(pod, nodeName);
    if (!s.ok()) {
      bindErrors_.fetch_add(1);
      return s;
    }
    const int64_t id = Workload::idOf(pod.name());
    if (id >= 0 && static_cast<std::size_t>(id) < binds_.size()) {
      binds_[static_cast<std::size_t>(id)].fetch_add(1);
    }
    workload_.noteBind(pod.name(), nodeName);
    return s;
  }
  Status deletePod(const model::Pod& pod, std::string_view reason) override {
    return cluster_.deletePod(pod, reason);
  }
  Status preemptPod(const model::Pod& pod, std::string_view message) override {
    return cluster_.preemptPod(pod, message);
  }
  Status clearNominatedNodeName(const model::Pod& pod) override {
    return cluster_.clearNominatedNodeName(pod);
  }
  void recordFailure(const connectors::SchedulingFailure& failure) override {
    cluster_.recordFailure(failure);
  }
  void recordEvent(const connectors::EventRecord& event) override { cluster_.recordEvent(event); }
  std::shared_ptr<const model::ClusterObjects> clusterObjects() const override {
    return cluster_.clusterObjects();
  }

  uint8_t bindsOf(std::size_t id) const { return binds_[id].load(); }
  uint64_t bindErrors() const { return bindErrors_.load(); }

 private:
  connectors::EmbeddedCluster& cluster_;
  Workload& workload_;
  std::vector<std::atomic<uint8_t>> binds_;  // successful binds by pod id
  std::atomic<uint64_t> bindErrors_{0};
};

// Writes everything to the pipe (blocking while the cluster's reader catches up).
void writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    ASSERT_GT(n, 0) << std::strerror(errno);
    done += static_cast<std::size_t>(n);
  }
}

// Nodes holding more than their allocatable, and pods bound to nodes that are gone, in a
// consistent cut of the cluster; requests from the workload's own record of each pod.
struct Overcommit {
  std::vector<std::string> problems;
  std::size_t orphans = 0;
};
Overcommit overcommitted(const connectors::EmbeddedCluster::Contents& contents,
                         const Workload& workload) {
  struct Sum {
    int64_t milliCpu = 0, memoryMi = 0, pods = 0;
  };
  std::unordered_map<std::string_view, Sum> sums;
  for (const auto& n : contents.nodes) {
    sums.emplace(n->name(), Sum{});
  }
  Overcommit out;
  for (const auto& p : contents.pods) {
    if (p->nodeName().empty()) {
      continue;
    }
    auto it = sums.find(p->nodeName());
    if (it == sums.end()) {
      ++out.orphans;
      continue;
    }
    const PodShape s = workload.shape(static_cast<std::size_t>(Workload::idOf(p->name())));
    it->second.milliCpu += s.milliCpu;
    it->second.memoryMi += s.memoryMi;
    it->second.pods += 1;
  }
  for (const auto& [node, sum] : sums) {
    if (sum.milliCpu > kNodeMilliCpu || sum.memoryMi > kNodeMemoryMi || sum.pods > kNodePods) {
      out.problems.push_back("node \"" + std::string(node) + "\" holds " +
                             std::to_string(sum.pods) + " pods requesting " +
                             std::to_string(sum.milliCpu) + "m cpu and " +
                             std::to_string(sum.memoryMi) + "Mi memory");
    }
  }
  return out;
}

// The PodScheduled condition of a stored pod: (reason, message), or nullopt.
std::optional<std::pair<std::string, std::string>> scheduledCondition(const model::Pod& pod) {
  const boost::json::value v = boost::json::parse(pod.json());
  const auto* status = v.as_object().if_contains("status");
  const auto* conditions = status != nullptr && status->is_object()
                               ? status->as_object().if_contains("conditions")
                               : nullptr;
  if (conditions == nullptr || !conditions->is_array()) {
    return std::nullopt;
  }
  for (const boost::json::value& c : conditions->as_array()) {
    const auto& o = c.as_object();
    if (o.at("type") == "PodScheduled" && o.at("status") == "False") {
      auto text = [&](const char* key) {
        const auto* f = o.if_contains(key);
        return f != nullptr && f->is_string() ? std::string(f->as_string()) : std::string();
      };
      return std::make_pair(text("reason"), text("message"));
    }
  }
  return std::nullopt;
}

std::map<std::string, uint64_t> readStats(const std::string& path) {
  std::map<std::string, uint64_t> out;
  std::ifstream in(path);
  std::string kind;
  uint64_t n = 0;
  while (in >> kind >> n) {
    out[kind] = n;
  }
  return out;
}

double peakRssMiB() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

TEST(ChaosSoakTest, EveryPodBoundOnceOrPendingWithItsReasonThroughFaultsAndChurn) {
  WorkloadOptions wo;
  wo.pods = envCount("SCHEDHOST_CHAOS_PODS", kDefaultPods);
  wo.seed = envCount("SCHEDHOST_CHAOS_SEED", 1);
  wo.nodes = kNodes;
  Workload workload(wo);

  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      ("schedhost-chaos-" + std::to_string(::getpid()) + "-" + std::string(info->name()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string cycleStats = (dir / "cycle.stats").string();
  const std::string bindStats = (dir / "bind.stats").string();
  const std::string seed = std::to_string(wo.seed);
  {
    std::ofstream(dir / "cluster.jsonl") << workload.initialState();
    std::ofstream config(dir / "schedhost.toml");
    config << "parallelism = 2\n"
           << "pluginDirs = [\"" << SCHEDHOST_TEST_PLUGIN_DIR << "\", \""
           << SCHEDHOST_CHAOS_PLUGIN_DIR << "\"]\n"
           << R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = "ChaosCycle" }, { name = "ChaosBind" } ]
[profiles.plugins.bind]
disabled = [ { name = "DefaultBinder" } ]
enabled = [ { name = "ChaosBind" }, { name = "DefaultBinder" } ]
[[profiles.pluginConfig]]
name = "ChaosCycle"
[profiles.pluginConfig.args]
seed = )" << seed
           << R"(
statsFile = ")"
           << cycleStats << R"("
slowMs = 3
preFilterError = 0.005
preFilterUnschedulable = 0.005
preFilterThrow = 0.002
filterUnschedulable = 0.02
filterSlow = 0.00002
reserveError = 0.003
reserveThrow = 0.001
permitThrow = 0.001
permitWait = 0.05
permitTimeout = 0.3
permitReject = 0.3
[[profiles.pluginConfig]]
name = "ChaosBind"
[profiles.pluginConfig.args]
seed = )" << seed
           << R"(
statsFile = ")"
           << bindStats << R"("
slowMs = 3
preBindError = 0.005
preBindThrow = 0.001
preBindSlow = 0.002
bindError = 0.01
)";
  }
  const std::string fifo = (dir / "changes.pipe").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // Read and write: the cluster's open for reading then finds a writer and does not block.
  const int pipe = ::open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(pipe, 0) << std::strerror(errno);

  auto logs = std::make_shared<LogCounter>();
  auto previousLogger = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("chaos", logs));

  cycle::SchedulerServices services;
  config::Diagnostics diags;
  profile::LoadRequest req;
  req.hostConfigFile = (dir / "schedhost.toml").string();
  auto set = std::make_unique<profile::ProfileSet>(profile::load(req, &services, diags));
  ASSERT_FALSE(diags.hasErrors()) << diags.str();

  std::mutex warningsMu;
  std::vector<std::string> warnings;
  connectors::EmbeddedCluster::Options co;
  co.initialState = (dir / "cluster.jsonl").string();
  co.changes = fifo;
  co.warn = [&](std::string w) {
    std::lock_guard<std::mutex> lock(warningsMu);
    warnings.push_back(std::move(w));
  };
  connectors::EmbeddedCluster cluster(co);
  ASSERT_TRUE(cluster.start().ok());
  CountingConnector connector(cluster, workload, wo.pods);

  DecisionCounter decisions;
  std::ostream decisionStream(&decisions);
  cycle::DecisionLog log(decisionStream);

  cycle::SchedulerOptions so;
  so.parallelism = 2;
  so.seed = wo.seed;
  so.queue.initialBackoff = 10ms;
  so.queue.maxBackoff = 1s;
  so.queue.maxInUnschedulable = 5s;
  auto scheduler = std::make_unique<cycle::Scheduler>(
      Frameworks(set->frameworks.begin(), set->frameworks.end()), connector, &log, so);
  services.attach(&connector, &scheduler->waitingPods(), scheduler.get());
  cycle::SchedulerStats stats;
  std::thread runner([&] { stats = scheduler->run(true); });

  // The workload, with the cluster checked every couple of seconds as it goes.
  const auto started = Clock::now();
  auto lastCheck = started;
  std::vector<std::string> overcommits;
  std::size_t checks = 0;
  auto check = [&] {
    Overcommit o = overcommitted(cluster.contents(), workload);
    ++checks;
    for (std::string& p : o.problems) {
      if (overcommits.size() < 10) {
        overcommits.push_back(std::move(p));
      }
    }
  };
  // The most pods seen at once in each place: the churn must reach pods everywhere.
  queue::PendingCounts most;
  std::size_t mostWaiting = 0, mostBinding = 0;
  auto sample = [&] {
    const queue::PendingCounts q = scheduler->queue().pendingCounts();
    most.active = std::max(most.active, q.active);
    most.backoff = std::max(most.backoff, q.backoff);
    most.unschedulable = std::max(most.unschedulable, q.unschedulable);
    mostWaiting = std::max(mostWaiting, scheduler->waitingPods().size());
    mostBinding = std::max(mostBinding, scheduler->status().bindingsInFlight);
  };
  std::string out;
  bool timedOut = false;
  while (!workload.allCreated()) {
    out.clear();
    const bool busy = workload.step(true, out);
    ASSERT_NO_FATAL_FAILURE(writeAll(pipe, out));
    sample();
    const auto now = Clock::now();
    if (now - lastCheck >= kCheckPeriod) {
      lastCheck = now;
      check();
    }
    if (now - started > kDeadline) {
      timedOut = true;
      break;
    }
    if (!busy) {
      std::this_thread::sleep_for(1ms);
    }
  }
  const double createSeconds = std::chrono::duration<double>(Clock::now() - started).count();

  // Settle: no more churn, only a node touched every 100 ms (an event for the rejected pods),
  // until every pod that can bind is bound and every other one has its reason.
  auto doomedHaveReasons = [&] {
    for (std::size_t id = 0; id < wo.pods; ++id) {
      if (workload.state(id) == Workload::PodState::kPending) {
        auto p = cluster.pod(kNamespace, Workload::podName(id));
        if (p == nullptr || !scheduledCondition(*p).has_value()) {
          return false;
        }
      }
    }
    return true;
  };
  const auto settleStart = Clock::now();
  auto lastTouch = settleStart;
  bool settled = false;
  while (!timedOut && Clock::now() - settleStart < kSettleLimit) {
    out.clear();
    workload.step(false, out);
    const bool touch = Clock::now() - lastTouch >= 100ms;
    if (touch) {
      lastTouch = Clock::now();
      workload.touchNode(out);
    }
    ASSERT_NO_FATAL_FAILURE(writeAll(pipe, out));
    if (touch && workload.pendingBindable() == 0 && doomedHaveReasons()) {
      settled = true;
      break;
    }
    std::this_thread::sleep_for(1ms);
  }
  // Everything written has been read and delivered before the loop stops.
  ASSERT_NO_FATAL_FAILURE(writeAll(pipe, Workload::syncLine(1)));
  const auto syncStart = Clock::now();
  while ((cluster.objectsOfKind("Namespace").empty() || cluster.pending() > 0) &&
         Clock::now() - syncStart < 30s) {
    std::this_thread::sleep_for(5ms);
  }
  const double settleSeconds = std::chrono::duration<double>(Clock::now() - settleStart).count();
  scheduler->stop();
  runner.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  check();

  // -- the final state -----------------------------------------------------------------
  const connectors::EmbeddedCluster::Contents contents = cluster.contents();
  const Overcommit atEnd = overcommitted(contents, workload);
  const cache::CacheSize cacheSize = scheduler->cache().size();
  const cache::CacheDump dump = scheduler->cache().dumpForTest();
  const queue::PendingCounts queued = scheduler->queue().pendingCounts();
  const std::size_t inQueue = queued.active + queued.backoff + queued.unschedulable + queued.gated;
  const ChurnCounts& churn = workload.churn();

  std::vector<std::string> problems;
  auto problem = [&](std::string p) {
    if (problems.size() < 20) {
      problems.push_back(std::move(p));
    }
  };
  std::size_t boundOnce = 0, pendingDoomed = 0, deleted = 0, totalBinds = 0;
  for (std::size_t id = 0; id < wo.pods; ++id) {
    const uint8_t binds = connector.bindsOf(id);
    totalBinds += binds;
    if (binds > 1) {
      problem("pod " + Workload::podName(id) + " bound " + std::to_string(binds) + " times");
    }
    switch (workload.state(id)) {
      case Workload::PodState::kBound:
        ++boundOnce;
        break;
      case Workload::PodState::kDeleted:
        ++deleted;
        break;
      case Workload::PodState::kPending:
        if (workload.shape(id).doom == PodShape::Doom::kNone) {
          const auto where = scheduler->queue().lookupForTest(std::string(kNamespace) + "/" +
                                                              Workload::podName(id));
          problem("pod " + Workload::podName(id) + " can bind but is pending" +
                  (where ? " (queue location " + std::to_string(static_cast<int>(where->where)) +
                               ", attempts " + std::to_string(where->info.attempts) + ")"
                         : " and in no queue"));
        } else {
          ++pendingDoomed;
        }
        break;
      case Workload::PodState::kUnborn:
        problem("pod " + Workload::podName(id) + " was never created");
        break;
    }
  }
  // Every stored pod as the workload knows it: bound where its bind went, or pending with the
  // reason its fault gives.
  std::size_t storedBound = 0, storedPending = 0;
  std::set<std::pair<std::string, std::string>> clusterBound;
  for (const auto& p : contents.pods) {
    const int64_t id = Workload::idOf(p->name());
    if (id < 0) {
      problem("unknown pod " + std::string(p->name()));
      continue;
    }
    const auto state = workload.state(static_cast<std::size_t>(id));
    if (!p->nodeName().empty()) {
      ++storedBound;
      clusterBound.emplace(p->uid(), p->nodeName());
      if (state != Workload::PodState::kBound ||
          workload.nodeOf(static_cast<std::size_t>(id)) != p->nodeName()) {
        problem("pod " + std::string(p->name()) + " is bound to " + std::string(p->nodeName()) +
                " but the workload has it " +
                std::string(state == Workload::PodState::kBound ? "on " : "not bound") +
                std::string(workload.nodeOf(static_cast<std::size_t>(id))));
      }
      continue;
    }
    ++storedPending;
    const auto condition = scheduledCondition(*p);
    const PodShape shape = workload.shape(static_cast<std::size_t>(id));
    if (state != Workload::PodState::kPending) {
      problem("pod " + std::string(p->name()) + " is stored pending but not pending");
    } else if (!condition.has_value() || condition->first.empty()) {
      problem("pod " + std::string(p->name()) + " is pending without a reason");
    } else if (shape.doom == PodShape::Doom::kTooBig &&
               (condition->first != "Unschedulable" ||
                condition->second.find("Insufficient cpu") == std::string::npos)) {
      problem("pod " + std::string(p->name()) + " (too big) is pending with " + condition->first +
              ": " + condition->second);
    } else if (shape.doom == PodShape::Doom::kError &&
               (condition->first != "SchedulerError" ||
                condition->second.find("chaos: this pod fails on every attempt") ==
                    std::string::npos)) {
      problem("pod " + std::string(p->name()) + " (always Error) is pending with " +
              condition->first + ": " + condition->second);
    }
  }
  std::set<std::pair<std::string, std::string>> cacheBound;
  for (const auto& p : dump.pods) {
    cacheBound.emplace(p->uid(), p->nodeName());
  }
  std::vector<std::string> leftovers;
  for (const auto& [name, nodeInfo] : dump.nodeInfos) {
    if (nodeInfo.node() == nullptr) {
      leftovers.push_back(name);  // a ghost: a node gone with pods still cached on it
    }
  }

  // Plugins write their counts when they are destroyed: after the scheduler, with the profiles.
  services.attach(nullptr, nullptr, nullptr);
  const cycle::SchedulerStatus status = scheduler->status();
  const std::size_t pendingKnown = scheduler->pendingPodCount();
  const std::size_t waiting = scheduler->waitingPods().size();
  scheduler.reset();
  set.reset();
  cluster.stop();
  ::close(pipe);
  spdlog::set_default_logger(previousLogger);
  const auto cycleCounts = readStats(cycleStats);
  const auto bindCounts = readStats(bindStats);

  // -- figures ---------------------------------------------------------------------------
  uint64_t faults = 0;
  std::ostringstream figures;
  figures << "chaos soak: " << wo.pods << " pods, " << wo.nodes << " nodes, seed " << wo.seed
          << ": " << seconds << " s wall (" << createSeconds << " s creating, " << settleSeconds
          << " s settling), peak RSS " << peakRssMiB() << " MiB\n  faults:";
  for (const auto* counts : {&cycleCounts, &bindCounts}) {
    for (const auto& [kind, n] : *counts) {
      figures << " " << kind << " " << n;
      if (kind != "unreserve") {
        faults += n;
      }
    }
  }
  figures << " (" << faults << " in all)\n  churn: pending pods deleted " << churn.pendingDeleted
          << ", bound pods completed " << churn.completed << ", collected with their node "
          << churn.collected << ", nodes added " << churn.nodesAdded << ", deleted "
          << churn.nodesDeleted << ", taints " << churn.taints << ", untaints " << churn.untaints
          << "\n  scheduler: attempts " << stats.attempts << ", scheduled " << stats.scheduled
          << ", unschedulable " << stats.unschedulable << ", errors " << stats.errors << "; binds "
          << totalBinds << " (refused by the cluster " << connector.bindErrors()
          << "); decision lines: Binding " << decisions.bindings() << ", FailedScheduling "
          << decisions.failures() << " (" << decisions.thrown() << " with an exception's message)"
          << "\n  final: created " << churn.podsCreated << " = queued " << inQueue << " (active "
          << queued.active << ", backoff " << queued.backoff << ", unschedulable "
          << queued.unschedulable << ") + bound " << boundOnce << " + deleted " << deleted
          << "; cache pods " << cacheSize.pods << ", assumed " << cacheSize.assumedPods
          << ", nodes " << cacheSize.nodes << "; cluster pods " << contents.pods.size()
          << ", nodes " << contents.nodes.size() << "; overcommit checks " << checks
          << "; host warnings " << logs->count() << "\n  most at once: active " << most.active
          << ", backoff " << most.backoff << ", unschedulable " << most.unschedulable
          << ", waiting on Permit " << mostWaiting << ", binding " << mostBinding << "\n";
  std::cout << figures.str();
  for (const std::string& w : logs->first()) {
    std::cout << "  host log: " << w << "\n";
  }

  std::filesystem::remove_all(dir);

  ASSERT_FALSE(timedOut) << "the workload was not created within the deadline\n" << figures.str();
  EXPECT_TRUE(settled) << workload.pendingBindable() << " pods that can bind still pending after "
                       << std::chrono::duration<double>(kSettleLimit).count() << " s\n"
                       << figures.str();
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems, the first: " << problems.front();
  EXPECT_TRUE(overcommits.empty()) << overcommits.front();
  EXPECT_TRUE(atEnd.problems.empty()) << atEnd.problems.front();
  EXPECT_EQ(atEnd.orphans, 0u) << "pods bound to nodes that are gone";
  {
    std::lock_guard<std::mutex> lock(warningsMu);
    EXPECT_TRUE(warnings.empty()) << warnings.size()
                                  << " cluster warnings, the first: " << warnings.front();
  }
  EXPECT_EQ(cluster.rejectedLines(), 0u);

  // Counts: created = queued + bound + deleted, each seen three ways.
  EXPECT_EQ(churn.podsCreated, wo.pods);
  EXPECT_EQ(churn.deleted(), deleted);
  EXPECT_EQ(inQueue + boundOnce + deleted, churn.podsCreated);
  EXPECT_EQ(inQueue, pendingDoomed);
  EXPECT_EQ(pendingKnown, inQueue);
  EXPECT_EQ(storedPending, pendingDoomed);
  EXPECT_EQ(storedBound, boundOnce);
  EXPECT_EQ(cacheSize.pods, boundOnce);
  EXPECT_EQ(cacheSize.assumedPods, 0u) << "assumed pods left in the cache";
  EXPECT_TRUE(dump.assumedPods.empty());
  EXPECT_EQ(cacheBound, clusterBound) << "the cache's pods are not the cluster's bound pods";
  EXPECT_TRUE(leftovers.empty()) << leftovers.size() << " ghost nodes, the first "
                                 << leftovers.front();
  EXPECT_EQ(cacheSize.nodes, contents.nodes.size());
  EXPECT_EQ(status.bindingsInFlight, 0u);
  EXPECT_EQ(waiting, 0u);
  EXPECT_EQ(decisions.bindings(), totalBinds);
  EXPECT_EQ(stats.scheduled, totalBinds);

  // The faults happened, and an exception surfaced as an Error carrying its message.
  EXPECT_GT(cycleCounts.at("prefilter.error"), 0u);
  EXPECT_GT(cycleCounts.at("permit.wait.timeout"), 0u);
  EXPECT_GT(cycleCounts.at("permit.wait.reject"), 0u);
  EXPECT_GT(bindCounts.at("bind.error"), 0u);
  const uint64_t thrown = cycleCounts.at("prefilter.throw") + cycleCounts.at("reserve.throw") +
                          cycleCounts.at("permit.throw") + bindCounts.at("prebind.throw");
  EXPECT_GT(thrown, 0u);
  EXPECT_GT(decisions.thrown(), 0u);
  EXPECT_LE(decisions.thrown(), thrown);
  EXPECT_GT(churn.pendingDeleted, 0u);
  EXPECT_GT(churn.nodesDeleted, 0u);
  EXPECT_GT(churn.taints, 0u);
  EXPECT_GT(most.active, 0u);
  EXPECT_GT(most.backoff, 0u);
  EXPECT_GT(most.unschedulable, 0u);
  EXPECT_GT(mostWaiting, 0u);
  EXPECT_GT(mostBinding, 0u);
}

}  // namespace
}  // namespace sh::chaos::chaos_soak_test

// SchedulerHarness: what `schedhost run` wires together (run_command.cc), for tests —
// a schedhost.toml written by the test, profile::load with SchedulerServices, an
// EmbeddedCluster fed from files the test writes, a DecisionLog, and the Scheduler.
//
//   SchedulerHarness h({.profiles = kPermitProfile, .follow = true});
//   h.add(node("n1", "4", "32Gi"));
//   h.add(pod("p", "100m", "500Mi"));
//   h.start();
//   h.runInBackground();                      // or h.run() / h.scheduler().stepForTest()
//   ASSERT_TRUE(h.eventually([&] { return h.scheduler().waitingPods().size() == 1; }));
//   h.appendChange("DELETED", node("n1", ...));   // follow: the change stream is tailed
//   h.stopBackground();
//
// Pods live in namespace "ns" with UID "<name>-uid". Everything the harness writes goes to a
// temporary directory removed at the end.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "host/config/diagnostics.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "host/cycle/decision_log.h"
#include "host/cycle/scheduler.h"
#include "host/cycle/scheduler_services.h"
#include "host/model/testing/wrappers.h"
#include "host/profile/profile_set.h"

namespace sh::cycle::testing {

inline constexpr char kNamespace[] = "ns";

inline boost::json::value withKind(boost::json::value v, std::string_view kind) {
  v.as_object()["apiVersion"] = "v1";
  v.as_object()["kind"] = kind;
  return v;
}

// A node with these allocatable resources, in `zone` when one is given.
inline boost::json::value node(std::string_view name, std::string_view cpu, std::string_view memory,
                               std::string_view pods = "110", std::string_view zone = "") {
  auto w = model::testing::makeNode().name(name).capacity(
      {{"cpu", std::string(cpu)}, {"memory", std::string(memory)}, {"pods", std::string(pods)}});
  if (!zone.empty()) {
    w.label("topology.kubernetes.io/zone", zone);
  }
  return withKind(w.parseJson(), "Node");
}

// A pending pod of `ns` with these requests, for `schedulerName` when one is given.
inline boost::json::value pod(std::string_view name, std::string_view cpu, std::string_view memory,
                              std::string_view schedulerName = "") {
  auto w = model::testing::makePod()
               .name(name)
               .inNamespace(kNamespace)
               .uid(std::string(name) + "-uid")
               .req({{"cpu", std::string(cpu)}, {"memory", std::string(memory)}});
  if (!schedulerName.empty()) {
    w.schedulerName(schedulerName);
  }
  return withKind(w.parseJson(), "Pod");
}

// A JSON string's text; anything else serialized.
inline std::string jstr(const boost::json::value& v) {
  return v.is_string() ? std::string(v.as_string()) : boost::json::serialize(v);
}

inline std::string uidOf(std::string_view podName) { return std::string(podName) + "-uid"; }
inline std::string keyOf(std::string_view podName) {
  return std::string(kNamespace) + "/" + std::string(podName);
}

// The stored pod's PodScheduled condition, or nullopt.
inline std::optional<boost::json::object> podScheduledCondition(const model::Pod& p) {
  boost::json::value v = boost::json::parse(p.json());
  const boost::json::value* conditions = v.as_object().if_contains("status");
  if (conditions == nullptr || !conditions->is_object()) {
    return std::nullopt;
  }
  conditions = conditions->as_object().if_contains("conditions");
  if (conditions == nullptr || !conditions->is_array()) {
    return std::nullopt;
  }
  for (const boost::json::value& c : conditions->as_array()) {
    if (c.as_object().at("type") == "PodScheduled") {
      return c.as_object();
    }
  }
  return std::nullopt;
}

// The lines of a file a test plugin wrote (empty when there is none).
inline std::vector<std::string> fileLines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    out.push_back(line);
  }
  return out;
}

// The default profile with `plugin` enabled at every point it implements, with these args
// (a TOML inline table).
inline std::string profileWith(std::string_view plugin, std::string_view args) {
  return std::string(R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = ")") +
         std::string(plugin) + R"(" } ]
[[profiles.pluginConfig]]
name = ")" +
         std::string(plugin) + "\"\nargs = " + std::string(args) + "\n";
}

// The default profile plus TestPermit (Reserve, Permit; retried on Node/Add).
inline std::string permitProfile(std::string_view args) { return profileWith("TestPermit", args); }

// The default profile with TestBinder at Reserve and PreBind, and at Bind before
// DefaultBinder.
inline std::string binderProfile(std::string_view args) {
  return std::string(R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = "TestBinder" } ]
[profiles.plugins.bind]
disabled = [ { name = "DefaultBinder" } ]
enabled = [ { name = "TestBinder" }, { name = "DefaultBinder" } ]
[[profiles.pluginConfig]]
name = "TestBinder"
args = )") +
         std::string(args) + "\n";
}

struct HarnessOptions {
  // [[profiles]] tables for schedhost.toml; empty: the default profile.
  std::string profiles;
  int parallelism = 2;
  int percentageOfNodesToScore = 0;
  uint64_t seed = 1;
  int maxConcurrentBindings = 1024;
  std::chrono::milliseconds initialBackoff{50};
  std::chrono::milliseconds maxBackoff{400};
  // Tail the change stream (appendChange()) instead of reading an empty one.
  bool follow = false;
  // Without follow: no change stream at all, so the input is over once start() returns.
  bool noChangeStream = false;
  // The queue's clock (a queue::FakeClock to drive backoff by hand); null: a steady clock.
  // Must outlive the harness.
  queue::Clock* clock = nullptr;
  // Receives the cluster's warnings about bad input; null: each one fails the test.
  std::function<void(std::string)> warn;
  // The embedded cluster's PV controller emulation (EmbeddedCluster::Options::pvController).
  bool pvController = true;
  // SchedulerOptions::stopGrace: 0 waits for the binding cycles without a bound.
  std::chrono::milliseconds stopGrace{0};
  // SchedulerOptions::extenders.
  Extenders extenders;
  // SchedulerOptions::asyncPreemption.
  bool asyncPreemption = true;
  // A connector put between the scheduler and the embedded cluster (a test's decorator that
  // delays or fails some calls); null: the cluster itself.
  std::function<std::unique_ptr<connectors::Connector>(connectors::Connector&)> wrapConnector;
};

class SchedulerHarness {
 public:
  explicit SchedulerHarness(HarnessOptions options = {}) : options_(std::move(options)) {
    static int counter = 0;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("schedhost-cycle-" + std::to_string(::getpid()) + "-" +
            std::string(info != nullptr ? info->name() : "x") + "-" + std::to_string(++counter));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  ~SchedulerHarness() {
    if (runner_.joinable()) {
      stopBackground();
    }
    if (scheduler_ != nullptr) {
      services_.attach(nullptr, nullptr, nullptr);
      scheduler_.reset();
    }
    wrapper_.reset();
    if (cluster_ != nullptr) {
      cluster_->stop();
      cluster_.reset();
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SchedulerHarness(const SchedulerHarness&) = delete;
  SchedulerHarness& operator=(const SchedulerHarness&) = delete;

  // Before start(): the options, to change what depends on path().
  HarnessOptions& options() { return options_; }

  // A file in the harness's directory.
  std::string path(std::string_view name) const { return (dir_ / name).string(); }

  // Before start(): an object of the initial state.
  void add(const boost::json::value& object) {
    initial_ += boost::json::serialize(object);
    initial_ += "\n";
  }
  // Before start(): one line of the initial state as it is written.
  void addLine(std::string_view line) {
    initial_ += line;
    initial_ += "\n";
  }

  // Loads the profiles, starts the cluster and builds the scheduler. Configuration errors
  // fail the test (check with ASSERT_NO_FATAL_FAILURE).
  void start() {
    std::ofstream(path("cluster.json")) << initial_;
    std::ofstream(path("changes.json")).flush();
    std::ostringstream config;
    config << "parallelism = " << options_.parallelism << "\n"
           << "percentageOfNodesToScore = " << options_.percentageOfNodesToScore << "\n"
           << "pluginDirs = [\"" << SCHEDHOST_TEST_PLUGIN_DIR << "\", \""
           << SCHEDHOST_CYCLE_PLUGIN_DIR << "\""
#ifdef SCHEDHOST_SCRIPTED_PLUGIN_DIR  // the scripted plugins, where the suite builds them
           << ", \"" << SCHEDHOST_SCRIPTED_PLUGIN_DIR << "\""
#endif
#ifdef SCHEDHOST_EXAMPLE_PLUGIN_DIR  // the examples' plugins (tests/examples)
           << ", \"" << SCHEDHOST_EXAMPLE_PLUGIN_DIR << "\""
#endif
           << "]\n"
           << options_.profiles << "\n";
    std::ofstream(path("schedhost.toml")) << config.str();

    config::Diagnostics diags;
    profile::LoadRequest req;
    req.hostConfigFile = path("schedhost.toml");
    set_ = profile::load(req, &services_, diags);
    ASSERT_FALSE(diags.hasErrors()) << diags.str() << "\n" << config.str();

    connectors::EmbeddedCluster::Options co;
    co.initialState = path("cluster.json");
    co.changes = options_.noChangeStream && !options_.follow ? "" : path("changes.json");
    co.follow = options_.follow;
    co.followInterval = std::chrono::milliseconds(5);
    co.pvController = options_.pvController;
    co.warn = options_.warn ? options_.warn
                            : [](std::string w) { ADD_FAILURE() << "cluster warning: " << w; };
    cluster_ = std::make_unique<connectors::EmbeddedCluster>(co);
    Status started = cluster_->start();
    ASSERT_TRUE(started.ok()) << started.message();

    decisionFile_ = std::make_unique<std::ofstream>(path("decisions.jsonl"));
    log_ = std::make_unique<cycle::DecisionLog>(*decisionFile_);

    SchedulerOptions so;
    so.parallelism = options_.parallelism;
    so.percentageOfNodesToScore = set_.host.percentageOfNodesToScore;
    so.seed = options_.seed;
    so.maxConcurrentBindings = options_.maxConcurrentBindings;
    so.stopGrace = options_.stopGrace;
    so.queue.initialBackoff = options_.initialBackoff;
    so.queue.maxBackoff = options_.maxBackoff;
    so.objects = services_.objectStore();
    so.extenders = options_.extenders;
    so.asyncPreemption = options_.asyncPreemption;
    if (options_.wrapConnector) {
      wrapper_ = options_.wrapConnector(*cluster_);
    }
    connectors::Connector& connector = wrapper_ != nullptr ? *wrapper_ : *cluster_;
    Frameworks frameworks(set_.frameworks.begin(), set_.frameworks.end());
    scheduler_ = std::make_unique<Scheduler>(std::move(frameworks), connector, log_.get(), so,
                                             options_.clock);
    services_.attach(&connector, &scheduler_->waitingPods(), scheduler_.get());
  }

  // Runs the scheduler until the input is over and nothing is left to do.
  SchedulerStats run() { return scheduler_->run(false); }

  // Runs the scheduler in follow mode on a thread of its own, until stopBackground().
  void runInBackground() {
    runner_ = std::thread([this] { backgroundStats_ = scheduler_->run(true); });
  }
  SchedulerStats stopBackground() {
    scheduler_->stop();
    runner_.join();
    return backgroundStats_;
  }

  // Appends one watch event to the change stream (follow mode).
  void appendChange(std::string_view type, const boost::json::value& object) {
    std::ofstream out(path("changes.json"), std::ios::app);
    out << R"({"type":")" << type << R"(","object":)" << boost::json::serialize(object) << "}\n";
  }

  // Polls `done` until it holds or `limit` passes.
  static bool eventually(const std::function<bool()>& done,
                         std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  }

  connectors::EmbeddedCluster& cluster() { return *cluster_; }
  // The objects of the kinds the profiles' plugins declared.
  connectors::ObjectStore& objects() { return *services_.objectStore(); }
  // The declared kinds `plugin` is among the declarers of (the default volume plugins declare
  // the storage kinds beside them).
  std::vector<connectors::ObjectStore::KindInfo> kindsDeclaredBy(std::string_view plugin) {
    std::vector<connectors::ObjectStore::KindInfo> out;
    for (connectors::ObjectStore::KindInfo& k : objects().kinds()) {
      if (std::find(k.plugins.begin(), k.plugins.end(), plugin) != k.plugins.end()) {
        out.push_back(std::move(k));
      }
    }
    return out;
  }
  // The store's id of the first kind `plugin` declared (in the plugin's order).
  std::size_t kindIdOf(std::string_view plugin) {
    const std::vector<connectors::ObjectStore::KindInfo> all = objects().kinds();
    for (std::size_t id = 0; id < all.size(); ++id) {
      const std::vector<std::string>& p = all[id].plugins;
      if (std::find(p.begin(), p.end(), plugin) != p.end()) {
        return id;
      }
    }
    ADD_FAILURE() << plugin << " declared no kind";
    return all.size();
  }
  Scheduler& scheduler() { return *scheduler_; }
  // What the plugins of later generations must be created with (bindings go through it).
  SchedulerServices& services() { return services_; }

  // The stored pod ns/<name> (null when deleted).
  std::shared_ptr<const model::Pod> storedPod(std::string_view name) const {
    return cluster_->pod(kNamespace, name);
  }
  std::string nodeOf(std::string_view podName) const {
    auto p = storedPod(podName);
    return p == nullptr ? std::string() : std::string(p->nodeName());
  }

  // The events about ns/<name> with this reason, oldest first.
  std::vector<connectors::EventRecord> events(std::string_view podName,
                                              std::string_view reason) const {
    std::vector<connectors::EventRecord> out;
    for (connectors::EventRecord& e : cluster_->events()) {
      if (e.podKey == keyOf(podName) && e.reason == reason) {
        out.push_back(std::move(e));
      }
    }
    return out;
  }

  // The decision log's lines so far, parsed.
  std::vector<boost::json::object> decisions() const {
    std::vector<boost::json::object> out;
    std::ifstream in(path("decisions.jsonl"));
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) {
        out.push_back(boost::json::parse(line).as_object());
      }
    }
    return out;
  }

 private:
  HarnessOptions options_;
  std::filesystem::path dir_;
  std::string initial_;
  // Declared in dependency order: each outlives what is declared after it.
  SchedulerServices services_;
  profile::ProfileSet set_;
  std::unique_ptr<std::ofstream> decisionFile_;
  std::unique_ptr<cycle::DecisionLog> log_;
  std::unique_ptr<connectors::EmbeddedCluster> cluster_;
  std::unique_ptr<connectors::Connector> wrapper_;  // HarnessOptions::wrapConnector
  std::unique_ptr<Scheduler> scheduler_;
  std::thread runner_;
  SchedulerStats backgroundStats_;
};

// The scheduler's FailedScheduling message for the pod, its last one ("" when none).
inline std::string lastFailure(SchedulerHarness& h, const std::string& pod) {
  auto failures = h.events(pod, "FailedScheduling");
  return failures.empty() ? std::string() : failures.back().message;
}

}  // namespace sh::cycle::testing

// Profiles swapped under load: a running scheduler on the embedded cluster, pods arriving
// throughout, and a new generation every ~100 ms through the real reload path (files written by
// rename, Reloader, installFrameworks) — alternating score weights, a plugin enabled and
// disabled, a plugin's args, and two builds of one plugin at different paths. Afterwards every
// pod is bound exactly once or pending with a reason, no node is over-committed, and each
// decision followed the generation that made it.
//
// The decisions are checkable because SwapProbe (tests/reload/swap_probe) scores one "big-N"
// node 100 at weight 50 — more than every other score plugin together can give a node — so a
// probe pod lands on the node its generation prefers: big-(args.node + build offset).
//
// SCHEDHOST_SWAP_PODS overrides the number of pods (100000).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host/profile/generation.h"
#include "host/reload/reloader.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::reload::swap_under_load_test {
namespace {

using cycle::testing::HarnessOptions;
using cycle::testing::SchedulerHarness;
using cycle::testing::withKind;

constexpr int kBigNodes = 4;
constexpr int kSmallNodes = 20;
constexpr int kRegularPodMilliCpu = 200;
// One pod in four is a regular pod, confined to the small nodes; they hold all but about 500 of
// them, which stay pending (Insufficient cpu). Few on purpose: every binding is an event the
// queue checks each unschedulable pod against.
constexpr std::size_t kRegularPending = 500;

std::size_t podCount() {
  const char* env = std::getenv("SCHEDHOST_SWAP_PODS");
  return env != nullptr ? static_cast<std::size_t>(std::stoul(env)) : 100000;
}

// One generation's configuration, numbered k from 0.
struct Variant {
  int probeArg = 0;   // SwapProbe's {"node": ...}
  int build = 1;      // SwapProbe v1 (offset 0) or v2 (offset 1)
  int fitWeight = 1;  // NodeResourcesFit's score weight
  bool imageLocality = true;

  static Variant number(int k) {
    Variant v;
    v.probeArg = k % 3;
    v.build = (k / 2) % 2 == 0 ? 1 : 2;
    v.fitWeight = 1 + k % 2;
    v.imageLocality = k % 3 != 1;
    return v;
  }
  std::string preferredNode() const { return "big-" + std::to_string(probeArg + (build - 1)); }

  std::string toml() const {
    std::string t = "parallelism = 2\npluginDirs = [\"" SCHEDHOST_TEST_PLUGIN_DIR "\", \"";
    t += build == 1 ? SCHEDHOST_SWAP_PROBE_V1_DIR : SCHEDHOST_SWAP_PROBE_V2_DIR;
    t += "\"]\n[[profiles]]\nschedulerName = \"default-scheduler\"\n";
    t += "[profiles.plugins.score]\n";
    t += "enabled = [{name = \"SwapProbe\", weight = 50}, {name = \"NodeResourcesFit\", weight = " +
         std::to_string(fitWeight) + "}]\n";
    if (!imageLocality) {
      t += "disabled = [{name = \"ImageLocality\"}]\n";
    }
    t += "[[profiles.pluginConfig]]\nname = \"SwapProbe\"\nargs = {node = " +
         std::to_string(probeArg) + "}\n";
    return t;
  }
};

bool isProbe(std::size_t i) { return i % 4 != 3; }
std::string podName(std::size_t i) { return (isProbe(i) ? "p-" : "r-") + std::to_string(i); }

boost::json::value podJson(std::size_t i) {
  const bool probe = isProbe(i);
  const std::string name = podName(i);
  auto w = model::testing::makePod().name(name).inNamespace("ns").uid(name + "-uid");
  if (probe) {
    w.req({{"cpu", "10m"}, {"memory", "1Mi"}});
  } else {
    w.req({{"cpu", std::to_string(kRegularPodMilliCpu) + "m"}, {"memory", "1Mi"}});
    w.nodeSelector({{"kind", "small"}});
  }
  return withKind(w.parseJson(), "Pod");
}

void writeByRename(const std::filesystem::path& path, const std::string& text) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  std::ofstream(tmp) << text;
  std::filesystem::rename(tmp, path);
}

TEST(SwapUnderLoadTest, EveryPodOnceNoOvercommitDecisionsFollowTheirGeneration) {
  const std::size_t total = podCount();
  const std::size_t regular = total / 4;
  const std::size_t perSmallNode =
      (regular > kRegularPending ? regular - kRegularPending : 0) / kSmallNodes;
  const int64_t smallNodeMilliCpu = static_cast<int64_t>(perSmallNode) * kRegularPodMilliCpu;
  HarnessOptions options;
  options.follow = true;
  options.parallelism = 2;
  options.initialBackoff = std::chrono::milliseconds(50);
  options.maxBackoff = std::chrono::milliseconds(200);
  SchedulerHarness h(options);
  for (int i = 0; i < kBigNodes; ++i) {
    h.add(withKind(model::testing::makeNode()
                       .name("big-" + std::to_string(i))
                       .capacity({{"cpu", "100000"}, {"memory", "100Ti"}, {"pods", "1000000"}})
                       .parseJson(),
                   "Node"));
  }
  for (int i = 0; i < kSmallNodes; ++i) {
    h.add(withKind(model::testing::makeNode()
                       .name("small-" + std::to_string(i))
                       .label("kind", "small")
                       .capacity({{"cpu", std::to_string(smallNodeMilliCpu) + "m"},
                                  {"memory", "100Ti"},
                                  {"pods", std::to_string(perSmallNode + 1000)}})
                       .parseJson(),
                   "Node"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());

  // Generation 1, installed before the loop runs its first cycle.
  const std::filesystem::path configFile = h.path("swap.toml");
  writeByRename(configFile, Variant::number(0).toml());
  profile::LoadRequest request;
  request.hostConfigFile = configFile.string();
  config::Diagnostics diags;
  profile::GenerationPtr first = profile::buildGeneration(request, 1, &h.services(), diags);
  ASSERT_NE(first, nullptr) << diags.str();
  h.scheduler().installFrameworks(first->set.frameworks, 1);

  std::mutex mu;
  std::map<uint64_t, std::string> preferred{{1, Variant::number(0).preferredNode()}};
  Reloader::Options ro;
  ro.request = request;
  ro.services = &h.services();
  ro.install = [&h](const profile::GenerationPtr& g) {
    h.scheduler().installFrameworks(g->set.frameworks, g->number);
  };
  Reloader reloader(ro, first);
  reloader.start();
  h.runInBackground();

  // Pods arrive in batches while the scheduler keeps up (never more than 4,000 ahead).
  std::atomic<bool> writing{true};
  std::thread writer([&] {
    std::size_t written = 0;
    while (written < total) {
      while (written > h.scheduler().stats().attempts + 4000) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      std::string batch;
      const std::size_t end = std::min(total, written + 1000);
      for (; written < end; ++written) {
        batch += R"({"type":"ADDED","object":)" + boost::json::serialize(podJson(written)) + "}\n";
      }
      std::ofstream(h.path("changes.json"), std::ios::app) << batch;
    }
    writing.store(false);
  });

  // A new generation every ~100 ms until every pod has been written and tried.
  int reloads = 0;
  int k = 0;
  while (writing.load() || h.scheduler().stats().attempts < total) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const Variant v = Variant::number(++k);
    writeByRename(configFile, v.toml());
    auto r = reloader.reloadAndWait("test", std::chrono::seconds(60));
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(r->applied) << r->error;
    {
      std::lock_guard<std::mutex> lock(mu);
      preferred[r->generation] = v.preferredNode();
    }
    ++reloads;
  }
  writer.join();
  // Quiet: every binding confirmed, nothing left to try.
  ASSERT_TRUE(SchedulerHarness::eventually(
      [&] {
        const auto counts = h.scheduler().queue().pendingCounts();
        return h.scheduler().status().bindingsInFlight == 0 && counts.active == 0 &&
               counts.backoff == 0 && h.cluster().pending() == 0;
      },
      std::chrono::seconds(120)));
  h.stopBackground();
  reloader.stop();
  EXPECT_GE(reloads, 10) << "the run was too short to swap under load";

  // Every decision, by pod.
  std::map<std::string, int> bindings;
  std::map<std::string, std::string> lastKind;
  std::map<std::string, int> podsOnNode;
  std::size_t checkedProbes = 0;
  std::set<uint64_t> generationsSeen;
  for (const boost::json::object& d : h.decisions()) {
    const std::string kind(d.at("kind").as_string());
    if (kind != "Binding" && kind != "FailedScheduling") {
      continue;
    }
    const std::string pod(d.at("pod").as_string());
    lastKind[pod] = kind;
    if (kind != "Binding") {
      EXPECT_EQ(d.at("reason").as_string(), "Unschedulable") << pod;
      continue;
    }
    ++bindings[pod];
    const std::string node(d.at("node").as_string());
    const uint64_t generation = d.at("generation").to_number<uint64_t>();
    generationsSeen.insert(generation);
    ++podsOnNode[node];
    if (pod.rfind("ns/p-", 0) == 0) {
      ASSERT_EQ(preferred.count(generation), 1u) << "unknown generation " << generation;
      EXPECT_EQ(node, preferred[generation]) << pod << " placed by generation " << generation;
      ++checkedProbes;
    } else {
      EXPECT_EQ(node.rfind("small-", 0), 0u) << pod << " on " << node;
    }
  }
  EXPECT_GE(generationsSeen.size(), 5u);
  std::size_t bound = 0;
  for (std::size_t i = 0; i < total; ++i) {
    const std::string name = podName(i);
    const std::string key = "ns/" + name;
    auto stored = h.storedPod(name);
    ASSERT_NE(stored, nullptr) << key << " was lost";
    auto b = bindings.find(key);
    if (stored->nodeName().empty()) {
      EXPECT_EQ(b, bindings.end()) << key << " has a Binding but is not bound";
      EXPECT_EQ(lastKind[key], "FailedScheduling") << key << " pending without a reason";
    } else {
      ASSERT_NE(b, bindings.end()) << key << " is bound without a Binding line";
      EXPECT_EQ(b->second, 1) << key << " bound " << b->second << " times";
      ++bound;
    }
  }
  EXPECT_EQ(bound, bindings.size());
  EXPECT_EQ(checkedProbes, total - regular) << "every probe pod is bound";
  // No over-commitment: the small nodes are full, and never more than full.
  std::size_t onSmall = 0;
  for (const auto& [node, count] : podsOnNode) {
    if (node.rfind("small-", 0) == 0) {
      EXPECT_LE(count * kRegularPodMilliCpu, smallNodeMilliCpu) << node;
      onSmall += static_cast<std::size_t>(count);
    }
  }
  EXPECT_EQ(onSmall, perSmallNode * kSmallNodes) << "the small nodes are filled exactly";
  EXPECT_EQ(h.scheduler().pendingPodCount(), total - bound);
}

}  // namespace
}  // namespace sh::reload::swap_under_load_test

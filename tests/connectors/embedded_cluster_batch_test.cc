// The event loop's side of the embedded cluster: nextBatch() (the whole queue in one call, in
// the order next() would give it), the Connector's default nextBatch() over next(), and a large
// initial state, whose objects are parsed on several threads, still taken in file order with
// its warnings in line order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::embedded_cluster_batch_test {
namespace {

using testing::describe;
using testing::nodeJson;
using testing::podJson;
using testing::TempDir;
using testing::text;
using testing::Warnings;

std::vector<std::string> describeAll(const std::vector<ClusterChange>& changes) {
  std::vector<std::string> out;
  for (const ClusterChange& c : changes) {
    out.push_back(describe(c) + " @" + c.source);
  }
  return out;
}

// A JSON lines state: `nodes` nodes and `pods` pods, interleaved (a node every fourth line
// while they last), pod i bound to node i % nodes when i is even. Every 97th pod has a
// malformed spec.priority and every 101st names a PriorityClass that does not exist (both
// rejected). `expected` gets the changes a drain gives, `warnings` the warnings, in order.
std::string bigState(int nodes, int pods, const std::string& path,
                     std::vector<std::string>& expected, std::vector<std::string>& warnings) {
  std::string out;
  std::vector<std::string> nodeChanges;
  std::vector<std::string> podChanges;
  std::vector<std::string> parseWarnings;
  std::vector<std::string> admissionWarnings;
  int line = 0;
  int n = 0;
  for (int p = 0; p < pods || n < nodes;) {
    ++line;
    if (n < nodes && (line % 4 == 1 || p >= pods)) {
      const std::string name = "n" + std::to_string(n++);
      out += text(nodeJson(name)) + "\n";
      nodeChanges.push_back("ADDED Node " + name + " @" + path + ":" + std::to_string(line));
      continue;
    }
    const std::string name = "p" + std::to_string(p);
    const std::string node = p % 2 == 0 ? "n" + std::to_string(p % nodes) : "";
    boost::json::value pod = podJson("ns", name, node);
    const std::string where = path + ":" + std::to_string(line);
    if (p % 97 == 5) {
      pod.as_object()["spec"].as_object()["priority"] = "high";
      parseWarnings.push_back(where + ": pod ns/" + name +
                              ": spec.priority: expected integer, got string");
    } else if (p % 101 == 7) {
      pod.as_object()["spec"].as_object()["priorityClassName"] = "missing";
      admissionWarnings.push_back(where + ": pod ns/" + name +
                                  ": spec.priorityClassName: no PriorityClass with name missing "
                                  "was found");
    } else {
      podChanges.push_back("ADDED Pod ns/" + name + " @" + where);
    }
    out += text(pod) + "\n";
    ++p;
  }
  expected = nodeChanges;
  expected.insert(expected.end(), podChanges.begin(), podChanges.end());
  // Parse and admission problems together, in line order (lines grow with the pod index).
  warnings.clear();
  std::merge(parseWarnings.begin(), parseWarnings.end(), admissionWarnings.begin(),
             admissionWarnings.end(), std::back_inserter(warnings),
             [](const std::string& a, const std::string& b) {
               auto lineOf = [](const std::string& w) {
                 const auto colon = w.find(':');
                 return std::stoi(w.substr(colon + 1));
               };
               return lineOf(a) < lineOf(b);
             });
  return out;
}

TEST(EmbeddedClusterBatchTest, LargeInitialStateKeepsFileOrderAndLineNumbers) {
  TempDir dir;
  std::vector<std::string> expected;
  std::vector<std::string> expectedWarnings;
  const std::string path = dir.write("state.jsonl", "");
  dir.write("state.jsonl", bigState(300, 1500, path, expected, expectedWarnings));
  Warnings w;
  EmbeddedCluster::Options o;
  o.warn = w.sink();
  o.initialState = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  ASSERT_FALSE(expectedWarnings.empty());
  EXPECT_EQ(w.all(), expectedWarnings);
  EXPECT_EQ(cluster.rejectedLines(), expectedWarnings.size());
  std::vector<ClusterChange> batch;
  EXPECT_EQ(cluster.nextBatch(batch, std::chrono::milliseconds(0)), expected.size());
  EXPECT_EQ(describeAll(batch), expected);
  EXPECT_TRUE(cluster.exhausted());
  EXPECT_EQ(cluster.nodeCount(), 300u);
  EXPECT_EQ(cluster.podCount(), 1500u - expectedWarnings.size());
  // Pods bound in the file are on their nodes.
  EXPECT_EQ(cluster.pod("ns", "p2")->nodeName(), "n2");
}

TEST(EmbeddedClusterBatchTest, NextBatchGivesWhatNextWouldInOneCall) {
  TempDir dir;
  std::string state;
  for (int i = 0; i < 3; ++i) {
    state += text(nodeJson("n" + std::to_string(i))) + "\n";
  }
  for (int i = 0; i < 5; ++i) {
    state += text(podJson("ns", "p" + std::to_string(i))) + "\n";
  }
  const std::string path = dir.write("state.jsonl", state);
  auto load = [&] {
    EmbeddedCluster::Options o;
    o.initialState = path;
    auto c = std::make_unique<EmbeddedCluster>(o);
    EXPECT_TRUE(c->start().ok());
    return c;
  };
  auto one = load();
  std::vector<ClusterChange> byNext;
  while (auto c = one->next(std::chrono::milliseconds(0))) {
    byNext.push_back(std::move(*c));
  }
  auto other = load();
  std::vector<ClusterChange> batch;
  // Appends: what `out` held stays in front.
  batch.push_back(byNext.front());
  EXPECT_EQ(other->nextBatch(batch, std::chrono::milliseconds(0)), 8u);
  ASSERT_EQ(batch.size(), 9u);
  batch.erase(batch.begin());
  EXPECT_EQ(describeAll(batch), describeAll(byNext));
  EXPECT_TRUE(other->exhausted());
  EXPECT_EQ(other->pending(), 0u);
  // Nothing left: an expired wait gives nothing.
  EXPECT_EQ(other->nextBatch(batch, std::chrono::milliseconds(0)), 0u);

  // An empty queue waits for the first change: a bind from another thread.
  std::thread binder([&] { EXPECT_TRUE(other->bind(*other->pod("ns", "p3"), "n1").ok()); });
  std::vector<ClusterChange> bound;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (bound.empty() && std::chrono::steady_clock::now() < deadline) {
    other->nextBatch(bound, std::chrono::seconds(5));
  }
  binder.join();
  ASSERT_EQ(bound.size(), 1u);
  EXPECT_EQ(describe(bound[0]), "MODIFIED Pod ns/p3");
  EXPECT_EQ(bound[0].source, "binding");
  EXPECT_EQ(bound[0].curPod->nodeName(), "n1");

  other->stop();
  EXPECT_TRUE(other->bind(*other->pod("ns", "p4"), "n2").ok());
  EXPECT_EQ(other->nextBatch(bound, std::chrono::milliseconds(50)), 0u);  // stopped
  EXPECT_EQ(bound.size(), 1u);
}

// A connector that implements next() only: the default nextBatch() drains it through next().
class ListConnector final : public Connector {
 public:
  explicit ListConnector(std::deque<ClusterChange> changes) : changes_(std::move(changes)) {}
  std::optional<ClusterChange> next(std::chrono::milliseconds timeout) override {
    timeouts.push_back(timeout);
    if (changes_.empty()) {
      return std::nullopt;
    }
    ClusterChange c = std::move(changes_.front());
    changes_.pop_front();
    return c;
  }
  bool exhausted() const override { return changes_.empty(); }
  std::size_t pending() const override { return changes_.size(); }
  void stop() override {}
  Status bind(const model::Pod&, std::string_view) override { return Status::success(); }
  Status deletePod(const model::Pod&, std::string_view) override { return Status::success(); }
  void recordFailure(const SchedulingFailure&) override {}
  void recordEvent(const EventRecord&) override {}

  std::vector<std::chrono::milliseconds> timeouts;

 private:
  std::deque<ClusterChange> changes_;
};

TEST(EmbeddedClusterBatchTest, DefaultNextBatchDrainsNextWaitingOnlyForTheFirst) {
  std::deque<ClusterChange> changes;
  for (const char* source : {"a", "b", "c"}) {
    ClusterChange c;
    c.source = source;
    changes.push_back(std::move(c));
  }
  ListConnector connector(std::move(changes));
  std::vector<ClusterChange> out;
  EXPECT_EQ(connector.nextBatch(out, std::chrono::milliseconds(7)), 3u);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].source, "a");
  EXPECT_EQ(out[2].source, "c");
  EXPECT_THAT(connector.timeouts,
              ::testing::ElementsAre(std::chrono::milliseconds(7), std::chrono::milliseconds(0),
                                     std::chrono::milliseconds(0), std::chrono::milliseconds(0)));
  EXPECT_EQ(connector.nextBatch(out, std::chrono::milliseconds(0)), 0u);
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_batch_test

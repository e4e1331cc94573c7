// AttemptStore: the grouping of node verdicts, what a new attempt keeps of the one before, and
// the memory bound.
#include "host/cycle/attempt_store.h"

#include <gtest/gtest.h>

#include "tests/cycle/scheduler_harness.h"

#include <string>
#include <vector>

namespace sh::cycle {
namespace {

NodeVerdict verdict(std::string node, std::string plugin, std::string reason) {
  return {std::move(node), std::move(plugin), "Unschedulable", {std::move(reason)}};
}

TEST(AttemptStoreTest, NodesAreGroupedByPluginAndReasonsLargestGroupFirst) {
  std::vector<NodeVerdict> verdicts = {
      verdict("n3", "NodeResourcesFit", "Insufficient cpu"),
      verdict("n1", "TaintToleration", "node(s) had untolerated taint(s)"),
      verdict("n2", "NodeResourcesFit", "Insufficient cpu"),
      verdict("n4", "NodeResourcesFit", "Insufficient memory"),
      verdict("n5", "NodeResourcesFit", "Insufficient cpu"),
  };
  auto groups = groupNodes(verdicts);
  // Insufficient cpu: n2, n3, n5 (3); then the two groups of 1, in key order.
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].key(), "NodeResourcesFit: Insufficient cpu");
  EXPECT_EQ(groups[0].count, 3u);
  EXPECT_EQ(groups[0].nodes, (std::vector<std::string>{"n2", "n3", "n5"}));
  EXPECT_EQ(groups[1].key(), "NodeResourcesFit: Insufficient memory");
  EXPECT_EQ(groups[2].key(), "TaintToleration: node(s) had untolerated taint(s)");
  EXPECT_EQ(groups[2].nodes, (std::vector<std::string>{"n1"}));
}

TEST(AttemptStoreTest, AGroupKeepsItsCountButOnlyTheFirstNames) {
  std::vector<NodeVerdict> verdicts;
  for (int i = 0; i < 5000; ++i) {
    verdicts.push_back(verdict("node-" + std::to_string(10000 + i), "NodeAffinity",
                               "node(s) didn't match Pod's node affinity/selector"));
  }
  auto groups = groupNodes(verdicts);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].count, 5000u);
  ASSERT_EQ(groups[0].nodes.size(), AttemptStore::kNodeNamesPerGroup);
  EXPECT_EQ(groups[0].nodes.front(), "node-10000");
  EXPECT_EQ(groups[0].nodes.back(), "node-10049");  // 10000 + 50 - 1
}

TEST(AttemptStoreTest, BeyondTheGroupLimitTheSmallestGroupsFoldIntoOne) {
  // 70 groups: "r0" of 71 nodes, "r1" of 70, ..., "r69" of 2 (sizes 71 - k).
  std::vector<NodeVerdict> verdicts;
  for (int k = 0; k < 70; ++k) {
    for (int i = 0; i < 71 - k; ++i) {
      verdicts.push_back(
          verdict("n" + std::to_string(k) + "-" + std::to_string(i), "P", "r" + std::to_string(k)));
    }
  }
  auto groups = groupNodes(verdicts);
  ASSERT_EQ(groups.size(), AttemptStore::kMaxGroups);
  EXPECT_EQ(groups[0].count, 71u);
  // The 63 largest stay (k = 0..62); k = 63..69 fold: sizes 8 + 7 + ... + 2 = 35.
  EXPECT_EQ(groups.back().code, "Other");
  EXPECT_EQ(groups.back().count, 35u);
  EXPECT_TRUE(groups.back().nodes.empty());
}

AttemptRecord attempt(std::string pod, std::vector<NodeVerdict> verdicts) {
  AttemptRecord r;
  r.pod = std::move(pod);
  r.result = "unschedulable";
  r.groups = groupNodes(std::move(verdicts));
  return r;
}

TEST(AttemptStoreTest, ANewAttemptReplacesTheLastAndRemembersItsGroupCounts) {
  AttemptStore store;
  store.record(attempt("ns/p", {verdict("n1", "NodeResourcesFit", "Insufficient cpu"),
                                verdict("n2", "NodeResourcesFit", "Insufficient cpu")}));
  EXPECT_FALSE(store.last("ns/p")->previousGroups.has_value());
  store.record(attempt("ns/p", {verdict("n1", "NodeResourcesFit", "Insufficient cpu"),
                                verdict("n2", "TaintToleration", "untolerated")}));
  auto last = store.last("ns/p");
  ASSERT_TRUE(last.has_value());
  ASSERT_EQ(last->groups.size(), 2u);
  ASSERT_TRUE(last->previousGroups.has_value());
  EXPECT_EQ(*last->previousGroups,
            (std::map<std::string, std::size_t>{{"NodeResourcesFit: Insufficient cpu", 2}}));
  EXPECT_EQ(store.size(), 1u);
  store.forget("ns/p");
  EXPECT_FALSE(store.last("ns/p").has_value());
  EXPECT_TRUE(store.empty());
  EXPECT_EQ(store.bytes(), 0u);
}

TEST(AttemptStoreTest, TheOldestRecordsAreDroppedBeyondTheLimit) {
  const std::size_t one = attempt("ns/p0", {verdict("n1", "P", "r")}).estimatedBytes();
  // Room for three records of that size (the pod names are as long).
  AttemptStore store(3 * one);
  for (int i = 0; i < 5; ++i) {
    store.record(attempt("ns/p" + std::to_string(i), {verdict("n1", "P", "r")}));
  }
  EXPECT_EQ(store.size(), 3u);
  EXPECT_FALSE(store.last("ns/p0").has_value());
  EXPECT_FALSE(store.last("ns/p1").has_value());
  EXPECT_TRUE(store.last("ns/p2").has_value());
  EXPECT_TRUE(store.last("ns/p4").has_value());
  EXPECT_LE(store.bytes(), 3 * one);
}

TEST(AttemptStoreTest, TheSchedulerKeepsAPendingPodsLastAttemptUntilItBinds) {
  testing::SchedulerHarness h({.follow = true});
  h.add(testing::node("small", "1", "8Gi"));
  h.add(testing::withKind(model::testing::makeNode()
                              .name("tainted")
                              .capacity({{"cpu", "8"}, {"memory", "8Gi"}, {"pods", "110"}})
                              .taint("dedicated", "gpu", "NoSchedule")
                              .parseJson(),
                          "Node"));
  h.add(testing::pod("p", "2", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  ASSERT_TRUE(h.scheduler().stepForTest());
  auto last = h.scheduler().attempts().last("ns/p");
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->profile, "default-scheduler");
  EXPECT_EQ(last->result, "unschedulable");
  EXPECT_EQ(last->attempts, 1);
  EXPECT_EQ(last->numAllNodes, 2u);
  EXPECT_EQ(last->message, testing::lastFailure(h, "p").substr(0, last->message.size()));
  ASSERT_EQ(last->groups.size(), 2u);
  // One node each: the groups tie on size and come in key order.
  EXPECT_EQ(last->groups[0].key(), "NodeResourcesFit: Insufficient cpu");
  EXPECT_EQ(last->groups[0].nodes, std::vector<std::string>{"small"});
  EXPECT_EQ(last->groups[1].key(), "TaintToleration: node(s) had untolerated taint(s)");

  // A node it fits arrives: the pod binds and its record goes.
  h.runInBackground();
  h.appendChange("ADDED", testing::node("big", "4", "8Gi"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("p") == "big"; }));
  ASSERT_TRUE(h.eventually([&] { return !h.scheduler().attempts().last("ns/p").has_value(); }));
  h.stopBackground();
}

}  // namespace
}  // namespace sh::cycle

// SchedulingQueue::setProfiles: a new profile generation under a queue full of pods — every pod
// kept, a QueueSort change re-sorting activeQ, pods of a removed profile handed back, gated
// pods meeting the new PreEnqueue plugins, and hints coming from the new plugins.
#include <gtest/gtest.h>

#include "host/queue/scheduling_queue.h"
#include "tests/queue/queue_fixture.h"

namespace sh::queue::scheduling_queue_profiles_test {
namespace {

using testing::createPlugin;
using testing::kSecond;
using testing::oneEvent;
using testing::plugins;
using testing::testPod;

// A framework for `profile` with QueueByName (reversed when `descending`) as QueueSort and
// `extra` at their points.
std::shared_ptr<const Framework> byName(
    const std::string& profile, bool descending,
    const std::vector<std::pair<ExtensionPoint, PluginPtr>>& extra = {}) {
  Framework::Config config;
  config.profileName = profile;
  config.plugins[indexOf(ExtensionPoint::kQueueSort)].push_back(
      createPlugin("QueueByName", descending ? R"({"descending":true})" : "{}"));
  config.queueSortKey = descending ? "QueueByName desc" : "QueueByName asc";
  for (const auto& [point, plugin] : extra) {
    config.plugins[indexOf(point)].push_back(plugin);
  }
  return std::make_shared<Framework>(std::move(config));
}

class QueueProfilesTest : public testing::QueueFixture {
 protected:
  std::vector<std::string> popAll() {
    std::vector<std::string> out;
    while (auto p = q_->tryPopForTest()) {
      out.emplace_back(p->pod->name());
      q_->done(p->pod->uid());
    }
    return out;
  }
};

TEST_F(QueueProfilesTest, QueueSortChangeReSortsActiveQ) {
  makeWithProfiles({{"default-scheduler", byName("default-scheduler", false)}});
  for (const char* name : {"c", "a", "e", "b", "d"}) {
    q_->add(testPod(name).obj());
  }
  auto first = q_->tryPopForTest();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->pod->name(), "a");
  q_->done(first->pod->uid());

  auto dropped = q_->setProfiles(
      cycle::queueProfiles({{"default-scheduler", byName("default-scheduler", true)}}));
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(popAll(), (std::vector<std::string>{"e", "d", "c", "b"}));
}

TEST_F(QueueProfilesTest, EveryPodStaysWhereItWas) {
  makeWithProfiles(testing::oneProfile({{ExtensionPoint::kFilter, scripted("QueueA")}}));
  addAndFail(testPod("waiting").obj(), plugins({"QueueA"}));
  q_->add(testPod("active").obj());
  q_->add(testPod("active2").obj());
  ASSERT_EQ(whereIs("waiting"), "unschedulable");
  const PendingCounts before = q_->pendingCounts();

  // The same plugins, new instances: a new generation of the same profile.
  auto dropped = q_->setProfiles(
      cycle::queueProfiles(testing::oneProfile({{ExtensionPoint::kFilter, scripted("QueueA")}})));
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(q_->pendingCounts(), before);
  EXPECT_EQ(whereIs("active"), "active");
  EXPECT_EQ(whereIs("active2"), "active");
  EXPECT_EQ(whereIs("waiting"), "unschedulable");
  // PrioritySort both times: activeQ keeps its order (equal priority: by timestamp).
  EXPECT_EQ(popAll(), (std::vector<std::string>{"active", "active2"}));
}

TEST_F(QueueProfilesTest, PodsOfARemovedProfileAreHandedBack) {
  Frameworks two = testing::oneProfile({}, "a");
  two["b"] = testing::makeFramework("b", {});
  makeWithProfiles(two);
  addAndFail(testPod("b2").schedulerName("b").obj(), plugins({"NodeResourcesFit"}));
  q_->add(testPod("a1").schedulerName("a").obj());
  q_->add(testPod("b1").schedulerName("b").obj());
  ASSERT_EQ(whereIs("b2"), "unschedulable");

  auto dropped = q_->setProfiles(cycle::queueProfiles(testing::oneProfile({}, "a")));
  std::vector<std::string> names;
  for (const PodPtr& p : dropped) {
    names.emplace_back(p->name());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"b1", "b2"}));
  EXPECT_EQ(whereIs("b1"), "none");
  EXPECT_EQ(whereIs("b2"), "none");
  EXPECT_EQ(whereIs("a1"), "active");
  EXPECT_EQ(q_->pendingCounts().unschedulable, 0u);
  EXPECT_EQ(popAll(), (std::vector<std::string>{"a1"}));
}

TEST_F(QueueProfilesTest, GatedPodsMeetTheNewPreEnqueuePlugins) {
  make({{ExtensionPoint::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"hold"})")}});
  q_->add(testPod("held").label("hold", "yes").obj());
  ASSERT_EQ(whereIs("held"), "unschedulable");
  ASSERT_EQ(q_->pendingCounts().gated, 1u);

  // The new generation's QueueA gates on another label: the pod is let through.
  q_->setProfiles(cycle::queueProfiles(testing::oneProfile(
      {{ExtensionPoint::kPreEnqueue, scripted("QueueA", R"({"gateLabel":"other"})")}})));
  EXPECT_EQ(whereIs("held"), "active");
  EXPECT_EQ(q_->pendingCounts().gated, 0u);
  EXPECT_EQ(incoming("active", "ProfileChange"), 1u);
  // The gauge of pods held by QueueA went back to zero.
  auto m = q_->metrics();
  auto it = m.unschedulablePods.find({"QueueA", "default-scheduler"});
  ASSERT_NE(it, m.unschedulablePods.end());
  EXPECT_EQ(it->second, 0);
}

TEST_F(QueueProfilesTest, HintsComeFromTheNewGeneration) {
  // Generation 1: QueueA skips Node/Add for the pods it rejected.
  make({{ExtensionPoint::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  ASSERT_EQ(whereIs("p"), "unschedulable");

  // Generation 2: its hint says Queue.
  q_->setProfiles(cycle::queueProfiles(testing::oneProfile(
      {{ExtensionPoint::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}})));
  clock_.step(std::chrono::seconds(2));  // past the backoff
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd());
  EXPECT_EQ(whereIs("p"), "active");
}

// The host turns a pod away on behalf of a plugin its profile lacks (claims with no
// VolumeBinding): no event of that plugin will ever come, so a new generation retries it,
// while a pod turned away by a plugin both generations have waits for that plugin's events.
TEST_F(QueueProfilesTest, PodsTurnedAwayForAMissingPluginAreRetriedByANewGeneration) {
  make({{ExtensionPoint::kFilter, scripted("QueueA")}});
  addAndFail(testPod("claims").obj(), plugins({"VolumeBinding"}));
  addAndFail(testPod("waiting").obj(), plugins({"QueueA"}));
  ASSERT_EQ(whereIs("claims"), "unschedulable");

  q_->setProfiles(
      cycle::queueProfiles(testing::oneProfile({{ExtensionPoint::kFilter, scripted("QueueA")}})));
  EXPECT_EQ(whereIs("claims"), "backoff");
  EXPECT_EQ(whereIs("waiting"), "unschedulable");
  EXPECT_EQ(incoming("backoff", "ProfileChange"), 1u);
}

// A pod turned away by a plugin the new generation dropped would wait for events that never
// come: it is retried too.
TEST_F(QueueProfilesTest, PodsTurnedAwayByADroppedPluginAreRetried) {
  make({{ExtensionPoint::kFilter, scripted("QueueA")}});
  addAndFail(testPod("p").obj(), plugins({"QueueA"}));
  q_->setProfiles(cycle::queueProfiles(testing::oneProfile({})));
  EXPECT_EQ(whereIs("p"), "backoff");
}

}  // namespace
}  // namespace sh::queue::scheduling_queue_profiles_test

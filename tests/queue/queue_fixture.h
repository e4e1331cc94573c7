// The fixture shared by the SchedulingQueue tests: a queue on a FakeClock and shorthands for
// the pop / fail cycle the scheduler drives.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::testing {

class QueueFixture : public ::testing::Test {
 protected:
  void makeWithProfiles(const Frameworks& profiles, QueueOptions options = {}) {
    q_ = std::make_unique<SchedulingQueue>(cycle::queueProfiles(profiles), std::move(options),
                                           &clock_);
  }
  void make(const std::vector<std::pair<Point, PluginPtr>>& plugins, QueueOptions options = {}) {
    makeWithProfiles(oneProfile(plugins), std::move(options));
  }
  // A scripted plugin: QueueA, QueueB or QueueNoEvents with these args.
  static PluginPtr scripted(const std::string& name, const std::string& argsJson = "{}") {
    return createPlugin(name, argsJson);
  }

  QueuedPodInfoPtr pop() {
    QueuedPodInfoPtr p = q_->tryPopForTest();
    EXPECT_NE(p, nullptr) << "nothing to pop";
    return p;
  }
  std::string popName() {
    QueuedPodInfoPtr p = q_->tryPopForTest();
    return p ? std::string(p->pod->name()) : "";
  }
  // Hands a popped pod back as rejected by `unschedulable` (and `pending`).
  void fail(QueuedPodInfoPtr info, PluginSet unschedulable, PluginSet pending = {}) {
    ASSERT_NE(info, nullptr);
    Status s = q_->addUnschedulableIfNotPresent(
        rejected(std::move(info), std::move(unschedulable), std::move(pending)),
        q_->schedulingCycle());
    ASSERT_TRUE(s.ok()) << s.message();
  }
  // Adds the pod, pops it and fails it with `unschedulable`.
  void addAndFail(PodPtr pod, PluginSet unschedulable, PluginSet pending = {}) {
    const std::string name(pod->name());
    q_->add(std::move(pod));
    QueuedPodInfoPtr info = pop();
    ASSERT_NE(info, nullptr);
    ASSERT_EQ(info->pod->name(), name);
    fail(std::move(info), std::move(unschedulable), std::move(pending));
  }
  std::string whereIs(const std::string& name) const { return where(*q_, name); }
  QueuedPodInfo queuedInfo(const std::string& name) const {
    auto found = q_->lookupForTest(key(name));
    EXPECT_TRUE(found.has_value()) << name;
    return found ? found->info : QueuedPodInfo{};
  }
  uint64_t incoming(const std::string& queue, const std::string& event) const {
    auto m = q_->metrics();
    auto it = m.incomingPods.find({queue, event});
    return it == m.incomingPods.end() ? 0 : it->second;
  }

  FakeClock clock_{kStart};
  std::unique_ptr<SchedulingQueue> q_;
};

// {"events": [<one registration>]} for a scripted plugin.
inline std::string oneEvent(const std::string& resource, const std::string& actions,
                            const std::string& hint) {
  return R"({"events":[{"resource":")" + resource + R"(","actions":[)" + actions + R"(],"hint":")" +
         hint + R"("}]})";
}

}  // namespace sh::queue::testing

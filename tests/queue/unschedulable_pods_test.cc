// UnschedulablePods: keyed storage with exact gated / unschedulable counts.
#include "host/queue/unschedulable_pods.h"

#include <gtest/gtest.h>

#include "tests/queue/queue_test_util.h"

namespace sh::queue::unschedulable_pods_test {
namespace {

using testing::key;
using testing::testPod;

QueuedPodInfoPtr queuedInfo(const std::string& name, const std::string& gatingPlugin = "") {
  auto info = std::make_unique<QueuedPodInfo>();
  info->pod = testPod(name).obj();
  info->gatingPlugin = gatingPlugin;
  return info;
}

TEST(UnschedulablePodsTest, AddGetRemove) {
  UnschedulablePods u;
  EXPECT_TRUE(u.add(queuedInfo("a")));
  EXPECT_TRUE(u.add(queuedInfo("b")));
  EXPECT_EQ(u.size(), 2u);
  EXPECT_TRUE(u.has(key("a")));
  ASSERT_NE(u.get(key("b")), nullptr);
  EXPECT_EQ(u.get(key("b"))->pod->name(), "b");
  EXPECT_EQ(u.get(key("zz")), nullptr);

  QueuedPodInfoPtr a = u.remove(key("a"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->pod->name(), "a");
  EXPECT_EQ(u.remove(key("a")), nullptr);
  EXPECT_EQ(u.size(), 1u);
  EXPECT_EQ(u.list().size(), 1u);
}

TEST(UnschedulablePodsTest, CountsGatedAndUnschedulableApart) {
  struct Step {
    const char* name;
    const char* gatingPlugin;
    bool remove;
    std::size_t gated;
    std::size_t unschedulable;
  };
  // clang-format off
  const Step steps[] = {
      {"a", "",      false, 0, 1},
      {"b", "Gates", false, 1, 1},
      {"c", "Gates", false, 2, 1},
      {"b", "",      false, 1, 2},  // re-added ungated: moves between the counts
      {"a", "Gates", false, 2, 1},
      {"c", "",      true,  1, 1},  // removing uses how the entry was counted
      {"a", "",      true,  0, 1},
  };
  // clang-format on
  UnschedulablePods u;
  for (const Step& s : steps) {
    SCOPED_TRACE(std::string(s.name) + (s.remove ? " removed" : " added"));
    if (s.remove) {
      u.remove(key(s.name));
    } else {
      u.add(queuedInfo(s.name, s.gatingPlugin));
    }
    EXPECT_EQ(u.gatedCount(), s.gated);
    EXPECT_EQ(u.unschedulableCount(), s.unschedulable);
  }
}

TEST(UnschedulablePodsTest, ReAddingReportsAnExistingKey) {
  UnschedulablePods u;
  EXPECT_TRUE(u.add(queuedInfo("a")));
  EXPECT_FALSE(u.add(queuedInfo("a")));
  EXPECT_EQ(u.size(), 1u);
}

}  // namespace
}  // namespace sh::queue::unschedulable_pods_test

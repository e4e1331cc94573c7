// Reproducibility: the same workload and seed give the same bindings whatever the
// parallelism (Filter in deterministic rounds, scores by index, ties broken by the seeded
// selectHost), and the seed does matter.
#include "host/cycle/scheduler.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_reproducibility_test {
namespace {

using testing::HarnessOptions;
using testing::node;
using testing::pod;
using testing::SchedulerHarness;

constexpr int kNodes = 300;
constexpr int kPods = 2000;

struct Placement {
  std::map<std::string, std::string> nodeOf;  // pod name -> node
  SchedulerStats stats;
};

// 300 nodes in 3 zones, four sizes of each, so many nodes are identical (ties) while others
// are not; 2000 pods of 16 request shapes, all of which fit.
Placement schedule(int parallelism, uint64_t seed, int maxConcurrentBindings) {
  constexpr std::array<std::array<const char*, 2>, 4> kNodeSizes = {
      {{"2", "8Gi"}, {"4", "16Gi"}, {"8", "32Gi"}, {"16", "64Gi"}}};
  constexpr std::array<const char*, 4> kCpu = {"100m", "250m", "500m", "1"};
  constexpr std::array<const char*, 4> kMemory = {"128Mi", "512Mi", "1Gi", "2Gi"};
  constexpr std::array<const char*, 3> kZones = {"zone-a", "zone-b", "zone-c"};

  SchedulerHarness h(
      {.parallelism = parallelism, .seed = seed, .maxConcurrentBindings = maxConcurrentBindings});
  for (int i = 0; i < kNodes; ++i) {
    const auto& size = kNodeSizes[static_cast<std::size_t>((i / 3) % 4)];
    h.add(node("node-" + std::to_string(i), size[0], size[1], "110",
               kZones[static_cast<std::size_t>(i % 3)]));
  }
  for (int i = 0; i < kPods; ++i) {
    h.add(pod("pod-" + std::to_string(i), kCpu[static_cast<std::size_t>(i % 4)],
              kMemory[static_cast<std::size_t>((i / 4 + i / 16) % 4)]));
  }
  Placement placement;
  h.start();
  if (::testing::Test::HasFatalFailure()) {
    return placement;
  }
  placement.stats = h.run();
  for (int i = 0; i < kPods; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    placement.nodeOf[name] = h.nodeOf(name);
  }
  return placement;
}

std::size_t differences(const Placement& a, const Placement& b) {
  std::size_t n = 0;
  for (const auto& [pod, node] : a.nodeOf) {
    n += b.nodeOf.at(pod) != node ? 1 : 0;
  }
  return n;
}

TEST(SchedulerTest, SameSeedGivesTheSameBindingsWhateverTheParallelism) {
  const Placement serial = schedule(1, 42, 1);
  ASSERT_FALSE(HasFatalFailure());
  const Placement parallel = schedule(8, 42, 4);
  ASSERT_FALSE(HasFatalFailure());

  EXPECT_EQ(serial.stats.scheduled, static_cast<uint64_t>(kPods));
  EXPECT_EQ(parallel.stats.scheduled, static_cast<uint64_t>(kPods));
  EXPECT_EQ(serial.stats.unschedulable + parallel.stats.unschedulable, 0u);
  for (const auto& [pod, node] : serial.nodeOf) {
    ASSERT_FALSE(node.empty()) << pod;
    EXPECT_EQ(parallel.nodeOf.at(pod), node) << pod;
  }
}

TEST(SchedulerTest, DifferentSeedChangesSomeBindings) {
  const Placement a = schedule(8, 42, 1);
  ASSERT_FALSE(HasFatalFailure());
  const Placement b = schedule(8, 43, 1);
  ASSERT_FALSE(HasFatalFailure());

  EXPECT_EQ(a.stats.scheduled, static_cast<uint64_t>(kPods));
  EXPECT_EQ(b.stats.scheduled, static_cast<uint64_t>(kPods));
  // Ties are broken differently, and the rest of the run follows from them.
  const std::size_t changed = differences(a, b);
  EXPECT_GT(changed, 0u);
  RecordProperty("changedBindings", static_cast<int>(changed));
}

}  // namespace
}  // namespace sh::cycle::scheduler_reproducibility_test

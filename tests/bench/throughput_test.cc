// throughputOf: scheduler_perf's throughput collector over binding times (1 s ticks, the
// first non-empty tick dropped, empty ticks folded into the next, the last tick cut at the
// last binding).
#include "host/bench/throughput.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace sh::bench::throughput_test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const Clock::time_point kStart{};

// `count` bindings at `atMs` milliseconds after the start.
void bindAt(std::vector<Clock::time_point>& times, int64_t atMs, int count) {
  for (int i = 0; i < count; ++i) {
    times.push_back(kStart + milliseconds(atMs));
  }
}

TEST(ThroughputTest, NoBindingsNoSamples) {
  Throughput t = throughputOf(kStart, {});
  EXPECT_TRUE(t.samples.empty());
  EXPECT_EQ(t.average, 0);
}

TEST(ThroughputTest, RunShorterThanTwoTicksIsOneSample) {
  std::vector<Clock::time_point> times;
  bindAt(times, 500, 10);
  Throughput t = throughputOf(kStart, times);
  // The first tick is both the start-up tick and the last: the whole run is one sample,
  // 10 pods / 0.5 s = 20 pods/s.
  ASSERT_EQ(t.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(t.average, 20);
}

TEST(ThroughputTest, FirstTickDroppedLastTickCutAtLastBinding) {
  std::vector<Clock::time_point> times;
  bindAt(times, 2500, 300);  // unsorted on purpose
  bindAt(times, 500, 100);
  bindAt(times, 1500, 200);
  Throughput t = throughputOf(kStart, times);
  // Tick [0,1): 100 pods, dropped. Tick [1,2): 200 / 1 s = 200. Tick [2,3) ends at the last
  // binding, 2.5 s: 300 / 0.5 s = 600. Average (200 + 600) / 2 = 400.
  ASSERT_EQ(t.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(t.samples[0], 200);
  EXPECT_DOUBLE_EQ(t.samples[1], 600);
  EXPECT_DOUBLE_EQ(t.average, 400);
  // Nearest rank of 2 samples: p50 is rank ceil(1.0) = 1, p90 rank ceil(1.8) = 2.
  EXPECT_DOUBLE_EQ(t.p50, 200);
  EXPECT_DOUBLE_EQ(t.p90, 600);
  EXPECT_DOUBLE_EQ(t.p99, 600);
}

TEST(ThroughputTest, EmptyTickFoldsIntoTheNext) {
  std::vector<Clock::time_point> times;
  bindAt(times, 500, 50);
  bindAt(times, 2500, 100);
  bindAt(times, 3200, 100);
  Throughput t = throughputOf(kStart, times);
  // [0,1): 50, dropped. [1,2): empty, folded. [1,3): 100 / 2 s = 50, recorded once per tick,
  // so twice. [3,4) cut at 3.2 s: 100 / 0.2 s = 500. Average (50 + 50 + 500) / 3 = 200.
  ASSERT_EQ(t.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(t.samples[0], 50);
  EXPECT_DOUBLE_EQ(t.samples[1], 50);
  EXPECT_NEAR(t.samples[2], 500, 1e-9);
  EXPECT_NEAR(t.average, 200, 1e-9);
  EXPECT_DOUBLE_EQ(t.p50, 50);  // rank ceil(1.5) = 2 of {50, 50, 500}
}

}  // namespace
}  // namespace sh::bench::throughput_test

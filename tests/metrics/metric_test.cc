// Counters, gauges, histograms and their families; the bucket helper; histograms observed
// from many threads.
#include "host/metrics/metric.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace sh::metrics::metric_test {
namespace {

TEST(MetricsPrimitivesTest, CounterCounts) {
  Counter c;
  c.inc();
  c.inc(4);
  EXPECT_EQ(c.value(), 5u);
}

TEST(MetricsPrimitivesTest, GaugeSetsAndAdds) {
  Gauge g;
  g.set(3);
  g.add(-1.5);
  EXPECT_DOUBLE_EQ(g.value(), 1.5);
}

TEST(MetricsPrimitivesTest, ExponentialBucketsAsTheGoClient) {
  EXPECT_EQ(exponentialBuckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(exponentialBuckets(0.5, 3, 1), (std::vector<double>{0.5}));
  EXPECT_THROW(exponentialBuckets(0, 2, 3), std::invalid_argument);
  EXPECT_THROW(exponentialBuckets(1, 1, 3), std::invalid_argument);
  EXPECT_THROW(exponentialBuckets(1, 2, 0), std::invalid_argument);
}

TEST(MetricsPrimitivesTest, ObservationFallsInTheFirstBucketWhoseBoundIsAtLeastIt) {
  Histogram h({1, 2, 4});
  h.observe(0.5);  // le=1
  h.observe(1);    // le=1: the bound itself is inside
  h.observe(1.5);  // le=2
  h.observe(4);    // le=4
  h.observe(100);  // +Inf
  EXPECT_EQ(h.bucketCounts(), (std::vector<uint64_t>{2, 1, 1, 1}));
  EXPECT_EQ(h.count(), 5u);
  EXPECT_DOUBLE_EQ(h.sum(), 107);
}

TEST(MetricsPrimitivesTest, HistogramRefusesUnorderedBounds) {
  EXPECT_THROW(Histogram({1, 1}), std::invalid_argument);
  EXPECT_THROW(Histogram({2, 1}), std::invalid_argument);
}

TEST(MetricsPrimitivesTest, FamilyHandsBackTheSameChild) {
  CounterFamily f("requests_total", "Requests.", {"code"});
  Counter& a = f.with({"200"});
  Counter& b = f.with({"500"});
  for (int i = 0; i < 100; ++i) {
    f.with({"x" + std::to_string(i)});  // the map grows; earlier children stay put
  }
  EXPECT_EQ(&a, &f.with({"200"}));
  EXPECT_EQ(&b, &f.with({"500"}));
  EXPECT_THROW(f.with({"200", "extra"}), std::invalid_argument);
}

TEST(MetricsPrimitivesTest, FamilyRefusesInvalidNames) {
  EXPECT_THROW(CounterFamily("1bad", "", {}), std::invalid_argument);
  EXPECT_THROW(CounterFamily("ok", "", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(HistogramFamily("ok", "", {"le"}, {1}), std::invalid_argument);
  EXPECT_TRUE(validMetricName("a:b_c1"));
  EXPECT_FALSE(validLabelName("a:b"));
}

TEST(MetricsConcurrencyTest, ManyThreadsObservingOneHistogramLoseNothing) {
  HistogramFamily family("latency_seconds", "Latency.", {"kind"}, exponentialBuckets(1, 2, 4));
  constexpr int kThreads = 8;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&family, t] {
      // Every thread resolves the same child and a child of its own, concurrently.
      Histogram& shared = family.with({"shared"});
      Histogram& own = family.with({"t" + std::to_string(t)});
      for (int i = 0; i < kPerThread; ++i) {
        shared.observe(static_cast<double>(i % 20));  // 0..19: every bucket, +Inf too
        own.observe(1);
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  Histogram& shared = family.with({"shared"});
  EXPECT_EQ(shared.count(), static_cast<uint64_t>(kThreads) * kPerThread);
  // Per thread, each value 0..19 comes kPerThread / 20 = 1000 times:
  // le=1: {0,1} 2 values; le=2: {2}; le=4: {3,4}; le=8: {5..8} 4 values; +Inf: {9..19} 11.
  const uint64_t each = static_cast<uint64_t>(kThreads) * (kPerThread / 20);
  EXPECT_EQ(shared.bucketCounts(),
            (std::vector<uint64_t>{2 * each, each, 2 * each, 4 * each, 11 * each}));
  // Sum of 0..19 = 190, times 1000 per thread, times 8 threads: exact in a double.
  EXPECT_DOUBLE_EQ(shared.sum(), 190.0 * (kPerThread / 20) * kThreads);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(family.with({"t" + std::to_string(t)}).count(), static_cast<uint64_t>(kPerThread));
  }
  FamilySnapshot snap = family.snapshot();
  EXPECT_EQ(snap.children.size(), static_cast<std::size_t>(kThreads + 1));
}

TEST(MetricsConcurrencyTest, ScrapesWhileObservingSeeConsistentHistograms) {
  HistogramFamily family("work_seconds", "Work.", {}, {0.5, 1});
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    Histogram& h = family.only();
    while (!stop.load()) {
      h.observe(0.75);
    }
  });
  for (int i = 0; i < 200; ++i) {
    FamilySnapshot s = family.snapshot();
    ASSERT_EQ(s.children.size(), 1u);
    const auto& c = s.children[0].cumulative;
    ASSERT_EQ(c.size(), 3u);
    EXPECT_LE(c[0], c[1]);
    EXPECT_LE(c[1], c[2]);
  }
  stop = true;
  writer.join();
}

}  // namespace
}  // namespace sh::metrics::metric_test

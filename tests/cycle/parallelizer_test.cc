#include "host/cycle/parallelizer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <vector>

namespace sh::cycle::parallelizer_test {
namespace {

TEST(ParallelizerTest, RunsEveryIndexExactlyOnce) {
  Parallelizer p(4);
  for (std::size_t n : {0u, 1u, 7u, 100u, 5000u}) {
    std::vector<std::atomic<int>> hits(n);
    p.until(n, [&](std::size_t i) { hits[i].fetch_add(1); });
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
    }
  }
}

TEST(ParallelizerTest, TheBusyGaugeCountsTheThreadsAtWorkOnACall) {
  // scheduler_goroutines{operation}: each thread counts from its first index to the end of
  // its share, so inside a call the gauge is between 1 and the threads in the pool, and 0
  // after it; a call of one chunk runs on the caller alone.
  Parallelizer p(4);
  metrics::Gauge busy;
  std::atomic<int> lowest{100};
  std::atomic<int> highest{0};
  p.until(
      5000,
      [&](std::size_t) {
        const int v = static_cast<int>(busy.value());
        lowest.store(std::min(lowest.load(), v));
        highest.store(std::max(highest.load(), v));
      },
      &busy);
  EXPECT_GE(lowest.load(), 1);
  EXPECT_LE(highest.load(), p.parallelism());
  EXPECT_EQ(busy.value(), 0);
  std::vector<double> seen;
  p.until(
      1, [&](std::size_t) { seen.push_back(busy.value()); }, &busy);
  EXPECT_EQ(seen, (std::vector<double>{1}));
  EXPECT_EQ(busy.value(), 0);
}

TEST(ParallelizerTest, BackToBackJobsDoNotLeakIntoEachOther) {
  // Many short jobs in a row: a worker waking late must never run a finished job's
  // function (it would touch `sums` of the wrong round).
  Parallelizer p(8);
  for (int round = 0; round < 2000; ++round) {
    std::vector<int> sums(64, 0);
    p.until(sums.size(), [&](std::size_t i) { sums[i] = round + static_cast<int>(i); });
    for (std::size_t i = 0; i < sums.size(); ++i) {
      ASSERT_EQ(sums[i], round + static_cast<int>(i));
    }
  }
}

TEST(ParallelizerTest, ParallelismIsCappedAtTheCores) {
  Parallelizer p(1000);
  EXPECT_LE(p.parallelism(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_GE(p.parallelism(), 1);
}

}  // namespace
}  // namespace sh::cycle::parallelizer_test

#include "host/cycle/parallelizer.h"

#include <gtest/gtest.h>

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

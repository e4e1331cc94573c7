// Scheduling-attempt latencies and their exact percentiles, for the run summary.
//
// Every recorded value is kept (8 bytes each), so percentiles are exact, not estimated. The
// percentile is the nearest rank: with the n values sorted ascending, the p-th percentile is
// the value at 1-based rank ceil(p/100 * n). Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace sh::cycle {

struct LatencySummary {
  std::size_t count = 0;
  double p50 = 0;
  double p99 = 0;
  double max = 0;
};

class LatencyStats {
 public:
  void record(double millis);
  std::size_t count() const;
  // The nearest-rank p-th percentile, p in (0, 100]; 0 when nothing was recorded.
  double percentile(double p) const;
  // count, p50, p99 and max.
  LatencySummary summary() const;

 private:
  void sortLocked() const;
  double percentileLocked(double p) const;

  mutable std::mutex mu_;
  mutable std::vector<double> values_;  // sorted lazily
  mutable bool sorted_ = true;
};

}  // namespace sh::cycle

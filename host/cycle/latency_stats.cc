#include "host/cycle/latency_stats.h"

#include <algorithm>
#include <cmath>

namespace sh::cycle {

void LatencyStats::record(double millis) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!values_.empty() && millis < values_.back()) {
    sorted_ = false;
  }
  values_.push_back(millis);
}

std::size_t LatencyStats::count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return values_.size();
}

double LatencyStats::percentile(double p) const {
  std::lock_guard<std::mutex> lock(mu_);
  return percentileLocked(p);
}

LatencySummary LatencyStats::summary() const {
  std::lock_guard<std::mutex> lock(mu_);
  LatencySummary s;
  s.count = values_.size();
  s.p50 = percentileLocked(50);
  s.p99 = percentileLocked(99);
  s.max = percentileLocked(100);
  return s;
}

void LatencyStats::sortLocked() const {
  if (!sorted_) {
    std::sort(values_.begin(), values_.end());
    sorted_ = true;
  }
}

double LatencyStats::percentileLocked(double p) const {
  if (values_.empty()) {
    return 0;
  }
  sortLocked();
  const double n = static_cast<double>(values_.size());
  // p * n first: for whole p it is exact, so 99% of 100 values is rank 99, not 100. The small
  // slack absorbs the rounding of fractional p (99.9 * 1000).
  double rank = std::ceil(p * n / 100.0 - 1e-9);
  rank = std::clamp(rank, 1.0, n);
  return values_[static_cast<std::size_t>(rank) - 1];
}

}  // namespace sh::cycle

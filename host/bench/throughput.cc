#include "host/bench/throughput.h"

#include <algorithm>
#include <cmath>

namespace sh::bench {

Throughput throughputOf(std::chrono::steady_clock::time_point start,
                        std::vector<std::chrono::steady_clock::time_point> bindTimes,
                        std::chrono::nanoseconds tick) {
  Throughput t;
  if (bindTimes.empty()) {
    return t;
  }
  std::sort(bindTimes.begin(), bindTimes.end());
  const auto last = bindTimes.back();
  std::size_t i = 0;
  bool skippedFirst = false;
  std::size_t foldedTicks = 0;
  std::size_t foldedPods = 0;
  for (auto edge = start + tick;; edge += tick) {
    std::size_t n = 0;
    while (i < bindTimes.size() && bindTimes[i] < edge) {
      ++n;
      ++i;
    }
    const bool final = i == bindTimes.size();
    ++foldedTicks;
    foldedPods += n;
    if (foldedPods == 0 && !final) {
      continue;  // an empty tick folds into the next one
    }
    if (!skippedFirst) {
      skippedFirst = true;  // the start-up outlier
    } else {
      double seconds =
          std::chrono::duration<double>(tick).count() * static_cast<double>(foldedTicks);
      if (final) {
        // The last interval ends at the last binding, not at the tick edge.
        seconds -= std::chrono::duration<double>(edge - last).count();
      }
      double rate = seconds > 0 ? static_cast<double>(foldedPods) / seconds : 0;
      for (std::size_t k = 0; k < foldedTicks; ++k) {
        t.samples.push_back(rate);
      }
    }
    foldedTicks = 0;
    foldedPods = 0;
    if (final || edge > last) {
      break;
    }
  }
  if (t.samples.empty()) {
    // Shorter than two ticks: the whole run is one sample.
    double seconds = std::chrono::duration<double>(last - start).count();
    t.samples.push_back(seconds > 0 ? static_cast<double>(bindTimes.size()) / seconds : 0);
  }
  double sum = 0;
  for (double s : t.samples) {
    sum += s;
  }
  t.average = sum / static_cast<double>(t.samples.size());
  std::vector<double> sorted = t.samples;
  std::sort(sorted.begin(), sorted.end());
  auto rank = [&](double p) {
    auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size(), std::max<std::size_t>(k, 1)) - 1];
  };
  t.p50 = rank(50);
  t.p90 = rank(90);
  t.p99 = rank(99);
  return t;
}

}  // namespace sh::bench

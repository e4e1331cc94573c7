// Throughput the scheduler_perf way (upstream
// test/integration/scheduler_perf: throughputCollector): 1 s ticks over the
// binding times; the first non-zero tick is dropped; an empty tick is folded into the
// next one, whose rate is then recorded once per elapsed tick. Average = mean of the
// samples; percentiles are nearest-rank.
#pragma once

#include <chrono>
#include <vector>

namespace sh::bench {

struct Throughput {
  std::vector<double> samples;  // pods/s per tick
  double average = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
};

Throughput throughputOf(std::chrono::steady_clock::time_point start,
                        std::vector<std::chrono::steady_clock::time_point> bindTimes,
                        std::chrono::nanoseconds tick = std::chrono::seconds(1));

}  // namespace sh::bench

// BenchCluster: an in-memory Connector for benchmarks. It delivers the nodes and the
// init pods, and releases the measured pods only once every init pod is bound, so the
// measurement starts on a warm cluster, as scheduler_perf's createPods ops do.
// Binding records the time of each measured pod's binding for the throughput samples.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "host/bench/workload.h"
#include "host/connectors/change_queue.h"
#include "host/connectors/connector.h"

namespace sh::bench {

class BenchCluster : public connectors::Connector {
 public:
  using Clock = std::chrono::steady_clock;
  explicit BenchCluster(const Workload& workload);

  std::optional<connectors::ClusterChange> next(std::chrono::milliseconds timeout) override;
  std::size_t nextBatch(std::vector<connectors::ClusterChange>& out,
                        std::chrono::milliseconds timeout) override;
  bool exhausted() const override;
  std::size_t pending() const override;
  void stop() override;
  Status bind(const model::Pod& pod, std::string_view nodeName) override;
  Status deletePod(const model::Pod& pod, std::string_view reason) override;
  void recordFailure(const connectors::SchedulingFailure&) override {}
  void recordEvent(const connectors::EventRecord&) override {}

  // When the measured pods were released, and when each of them was bound.
  Clock::time_point measureStart() const { return measureStart_; }
  std::vector<Clock::time_point> measuredBindTimes() const;
  std::size_t measuredBound() const;

 private:
  void releaseMeasuredLocked();

  const Workload& workload_;
  mutable std::mutex mu_;
  connectors::ChangeQueue changes_;
  std::unordered_map<std::string, std::shared_ptr<const model::Pod>> pods_;  // by uid
  std::unordered_map<std::string, bool> measured_;                           // uid -> measured
  std::size_t initBound_ = 0;
  bool released_ = false;
  bool stopped_ = false;
  Clock::time_point measureStart_{};
  std::vector<Clock::time_point> bindTimes_;
};

}  // namespace sh::bench

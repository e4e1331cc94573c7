// Parallelizer: runs fn(i) for i in [0, n) on a fixed pool of worker threads plus the
// calling thread, in chunks (upstream
// framework/parallelize/parallelism.go: chunkSizeFor, chunk = clamp(sqrt(n), 1, n/parallelism+1)).
//
// One job at a time (the scheduling cycle is serial); until() returns when every index
// has run. Work is claimed from an atomic counter, so which thread runs which index is
// not deterministic — callers must write results by index, never append.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "host/metrics/metric.h"

namespace sh::cycle {

class Parallelizer {
 public:
  // `parallelism` threads in total (the caller counts as one), at most one per core;
  // 0 means one per core.
  explicit Parallelizer(int parallelism);
  ~Parallelizer();
  Parallelizer(const Parallelizer&) = delete;
  Parallelizer& operator=(const Parallelizer&) = delete;

  // `busy`, when given, counts the threads working on this call while they do
  // (scheduler_goroutines{operation}, as upstream's Parallelizer.Until counts its goroutines).
  void until(std::size_t n, const std::function<void(std::size_t)>& fn,
             metrics::Gauge* busy = nullptr);
  int parallelism() const { return parallelism_; }

 private:
  void workerLoop();
  void runChunks(const std::function<void(std::size_t)>& fn, metrics::Gauge* busy);

  int parallelism_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  bool stopping_ = false;
  uint64_t jobId_ = 0;
  // The current job.
  const std::function<void(std::size_t)>* fn_ = nullptr;
  metrics::Gauge* busy_ = nullptr;
  std::size_t n_ = 0;
  std::size_t chunk_ = 1;
  std::atomic<std::size_t> next_{0};
  int activeWorkers_ = 0;
};

}  // namespace sh::cycle

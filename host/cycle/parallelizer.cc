#include "host/cycle/parallelizer.h"

#include <algorithm>
#include <cmath>

namespace sh::cycle {

Parallelizer::Parallelizer(int parallelism) {
  // Threads beyond the cores only add wake-ups and context switches: upstream's
  // `parallelism` counts goroutines, which the Go runtime multiplexes onto the cores.
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parallelism_ = parallelism <= 0 ? cores : std::min(parallelism, cores);
  for (int i = 1; i < parallelism_; ++i) {
    workers_.emplace_back([this] { workerLoop(); });
  }
}

Parallelizer::~Parallelizer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) {
    t.join();
  }
}

void Parallelizer::runChunks(const std::function<void(std::size_t)>& fn, metrics::Gauge* busy) {
  bool counted = false;
  for (;;) {
    std::size_t start = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (start >= n_) {
      break;
    }
    if (busy != nullptr && !counted) {
      busy->add(1);
      counted = true;
    }
    std::size_t end = std::min(n_, start + chunk_);
    for (std::size_t i = start; i < end; ++i) {
      fn(i);
    }
  }
  if (counted) {
    busy->add(-1);
  }
}

void Parallelizer::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || jobId_ != seen; });
    if (stopping_) {
      return;
    }
    seen = jobId_;
    const std::function<void(std::size_t)>* fn = fn_;
    metrics::Gauge* busy = busy_;
    if (fn == nullptr) {
      continue;  // woke after that job was over
    }
    ++activeWorkers_;
    lock.unlock();
    runChunks(*fn, busy);
    lock.lock();
    if (--activeWorkers_ == 0) {
      finished_.notify_all();
    }
  }
}

void Parallelizer::until(std::size_t n, const std::function<void(std::size_t)>& fn,
                         metrics::Gauge* busy) {
  if (n == 0) {
    return;
  }
  auto chunk = static_cast<std::size_t>(std::sqrt(static_cast<double>(n)));
  chunk = std::clamp<std::size_t>(chunk, 1, n / static_cast<std::size_t>(parallelism_) + 1);
  if (workers_.empty() || n <= chunk) {
    if (busy != nullptr) {
      busy->add(1);
    }
    for (std::size_t i = 0; i < n; ++i) {
      fn(i);
    }
    if (busy != nullptr) {
      busy->add(-1);
    }
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    fn_ = &fn;
    busy_ = busy;
    n_ = n;
    chunk_ = chunk;
    next_.store(0, std::memory_order_relaxed);
    ++jobId_;
  }
  wake_.notify_all();
  runChunks(fn, busy);
  std::unique_lock<std::mutex> lock(mu_);
  // Workers that woke for this job have finished it once activeWorkers_ is 0 and every
  // chunk was claimed; a worker that wakes late finds no chunk left and leaves at once.
  finished_.wait(lock, [&] { return activeWorkers_ == 0; });
  fn_ = nullptr;
  busy_ = nullptr;
}

}  // namespace sh::cycle

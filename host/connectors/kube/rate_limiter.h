// RateLimiter: the client-side token bucket of client-go (`util/flowcontrol/throttle.go`
// `NewTokenBucketRateLimiter(qps, burst)`), which every request to the API server passes
// first. The bucket starts full with `burst` tokens and refills at `qps` tokens per second;
// acquire() takes one, waiting when none is free. Waiters are served in the order they came:
// each takes a reservation on a future token (as golang.org/x/time/rate's Reserve) and sleeps
// until it is due. qps <= 0 means unlimited.
//
// The clock and the sleep are injectable so that tests run on virtual time. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>

namespace sh::kube {

class RateLimiter {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Clock = std::function<TimePoint()>;
  // Sleeps for `duration` or until `stop` is requested; returns false when stopped.
  using Sleep = std::function<bool(std::chrono::nanoseconds duration, std::stop_token stop)>;

  // Empty clock/sleep: the steady clock and a stop-aware wait.
  RateLimiter(double qps, int burst, Clock clock = {}, Sleep sleep = {});

  // Takes a token, waiting as long as needed; false (no token taken) when `stop` is requested
  // first.
  bool acquire(std::stop_token stop);
  // The same, but gives up (no token taken) when the token would come after `deadline`: the
  // wait is known at once, so a request that cannot be sent in time fails without waiting.
  bool acquireBefore(std::stop_token stop, TimePoint deadline);
  // Takes a token if one is free now.
  bool tryAcquire();

  // How many acquire() calls had to wait.
  std::uint64_t waited() const;
  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  TimePoint now() const;
  void refill(TimePoint now);
  bool defaultSleep(std::chrono::nanoseconds duration, std::stop_token stop);

  const double qps_;
  const int burst_;
  Clock clock_;
  Sleep sleep_;

  mutable std::mutex mutex_;
  double tokens_;  // may go negative: reservations of waiters
  TimePoint last_;
  std::uint64_t waited_ = 0;

  std::mutex sleepMutex_;
  std::condition_variable_any sleepCv_;
};

}  // namespace sh::kube

#include "host/connectors/kube/rate_limiter.h"

#include <algorithm>
#include <utility>

namespace sh::kube {

RateLimiter::RateLimiter(double qps, int burst, Clock clock, Sleep sleep)
    : qps_(qps),
      burst_(std::max(burst, 1)),
      clock_(std::move(clock)),
      sleep_(std::move(sleep)),
      tokens_(static_cast<double>(std::max(burst, 1))) {
  last_ = now();
}

RateLimiter::TimePoint RateLimiter::now() const {
  return clock_ ? clock_() : std::chrono::steady_clock::now();
}

void RateLimiter::refill(TimePoint now) {
  if (now <= last_) return;
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(static_cast<double>(burst_), tokens_ + elapsed * qps_);
  last_ = now;
}

bool RateLimiter::tryAcquire() {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mutex_);
  refill(now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

bool RateLimiter::acquire(std::stop_token stop) {
  return acquireBefore(std::move(stop), TimePoint::max());
}

bool RateLimiter::acquireBefore(std::stop_token stop, TimePoint deadline) {
  if (qps_ <= 0) return !stop.stop_requested();
  std::chrono::nanoseconds wait{0};
  {
    std::lock_guard lock(mutex_);
    const TimePoint at = now();
    refill(at);
    if (tokens_ >= 1) {
      tokens_ -= 1;
      return true;
    }
    // The reservation would be due when the deficit has been refilled.
    wait = std::chrono::nanoseconds(static_cast<std::int64_t>((1 - tokens_) / qps_ * 1e9));
    if (deadline != TimePoint::max() && (deadline <= at || deadline - at < wait)) {
      return false;
    }
    tokens_ -= 1;
    ++waited_;
  }
  const bool slept = sleep_ ? sleep_(wait, stop) : defaultSleep(wait, stop);
  if (!slept || stop.stop_requested()) {
    // Give the reserved token back, as rate.Reservation.Cancel does.
    std::lock_guard lock(mutex_);
    refill(now());
    tokens_ = std::min(static_cast<double>(burst_), tokens_ + 1);
    return false;
  }
  return true;
}

bool RateLimiter::defaultSleep(std::chrono::nanoseconds duration, std::stop_token stop) {
  std::unique_lock lock(sleepMutex_);
  const auto deadline = std::chrono::steady_clock::now() + duration;
  // Only a stop ends the wait early: the predicate is the stop request itself.
  sleepCv_.wait_until(lock, stop, deadline, [] { return false; });
  return !stop.stop_requested();
}

std::uint64_t RateLimiter::waited() const {
  std::lock_guard lock(mutex_);
  return waited_;
}

}  // namespace sh::kube

// Clock: where the scheduling queue reads the time. Every timestamp, backoff expiry and flush
// deadline of the queue comes from one Clock, so tests drive time with a FakeClock instead of
// sleeping.
//
// Times are int64 nanoseconds. SteadyClock never goes backwards and reads as Unix time: it is
// the steady clock anchored to the system clock once, at construction, so the timestamps a
// QueueSort plugin sees (sh_queued_pod.timestamp_unix_nanos) are close to wall time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace sh::queue {

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time in nanoseconds. Thread-safe.
  virtual int64_t nowNanos() const = 0;
};

// The production clock: monotonic, anchored to Unix time when built.
class SteadyClock : public Clock {
 public:
  SteadyClock()
      : anchorUnix_(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count()),
        anchorSteady_(std::chrono::steady_clock::now()) {}

  int64_t nowNanos() const override {
    auto elapsed = std::chrono::steady_clock::now() - anchorSteady_;
    return anchorUnix_ + std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
  }

 private:
  int64_t anchorUnix_;
  std::chrono::steady_clock::time_point anchorSteady_;
};

// A clock that moves only when told to. Thread-safe, so a test thread may step it while the
// queue reads it.
class FakeClock : public Clock {
 public:
  explicit FakeClock(int64_t startNanos = 0) : now_(startNanos) {}

  int64_t nowNanos() const override { return now_.load(std::memory_order_acquire); }
  void set(int64_t nanos) { now_.store(nanos, std::memory_order_release); }
  void step(int64_t nanos) { now_.fetch_add(nanos, std::memory_order_acq_rel); }
  void step(std::chrono::nanoseconds d) { step(static_cast<int64_t>(d.count())); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace sh::queue

// Time as the Kubernetes API writes it, and the clock the connector's timers read.
//
// metav1.MicroTime (an Event's eventTime, a series' lastObservedTime, a Lease's acquireTime
// and renewTime) is RFC 3339 in UTC with exactly six fractional digits:
// "2026-11-25T10:00:00.123456Z"; metav1.Time has none: "2026-11-25T10:00:00Z". Both are read
// back with the model's RFC 3339 parser (host/model/rfc3339.h), which accepts any offset and
// any number of fractional digits.
//
// Clock: what the events recorder and leader election ask for the time and wait on, so tests
// can drive them with a clock of their own (client-go's k8s.io/utils/clock for the same
// reason). The system clock's sleepFor waits in real time and wakes early on a stop request.
#pragma once

#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

namespace sh::kube {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() = 0;
  // Waits until `duration` has passed on this clock or `stop` is requested; false when
  // stopped. A duration of zero or less returns at once (true unless stopped).
  virtual bool sleepFor(std::chrono::nanoseconds duration, std::stop_token stop) = 0;
};

// The wall clock (std::chrono::system_clock); waits on a condition variable.
Clock& systemClock();

// "2026-11-25T10:00:00.123456Z": metav1.MicroTime, truncated to microseconds.
std::string formatMicroTime(TimePoint time);
// "2026-11-25T10:00:00Z": metav1.Time, truncated to seconds.
std::string formatTime(TimePoint time);
// Either of the above (or any RFC 3339 time); nullopt when malformed.
std::optional<TimePoint> parseTime(std::string_view text);

// This machine's host name (gethostname), what an events reportingInstance and the default
// leader election identity are built from; "localhost" when it cannot be read.
std::string hostname();

}  // namespace sh::kube

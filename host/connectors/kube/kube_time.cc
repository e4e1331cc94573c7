#include "host/connectors/kube/kube_time.h"

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>

#include <unistd.h>

#include "host/model/rfc3339.h"

namespace sh::kube {
namespace {

class SystemClock : public Clock {
 public:
  TimePoint now() override { return std::chrono::system_clock::now(); }

  bool sleepFor(std::chrono::nanoseconds duration, std::stop_token stop) override {
    if (duration <= std::chrono::nanoseconds::zero()) {
      return !stop.stop_requested();
    }
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    // Steady time for the wait itself: a wall clock step must not stretch or cut it. Nothing
    // but the stop request wakes it early.
    wake.wait_for(lock, stop, duration, [] { return false; });
    return !stop.stop_requested();
  }
};

// Howard Hinnant's civil_from_days: the proleptic Gregorian date of a day since 1970-01-01.
void civilFromDays(int64_t days, int64_t& year, unsigned& month, unsigned& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  day = doy - (153 * mp + 2) / 5 + 1;
  month = mp < 10 ? mp + 3 : mp - 9;
  year = static_cast<int64_t>(yoe) + era * 400 + (month <= 2 ? 1 : 0);
}

std::string format(TimePoint time, bool micros) {
  const int64_t us =
      std::chrono::duration_cast<std::chrono::microseconds>(time.time_since_epoch()).count();
  int64_t secs = us / 1'000'000;
  int64_t frac = us % 1'000'000;
  if (frac < 0) {
    frac += 1'000'000;
    --secs;
  }
  int64_t days = secs / 86'400;
  int64_t rem = secs % 86'400;
  if (rem < 0) {
    rem += 86'400;
    --days;
  }
  int64_t year = 0;
  unsigned month = 0;
  unsigned day = 0;
  civilFromDays(days, year, month, day);
  char buf[48];
  const int hour = static_cast<int>(rem / 3600);
  const int minute = static_cast<int>(rem % 3600 / 60);
  const int second = static_cast<int>(rem % 60);
  if (micros) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d.%06lldZ",
                  static_cast<long long>(year), month, day, hour, minute, second,
                  static_cast<long long>(frac));
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02dZ", static_cast<long long>(year),
                  month, day, hour, minute, second);
  }
  return buf;
}

}  // namespace

Clock& systemClock() {
  static SystemClock clock;
  return clock;
}

std::string formatMicroTime(TimePoint time) { return format(time, true); }

std::string formatTime(TimePoint time) { return format(time, false); }

std::optional<TimePoint> parseTime(std::string_view text) {
  const std::optional<int64_t> nanos = model::parseRfc3339Nanos(text);
  if (!nanos) {
    return std::nullopt;
  }
  return TimePoint(
      std::chrono::duration_cast<TimePoint::duration>(std::chrono::nanoseconds(*nanos)));
}

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') {
    return "localhost";
  }
  return buf;
}

}  // namespace sh::kube

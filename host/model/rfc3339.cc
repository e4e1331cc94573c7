#include "host/model/rfc3339.h"

#include "host/model/quantity.h"

namespace sh::model {
namespace {

// Reads exactly `n` digits at `pos`.
bool digits(std::string_view s, std::size_t& pos, std::size_t n, int& out) {
  if (pos + n > s.size()) {
    return false;
  }
  out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') {
      return false;
    }
    out = out * 10 + (c - '0');
  }
  pos += n;
  return true;
}

bool literal(std::string_view s, std::size_t& pos, char c) {
  if (pos < s.size() && s[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t daysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int daysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

}  // namespace

std::optional<int64_t> parseRfc3339Nanos(std::string_view s) {
  std::size_t pos = 0;
  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;
  int minute = 0;
  int second = 0;
  if (!digits(s, pos, 4, year) || !literal(s, pos, '-') || !digits(s, pos, 2, month) ||
      !literal(s, pos, '-') || !digits(s, pos, 2, day) || !literal(s, pos, 'T') ||
      !digits(s, pos, 2, hour) || !literal(s, pos, ':') || !digits(s, pos, 2, minute) ||
      !literal(s, pos, ':') || !digits(s, pos, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return std::nullopt;
  }
  int64_t fracNanos = 0;
  if (literal(s, pos, '.')) {
    std::size_t start = pos;
    int64_t scale = 100'000'000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      fracNanos += (s[pos] - '0') * scale;  // digits past nanoseconds are dropped, as in Go
      scale /= 10;
      ++pos;
    }
    if (pos == start) {
      return std::nullopt;
    }
  }
  int64_t offsetSeconds = 0;
  if (!literal(s, pos, 'Z')) {
    if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) {
      return std::nullopt;
    }
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0;
    int om = 0;
    if (!digits(s, pos, 2, oh) || !literal(s, pos, ':') || !digits(s, pos, 2, om) || oh > 23 ||
        om > 59) {
      return std::nullopt;
    }
    offsetSeconds = sign * (oh * 3600 + om * 60);
  }
  if (pos != s.size()) {
    return std::nullopt;
  }
  int64_t secs =
      daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  return saturateInt64(int128_t{secs} * 1'000'000'000 + fracNanos);
}

}  // namespace sh::model

#include "host/model/quantity.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace sh::model {
namespace {

constexpr char kErrFormat[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
constexpr char kErrSuffix[] = "unable to parse quantity's suffix";
constexpr char kErrTooLong[] = "quantity is too long";

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// The magnitude cap, in nano-units: 2^63-1 whole units.
constexpr int128_t kMaxNanos = int128_t{kInt64Max} * Quantity::kNanosPerUnit;

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// A small unsigned big integer (little-endian base-2^32 limbs), enough to evaluate
// digits x 2^a x 10^b / 10^c exactly for strings of at most Quantity::kMaxLength chars.
class BigUint {
 public:
  bool isZero() const { return limbs_.empty(); }

  void mulAdd(uint32_t m, uint32_t a) {
    uint64_t carry = a;
    for (uint32_t& limb : limbs_) {
      uint64_t cur = uint64_t{limb} * m + carry;
      limb = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    if (carry != 0) {
      limbs_.push_back(static_cast<uint32_t>(carry));
    }
  }

  // Divides in place; returns the remainder.
  uint32_t div(uint32_t d) {
    uint64_t rem = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(cur / d);
      rem = cur % d;
    }
    while (!limbs_.empty() && limbs_.back() == 0) {
      limbs_.pop_back();
    }
    return static_cast<uint32_t>(rem);
  }

  // Multiplies by 2^count.
  void mulPow2(int64_t count) {
    for (; count >= 30; count -= 30) {
      mulAdd(1u << 30, 0);
    }
    mulAdd(1u << count, 0);
  }

  // Multiplies by 10^count.
  void mulPow10(int64_t count) {
    for (; count >= 9; count -= 9) {
      mulAdd(1'000'000'000, 0);
    }
    mulAdd(pow10(count), 0);
  }

  // Divides by 10^count; returns true when the division was not exact.
  bool divPow10(int64_t count) {
    bool inexact = false;
    for (; count >= 9; count -= 9) {
      inexact |= div(1'000'000'000) != 0;
    }
    inexact |= div(pow10(count)) != 0;
    return inexact;
  }

  // The value when it fits in 127 bits.
  std::optional<int128_t> toInt128() const {
    if (limbs_.size() > 4 || (limbs_.size() == 4 && (limbs_[3] & 0x80000000u) != 0)) {
      return std::nullopt;
    }
    int128_t v = 0;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      v = (v << 32) | limbs_[i];
    }
    return v;
  }

 private:
  static uint32_t pow10(int64_t n) {
    uint32_t p = 1;
    for (int64_t i = 0; i < n; ++i) {
      p *= 10;
    }
    return p;
  }

  std::vector<uint32_t> limbs_;
};

struct Parts {
  bool positive = true;
  std::string_view num;    // integer digits, leading zeros stripped
  std::string_view denom;  // fraction digits
  std::string_view suffix;
  bool zeroShortcut = false;  // the string held only a sign and zeros
};

// parseQuantityString of apimachinery's quantity.go, step for step.
bool split(std::string_view s, Parts& out) {
  std::size_t pos = 0;
  const std::size_t end = s.size();
  if (s[0] == '-') {
    out.positive = false;
    ++pos;
  } else if (s[0] == '+') {
    ++pos;
  }
  while (pos < end && s[pos] == '0') {
    ++pos;
  }
  if (pos >= end) {
    out.zeroShortcut = true;
    return true;
  }
  std::size_t start = pos;
  while (pos < end && isDigit(s[pos])) {
    ++pos;
  }
  out.num = s.substr(start, pos - start);
  if (pos < end && s[pos] == '.') {
    ++pos;
    start = pos;
    while (pos < end && isDigit(s[pos])) {
      ++pos;
    }
    out.denom = s.substr(start, pos - start);
    if (pos >= end) {
      return true;
    }
  }
  const std::size_t suffixStart = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(s[pos]) != std::string_view::npos) {
    ++pos;
  }
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) {
    ++pos;
  }
  while (pos < end && isDigit(s[pos])) {
    ++pos;
  }
  if (pos < end) {
    return false;
  }
  out.suffix = s.substr(suffixStart);
  return true;
}

// quantitySuffixer.interpret: base 10 or 2 and the exponent.
bool interpret(std::string_view suffix, int& base, int64_t& exponent) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18},
  };
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60},
  };
  for (const auto& [name, exp] : kDecimal) {
    if (suffix == name) {
      base = 10;
      exponent = exp;
      return true;
    }
  }
  for (const auto& [name, exp] : kBinary) {
    if (suffix == name) {
      base = 2;
      exponent = exp;
      return true;
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    // strconv.ParseInt(suffix[1:], 10, 64): optional sign, digits, must fit int64.
    std::string_view digits = suffix.substr(1);
    bool neg = false;
    if (digits[0] == '+' || digits[0] == '-') {
      neg = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty()) {
      return false;
    }
    int128_t v = 0;
    for (char c : digits) {
      if (!isDigit(c)) {
        return false;
      }
      v = v * 10 + (c - '0');
      if (v > int128_t{kInt64Max} + 1) {
        return false;
      }
    }
    if (!neg && v > kInt64Max) {
      return false;
    }
    base = 10;
    exponent = static_cast<int64_t>(neg ? -v : v);
    return true;
  }
  return false;
}

// |value| in nano-units, rounded up and capped, of digits x 10^exp10 x 2^exp2.
int128_t magnitudeNanos(std::string_view digits, int64_t exp10, int64_t exp2) {
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) {
    return 0;
  }
  digits.remove_prefix(first);
  const auto nd = static_cast<int64_t>(digits.size());
  if (exp10 >= 0 && nd - 1 + exp10 >= 29) {
    return kMaxNanos;  // at least 10^29 nanos, above the cap
  }
  if (exp10 < 0 && -exp10 > nd + 20) {
    return 1;  // below 10^nd x 2^60 / 10^(nd+20) < 1 nano: rounds up to one
  }
  BigUint v;
  std::size_t i = 0;
  // Nine digits at a time: 10^9 fits a limb multiplier.
  while (i < digits.size()) {
    std::size_t n = std::min<std::size_t>(9, digits.size() - i);
    uint32_t chunk = 0;
    uint32_t scale = 1;
    for (std::size_t j = 0; j < n; ++j) {
      chunk = chunk * 10 + static_cast<uint32_t>(digits[i + j] - '0');
      scale *= 10;
    }
    v.mulAdd(scale, chunk);
    i += n;
  }
  v.mulPow2(exp2);
  bool inexact = false;
  if (exp10 >= 0) {
    v.mulPow10(exp10);
  } else {
    inexact = v.divPow10(-exp10);
  }
  std::optional<int128_t> out = v.toInt128();
  if (!out || *out >= kMaxNanos) {
    return kMaxNanos;
  }
  return *out + (inexact ? 1 : 0);
}

int128_t ceilDiv(int128_t magnitude, int128_t d) { return (magnitude + d - 1) / d; }

// Divides rounding away from zero.
int128_t divAway(int128_t v, int128_t d) { return v < 0 ? -ceilDiv(-v, d) : ceilDiv(v, d); }

}  // namespace

int64_t saturateInt64(int128_t v) {
  if (v > kInt64Max) {
    return kInt64Max;
  }
  if (v < std::numeric_limits<int64_t>::min()) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(v);
}

int64_t Quantity::value() const { return saturateInt64(divAway(nanos_, kNanosPerUnit)); }

int64_t Quantity::milliValue() const { return saturateInt64(milliCeil()); }

int128_t Quantity::milliCeil() const { return divAway(nanos_, 1'000'000); }

std::optional<Quantity> parseQuantity(std::string_view s, std::string* error) {
  auto fail = [&](const char* msg) -> std::optional<Quantity> {
    if (error != nullptr) {
      *error = msg;
    }
    return std::nullopt;
  };
  if (s.empty()) {
    return fail(kErrFormat);
  }
  if (s.size() > Quantity::kMaxLength) {
    return fail(kErrTooLong);
  }
  Parts parts;
  if (!split(s, parts)) {
    return fail(kErrFormat);
  }
  if (parts.zeroShortcut) {
    return Quantity();
  }
  int base = 10;
  int64_t exponent = 0;
  if (!interpret(parts.suffix, base, exponent)) {
    return fail(kErrSuffix);
  }
  // value = (num.denom) x base^exponent, in nano-units: shift the decimal point.
  std::string digits;
  digits.reserve(parts.num.size() + parts.denom.size());
  digits.append(parts.num).append(parts.denom);
  // Beyond +-10^6 the result is the cap or one nano whatever the digits; clamping keeps the
  // arithmetic below in range.
  int64_t exp10 = base == 10 ? std::clamp<int64_t>(exponent, -1'000'000, 1'000'000) : 0;
  exp10 += 9 - static_cast<int64_t>(parts.denom.size());
  int64_t exp2 = base == 2 ? exponent : 0;
  int128_t mag = magnitudeNanos(digits, exp10, exp2);
  return Quantity::fromNanos(parts.positive ? mag : -mag);
}

}  // namespace sh::model

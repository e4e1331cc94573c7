// Parsing and comparing resource.Quantity values (upstream quantity.go: parseQuantityString
// and the suffixer's tables).
#include "quantity.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace schedhost::plugins::volumebinding {

namespace {

// Far below Int128's limit (about 1.7e38) and far above any real size in nano units.
constexpr Int128 kLimit = static_cast<Int128>(1000000000000000000LL) * 1000000000000000000LL;
constexpr int64_t kNanosPerUnit = 1000000000;

bool isDigit(char c) noexcept { return c >= '0' && c <= '9'; }

Int128 saturate(Int128 v) noexcept { return v > kLimit ? kLimit : (v < -kLimit ? -kLimit : v); }

Int128 mulSat(Int128 a, Int128 b) noexcept {
  if (a == 0 || b == 0) {
    return 0;
  }
  Int128 absA = a < 0 ? -a : a;
  Int128 absB = b < 0 ? -b : b;
  if (absA > kLimit / absB) {
    return (a < 0) != (b < 0) ? -kLimit : kLimit;
  }
  return a * b;
}

// The exponent a suffix stands for: base 10 (decimal SI and "e<n>") or base 2 (binary SI).
bool interpretSuffix(std::string_view s, int& exp10, int& exp2) {
  exp10 = 0;
  exp2 = 0;
  struct Entry {
    const char* suffix;
    int exp10;
    int exp2;
  };
  static constexpr Entry kTable[] = {{"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},
                                     {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},
                                     {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
                                     {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60}};
  for (const Entry& e : kTable) {
    if (s == e.suffix) {
      exp10 = e.exp10;
      exp2 = e.exp2;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view digits = s.substr(1);
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 6) {
      return false;  // strconv.ParseInt fails; beyond 6 digits no size is meaningful
    }
    int v = 0;
    for (char c : digits) {
      if (!isDigit(c)) {
        return false;
      }
      v = v * 10 + (c - '0');
    }
    exp10 = negative ? -v : v;
    return true;
  }
  return false;
}

}  // namespace

bool Quantity::parse(std::string_view str) {
  if (str.empty()) {
    return false;
  }
  std::size_t pos = 0;
  const std::size_t end = str.size();
  bool negative = false;
  if (str[0] == '-' || str[0] == '+') {
    negative = str[0] == '-';
    ++pos;
  }
  std::string digits;  // numerator then denominator digits, leading zeros dropped
  int fraction = 0;    // how many of them follow the decimal point
  while (pos < end && isDigit(str[pos])) {
    if (!(digits.empty() && str[pos] == '0')) {
      digits += str[pos];
    }
    ++pos;
  }
  if (pos < end && str[pos] == '.') {
    ++pos;
    while (pos < end && isDigit(str[pos])) {
      if (!(digits.empty() && str[pos] == '0')) {
        digits += str[pos];
      }
      ++fraction;
      ++pos;
    }
  }
  // The suffix: letters of "eEinumkKMGTP", then an optional sign and digits (an exponent).
  const std::size_t suffixStart = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) {
    ++pos;
  }
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) {
    ++pos;
  }
  while (pos < end && isDigit(str[pos])) {
    ++pos;
  }
  if (pos != end) {
    return false;
  }
  int exp10 = 0;
  int exp2 = 0;
  if (!interpretSuffix(str.substr(suffixStart), exp10, exp2)) {
    return false;
  }
  Int128 mantissa = 0;
  int dropped = 0;  // digits beyond what fits, each a factor of ten
  for (char c : digits) {
    if (mantissa > kLimit / 10) {
      ++dropped;
      continue;
    }
    mantissa = mantissa * 10 + (c - '0');
  }
  Int128 v = mantissa;
  for (int i = 0; i < exp2 && v != 0; ++i) {
    v = mulSat(v, 2);
  }
  int scale = exp10 + dropped - fraction + 9;  // the power of ten that makes nano units
  if (scale > 60) {
    v = v == 0 ? 0 : kLimit;
  } else {
    for (; scale > 0 && v != 0 && v < kLimit; --scale) {
      v = mulSat(v, 10);
    }
    if (scale < 0) {
      Int128 divisor = 1;
      bool underflow = false;
      for (int i = 0; i < -scale; ++i) {
        if (divisor > kLimit / 10) {
          underflow = true;
          break;
        }
        divisor *= 10;
      }
      // A fraction finer than a nano unit rounds up, away from zero (inf.RoundUp).
      v = underflow ? (v == 0 ? 0 : 1) : (v + divisor - 1) / divisor;
    }
  }
  nanos_ = saturate(negative ? -v : v);
  return true;
}

Quantity Quantity::fromJson(const Json& node, std::string* error) {
  Quantity q;
  if (!node.present() || node.isNull()) {
    return q;
  }
  if (node.isString()) {
    if (!q.parse(node.asString()) && error != nullptr) {
      *error = "quantity \"" + std::string(node.asString()) + "\" does not parse";
    }
    return q;
  }
  if (node.isInt()) {
    q.nanos_ = saturate(static_cast<Int128>(node.asInt()) * kNanosPerUnit);
    return q;
  }
  if (node.isNumber()) {
    const double d = std::ceil(node.asDouble() * 1e9);
    q.nanos_ = std::fabs(d) > 1e36 ? (d < 0 ? -kLimit : kLimit) : static_cast<Int128>(d);
    return q;
  }
  if (error != nullptr) {
    *error = "a quantity must be a string or a number";
  }
  return q;
}

int64_t Quantity::value() const noexcept {
  Int128 units = nanos_ / kNanosPerUnit;
  if (nanos_ % kNanosPerUnit > 0) {
    ++units;
  }
  if (units > INT64_MAX) {
    return INT64_MAX;
  }
  if (units < INT64_MIN) {
    return INT64_MIN;
  }
  return static_cast<int64_t>(units);
}

}  // namespace schedhost::plugins::volumebinding

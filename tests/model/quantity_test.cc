#include "host/model/quantity.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace sh::model {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct Case {
  const char* text;
  int64_t value;
  int64_t milli;
};

// Expected values follow apimachinery's Quantity.Value() / MilliValue(): exact decimal values,
// rounded away from zero; our only difference is saturation where Go overflows.
TEST(QuantityTest, ParsesLikeApimachinery) {
  const Case cases[] = {
      {"0", 0, 0},
      {"100m", 1, 100},  // 0.1 rounds up to one whole unit
      {"0.1", 1, 100},
      {"1.5", 2, 1500},
      {"1", 1, 1000},
      {"+1", 1, 1000},
      {"1Gi", 1073741824, 1073741824000},
      {"500Mi", 524288000, 524288000000},
      {"1Ki", 1024, 1024000},
      {"1.5Gi", 1610612736, 1610612736000},
      {"1e3", 1000, 1000000},
      {"1E3", 1000, 1000000},
      {"1e+3", 1000, 1000000},
      {"1E-3", 1, 1},  // 0.001: one milli, rounds up to one unit
      {"12e6", 12000000, 12000000000},
      {"0.0001", 1, 1},  // 0.1m rounds up to 1m
      {"-1", -1, -1000},
      {"-0.5", -1, -500},  // away from zero
      {".5", 1, 500},
      {"5.", 5, 5000},
      {"1k", 1000, 1000000},
      {"1M", 1000000, 1000000000},
      {"1G", 1000000000, 1000000000000},
      {"2T", 2000000000000, 2000000000000000},
      {"1n", 1, 1},
      {"1u", 1, 1},
      {"1500u", 1, 2},                     // 1.5m rounds up to 2m
      {"1Ei", 1152921504606846976, kMax},  // 2^60; milli saturates
      {"1E", 1000000000000000000, kMax},
      {"9223372036854775807", kMax, kMax},
      {"9223372036854775808", kMax, kMax},  // capped at 2^63-1 units
      {"8Ei", kMax, kMax},                  // 2^63 capped
      {"1e100", kMax, kMax},
      {"-1e100", -kMax, std::numeric_limits<int64_t>::min()},
      {"1e-100", 1, 1},  // rounds up to one nano-unit
      {"0.0000000001", 1, 1},
      {"1.0000000001", 2, 1001},
      {"000123", 123, 123000},
      {"-0", 0, 0},
      {"e3", 0, 0},  // upstream quirk: empty digits read as 0
      {"-", 0, 0},   // upstream quirk: a lone sign is zero
      {"123456789012345678901234567890e-20", 1234567891, 1234567890124},
  };
  for (const Case& c : cases) {
    std::string error;
    std::optional<Quantity> q = parseQuantity(c.text, &error);
    ASSERT_TRUE(q.has_value()) << c.text << ": " << error;
    EXPECT_EQ(q->value(), c.value) << c.text;
    EXPECT_EQ(q->milliValue(), c.milli) << c.text;
  }
}

TEST(QuantityTest, RejectsMalformed) {
  const std::string format =
      "quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  const std::string suffix = "unable to parse quantity's suffix";
  const std::pair<const char*, std::string> cases[] = {
      {"", format},     {"1.2.3", format}, {"1Gb", format},
      {"abc", format},  {"1 Gi", format},  {" 1", format},
      {"1KiB", format}, {"0x10", format},  {"1e3.5", format},
      {"1e", suffix},   {"1i", suffix},    {"1K", suffix},
      {"1MM", suffix},  {"1m5", suffix},   {"--1", suffix},
      {"1-", suffix},   {"1e+", suffix},   {"1e99999999999999999999", suffix},
  };
  for (const auto& [text, message] : cases) {
    std::string error;
    EXPECT_FALSE(parseQuantity(text, &error).has_value()) << text;
    EXPECT_EQ(error, message) << text;
  }
}

TEST(QuantityTest, RejectsOverlongStrings) {
  std::string error;
  EXPECT_FALSE(parseQuantity(std::string(Quantity::kMaxLength + 1, '1'), &error));
  EXPECT_EQ(error, "quantity is too long");
  EXPECT_TRUE(parseQuantity(std::string(Quantity::kMaxLength, '1')).has_value());
}

TEST(QuantityTest, MilliCeilIsExactAndUnsaturated) {
  EXPECT_EQ(parseQuantity("1E")->milliCeil(), int128_t{1000000000000000000} * 1000);
  EXPECT_EQ(parseQuantity("1500u")->milliCeil(), 2);
  EXPECT_EQ(parseQuantity("-1500u")->milliCeil(), -2);
  EXPECT_EQ(parseQuantity("0")->milliCeil(), 0);
}

TEST(QuantityTest, SaturateInt64) {
  EXPECT_EQ(saturateInt64(int128_t{kMax} + 1), kMax);
  EXPECT_EQ(saturateInt64(-(int128_t{kMax} + 5)), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(saturateInt64(42), 42);
}

}  // namespace
}  // namespace sh::model

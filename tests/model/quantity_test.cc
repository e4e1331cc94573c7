#include "host/model/quantity.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace sh::model::quantity_test {
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

// The valid and invalid cases of apimachinery's TestQuantityParse (resource/quantity_test.go),
// with Value() and MilliValue() worked out from the exact decimal value.
TEST(QuantityTest, UpstreamParseTable) {
  const Case valid[] = {
      {"0", 0, 0},
      {"0n", 0, 0},
      {"0u", 0, 0},
      {"0m", 0, 0},
      {"0Ki", 0, 0},
      {"0k", 0, 0},
      {"0Mi", 0, 0},
      {"0M", 0, 0},
      {"0Gi", 0, 0},
      {"0G", 0, 0},
      {"0Ti", 0, 0},
      {"0T", 0, 0},
      {"1", 1, 1000},
      {"1Ki", 1024, 1024000},
      {"8Ki", 8192, 8192000},
      {"7Mi", 7340032, 7340032000},
      {"6Gi", 6442450944, 6442450944000},
      {"5Ti", 5497558138880, 5497558138880000},
      {"4Pi", 4503599627370496, 4503599627370496000},
      {"3Ei", 3458764513820540928, kMax},
      {"10Ti", 10995116277760, 10995116277760000},
      {"100Ti", 109951162777600, 109951162777600000},
      {"5n", 1, 1},
      {"4u", 1, 1},
      {"3m", 1, 3},
      {"9", 9, 9000},
      {"8k", 8000, 8000000},
      {"50k", 50000, 50000000},
      {"7M", 7000000, 7000000000},
      {"6G", 6000000000, 6000000000000},
      {"5T", 5000000000000, 5000000000000000},
      {"40T", 40000000000000, 40000000000000000},
      {"300T", 300000000000000, 300000000000000000},
      {"2P", 2000000000000000, 2000000000000000000},
      {"1E", 1000000000000000000, kMax},
      {"1E-3", 1, 1},
      {"1e3", 1000, 1000000},
      {"1E6", 1000000, 1000000000},
      {"1e9", 1000000000, 1000000000000},
      {"1E12", 1000000000000, 1000000000000000},
      {"1e15", 1000000000000000, 1000000000000000000},
      {"1E18", 1000000000000000000, kMax},
      {"1e14", 100000000000000, 100000000000000000},
      {"1e13", 10000000000000, 10000000000000000},
      {"100.035k", 100035, 100035000},
      {"0.001", 1, 1},
      {"0.0005k", 1, 500},
      {"0.005", 1, 5},
      {"0.05", 1, 50},
      {"0.5", 1, 500},
      {"0.00050k", 1, 500},
      {"0.00500", 1, 5},
      {"0.05000", 1, 50},
      {"0.50000", 1, 500},
      {"0.5e0", 1, 500},
      {"0.5e-1", 1, 50},
      {"0.5e-2", 1, 5},
      {"10.035M", 10035000, 10035000000},
      {"1.2e3", 1200, 1200000},
      {"1.3E+6", 1300000, 1300000000},
      {"1.40e9", 1400000000, 1400000000000},
      {"1.53E12", 1530000000000, 1530000000000000},
      {"1.6e15", 1600000000000000, 1600000000000000000},
      {"1.7E18", 1700000000000000000, kMax},
      {"9.01", 10, 9010},
      {"8.1k", 8100, 8100000},
      {"7.123456M", 7123456, 7123456000},
      {"6.987654321G", 6987654321, 6987654321000},
      {"5.444T", 5444000000000, 5444000000000000},
      {"40.1T", 40100000000000, 40100000000000000},
      {"300.2T", 300200000000000, 300200000000000000},
      {"2.5P", 2500000000000000, 2500000000000000000},
      {"1.01E", 1010000000000000000, kMax},
      {"100.035Ki", 102436, 102435840},
      {"0.5Mi", 524288, 524288000},
      {"0.05Gi", 53687092, 53687091200},
      {"0.025Ti", 27487790695, 27487790694400},
      {"0.000000000001Ki", 1, 1},
      {".001", 1, 1},
      {".0001k", 1, 100},
      {"1.", 1, 1000},
      {"1.G", 1000000000, 1000000000000},
  };
  for (const Case& c : valid) {
    std::string error;
    std::optional<Quantity> q = parseQuantity(c.text, &error);
    ASSERT_TRUE(q.has_value()) << c.text << ": " << error;
    EXPECT_EQ(q->value(), c.value) << c.text;
    EXPECT_EQ(q->milliValue(), c.milli) << c.text;
    // And negated, as upstream tries every case with a sign.
    std::optional<Quantity> negative = parseQuantity(std::string("-") + c.text);
    ASSERT_TRUE(negative.has_value()) << c.text;
    EXPECT_EQ(negative->nanos(), -q->nanos()) << c.text;
  }
  const char* invalid[] = {"1.1.M", "1+1.0M", "0.1mi",   "0.1am", "aoeu", ".5i",
                           "1i",    "-3.01i", "-3.01e-", " 1",    "1 "};
  for (const char* text : invalid) {
    EXPECT_FALSE(parseQuantity(text).has_value()) << text;
  }
}

// A suffix, an exponent or a point with no digits reads as 0, as resource.ParseQuantity reads
// it: parseQuantityString takes an empty numerator as "0", and the fast path of ParseQuantity
// returns 0 for it without an error. The API server therefore stores such a pod, and the host
// must schedule it as Kubernetes would (a request of 0), not refuse it.
TEST(QuantityTest, DigitlessSpellingsAreZeroAsUpstream) {
  for (const char* text : {"m", "Ki", "e3", "E-3", ".", "+", "-", "k", "Mi", ".m"}) {
    std::string error;
    std::optional<Quantity> q = parseQuantity(text, &error);
    ASSERT_TRUE(q.has_value()) << text << ": " << error;
    EXPECT_TRUE(q->isZero()) << text;
  }
}

}  // namespace
}  // namespace sh::model::quantity_test

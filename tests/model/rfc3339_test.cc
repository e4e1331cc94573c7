#include "host/model/rfc3339.h"

#include <gtest/gtest.h>

namespace sh::model::rfc3339_test {
namespace {

TEST(Rfc3339Test, Parses) {
  EXPECT_EQ(parseRfc3339Nanos("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parseRfc3339Nanos("2024-01-02T03:04:05Z"), int64_t{1704164645} * 1000000000);
  EXPECT_EQ(parseRfc3339Nanos("2024-01-02T03:04:05.5Z"),
            int64_t{1704164645} * 1000000000 + 500000000);
  EXPECT_EQ(parseRfc3339Nanos("2024-01-02T03:04:05.123456789123Z"),
            int64_t{1704164645} * 1000000000 + 123456789);
  EXPECT_EQ(parseRfc3339Nanos("2024-01-02T05:04:05+02:00"), int64_t{1704164645} * 1000000000);
  EXPECT_EQ(parseRfc3339Nanos("2024-01-02T01:04:05-02:00"), int64_t{1704164645} * 1000000000);
  EXPECT_EQ(parseRfc3339Nanos("2024-02-29T00:00:00Z"), int64_t{1709164800} * 1000000000);
  EXPECT_EQ(parseRfc3339Nanos("1969-12-31T23:59:59Z"), int64_t{-1000000000});
}

TEST(Rfc3339Test, SaturatesOutsideInt64Nanos) {
  EXPECT_EQ(parseRfc3339Nanos("9999-12-31T23:59:59Z"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parseRfc3339Nanos("0001-01-01T00:00:00Z"), std::numeric_limits<int64_t>::min());
}

TEST(Rfc3339Test, RejectsMalformed) {
  for (const char* s :
       {"", "2024-01-02", "2024-01-02T03:04:05", "2024-01-02 03:04:05Z", "2024-13-02T03:04:05Z",
        "2023-02-29T00:00:00Z", "2024-01-02T24:00:00Z", "2024-01-02T03:04:05.Z",
        "2024-01-02T03:04:05+0200", "2024-01-02T03:04:05Zjunk", "24-01-02T03:04:05Z"}) {
    EXPECT_FALSE(parseRfc3339Nanos(s).has_value()) << s;
  }
}

}  // namespace
}  // namespace sh::model::rfc3339_test

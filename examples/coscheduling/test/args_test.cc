// CoschedulingArgs: upstream's defaults and ValidateCoschedulingArgs.
#include "args.h"

#include <gtest/gtest.h>

namespace coscheduling {
namespace {

TEST(CoschedulingArgsTest, DefaultsAreUpstreams) {
  CoschedulingArgs args;
  EXPECT_EQ(args.permitWaitingTimeSeconds, 60);
  EXPECT_EQ(args.podGroupBackoffSeconds, 0);
  EXPECT_EQ(args.podGroupRejectPercentage, 10);
  EXPECT_TRUE(validate(args).empty());
  EXPECT_STREQ(kDefaultArgs, R"({"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0, )"
                             R"("podGroupRejectPercentage": 10})");
}

TEST(CoschedulingArgsTest, EveryBadValueIsReported) {
  CoschedulingArgs args;
  args.permitWaitingTimeSeconds = -1;
  args.podGroupBackoffSeconds = -2;
  args.podGroupRejectPercentage = 101;
  const std::vector<ArgsError> errors = validate(args);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].field, "permitWaitingTimeSeconds");
  EXPECT_EQ(errors[0].message, "Invalid value: -1: must be greater than 0");
  EXPECT_EQ(errors[1].field, "podGroupBackoffSeconds");
  EXPECT_EQ(errors[1].message, "Invalid value: -2: must be greater than 0");
  EXPECT_EQ(errors[2].field, "podGroupRejectPercentage");
  EXPECT_EQ(errors[2].message, "Invalid value: 101: must be between 0 and 100");
}

TEST(CoschedulingArgsTest, TheBoundsThemselvesAreValid) {
  CoschedulingArgs args;
  args.permitWaitingTimeSeconds = 0;
  args.podGroupBackoffSeconds = 0;
  args.podGroupRejectPercentage = 0;
  EXPECT_TRUE(validate(args).empty());
  args.podGroupRejectPercentage = 100;
  EXPECT_TRUE(validate(args).empty());
  args.podGroupRejectPercentage = -1;
  EXPECT_EQ(validate(args).size(), 1u);
}

}  // namespace
}  // namespace coscheduling

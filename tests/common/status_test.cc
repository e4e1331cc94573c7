// Status: codes named as upstream's framework.Code strings, reasons joined as
// Status.Message() joins them, and wrap() for errors that pass through a layer.
#include "host/common/status.h"

#include <gtest/gtest.h>

namespace sh::status_test {
namespace {

TEST(StatusTest, CodeNamesFollowThePluginAbiOrder) {
  EXPECT_EQ(codeName(SH_SUCCESS), "Success");
  EXPECT_EQ(codeName(SH_UNSCHEDULABLE_AND_UNRESOLVABLE), "UnschedulableAndUnresolvable");
  EXPECT_EQ(codeName(SH_PENDING), "Pending");
  // A plugin's out-of-range code is named, never indexed past the table.
  EXPECT_EQ(codeName(static_cast<sh_code>(SH_CODE_COUNT)), "Unknown");
  EXPECT_EQ(codeName(static_cast<sh_code>(-1)), "Unknown");
}

TEST(StatusTest, RejectedCoversTheThreeRejectingCodes) {
  EXPECT_TRUE(Status(SH_UNSCHEDULABLE).isRejected());
  EXPECT_TRUE(Status(SH_UNSCHEDULABLE_AND_UNRESOLVABLE).isRejected());
  EXPECT_TRUE(Status(SH_PENDING).isRejected());
  EXPECT_FALSE(Status(SH_ERROR).isRejected());
  EXPECT_FALSE(Status(SH_WAIT).isRejected());
  EXPECT_TRUE(Status().ok());
}

TEST(StatusTest, MessageJoinsReasonsAndWrapKeepsOne) {
  Status s(SH_UNSCHEDULABLE, "Insufficient cpu");
  s.addReason("Insufficient memory");
  EXPECT_EQ(s.message(), "Insufficient cpu, Insufficient memory");
  s.wrap("running \"NodeResourcesFit\" filter plugin: ");
  ASSERT_EQ(s.reasons().size(), 1u);
  EXPECT_EQ(s.message(),
            "running \"NodeResourcesFit\" filter plugin: Insufficient cpu, "
            "Insufficient memory");
  EXPECT_EQ(s.code(), SH_UNSCHEDULABLE);
}

}  // namespace
}  // namespace sh::status_test

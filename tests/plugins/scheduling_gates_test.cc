// SchedulingGates: PreEnqueue keeps gated pods out of the active queue; the gates' removal
// requeues the pod. Cases after upstream scheduling_gates_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kGates[] = "SchedulingGates";

TEST(SchedulingGatesTest, PreEnqueue) {
  LoadedPlugin plugin(kGates);
  sh::Status ungated = plugin.framework().runPreEnqueue(MakePod().Name("p").UID("p").Obj()->view());
  EXPECT_TRUE(ungated.ok());

  PodPtr gated = MakePod().Name("p").UID("p").SchedulingGates({"foo", "bar"}).Obj();
  sh::Status status = plugin.framework().runPreEnqueue(gated->view());
  EXPECT_EQ(status.code(), SH_UNSCHEDULABLE_AND_UNRESOLVABLE);
  EXPECT_EQ(status.reasons(), std::vector<std::string>{"waiting for scheduling gates: [foo bar]"});
}

TEST(SchedulingGatesTest, Events) {
  LoadedPlugin plugin(kGates);
  EXPECT_EQ(Registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, 1}}));
  PodPtr gated = MakePod().Name("p").UID("p").SchedulingGates({"foo"}).Obj();
  PodPtr released = MakePod().Name("p").UID("p").Obj();
  PodPtr other = MakePod().Name("q").UID("q").Obj();
  const uint32_t eliminated = SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED;
  EXPECT_EQ(plugin.Hint(0, gated->view(), PodEvent(eliminated, gated, released)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, gated->view(), PodEvent(eliminated, other, other)), SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing

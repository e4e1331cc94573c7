// SchedulingGates: PreEnqueue keeps gated pods out of the active queue; the gates' removal
// requeues the pod. Cases after upstream scheduling_gates_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::scheduling_gates_test {
namespace {

constexpr char kGates[] = "SchedulingGates";

TEST(SchedulingGatesTest, PreEnqueue) {
  LoadedPlugin plugin(kGates);
  sh::Status ungated = plugin.framework().runPreEnqueue(makePod().name("p").uid("p").obj()->view());
  EXPECT_TRUE(ungated.ok());

  PodPtr gated = makePod().name("p").uid("p").schedulingGates({"foo", "bar"}).obj();
  sh::Status status = plugin.framework().runPreEnqueue(gated->view());
  EXPECT_EQ(status.code(), SH_UNSCHEDULABLE_AND_UNRESOLVABLE);
  EXPECT_EQ(status.reasons(), std::vector<std::string>{"waiting for scheduling gates: [foo bar]"});
}

TEST(SchedulingGatesTest, Events) {
  LoadedPlugin plugin(kGates);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED, 1}}));
  PodPtr gated = makePod().name("p").uid("p").schedulingGates({"foo"}).obj();
  PodPtr released = makePod().name("p").uid("p").obj();
  PodPtr other = makePod().name("q").uid("q").obj();
  const uint32_t eliminated = SH_ACTION_UPDATE_POD_SCHEDULING_GATES_ELIMINATED;
  EXPECT_EQ(plugin.hint(0, gated->view(), podEvent(eliminated, gated, released)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, gated->view(), podEvent(eliminated, other, other)), SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing::scheduling_gates_test

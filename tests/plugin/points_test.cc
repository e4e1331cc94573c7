#include "host/plugin/points.h"

#include <cstddef>

#include <gtest/gtest.h>

namespace sh::plugin::points_test {
namespace {

sh_code filterStub(void*, sh_cycle*, const sh_pod*, const sh_node_info*, sh_status*) {
  return SH_SUCCESS;
}
sh_code scoreStub(void*, sh_cycle*, const sh_pod*, const sh_node_info*, int64_t*, sh_status*) {
  return SH_SUCCESS;
}

TEST(PointsTest, NamesInBitOrder) {
  EXPECT_EQ(pointsToString(0), "");
  EXPECT_EQ(pointsToString(SH_POINT_SCORE | SH_POINT_PRE_FILTER | SH_POINT_FILTER),
            "PreFilter,Filter,Score");
  EXPECT_EQ(pointsToString((1u << 12) - 1),
            "PreEnqueue,QueueSort,PreFilter,Filter,PostFilter,PreScore,Score,Reserve,Permit,"
            "PreBind,Bind,PostBind");
  EXPECT_EQ(pointsToString(SH_POINT_BIND | (1u << 20)), "Bind,bit20");
}

TEST(PointsTest, FlagNames) {
  EXPECT_EQ(flagsToString(0), "");
  EXPECT_EQ(flagsToString(SH_PLUGIN_SERIALIZE), "Serialize");
  EXPECT_EQ(flagsToString(SH_PLUGIN_SERIALIZE | 4u), "Serialize,bit2");
}

TEST(PointsTest, FromVtableSlots) {
  sh_plugin_vtable v{};
  v.struct_size = sizeof(v);
  EXPECT_EQ(pointsFromVtable(v), 0u);
  v.filter = filterStub;
  v.score = scoreStub;
  EXPECT_EQ(pointsFromVtable(v), SH_POINT_FILTER | SH_POINT_SCORE);
}

TEST(PointsTest, FromVtableIgnoresSlotsPastStructSize) {
  sh_plugin_vtable v{};
  v.filter = filterStub;
  v.score = scoreStub;
  // The plugin's table ends right after `filter`: `score` is not part of it.
  v.struct_size = offsetof(sh_plugin_vtable, filter) + sizeof(v.filter);
  EXPECT_EQ(pointsFromVtable(v), SH_POINT_FILTER);
  v.struct_size = offsetof(sh_plugin_vtable, filter);
  EXPECT_EQ(pointsFromVtable(v), 0u);
}

}  // namespace
}  // namespace sh::plugin::points_test

#include "host/framework/cycle_state.h"

#include <gtest/gtest.h>

namespace sh {
namespace {

struct Counter {
  int value;
};
int gFrees = 0;
void* cloneCounter(const void* p) { return new Counter(*static_cast<const Counter*>(p)); }
void freeCounter(void* p) {
  ++gFrees;
  delete static_cast<Counter*>(p);
}
const sh_state_ops kOps = {&cloneCounter, &freeCounter};

TEST(CycleStateTest, WriteReadReplaceAndFree) {
  gFrees = 0;
  {
    CycleState c;
    EXPECT_EQ(c.read(20), nullptr);
    EXPECT_TRUE(c.write(20, new Counter{1}, &kOps));
    EXPECT_EQ(static_cast<Counter*>(c.read(20))->value, 1);
    EXPECT_TRUE(c.write(20, new Counter{2}, &kOps));  // replaces and frees the first
    EXPECT_EQ(gFrees, 1);
    EXPECT_EQ(static_cast<Counter*>(c.read(20))->value, 2);
  }
  EXPECT_EQ(gFrees, 2);
}

TEST(CycleStateTest, CloneIsDeepThroughOps) {
  gFrees = 0;
  CycleState c;
  c.write(21, new Counter{5}, &kOps);
  c.skipFilterPlugins.insert("NodePorts");
  auto copy = c.clone();
  static_cast<Counter*>(copy->read(21))->value = 9;
  EXPECT_EQ(static_cast<Counter*>(c.read(21))->value, 5);
  EXPECT_EQ(copy->skipFilterPlugins.count("NodePorts"), 1u);
  copy.reset();
  EXPECT_EQ(gFrees, 1);
}

TEST(CycleStateTest, WritesAreRefusedDuringParallelPhases) {
  gFrees = 0;
  CycleState c;
  c.parallelPhase = true;
  EXPECT_FALSE(c.write(22, new Counter{1}, &kOps));
  EXPECT_EQ(gFrees, 1);  // the refused entry is freed, not leaked
  EXPECT_EQ(c.read(22), nullptr);
}

}  // namespace
}  // namespace sh

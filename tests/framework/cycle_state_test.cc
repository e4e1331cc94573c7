#include "host/framework/cycle_state.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include "host/framework/plugin_instance.h"

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

using Keys = std::vector<std::string>;

TEST(CycleStateTest, PodsToActivateAreDeduplicatedAndTakenOnce) {
  CycleState c;
  EXPECT_EQ(c.takePodsToActivate(), Keys{});
  c.addPodToActivate("ns/b");
  c.addPodToActivate("ns/a");
  c.addPodToActivate("ns/b");
  EXPECT_EQ(c.takePodsToActivate(), (Keys{"ns/b", "ns/a"}));
  EXPECT_EQ(c.takePodsToActivate(), Keys{});  // taking empties the list
  c.addPodToActivate("ns/b");                 // and forgets what was taken
  EXPECT_EQ(c.takePodsToActivate(), Keys{"ns/b"});
}

TEST(CycleStateTest, ClonesShareThePodsToActivate) {
  // Upstream PodsToActivate.Clone returns itself: a request made on a copy (a preemption
  // dry run, a nominated-pod evaluation) is the original's.
  CycleState c;
  c.addPodToActivate("ns/a");
  auto copy = c.clone();
  copy->addPodToActivate("ns/b");
  auto copyOfCopy = copy->clone();
  copyOfCopy->addPodToActivate("ns/a");
  EXPECT_EQ(c.takePodsToActivate(), (Keys{"ns/a", "ns/b"}));
  EXPECT_EQ(copy->takePodsToActivate(), Keys{});
  copy.reset();  // the list outlives a copy
  copyOfCopy->addPodToActivate("ns/c");
  EXPECT_EQ(c.takePodsToActivate(), Keys{"ns/c"});
}

TEST(CycleStateTest, PodsToActivateAcceptConcurrentRequests) {
  CycleState c;
  auto copy = c.clone();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      CycleState& target = t % 2 == 0 ? c : *copy;
      for (int i = 0; i < 100; ++i) {
        target.addPodToActivate("ns/p" + std::to_string(i));
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_EQ(c.takePodsToActivate().size(), 100u);
}

TEST(HostApiTest, CycleActivatePodRecordsNamespaceSlashName) {
  const sh_host_api* api = hostApi();
  ASSERT_GE(api->abi_minor, 1);
  ASSERT_GE(api->struct_size, offsetof(sh_host_api, cycle_activate_pod) + sizeof(void*));
  ASSERT_NE(api->cycle_activate_pod, nullptr);
  CycleState c;
  api->cycle_activate_pod(&c, "ns", 2, "gang-a", 6);
  // Views, not NUL-terminated strings: only the given lengths count.
  api->cycle_activate_pod(&c, "other-ns", 5, "gang-bXYZ", 6);
  EXPECT_EQ(c.takePodsToActivate(), (Keys{"ns/gang-a", "other/gang-b"}));
}

TEST(HostApiTest, CycleActivatePodIgnoresNullAndEmptyArguments) {
  const sh_host_api* api = hostApi();
  CycleState c;
  api->cycle_activate_pod(nullptr, "ns", 2, "a", 1);
  api->cycle_activate_pod(nullptr, nullptr, 0, nullptr, 0);
  api->cycle_activate_pod(&c, nullptr, 2, "a", 1);
  api->cycle_activate_pod(&c, "ns", 2, nullptr, 1);
  api->cycle_activate_pod(&c, nullptr, 0, nullptr, 0);
  api->cycle_activate_pod(&c, "", 0, "a", 1);
  api->cycle_activate_pod(&c, "ns", 2, "", 0);
  api->cycle_activate_pod(&c, "ns", 0, "a", 1);
  EXPECT_EQ(c.takePodsToActivate(), Keys{});
}

}  // namespace
}  // namespace sh

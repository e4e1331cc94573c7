#include "host/framework/cycle_state.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/framework/plugin_instance.h"

namespace sh::cycle_state_test {
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

// cycle_wait: the time passes when nothing cancels the wait; a cancellation ends it at once
// with its reason, the first one kept; clones share it; NULL is refused as stopping.
TEST(HostApiTest, CycleWaitEndsWithTheReasonItWasCancelledFor) {
  const sh_host_api* api = hostApi();
  ASSERT_GE(api->abi_minor, 3);
  ASSERT_GE(api->struct_size, offsetof(sh_host_api, cycle_wait) + sizeof(void*));
  CycleState c;
  EXPECT_EQ(api->cycle_wait(nullptr, &c, 1), SH_WAIT_ELAPSED);  // no binding cycle

  c.cancel = std::make_shared<CycleCancel>();
  EXPECT_EQ(api->cycle_wait(nullptr, &c, 1), SH_WAIT_ELAPSED);
  std::unique_ptr<CycleState> clone = c.clone();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    c.cancel->cancel(SH_WAIT_POD_DELETED);
  });
  // An hour, unless the cancellation ends it: the test's own timeout would catch a miss.
  EXPECT_EQ(api->cycle_wait(nullptr, clone.get(), 3'600'000), SH_WAIT_POD_DELETED);
  canceller.join();
  c.cancel->cancel(SH_WAIT_STOPPING);  // the first reason stays
  EXPECT_EQ(api->cycle_wait(nullptr, &c, 3'600'000), SH_WAIT_POD_DELETED);

  EXPECT_EQ(api->cycle_wait(nullptr, nullptr, 1), SH_WAIT_STOPPING);
}

TEST(HostApiTest, WritesPlannedOnlyWhereTheHostSaysSo) {
  const sh_host_api* api = hostApi();
  NullHostServices live;
  sh_host onCluster;
  onCluster.services = &live;
  EXPECT_EQ(api->writes_planned(&onCluster), 0);
  EXPECT_EQ(api->writes_planned(nullptr), 0);

  struct Planned : NullHostServices {
    bool writesPlanned() const override { return true; }
  } planned;
  sh_host dryRun;
  dryRun.services = &planned;
  EXPECT_EQ(api->writes_planned(&dryRun), 1);
}

}  // namespace
}  // namespace sh::cycle_state_test

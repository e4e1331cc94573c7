// The preemption services of the host API (plugin.h §6) called as a plugin calls them:
// plugin-owned statuses, dry runs on node copies, parallel_for, cycle_random, and
// preempt_victims, which only a PostFilter may call.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "host/cache/snapshot.h"
#include "host/framework/cycle_host.h"
#include "host/framework/cycle_state.h"
#include "host/framework/node_to_status.h"
#include "host/framework/plugin_instance.h"
#include "host/model/testing/wrappers.h"

namespace sh::preemption_services_test {
namespace {

using model::testing::makeNode;
using model::testing::makePod;

std::string reasonsOf(const sh_host_api* api, sh_status* st) {
  std::string out;
  for (std::size_t i = 0; i < api->status_reason_count(st); ++i) {
    sh_str r = api->status_reason_at(st, i);
    out += (out.empty() ? "" : "; ") + std::string(r.ptr, r.len);
  }
  return out;
}

// Records what the host is asked to do.
class RecordingHost : public CycleHost {
 public:
  std::vector<std::shared_ptr<const model::Pod>> nominatedPodsFor(std::string_view,
                                                                  const sh_pod&) override {
    return {};
  }
  void parallelFor(std::size_t n, const std::function<void(std::size_t)>& fn) override {
    parallelCalls++;
    for (std::size_t i = 0; i < n; ++i) {
      fn(i);
    }
  }
  uint64_t random() override { return 42; }
  Status preempt(const sh_pod& preemptor, std::string_view node,
                 const std::vector<const sh_pod*>& victims) override {
    lastPreemptor = std::string(preemptor.name.ptr, preemptor.name.len);
    lastNode = std::string(node);
    lastVictims = victims.size();
    return Status();
  }
  int parallelCalls = 0;
  std::string lastPreemptor;
  std::string lastNode;
  std::size_t lastVictims = 0;
};

class PreemptionServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    victim_ = makePod().name("victim").uid("victim").node("n1").req({{"cpu", "1"}}).obj();
    other_ = makePod().name("other").uid("other").node("n1").req({{"cpu", "1"}}).obj();
    preemptor_ = makePod().name("preemptor").uid("preemptor").priority(10).obj();
    snapshot_ = cache::buildSnapshot(
        {makeNode().name("n1").capacity({{"cpu", "4"}, {"pods", "10"}}).obj()}, {victim_, other_});
    cycle_.snapshot = snapshot_.get();
    cycle_.host = &host_;
  }

  const sh_host_api* api_ = hostApi();
  std::shared_ptr<const model::Pod> victim_, other_, preemptor_;
  std::unique_ptr<cache::Snapshot> snapshot_;
  RecordingHost host_;
  CycleState cycle_;
};

TEST_F(PreemptionServicesTest, PluginOwnedStatusKeepsReasons) {
  sh_status* st = api_->status_create();
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(api_->status_reason_count(st), 0u);
  api_->status_add_reason(st, "Insufficient cpu", 16);
  EXPECT_EQ(reasonsOf(api_, st), "Insufficient cpu");
  EXPECT_EQ(api_->status_reason_at(st, 5).len, 0u);  // out of range: empty
  api_->status_destroy(st);
}

TEST_F(PreemptionServicesTest, SimWorksOnACopyOfTheNode) {
  const sh_node_info* node = snapshot_->find("n1");
  ASSERT_NE(node, nullptr);
  sh_sim* sim = api_->sim_begin(&cycle_, &preemptor_->view(), node);
  ASSERT_NE(sim, nullptr);
  EXPECT_NE(api_->sim_cycle(sim), &cycle_);  // a copy of the state too

  sh_status* st = api_->status_create();
  EXPECT_EQ(api_->sim_remove_pod(sim, &victim_->view(), st), SH_SUCCESS);
  const sh_node_info* copy = api_->sim_node_info(sim);
  EXPECT_EQ(copy->pod_count, 1u);
  EXPECT_EQ(copy->requested.milli_cpu, 1000);
  EXPECT_EQ(node->pod_count, 2u);  // the snapshot is untouched
  EXPECT_EQ(node->requested.milli_cpu, 2000);

  // Removing it again: it is not on the copy any more.
  EXPECT_EQ(api_->sim_remove_pod(sim, &victim_->view(), st), SH_UNSCHEDULABLE);
  EXPECT_EQ(reasonsOf(api_, st), "pod victim is not on node n1");

  EXPECT_EQ(api_->sim_add_pod(sim, &victim_->view(), nullptr), SH_SUCCESS);
  EXPECT_EQ(api_->sim_node_info(sim)->pod_count, 2u);
  api_->status_destroy(st);

  // No framework on this cycle: nothing to filter with.
  EXPECT_EQ(api_->sim_filter(sim, nullptr), SH_ERROR);
  api_->sim_end(sim);
}

TEST_F(PreemptionServicesTest, SimRefusesNodesOutsideTheSnapshot) {
  auto stranger = makeNode().name("elsewhere").obj();
  auto info = std::make_shared<model::NodeInfo>(stranger);
  EXPECT_EQ(api_->sim_begin(&cycle_, &preemptor_->view(), &info->view()), nullptr);
  EXPECT_EQ(api_->sim_begin(nullptr, &preemptor_->view(), snapshot_->find("n1")), nullptr);
  EXPECT_EQ(api_->sim_begin(&cycle_, nullptr, snapshot_->find("n1")), nullptr);
}

TEST_F(PreemptionServicesTest, ParallelForAndRandomGoThroughTheCycleHost) {
  std::atomic<int> sum{0};
  api_->parallel_for(
      &cycle_, 5, [](void* ctx, size_t i) { *static_cast<std::atomic<int>*>(ctx) += int(i); },
      &sum);
  EXPECT_EQ(sum.load(), 0 + 1 + 2 + 3 + 4);
  EXPECT_EQ(host_.parallelCalls, 1);
  EXPECT_EQ(api_->cycle_random(&cycle_), 42u);
}

TEST_F(PreemptionServicesTest, PreemptVictimsOnlyDuringPostFilter) {
  const sh_pod* victims[] = {&victim_->view()};
  sh_status* st = api_->status_create();
  EXPECT_EQ(api_->preempt_victims(&cycle_, &preemptor_->view(), "n1", 2, victims, 1, st), SH_ERROR);
  EXPECT_EQ(reasonsOf(api_, st), "preempt_victims: only a PostFilter plugin may evict pods");
  EXPECT_EQ(host_.lastVictims, 0u);
  api_->status_destroy(st);

  // During PostFilter the cycle has the Filter statuses; the host is asked to evict.
  NodeToStatus statuses;
  cycle_.nodeStatuses = &statuses;
  EXPECT_EQ(api_->preempt_victims(&cycle_, &preemptor_->view(), "n1", 2, victims, 1, nullptr),
            SH_SUCCESS);
  EXPECT_EQ(host_.lastPreemptor, "preemptor");
  EXPECT_EQ(host_.lastNode, "n1");
  EXPECT_EQ(host_.lastVictims, 1u);

  // A null victim is refused before anything happens.
  const sh_pod* bad[] = {&victim_->view(), nullptr};
  host_.lastVictims = 0;
  EXPECT_EQ(api_->preempt_victims(&cycle_, &preemptor_->view(), "n1", 2, bad, 2, nullptr),
            SH_ERROR);
  EXPECT_EQ(host_.lastVictims, 0u);
  cycle_.nodeStatuses = nullptr;
}

TEST_F(PreemptionServicesTest, PodDisruptionBudgetsWithoutObjectsAreNone) {
  const sh_pdb* const* out = reinterpret_cast<const sh_pdb* const*>(&out);
  EXPECT_EQ(api_->pod_disruption_budgets(&cycle_, &out), 0u);
  EXPECT_EQ(out, nullptr);
}

}  // namespace
}  // namespace sh::preemption_services_test

// The framework's metrics: each run* records its extension point once, under its final status
// and the profile; plugin execution durations only in cycles that ask for them; and a
// framework without metrics runs as before.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host/cache/snapshot.h"
#include "host/config/args_tree.h"
#include "host/config/diagnostics.h"
#include "host/framework/framework.h"
#include "host/framework/host_services.h"
#include "host/metrics/scheduler_metrics.h"
#include "host/model/testing/wrappers.h"
#include "host/plugin/registry.h"

namespace sh::framework_metrics_test {
namespace {

using model::testing::makeNode;
using model::testing::makePod;

constexpr const char* kProfile = "p1";

class FrameworkMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<plugin::ScanError> errors;
    registry_.scanDirs({SCHEDHOST_SCRIPTED_PLUGIN_DIR}, errors);
    ASSERT_NE(registry_.find("ScriptedA"), nullptr);
    snapshot_ = cache::buildSnapshot(
        {makeNode().name("n1").obj(), makeNode().name("n2").obj(), makeNode().name("n3").obj()},
        {});
    cycle_.snapshot = snapshot_.get();
    pod_ = makePod().name("p").uid("p").schedulerName(kProfile).obj();
  }

  // ScriptedA with `args` at every point it implements; with `metrics` when given.
  std::shared_ptr<Framework> build(const std::string& args,
                                   std::shared_ptr<metrics::ProfileMetrics> metrics) {
    auto lib = registry_.find("ScriptedA");
    std::string err;
    auto argNode = config::ArgNode::fromJsonText(args, "args", {}, &err);
    EXPECT_TRUE(argNode) << err;
    config::Diagnostics diags;
    auto inst = PluginInstance::create(lib, *argNode, &services_, diags);
    EXPECT_NE(inst, nullptr) << diags.str();
    Framework::Config config;
    config.profileName = kProfile;
    for (ExtensionPoint p : kAllExtensionPoints) {
      if ((inst->points() & pointBit(p)) != 0) {
        config.plugins[indexOf(p)].push_back(inst);
      }
    }
    config.metrics = std::move(metrics);
    auto fw = std::make_shared<Framework>(std::move(config));
    cycle_.framework = fw.get();
    return fw;
  }

  std::shared_ptr<metrics::ProfileMetrics> profileMetrics() {
    return std::make_shared<metrics::ProfileMetrics>(scheduler_, kProfile);
  }

  uint64_t pointCount(std::string_view point, std::string_view status,
                      std::string_view profile = kProfile) {
    return scheduler_.frameworkExtensionPointDuration.with({point, status, profile}).count();
  }
  // Every observation of the extension-point histogram, all children.
  uint64_t allPointCounts() {
    uint64_t n = 0;
    for (const auto& c : scheduler_.frameworkExtensionPointDuration.snapshot().children) {
      n += c.cumulative.back();
    }
    return n;
  }
  uint64_t pluginCount(std::string_view point, std::string_view status) {
    return scheduler_.pluginExecutionDuration.with({"ScriptedA", point, status}).count();
  }
  std::size_t pluginChildren() {
    return scheduler_.pluginExecutionDuration.snapshot().children.size();
  }

  Status scoreAll(const Framework& fw) {
    std::vector<NodeScore> scores;
    return fw.runScore(cycle_, pod_->view(), snapshot_->views, scores, nullptr,
                       [](std::size_t n, const std::function<void(std::size_t)>& fn) {
                         for (std::size_t i = 0; i < n; ++i) {
                           fn(i);
                         }
                       });
  }

  plugin::PluginRegistry registry_;
  NullHostServices services_;
  metrics::SchedulerMetrics scheduler_;
  std::unique_ptr<cache::Snapshot> snapshot_;
  std::shared_ptr<const model::Pod> pod_;
  CycleState cycle_;
};

TEST_F(FrameworkMetricsTest, EachPointIsRecordedOnceUnderItsFinalStatus) {
  auto fw = build(R"({"preFilter":{"code":"Unschedulable","reasons":["no"]},
                      "reserve":{"code":"Unschedulable","reasons":["full"]},
                      "permit":{"code":"Wait","timeoutMs":100},
                      "postFilter":{"code":"Unschedulable"}})",
                  profileMetrics());
  const sh_pod& pod = pod_->view();
  PreFilterOutcome outcome;
  EXPECT_EQ(fw->runPreFilter(cycle_, pod, outcome).code(), SH_UNSCHEDULABLE);
  EXPECT_EQ(pointCount("PreFilter", "Unschedulable"), 1u);
  EXPECT_EQ(allPointCounts(), 1u);

  EXPECT_EQ(fw->runReserve(cycle_, pod, "n1").code(), SH_UNSCHEDULABLE);
  EXPECT_EQ(pointCount("Reserve", "Unschedulable"), 1u);
  fw->runUnreserve(cycle_, pod, "n1");
  EXPECT_EQ(pointCount("Unreserve", "Success"), 1u);
  EXPECT_EQ(fw->runPermit(cycle_, pod, "n1", nullptr).code(), SH_WAIT);
  EXPECT_EQ(pointCount("Permit", "Wait"), 1u);
  EXPECT_EQ(fw->runPreBind(cycle_, pod, "n1").code(), SH_SUCCESS);
  EXPECT_EQ(pointCount("PreBind", "Success"), 1u);
  EXPECT_EQ(fw->runBind(cycle_, pod, "n1").code(), SH_SUCCESS);
  EXPECT_EQ(pointCount("Bind", "Success"), 1u);
  fw->runPostBind(cycle_, pod, "n1");
  EXPECT_EQ(pointCount("PostBind", "Success"), 1u);
  EXPECT_EQ(fw->runPreScore(cycle_, pod, snapshot_->views).code(), SH_SUCCESS);
  EXPECT_EQ(pointCount("PreScore", "Success"), 1u);
  EXPECT_EQ(scoreAll(*fw).code(), SH_SUCCESS);
  EXPECT_EQ(pointCount("Score", "Success"), 1u);
  NodeToStatus statuses;
  EXPECT_EQ(fw->runPostFilter(cycle_, pod, statuses, nullptr).code(), SH_UNSCHEDULABLE);
  EXPECT_EQ(pointCount("PostFilter", "Unschedulable"), 1u);
  EXPECT_EQ(allPointCounts(), 10u);  // nothing else was touched

  // Filter is not recorded per node: the caller records the whole phase once.
  EXPECT_TRUE(fw->runFilter(cycle_, pod, *snapshot_->views[0]).ok());
  EXPECT_EQ(allPointCounts(), 10u);
  fw->observeExtensionPoint(ExtensionPoint::kFilter, Status(SH_UNSCHEDULABLE), 0.01);
  EXPECT_EQ(pointCount("Filter", "Unschedulable"), 1u);
  fw->observeExtensionPoint(ExtensionPoint::kQueueSort, Status(), 0.01);  // not a timed point
  EXPECT_EQ(allPointCounts(), 11u);
}

TEST_F(FrameworkMetricsTest, ErrorsAreRecordedAsError) {
  auto fw = build(R"({"throwIn":"score"})", profileMetrics());
  EXPECT_EQ(scoreAll(*fw).code(), SH_ERROR);
  EXPECT_EQ(pointCount("Score", "Error"), 1u);
}

TEST_F(FrameworkMetricsTest, PreEnqueueIsLabelledWithThePodsSchedulerName) {
  auto fw = build("{}", profileMetrics());
  auto other = makePod().name("q").uid("q").schedulerName("other-scheduler").obj();
  EXPECT_TRUE(fw->runPreEnqueue(pod_->view()).ok());
  EXPECT_TRUE(fw->runPreEnqueue(other->view()).ok());
  EXPECT_EQ(pointCount("PreEnqueue", "Success"), 1u);
  EXPECT_EQ(pointCount("PreEnqueue", "Success", "other-scheduler"), 1u);
}

TEST_F(FrameworkMetricsTest, PluginDurationsOnlyInCyclesThatRecordThem) {
  auto fw = build(R"({"filter":{"n2":{"code":"Unschedulable","reasons":["no"]}},
                      "score":{"n1":3},"normalizeTimes":2})",
                  profileMetrics());
  const sh_pod& pod = pod_->view();
  PreFilterOutcome outcome;
  ASSERT_TRUE(fw->runPreFilter(cycle_, pod, outcome).ok());
  for (const sh_node_info* n : snapshot_->views) {
    fw->runFilter(cycle_, pod, *n);
  }
  ASSERT_TRUE(scoreAll(*fw).ok());
  ASSERT_TRUE(fw->runReserve(cycle_, pod, "n1").ok());
  EXPECT_EQ(pluginChildren(), 0u);

  cycle_.recordPluginMetrics = true;
  ASSERT_TRUE(fw->runPreFilter(cycle_, pod, outcome).ok());
  // Filter and Score are timed on one node evaluation in 16 (per thread): 16 rounds over the
  // three nodes are 48 evaluations, of which 3 are timed, 16 apart, so one on each node.
  for (int round = 0; round < 16; ++round) {
    for (const sh_node_info* n : snapshot_->views) {
      fw->runFilter(cycle_, pod, *n);
    }
  }
  for (int round = 0; round < 16; ++round) {
    ASSERT_TRUE(scoreAll(*fw).ok());
  }
  ASSERT_TRUE(fw->runReserve(cycle_, pod, "n1").ok());
  fw->runUnreserve(cycle_, pod, "n1");
  EXPECT_EQ(pluginCount("PreFilter", "Success"), 1u);
  EXPECT_EQ(pluginCount("Filter", "Success"), 2u);                    // n1, n3
  EXPECT_EQ(pluginCount("Filter", "Unschedulable"), 1u);              // n2
  EXPECT_EQ(pluginCount("Score", "Success"), 3u);                     // 48 evaluations / 16
  EXPECT_EQ(pluginCount("ScoreExtensionNormalize", "Success"), 16u);  // once per scoreAll
  EXPECT_EQ(pluginCount("Reserve", "Success"), 1u);
  EXPECT_EQ(pluginCount("Unreserve", "Success"), 1u);
  EXPECT_EQ(pluginChildren(), 7u);
}

// scheduler_plugin_evaluation_total (upstream instrumented_plugins.go): every PreFilter,
// Filter, PreScore and Score call of a plugin counts, in every cycle (not sampled), except
// PreFilter and PreScore calls that answer Skip; a Filter plugin skipped by PreFilter is not
// called and not counted.
TEST_F(FrameworkMetricsTest, PluginEvaluationsCountEveryCallAtTheFourPoints) {
  auto fw = build(R"({"filter":{"n2":{"code":"Unschedulable","reasons":["no"]}},
                      "score":{"n1":3}})",
                  profileMetrics());
  const auto evaluations = [&](std::string_view point) -> uint64_t {
    return scheduler_.pluginEvaluations.with({"ScriptedA", point, kProfile}).value();
  };
  // Created with the framework, at 0, for the four points only.
  EXPECT_EQ(scheduler_.pluginEvaluations.snapshot().children.size(), 4u);
  EXPECT_EQ(evaluations("Filter"), 0u);

  const sh_pod& pod = pod_->view();
  PreFilterOutcome outcome;
  ASSERT_TRUE(fw->runPreFilter(cycle_, pod, outcome).ok());
  for (const sh_node_info* n : snapshot_->views) {
    fw->runFilter(cycle_, pod, *n);  // n2 rejects: still one evaluation each
  }
  ASSERT_TRUE(fw->runPreScore(cycle_, pod, snapshot_->views).ok());
  ASSERT_TRUE(scoreAll(*fw).ok());
  EXPECT_EQ(evaluations("PreFilter"), 1u);
  EXPECT_EQ(evaluations("Filter"), 3u);  // one per node
  EXPECT_EQ(evaluations("PreScore"), 1u);
  EXPECT_EQ(evaluations("Score"), 3u);  // one per node
  // Each counted once, whatever the sampling of the durations.
  EXPECT_EQ(pluginChildren(), 0u);
  // Reserve and the others are not evaluations.
  ASSERT_TRUE(fw->runReserve(cycle_, pod, "n1").ok());
  EXPECT_EQ(scheduler_.pluginEvaluations.snapshot().children.size(), 4u);

  // The exposition as upstream writes it.
  const std::string text = scheduler_.render();
  EXPECT_NE(text.find("# TYPE scheduler_plugin_evaluation_total counter\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_plugin_evaluation_total{plugin=\"ScriptedA\",extension_point="
                      "\"Filter\",profile=\"p1\"} 3\n"),
            std::string::npos)
      << text;
}

TEST_F(FrameworkMetricsTest, SkipAtPreFilterAndPreScoreIsNoEvaluation) {
  auto fw = build(R"({"preFilter":{"code":"Skip"},"preScore":{"code":"Skip"}})", profileMetrics());
  const sh_pod& pod = pod_->view();
  PreFilterOutcome outcome;
  ASSERT_TRUE(fw->runPreFilter(cycle_, pod, outcome).ok());
  for (const sh_node_info* n : snapshot_->views) {
    EXPECT_TRUE(fw->runFilter(cycle_, pod, *n).ok());  // skipped: not called
  }
  ASSERT_TRUE(fw->runPreScore(cycle_, pod, snapshot_->views).ok());
  ASSERT_TRUE(scoreAll(*fw).ok());  // skipped too
  for (std::string_view point : {"PreFilter", "Filter", "PreScore", "Score"}) {
    EXPECT_EQ(scheduler_.pluginEvaluations.with({"ScriptedA", point, kProfile}).value(), 0u)
        << point;
  }
}

// scheduler_goroutines{operation="Score"}: the threads at work in a Score loop while it runs,
// back to 0 after.
TEST_F(FrameworkMetricsTest, WithoutMetricsNothingIsRecordedAndNothingBreaks) {
  auto fw = build(R"({"reserve":{"code":"Unschedulable","reasons":["full"]}})", nullptr);
  EXPECT_EQ(fw->metrics(), nullptr);
  cycle_.recordPluginMetrics = true;  // asks, but there is nowhere to record
  const sh_pod& pod = pod_->view();
  PreFilterOutcome outcome;
  EXPECT_TRUE(fw->runPreFilter(cycle_, pod, outcome).ok());
  EXPECT_TRUE(fw->runFilter(cycle_, pod, *snapshot_->views[0]).ok());
  EXPECT_TRUE(scoreAll(*fw).ok());
  Status s = fw->runReserve(cycle_, pod, "n1");
  EXPECT_EQ(s.code(), SH_UNSCHEDULABLE);
  EXPECT_EQ(s.message(), "full");
  fw->observeExtensionPoint(ExtensionPoint::kFilter, Status(), 0.5);
  EXPECT_EQ(allPointCounts(), 0u);
  EXPECT_EQ(pluginChildren(), 0u);
  EXPECT_TRUE(scheduler_.pluginEvaluations.snapshot().children.empty());
}

}  // namespace
}  // namespace sh::framework_metrics_test

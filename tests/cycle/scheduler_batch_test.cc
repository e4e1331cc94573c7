// A batch run over a finite input ends, whatever a pod's attempts end in: once the input is
// over, the third error in a row is the pod's last attempt (a FailedScheduling line with
// "final":true, counted as failed), where upstream would retry it without end. Each hostile
// answer comes from ScriptedA at one extension point. Also: a Permit timeout is a rejection on
// the normal failure path, and a Bind plugin that answers Success without binding does not make
// the pod scheduled.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_batch_test {
namespace {

using ::testing::HasSubstr;
using testing::jstr;
using testing::node;
using ::testing::Not;
using testing::pod;
using testing::SchedulerHarness;

// The default profile with ScriptedA at `point`, scripted by `args` (a TOML inline table).
// At bind, DefaultBinder is disabled so that ScriptedA's answer decides.
std::string scripted(std::string_view point, std::string_view args) {
  std::string out = "[[profiles]]\nschedulerName = \"default-scheduler\"\n[profiles.plugins." +
                    std::string(point) + "]\nenabled = [ { name = \"ScriptedA\" } ]\n";
  if (point == "bind") {
    out += "disabled = [ { name = \"DefaultBinder\" } ]\n";
  }
  return out + "[[profiles.pluginConfig]]\nname = \"ScriptedA\"\nargs = " + std::string(args) +
         "\n";
}

// Everything spdlog logs while it lives.
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const { return out_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

// "kind reason message [final]" for each decision line.
std::vector<std::string> decisionTexts(const SchedulerHarness& h) {
  std::vector<std::string> out;
  for (const boost::json::object& d : h.decisions()) {
    std::string line = jstr(d.at("kind")) + " " + jstr(d.at("pod"));
    if (const auto* reason = d.if_contains("reason")) {
      line += " " + jstr(*reason) + ": " + jstr(d.at("message"));
    }
    if (const auto* final = d.if_contains("final")) {
      line += " final=" + jstr(*final);
    }
    out.push_back(line);
  }
  return out;
}

struct ErrorCase {
  std::string name;
  std::string profiles;  // empty: the default profile
  int nodes;
  std::string message;
};

class BatchRunEndsTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(BatchRunEndsTest, APodThatFailsWithAnErrorIsGivenUpOnceTheInputIsOver) {
  const ErrorCase& c = GetParam();
  SchedulerHarness h({.profiles = c.profiles, .noChangeStream = true});
  for (int i = 1; i <= c.nodes; ++i) {
    h.add(node("n" + std::to_string(i), "4", "32Gi"));
  }
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  const SchedulerStats stats = h.run();  // returns: the test would time out otherwise

  const std::string line = "FailedScheduling ns/p SchedulerError: " + c.message;
  EXPECT_THAT(decisionTexts(h), ::testing::ElementsAre(line, line, line + " final=true"));
  EXPECT_EQ(stats.attempts, 3u);
  EXPECT_EQ(stats.errors, 3u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.scheduled, 0u);
  const Scheduler::PendingOutcome outcome = h.scheduler().pendingOutcome();
  EXPECT_EQ(outcome.failed, 1u);
  EXPECT_EQ(outcome.unschedulable, 0u);
  EXPECT_EQ(outcome.pending, 0u);
  EXPECT_FALSE(h.scheduler().queue().lookupForTest(testing::keyOf("p")).has_value());
  EXPECT_EQ(h.scheduler().cache().size().assumedPods, 0u);
  // The cluster hears of it as of any error.
  const auto condition = testing::podScheduledCondition(*h.storedPod("p"));
  ASSERT_TRUE(condition.has_value());
  EXPECT_EQ(jstr(condition->at("reason")), "SchedulerError");
  EXPECT_EQ(jstr(condition->at("message")), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BatchRunEndsTest,
    ::testing::Values(
        // Upstream ErrNoNodesAvailable: an error, not a FitError, so reason SchedulerError.
        ErrorCase{"NoNodes", "", 0, "no nodes available to schedule pods"},
        ErrorCase{
            "FilterError",
            scripted("filter",
                     R"({ filter = { n1 = { code = "Error", reasons = ["disk on fire"] } } })"),
            1, "running \"ScriptedA\" filter plugin: disk on fire"},
        ErrorCase{"InvalidStatusCode",
                  scripted("filter", R"({ filter = { n1 = { code = "Nonsense" } } })"), 1,
                  "running \"ScriptedA\" filter plugin: plugin \"ScriptedA\" returned an invalid "
                  "status code 42"},
        ErrorCase{"ScoreOutOfRange", scripted("score", R"({ score = { n1 = 1000 } })"), 2,
                  "plugin \"ScriptedA\" returns an invalid score 1000, it should in the range of "
                  "[0, 100] after normalizing"},
        ErrorCase{"BindSkip", scripted("bind", R"({ bind = { code = "Skip" } })"), 1,
                  "no bind plugin bound the pod"},
        // Success without binding: not scheduled, and said so.
        ErrorCase{"BindSuccessWithoutBinding",
                  scripted("bind", R"({ bind = { code = "Success" } })"), 1,
                  "a Bind plugin reported pod ns/p bound to node \"n1\", but the cluster has not "
                  "bound it"}),
    [](const ::testing::TestParamInfo<ErrorCase>& param) { return param.param.name; });

TEST(SchedulerBatchTest, AnErrorBeforeTheInputIsOverIsRetried) {
  // follow mode never gives up: the pod that found no node binds once one arrives.
  SchedulerHarness h({.follow = true});
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  ASSERT_TRUE(h.eventually([&] { return h.scheduler().stats().errors >= 1; }));
  h.appendChange("ADDED", node("n1", "4", "32Gi"));
  ASSERT_TRUE(h.eventually([&] { return h.nodeOf("p") == "n1"; }));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.scheduled, 1u);
  for (const boost::json::object& d : h.decisions()) {
    EXPECT_FALSE(d.contains("final")) << boost::json::serialize(d);
  }
}

TEST(SchedulerBatchTest, EveryPodCountsInOneBucket) {
  // broken meets ScriptedA's Filter error (failed); too-big is rejected by NodeResourcesFit
  // first (unschedulable); gated waits for its gate (pending). Each is counted once.
  SchedulerHarness h({.profiles = scripted("filter", R"({ filter = { n1 = { code = "Error" } } })"),
                      .noChangeStream = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("broken", "1", "1Gi"));
  h.add(pod("too-big", "64", "1Gi"));
  h.add(testing::withKind(model::testing::makePod()
                              .name("gated")
                              .inNamespace(testing::kNamespace)
                              .uid("gated-uid")
                              .schedulingGates({"example.com/wait"})
                              .parseJson(),
                          "Pod"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  const SchedulerStats stats = h.run();
  EXPECT_EQ(stats.scheduled, 0u);
  EXPECT_EQ(stats.failed, 1u);
  const Scheduler::PendingOutcome outcome = h.scheduler().pendingOutcome();
  EXPECT_EQ(outcome.failed, 1u);
  EXPECT_EQ(outcome.unschedulable, 1u);
  EXPECT_EQ(outcome.pending, 1u);
  EXPECT_EQ(h.scheduler().pendingPodCount(), 3u);
}

class PermitTimeoutTest : public ::testing::TestWithParam<int> {};

TEST_P(PermitTimeoutTest, ATimeoutIsARejectionWithBackoffOnTheNormalFailurePath) {
  // Permit Wait with a timeout of 1 ms, or a negative one (0 ms): the pod is rejected by the
  // timeout as by any Permit rejection: a FitError naming ScriptedA, requeued to wait for an
  // event ScriptedA registered (none comes), so the batch run ends with it unschedulable after
  // one attempt, and the queue knew the pod in flight all along.
  const int timeoutMs = GetParam();
  LogCapture log;
  SchedulerHarness h({.profiles = scripted("permit", "{ permit = { code = \"Wait\", timeoutMs = " +
                                                         std::to_string(timeoutMs) + " } }"),
                      .noChangeStream = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  const SchedulerStats stats = h.run();

  const std::string waited = std::to_string(std::max(timeoutMs, 0)) + "ms";
  EXPECT_THAT(decisionTexts(h),
              ::testing::ElementsAre("FailedScheduling ns/p Unschedulable: 0/1 nodes are "
                                     "available: 1 rejected due to timeout after waiting " +
                                     waited + " at plugin ScriptedA."));
  EXPECT_EQ(stats.attempts, 1u);
  EXPECT_EQ(stats.unschedulable, 1u);
  EXPECT_EQ(stats.failed, 0u);
  auto at = h.scheduler().queue().lookupForTest(testing::keyOf("p"));
  ASSERT_TRUE(at.has_value());
  EXPECT_EQ(at->where, queue::PodLocation::kUnschedulable);
  EXPECT_EQ(at->info.unschedulablePlugins, (queue::PluginSet{"ScriptedA"}));
  EXPECT_EQ(at->info.unschedulableCount, 1);
  EXPECT_EQ(h.scheduler().pendingOutcome().unschedulable, 1u);
  EXPECT_THAT(log.text(), Not(HasSubstr("is not tracked by the scheduling queue")));
}

INSTANTIATE_TEST_SUITE_P(Timeouts, PermitTimeoutTest, ::testing::Values(1, -5));

TEST(SchedulerBatchTest, AFailedBindingCycleEndsOnlyItsOwnAttempt) {
  // Many pods time out on Permit at once; each forget requeues the others, which are popped
  // again at once (activeQ empty: PopFromBackoffQ). A binding cycle's failure handler used to
  // end the pod's in-flight period after requeueing it, so it could end the next attempt's
  // period too, and that attempt's failure found the pod "not tracked by the scheduling queue".
  LogCapture log;
  SchedulerHarness h(
      {.profiles = scripted("permit", R"({ permit = { code = "Wait", timeoutMs = 1 } })"),
       .follow = true});
  for (int i = 1; i <= 3; ++i) {
    h.add(node("n" + std::to_string(i), "4", "32Gi"));
  }
  for (int i = 0; i < 12; ++i) {
    h.add(pod("p" + std::to_string(i), "1", "1Gi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.runInBackground();
  EXPECT_TRUE(h.eventually([&] { return h.scheduler().stats().attempts >= 3000; },
                           std::chrono::seconds(20)));
  const SchedulerStats stats = h.stopBackground();
  EXPECT_EQ(stats.scheduled, 0u);
  EXPECT_THAT(log.text(), Not(HasSubstr("is not tracked by the scheduling queue")));
}

TEST(SchedulerBatchTest, PodsThatKeepWakingEachOtherEndAfterTenFailuresEach) {
  // Twelve pods whose Permit always times out after 1 ms, on three nodes: each timeout forgets
  // an assumed pod, an AssignedPodDelete that moves the other rejected pods back to the queue,
  // so upstream would retry them without end. Once the input is over, a batch run gives each
  // pod ten failed attempts (kFailuresAfterInputBeforeGivingUp) and ends: 12 pods x 10 = 120
  // attempts, every pod failed, its last line final.
  LogCapture log;
  SchedulerHarness h(
      {.profiles = scripted("permit", R"({ permit = { code = "Wait", timeoutMs = 1 } })"),
       .noChangeStream = true});
  for (int i = 1; i <= 3; ++i) {
    h.add(node("n" + std::to_string(i), "4", "32Gi"));
  }
  for (int i = 0; i < 12; ++i) {
    h.add(pod("p" + std::to_string(i), "1", "1Gi"));
  }
  ASSERT_NO_FATAL_FAILURE(h.start());
  const SchedulerStats stats = h.run();
  EXPECT_EQ(stats.scheduled, 0u);
  EXPECT_EQ(stats.failed, 12u);
  EXPECT_EQ(stats.attempts, 120u);
  const auto lines = decisionTexts(h);
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.ends_with(" final=true"); }),
            12);
  const auto outcome = h.scheduler().pendingOutcome();
  EXPECT_EQ(outcome.failed, 12u);
  EXPECT_EQ(outcome.unschedulable, 0u);
  EXPECT_EQ(outcome.pending, 0u);
  EXPECT_THAT(log.text(), Not(HasSubstr("is not tracked by the scheduling queue")));
}

TEST(SchedulerBatchTest, APodRefusedAtIntakeLeavesTheOthersAlone) {
  // Two pods share a uid: the second is refused with a message, the first binds; a pod with a
  // number no JSON text can carry back is refused at intake instead of failing at each patch.
  std::vector<std::string> warnings;
  SchedulerHarness h({.noChangeStream = true,
                      .warn = [&warnings](std::string w) { warnings.push_back(std::move(w)); }});
  h.add(node("n1", "4", "32Gi"));
  h.add(pod("a", "1", "1Gi"));
  auto twin = pod("b", "1", "1Gi");
  twin.as_object()["metadata"].as_object()["uid"] = testing::uidOf("a");
  h.add(twin);
  h.addLine(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"huge","namespace":"ns",)"
            R"("uid":"huge-uid"},"spec":{"containers":[{"name":"c"}],"x":1e999}})");
  ASSERT_NO_FATAL_FAILURE(h.start());
  const SchedulerStats stats = h.run();
  EXPECT_EQ(stats.scheduled, 1u);
  EXPECT_EQ(h.nodeOf("a"), "n1");
  EXPECT_EQ(h.storedPod("b"), nullptr);
  EXPECT_EQ(h.storedPod("huge"), nullptr);
  const std::string file = h.path("cluster.json");
  // Objects that do not parse are reported first, then what the store refuses.
  EXPECT_THAT(warnings, ::testing::ElementsAre(
                            file + ":4: pod ns/huge: spec.x: number out of range (beyond a "
                                   "double's range, as 1e999)",
                            file + R"(:3: pod ns/b: metadata.uid: "a-uid" is already the uid of )"
                                   R"(pod ns/a (a uid is unique))"));
  EXPECT_EQ(h.scheduler().pendingPodCount(), 0u);
}

// A pod rejected after Score (here by a Reserve plugin) keeps, for `schedhost explain`, the
// best feasible nodes with each Score plugin's score and the weighted total.
TEST(SchedulerBatchTest, ARejectionAfterScoreKeepsTheScoredNodes) {
  SchedulerHarness h(
      {.profiles = scripted(
           "reserve", "{ reserve = { code = \"Unschedulable\", reasons = [\"rack full\"] } }"),
       .noChangeStream = true});
  // Three sizes: NodeResourcesFit's LeastAllocated ranks the biggest first.
  h.add(node("small", "2", "4Gi"));
  h.add(node("medium", "4", "8Gi"));
  h.add(node("large", "16", "64Gi"));
  h.add(pod("p", "1", "1Gi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  h.run();
  std::optional<AttemptRecord> r = h.scheduler().attempts().last(testing::keyOf("p"));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->feasibleCount, 3u);
  ASSERT_EQ(r->best.size(), 3u);
  EXPECT_EQ(r->best[0].name, "large");
  for (std::size_t i = 1; i < r->best.size(); ++i) {
    EXPECT_GE(r->best[i - 1].total, r->best[i].total);
  }
  // The total is the weighted sum of the scores kept (the default weights: NodeResourcesFit
  // 1, TaintToleration 3, NodeAffinity 2, PodTopologySpread 2, InterPodAffinity 2,
  // NodeResourcesBalancedAllocation 1, ImageLocality 1, VolumeBinding 1; plugins PreScore
  // skipped are not kept and add nothing).
  const std::map<std::string, int64_t> weights = {
      {"NodeResourcesFit", 1},  {"TaintToleration", 3},  {"NodeAffinity", 2},
      {"PodTopologySpread", 2}, {"InterPodAffinity", 2}, {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},     {"VolumeBinding", 1}};
  for (const AttemptRecord::ScoredNode& n : r->best) {
    ASSERT_FALSE(n.scores.empty()) << n.name;
    int64_t total = 0;
    for (const auto& [plugin, score] : n.scores) {
      ASSERT_TRUE(weights.count(plugin) > 0) << plugin;
      total += score * weights.at(plugin);
    }
    EXPECT_EQ(total, n.total) << n.name;
  }
  // The rejection itself: the Reserve plugin's, on the node it was reserving.
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_EQ(r->groups[0].plugin, "ScriptedA");
  EXPECT_EQ(r->groups[0].reasons, std::vector<std::string>{"rack full"});
  EXPECT_EQ(r->groups[0].nodes, std::vector<std::string>{"large"});
}

}  // namespace
}  // namespace sh::cycle::scheduler_batch_test

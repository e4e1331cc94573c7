// The queue's upstream metrics as a scrape shows them: scheduler_unschedulable_pods{plugin,
// profile}, scheduler_inflight_events{event}, scheduler_queueing_hint_execution_duration_seconds
// {plugin, event, hint}; and scheduler_event_handling_duration_seconds{event}, which the
// scheduler's event handlers record around the queue's moves.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "host/cycle/scheduler.h"
#include "host/metrics/registry.h"
#include "host/metrics/scheduler_metrics.h"
#include "tests/metrics/prometheus_text_parser.h"
#include "tests/queue/queue_fixture.h"

namespace sh::queue::queue_metrics_test {
namespace {

using metrics::testing::findSample;
using metrics::testing::ParsedFamily;
using metrics::testing::parsePrometheusText;
using testing::oneEvent;
using testing::plugins;
using testing::QueueFixture;
using testing::testPod;

class QueueMetricsTest : public QueueFixture {
 protected:
  // The queue's scrape-time families as `schedhost run` serves them (cli/run_admin.cc), read
  // back by the strict parser.
  std::vector<ParsedFamily> scrape() const {
    const QueueMetrics q = q_->metrics();
    std::vector<metrics::UnschedulableByPlugin> rejected;
    for (const auto& [labels, pods] : q.unschedulablePods) {
      rejected.push_back({labels.first, labels.second, pods});
    }
    const std::string text = metrics::renderText(
        {metrics::unschedulablePodsFamily(rejected),
         metrics::inflightEventsFamily({q.inflightEvents.begin(), q.inflightEvents.end()})});
    return parsePrometheusText(text);
  }
  // The value of one sample; -1 when the scrape has none.
  double value(const std::string& name,
               const std::vector<std::pair<std::string, std::string>>& labels) const {
    const auto families = scrape();
    const auto* s = findSample(families, name, labels);
    return s == nullptr ? -1 : s->value;
  }
  uint64_t hintCount(const metrics::SchedulerMetrics& m, const std::string& plugin,
                     const std::string& event, const std::string& hint) const {
    for (const auto& c : m.queueingHintDuration.snapshot().children) {
      if (c.labelValues == std::vector<std::string>{plugin, event, hint}) {
        return c.cumulative.back();
      }
    }
    return 0;
  }
};

TEST_F(QueueMetricsTest, UnschedulablePodsCountEachRejectingPluginUntilThePodLeaves) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))},
        {Point::kFilter, scripted("QueueB", oneEvent("Node", R"("Add")", "QueueSkip"))}});
  addAndFail(testPod("p").obj(), plugins({"QueueA", "QueueB"}));
  addAndFail(testPod("q").obj(), plugins({"QueueA"}));
  const std::pair<std::string, std::string> profile{"profile", "default-scheduler"};
  EXPECT_EQ(value("scheduler_unschedulable_pods", {{"plugin", "QueueA"}, profile}), 2);
  EXPECT_EQ(value("scheduler_unschedulable_pods", {{"plugin", "QueueB"}, profile}), 1);
  const auto families = scrape();
  ASSERT_EQ(families[0].name, "scheduler_unschedulable_pods");
  EXPECT_EQ(families[0].type, "gauge");

  // Deleted: its plugins count one pod fewer.
  q_->remove(testPod("p").obj());
  EXPECT_EQ(value("scheduler_unschedulable_pods", {{"plugin", "QueueA"}, profile}), 1);
  EXPECT_EQ(value("scheduler_unschedulable_pods", {{"plugin", "QueueB"}, profile}), 0);
  // Moved by an event and popped: no longer unschedulable.
  q_->activate({testPod("q").obj()});
  ASSERT_EQ(popName(), "q");
  EXPECT_EQ(value("scheduler_unschedulable_pods", {{"plugin", "QueueA"}, profile}), 0);
}

TEST_F(QueueMetricsTest, InflightEventsCountPoppedPodsAndTheEventsKeptForThem) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  q_->add(testPod("p").obj());
  EXPECT_EQ(value("scheduler_inflight_events", {{"event", "PodPopped"}}), -1);
  QueuedPodInfoPtr info = pop();
  EXPECT_EQ(value("scheduler_inflight_events", {{"event", "PodPopped"}}), 1);
  // An event the pod's plugins care about, while it is in flight: kept for its return.
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, nullptr);
  EXPECT_EQ(value("scheduler_inflight_events", {{"event", "NodeAdd"}}), 1);
  EXPECT_EQ(scrape()[1].type, "gauge");
  // The attempt ends: nothing is in flight any more.
  q_->done(info->uid());
  EXPECT_EQ(value("scheduler_inflight_events", {{"event", "PodPopped"}}), 0);
  EXPECT_EQ(value("scheduler_inflight_events", {{"event", "NodeAdd"}}), 0);
}

TEST_F(QueueMetricsTest, QueueingHintsAreTimedByPluginEventAndAnswer) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "QueueSkip"))},
        {Point::kFilter, scripted("QueueB", oneEvent("Node", R"("Add")", "Bogus"))}});
  metrics::SchedulerMetrics m;
  // Without metrics the hints run untimed.
  addAndFail(testPod("a").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, nullptr);
  EXPECT_TRUE(m.queueingHintDuration.snapshot().children.empty());

  q_->setMetrics(&m);
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, nullptr);  // QueueSkip again
  EXPECT_EQ(hintCount(m, "QueueA", "NodeAdd", "QueueSkip"), 1u);
  // An answer that is neither Queue nor QueueSkip is upstream's hint error (and requeues).
  addAndFail(testPod("b").obj(), plugins({"QueueB"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, nullptr);
  EXPECT_EQ(hintCount(m, "QueueA", "NodeAdd", "QueueSkip"), 2u);
  EXPECT_EQ(hintCount(m, "QueueB", "NodeAdd", "Error"), 1u);
  EXPECT_NE(whereIs("b"), "unschedulable");
  // An event no registration matches asks no hint.
  q_->moveAllToActiveOrBackoffQueue(eventNodeDelete(), nullptr, nullptr);
  EXPECT_EQ(m.queueingHintDuration.snapshot().children.size(), 2u);

  const std::string text = m.render();
  const auto families = parsePrometheusText(text);
  const auto* count =
      findSample(families, "scheduler_queueing_hint_execution_duration_seconds_count",
                 {{"plugin", "QueueA"}, {"event", "NodeAdd"}, {"hint", "QueueSkip"}});
  ASSERT_NE(count, nullptr) << text;
  EXPECT_EQ(count->value, 2);
  q_->setMetrics(nullptr);  // m goes first
}

TEST_F(QueueMetricsTest, QueueingHintsAnsweringQueueAreTimedAsQueue) {
  make({{Point::kFilter, scripted("QueueA", oneEvent("Node", R"("Add")", "Queue"))}});
  metrics::SchedulerMetrics m;
  q_->setMetrics(&m);
  addAndFail(testPod("a").obj(), plugins({"QueueA"}));
  q_->moveAllToActiveOrBackoffQueue(eventNodeAdd(), nullptr, nullptr);
  EXPECT_EQ(hintCount(m, "QueueA", "NodeAdd", "Queue"), 1u);
  EXPECT_NE(whereIs("a"), "unschedulable");
  q_->setMetrics(nullptr);
}

// The scheduler's event handlers, fed by an EmbeddedCluster: each change is timed under its
// upstream event label.
class EventHandlingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/schedhost-event-handling-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    scheduler_.reset();
    cluster_.reset();
    std::filesystem::remove_all(dir_);
  }
  // Starts a scheduler on `initial` (one object a line) with a profile of QueueSort alone.
  void start(const std::string& initial) {
    std::ofstream(dir_ + "/cluster.json") << initial;
    connectors::EmbeddedCluster::Options co;
    co.initialState = dir_ + "/cluster.json";
    cluster_ = std::make_unique<connectors::EmbeddedCluster>(co);
    ASSERT_TRUE(cluster_->start().ok());
    cycle::SchedulerOptions so;
    so.parallelism = 1;
    so.metrics = &metrics_;
    scheduler_ =
        std::make_unique<cycle::Scheduler>(testing::oneProfile({}), *cluster_, nullptr, so);
  }
  uint64_t handled(const std::string& event) const {
    for (const auto& c : metrics_.eventHandlingDuration.snapshot().children) {
      if (c.labelValues == std::vector<std::string>{event}) {
        return c.cumulative.back();
      }
    }
    return 0;
  }

  std::string dir_;
  metrics::SchedulerMetrics metrics_;
  std::unique_ptr<connectors::EmbeddedCluster> cluster_;
  std::unique_ptr<cycle::Scheduler> scheduler_;
};

std::string line(const model::testing::NodeWrapper& w) {
  boost::json::value v = boost::json::parse(w.obj()->json());
  v.as_object()["apiVersion"] = "v1";
  v.as_object()["kind"] = "Node";
  return boost::json::serialize(v) + "\n";
}
std::string line(const model::testing::PodWrapper& w) {
  boost::json::value v = boost::json::parse(w.obj()->json());
  v.as_object()["apiVersion"] = "v1";
  v.as_object()["kind"] = "Pod";
  return boost::json::serialize(v) + "\n";
}

TEST_F(EventHandlingTest, EachChangeIsTimedUnderItsEventLabel) {
  start(line(model::testing::makeNode().name("n1")) + line(model::testing::makeNode().name("n2")) +
        line(testPod("bound").node("n1")) + line(testPod("pending")));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  EXPECT_TRUE(metrics_.eventHandlingDuration.snapshot().children.empty());
  scheduler_->stepForTest();  // applies the initial state, schedules "pending"
  EXPECT_EQ(handled("NodeAdd"), 2u);
  EXPECT_EQ(handled("AssignedPodAdd"), 1u);
  EXPECT_EQ(handled("UnschedulablePodAdd"), 1u);

  // The exposition: the histogram under upstream's name, label and buckets.
  const std::string text = metrics_.render();
  const auto families = parsePrometheusText(text);
  const auto* count = findSample(families, "scheduler_event_handling_duration_seconds_count",
                                 {{"event", "NodeAdd"}});
  ASSERT_NE(count, nullptr) << text;
  EXPECT_EQ(count->value, 2);
  EXPECT_NE(findSample(families, "scheduler_event_handling_duration_seconds_bucket",
                       {{"event", "NodeAdd"}, {"le", "0.2048"}}),
            nullptr);
}

}  // namespace
}  // namespace sh::queue::queue_metrics_test

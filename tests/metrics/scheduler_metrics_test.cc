// The scheduler's metric set: upstream's names, labels and buckets, the per-profile handles,
// and a whole exposition read back by the strict parser.
#include "host/metrics/scheduler_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "tests/metrics/prometheus_text_parser.h"

namespace sh::metrics::scheduler_metrics_test {
namespace {

using testing::ParsedFamily;
using testing::ParsedSample;
using testing::parsePrometheusText;

// The bounds as the exposition writes them.
std::vector<std::string> les(const HistogramFamily& f) {
  std::vector<std::string> out;
  for (double b : f.snapshot().bounds) {
    out.push_back(formatValue(b));
  }
  return out;
}

TEST(SchedulerMetricsTest, BucketsAreUpstreams) {
  SchedulerMetrics m;
  // scheduler_scheduling_attempt_duration_seconds: ExponentialBuckets(0.001, 2, 15):
  // 0.001 * 2^k for k = 0..14, the last 0.001 * 16384 = 16.384.
  EXPECT_EQ(les(m.schedulingAttemptDuration),
            (std::vector<std::string>{"0.001", "0.002", "0.004", "0.008", "0.016", "0.032", "0.064",
                                      "0.128", "0.256", "0.512", "1.024", "2.048", "4.096", "8.192",
                                      "16.384"}));
  // scheduler_preemption_goroutines_duration_seconds: ExponentialBuckets(0.01, 2, 20):
  // 0.01 * 2^k for k = 0..19, the last 0.01 * 524288 = 5242.88.
  EXPECT_EQ(les(m.preemptionGoroutinesDuration),
            (std::vector<std::string>{"0.01",   "0.02",   "0.04",    "0.08",    "0.16",
                                      "0.32",   "0.64",   "1.28",    "2.56",    "5.12",
                                      "10.24",  "20.48",  "40.96",   "81.92",   "163.84",
                                      "327.68", "655.36", "1310.72", "2621.44", "5242.88"}));
  // scheduler_preemption_victims: ExponentialBuckets(1, 2, 7): 2^0 .. 2^6.
  EXPECT_EQ(les(m.preemptionVictims),
            (std::vector<std::string>{"1", "2", "4", "8", "16", "32", "64"}));
  // scheduler_framework_extension_point_duration_seconds: ExponentialBuckets(0.0001, 2, 12):
  // 0.0001 * 2^k for k = 0..11, the last 0.0001 * 2048 = 0.2048.
  EXPECT_EQ(les(m.frameworkExtensionPointDuration),
            (std::vector<std::string>{"0.0001", "0.0002", "0.0004", "0.0008", "0.0016", "0.0032",
                                      "0.0064", "0.0128", "0.0256", "0.0512", "0.1024", "0.2048"}));
  // scheduler_plugin_execution_duration_seconds: ExponentialBuckets(0.00001, 1.5, 20):
  // 1e-05 * 1.5^k for k = 0..19, by repeated multiplication as the Go client does, so the
  // rounding of each step shows in the shortest round trip, as in kube-scheduler's own output:
  // 1e-05, 1e-05 * 1.5 = 1.5000000000000002e-05, * 1.5 = 2.2500000000000005e-05, ...;
  // 1.5^19 = 2216.8378200531006, so the last is about 0.0221683782.
  const std::vector<double> plugin = m.pluginExecutionDuration.snapshot().bounds;
  ASSERT_EQ(plugin.size(), 20u);
  double expected = 0.00001;
  for (double b : plugin) {
    EXPECT_EQ(b, expected);
    expected *= 1.5;
  }
  EXPECT_EQ(formatValue(plugin[0]), "1e-05");
  EXPECT_EQ(formatValue(plugin[1]), "1.5000000000000002e-05");
  EXPECT_EQ(formatValue(plugin[2]), "2.2500000000000005e-05");
  EXPECT_EQ(formatValue(plugin[3]), "3.375000000000001e-05");
  EXPECT_NEAR(plugin[19], 0.00001 * 2216.8378200531006, 1e-15);
  // scheduler_pod_scheduling_sli_duration_seconds: ExponentialBuckets(0.01, 2, 20):
  // 0.01 * 2^k for k = 0..19, the last 0.01 * 524288 = 5242.88.
  const std::vector<std::string> sli = les(m.podSchedulingSliDuration);
  ASSERT_EQ(sli.size(), 20u);
  EXPECT_EQ(sli.front(), "0.01");
  EXPECT_EQ(sli[1], "0.02");
  EXPECT_EQ(sli.back(), "5242.88");
  // scheduler_scheduling_algorithm_duration_seconds and scheduler_permit_wait_duration_seconds:
  // ExponentialBuckets(0.001, 2, 15), as the attempt's.
  EXPECT_EQ(les(m.schedulingAlgorithmDuration), les(m.schedulingAttemptDuration));
  EXPECT_EQ(les(m.permitWaitDuration), les(m.schedulingAttemptDuration));
  // scheduler_pod_scheduling_attempts: ExponentialBuckets(1, 2, 5): 1, 2, 4, 8, 16.
  EXPECT_EQ(les(m.podSchedulingAttempts), (std::vector<std::string>{"1", "2", "4", "8", "16"}));
  // scheduler_queueing_hint_execution_duration_seconds: ExponentialBuckets(0.00001, 1.5, 20),
  // the plugin execution's.
  EXPECT_EQ(les(m.queueingHintDuration), les(m.pluginExecutionDuration));
  // scheduler_event_handling_duration_seconds: ExponentialBuckets(0.0001, 2, 12), the
  // extension point's.
  EXPECT_EQ(les(m.eventHandlingDuration), les(m.frameworkExtensionPointDuration));
}

// The families this file adds for upstream's metrics.go: names, types, label names and help
// as upstream's (the help without component-base's "[ALPHA] " prefix, as every family here).
TEST(SchedulerMetricsTest, QueueAndEventFamiliesAreUpstreams) {
  SchedulerMetrics m;
  const auto desc = [](const Family& f) { return f.desc(); };
  EXPECT_EQ(desc(m.pluginEvaluations).name, "scheduler_plugin_evaluation_total");
  EXPECT_EQ(desc(m.pluginEvaluations).type, MetricType::kCounter);
  EXPECT_EQ(desc(m.pluginEvaluations).labelNames,
            (std::vector<std::string>{"plugin", "extension_point", "profile"}));
  EXPECT_EQ(desc(m.pluginEvaluations).help,
            "Number of attempts to schedule pods by each plugin and the extension point "
            "(available only in PreFilter, Filter, PreScore, and Score).");
  EXPECT_EQ(desc(m.queueingHintDuration).name,
            "scheduler_queueing_hint_execution_duration_seconds");
  EXPECT_EQ(desc(m.queueingHintDuration).labelNames,
            (std::vector<std::string>{"plugin", "event", "hint"}));
  EXPECT_EQ(desc(m.queueingHintDuration).help,
            "Duration for running a queueing hint function of a plugin.");
  EXPECT_EQ(desc(m.eventHandlingDuration).name, "scheduler_event_handling_duration_seconds");
  EXPECT_EQ(desc(m.eventHandlingDuration).labelNames, (std::vector<std::string>{"event"}));
  EXPECT_EQ(desc(m.eventHandlingDuration).help, "Event handling latency in seconds.");
  EXPECT_EQ(desc(m.goroutines).name, "scheduler_goroutines");
  EXPECT_EQ(desc(m.goroutines).type, MetricType::kGauge);
  EXPECT_EQ(desc(m.goroutines).labelNames, (std::vector<std::string>{"operation"}));

  const FamilySnapshot unschedulable = unschedulablePodsFamily({{"A", "p", 1}});
  EXPECT_EQ(unschedulable.desc.name, "scheduler_unschedulable_pods");
  EXPECT_EQ(unschedulable.desc.type, MetricType::kGauge);
  EXPECT_EQ(unschedulable.desc.labelNames, (std::vector<std::string>{"plugin", "profile"}));
  EXPECT_EQ(unschedulable.desc.help,
            "The number of unschedulable pods broken down by plugin name. A pod will increment "
            "the gauge for all plugins that caused it to not schedule and so this metric have "
            "meaning only when broken down by plugin.");
  const FamilySnapshot inflight = inflightEventsFamily({{"PodPopped", 1}});
  EXPECT_EQ(inflight.desc.name, "scheduler_inflight_events");
  EXPECT_EQ(inflight.desc.type, MetricType::kGauge);
  EXPECT_EQ(inflight.desc.labelNames, (std::vector<std::string>{"event"}));
  EXPECT_EQ(inflight.desc.help, "Number of events currently tracked in the scheduling queue.");
}

// A sharded counter sums what every thread added, each on its own shard.
TEST(SchedulerMetricsTest, ShardedCounterSumsEveryThread) {
  SchedulerMetrics m;
  ProfileMetrics p(m, "p");
  ShardedCounter& c = p.evaluations(MetricPoint::kFilter, "A");
  EXPECT_EQ(&c, &p.evaluations(MetricPoint::kFilter, "A"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        c.inc();
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_EQ(c.value(), 12000u);
  EXPECT_EQ(m.pluginEvaluations.with({"A", "Filter", "p"}).value(), 12000u);
}

TEST(SchedulerMetricsTest, StatusAndPointLabelsAreUpstreams) {
  EXPECT_EQ(statusLabel(SH_SUCCESS), "Success");
  EXPECT_EQ(statusLabel(SH_ERROR), "Error");
  EXPECT_EQ(statusLabel(SH_UNSCHEDULABLE), "Unschedulable");
  EXPECT_EQ(statusLabel(SH_UNSCHEDULABLE_AND_UNRESOLVABLE), "UnschedulableAndUnresolvable");
  EXPECT_EQ(statusLabel(SH_WAIT), "Wait");
  EXPECT_EQ(statusLabel(SH_SKIP), "Skip");
  EXPECT_EQ(statusLabel(SH_PENDING), "Pending");
  EXPECT_EQ(statusLabel(42), "Error");
  EXPECT_EQ(pointLabel(MetricPoint::kPreFilterExtensionAddPod), "PreFilterExtensionAddPod");
  EXPECT_EQ(pointLabel(MetricPoint::kScoreExtensionNormalize), "ScoreExtensionNormalize");
  EXPECT_EQ(pointLabel(MetricPoint::kPostBind), "PostBind");
  EXPECT_EQ(metricPoint(ExtensionPoint::kQueueSort), std::nullopt);
  EXPECT_EQ(metricPoint(ExtensionPoint::kPermit), MetricPoint::kPermit);
  EXPECT_EQ(SchedulerMetrics::attemptsLabel(1), "1");
  EXPECT_EQ(SchedulerMetrics::attemptsLabel(14), "14");
  EXPECT_EQ(SchedulerMetrics::attemptsLabel(15), "15+");
  EXPECT_EQ(SchedulerMetrics::attemptsLabel(40), "15+");
}

TEST(SchedulerMetricsTest, ProfileHandlesAreResolvedUpFrontPluginHandlesOnUse) {
  SchedulerMetrics m;
  ProfileMetrics p(m, "default-scheduler");
  // Every point x status of this profile exists before anything is observed.
  EXPECT_EQ(m.frameworkExtensionPointDuration.snapshot().children.size(),
            kMetricPointCount * kStatusLabelCount);
  p.observePoint(MetricPoint::kReserve, SH_UNSCHEDULABLE, 0.002);
  EXPECT_EQ(
      m.frameworkExtensionPointDuration.with({"Reserve", "Unschedulable", "default-scheduler"})
          .count(),
      1u);
  p.observePoint(MetricPoint::kPreEnqueue, SH_SUCCESS, 0.001, "other");
  EXPECT_EQ(m.frameworkExtensionPointDuration.with({"PreEnqueue", "Success", "other"}).count(), 1u);

  PluginMetrics& a = p.plugin("A");
  EXPECT_EQ(&a, &p.plugin("A"));
  EXPECT_TRUE(m.pluginExecutionDuration.snapshot().children.empty());
  a.observe(MetricPoint::kFilter, SH_UNSCHEDULABLE, 1e-6);
  a.observe(MetricPoint::kFilter, SH_UNSCHEDULABLE, 1e-6);
  a.observe(MetricPoint::kScoreExtensionNormalize, 99, 1e-6);  // invalid: Error
  EXPECT_EQ(m.pluginExecutionDuration.with({"A", "Filter", "Unschedulable"}).count(), 2u);
  EXPECT_EQ(m.pluginExecutionDuration.with({"A", "ScoreExtensionNormalize", "Error"}).count(), 1u);
  EXPECT_EQ(m.pluginExecutionDuration.snapshot().children.size(), 2u);
}

// A whole exposition after some of everything, read back by the strict parser.
TEST(SchedulerMetricsTest, FullExpositionParsesAndHistogramsAreWellFormed) {
  SchedulerMetrics m;
  ProfileMetrics p(m, "default-scheduler");
  m.scheduleAttempts.with({kResultScheduled, "default-scheduler"}).inc(3);
  m.scheduleAttempts.with({kResultUnschedulable, "default-scheduler"}).inc();
  m.schedulingAttemptDuration.with({kResultScheduled, "default-scheduler"}).observe(0.003);
  m.preemptionAttempts.only().inc();
  m.preemptionVictims.only().observe(3);
  p.observePoint(MetricPoint::kPreFilter, SH_SUCCESS, 0.00015);
  p.observePoint(MetricPoint::kFilter, SH_UNSCHEDULABLE, 0.5);  // past the last bucket
  p.plugin("Weird \"name\"\\").observe(MetricPoint::kScore, SH_SUCCESS, 2e-5);
  m.observePodScheduled(1, 0.05);
  m.observePodScheduled(20, 3);
  m.profileGeneration.only().set(4);
  m.reloads.with({"Applied"}).inc();
  m.reloads.with({"Rejected"}).inc(2);
  m.pluginLoadFailures.only().inc();
  m.pluginLibrariesResident.only().set(12);
  m.pluginSlowCalls.with({"Slow", "Filter"}).inc();
  m.schedulingAlgorithmDuration.only().observe(0.002);
  m.permitWaitDuration.with({"Success"}).observe(0.1);
  m.registry().addCollector([](std::vector<FamilySnapshot>& out) {
    out.push_back(pendingPodsFamily(5, 1, 2, 0));
    out.push_back(incomingPodsFamily({{"active", "PodAdd", 7}, {"backoff", "NodeAdd", 1}}));
    out.push_back(cacheSizeFamily(/*assumedPods=*/2, /*nodes=*/10, /*pods=*/30));
    out.push_back(unschedulablePodsFamily({{"NodeAffinity", "default-scheduler", 2}}));
    out.push_back(inflightEventsFamily({{"NodeAdd", 1}, {"PodPopped", 3}}));
  });
  m.goroutines.with({kOperationBinding}).set(4);
  p.evaluations(MetricPoint::kFilter, "NodeAffinity").inc(6);
  m.queueingHintDuration.with({"NodeAffinity", "NodeAdd", kHintQueueSkip}).observe(2e-5);
  m.eventHandlingDuration.with({"NodeAdd"}).observe(0.0003);
  m.preemptionGoroutinesDuration.with({std::string(kGoroutineSuccess)}).observe(0.05);
  m.preemptionGoroutinesExecutions.with({std::string(kGoroutineError)}).inc();

  const std::string text = m.render();
  std::vector<ParsedFamily> fams;
  ASSERT_NO_THROW(fams = parsePrometheusText(text)) << text;

  const std::map<std::string, std::string> expectedTypes = {
      // The process collector every registry has (process_metrics.h), from this process.
      {"process_cpu_seconds_total", "counter"},
      {"process_max_fds", "gauge"},
      {"process_open_fds", "gauge"},
      {"process_resident_memory_bytes", "gauge"},
      {"process_start_time_seconds", "gauge"},
      {"process_virtual_memory_bytes", "gauge"},
      {"schedhost_plugin_libraries_resident", "gauge"},
      {"schedhost_plugin_load_failures_total", "counter"},
      {"schedhost_plugin_slow_calls_total", "counter"},
      {"schedhost_profile_generation", "gauge"},
      {"schedhost_reloads_total", "counter"},
      {"scheduler_cache_size", "gauge"},
      {"scheduler_event_handling_duration_seconds", "histogram"},
      {"scheduler_framework_extension_point_duration_seconds", "histogram"},
      {"scheduler_goroutines", "gauge"},
      {"scheduler_inflight_events", "gauge"},
      {"scheduler_permit_wait_duration_seconds", "histogram"},
      {"scheduler_pending_pods", "gauge"},
      {"scheduler_plugin_evaluation_total", "counter"},
      {"scheduler_plugin_execution_duration_seconds", "histogram"},
      {"scheduler_pod_scheduling_attempts", "histogram"},
      {"scheduler_pod_scheduling_sli_duration_seconds", "histogram"},
      {"scheduler_preemption_attempts_total", "counter"},
      {"scheduler_preemption_goroutines_duration_seconds", "histogram"},
      {"scheduler_preemption_goroutines_execution_total", "counter"},
      {"scheduler_preemption_victims", "histogram"},
      {"scheduler_queue_incoming_pods_total", "counter"},
      {"scheduler_queueing_hint_execution_duration_seconds", "histogram"},
      {"scheduler_schedule_attempts_total", "counter"},
      {"scheduler_scheduling_algorithm_duration_seconds", "histogram"},
      {"scheduler_scheduling_attempt_duration_seconds", "histogram"},
      {"scheduler_unschedulable_pods", "gauge"},
  };
  std::map<std::string, std::string> types;
  std::string previous;
  for (const ParsedFamily& f : fams) {
    EXPECT_TRUE(f.hasHelp && !f.help.empty()) << f.name;
    EXPECT_FALSE(f.type.empty()) << f.name;
    EXPECT_LT(previous, f.name) << "families sorted by name";
    previous = f.name;
    types[f.name] = f.type;
    for (const ParsedSample& s : f.samples) {
      for (const auto& [name, value] : s.labels) {
        EXPECT_TRUE(validLabelName(name)) << name;
      }
    }
    if (f.type != "histogram") {
      continue;
    }
    // Per child (labels without le): buckets by increasing le, cumulative, +Inf == _count.
    std::map<std::vector<std::pair<std::string, std::string>>, std::vector<const ParsedSample*>>
        buckets;
    std::map<std::vector<std::pair<std::string, std::string>>, double> counts;
    std::set<std::vector<std::pair<std::string, std::string>>> sums;
    for (const ParsedSample& s : f.samples) {
      auto labels = s.labels;
      std::erase_if(labels, [](const auto& l) { return l.first == "le"; });
      if (s.name == f.name + "_bucket") {
        ASSERT_FALSE(s.label("le").empty()) << s.name;
        buckets[labels].push_back(&s);
      } else if (s.name == f.name + "_count") {
        counts[labels] = s.value;
      } else {
        sums.insert(labels);
      }
    }
    EXPECT_FALSE(buckets.empty()) << f.name;
    for (const auto& [labels, list] : buckets) {
      ASSERT_EQ(list.back()->label("le"), "+Inf") << f.name;
      for (std::size_t i = 1; i < list.size(); ++i) {
        EXPECT_LT(std::stod(list[i - 1]->label("le")), std::stod(list[i]->label("le")));
        EXPECT_LE(list[i - 1]->value, list[i]->value) << f.name;
      }
      ASSERT_EQ(counts.count(labels), 1u) << f.name;
      EXPECT_EQ(list.back()->value, counts[labels]) << f.name;
      EXPECT_EQ(sums.count(labels), 1u) << f.name;
    }
  }
  EXPECT_EQ(types, expectedTypes);

  // A few exact lines.
  EXPECT_NE(text.find("scheduler_schedule_attempts_total{result=\"scheduled\",profile=\""
                      "default-scheduler\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_framework_extension_point_duration_seconds_bucket{"
                      "extension_point=\"PreFilter\",status=\"Success\",profile=\""
                      "default-scheduler\",le=\"0.0002\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_framework_extension_point_duration_seconds_bucket{"
                      "extension_point=\"Filter\",status=\"Unschedulable\",profile=\""
                      "default-scheduler\",le=\"0.2048\"} 0\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_plugin_execution_duration_seconds_count{plugin=\"Weird "
                      "\\\"name\\\"\\\\\",extension_point=\"Score\",status=\"Success\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_pod_scheduling_sli_duration_seconds_count{attempts=\"15+\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_pending_pods{queue=\"active\"} 5\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_queue_incoming_pods_total{queue=\"active\",event=\"PodAdd\"} 7\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_preemption_attempts_total 1\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_cache_size{type=\"assumed_pods\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_cache_size{type=\"nodes\"} 10\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_cache_size{type=\"pods\"} 30\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_goroutines{operation=\"binding\"} 4\n"), std::string::npos);
  // ProfileMetrics creates the Score workers' gauge at 0.
  EXPECT_NE(text.find("scheduler_goroutines{operation=\"Score\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_plugin_evaluation_total{plugin=\"NodeAffinity\",extension_point="
                      "\"Filter\",profile=\"default-scheduler\"} 6\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_unschedulable_pods{plugin=\"NodeAffinity\",profile=\""
                      "default-scheduler\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_inflight_events{event=\"PodPopped\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("scheduler_queueing_hint_execution_duration_seconds_count{plugin=\""
                      "NodeAffinity\",event=\"NodeAdd\",hint=\"QueueSkip\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_event_handling_duration_seconds_bucket{event=\"NodeAdd\","
                      "le=\"0.0004\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_permit_wait_duration_seconds_bucket{result=\"Success\","
                      "le=\"0.128\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_scheduling_algorithm_duration_seconds_bucket{le=\"0.002\"} 1\n"),
            std::string::npos);
  // This test process: some CPU spent, its memory resident, its descriptors open.
  const auto value = [&](const std::string& name) {
    for (const ParsedFamily& f : fams) {
      if (f.name == name && f.samples.size() == 1) return f.samples[0].value;
    }
    return -1.0;
  };
  EXPECT_GT(value("process_resident_memory_bytes"), 0);
  EXPECT_GE(value("process_virtual_memory_bytes"), value("process_resident_memory_bytes"));
  EXPECT_GE(value("process_open_fds"), 3);  // stdin, stdout, stderr
  EXPECT_GE(value("process_max_fds"), value("process_open_fds"));
  EXPECT_GE(value("process_cpu_seconds_total"), 0);
  EXPECT_GT(value("process_start_time_seconds"), 1.7e9);  // after 2023-11
}

}  // namespace
}  // namespace sh::metrics::scheduler_metrics_test

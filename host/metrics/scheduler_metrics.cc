#include "host/metrics/scheduler_metrics.h"

#include "host/metrics/process_metrics.h"

namespace sh::metrics {

std::string_view pointLabel(MetricPoint point) {
  static constexpr std::array<std::string_view, kMetricPointCount> kLabels = {
      "PreEnqueue",
      "PreFilter",
      "PreFilterExtensionAddPod",
      "PreFilterExtensionRemovePod",
      "Filter",
      "PostFilter",
      "PreScore",
      "Score",
      "ScoreExtensionNormalize",
      "Reserve",
      "Unreserve",
      "Permit",
      "PreBind",
      "Bind",
      "PostBind",
  };
  return kLabels[static_cast<std::size_t>(point)];
}

std::optional<MetricPoint> metricPoint(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::kPreEnqueue:
      return MetricPoint::kPreEnqueue;
    case ExtensionPoint::kQueueSort:
      return std::nullopt;
    case ExtensionPoint::kPreFilter:
      return MetricPoint::kPreFilter;
    case ExtensionPoint::kFilter:
      return MetricPoint::kFilter;
    case ExtensionPoint::kPostFilter:
      return MetricPoint::kPostFilter;
    case ExtensionPoint::kPreScore:
      return MetricPoint::kPreScore;
    case ExtensionPoint::kScore:
      return MetricPoint::kScore;
    case ExtensionPoint::kReserve:
      return MetricPoint::kReserve;
    case ExtensionPoint::kPermit:
      return MetricPoint::kPermit;
    case ExtensionPoint::kPreBind:
      return MetricPoint::kPreBind;
    case ExtensionPoint::kBind:
      return MetricPoint::kBind;
    case ExtensionPoint::kPostBind:
      return MetricPoint::kPostBind;
  }
  return std::nullopt;
}

std::string_view statusLabel(int code) {
  static constexpr std::array<std::string_view, kStatusLabelCount> kLabels = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
      "Wait",    "Skip",  "Pending",
  };
  static_assert(SH_SUCCESS == 0 && SH_ERROR == 1 && SH_UNSCHEDULABLE == 2 &&
                SH_UNSCHEDULABLE_AND_UNRESOLVABLE == 3 && SH_WAIT == 4 && SH_SKIP == 5 &&
                SH_PENDING == 6 && SH_CODE_COUNT == 7);
  return kLabels[statusIndex(code)];
}

SchedulerMetrics::SchedulerMetrics()
    : scheduleAttempts(registry_.counter(
          "scheduler_schedule_attempts_total",
          "Scheduling attempts, by result (scheduled, unschedulable or error) and profile.",
          {"result", "profile"})),
      schedulingAttemptDuration(registry_.histogram(
          "scheduler_scheduling_attempt_duration_seconds",
          "Time from popping a pod to its scheduling decision (the scheduling cycle, binding "
          "not included), in seconds, by result and profile.",
          {"result", "profile"}, exponentialBuckets(0.001, 2, 15))),
      preemptionAttempts(registry_.counter("scheduler_preemption_attempts_total",
                                           "Preemption attempts made by the scheduler.")),
      preemptionVictims(registry_.histogram("scheduler_preemption_victims",
                                            "Pods chosen to be evicted by one preemption.", {},
                                            exponentialBuckets(1, 2, 7))),
      frameworkExtensionPointDuration(registry_.histogram(
          "scheduler_framework_extension_point_duration_seconds",
          "Time to run all the plugins of one extension point, in seconds, by extension point, "
          "final status and profile.",
          {"extension_point", "status", "profile"}, exponentialBuckets(0.0001, 2, 12))),
      pluginExecutionDuration(registry_.histogram(
          "scheduler_plugin_execution_duration_seconds",
          "Time one plugin took at one extension point, in seconds, by plugin, extension point "
          "and the status it returned; sampled in a fraction of the scheduling cycles.",
          {"plugin", "extension_point", "status"}, exponentialBuckets(0.00001, 1.5, 20))),
      schedulingAlgorithmDuration(registry_.histogram(
          "scheduler_scheduling_algorithm_duration_seconds",
          "Scheduling algorithm latency in seconds", {}, exponentialBuckets(0.001, 2, 15))),
      permitWaitDuration(registry_.histogram("scheduler_permit_wait_duration_seconds",
                                             "Duration of waiting on permit.", {"result"},
                                             exponentialBuckets(0.001, 2, 15))),
      podSchedulingSliDuration(registry_.histogram(
          "scheduler_pod_scheduling_sli_duration_seconds",
          "Time from a pod first entering the scheduling queue to its successful scheduling, "
          "in seconds, leaving out time spent gated, by the number of attempts it took.",
          {"attempts"}, exponentialBuckets(0.01, 2, 20))),
      podSchedulingAttempts(
          registry_.histogram("scheduler_pod_scheduling_attempts",
                              "Scheduling attempts a pod needed before it was scheduled.", {},
                              exponentialBuckets(1, 2, 5))),
      profileGeneration(registry_.gauge(
          "schedhost_profile_generation",
          "Generation of the profile set the scheduler runs; a successful reload raises it.")),
      reloads(registry_.counter("schedhost_reloads_total",
                                "Configuration reloads, by result (Applied or Rejected).",
                                {"result"})),
      pluginLoadFailures(registry_.counter(
          "schedhost_plugin_load_failures_total",
          "Plugin libraries that could not be loaded or were refused by the checks.")),
      pluginLibrariesResident(registry_.gauge("schedhost_plugin_libraries_resident",
                                              "Plugin libraries currently loaded in the process.")),
      pluginSlowCalls(registry_.counter(
          "schedhost_plugin_slow_calls_total",
          "Plugin calls that ran longer than [plugins] callWarningSeconds, by plugin and "
          "extension point.",
          {"plugin", "extension_point"})),
      pluginEvaluations(registry_.shardedCounter(
          "scheduler_plugin_evaluation_total",
          "Number of attempts to schedule pods by each plugin and the extension point (available "
          "only in PreFilter, Filter, PreScore, and Score).",
          {"plugin", "extension_point", "profile"})),
      queueingHintDuration(
          registry_.histogram("scheduler_queueing_hint_execution_duration_seconds",
                              "Duration for running a queueing hint function of a plugin.",
                              {"plugin", "event", "hint"}, exponentialBuckets(0.00001, 1.5, 20))),
      eventHandlingDuration(registry_.histogram("scheduler_event_handling_duration_seconds",
                                                "Event handling latency in seconds.", {"event"},
                                                exponentialBuckets(0.0001, 2, 12))),
      preemptionGoroutinesDuration(
          registry_.histogram("scheduler_preemption_goroutines_duration_seconds",
                              "Duration in seconds for running goroutines for the preemption.",
                              {"result"}, exponentialBuckets(0.01, 2, 20))),
      preemptionGoroutinesExecutions(
          registry_.counter("scheduler_preemption_goroutines_execution_total",
                            "Number of preemption goroutines executed.", {"result"})),
      goroutines(
          registry_.gauge("scheduler_goroutines",
                          "Number of running goroutines split by the work they do such as binding.",
                          {"operation"})) {
  // The Parallelizer's operations show at 0 before their first call.
  goroutines.with({kOperationFilter});
  goroutines.with({kOperationScore});
  registry_.addCollector([](std::vector<FamilySnapshot>& out) {
    for (FamilySnapshot& f : processFamilies()) {
      out.push_back(std::move(f));
    }
  });
}

std::string SchedulerMetrics::attemptsLabel(uint64_t attempts) {
  // upstream metrics.go: PodSchedulingSLIDuration, attempts capped at "15+".
  if (attempts >= 15) {
    return "15+";
  }
  return std::to_string(attempts);
}

void SchedulerMetrics::observePodScheduled(uint64_t attempts, double seconds) {
  podSchedulingSliDuration.with({attemptsLabel(attempts)}).observe(seconds);
  podSchedulingAttempts.only().observe(static_cast<double>(attempts));
}

FamilySnapshot pendingPodsFamily(uint64_t active, uint64_t backoff, uint64_t unschedulable,
                                 uint64_t gated) {
  FamilySnapshot f;
  f.desc = {"scheduler_pending_pods",
            "Pods waiting in the scheduling queue, by sub-queue: active, backoff, "
            "unschedulable, and gated (held by a PreEnqueue plugin).",
            MetricType::kGauge,
            {"queue"}};
  auto add = [&](std::string queue, uint64_t n) {
    ChildSnapshot c;
    c.labelValues = {std::move(queue)};
    c.value = static_cast<double>(n);
    f.children.push_back(std::move(c));
  };
  add("active", active);
  add("backoff", backoff);
  add("gated", gated);
  add("unschedulable", unschedulable);
  return f;
}

FamilySnapshot incomingPodsFamily(const std::vector<IncomingPods>& counts) {
  FamilySnapshot f;
  f.desc = {"scheduler_queue_incoming_pods_total",
            "Pods added to a sub-queue of the scheduling queue, by sub-queue and the event "
            "that moved them.",
            MetricType::kCounter,
            {"queue", "event"}};
  for (const IncomingPods& c : counts) {
    ChildSnapshot child;
    child.labelValues = {c.queue, c.event};
    child.value = static_cast<double>(c.count);
    f.children.push_back(std::move(child));
  }
  return f;
}

FamilySnapshot cacheSizeFamily(uint64_t assumedPods, uint64_t nodes, uint64_t pods) {
  FamilySnapshot f;
  f.desc = {"scheduler_cache_size",
            "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
            MetricType::kGauge,
            {"type"}};
  for (const auto& [type, n] : {std::pair{"assumed_pods", assumedPods}, std::pair{"nodes", nodes},
                                std::pair{"pods", pods}}) {
    ChildSnapshot c;
    c.labelValues = {type};
    c.value = static_cast<double>(n);
    f.children.push_back(std::move(c));
  }
  return f;
}

FamilySnapshot unschedulablePodsFamily(const std::vector<UnschedulableByPlugin>& counts) {
  FamilySnapshot f;
  f.desc = {"scheduler_unschedulable_pods",
            "The number of unschedulable pods broken down by plugin name. A pod will increment "
            "the gauge for all plugins that caused it to not schedule and so this metric have "
            "meaning only when broken down by plugin.",
            MetricType::kGauge,
            {"plugin", "profile"}};
  for (const UnschedulableByPlugin& c : counts) {
    ChildSnapshot child;
    child.labelValues = {c.plugin, c.profile};
    child.value = static_cast<double>(c.pods);
    f.children.push_back(std::move(child));
  }
  return f;
}

FamilySnapshot inflightEventsFamily(const std::vector<std::pair<std::string, int64_t>>& counts) {
  FamilySnapshot f;
  f.desc = {"scheduler_inflight_events",
            "Number of events currently tracked in the scheduling queue.",
            MetricType::kGauge,
            {"event"}};
  for (const auto& [event, n] : counts) {
    ChildSnapshot child;
    child.labelValues = {event};
    child.value = static_cast<double>(n);
    f.children.push_back(std::move(child));
  }
  return f;
}

Histogram& PluginMetrics::resolve(MetricPoint point, std::size_t status) {
  Histogram& h = family_.with(
      {std::string_view(plugin_), pointLabel(point), statusLabel(static_cast<int>(status))});
  // Every thread resolves the same child; the store publishes it for the next calls.
  handles_[static_cast<std::size_t>(point)][status].store(&h, std::memory_order_release);
  return h;
}

ProfileMetrics::ProfileMetrics(SchedulerMetrics& metrics, std::string profile)
    : metrics_(metrics), profile_(std::move(profile)) {
  for (std::size_t p = 0; p < kMetricPointCount; ++p) {
    for (std::size_t c = 0; c < kStatusLabelCount; ++c) {
      points_[p][c] = &metrics_.frameworkExtensionPointDuration.with(
          {pointLabel(static_cast<MetricPoint>(p)), statusLabel(static_cast<int>(c)),
           std::string_view(profile_)});
    }
  }
}

ShardedCounter& ProfileMetrics::evaluations(MetricPoint point, std::string_view plugin) const {
  return metrics_.pluginEvaluations.with({plugin, pointLabel(point), std::string_view(profile_)});
}

void ProfileMetrics::observePoint(MetricPoint point, int code, double seconds,
                                  std::string_view profile) const {
  if (profile == profile_) {
    observePoint(point, code, seconds);
    return;
  }
  metrics_.frameworkExtensionPointDuration.with({pointLabel(point), statusLabel(code), profile})
      .observe(seconds);
}

PluginMetrics& ProfileMetrics::plugin(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plugins_.find(name);
  if (it == plugins_.end()) {
    it = plugins_
             .emplace(name, std::make_unique<PluginMetrics>(metrics_.pluginExecutionDuration, name))
             .first;
  }
  return *it->second;
}

}  // namespace sh::metrics

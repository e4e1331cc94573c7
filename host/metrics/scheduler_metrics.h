// The scheduler's metrics, with upstream kube-scheduler's names, labels, types and buckets
// (upstream pkg/scheduler/metrics/metrics.go), and the per-profile handles the framework
// records through.
//
//   SchedulerMetrics   one per process: owns the Registry and every family
//   ProfileMetrics     one per profile (framework): the extension-point histograms of that
//                      profile resolved up front, indexed by (point, status code); the plugin
//                      histograms through PluginMetrics; the plugin evaluation counters and the
//                      Score workers' gauge
//   PluginMetrics      one per (profile, plugin): scheduler_plugin_execution_duration_seconds
//                      children resolved lazily, on a plugin's first call at a (point, code),
//                      and cached in atomics, so steady state takes no lock and creates no
//                      child a plugin never reported (upstream creates them on first use too)
//
// Families filled at scrape time (scheduler_pending_pods, scheduler_queue_incoming_pods_total,
// scheduler_unschedulable_pods, scheduler_inflight_events, scheduler_cache_size) have their
// names and help here; a higher layer builds them from the queue and the cache with
// pendingPodsFamily() and the like. The process
// families (process_metrics.h) are a collector of the registry.
#pragma once

#include <schedhost/plugin.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/common/extension_point.h"
#include "host/metrics/metric.h"
#include "host/metrics/registry.h"

namespace sh::metrics {

// The extension_point label values (upstream metrics.go: PreFilter, Filter, ... and
// framework/runtime/framework.go's preFilterExtensionAddPod etc.).
enum class MetricPoint {
  kPreEnqueue,
  kPreFilter,
  kPreFilterExtensionAddPod,
  kPreFilterExtensionRemovePod,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kScoreExtensionNormalize,
  kReserve,
  kUnreserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
};
inline constexpr std::size_t kMetricPointCount = 15;

std::string_view pointLabel(MetricPoint point);
// The label of an extension point; nullopt for QueueSort, which upstream does not time.
std::optional<MetricPoint> metricPoint(ExtensionPoint point);

// The status label values: upstream framework/interface.go Code.String() of our codes.
inline constexpr std::size_t kStatusLabelCount = SH_CODE_COUNT;
// "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip",
// "Pending"; an out-of-range code reads as "Error".
std::string_view statusLabel(int code);
// The index statusLabel() uses: code itself, or SH_ERROR's when out of range.
inline std::size_t statusIndex(int code) {
  return code >= 0 && code < SH_CODE_COUNT ? static_cast<std::size_t>(code)
                                           : static_cast<std::size_t>(SH_ERROR);
}

// scheduler_queueing_hint_execution_duration_seconds' hint label values (upstream
// metrics.QueueingHintResult*).
inline constexpr std::string_view kHintQueue = "Queue";
inline constexpr std::string_view kHintQueueSkip = "QueueSkip";
inline constexpr std::string_view kHintError = "Error";

// scheduler_goroutines' operation label values (upstream metrics.Binding and the
// Parallelizer's operations).
inline constexpr std::string_view kOperationBinding = "binding";
inline constexpr std::string_view kOperationScore = "Score";
inline constexpr std::string_view kOperationFilter = "Filter";
inline constexpr std::string_view kOperationPrioritizingExtender = "prioritizing_extender";

// scheduler_schedule_attempts_total's result label values.
inline constexpr std::string_view kResultScheduled = "scheduled";
inline constexpr std::string_view kResultUnschedulable = "unschedulable";
inline constexpr std::string_view kResultError = "error";
// scheduler_preemption_goroutines_*'s result label values (upstream metrics.GoroutineResult*).
inline constexpr std::string_view kGoroutineSuccess = "success";
inline constexpr std::string_view kGoroutineError = "error";

class SchedulerMetrics {
  // First, so the families below are created in it.
  Registry registry_;

 public:
  SchedulerMetrics();
  SchedulerMetrics(const SchedulerMetrics&) = delete;
  SchedulerMetrics& operator=(const SchedulerMetrics&) = delete;

  Registry& registry() { return registry_; }
  const Registry& registry() const { return registry_; }
  std::string render() const { return registry_.render(); }

  // {result, profile}
  CounterFamily& scheduleAttempts;
  // {result, profile}, exponentialBuckets(0.001, 2, 15)
  HistogramFamily& schedulingAttemptDuration;
  CounterFamily& preemptionAttempts;
  // exponentialBuckets(1, 2, 7)
  HistogramFamily& preemptionVictims;
  // {extension_point, status, profile}, exponentialBuckets(0.0001, 2, 12)
  HistogramFamily& frameworkExtensionPointDuration;
  // {plugin, extension_point, status}, exponentialBuckets(0.00001, 1.5, 20)
  HistogramFamily& pluginExecutionDuration;
  // exponentialBuckets(0.001, 2, 15): from popping a pod to a successful SchedulePod (its
  // filtering and scoring), as upstream's SchedulingAlgorithmLatency.
  HistogramFamily& schedulingAlgorithmDuration;
  // {result}: the final status code's name, exponentialBuckets(0.001, 2, 15): how long a pod
  // waited on Permit.
  HistogramFamily& permitWaitDuration;
  // {attempts}, exponentialBuckets(0.01, 2, 20)
  HistogramFamily& podSchedulingSliDuration;
  // exponentialBuckets(1, 2, 5)
  HistogramFamily& podSchedulingAttempts;
  GaugeFamily& profileGeneration;
  // {result}: Applied | Rejected
  CounterFamily& reloads;
  CounterFamily& pluginLoadFailures;
  GaugeFamily& pluginLibrariesResident;
  // {plugin, extension_point}: calls the watchdog reported for running longer than
  // [plugins] callWarningSeconds (framework/plugin_call.h).
  CounterFamily& pluginSlowCalls;
  // {plugin, extension_point, profile}: plugin calls at PreFilter, Filter, PreScore and Score
  // (PreFilter and PreScore calls that returned Skip not counted), as upstream's instrumented
  // plugins (framework/runtime/instrumented_plugins.go). Sharded: Filter and Score count from
  // every worker, once per plugin and node.
  ShardedCounterFamily& pluginEvaluations;
  // {plugin, event, hint}, exponentialBuckets(0.00001, 1.5, 20): one plugin's queueing hint
  // for one event (queue/scheduling_queue.cc).
  HistogramFamily& queueingHintDuration;
  // {event}, exponentialBuckets(0.0001, 2, 12): one cluster event's handling, from the
  // informer change to the queue having moved its pods (cycle/scheduler.cc).
  HistogramFamily& eventHandlingDuration;
  // {result}: success | error, exponentialBuckets(0.01, 2, 20): one asynchronous preemption,
  // from its start to its last eviction (cycle/preemption.cc).
  HistogramFamily& preemptionGoroutinesDuration;
  // {result}: success | error.
  CounterFamily& preemptionGoroutinesExecutions;
  // {operation}: threads at work per operation. "binding" is set at scrape time from the
  // binding cycles running; "Score" is live (Framework::runScore's workers).
  GaugeFamily& goroutines;

  // The attempts label of scheduler_pod_scheduling_sli_duration_seconds: "1".."14", "15+".
  static std::string attemptsLabel(uint64_t attempts);
  // Records a pod's end-to-end scheduling duration under its attempt count.
  void observePodScheduled(uint64_t attempts, double seconds);
};

// scheduler_pending_pods {queue}: active, backoff, unschedulable, gated.
FamilySnapshot pendingPodsFamily(uint64_t active, uint64_t backoff, uint64_t unschedulable,
                                 uint64_t gated);
// scheduler_queue_incoming_pods_total {queue, event}.
struct IncomingPods {
  std::string queue;
  std::string event;
  uint64_t count = 0;
};
FamilySnapshot incomingPodsFamily(const std::vector<IncomingPods>& counts);

// scheduler_cache_size {type}: assumed_pods, nodes, pods (upstream counts the cache's ghost
// node entries too).
FamilySnapshot cacheSizeFamily(uint64_t assumedPods, uint64_t nodes, uint64_t pods);
// scheduler_unschedulable_pods {plugin, profile}: the queue's pods rejected by each plugin.
struct UnschedulableByPlugin {
  std::string plugin;
  std::string profile;
  int64_t pods = 0;
};
FamilySnapshot unschedulablePodsFamily(const std::vector<UnschedulableByPlugin>& counts);
// scheduler_inflight_events {event}: the events the queue keeps for the pods in flight, and
// the popped pods themselves ("PodPopped").
FamilySnapshot inflightEventsFamily(const std::vector<std::pair<std::string, int64_t>>& counts);

// One plugin's execution-duration histograms: (point, status) -> child, resolved on first use.
class PluginMetrics {
 public:
  PluginMetrics(HistogramFamily& family, std::string plugin)
      : family_(family), plugin_(std::move(plugin)) {}
  PluginMetrics(const PluginMetrics&) = delete;
  PluginMetrics& operator=(const PluginMetrics&) = delete;

  const std::string& plugin() const { return plugin_; }
  // `code` as the plugin returned it (out of range counts as Error).
  void observe(MetricPoint point, int code, double seconds) {
    Histogram* h = handles_[static_cast<std::size_t>(point)][statusIndex(code)].load(
        std::memory_order_acquire);
    if (h == nullptr) {
      h = &resolve(point, statusIndex(code));
    }
    h->observe(seconds);
  }

 private:
  Histogram& resolve(MetricPoint point, std::size_t status);
  HistogramFamily& family_;
  std::string plugin_;
  std::array<std::array<std::atomic<Histogram*>, kStatusLabelCount>, kMetricPointCount> handles_{};
};

// One profile's handles. Thread-safe; shared by the profile's framework(s).
class ProfileMetrics {
 public:
  ProfileMetrics(SchedulerMetrics& metrics, std::string profile);
  ProfileMetrics(const ProfileMetrics&) = delete;
  ProfileMetrics& operator=(const ProfileMetrics&) = delete;

  const std::string& profile() const { return profile_; }
  SchedulerMetrics& scheduler() const { return metrics_; }

  // scheduler_framework_extension_point_duration_seconds{point, status, this profile}.
  void observePoint(MetricPoint point, int code, double seconds) const {
    points_[static_cast<std::size_t>(point)][statusIndex(code)]->observe(seconds);
  }
  // The same for another profile name (PreEnqueue labels by the pod's schedulerName).
  void observePoint(MetricPoint point, int code, double seconds, std::string_view profile) const;

  // The plugin's handles, created on first request and stable for this object's life.
  PluginMetrics& plugin(const std::string& name);
  // scheduler_plugin_evaluation_total{plugin, point, this profile}; stable for the
  // SchedulerMetrics' life. For PreFilter, Filter, PreScore and Score.
  ShardedCounter& evaluations(MetricPoint point, std::string_view plugin) const;

 private:
  SchedulerMetrics& metrics_;
  std::string profile_;
  std::array<std::array<Histogram*, kStatusLabelCount>, kMetricPointCount> points_{};
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<PluginMetrics>, std::less<>> plugins_;
};

}  // namespace sh::metrics

#include "host/framework/framework.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <sstream>
#include <unordered_set>

#include "host/common/quoted.h"
#include "host/framework/plugin_call.h"

namespace sh {
namespace {

constexpr int64_t kMaxPermitTimeoutMs = 15 * 60 * 1000;

// Calls fn with the plugin's serializer held when it asked for one, the thread marked as
// running the plugin at `point` (plugin_call.h).
template <typename Fn>
auto callPlugin(const PluginInstance& p, const char* point, Fn&& fn) {
  if (std::mutex* m = p.serializer()) {
    std::lock_guard<std::mutex> lock(*m);
    PluginCallScope scope(p, p.stableName(), point);
    return fn();
  }
  PluginCallScope scope(p, p.stableName(), point);
  return fn();
}

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// callPlugin, timed into the plugin's execution-duration histogram under the code it returned.
template <typename Fn>
auto callPluginTimed(const PluginInstance& p, const char* point, metrics::PluginMetrics& m,
                     metrics::MetricPoint metricPoint, Fn&& fn) {
  const Clock::time_point start = Clock::now();
  auto code = callPlugin(p, point, fn);
  m.observe(metricPoint, static_cast<int>(code), secondsSince(start));
  return code;
}

// Filter and Score run once per node: in a sampled cycle, their plugin calls are timed on one
// node evaluation in kPerNodeTimingStride (counted per thread, so no worker waits on another).
// Upstream times every call of a sampled cycle; here a plugin call costs tens of nanoseconds,
// so timing every one of them (two clock reads and a histogram update each) would slow
// SchedulingBasic by about 15 %, while one in sixteen keeps the same distribution at about 1 %.
constexpr uint32_t kPerNodeTimingStride = 16;
bool timeThisNode() {
  thread_local uint32_t evaluations = 0;
  return ++evaluations % kPerNodeTimingStride == 0;
}

// Runs one extension point; with metrics, records its duration under the final status.
template <typename Fn>
Status timedPoint(const metrics::ProfileMetrics* m, metrics::MetricPoint point, Fn&& fn) {
  if (m == nullptr) {
    return fn();
  }
  const Clock::time_point start = Clock::now();
  Status s = fn();
  m->observePoint(point, s.code(), secondsSince(start));
  return s;
}

// The status a plugin writes into on the per-node hot paths: one per thread, reused, so a
// successful call allocates and frees nothing. Plugins never call back into the framework,
// so one call at a time uses it.
sh_status& scratchStatus() {
  thread_local sh_status raw;
  raw.status.mutableReasons().clear();
  return raw;
}

// Makes `s`, a status the point does not accept as it is, an error: prefix + its message, as
// upstream wraps the plugin's error (framework/runtime/framework.go, RunFilterPlugins:
// `running %q filter plugin: %w`). A status without a reason (Wait or Skip where they mean
// nothing, an Error without one) gets its code as the cause, never an empty message.
void wrapAsError(Status& s, std::string_view prefix) {
  if (s.reasons().empty()) {
    s.addReason(s.code() == SH_ERROR ? std::string("returned Error without a reason")
                                     : "unexpected status code " + std::string(codeName(s.code())));
  }
  s.wrap(prefix);
  s.setCode(SH_ERROR);
}

// Go's %v of a sorted string slice: [A B].
std::string goList(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      out += " ";
    }
    out += names[i];
  }
  return out + "]";
}

}  // namespace

Status checkedStatus(const PluginInstance& plugin, int code, sh_status& raw) {
  if (code < 0 || code >= SH_CODE_COUNT) {
    const_cast<PluginInstance&>(plugin).countFailure();
    Status s(SH_ERROR, "plugin " + quoted(plugin.name()) + " returned an invalid status code " +
                           std::to_string(code));
    s.setPlugin(plugin.name());
    return s;
  }
  Status s = std::move(raw.status);
  s.setCode(static_cast<sh_code>(code));
  if (s.code() == SH_ERROR) {
    const_cast<PluginInstance&>(plugin).countFailure();
  }
  return s;
}

namespace {
// The plugins unhonouredDependency looks for (upstream's names).
constexpr std::string_view kVolumeBinding = "VolumeBinding";
constexpr std::string_view kDynamicResources = "DynamicResources";
}  // namespace

Framework::Framework(Config config) : config_(std::move(config)) {
  auto& weights = config_.scoreWeights;
  weights.resize(plugins(ExtensionPoint::kScore).size(), 1);
  for (int64_t& w : weights) {
    if (w <= 0) {
      w = 1;
    }
  }
  for (const PluginPtr& p : plugins(ExtensionPoint::kFilter)) {
    bindsVolumes_ = bindsVolumes_ || p->name() == kVolumeBinding;
    allocatesClaims_ = allocatesClaims_ || p->name() == kDynamicResources;
  }
  if (!config_.refuseUnhonoured) {
    bindsVolumes_ = allocatesClaims_ = true;
  }
  if (config_.metrics != nullptr) {
    for (std::size_t p = 0; p < kExtensionPointCount; ++p) {
      for (const PluginPtr& plugin : config_.plugins[p]) {
        pluginMetrics_[p].push_back(&config_.metrics->plugin(plugin->name()));
      }
    }
    // Created up front, as upstream's setInstrumentedPlugins does: every plugin of these points
    // shows, at 0 until its first call.
    for (ExtensionPoint point : {ExtensionPoint::kPreFilter, ExtensionPoint::kFilter,
                                 ExtensionPoint::kPreScore, ExtensionPoint::kScore}) {
      const metrics::MetricPoint label = *metrics::metricPoint(point);
      for (const PluginPtr& plugin : plugins(point)) {
        evaluations_[indexOf(point)].push_back(
            &config_.metrics->evaluations(label, plugin->name()));
      }
    }
  }
}

void Framework::observeExtensionPoint(ExtensionPoint point, const Status& status,
                                      double seconds) const {
  if (config_.metrics == nullptr) {
    return;
  }
  if (std::optional<metrics::MetricPoint> mp = metrics::metricPoint(point)) {
    config_.metrics->observePoint(*mp, status.code(), seconds);
  }
}

std::vector<PluginPtr> Framework::allPlugins() const {
  std::vector<PluginPtr> out;
  std::unordered_set<const PluginInstance*> seen;
  for (const auto& list : config_.plugins) {
    for (const PluginPtr& p : list) {
      if (seen.insert(p.get()).second) {
        out.push_back(p);
      }
    }
  }
  return out;
}

Status Framework::runPreEnqueue(const sh_pod& pod) const {
  // Labelled with the pod's schedulerName, as upstream (framework/runtime/framework.go:
  // RunPreEnqueuePlugins). Its plugins are not timed one by one: there is no cycle to sample.
  const Clock::time_point start = config_.metrics != nullptr ? Clock::now() : Clock::time_point();
  Status s;
  for (const PluginPtr& p : plugins(ExtensionPoint::kPreEnqueue)) {
    sh_status raw;
    int code = callPlugin(*p, call_point::kPreEnqueue,
                          [&] { return p->vtable().pre_enqueue(p->self(), &pod, &raw); });
    s = checkedStatus(*p, code, raw);
    if (!s.ok()) {
      s.setPlugin(p->name());
      break;
    }
  }
  if (config_.metrics != nullptr) {
    config_.metrics->observePoint(metrics::MetricPoint::kPreEnqueue, s.code(), secondsSince(start),
                                  std::string_view(pod.scheduler_name.ptr, pod.scheduler_name.len));
  }
  return s;
}

bool Framework::queueSortLess(const sh_queued_pod& a, const sh_queued_pod& b) const {
  const auto& qs = plugins(ExtensionPoint::kQueueSort);
  if (qs.empty()) {
    return false;
  }
  const PluginPtr& p = qs.front();
  return callPlugin(*p, call_point::kQueueSort,
                    [&] { return p->vtable().queue_sort_less(p->self(), &a, &b); }) != 0;
}

Status Framework::unhonouredDependency(const sh_pod& pod) const {
  const std::string profile = sh::quoted(config_.profileName);
  if (!bindsVolumes_) {
    for (uint32_t i = 0; i < pod.volume_count; ++i) {
      const sh_volume& v = pod.volumes[i];
      std::string what;
      if (v.source == SH_VOLUME_PVC) {
        what = "PersistentVolumeClaim " + sh::quoted(std::string_view(v.claim.ptr, v.claim.len)) +
               " (volume " + sh::quoted(std::string_view(v.name.ptr, v.name.len)) + ")";
      } else if (v.source == SH_VOLUME_EPHEMERAL) {
        what = "generic ephemeral volume " + sh::quoted(std::string_view(v.name.ptr, v.name.len));
      } else {
        continue;
      }
      Status s(SH_UNSCHEDULABLE_AND_UNRESOLVABLE,
               "pod uses " + what + " but profile " + profile + " has no " +
                   std::string(kVolumeBinding) +
                   " plugin: its claim would be neither bound nor provisioned, and its volume's "
                   "node affinity would be ignored");
      s.setPlugin(std::string(kVolumeBinding));
      return s;
    }
  }
  if (!allocatesClaims_ && pod.resource_claim_count > 0) {
    Status s(SH_UNSCHEDULABLE_AND_UNRESOLVABLE,
             "pod has spec.resourceClaims but profile " + profile + " has no " +
                 std::string(kDynamicResources) +
                 " plugin: its devices would not be allocated (schedhost does not provide "
                 "DynamicResources yet)");
    s.setPlugin(std::string(kDynamicResources));
    return s;
  }
  return Status();
}

Status Framework::preFilterImpl(CycleState& cycle, const sh_pod& pod, PreFilterOutcome& outcome,
                                std::vector<PluginTrace>* trace) const {
  if (Status refused = unhonouredDependency(pod); !refused.ok()) {
    outcome = PreFilterOutcome();
    if (trace != nullptr) {
      trace->push_back(PluginTrace{refused.plugin(), refused, {}});
    }
    return refused;
  }
  const auto& list = plugins(ExtensionPoint::kPreFilter);
  const bool timePlugins = timesPlugins(cycle);
  const auto& preFilterEvaluations = evaluations_[indexOf(ExtensionPoint::kPreFilter)];
  outcome = PreFilterOutcome();
  std::set<std::string> merged;
  Status returnStatus;
  std::set<std::string> skipped;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    sh_prefilter_result result;
    sh_status raw;
    auto call = [&] { return p->vtable().pre_filter(p->self(), &cycle, &pod, &result, &raw); };
    int code = timePlugins ? callPluginTimed(*p, call_point::kPreFilter,
                                             pluginMetrics(ExtensionPoint::kPreFilter, i),
                                             metrics::MetricPoint::kPreFilter, call)
                           : callPlugin(*p, call_point::kPreFilter, call);
    Status s = checkedStatus(*p, code, raw);
    if (!s.isSkip() && !preFilterEvaluations.empty()) {
      preFilterEvaluations[i]->inc();
    }
    if (trace != nullptr) {
      PluginTrace t{p->name(), s, {}};
      if (s.ok() && result.restricted) {
        t.nodeNames = result.nodes;
        std::sort(t.nodeNames.begin(), t.nodeNames.end());
      }
      trace->push_back(std::move(t));
    }
    if (s.isSkip()) {
      skipped.insert(p->name());
      continue;
    }
    if (!s.ok()) {
      s.setPlugin(p->name());
      if (s.code() == SH_UNSCHEDULABLE_AND_UNRESOLVABLE) {
        outcome.restrictingPlugins.clear();  // the plugin alone is to blame
        return s;
      }
      if (s.code() == SH_UNSCHEDULABLE) {
        returnStatus = std::move(s);
        continue;
      }
      wrapAsError(s, "running PreFilter plugin " + quoted(p->name()) + ": ");
      outcome.restrictingPlugins.clear();
      return s;
    }
    if (!result.restricted) {
      continue;
    }
    std::set<std::string> names(result.nodes.begin(), result.nodes.end());
    if (!outcome.restricted) {
      merged = std::move(names);
      outcome.restricted = true;
    } else {
      std::set<std::string> both;
      std::set_intersection(merged.begin(), merged.end(), names.begin(), names.end(),
                            std::inserter(both, both.end()));
      merged = std::move(both);
    }
    outcome.restrictingPlugins.push_back(p->name());
    if (merged.empty()) {
      std::string msg = outcome.restrictingPlugins.size() == 1
                            ? "node(s) didn't satisfy plugin " + outcome.restrictingPlugins[0]
                            : "node(s) didn't satisfy plugin(s) " +
                                  goList(outcome.restrictingPlugins) + " simultaneously";
      // No plugin of its own: the rejectors are every restricting plugin
      // (outcome.restrictingPlugins), as upstream RunPreFilterPlugins returns them.
      return Status(SH_UNSCHEDULABLE_AND_UNRESOLVABLE, msg);
    }
  }
  outcome.nodeNames.assign(merged.begin(), merged.end());

  cycle.skipFilterPlugins = skipped;
  const auto& filters = plugins(ExtensionPoint::kFilter);
  cycle.skipFilterMask.assign(filters.size(), 0);
  for (std::size_t i = 0; i < filters.size(); ++i) {
    cycle.skipFilterMask[i] = skipped.count(filters[i]->name()) != 0 ? 1 : 0;
  }
  return returnStatus;
}

Status Framework::preFilterAddPodImpl(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                                      const sh_node_info& node) const {
  const auto& list = plugins(ExtensionPoint::kPreFilter);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    if (p->vtable().pre_filter_add_pod == nullptr || cycle.skipFilterPlugins.count(p->name())) {
      continue;
    }
    sh_status raw;
    auto call = [&] {
      return p->vtable().pre_filter_add_pod(p->self(), &cycle, &pod, &other, &node, &raw);
    };
    int code = timePlugins ? callPluginTimed(*p, call_point::kPreFilterAddPod,
                                             pluginMetrics(ExtensionPoint::kPreFilter, i),
                                             metrics::MetricPoint::kPreFilterExtensionAddPod, call)
                           : callPlugin(*p, call_point::kPreFilterAddPod, call);
    Status s = checkedStatus(*p, code, raw);
    if (!s.ok()) {
      wrapAsError(s, "running AddPod on PreFilter plugin " + quoted(p->name()) + ": ");
      return s;
    }
  }
  return Status();
}

Status Framework::preFilterRemovePodImpl(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                                         const sh_node_info& node) const {
  const auto& list = plugins(ExtensionPoint::kPreFilter);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    if (p->vtable().pre_filter_remove_pod == nullptr || cycle.skipFilterPlugins.count(p->name())) {
      continue;
    }
    sh_status raw;
    auto call = [&] {
      return p->vtable().pre_filter_remove_pod(p->self(), &cycle, &pod, &other, &node, &raw);
    };
    int code = timePlugins
                   ? callPluginTimed(*p, call_point::kPreFilterRemovePod,
                                     pluginMetrics(ExtensionPoint::kPreFilter, i),
                                     metrics::MetricPoint::kPreFilterExtensionRemovePod, call)
                   : callPlugin(*p, call_point::kPreFilterRemovePod, call);
    Status s = checkedStatus(*p, code, raw);
    if (!s.ok()) {
      wrapAsError(s, "running RemovePod on PreFilter plugin " + quoted(p->name()) + ": ");
      return s;
    }
  }
  return Status();
}

Status Framework::runFilter(CycleState& cycle, const sh_pod& pod, const sh_node_info& node,
                            std::vector<PluginTrace>* trace) const {
  const auto& list = plugins(ExtensionPoint::kFilter);
  const bool haveMask = cycle.skipFilterMask.size() == list.size();
  const bool timePlugins = timesPlugins(cycle) && timeThisNode();
  const auto& evaluations = evaluations_[indexOf(ExtensionPoint::kFilter)];
  const bool countEvaluations = !evaluations.empty();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (haveMask && cycle.skipFilterMask[i] != 0) {
      continue;
    }
    if (countEvaluations) {
      evaluations[i]->inc();
    }
    const PluginPtr& p = list[i];
    sh_status& raw = scratchStatus();
    auto call = [&] { return p->vtable().filter(p->self(), &cycle, &pod, &node, &raw); };
    int code = timePlugins ? callPluginTimed(*p, call_point::kFilter,
                                             pluginMetrics(ExtensionPoint::kFilter, i),
                                             metrics::MetricPoint::kFilter, call)
                           : callPlugin(*p, call_point::kFilter, call);
    if (code == SH_SUCCESS && raw.status.reasons().empty()) {
      if (trace != nullptr) {
        trace->push_back(PluginTrace{p->name(), Status(), {}});
      }
      continue;
    }
    Status s = checkedStatus(*p, code, raw);
    if (trace != nullptr) {
      trace->push_back(PluginTrace{p->name(), s, {}});
    }
    if (s.ok()) {
      continue;
    }
    s.setPlugin(p->name());
    if (!s.isRejected()) {
      wrapAsError(s, "running " + quoted(p->name()) + " filter plugin: ");
    }
    return s;
  }
  return Status();
}

Status Framework::runFilterWithNominatedPods(
    CycleState& cycle, const sh_pod& pod, const model::NodeInfo& node,
    const std::vector<std::shared_ptr<const model::Pod>>& nominated) const {
  if (nominated.empty()) {
    return runFilter(cycle, pod, node.view());
  }
  // Pass 1: with the nominated pods of higher or equal priority added.
  model::NodeInfo withNominated = node.clone();
  std::unique_ptr<CycleState> cloned = cycle.clone();
  cloned->recordPluginMetrics = cycle.recordPluginMetrics;
  for (const auto& np : nominated) {
    withNominated.addPod(np);
  }
  for (const auto& np : nominated) {
    Status s = runPreFilterAddPod(*cloned, pod, np->view(), withNominated.view());
    if (!s.ok()) {
      return s;
    }
  }
  cloned->parallelPhase = true;
  Status s = runFilter(*cloned, pod, withNominated.view());
  if (!s.ok()) {
    return s;
  }
  // Pass 2: without them.
  return runFilter(cycle, pod, node.view());
}

Status Framework::postFilterImpl(CycleState& cycle, const sh_pod& pod, const NodeToStatus& statuses,
                                 std::optional<std::string>* nominated) const {
  const auto& list = plugins(ExtensionPoint::kPostFilter);
  const bool timePlugins = timesPlugins(cycle);
  cycle.nodeStatuses = &statuses;
  std::vector<std::string> reasons;
  std::string rejector;
  std::optional<std::string> lastNomination;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    cycle.nominatedNode.reset();
    sh_status raw;
    auto call = [&] { return p->vtable().post_filter(p->self(), &cycle, &pod, &raw); };
    int code = timePlugins ? callPluginTimed(*p, call_point::kPostFilter,
                                             pluginMetrics(ExtensionPoint::kPostFilter, i),
                                             metrics::MetricPoint::kPostFilter, call)
                           : callPlugin(*p, call_point::kPostFilter, call);
    Status s = checkedStatus(*p, code, raw);
    if (s.ok()) {
      cycle.nodeStatuses = nullptr;
      if (nominated != nullptr) {
        *nominated = cycle.nominatedNode;
      }
      s.setPlugin(p->name());
      return s;
    }
    if (s.code() == SH_UNSCHEDULABLE_AND_UNRESOLVABLE || s.code() == SH_ERROR) {
      cycle.nodeStatuses = nullptr;
      if (nominated != nullptr && s.code() == SH_UNSCHEDULABLE_AND_UNRESOLVABLE) {
        *nominated = cycle.nominatedNode;
      }
      s.setPlugin(p->name());
      return s;
    }
    for (const std::string& r : s.reasons()) {
      reasons.push_back(r);
    }
    if (rejector.empty()) {
      rejector = p->name();
    }
    if (cycle.nominatedNode) {
      lastNomination = cycle.nominatedNode;
    }
  }
  cycle.nodeStatuses = nullptr;
  if (nominated != nullptr) {
    *nominated = lastNomination;
  }
  Status out(SH_UNSCHEDULABLE);
  for (std::string& r : reasons) {
    out.addReason(std::move(r));
  }
  out.setPlugin(rejector);
  return out;
}

Status Framework::preScoreImpl(CycleState& cycle, const sh_pod& pod,
                               const std::vector<const sh_node_info*>& nodes) const {
  std::set<std::string> skipped;
  const auto& list = plugins(ExtensionPoint::kPreScore);
  const bool timePlugins = timesPlugins(cycle);
  const auto& evaluations = evaluations_[indexOf(ExtensionPoint::kPreScore)];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    sh_status raw;
    auto call = [&] {
      return p->vtable().pre_score(p->self(), &cycle, &pod, nodes.data(), nodes.size(), &raw);
    };
    int code = timePlugins ? callPluginTimed(*p, call_point::kPreScore,
                                             pluginMetrics(ExtensionPoint::kPreScore, i),
                                             metrics::MetricPoint::kPreScore, call)
                           : callPlugin(*p, call_point::kPreScore, call);
    Status s = checkedStatus(*p, code, raw);
    if (!s.isSkip() && !evaluations.empty()) {
      evaluations[i]->inc();
    }
    if (s.isSkip()) {
      skipped.insert(p->name());
      continue;
    }
    if (!s.ok()) {
      wrapAsError(s, "running PreScore plugin " + quoted(p->name()) + ": ");
      s.setPlugin(p->name());
      return s;
    }
  }
  cycle.skipScorePlugins = skipped;
  const auto& scorers = plugins(ExtensionPoint::kScore);
  cycle.skipScoreMask.assign(scorers.size(), 0);
  for (std::size_t i = 0; i < scorers.size(); ++i) {
    cycle.skipScoreMask[i] = skipped.count(scorers[i]->name()) != 0 ? 1 : 0;
  }
  return Status();
}

Status Framework::scoreImpl(
    CycleState& cycle, const sh_pod& pod, const std::vector<const sh_node_info*>& nodes,
    std::vector<NodeScore>& scores, ScoreTable* table,
    const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& forEach)
    const {
  const auto& scorers = plugins(ExtensionPoint::kScore);
  const std::size_t np = scorers.size();
  const std::size_t nn = nodes.size();
  const bool haveMask = cycle.skipScoreMask.size() == np;
  const bool timePlugins = timesPlugins(cycle);
  const auto& evaluations = evaluations_[indexOf(ExtensionPoint::kScore)];
  const bool countEvaluations = !evaluations.empty();
  scores.assign(nn, NodeScore());
  // Plugin-major, as NormalizeScore wants each plugin's list contiguous.
  std::vector<sh_node_score> lists(np * nn);
  std::atomic<bool> failed{false};
  std::mutex errorMu;
  Status firstError;

  forEach(nn, [&](std::size_t n) {
    if (failed.load(std::memory_order_relaxed)) {
      return;
    }
    const bool timeNode = timePlugins && timeThisNode();
    for (std::size_t i = 0; i < np; ++i) {
      sh_node_score& slot = lists[i * nn + n];
      slot.node = nodes[n];
      slot.score = 0;
      if (haveMask && cycle.skipScoreMask[i] != 0) {
        continue;
      }
      if (countEvaluations) {
        evaluations[i]->inc();
      }
      const PluginPtr& p = scorers[i];
      sh_status& raw = scratchStatus();
      int64_t value = 0;
      auto call = [&] {
        return p->vtable().score(p->self(), &cycle, &pod, nodes[n], &value, &raw);
      };
      int code = timeNode ? callPluginTimed(*p, call_point::kScore,
                                            pluginMetrics(ExtensionPoint::kScore, i),
                                            metrics::MetricPoint::kScore, call)
                          : callPlugin(*p, call_point::kScore, call);
      if (code != SH_SUCCESS || !raw.status.reasons().empty()) {
        Status s = checkedStatus(*p, code, raw);
        if (!s.ok()) {
          wrapAsError(s, "running Score plugins: plugin " + quoted(p->name()) + " failed with: ");
          s.setPlugin(p->name());
          std::lock_guard<std::mutex> lock(errorMu);
          if (!failed.exchange(true)) {
            firstError = std::move(s);
          }
          return;
        }
      }
      slot.score = value;
    }
  });
  if (failed.load()) {
    return firstError;
  }

  for (std::size_t i = 0; i < np; ++i) {
    if ((haveMask && cycle.skipScoreMask[i] != 0) || nn == 0) {
      continue;
    }
    const PluginPtr& p = scorers[i];
    if (p->vtable().normalize_score != nullptr) {
      sh_status raw;
      auto call = [&] {
        return p->vtable().normalize_score(p->self(), &cycle, &pod, &lists[i * nn], nn, &raw);
      };
      int code = timePlugins ? callPluginTimed(*p, call_point::kNormalizeScore,
                                               pluginMetrics(ExtensionPoint::kScore, i),
                                               metrics::MetricPoint::kScoreExtensionNormalize, call)
                             : callPlugin(*p, call_point::kNormalizeScore, call);
      Status s = checkedStatus(*p, code, raw);
      if (!s.ok()) {
        wrapAsError(s, "running Normalize on Score plugins: plugin " + quoted(p->name()) +
                           " failed with: ");
        s.setPlugin(p->name());
        return s;
      }
    }
  }

  if (table != nullptr) {
    table->pluginCount = np;
    table->values.assign(np * nn, 0);
  }
  const auto& weights = config_.scoreWeights;
  for (std::size_t n = 0; n < nn; ++n) {
    NodeScore& ns = scores[n];
    ns.node = nodes[n];
    for (std::size_t i = 0; i < np; ++i) {
      int64_t v = lists[i * nn + n].score;
      if (v < SH_MIN_NODE_SCORE || v > SH_MAX_NODE_SCORE) {
        scorers[i]->countFailure();
        Status s(SH_ERROR, "plugin " + quoted(scorers[i]->name()) + " returns an invalid score " +
                               std::to_string(v) +
                               ", it should in the range of [0, 100] after normalizing");
        s.setPlugin(scorers[i]->name());
        return s;
      }
      if (table != nullptr) {
        table->values[n * np + i] = v;
      }
      ns.total += v * weights[i];
    }
  }
  return Status();
}

Status Framework::reserveImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  sh_str name{node.data(), node.size()};
  const auto& list = plugins(ExtensionPoint::kReserve);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    sh_status raw;
    auto call = [&] { return p->vtable().reserve(p->self(), &cycle, &pod, name, &raw); };
    int code = timePlugins ? callPluginTimed(*p, call_point::kReserve,
                                             pluginMetrics(ExtensionPoint::kReserve, i),
                                             metrics::MetricPoint::kReserve, call)
                           : callPlugin(*p, call_point::kReserve, call);
    Status s = checkedStatus(*p, code, raw);
    if (!s.ok()) {
      s.setPlugin(p->name());
      if (!s.isRejected()) {
        wrapAsError(s, "running Reserve plugin " + quoted(p->name()) + ": ");
      }
      return s;
    }
  }
  return Status();
}

void Framework::unreserveImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  sh_str name{node.data(), node.size()};
  const auto& list = plugins(ExtensionPoint::kReserve);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = list.size(); i-- > 0;) {
    const PluginPtr& p = list[i];
    if (p->vtable().unreserve != nullptr) {
      auto call = [&] {
        p->vtable().unreserve(p->self(), &cycle, &pod, name);
        return 0;
      };
      if (timePlugins) {
        callPluginTimed(*p, call_point::kUnreserve, pluginMetrics(ExtensionPoint::kReserve, i),
                        metrics::MetricPoint::kUnreserve, call);
      } else {
        callPlugin(*p, call_point::kUnreserve, call);
      }
    }
  }
}

Status Framework::permitImpl(CycleState& cycle, const sh_pod& pod, const std::string& node,
                             std::vector<std::pair<std::string, int64_t>>* waits) const {
  sh_str name{node.data(), node.size()};
  bool anyWait = false;
  const auto& list = plugins(ExtensionPoint::kPermit);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    sh_status raw;
    int64_t timeoutMs = 0;
    auto call = [&] { return p->vtable().permit(p->self(), &cycle, &pod, name, &timeoutMs, &raw); };
    int code = timePlugins ? callPluginTimed(*p, call_point::kPermit,
                                             pluginMetrics(ExtensionPoint::kPermit, i),
                                             metrics::MetricPoint::kPermit, call)
                           : callPlugin(*p, call_point::kPermit, call);
    Status s = checkedStatus(*p, code, raw);
    if (s.ok()) {
      continue;
    }
    if (s.isRejected()) {
      s.setPlugin(p->name());
      return s;
    }
    if (s.isWait()) {
      anyWait = true;
      timeoutMs = std::clamp<int64_t>(timeoutMs, 0, kMaxPermitTimeoutMs);
      if (waits != nullptr) {
        waits->emplace_back(p->name(), timeoutMs);
      }
      continue;
    }
    wrapAsError(s, "running Permit plugin " + quoted(p->name()) + ": ");
    s.setPlugin(p->name());
    return s;
  }
  if (anyWait) {
    return Status(SH_WAIT, "one or more plugins asked to wait and no plugin rejected pod");
  }
  return Status();
}

Status Framework::preBindImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  sh_str name{node.data(), node.size()};
  const auto& list = plugins(ExtensionPoint::kPreBind);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    sh_status raw;
    auto call = [&] { return p->vtable().pre_bind(p->self(), &cycle, &pod, name, &raw); };
    int code = timePlugins ? callPluginTimed(*p, call_point::kPreBind,
                                             pluginMetrics(ExtensionPoint::kPreBind, i),
                                             metrics::MetricPoint::kPreBind, call)
                           : callPlugin(*p, call_point::kPreBind, call);
    Status s = checkedStatus(*p, code, raw);
    if (s.ok() || s.isSkip()) {
      continue;
    }
    s.setPlugin(p->name());
    if (!s.isRejected()) {
      wrapAsError(s, "running PreBind plugin " + quoted(p->name()) + ": ");
    }
    return s;
  }
  return Status();
}

Status Framework::bindImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  sh_str name{node.data(), node.size()};
  const auto& list = plugins(ExtensionPoint::kBind);
  if (list.empty()) {
    return Status(SH_SKIP);
  }
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    sh_status raw;
    auto call = [&] { return p->vtable().bind(p->self(), &cycle, &pod, name, &raw); };
    int code = timePlugins
                   ? callPluginTimed(*p, call_point::kBind, pluginMetrics(ExtensionPoint::kBind, i),
                                     metrics::MetricPoint::kBind, call)
                   : callPlugin(*p, call_point::kBind, call);
    Status s = checkedStatus(*p, code, raw);
    if (s.isSkip()) {
      continue;
    }
    if (!s.ok()) {
      s.setPlugin(p->name());
      if (!s.isRejected()) {
        wrapAsError(s, "running Bind plugin " + quoted(p->name()) + ": ");
      }
    }
    return s;
  }
  return Status(SH_SKIP);
}

void Framework::postBindImpl(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  sh_str name{node.data(), node.size()};
  const auto& list = plugins(ExtensionPoint::kPostBind);
  const bool timePlugins = timesPlugins(cycle);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const PluginPtr& p = list[i];
    auto call = [&] {
      p->vtable().post_bind(p->self(), &cycle, &pod, name);
      return 0;
    };
    if (timePlugins) {
      callPluginTimed(*p, call_point::kPostBind, pluginMetrics(ExtensionPoint::kPostBind, i),
                      metrics::MetricPoint::kPostBind, call);
    } else {
      callPlugin(*p, call_point::kPostBind, call);
    }
  }
}

// The public run* methods: each extension point timed as a whole into
// scheduler_framework_extension_point_duration_seconds (upstream framework/runtime/framework.go:
// the deferred metrics.FrameworkExtensionPointDuration observations), untimed without metrics.

Status Framework::runPreFilter(CycleState& cycle, const sh_pod& pod, PreFilterOutcome& outcome,
                               std::vector<PluginTrace>* trace) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPreFilter,
                    [&] { return preFilterImpl(cycle, pod, outcome, trace); });
}

Status Framework::runPreFilterAddPod(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                                     const sh_node_info& node) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPreFilterExtensionAddPod,
                    [&] { return preFilterAddPodImpl(cycle, pod, other, node); });
}

Status Framework::runPreFilterRemovePod(CycleState& cycle, const sh_pod& pod, const sh_pod& other,
                                        const sh_node_info& node) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPreFilterExtensionRemovePod,
                    [&] { return preFilterRemovePodImpl(cycle, pod, other, node); });
}

Status Framework::runPostFilter(CycleState& cycle, const sh_pod& pod, const NodeToStatus& statuses,
                                std::optional<std::string>* nominated) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPostFilter,
                    [&] { return postFilterImpl(cycle, pod, statuses, nominated); });
}

Status Framework::runPreScore(CycleState& cycle, const sh_pod& pod,
                              const std::vector<const sh_node_info*>& nodes) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPreScore,
                    [&] { return preScoreImpl(cycle, pod, nodes); });
}

Status Framework::runScore(
    CycleState& cycle, const sh_pod& pod, const std::vector<const sh_node_info*>& nodes,
    std::vector<NodeScore>& scores, ScoreTable* table,
    const std::function<void(std::size_t, const std::function<void(std::size_t)>&)>& forEach)
    const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kScore,
                    [&] { return scoreImpl(cycle, pod, nodes, scores, table, forEach); });
}

Status Framework::runReserve(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kReserve,
                    [&] { return reserveImpl(cycle, pod, node); });
}

void Framework::runUnreserve(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  timedPoint(config_.metrics.get(), metrics::MetricPoint::kUnreserve, [&] {
    unreserveImpl(cycle, pod, node);
    return Status();
  });
}

Status Framework::runPermit(CycleState& cycle, const sh_pod& pod, const std::string& node,
                            std::vector<std::pair<std::string, int64_t>>* waits) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPermit,
                    [&] { return permitImpl(cycle, pod, node, waits); });
}

Status Framework::runPreBind(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kPreBind,
                    [&] { return preBindImpl(cycle, pod, node); });
}

Status Framework::runBind(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  return timedPoint(config_.metrics.get(), metrics::MetricPoint::kBind,
                    [&] { return bindImpl(cycle, pod, node); });
}

void Framework::runPostBind(CycleState& cycle, const sh_pod& pod, const std::string& node) const {
  timedPoint(config_.metrics.get(), metrics::MetricPoint::kPostBind, [&] {
    postBindImpl(cycle, pod, node);
    return Status();
  });
}

}  // namespace sh

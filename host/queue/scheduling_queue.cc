#include "host/queue/scheduling_queue.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json.hpp>

#include "host/metrics/scheduler_metrics.h"
#include "host/model/pod_key.h"

namespace sh::queue {
namespace {

constexpr int64_t kLeftoverFlushPeriodNanos = 30'000'000'000;
constexpr int64_t kMaxFlusherSleepNanos = 1'000'000'000;
constexpr int64_t kMinFlusherSleepNanos = 1'000'000;

// The resources a plugin without EventsToRegister is registered for, each with All (upstream
// framework/types.go: UnrollWildCardResource). Ten of them: VolumeAttachment and
// ResourceSlice are not in upstream's list, so such a plugin is not woken by their events.
constexpr sh_event_resource kAllResources[] = {
    SH_RESOURCE_POD,
    SH_RESOURCE_NODE,
    SH_RESOURCE_PERSISTENT_VOLUME,
    SH_RESOURCE_PERSISTENT_VOLUME_CLAIM,
    SH_RESOURCE_CSI_NODE,
    SH_RESOURCE_CSI_DRIVER,
    SH_RESOURCE_CSI_STORAGE_CAPACITY,
    SH_RESOURCE_STORAGE_CLASS,
    SH_RESOURCE_RESOURCE_CLAIM,
    SH_RESOURCE_DEVICE_CLASS,
};

std::string_view schedulerName(const model::Pod& pod) {
  const sh_str& s = pod.view().scheduler_name;
  return {s.ptr, s.len};
}

// A pod with only a name, a namespace and a uid (upstream podRef.toPod()).
PodPtr podFromRef(const PodRef& ref) {
  boost::json::object meta;
  meta["name"] = ref.name;
  meta["namespace"] = ref.namespaceName;
  meta["uid"] = ref.uid;
  boost::json::object obj;
  obj["metadata"] = std::move(meta);
  std::string error;
  return model::parsePod(boost::json::value(std::move(obj)), error);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Construction

SchedulingQueue::SchedulingQueue(QueueProfiles profiles, QueueOptions options, const Clock* clock)
    : options_(std::move(options)),
      ownClock_(clock == nullptr ? std::make_unique<SteadyClock>() : nullptr),
      clock_(clock == nullptr ? ownClock_.get() : clock),
      less_([&]() -> LessFunc {
        for (const auto& [name, profile] : profiles) {
          if (profile.less) {
            return profile.less;
          }
        }
        return nullptr;
      }()),
      active_([less = &less_](const QueuedPodInfo& a, const QueuedPodInfo& b) {
        return *less && (*less)(a.view(), b.view());
      }),
      backoff_(*clock_, options_.initialBackoff, options_.maxBackoff,
               [less = &less_](const QueuedPodInfo& a, const QueuedPodInfo& b) {
                 return *less && (*less)(a.view(), b.view());
               }),
      nominator_(options_.podLister) {
  for (const auto& [name, profile] : profiles) {
    if (profile.less) {
      lessKey_ = profile.lessKey;
      break;
    }
  }
  profiles_.reserve(profiles.size());
  for (auto& [name, profile] : profiles) {
    profiles_.push_back(Profile{name, std::move(profile), {}});
  }
  buildHints();
}

SchedulingQueue::~SchedulingQueue() { close(); }

void SchedulingQueue::buildHints() {
  for (Profile& profile : profiles_) {
    for (const EventPlugin& eventPlugin : profile.plugins.eventPlugins) {
      const EventPlugin* plugin = &eventPlugin;
      const std::string& name = plugin->name;
      auto addEntry = [&](ClusterEvent event, int64_t index) {
        pluginEvents_[name].push_back(event);
        profile.hints.push_back(HintEntry{std::move(event), name, plugin, index});
      };
      if (!plugin->hasEventsToRegister) {
        // No EnqueueExtensions: every resource, every action, always Queue.
        for (sh_event_resource r : kAllResources) {
          addEntry(ClusterEvent{r, SH_ACTION_ALL, {}}, -1);
        }
        continue;
      }
      // Registered nothing: the plugin's rejections are resolved only by the pod's own
      // updates (e.g. SchedulingGates in older releases); nothing to add.
      bool nodeAdd = false;
      bool nodeTaint = false;
      const auto& regs = plugin->events;
      for (std::size_t i = 0; i < regs.size(); ++i) {
        const sh_event_registration& reg = regs[i];
        const EventResource resource = reg.resource;
        if (resource == SH_RESOURCE_NODE) {
          nodeAdd = nodeAdd || (reg.actions & SH_ACTION_ADD) != 0;
          nodeTaint = nodeTaint || (reg.actions & SH_ACTION_UPDATE_NODE_TAINT) != 0;
        }
        addEntry(ClusterEvent{resource, reg.actions, {}},
                 reg.has_hint != 0 ? static_cast<int64_t>(i) : -1);
      }
      if (nodeAdd && !nodeTaint) {
        // Upstream's compatibility rule (issue 109437): Node/Add implies Node/UpdateNodeTaint,
        // always Queue.
        addEntry(ClusterEvent{SH_RESOURCE_NODE, SH_ACTION_UPDATE_NODE_TAINT, {}}, -1);
      }
    }
  }
  for (const Profile& profile : profiles_) {
    profileByName_.emplace(profile.name, &profile);
  }
}

const SchedulingQueue::Profile* SchedulingQueue::profileFor(const model::Pod& pod) const {
  auto it = profileByName_.find(schedulerName(pod));
  return it == profileByName_.end() ? nullptr : it->second;
}

QueuedPodInfoPtr SchedulingQueue::newQueuedPodInfo(PodPtr pod) const {
  auto info = std::make_unique<QueuedPodInfo>();
  info->pod = std::move(pod);
  info->timestamp = clock_->nowNanos();
  return info;
}

// ---------------------------------------------------------------------------------------------
// Moving pods between sub-queues (mu_ held)

void SchedulingQueue::runPreEnqueuePlugins(QueuedPodInfo& info) {
  const Profile* profile = profileFor(*info.pod);
  if (profile == nullptr) {
    info.gatingPlugin.clear();
    info.gatingPluginEvents.clear();
    return;
  }
  const sh_pod& pod = info.pod->view();
  const auto& plugins = profile->plugins.preEnqueue;
  auto gate = [&](const PreEnqueuePlugin& p, const Status& s) {
    // Counted once per plugin and pod: a pod gated again by the same plugin (an update, a
    // ForceActivate) is already in the gauge (upstream runPreEnqueuePlugin).
    if (info.unschedulablePlugins.count(p.name) == 0 && info.pendingPlugins.count(p.name) == 0) {
      bumpUnschedulableGauge(p.name, *info.pod, 1);
    }
    info.unschedulablePlugins.insert(p.name);
    info.gatingPlugin = p.name;
    auto events = pluginEvents_.find(p.name);
    info.gatingPluginEvents =
        events == pluginEvents_.end() ? std::vector<ClusterEvent>{} : events->second;
    if (s.code() == SH_ERROR) {
      spdlog::error("PreEnqueue plugin {} failed for pod {}/{}: {}", p.name,
                    info.pod->namespaceName(), info.pod->name(), s.message());
    }
  };
  // The plugin that gated the pod last time runs first: it is the likeliest to gate again.
  const std::string previous = info.gatingPlugin;
  if (!previous.empty()) {
    for (const PreEnqueuePlugin& p : plugins) {
      if (p.name == previous) {
        Status s = p.run(pod);
        if (!s.ok()) {
          gate(p, s);
          return;
        }
        break;
      }
    }
  }
  for (const PreEnqueuePlugin& p : plugins) {
    if (!previous.empty() && p.name == previous) {
      continue;
    }
    Status s = p.run(pod);
    if (!s.ok()) {
      gate(p, s);
      return;
    }
  }
  info.gatingPlugin.clear();
  info.gatingPluginEvents.clear();
}

void SchedulingQueue::addToUnschedulable(QueuedPodInfoPtr info, std::string_view event,
                                         bool count) {
  if (unschedulable_.add(std::move(info)) && count) {
    countIncoming(kUnschedulableIdx, event);
  }
}

SchedulingQueue::Where SchedulingQueue::moveToActiveQ(QueuedPodInfoPtr info, std::string_view event,
                                                      bool fromBackoffQ, bool wasInUnschedulable) {
  // PreEnqueue already ran when the pod entered backoffQ.
  if (!fromBackoffQ) {
    runPreEnqueuePlugins(*info);
  }
  const std::string key = info->key();
  if (info->gated()) {
    if (active_.has(key) || backoff_.has(key) || unschedulable_.has(key)) {
      return Where::kDropped;  // another copy of the pod is queued already
    }
    addToUnschedulable(std::move(info), event, !wasInUnschedulable);
    return Where::kUnschedulable;
  }
  if (!info->initialAttemptTimestamp) {
    info->initialAttemptTimestamp = clock_->nowNanos();
  }
  unschedulable_.remove(key);
  backoff_.remove(key);
  const bool nominate = event == kUnschedulablePodAdd || event == kUnschedulablePodUpdate;
  PodPtr pod = info->pod;
  active_.add(std::move(info));
  countIncoming(kActiveIdx, event);
  if (nominate) {
    nominator_.add(*pod, NominatingInfo{});
  }
  return Where::kActive;
}

SchedulingQueue::Where SchedulingQueue::moveToBackoffQ(QueuedPodInfoPtr info,
                                                       std::string_view event,
                                                       bool wasInUnschedulable) {
  // PopFromBackoffQ: PreEnqueue runs on the way in, so the way out can skip it.
  runPreEnqueuePlugins(*info);
  const std::string key = info->key();
  if (info->gated()) {
    if (unschedulable_.has(key)) {
      return Where::kDropped;
    }
    addToUnschedulable(std::move(info), event, !wasInUnschedulable);
    return Where::kUnschedulable;
  }
  unschedulable_.remove(key);
  backoff_.add(std::move(info));
  countIncoming(kBackoffIdx, event);
  return Where::kBackoff;
}

SchedulingQueue::Where SchedulingQueue::requeue(QueuedPodInfoPtr info, Strategy strategy,
                                                std::string_view event, bool wasInUnschedulable) {
  if (strategy == Strategy::kSkip) {
    addToUnschedulable(std::move(info), event, !wasInUnschedulable);
    return Where::kUnschedulable;
  }
  // The backoff may have completed while the pod waited in unschedulablePods.
  if (strategy == Strategy::kAfterBackoff && backoff_.isBackingOff(*info)) {
    return moveToBackoffQ(std::move(info), event, wasInUnschedulable);
  }
  return moveToActiveQ(std::move(info), event, false, wasInUnschedulable);
}

SchedulingQueue::Strategy SchedulingQueue::isPodWorthRequeuing(const QueuedPodInfo& info,
                                                               const ClusterEvent& event,
                                                               const EventObject& oldObj,
                                                               const EventObject& newObj) const {
  if (!info.hasRejectors()) {
    return Strategy::kAfterBackoff;
  }
  if (event.isWildcard()) {
    // A wildcard event carrying a pod is meant for that pod only (ForceActivate).
    if (!newObj.empty() && (newObj.pod() == nullptr || newObj.pod()->uid() != info.uid())) {
      return Strategy::kSkip;
    }
    return Strategy::kAfterBackoff;
  }
  const Profile* profile = profileFor(*info.pod);
  if (profile == nullptr) {
    return Strategy::kAfterBackoff;  // upstream: "shouldn't reach here unless bug"
  }
  Strategy strategy = Strategy::kSkip;
  std::optional<sh_event_objects> objects;
  std::optional<std::string> eventLabel;
  for (const HintEntry& entry : profile->hints) {
    if (!matches(entry.event, event) || !info.isRejector(entry.plugin)) {
      continue;
    }
    sh_queueing_hint hint = SH_QUEUE;
    const EventPlugin* plugin = entry.instance;
    if (entry.index >= 0 && plugin != nullptr && plugin->hint) {
      if (!objects) {
        objects = toAbi(event, oldObj, newObj);
      }
      hint = runHint(entry, info, event, *objects, eventLabel);
      // Anything but an explicit QueueSkip counts as Queue, as an error does upstream.
      hint = hint == SH_QUEUE_SKIP ? SH_QUEUE_SKIP : SH_QUEUE;
    }
    if (hint == SH_QUEUE_SKIP) {
      continue;
    }
    if (info.pendingPlugins.count(entry.plugin) != 0) {
      return Strategy::kImmediately;
    }
    if (info.pendingPlugins.empty()) {
      return Strategy::kAfterBackoff;
    }
    strategy = Strategy::kAfterBackoff;  // a Pending plugin may still say Queue
  }
  return strategy;
}

sh_queueing_hint SchedulingQueue::runHint(const HintEntry& entry, const QueuedPodInfo& info,
                                          const ClusterEvent& event,
                                          const sh_event_objects& objects,
                                          std::optional<std::string>& eventLabel) const {
  const auto index = static_cast<std::size_t>(entry.index);
  if (metrics_ == nullptr) {
    return entry.instance->hint(index, info.pod->view(), objects);
  }
  // Upstream scheduling_queue.go isPodWorthRequeuing: every queueing hint function call is
  // timed under the plugin, the incoming event's label and what it answered.
  const auto start = std::chrono::steady_clock::now();
  const sh_queueing_hint hint = entry.instance->hint(index, info.pod->view(), objects);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!eventLabel) {
    eventLabel = event.label();
  }
  auto cached = std::find_if(entry.histograms.begin(), entry.histograms.end(),
                             [&](const HintHistograms& h) { return h.event == *eventLabel; });
  if (cached == entry.histograms.end()) {
    cached = entry.histograms.insert(entry.histograms.end(), HintHistograms{*eventLabel, {}});
  }
  // Anything but Queue and QueueSkip is an invalid answer, which the queue takes as Queue:
  // upstream's hint function returning an error.
  const std::size_t which = hint == SH_QUEUE ? 0 : hint == SH_QUEUE_SKIP ? 1 : 2;
  metrics::Histogram*& h = cached->byHint[which];
  if (h == nullptr) {
    static constexpr std::string_view kLabels[] = {metrics::kHintQueue, metrics::kHintQueueSkip,
                                                   metrics::kHintError};
    h = &metrics_->queueingHintDuration.with(
        {std::string_view(entry.plugin), std::string_view(*eventLabel), kLabels[which]});
  }
  h->observe(seconds);
  return hint;
}

SchedulingQueue::Strategy SchedulingQueue::strategyForInFlightPod(const QueuedPodInfo& info) const {
  if (!info.hasRejectors()) {
    return Strategy::kAfterBackoff;
  }
  auto events = active_.eventsSince(info.uid());
  if (!events) {
    // close() ends every in-flight period: the attempts still running then (pods rejected on
    // Permit as the scheduler stops) come back untracked, and that is expected.
    if (!closed_) {
      spdlog::error("in-flight pod {}/{} is not tracked by the scheduling queue",
                    info.pod->namespaceName(), info.pod->name());
    }
    return Strategy::kAfterBackoff;
  }
  Strategy strategy = Strategy::kSkip;
  for (const InFlightEvent* e : *events) {
    switch (isPodWorthRequeuing(info, e->event, e->oldObj, e->newObj)) {
      case Strategy::kSkip:
        break;
      case Strategy::kImmediately:
        return Strategy::kImmediately;
      case Strategy::kAfterBackoff:
        strategy = Strategy::kAfterBackoff;
        if (info.pendingPlugins.empty()) {
          return strategy;
        }
        break;
    }
  }
  return strategy;
}

bool SchedulingQueue::isEventOfInterest(const ClusterEvent& event) const {
  if (event.isWildcard()) {
    return true;
  }
  for (const Profile& profile : profiles_) {
    for (const HintEntry& entry : profile.hints) {
      if (matches(entry.event, event)) {
        return true;
      }
    }
  }
  return false;
}

void SchedulingQueue::movePods(const std::vector<QueuedPodInfo*>& pods, const ClusterEvent& event,
                               const PreCheck& preCheck, const EventObject& oldObj,
                               const EventObject& newObj) {
  if (!isEventOfInterest(event)) {
    return;
  }
  const std::string label = event.label();
  bool activated = false;
  for (QueuedPodInfo* info : pods) {
    if (preCheck && !preCheck(*info)) {
      continue;
    }
    if (info->gated() && !matchesAny(event, info->gatingPluginEvents)) {
      continue;  // only the gating plugin's events can lift the gate
    }
    Strategy strategy = isPodWorthRequeuing(*info, event, oldObj, newObj);
    if (strategy == Strategy::kSkip) {
      continue;
    }
    QueuedPodInfoPtr owned = unschedulable_.remove(info->key());
    if (owned == nullptr) {
      continue;
    }
    Where where = requeue(std::move(owned), strategy, label, false);
    activated = activated || where == Where::kActive || where == Where::kBackoff;
  }
  active_.addEventIfAnyInFlight(event, oldObj, newObj);
  if (activated) {
    popCond_.notify_all();
  }
}

bool SchedulingQueue::activateOne(std::string_view key) {
  bool fromBackoffQ = false;
  QueuedPodInfoPtr info = unschedulable_.remove(key);
  const bool wasInUnschedulable = info != nullptr;
  if (info == nullptr) {
    info = backoff_.remove(key);
    if (info == nullptr) {
      return false;
    }
    fromBackoffQ = true;
  }
  return moveToActiveQ(std::move(info), kForceActivate, fromBackoffQ, wasInUnschedulable) ==
         Where::kActive;
}

QueuedPodInfoPtr SchedulingQueue::popLocked() {
  if (!active_.empty()) {
    return active_.pop();
  }
  QueuedPodInfoPtr info = backoff_.popBackoff();
  if (info != nullptr) {
    countIncoming(kActiveIdx, kPopFromBackoffQ);
  }
  return info;
}

void SchedulingQueue::flushBackoffQCompletedLocked() {
  bool activated = false;
  for (QueuedPodInfoPtr& info : backoff_.popAllCompleted()) {
    activated = moveToActiveQ(std::move(info), kBackoffComplete, true, false) == Where::kActive ||
                activated;
  }
  if (activated) {
    popCond_.notify_all();
  }
}

void SchedulingQueue::flushUnschedulablePodsLeftoverLocked() {
  const int64_t now = clock_->nowNanos();
  const auto limit = static_cast<int64_t>(options_.maxInUnschedulable.count());
  std::vector<QueuedPodInfo*> stale;
  for (QueuedPodInfo* info : unschedulable_.list()) {
    if (now - info->timestamp > limit) {
      info->wasFlushedFromUnschedulable = true;
      stale.push_back(info);
    }
  }
  if (!stale.empty()) {
    movePods(stale, eventUnschedulableTimeout(), {}, {}, {});
  }
}

void SchedulingQueue::countIncoming(QueueIndex queue, std::string_view event) {
  auto& counts = incoming_[queue];
  auto it = counts.find(event);
  if (it == counts.end()) {
    it = counts.emplace(std::string(event), 0).first;
  }
  ++it->second;
}

void SchedulingQueue::bumpUnschedulableGauge(std::string_view plugin, const model::Pod& pod,
                                             int64_t delta) {
  auto byPlugin = unschedulableGauge_.find(plugin);
  if (byPlugin == unschedulableGauge_.end()) {
    byPlugin = unschedulableGauge_.emplace(std::string(plugin), decltype(byPlugin->second){}).first;
  }
  std::string_view profile = schedulerName(pod);
  auto it = byPlugin->second.find(profile);
  if (it == byPlugin->second.end()) {
    it = byPlugin->second.emplace(std::string(profile), 0).first;
  }
  it->second += delta;
}

void SchedulingQueue::bumpUnschedulableGauge(const QueuedPodInfo& info, int64_t delta) {
  for (const std::string& plugin : info.unschedulablePlugins) {
    bumpUnschedulableGauge(plugin, *info.pod, delta);
  }
  for (const std::string& plugin : info.pendingPlugins) {
    if (info.unschedulablePlugins.count(plugin) == 0) {
      bumpUnschedulableGauge(plugin, *info.pod, delta);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Public operations

void SchedulingQueue::add(PodPtr pod) {
  std::lock_guard<std::mutex> lock(mu_);
  if (moveToActiveQ(newQueuedPodInfo(std::move(pod)), kUnschedulablePodAdd, false, false) ==
      Where::kActive) {
    popCond_.notify_all();
  }
}

void SchedulingQueue::update(PodPtr oldPod, PodPtr newPod) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ClusterEvent> events;
  if (oldPod != nullptr) {
    events = podUpdateEvents(*oldPod, *newPod);
  }
  // In flight: remember the update; the pod is requeued with the informer's latest copy.
  if (active_.addEventsIfPodInFlight(newPod->uid(), EventObject(oldPod), EventObject(newPod),
                                     events)) {
    return;
  }
  if (oldPod != nullptr) {
    const std::string key = model::podKey(*oldPod);
    if (active_.update(key, newPod) || backoff_.update(key, newPod)) {
      nominator_.update(*oldPod, *newPod);
      return;
    }
  }
  const std::string key = model::podKey(*newPod);
  if (QueuedPodInfoPtr info = unschedulable_.remove(key)) {
    info->pod = newPod;
    if (oldPod != nullptr) {
      nominator_.update(*oldPod, *newPod);
    } else {
      nominator_.add(*newPod, NominatingInfo{});
    }
    const EventObject oldObj(oldPod);
    const EventObject newObj(newPod);
    for (const ClusterEvent& event : events) {
      Strategy strategy = isPodWorthRequeuing(*info, event, oldObj, newObj);
      if (strategy == Strategy::kSkip) {
        continue;
      }
      Where where = requeue(std::move(info), strategy, event.label(), true);
      if (where == Where::kActive || where == Where::kBackoff) {
        popCond_.notify_all();
        return;
      }
      // Gated again: it went back to unschedulablePods; the next event may still move it.
      info = unschedulable_.remove(key);
      if (info == nullptr) {
        return;
      }
    }
    addToUnschedulable(std::move(info), kUnschedulablePodUpdate, false);
    return;
  }
  if (moveToActiveQ(newQueuedPodInfo(std::move(newPod)), kUnschedulablePodUpdate, false, false) ==
      Where::kActive) {
    popCond_.notify_all();
  }
}

void SchedulingQueue::remove(const PodPtr& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  nominator_.remove(*pod);
  const std::string key = model::podKey(*pod);
  QueuedPodInfoPtr info = active_.remove(key);
  if (info == nullptr) {
    info = backoff_.remove(key);
  }
  if (info == nullptr) {
    info = unschedulable_.remove(key);
  }
  if (info != nullptr) {
    bumpUnschedulableGauge(*info, -1);
  }
}

std::vector<PodPtr> SchedulingQueue::setProfiles(QueueProfiles profiles) {
  std::vector<Profile> old;
  LessFunc oldLess;
  std::vector<PodPtr> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old.swap(profiles_);
    // A pod can lose its profile only when some schedulerName went away.
    bool removed = false;
    for (const Profile& was : old) {
      removed = removed || profiles.find(was.name) == profiles.end();
    }
    profileByName_.clear();
    pluginEvents_.clear();
    LessFunc less;
    std::string lessKey;
    for (auto& [name, profile] : profiles) {
      if (!less && profile.less) {
        less = profile.less;
        lessKey = profile.lessKey;
      }
    }
    profiles_.reserve(profiles.size());
    for (auto& [name, profile] : profiles) {
      profiles_.push_back(Profile{name, std::move(profile), {}});
    }
    buildHints();
    // The heaps call less_ through a pointer to it: assigning is enough, then re-sort.
    oldLess = std::exchange(less_, std::move(less));
    if (lessKey != lessKey_) {
      lessKey_ = std::move(lessKey);
      active_.reheap();
      backoff_.reheap();
    }

    // Pods that no profile schedules any more leave the queue (a scan of every queued pod, so
    // only when a profile went away).
    std::vector<std::string> orphans;
    const auto collect = [&](const QueuedPodInfo& info) {
      if (profileFor(*info.pod) == nullptr) {
        orphans.push_back(info.key());
      }
    };
    if (removed) {
      active_.forEach(collect);
      backoff_.forEach(collect);
      for (const QueuedPodInfo* info : unschedulable_.list()) {
        collect(*info);
      }
    }
    for (const std::string& key : orphans) {
      QueuedPodInfoPtr info = active_.remove(key);
      if (info == nullptr) {
        info = backoff_.remove(key);
      }
      if (info == nullptr) {
        info = unschedulable_.remove(key);
      }
      if (info != nullptr) {
        bumpUnschedulableGauge(*info, -1);
        nominator_.remove(*info->pod);
        dropped.push_back(info->pod);
      }
    }

    // Gated pods meet the new PreEnqueue plugins.
    bool activated = false;
    const std::vector<QueuedPodInfo*> waiting =
        unschedulable_.gatedCount() > 0 ? unschedulable_.list() : std::vector<QueuedPodInfo*>{};
    for (QueuedPodInfo* gated : waiting) {
      if (!gated->gated()) {
        continue;
      }
      QueuedPodInfoPtr info = unschedulable_.remove(gated->key());
      bumpUnschedulableGauge(info->gatingPlugin, *info->pod, -1);
      info->unschedulablePlugins.erase(info->gatingPlugin);
      activated = moveToActiveQ(std::move(info), kProfileChange, false, true) == Where::kActive ||
                  activated;
    }
    if (activated) {
      popCond_.notify_all();
    }
    // A pod turned away by a plugin that the old or the new generation lacks is retried: the
    // host refusing its claims for want of VolumeBinding, which the new profile may have, or
    // a plugin the new profile dropped, whose events would never come.
    const auto lacks = [](const std::vector<Profile>& set, const QueuedPodInfo& info) {
      const std::string_view name(info.pod->view().scheduler_name.ptr,
                                  info.pod->view().scheduler_name.len);
      const auto p =
          std::find_if(set.begin(), set.end(), [&](const Profile& x) { return x.name == name; });
      if (p == set.end()) {
        return false;
      }
      return std::any_of(
          info.unschedulablePlugins.begin(), info.unschedulablePlugins.end(),
          [&](const auto& plugin) { return !p->plugins.pluginNames.contains(plugin); });
    };
    std::vector<QueuedPodInfo*> retry;
    if (!old.empty()) {
      for (QueuedPodInfo* info : unschedulable_.list()) {
        if (!info->gated() && (lacks(old, *info) || lacks(profiles_, *info))) {
          retry.push_back(info);
        }
      }
    }
    movePods(retry, eventProfileChange(), {}, {}, {});
  }
  return dropped;  // `old` and `oldLess` are released here, outside mu_
}

void SchedulingQueue::moveAllToActiveOrBackoffQueue(const ClusterEvent& event, EventObject oldObj,
                                                    EventObject newObj, const PreCheck& preCheck) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!isEventOfInterest(event)) {
    return;  // not even recorded for in-flight pods
  }
  movePods(unschedulable_.list(), event, preCheck, oldObj, newObj);
}

QueuedPodInfoPtr SchedulingQueue::pop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    popCond_.wait(lock,
                  [&] { return closed_ || !active_.empty() || backoff_.podBackoffSize() != 0; });
    if (closed_) {
      return nullptr;
    }
    QueuedPodInfoPtr info = popLocked();
    if (!active_.startAttempt(*info)) {
      spdlog::error("discarding pod {}/{}: it is already in flight", info->pod->namespaceName(),
                    info->pod->name());
      continue;
    }
    bumpUnschedulableGauge(*info, -1);
    return info;
  }
}

QueuedPodInfoPtr SchedulingQueue::tryPopForTest() {
  std::lock_guard<std::mutex> lock(mu_);
  while (!closed_ && (!active_.empty() || backoff_.podBackoffSize() != 0)) {
    QueuedPodInfoPtr info = popLocked();
    if (!active_.startAttempt(*info)) {
      continue;
    }
    bumpUnschedulableGauge(*info, -1);
    return info;
  }
  return nullptr;
}

Status SchedulingQueue::addUnschedulableIfNotPresent(QueuedPodInfoPtr info,
                                                     int64_t /*podSchedulingCycle*/) {
  std::lock_guard<std::mutex> lock(mu_);
  // Whatever happens, this attempt is over.
  const std::string uid(info->uid());
  struct DoneOnExit {
    ActiveQueue& q;
    const std::string& uid;
    ~DoneOnExit() { q.done(uid); }
  } doneOnExit{active_, uid};

  const std::string key = info->key();
  if (unschedulable_.has(key)) {
    return Status::error("Pod " + key + " is already present in unschedulable queue");
  }
  if (active_.has(key)) {
    return Status::error("Pod " + key + " is already present in the active queue");
  }
  if (backoff_.has(key)) {
    return Status::error("Pod " + key + " is already present in the backoff queue");
  }
  if (!info->hasRejectors()) {
    ++info->consecutiveErrorsCount;  // an error: no plugin is to blame
  } else {
    ++info->unschedulableCount;
    info->consecutiveErrorsCount = 0;
  }
  info->timestamp = clock_->nowNanos();
  info->backoffExpiration.reset();
  bumpUnschedulableGauge(*info, 1);

  Strategy strategy = strategyForInFlightPod(*info);
  Where where = requeue(std::move(info), strategy, kScheduleAttemptFailure, false);
  if (where == Where::kActive || where == Where::kBackoff) {
    popCond_.notify_all();
  }
  return Status();
}

void SchedulingQueue::done(std::string_view uid) {
  std::lock_guard<std::mutex> lock(mu_);
  active_.done(uid);
}

void SchedulingQueue::activate(const std::vector<PodPtr>& pods) {
  std::lock_guard<std::mutex> lock(mu_);
  bool activated = false;
  for (const PodPtr& pod : pods) {
    if (activateOne(model::podKey(*pod))) {
      activated = true;
      continue;
    }
    // In flight: requeue it when it comes back. Unknown: nothing happens.
    active_.addEventsIfPodInFlight(pod->uid(), EventObject(), EventObject(pod),
                                   {eventForceActivate()});
  }
  if (activated) {
    popCond_.notify_all();
  }
}

void SchedulingQueue::activateKeys(const std::vector<std::string>& keys) {
  if (keys.empty()) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  bool activated = false;
  std::vector<std::string_view> rest;
  for (const std::string& key : keys) {
    if (activateOne(key)) {
      activated = true;
    } else {
      rest.push_back(key);
    }
  }
  if (!rest.empty() && active_.inFlightPodCount() > 0) {
    // In flight: requeue it when it comes back, as activate() does. The in-flight list is
    // keyed by uid, so look the keys up among the in-flight pods.
    std::unordered_map<std::string, PodPtr, StringHash, std::equal_to<>> byKey;
    for (PodPtr& pod : active_.inFlightPods()) {
      std::string key = model::podKey(*pod);
      byKey.emplace(std::move(key), std::move(pod));
    }
    for (std::string_view key : rest) {
      auto it = byKey.find(key);
      if (it != byKey.end()) {
        active_.addEventsIfPodInFlight(it->second->uid(), EventObject(), EventObject(it->second),
                                       {eventForceActivate()});
      }
    }
  }
  if (activated) {
    popCond_.notify_all();
  }
}

void SchedulingQueue::retryGatedBy(std::string_view key, std::string_view plugin) {
  std::lock_guard<std::mutex> lock(mu_);
  const QueuedPodInfo* gated = unschedulable_.get(key);
  if (gated == nullptr || gated->gatingPlugin != plugin) {
    return;
  }
  if (moveToActiveQ(unschedulable_.remove(key), kForceActivate, false, true) == Where::kActive) {
    popCond_.notify_all();
  }
}

int64_t SchedulingQueue::schedulingCycle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_.schedulingCycle();
}

void SchedulingQueue::flushBackoffQCompleted() {
  std::lock_guard<std::mutex> lock(mu_);
  flushBackoffQCompletedLocked();
}

void SchedulingQueue::flushUnschedulablePodsLeftover() {
  std::lock_guard<std::mutex> lock(mu_);
  flushUnschedulablePodsLeftoverLocked();
}

void SchedulingQueue::run() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_ || flusherStarted_) {
    return;
  }
  flusherStarted_ = true;
  flusher_ = std::thread([this] { flushLoop(); });
}

void SchedulingQueue::flushLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  int64_t now = clock_->nowNanos();
  // The backoff flush ticks on whole seconds, so a whole ordering window moves at once.
  int64_t nextBackoff = BackoffQueue::alignToWindow(now + kBackoffWindowNanos);
  int64_t nextLeftover = now;  // like wait.Until: at once, then every period
  while (!closed_) {
    now = clock_->nowNanos();
    if (now >= nextLeftover) {
      flushUnschedulablePodsLeftoverLocked();
      nextLeftover = now + kLeftoverFlushPeriodNanos;
    }
    if (now >= nextBackoff) {
      flushBackoffQCompletedLocked();
      nextBackoff = BackoffQueue::alignToWindow(now) + kBackoffWindowNanos;
    }
    int64_t sleep = std::min(nextBackoff, nextLeftover) - clock_->nowNanos();
    sleep = std::clamp(sleep, kMinFlusherSleepNanos, kMaxFlusherSleepNanos);
    flushCond_.wait_for(lock, std::chrono::nanoseconds(sleep));
  }
}

void SchedulingQueue::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) {
      closed_ = true;
      active_.doneAll();
    }
    popCond_.notify_all();
    flushCond_.notify_all();
  }
  std::lock_guard<std::mutex> join(joinMu_);
  if (flusher_.joinable() && flusher_.get_id() != std::this_thread::get_id()) {
    flusher_.join();
  }
}

// ---------------------------------------------------------------------------------------------
// Nominator

void SchedulingQueue::addNominatedPod(const PodPtr& pod, const NominatingInfo& info) {
  std::lock_guard<std::mutex> lock(mu_);
  nominator_.add(*pod, info);
}

void SchedulingQueue::deleteNominatedPodIfExists(const PodPtr& pod) {
  std::lock_guard<std::mutex> lock(mu_);
  nominator_.remove(*pod);
}

void SchedulingQueue::updateNominatedPod(const PodPtr& oldPod, const PodPtr& newPod) {
  std::lock_guard<std::mutex> lock(mu_);
  nominator_.update(*oldPod, *newPod);
}

bool SchedulingQueue::hasNominatedPods() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nominator_.size() > 0;
}

std::vector<PodPtr> SchedulingQueue::nominatedPodsForNode(std::string_view node) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PodPtr> out;
  for (const PodRef& ref : nominator_.podsForNode(node)) {
    const std::string key = ref.namespaceName + "/" + ref.name;
    const QueuedPodInfo* info = active_.get(key);
    if (info == nullptr) {
      info = unschedulable_.get(key);
    }
    if (info == nullptr) {
      info = backoff_.get(key);
    }
    PodPtr pod = info != nullptr ? info->pod : podFromRef(ref);
    if (pod != nullptr) {
      out.push_back(std::move(pod));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// State

PendingCounts SchedulingQueue::pendingCounts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return PendingCounts{active_.size(), backoff_.size(), unschedulable_.unschedulableCount(),
                       unschedulable_.gatedCount()};
}

bool SchedulingQueue::quiet() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_.empty() && backoff_.size() == 0 && active_.inFlightPodCount() == 0;
}

void SchedulingQueue::setMetrics(metrics::SchedulerMetrics* metrics) {
  std::lock_guard<std::mutex> lock(mu_);
  metrics_ = metrics;
}

QueueMetrics SchedulingQueue::metrics() const {
  std::lock_guard<std::mutex> lock(mu_);
  QueueMetrics out;
  static constexpr const char* kQueueNames[] = {"active", "backoff", "unschedulable"};
  for (int q = 0; q < 3; ++q) {
    for (const auto& [event, count] : incoming_[q]) {
      out.incomingPods[{kQueueNames[q], event}] = count;
    }
  }
  for (const auto& [plugin, byProfile] : unschedulableGauge_) {
    for (const auto& [profile, value] : byProfile) {
      out.unschedulablePods[{plugin, profile}] = value;
    }
  }
  for (const auto& [event, value] : active_.inFlightEventsGauge()) {
    out.inflightEvents[event] = value;
  }
  out.pendingPods = PendingCounts{active_.size(), backoff_.size(),
                                  unschedulable_.unschedulableCount(), unschedulable_.gatedCount()};
  return out;
}

std::optional<SchedulingQueue::PodLookup> SchedulingQueue::lookupForTest(
    std::string_view key) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (const QueuedPodInfo* info = active_.get(key)) {
    return PodLookup{PodLocation::kActive, *info};
  }
  if (const QueuedPodInfo* info = backoff_.get(key)) {
    return PodLookup{PodLocation::kBackoff, *info};
  }
  if (const QueuedPodInfo* info = unschedulable_.get(key)) {
    return PodLookup{PodLocation::kUnschedulable, *info};
  }
  for (const PodPtr& pod : active_.inFlightPods()) {
    if (model::podKey(*pod) == key) {
      QueuedPodInfo info;
      info.pod = pod;
      return PodLookup{PodLocation::kInFlight, std::move(info)};
    }
  }
  return std::nullopt;
}

PodPtr SchedulingQueue::pendingPod(std::string_view key) const {
  std::optional<PodLookup> found = lookupForTest(key);
  return found ? found->info.pod : nullptr;
}

std::vector<PodPtr> SchedulingQueue::inFlightPodsForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_.inFlightPods();
}

std::size_t SchedulingQueue::inFlightListSizeForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_.inFlightListSizeForTest();
}

std::vector<std::pair<std::string, ClusterEvent>> SchedulingQueue::registeredEventsForTest(
    std::string_view profile) const {
  std::vector<std::pair<std::string, ClusterEvent>> out;
  auto it = profileByName_.find(profile);
  if (it != profileByName_.end()) {
    for (const HintEntry& e : it->second->hints) {
      out.emplace_back(e.plugin, e.event);
    }
  }
  return out;
}

}  // namespace sh::queue

#include "coscheduling.h"

#include <schedhost/helpers/args.hpp>

#include <chrono>
#include <memory>
#include <mutex>

namespace coscheduling {

namespace {

constexpr char kPodGroupNotFound[] = "PodGroup not found";
constexpr char kNoPodGroup[] = "can not find pod group";
constexpr int64_t kNanosPerSecond = 1'000'000'000;
constexpr int64_t kMillisPerSecond = 1000;

// Event registrations, by index (queueingHint's `index`).
constexpr std::size_t kPodGroupEvents = 0;
constexpr std::size_t kPodAdds = 1;
constexpr std::size_t kNodeRoom = 2;
constexpr std::size_t kPodDeletes = 3;

// The registry's clock: monotonic, in nanoseconds.
int64_t now() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string str(std::string_view s) { return std::string(s); }

// "<namespace>/<group>": the registry's key, and upstream's "full name" in messages.
std::string fullName(std::string_view ns, std::string_view group) {
  return str(ns) + "/" + str(group);
}

// Reads the integer at `key` of the args object into `out`; reports a wrong type.
void readInt(const schedhost::Args& args, const char* key, int64_t& out) {
  schedhost::Args node = args[key];
  if (!node.present()) {
    return;
  }
  if (!node.isInt()) {
    node.error("Invalid value: expected an integer");
    return;
  }
  out = node.asInt();
}

}  // namespace

PodGroupSpec readPodGroup(const schedhost::Object& podGroup) noexcept {
  PodGroupSpec spec;
  spec.minMember = podGroup.path("spec.minMember").asInt();
  schedhost::Json timeout = podGroup.path("spec.scheduleTimeoutSeconds");
  if (timeout.isInt()) {
    spec.scheduleTimeoutSeconds = timeout.asInt();
  }
  spec.creationUnixNanos = podGroup.creationUnixNanos();
  return spec;
}

Coscheduling::Coscheduling(schedhost::Host& host, const schedhost::Args& args)
    : host_(host), groupLabel_(host.intern(kPodGroupLabel)) {
  if (args.present() && schedhost::expectObject(args)) {
    schedhost::rejectUnknownFields(
        args, {"permitWaitingTimeSeconds", "podGroupBackoffSeconds", "podGroupRejectPercentage"});
    readInt(args, "permitWaitingTimeSeconds", args_.permitWaitingTimeSeconds);
    readInt(args, "podGroupBackoffSeconds", args_.podGroupBackoffSeconds);
    readInt(args, "podGroupRejectPercentage", args_.podGroupRejectPercentage);
    for (const ArgsError& e : validate(args_)) {
      schedhost::errorAt(args, e.field.c_str(), e.message);
    }
  }
  if (!host.servesObjects()) {
    // A host older than ABI 1.2 never loads this plugin; should one claim to, every PodGroup
    // would read as missing and every member be held back.
    host.log(SH_LOG_WARN, "Coscheduling: the host serves no objects of declared kinds");
  }
}

std::string_view Coscheduling::groupOf(const sh_pod& pod) const noexcept {
  for (uint32_t i = 0; i < pod.label_count; ++i) {
    if (pod.labels[i].key == groupLabel_) {
      return schedhost::view(pod.labels[i].value_str);
    }
  }
  return {};
}

std::vector<std::string> Coscheduling::snapshotMembers(const schedhost::Cycle& cycle,
                                                       std::string_view ns,
                                                       std::string_view group) const {
  std::vector<std::string> uids;
  schedhost::Snapshot snapshot = cycle.snapshot();
  for (std::size_t i = 0; i < snapshot.size(); ++i) {
    const sh_node_info& node = snapshot.at(i);
    for (uint32_t j = 0; j < node.pod_count; ++j) {
      const sh_pod& p = *node.pods[j];
      if (schedhost::view(p.namespace_) == ns && groupOf(p) == group) {
        uids.emplace_back(schedhost::view(p.uid));
      }
    }
  }
  return uids;
}

// -- PreEnqueue -------------------------------------------------------------------------------
// Upstream has no PreEnqueue: its PreFilter counts the group's pods with a pod lister. Here
// PreEnqueue is where the pending members become known, and a member whose PodGroup does not
// exist waits, out of the active queue, for the PodGroup's Add.
schedhost::Status Coscheduling::preEnqueue(const sh_pod& pod) {
  const std::string_view group = groupOf(pod);
  if (group.empty()) {
    return {};
  }
  const std::string_view ns = schedhost::view(pod.namespace_);
  registry_.notePending(fullName(ns, group), schedhost::view(pod.uid), schedhost::view(pod.name),
                        now());
  if (!host_.objectGet(kPodGroups, ns, group)) {
    return schedhost::Status::unresolvable("PodGroup " + fullName(ns, group) + " not found");
  }
  return {};
}

// -- QueueSort --------------------------------------------------------------------------------
QueueKey Coscheduling::queueKey(const sh_queued_pod& q) const {
  const sh_pod& pod = *q.pod;
  QueueKey key;
  key.priority = pod.priority;
  key.ns = schedhost::view(pod.namespace_);
  key.podName = schedhost::view(pod.name);
  key.groupName = groupOf(pod);
  key.timeNanos = q.timestamp_unix_nanos;
  if (!key.groupName.empty()) {
    const int64_t created = host_.objectGet(kPodGroups, key.ns, key.groupName).creationUnixNanos();
    if (created != 0) {
      key.timeNanos = created;
    }
  }
  return key;
}

bool Coscheduling::less(const sh_queued_pod& a, const sh_queued_pod& b) {
  return lessQueued(queueKey(a), queueKey(b));
}

// -- PreFilter --------------------------------------------------------------------------------
// Upstream's checks: the group failed recently (podGroupBackoffSeconds), or it has fewer pods
// than minMember. UnschedulableAndUnresolvable: preemption cannot help either.
schedhost::Status Coscheduling::preFilter(schedhost::Cycle& cycle, const sh_pod& pod,
                                          schedhost::PreFilterResult& /*result*/) {
  const std::string_view group = groupOf(pod);
  if (group.empty()) {
    return {};
  }
  const std::string_view ns = schedhost::view(pod.namespace_);
  schedhost::Object pg = host_.objectGet(cycle, kPodGroups, ns, group);
  if (!pg) {
    return {};  // as upstream: Permit turns the pod away
  }
  const std::string key = fullName(ns, group);
  const int64_t t = now();
  if (registry_.backedOff(key, t)) {
    return schedhost::Status::unresolvable("podGroup " + key + " failed recently");
  }
  const PodGroupSpec spec = readPodGroup(pg);
  const int64_t pods =
      registry_.memberCount(key, snapshotMembers(cycle, ns, group), schedhost::view(pod.uid), t);
  if (pods < spec.minMember) {
    return schedhost::Status::unresolvable(
        notEnoughSiblings(schedhost::view(pod.name), pods, spec.minMember));
  }
  return {};
}

// -- PostFilter -------------------------------------------------------------------------------
// A member fits nowhere: unless the group is (nearly) there, the members waiting on Permit
// would wait for nothing, so they are rejected now rather than at their timeout.
schedhost::Status Coscheduling::postFilter(schedhost::Cycle& cycle, const sh_pod& pod) {
  const std::string_view group = groupOf(pod);
  const std::string_view ns = schedhost::view(pod.namespace_);
  schedhost::Object pg =
      group.empty() ? schedhost::Object() : host_.objectGet(cycle, kPodGroups, ns, group);
  if (!pg) {
    return schedhost::Status::unschedulable(kNoPodGroup);
  }
  const std::string key = fullName(ns, group);
  const PodGroupSpec spec = readPodGroup(pg);
  const int64_t t = now();
  const std::vector<std::string> onNodes = snapshotMembers(cycle, ns, group);
  const int64_t assigned = registry_.assignedCount(key, onNodes, {}, t);
  if (!failureRejectsGroup(spec.minMember, assigned, args_.podGroupRejectPercentage)) {
    return schedhost::Status(SH_UNSCHEDULABLE);
  }
  for (const std::string& uid : registry_.waitingExcept(key, schedhost::view(pod.uid))) {
    host_.rejectWaitingPod(uid, kName, "optimistic rejection in PostFilter");
  }
  if (args_.podGroupBackoffSeconds > 0 &&
      registry_.memberCount(key, onNodes, schedhost::view(pod.uid), t) >= spec.minMember) {
    registry_.backOff(key, t + args_.podGroupBackoffSeconds * kNanosPerSecond);
  }
  return schedhost::Status::unschedulable("PodGroup " + key + " gets rejected due to Pod " +
                                          str(schedhost::view(pod.name)) +
                                          " is unschedulable even after PostFilter");
}

// -- Reserve / Unreserve ----------------------------------------------------------------------
schedhost::Status Coscheduling::reserve(schedhost::Cycle& /*cycle*/, const sh_pod& /*pod*/,
                                        std::string_view /*node*/) {
  return {};
}

// The member failed after Reserve (rejected or timed out at Permit, or PreBind/Bind failed):
// the group cannot be complete in this round, so its other waiting members are let go too.
void Coscheduling::unreserve(schedhost::Cycle& cycle, const sh_pod& pod,
                             std::string_view /*node*/) {
  const std::string_view group = groupOf(pod);
  if (group.empty()) {
    return;
  }
  const std::string_view ns = schedhost::view(pod.namespace_);
  const std::string key = fullName(ns, group);
  const std::string_view uid = schedhost::view(pod.uid);
  registry_.forget(key, uid);
  if (!host_.objectGet(cycle, kPodGroups, ns, group)) {
    return;
  }
  for (const std::string& other : registry_.waitingExcept(key, uid)) {
    host_.rejectWaitingPod(other, kName, "rejection in Unreserve");
  }
}

// -- Permit -----------------------------------------------------------------------------------
// Holds the member until minMember of its group are assigned, counting it; the one that
// completes the group allows every waiting member and passes itself.
schedhost::Status Coscheduling::permit(schedhost::Cycle& cycle, const sh_pod& pod,
                                       std::string_view /*node*/, int64_t& timeoutMs) {
  const std::string_view group = groupOf(pod);
  if (group.empty()) {
    return {};
  }
  const std::string_view ns = schedhost::view(pod.namespace_);
  schedhost::Object pg = host_.objectGet(cycle, kPodGroups, ns, group);
  if (!pg) {
    return schedhost::Status::unschedulable(kPodGroupNotFound);
  }
  const PodGroupSpec spec = readPodGroup(pg);
  const std::string key = fullName(ns, group);
  const std::string_view uid = schedhost::view(pod.uid);
  const int64_t t = now();
  registry_.noteAssigned(key, uid);
  const int64_t assigned = registry_.assignedCount(key, snapshotMembers(cycle, ns, group), uid, t);
  if (assigned >= spec.minMember) {
    for (const std::string& waiting : registry_.takeWaiting(key)) {
      host_.allowWaitingPod(waiting, kName);
    }
    return {};
  }
  registry_.noteWaiting(key, uid);
  if (assigned == 1) {
    // The first member to wait brings its pending siblings back to the active queue, so that
    // the group is tried together (upstream's ActivateSiblings); later ones need not.
    for (const GangRegistry::Member& sibling : registry_.idleSiblings(key, uid, t)) {
      cycle.activatePod(ns, sibling.name);
    }
  }
  timeoutMs = waitSeconds(spec, args_.permitWaitingTimeSeconds) * kMillisPerSecond;
  return schedhost::Status(SH_WAIT);
}

// -- PostBind ---------------------------------------------------------------------------------
// Reports the group's progress in its status: phase Scheduling, then Scheduled once minMember
// members are bound, and the count in status.scheduled.
void Coscheduling::postBind(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view /*node*/) {
  const std::string_view group = groupOf(pod);
  if (group.empty()) {
    return;
  }
  const std::string_view ns = schedhost::view(pod.namespace_);
  const std::string key = fullName(ns, group);
  const int64_t t = now();
  registry_.noteBound(key, schedhost::view(pod.uid), t);
  schedhost::Object pg = host_.objectGet(cycle, kPodGroups, ns, group);
  if (!pg) {
    return;
  }
  const PodGroupSpec spec = readPodGroup(pg);
  // Members bind concurrently; counting and writing under the group's lock makes the last
  // write the largest count.
  std::shared_ptr<std::mutex> lock = registry_.statusLock(key);
  std::lock_guard<std::mutex> hold(*lock);
  const int64_t scheduled = registry_.boundCount(key, snapshotMembers(cycle, ns, group), t);
  const std::string patch = statusPatch(scheduled, spec.minMember);
  schedhost::Status written = host_.objectWrite(
      cycle, schedhost::ObjectWrite::patchStatus(kPodGroups, ns, group, SH_PATCH_MERGE, patch));
  if (!written.ok()) {
    std::string message = "Coscheduling: status of PodGroup " + key + " not updated:";
    for (const std::string& r : written.reasons()) {
      message += " " + r;
    }
    host_.log(SH_LOG_WARN, message);
  }
}

// -- EnqueueExtensions ------------------------------------------------------------------------
// As upstream: a PodGroup's Add or Update, and a pod's Add (a new member), may complete a group.
// Beyond upstream: room appearing (a node added or grown, a pod gone) too. A member turned away
// with its group (at Permit, by the group's timeout or another member's PostFilter) has this
// plugin as its only rejector, so without these it would wait for the queue's five-minute flush
// after the capacity the group lacked has arrived.
std::vector<schedhost::EventRegistration> Coscheduling::eventsToRegister() const {
  std::vector<schedhost::EventRegistration> events(4);
  events[kPodGroupEvents] = schedhost::EventRegistration::onDeclaredKind(
      kPodGroups, SH_ACTION_ADD | SH_ACTION_UPDATE, true);
  events[kPodAdds] = {SH_RESOURCE_POD, SH_ACTION_ADD, true};
  events[kNodeRoom] = {SH_RESOURCE_NODE,
                       SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_ALLOCATABLE |
                           SH_ACTION_UPDATE_NODE_LABEL | SH_ACTION_UPDATE_NODE_TAINT,
                       true};
  events[kPodDeletes] = {SH_RESOURCE_POD, SH_ACTION_DELETE, true};
  return events;
}

// Only an event on the pod's own group concerns it: its PodGroup, or a new pod of its group;
// room appearing concerns every member.
sh_queueing_hint Coscheduling::queueingHint(std::size_t index, const sh_pod& pod,
                                            const sh_event_objects& event) {
  const std::string_view group = groupOf(pod);
  const std::string_view ns = schedhost::view(pod.namespace_);
  if (group.empty()) {
    return SH_QUEUE_SKIP;
  }
  if (index == kNodeRoom || index == kPodDeletes) {
    return SH_QUEUE;
  }
  if (index == kPodGroupEvents) {
    schedhost::Object pg = schedhost::ObjectEvent(host_.api(), event).newObject();
    return pg && pg.ns() == ns && pg.name() == group ? SH_QUEUE : SH_QUEUE_SKIP;
  }
  const sh_pod* added = event.new_pod;
  return added != nullptr && schedhost::view(added->namespace_) == ns && groupOf(*added) == group
             ? SH_QUEUE
             : SH_QUEUE_SKIP;
}

}  // namespace coscheduling

SCHEDHOST_PLUGIN(coscheduling::Coscheduling, coscheduling::kName, coscheduling::kVersion)

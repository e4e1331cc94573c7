// The rules of gang scheduling, as pure functions of what the plugin read, so that they can be
// tested without a host. Upstream: scheduler-plugins pkg/coscheduling (coscheduling.go,
// core/core.go) and pkg/util/podgroup.go.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coscheduling {

// The label that makes a pod a member of the PodGroup it names, in the pod's namespace.
inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";

// What the plugin reads of a PodGroup (scheduling.x-k8s.io/v1alpha1).
struct PodGroupSpec {
  int64_t minMember = 0;                          // spec.minMember; unset: 0
  std::optional<int64_t> scheduleTimeoutSeconds;  // spec.scheduleTimeoutSeconds
  int64_t creationUnixNanos = 0;                  // metadata.creationTimestamp
};

// -- QueueSort ------------------------------------------------------------------------------
// What Less compares of a queued pod. `timeNanos` is its PodGroup's creation time, or, for a
// pod without one, when the pod entered the queue; `groupName` is its PodGroup's name (empty
// without one).
struct QueueKey {
  int32_t priority = 0;
  int64_t timeNanos = 0;
  std::string_view ns;
  std::string_view groupName;
  std::string_view podName;
};

// Upstream's Less: higher priority first, then the earlier time, so that the members of an
// older group pop before those of a newer one. Upstream then compares "<namespace>/<pod>"; here
// "<namespace>/<group>" comes first (a pod without a group standing for itself), so that the
// members of two groups created at the same time stay together, then "<namespace>/<pod>".
bool lessQueued(const QueueKey& a, const QueueKey& b) noexcept;

// -- PreFilter ------------------------------------------------------------------------------
// Upstream's message when a group has fewer pods than minMember.
std::string notEnoughSiblings(std::string_view podName, int64_t pods, int64_t minMember);

// -- PostFilter -----------------------------------------------------------------------------
// Whether a member's failure rejects the group's waiting members: not when `assigned` members
// (assumed, waiting or bound) already reach minMember, nor when the members still missing are
// at most `rejectPercentage` percent of minMember (the next members may still close the gap).
bool failureRejectsGroup(int64_t minMember, int64_t assigned, int64_t rejectPercentage) noexcept;

// -- Permit ---------------------------------------------------------------------------------
// How long Permit holds a member: the group's scheduleTimeoutSeconds when set and positive,
// else the args' permitWaitingTimeSeconds when positive, else 60 seconds (util.GetWaitTime).
int64_t waitSeconds(const PodGroupSpec& group, int64_t permitWaitingTimeSeconds) noexcept;

// -- PostBind -------------------------------------------------------------------------------
// The phase a group with `scheduled` bound members reports: Scheduled from minMember on.
std::string_view phaseOf(int64_t scheduled, int64_t minMember) noexcept;
// The merge patch of the status subresource that reports them.
std::string statusPatch(int64_t scheduled, int64_t minMember);

}  // namespace coscheduling

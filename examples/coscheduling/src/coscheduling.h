// Coscheduling: gang scheduling with the PodGroup custom resource (scheduling.x-k8s.io/v1alpha1),
// all or nothing: the members of a group are held at Permit until minMember of them have a
// node, then let through together; when the group cannot get there, the held members are
// rejected together. Upstream: kubernetes-sigs/scheduler-plugins pkg/coscheduling (v0.30+).
//
// Extension points: PreEnqueue, QueueSort, PreFilter, PostFilter, Reserve (Unreserve), Permit,
// PostBind, EnqueueExtensions. Reads and writes (status) PodGroups, a declared kind.
#pragma once

#include <schedhost/plugin.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "gang_registry.h"
#include "gang_rules.h"

namespace coscheduling {

inline constexpr const char* kName = "Coscheduling";
inline constexpr const char* kVersion = "0.1.0";

class Coscheduling : public schedhost::PreEnqueuePlugin,
                     public schedhost::QueueSortPlugin,
                     public schedhost::PreFilterPlugin,
                     public schedhost::PostFilterPlugin,
                     public schedhost::ReservePlugin,
                     public schedhost::PermitPlugin,
                     public schedhost::PostBindPlugin,
                     public schedhost::EnqueueExtensions {
 public:
  // The kinds of objects it reads: PodGroups, whose status it also writes.
  static constexpr uint32_t kPodGroups = 0;
  static constexpr sh_object_kind kKinds[] = {
      schedhost::objectKind("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup",
                            schedhost::kNamespaced, SH_VERB_UPDATE_STATUS)};
  static constexpr const char* kDefaultArgsJson = kDefaultArgs;

  Coscheduling(schedhost::Host& host, const schedhost::Args& args);

  schedhost::Status preEnqueue(const sh_pod& pod);
  bool less(const sh_queued_pod& a, const sh_queued_pod& b);
  schedhost::Status preFilter(schedhost::Cycle& cycle, const sh_pod& pod,
                              schedhost::PreFilterResult& result);
  schedhost::Status postFilter(schedhost::Cycle& cycle, const sh_pod& pod);
  schedhost::Status reserve(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view node);
  void unreserve(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view node);
  schedhost::Status permit(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view node,
                           int64_t& timeoutMs);
  void postBind(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view node);
  std::vector<schedhost::EventRegistration> eventsToRegister() const;
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  // The pod's PodGroup name (its label), or "".
  std::string_view groupOf(const sh_pod& pod) const noexcept;
  // The UIDs of the group's pods on nodes in the cycle's snapshot (assumed or bound).
  std::vector<std::string> snapshotMembers(const schedhost::Cycle& cycle, std::string_view ns,
                                           std::string_view group) const;
  QueueKey queueKey(const sh_queued_pod& q) const;

  schedhost::Host& host_;
  CoschedulingArgs args_;
  sh_id groupLabel_ = SH_ID_NONE;
  GangRegistry registry_;
};

// The PodGroup's spec and creation time.
PodGroupSpec readPodGroup(const schedhost::Object& podGroup) noexcept;

}  // namespace coscheduling

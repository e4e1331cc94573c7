// GangRegistry: what the plugin remembers about each PodGroup between calls, keyed by
// "<namespace>/<group>". Upstream keeps the same in PodGroupManager (assignedPodsByPG,
// backedOffPG) and asks a pod lister for the rest; the ABI has no pod lister, so the members
// that are still pending are those PreEnqueue saw.
//
//   pending    a member PreEnqueue let into the queue      --notePending-->  kept kMemberTtl
//   assigned   a member Permit passed or holds            --noteAssigned-->  until forget/bound
//   waiting    a member Permit holds                       --noteWaiting---->  until taken/forget
//   bound      a member PostBind saw                       --noteBound------>  kept kMemberTtl
//
// A pending member is forgotten kMemberTtl after PreEnqueue last saw it (a pod that stays in
// the queue is seen again at least every 5 minutes, when unschedulable pods are flushed; one
// that was deleted is not). A bound member is counted until the snapshots, which hold every
// assigned pod, have long caught up with it. Counts are of distinct pod UIDs.
//
// Thread-safe: PreEnqueue and QueueSort run on the queue's thread, the scheduling cycle on its
// own, Unreserve and PostBind on binding threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace coscheduling {

class GangRegistry {
 public:
  static constexpr int64_t kMemberTtlNanos = int64_t{15} * 60 * 1'000'000'000;

  struct Member {
    std::string uid;
    std::string name;
    bool operator==(const Member& o) const { return uid == o.uid && name == o.name; }
  };

  // PreEnqueue: member `uid` (pod `name`) of `group` is pending at `now`.
  void notePending(const std::string& group, std::string_view uid, std::string_view name,
                   int64_t now);
  // Permit: the member passed or is held; it counts as assigned.
  void noteAssigned(const std::string& group, std::string_view uid);
  // Permit: the member waits; allowGroup or rejectGroup hand its UID out.
  void noteWaiting(const std::string& group, std::string_view uid);
  // Unreserve: the member is neither assigned nor waiting any more.
  void forget(const std::string& group, std::string_view uid);
  // PostBind: the member is bound at `now`: no longer pending, assigned or waiting.
  void noteBound(const std::string& group, std::string_view uid, int64_t now);

  // The waiting members, removed (Permit let the group through: allow them all).
  std::vector<std::string> takeWaiting(const std::string& group);
  // The waiting members except `uid`, left in place (the host's rejection ends their wait and
  // Unreserve then forgets them).
  std::vector<std::string> waitingExcept(const std::string& group, std::string_view uid) const;
  // Pending members that neither wait nor are assigned, except `uid`: the siblings to activate.
  std::vector<Member> idleSiblings(const std::string& group, std::string_view uid,
                                   int64_t now) const;

  // Distinct members counted as assigned: those noted assigned or bound, the `snapshot` UIDs
  // (the group's pods on nodes in the cycle's snapshot) and `self` when not empty.
  int64_t assignedCount(const std::string& group, const std::vector<std::string>& snapshot,
                        std::string_view self, int64_t now) const;
  // Distinct members at all: assignedCount's plus the pending ones.
  int64_t memberCount(const std::string& group, const std::vector<std::string>& snapshot,
                      std::string_view self, int64_t now) const;
  // Distinct members bound: those noted bound and the `snapshot` UIDs.
  int64_t boundCount(const std::string& group, const std::vector<std::string>& snapshot,
                     int64_t now) const;

  // PostFilter: the group is turned away until `until`.
  void backOff(const std::string& group, int64_t until);
  bool backedOff(const std::string& group, int64_t now) const;

  // Held while a member reports the group's status, so that the reports of one group reach the
  // API server in the order of their counts.
  std::shared_ptr<std::mutex> statusLock(const std::string& group);

  // Groups with any state left (for tests: expired state is dropped).
  std::size_t groupCountForTest() const;

 private:
  struct Group {
    std::map<std::string, std::pair<std::string, int64_t>, std::less<>>
        pending;  // uid -> name, seen
    std::set<std::string, std::less<>> assigned;
    std::set<std::string, std::less<>> waiting;
    std::map<std::string, int64_t, std::less<>> bound;  // uid -> when
    int64_t backoffUntil = 0;
    std::shared_ptr<std::mutex> statusLock;
  };
  // Drops what expired in group `key` at `now`; removes the group when nothing is left.
  void expireLocked(const std::string& key, int64_t now);
  // expireLocked for every group, at most once a minute: a group nobody hears of again still
  // goes.
  void sweepLocked(int64_t now);
  void addFreshLocked(const Group& g, std::set<std::string, std::less<>>& uids, bool pending,
                      bool assigned, int64_t now) const;

  mutable std::mutex mu_;
  std::map<std::string, Group, std::less<>> groups_;
  int64_t lastSweep_ = 0;
};

}  // namespace coscheduling

// GangRegistry: which members count, when they stop counting, and what Permit, PostFilter and
// Unreserve are handed.
#include "gang_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coscheduling {
namespace {

constexpr int64_t kMinute = int64_t{60} * 1'000'000'000;
const std::string kGroup = "ns/pg";

using Uids = std::vector<std::string>;

TEST(GangRegistryTest, MembersAreCountedOnceWhereverTheyAreSeen) {
  GangRegistry r;
  r.notePending(kGroup, "u1", "p1", 0);
  r.notePending(kGroup, "u2", "p2", 0);
  r.notePending(kGroup, "u3", "p3", 0);
  r.notePending("ns/other", "x1", "x1", 0);
  // Pending members count for PreFilter, not as assigned.
  EXPECT_EQ(r.memberCount(kGroup, {}, "", 1), 3);
  EXPECT_EQ(r.assignedCount(kGroup, {}, "", 1), 0);
  // u1 passes Permit; u4 is on a node in the snapshot; u1 also shows up there once assumed.
  r.noteAssigned(kGroup, "u1");
  EXPECT_EQ(r.assignedCount(kGroup, Uids{"u4", "u1"}, "", 1), 2);
  EXPECT_EQ(r.memberCount(kGroup, Uids{"u4", "u1"}, "u2", 1), 4);  // u1..u4
  // The pod asking counts itself: Permit's count includes the pod in hand.
  EXPECT_EQ(r.assignedCount(kGroup, {}, "u2", 1), 2);
  EXPECT_EQ(r.assignedCount(kGroup, {}, "u1", 1), 1);
  // Other groups are apart.
  EXPECT_EQ(r.memberCount("ns/other", {}, "", 1), 1);
  EXPECT_EQ(r.memberCount("ns/none", {}, "", 1), 0);
}

TEST(GangRegistryTest, PermitHandsOutTheWaitingMembersOnce) {
  GangRegistry r;
  for (const char* uid : {"u1", "u2"}) {
    r.noteAssigned(kGroup, uid);
    r.noteWaiting(kGroup, uid);
  }
  EXPECT_EQ(r.waitingExcept(kGroup, "u1"), Uids{"u2"});
  EXPECT_EQ(r.takeWaiting(kGroup), (Uids{"u1", "u2"}));
  EXPECT_TRUE(r.takeWaiting(kGroup).empty());
  // Allowed members still count as assigned until they are bound or forgotten.
  EXPECT_EQ(r.assignedCount(kGroup, {}, "", 0), 2);
}

TEST(GangRegistryTest, UnreserveForgetsTheMember) {
  GangRegistry r;
  r.noteAssigned(kGroup, "u1");
  r.noteWaiting(kGroup, "u1");
  r.noteAssigned(kGroup, "u2");
  r.noteWaiting(kGroup, "u2");
  r.forget(kGroup, "u1");
  EXPECT_EQ(r.assignedCount(kGroup, {}, "", 0), 1);
  EXPECT_EQ(r.waitingExcept(kGroup, ""), Uids{"u2"});
  r.forget("ns/unknown", "u1");  // harmless
}

TEST(GangRegistryTest, IdleSiblingsAreThePendingOnesNotWaitingOrAssigned) {
  GangRegistry r;
  r.notePending(kGroup, "u1", "p1", 0);
  r.notePending(kGroup, "u2", "p2", 0);
  r.notePending(kGroup, "u3", "p3", 0);
  r.noteAssigned(kGroup, "u2");
  r.noteWaiting(kGroup, "u2");
  const std::vector<GangRegistry::Member> idle = r.idleSiblings(kGroup, "u1", 1);
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].name, "p3");
  EXPECT_TRUE(r.idleSiblings("ns/none", "u1", 1).empty());
}

TEST(GangRegistryTest, BoundMembersCountUntilTheSnapshotsHaveThem) {
  GangRegistry r;
  r.notePending(kGroup, "u1", "p1", 0);
  r.noteAssigned(kGroup, "u1");
  r.noteBound(kGroup, "u1", 0);
  // No longer pending or assigned, but bound: counted once everywhere.
  EXPECT_EQ(r.boundCount(kGroup, {}, 1), 1);
  EXPECT_EQ(r.boundCount(kGroup, Uids{"u1", "u2"}, 1), 2);
  EXPECT_EQ(r.assignedCount(kGroup, {}, "", 1), 1);
  EXPECT_EQ(r.memberCount(kGroup, {}, "", 1), 1);
  EXPECT_TRUE(r.idleSiblings(kGroup, "", 1).empty());
  // Past the TTL only the snapshot counts.
  EXPECT_EQ(r.boundCount(kGroup, {}, GangRegistry::kMemberTtlNanos), 0);
}

TEST(GangRegistryTest, PendingMembersExpireUnlessSeenAgain) {
  GangRegistry r;
  const int64_t ttl = GangRegistry::kMemberTtlNanos;
  r.notePending(kGroup, "u1", "p1", 0);
  r.notePending(kGroup, "u2", "p2", 0);
  r.notePending(kGroup, "u1", "p1", ttl - kMinute);  // re-queued: seen again
  EXPECT_EQ(r.memberCount(kGroup, {}, "", ttl - 1), 2);
  EXPECT_EQ(r.memberCount(kGroup, {}, "", ttl), 1);
  EXPECT_EQ(r.idleSiblings(kGroup, "", ttl).size(), 1u);
}

TEST(GangRegistryTest, ExpiredGroupsAreDropped) {
  GangRegistry r;
  const int64_t ttl = GangRegistry::kMemberTtlNanos;
  r.notePending("ns/a", "u1", "p1", 0);
  r.noteBound("ns/b", "u2", 0);
  EXPECT_EQ(r.groupCountForTest(), 2u);
  // A later call, for any group, sweeps the others once a minute has passed.
  r.notePending("ns/c", "u3", "p3", ttl + kMinute);
  EXPECT_EQ(r.groupCountForTest(), 1u);
  // A group with an assigned member is kept: it leaves with forget or noteBound.
  r.noteAssigned("ns/d", "u4");
  r.notePending("ns/c", "u3", "p3", 3 * ttl);
  EXPECT_EQ(r.groupCountForTest(), 2u);
}

TEST(GangRegistryTest, BackoffEndsAtItsDeadline) {
  GangRegistry r;
  EXPECT_FALSE(r.backedOff(kGroup, 0));
  r.backOff(kGroup, 10 * kMinute);
  EXPECT_TRUE(r.backedOff(kGroup, 10 * kMinute - 1));
  EXPECT_FALSE(r.backedOff(kGroup, 10 * kMinute));
  EXPECT_FALSE(r.backedOff("ns/other", 0));
}

TEST(GangRegistryTest, OneStatusLockPerGroup) {
  GangRegistry r;
  auto a = r.statusLock(kGroup);
  EXPECT_EQ(r.statusLock(kGroup), a);
  EXPECT_NE(r.statusLock("ns/other"), a);
}

}  // namespace
}  // namespace coscheduling

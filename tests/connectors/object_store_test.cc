// ObjectStore: declared kinds, changes and their events, versions, and the assume cache
// (upstream pkg/scheduler/util/assumecache/assume_cache_test.go's cases, in our terms).
#include "host/connectors/object_store.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace sh::connectors::object_store_test {
namespace {

ObjectKind podGroups(std::string labelSelector = "", std::string fieldSelector = "") {
  return ObjectKind{
      "scheduling.x-k8s.io",   "v1alpha1", "podgroups", "PodGroup", true, std::move(labelSelector),
      std::move(fieldSelector)};
}

ObjectPtr pg(const std::string& ns, const std::string& name, int rv,
             const std::string& labels = "{}", int minMember = 2) {
  std::string text = R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",)"
                     R"("metadata":{"namespace":")" +
                     ns + R"(","name":")" + name + R"(","uid":"u-)" + name +
                     R"(","resourceVersion":")" + std::to_string(rv) + R"(","labels":)" + labels +
                     R"(},"spec":{"minMember":)" + std::to_string(minMember) + "}}";
  std::string error;
  ObjectPtr o = StoredObject::parse(boost::json::parse(text), error);
  EXPECT_NE(o, nullptr) << error;
  return o;
}

std::string name(const sh_object* o) { return std::string(o->name.ptr, o->name.len); }

TEST(ObjectKindTest, NamesAndPaths) {
  ObjectKind k = podGroups();
  EXPECT_EQ(k.apiVersion(), "scheduling.x-k8s.io/v1alpha1");
  EXPECT_EQ(k.resourceName(), "podgroups.v1alpha1.scheduling.x-k8s.io");
  EXPECT_EQ(k.path(), "/apis/scheduling.x-k8s.io/v1alpha1/podgroups");
  EXPECT_EQ(k.path("ns1"), "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/ns1/podgroups");
  ObjectKind pvc{"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, "", ""};
  EXPECT_EQ(pvc.apiVersion(), "v1");
  EXPECT_EQ(pvc.path("a"), "/api/v1/namespaces/a/persistentvolumeclaims");
  EXPECT_EQ(eventResourceOf(pvc, 7), SH_RESOURCE_PERSISTENT_VOLUME_CLAIM);
  EXPECT_EQ(eventResourceOf(k, 7), kObjectEventResourceBase + 7);
}

TEST(ObjectKindTest, CheckRefusesBadNames) {
  EXPECT_EQ(checkKind(podGroups()), "");
  ObjectKind k = podGroups();
  k.group = "Scheduling_x";
  EXPECT_NE(checkKind(k).find("group \"Scheduling_x\": not a DNS subdomain"), std::string::npos);
  k = podGroups();
  k.resource = "PodGroups";
  EXPECT_NE(checkKind(k).find("resource \"PodGroups\""), std::string::npos);
  k = podGroups();
  k.kind = "podGroup";
  EXPECT_NE(checkKind(k).find("kind \"podGroup\""), std::string::npos);
  k = podGroups();
  k.version = "";
  EXPECT_NE(checkKind(k).find("version"), std::string::npos);
  ObjectStore store;
  k = podGroups();
  k.group = "-bad";
  EXPECT_THROW(store.addKind(k), std::invalid_argument);
}

TEST(ObjectStoreTest, AKindIsRegisteredOnce) {
  ObjectStore store;
  EXPECT_EQ(store.addKind(podGroups(), SH_VERB_PATCH, "Coscheduling"), 0u);
  EXPECT_EQ(store.addKind(podGroups(), SH_VERB_DELETE, "Other"), 0u);
  EXPECT_EQ(store.addKind(podGroups("team=a"), 0, "Other"), 1u);
  auto kinds = store.kinds();
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0].verbs, SH_VERB_PATCH | SH_VERB_DELETE);
  EXPECT_EQ(kinds[0].plugins, (std::vector<std::string>{"Coscheduling", "Other"}));
}

TEST(ObjectStoreTest, ChangesMakeEventsAndVersions) {
  ObjectStore store;
  const std::size_t id = store.addKind(podGroups());
  std::vector<ObjectEvent> events;
  store.apply(id, false, pg("b", "g2", 5), events);
  store.apply(id, false, pg("a", "g1", 3), events);
  store.apply(id, false, pg("a", "g1", 4, "{}", 3), events);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].action, SH_ACTION_ADD);
  EXPECT_EQ(events[2].action, SH_ACTION_UPDATE);
  EXPECT_EQ(events[2].oldObject->resourceVersion(), 3u);
  EXPECT_EQ(events[2].newObject->resourceVersion(), 4u);

  // A stale version (a resync racing a newer event) changes nothing.
  events.clear();
  store.apply(id, false, pg("a", "g1", 2), events);
  EXPECT_TRUE(events.empty());

  KindVersionPtr v = store.version(id);
  ASSERT_EQ(v->size(), 2u);
  std::size_t n = 0;
  const sh_object* const* all = v->all(n);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(name(all[0]), "g1");  // ordered by namespace, then name
  EXPECT_EQ(name(all[1]), "g2");
  const sh_object* const* inB = v->inNamespace("b", n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(name(inB[0]), "g2");
  v->inNamespace("c", n);
  EXPECT_EQ(n, 0u);
  ASSERT_NE(v->find("a", "g1"), nullptr);
  EXPECT_EQ(v->find("a", "g1")->resourceVersion(), 4u);
  EXPECT_EQ(v->find("b", "g1"), nullptr);

  // A version stays as it was taken; the next one reflects the deletion.
  events.clear();
  store.apply(id, true, pg("a", "g1", 4), events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].action, SH_ACTION_DELETE);
  EXPECT_EQ(v->size(), 2u);
  EXPECT_EQ(store.version(id)->size(), 1u);
}

TEST(ObjectStoreTest, SelectorsNarrowAKindAsAWatchWould) {
  ObjectStore store;
  const std::size_t all = store.addKind(podGroups());
  const std::size_t teamA = store.addKind(podGroups("team=a"));
  std::vector<ObjectEvent> events;
  store.applyByKind(false, pg("n", "g", 1, R"({"team":"a"})"), events);
  ASSERT_EQ(events.size(), 2u);  // an Add on each kind
  events.clear();
  // The label changes: still there for `all`, gone from `team=a`.
  store.applyByKind(false, pg("n", "g", 2, R"({"team":"b"})"), events);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, all);
  EXPECT_EQ(events[0].action, SH_ACTION_UPDATE);
  EXPECT_EQ(events[1].kind, teamA);
  EXPECT_EQ(events[1].action, SH_ACTION_DELETE);
  EXPECT_EQ(store.version(teamA)->size(), 0u);
}

TEST(ObjectStoreTest, AKindDeclaredLaterFindsTheObjectsAlreadyDelivered) {
  ObjectStore store;
  std::vector<ObjectEvent> events;
  store.applyByKind(false, pg("n", "g", 1), events);
  EXPECT_TRUE(events.empty());  // nobody reads PodGroups yet
  std::vector<std::size_t> announced;
  store.onKindAdded([&](std::size_t id, const ObjectKind&) { announced.push_back(id); });
  const std::size_t id = store.addKind(podGroups());
  EXPECT_EQ(announced, std::vector<std::size_t>{id});
  ASSERT_EQ(store.version(id)->size(), 1u);
}

TEST(ObjectStoreTest, ReplaceMakesTheEventsOfTheDifference) {
  ObjectStore store;
  const std::size_t id = store.addKind(podGroups());
  std::vector<ObjectEvent> events;
  store.apply(id, false, pg("n", "keep", 1), events);
  store.apply(id, false, pg("n", "gone", 1), events);
  store.apply(id, false, pg("n", "changed", 1), events);
  events.clear();
  store.replace(id, {pg("n", "keep", 1), pg("n", "changed", 2), pg("n", "new", 1)}, events);
  std::vector<std::pair<std::string, uint32_t>> got;
  for (const ObjectEvent& e : events) {
    const ObjectPtr& o = e.newObject != nullptr ? e.newObject : e.oldObject;
    got.emplace_back(std::string(o->name()), e.action);
  }
  EXPECT_EQ(
      got, (std::vector<std::pair<std::string, uint32_t>>{
               {"gone", SH_ACTION_DELETE}, {"changed", SH_ACTION_UPDATE}, {"new", SH_ACTION_ADD}}));
}

TEST(ObjectStoreTest, AssumeHidesTheStoredVersionUntilANewerOneArrives) {
  ObjectStore store;
  const std::size_t id = store.addKind(podGroups());
  std::vector<ObjectEvent> events;
  store.apply(id, false, pg("n", "g", 5), events);
  EXPECT_FALSE(store.hasAssumed(id));

  // Not stored: refused.
  EXPECT_FALSE(store.assume(id, pg("n", "other", 5)).ok());
  // Older than the stored one: refused (assumecache: "is newer than assumed one").
  Status older = store.assume(id, pg("n", "g", 4));
  EXPECT_FALSE(older.ok());
  EXPECT_NE(older.message().find("newer than the assumed one"), std::string::npos);

  ASSERT_TRUE(store.assume(id, pg("n", "g", 5, "{}", 9)).ok());
  ASSERT_TRUE(store.hasAssumed(id));
  ObjectPtr a = store.assumed(id, "n/g");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->view().assumed, 1);

  // The same version again (a resync) keeps the assumed one.
  store.apply(id, false, pg("n", "g", 5), events);
  EXPECT_NE(store.assumed(id, "n/g"), nullptr);
  // A newer version replaces it.
  store.apply(id, false, pg("n", "g", 6), events);
  EXPECT_EQ(store.assumed(id, "n/g"), nullptr);
  EXPECT_FALSE(store.hasAssumed(id));

  // Restore drops it.
  ASSERT_TRUE(store.assume(id, pg("n", "g", 6, "{}", 1)).ok());
  store.restore(id, "n/g");
  EXPECT_EQ(store.assumed(id, "n/g"), nullptr);
}

TEST(ObjectStoreTest, FindLooksUpEveryObjectOfALargeKind) {
  // Enough objects to fill many slots of the hash index, names that share prefixes, and two
  // whose namespace and name run together alike ("n1" + "0", "n" + "10").
  ObjectStore store;
  const std::size_t id = store.addKind(podGroups());
  std::vector<ObjectEvent> events;
  for (int i = 0; i < 3000; ++i) {
    store.apply(id, false, pg("n" + std::to_string(i % 7), "g" + std::to_string(i), 1), events);
  }
  store.apply(id, false, pg("n", "10", 1), events);
  store.apply(id, false, pg("n1", "0", 2), events);
  KindVersionPtr v = store.version(id);
  ASSERT_EQ(v->size(), 3002u);
  for (int i = 0; i < 3000; ++i) {
    const std::string ns = "n" + std::to_string(i % 7);
    const std::string nm = "g" + std::to_string(i);
    const StoredObject* o = v->find(ns, nm);
    ASSERT_NE(o, nullptr) << ns << "/" << nm;
    EXPECT_EQ(o->key(), ns + "/" + nm);
    // The same name in the next namespace is another object, or none.
    const StoredObject* other = v->find("n" + std::to_string((i + 1) % 7), nm);
    EXPECT_EQ(other, nullptr) << nm;
  }
  ASSERT_NE(v->find("n", "10"), nullptr);
  EXPECT_EQ(v->find("n", "10")->resourceVersion(), 1u);
  ASSERT_NE(v->find("n1", "0"), nullptr);
  EXPECT_EQ(v->find("n1", "0")->resourceVersion(), 2u);
  EXPECT_EQ(v->find("n", "1"), nullptr);
  EXPECT_EQ(v->find("", "g1"), nullptr);
  EXPECT_EQ(v->find("n1", ""), nullptr);

  // An empty kind answers nothing.
  const std::size_t empty = store.addKind(podGroups("team=none"));
  EXPECT_EQ(store.version(empty)->find("n1", "g1"), nullptr);
}

TEST(ObjectStoreTest, ReadVersionMovesWithEveryChangeOfTheKind) {
  ObjectStore store;
  const std::size_t id = store.addKind(podGroups());
  const std::size_t other = store.addKind(podGroups("team=a"));
  std::vector<ObjectEvent> events;
  store.apply(id, false, pg("n", "g", 5), events);

  const uint64_t first = store.readVersion(id, nullptr);
  EXPECT_NE(first, 0u);
  EXPECT_EQ(store.readVersion(id, nullptr), first);  // nothing changed: the same number
  KindVersionPtr taken = store.version(id);
  EXPECT_EQ(store.readVersion(id, taken.get()), first);
  EXPECT_EQ(store.readVersion(99, nullptr), 0u);  // an unknown kind names no version

  // A change of another kind leaves the number alone.
  store.apply(other, false, pg("n", "h", 1, R"({"team":"a"})"), events);
  EXPECT_EQ(store.readVersion(id, nullptr), first);

  // A change of the kind gives a new number; the version a cycle took keeps its own.
  store.apply(id, false, pg("n", "g", 6), events);
  const uint64_t second = store.readVersion(id, nullptr);
  EXPECT_NE(second, first);
  EXPECT_EQ(store.readVersion(id, taken.get()), first);

  // Assuming changes what reads return: a new number, stable while the assumed set stays.
  ASSERT_TRUE(store.assume(id, pg("n", "g", 6, "{}", 9)).ok());
  const uint64_t assumed = store.readVersion(id, nullptr);
  EXPECT_NE(assumed, second);
  EXPECT_NE(assumed, first);
  EXPECT_EQ(store.readVersion(id, nullptr), assumed);
  // Restoring, then assuming the same again, is another assumed set: never an old number.
  store.restore(id, "n/g");
  const uint64_t restored = store.readVersion(id, nullptr);
  EXPECT_EQ(restored, second);  // the stored version again, as reads see it
  ASSERT_TRUE(store.assume(id, pg("n", "g", 6, "{}", 9)).ok());
  const uint64_t again = store.readVersion(id, nullptr);
  for (uint64_t seen : {first, second, assumed}) {
    EXPECT_NE(again, seen);
  }
  // A deletion moves it too.
  store.apply(id, true, pg("n", "g", 6), events);
  EXPECT_NE(store.readVersion(id, nullptr), again);
}

TEST(StoredObjectTest, RefusesMalformedObjects) {
  std::string error;
  EXPECT_EQ(StoredObject::parse(boost::json::parse("[1]"), error), nullptr);
  EXPECT_EQ(error, "not a JSON object");
  EXPECT_EQ(StoredObject::parse(boost::json::parse(R"({"metadata":{}})"), error), nullptr);
  EXPECT_NE(error.find("metadata.name"), std::string::npos);
  EXPECT_EQ(StoredObject::parse(
                boost::json::parse(R"({"metadata":{"name":"a","resourceVersion":"x1"}})"), error),
            nullptr);
  EXPECT_NE(error.find("resourceVersion"), std::string::npos);
  EXPECT_EQ(StoredObject::parse(boost::json::parse(R"({"metadata":{"name":"a"}})"), error,
                                kMaxObjectBytes + 1),
            nullptr);
  EXPECT_NE(error.find("at most"), std::string::npos);
}

}  // namespace
}  // namespace sh::connectors::object_store_test

// ObjectsProbe (objects_plugin.c) in the running scheduler on the embedded cluster: its queueing
// hint gets the old and new PodGroup and the kind's index, so an Add of a PodGroup that is not
// ready leaves the pod where it is and the Update that makes it ready brings it back; the
// binding then applies its writes, and the object the watch delivers carries them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "host/connectors/object_store.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::objects_plugin_events_test {
namespace {

using testing::SchedulerHarness;

constexpr char kProfile[] = R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = "ObjectsProbe" } ]
)";

boost::json::value podGroup(bool ready, int rv) {
  boost::json::object o;
  o["apiVersion"] = "scheduling.x-k8s.io/v1alpha1";
  o["kind"] = "PodGroup";
  o["metadata"] = {{"namespace", "ns"},
                   {"name", "g1"},
                   {"uid", "g1-uid"},
                   {"resourceVersion", std::to_string(rv)},
                   {"labels", {{"team", "red"}}}};
  o["spec"] = {{"minMember", 2}, {"ready", ready}};
  return o;
}

// A copy of the stored ns/<name> of ObjectsProbe's first kind (PodGroups), or null. A copy: the
// version that holds the object may be replaced by the watch as soon as it is let go.
boost::json::value stored(SchedulerHarness& h, const std::string& name) {
  connectors::KindVersionPtr v = h.objects().version(h.kindIdOf("ObjectsProbe"));
  const connectors::StoredObject* o = v != nullptr ? v->find("ns", name) : nullptr;
  return o != nullptr ? o->json() : boost::json::value();
}

std::string annotation(SchedulerHarness& h, const std::string& key) {
  const boost::json::value g = stored(h, "g1");
  if (g.is_null()) {
    return "";
  }
  const boost::json::value* a = g.at("metadata").as_object().if_contains("annotations");
  const boost::json::value* v =
      a != nullptr && a->is_object() ? a->as_object().if_contains(key) : nullptr;
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "";
}

TEST(ObjectsPluginEventsTest, TheHintSeesOldAndNewObjectsAndTheWritesAreApplied) {
  SchedulerHarness h({.profiles = kProfile, .follow = true});
  h.add(testing::node("n1", "4", "32Gi"));
  boost::json::value pod = testing::pod("p", "100m", "100Mi");
  pod.at("metadata").as_object()["labels"] = {{"probe/group", "g1"}};
  h.add(pod);
  ASSERT_NO_FATAL_FAILURE(h.start());
  ASSERT_EQ(h.kindsDeclaredBy("ObjectsProbe").size(), 2u);
  h.runInBackground();
  auto rejected = [&] {
    auto p = h.cluster().pod("ns", "p");
    auto c = p != nullptr ? testing::podScheduledCondition(*p) : std::nullopt;
    return c.has_value() &&
           c->at("message").as_string().find("podgroup ns/g1 not found") != std::string::npos;
  };
  ASSERT_TRUE(h.eventually(rejected));

  // Added, not ready: the hint (new object, no old one) answers Skip.
  h.appendChange("ADDED", podGroup(false, 1));
  ASSERT_TRUE(h.eventually([&] { return !stored(h, "g1").is_null(); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(h.cluster().pod("ns", "p")->nodeName().empty());

  // Made ready: the hint sees the old object not ready and the new one ready, and queues.
  h.appendChange("MODIFIED", podGroup(true, 2));
  ASSERT_TRUE(h.eventually([&] { return h.cluster().pod("ns", "p")->nodeName() == "n1"; }));

  // The binding's writes reached the cluster and came back through the watch: the copy Reserve
  // created was deleted in PreBind, Permit's status patch and JSON patch are there, and PreBind's
  // put was refused (its resourceVersion is behind those writes) before the report was patched.
  ASSERT_TRUE(h.eventually([&] { return !annotation(h, "probe/report").empty(); }));
  const std::string report = annotation(h, "probe/report");
  EXPECT_NE(report.find("kind=PodGroup;uid=g1-uid;rv=2;team=red;created=0;assumed=0;root=6;"
                        "min=2;name=g1"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("assume=0;assumed-cycle=1/99;assumed-latest=1/99;restored=0/2;"
                        "assume-missing=1/1;create=0;put-status=0;json-patch=0;patch-status=0;"
                        "widget=1;delete=0;put=1"),
            std::string::npos)
      << report;
  const boost::json::value g = stored(h, "g1");
  ASSERT_FALSE(g.is_null());
  EXPECT_EQ(g.at("status").at("phase"), "Permitted");
  EXPECT_EQ(g.at("spec").at("minMember"), 3);
  EXPECT_EQ(annotation(h, "probe/put"), "");
  EXPECT_TRUE(stored(h, "g1-copy").is_null());
  h.stopBackground();
}

}  // namespace
}  // namespace sh::cycle::objects_plugin_events_test

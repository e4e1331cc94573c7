// Objects of declared kinds end to end (ABI 1.2): TestObjects reads a Widget custom resource in
// PreFilter through the cycle, is asked (its queueing hint) about every Widget event, and
// writes the Widget's status in PreBind; the embedded cluster applies the write and delivers
// it back through the watch.
#include "host/cycle/scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "host/connectors/object_store.h"
#include "tests/cycle/scheduler_harness.h"

namespace sh::cycle::scheduler_objects_test {
namespace {

using testing::node;
using testing::SchedulerHarness;

constexpr char kObjectsProfile[] = R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
enabled = [ { name = "TestObjects" } ]
)";

boost::json::value widget(bool open, int rv) {
  boost::json::object o;
  o["apiVersion"] = "example.com/v1";
  o["kind"] = "Widget";
  o["metadata"] = {{"namespace", "ns"},
                   {"name", "gate"},
                   {"uid", "gate-uid"},
                   {"resourceVersion", std::to_string(rv)}};
  o["spec"] = {{"open", open}};
  return o;
}

// The stored gate's status.lastPod, or "".
std::string lastPod(SchedulerHarness& h) {
  connectors::KindVersionPtr v = h.objects().version(h.kindIdOf("TestObjects"));
  const connectors::StoredObject* gate = v != nullptr ? v->find("ns", "gate") : nullptr;
  if (gate == nullptr) {
    return "";
  }
  const boost::json::value* status = gate->json().as_object().if_contains("status");
  const boost::json::value* last = status != nullptr && status->is_object()
                                       ? status->as_object().if_contains("lastPod")
                                       : nullptr;
  return last != nullptr && last->is_string() ? std::string(last->as_string()) : "";
}

TEST(SchedulerObjectsTest, APodWaitsForItsObjectAndTheBindingWritesIt) {
  SchedulerHarness h({.profiles = kObjectsProfile, .follow = true});
  h.add(node("n1", "4", "32Gi"));
  h.add(testing::pod("p", "100m", "100Mi"));
  ASSERT_NO_FATAL_FAILURE(h.start());
  const auto kinds = h.kindsDeclaredBy("TestObjects");
  ASSERT_EQ(kinds.size(), 1u);
  EXPECT_EQ(kinds[0].plugins, std::vector<std::string>{"TestObjects"});
  h.runInBackground();
  auto rejected = [&] {
    auto p = h.cluster().pod("ns", "p");
    auto c = p != nullptr ? testing::podScheduledCondition(*p) : std::nullopt;
    return c.has_value() &&
           c->at("message").as_string().find("widget gate is closed") != std::string::npos;
  };
  ASSERT_TRUE(h.eventually(rejected));

  // A closed gate: the hint says Skip, the pod stays where it is.
  h.appendChange("ADDED", widget(false, 1));
  ASSERT_TRUE(
      h.eventually([&] { return h.objects().version(h.kindIdOf("TestObjects"))->size() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(h.cluster().pod("ns", "p")->nodeName().empty());

  // Opened: the pod is retried, scheduled, and PreBind's status write reaches the object.
  h.appendChange("MODIFIED", widget(true, 2));
  ASSERT_TRUE(h.eventually([&] { return h.cluster().pod("ns", "p")->nodeName() == "n1"; }));
  ASSERT_TRUE(h.eventually([&] { return lastPod(h) == "p"; }));
  // The write kept spec and bumped the resourceVersion.
  // Held: the version owns the object, and the watch may replace it.
  const connectors::KindVersionPtr version = h.objects().version(h.kindIdOf("TestObjects"));
  const connectors::StoredObject* gate = version->find("ns", "gate");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->resourceVersion(), 3u);
  EXPECT_TRUE(gate->json().at("spec").at("open").as_bool());
  h.stopBackground();
}

}  // namespace
}  // namespace sh::cycle::scheduler_objects_test

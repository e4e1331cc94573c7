// ObjectsProbe (objects_plugin.c), a plugin of the raw C ABI, through the real host under
// `evaluate`: the scenario's objects reach its declared kinds, its reads through the cycle see
// them (view, JSON tree, lists, selectors, JSON text), the assume cache hides and restores, and
// each of its writes is recorded in the binding plan. Its report, the last write, says what it
// read.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <string>
#include <vector>

#include "host/evaluate/evaluate.h"

namespace sh::evaluate::objects_plugin_test {
namespace {

constexpr char kScenario[] = R"({
  "nodes": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
             "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "ns", "uid": "p-uid",
                       "labels": {"probe/group": "g1"}},
          "spec": {"containers": [{"name": "c", "image": "i"}]}},
  "objects": [
    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
     "metadata": {"name": "g1", "namespace": "ns", "uid": "g1-uid", "resourceVersion": "5",
                  "creationTimestamp": "2026-01-02T03:04:05Z", "labels": {"team": "red"}},
     "spec": {"minMember": 2, "tags": ["a", "b"], "ratio": 1.5, "gang": true}},
    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
     "metadata": {"name": "g2", "namespace": "ns", "labels": {"team": "blue"}},
     "spec": {"minMember": 1}},
    {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
     "metadata": {"name": "g3", "namespace": "other", "labels": {"team": "red"}},
     "spec": {"minMember": 1}},
    {"apiVersion": "example.com/v1", "kind": "ClusterWidget",
     "metadata": {"name": "w-gold", "labels": {"tier": "gold"}}},
    {"apiVersion": "example.com/v1", "kind": "ClusterWidget",
     "metadata": {"name": "w-iron", "labels": {"tier": "iron"}}},
    {"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "ignored"}}
  ],
  "plugins": [{"name": "ObjectsProbe"}]
})";

Result evaluate(const std::string& text) {
  std::string error;
  auto s = parseScenario(boost::json::parse(text), error);
  EXPECT_TRUE(s.has_value()) << error;
  Options o;
  o.pluginDirs = {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_OBJECTS_PLUGIN_DIR};
  return run(*s, o);
}

// What PreFilter read: the view, every JSON accessor, the lists (kind 1 narrowed to tier=gold
// by its declared selector; a selector that does not parse lists nothing), a missing object
// and the object's JSON text.
constexpr char kReads[] =
    "kind=PodGroup;uid=g1-uid;rv=5;team=red;created=1;assumed=0;root=6;min=2;name=g1;"
    "tags=2/b;key0=minMember;ratio=1.50;gang=1;nothing=1;red=g1;all=g1,g2,g3;bad=0;"
    "widgets=w-gold;nope=1;json=1";
// Reserve's assume cache (0 is SH_SUCCESS, 1 SH_ERROR): the assumed version read through the
// cycle and without, the stored one after restore, the refused assume of a missing object
// with its one reason; then its writes, Permit's (the widget's refused: kind 1 declares no
// verb), PreBind's.
constexpr char kAssumeAndWrites[] =
    "assume=0;assumed-cycle=1/99;assumed-latest=1/99;restored=0/2;assume-missing=1/1;"
    "create=0;put-status=0;json-patch=0;patch-status=0;widget=1;delete=0;put=0";

TEST(ObjectsPluginTest, EveryServiceThroughEvaluate) {
  Result r = evaluate(kScenario);
  ASSERT_TRUE(r.selected.has_value()) << r.message;
  EXPECT_EQ(*r.selected, "n1");
  const std::string pg = "podgroups.v1alpha1.scheduling.x-k8s.io";
  const std::string group = R"({"apiVersion":"scheduling.x-k8s.io/v1alpha1","kind":"PodGroup",)";
  EXPECT_EQ(
      r.writes["reserve"]["ObjectsProbe"],
      (std::vector<std::string>{
          "create " + pg + " ns/g1-copy: " + group +
              R"("metadata":{"name":"g1-copy"},"spec":{"minMember":1}})",
          "update status " + pg + " ns/g1: " + group +
              R"("metadata":{"namespace":"ns","name":"g1"},"status":{"phase":"Reserved"}})"}));
  EXPECT_EQ(
      r.writes["permit"]["ObjectsProbe"],
      (std::vector<std::string>{
          "patch " + pg + R"( ns/g1 (json): [{"op":"replace","path":"/spec/minMember","value":3}])",
          "patch status " + pg + R"( ns/g1 (merge): {"status":{"phase":"Permitted"}})"}));
  const std::vector<std::string>& preBind = r.writes["preBind"]["ObjectsProbe"];
  ASSERT_EQ(preBind.size(), 3u);
  EXPECT_EQ(preBind[0], "delete " + pg + " ns/g1-copy");
  EXPECT_EQ(preBind[1], "update " + pg + " ns/g1: " + group +
                            R"("metadata":{"namespace":"ns","name":"g1","resourceVersion":"5",)"
                            R"("annotations":{"probe/put":"yes"}},"spec":{"minMember":2}})");
  EXPECT_EQ(preBind[2], "patch " + pg + R"( ns/g1 (merge): {"metadata":{"annotations":)" +
                            R"({"probe/report":")" + kReads + ";" + kAssumeAndWrites + "\"}}}");
}

TEST(ObjectsPluginTest, AMissingObjectIsNoneThroughTheCycle) {
  std::string text = kScenario;
  text.replace(text.find(R"("probe/group": "g1")"), 19, R"("probe/group": "g9")");
  Result r = evaluate(text);
  EXPECT_FALSE(r.selected.has_value());
  ASSERT_EQ(r.preFilter.count("ObjectsProbe"), 1u);
  EXPECT_EQ(r.preFilter.at("ObjectsProbe").code, "Unschedulable");
  EXPECT_EQ(r.preFilter.at("ObjectsProbe").reasons,
            std::vector<std::string>{"podgroup ns/g9 not found"});
  EXPECT_TRUE(r.writes.empty());
}

}  // namespace
}  // namespace sh::evaluate::objects_plugin_test

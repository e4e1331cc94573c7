// TaintToleration: Filter on NoSchedule/NoExecute taints, Score on PreferNoSchedule taints
// (reversed normalisation), events. Cases after upstream taint_toleration_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kTaint[] = "TaintToleration";
constexpr char kUntolerated[] = "node(s) had untolerated taint(s)";

struct FilterCase {
  std::string name;
  PodPtr pod;
  NodePtr node;
  bool fits;
};

TEST(TaintTolerationTest, Filter) {
  auto pod = [] { return MakePod().Name("p").UID("p").Container("img"); };
  auto node = [] { return MakeNode().Name("n1"); };
  std::vector<FilterCase> cases = {
      {"a node without taints", pod().Obj(), node().Obj(), true},
      {"an untolerated NoSchedule taint", pod().Obj(),
       node().Taint("dedicated", "user1", "NoSchedule").Obj(), false},
      {"an untolerated NoExecute taint", pod().Obj(),
       node().Taint("dedicated", "user1", "NoExecute").Obj(), false},
      {"PreferNoSchedule never filters", pod().Obj(),
       node().Taint("dedicated", "user1", "PreferNoSchedule").Obj(), true},
      {"Equal toleration with the same key, value and effect",
       pod().Toleration("dedicated", "Equal", "user1", "NoSchedule").Obj(),
       node().Taint("dedicated", "user1", "NoSchedule").Obj(), true},
      {"an empty operator means Equal",
       pod().Toleration("dedicated", "", "user1", "NoSchedule").Obj(),
       node().Taint("dedicated", "user1", "NoSchedule").Obj(), true},
      {"Equal toleration with another value",
       pod().Toleration("dedicated", "Equal", "user2", "NoSchedule").Obj(),
       node().Taint("dedicated", "user1", "NoSchedule").Obj(), false},
      {"Exists tolerates any value", pod().Toleration("foo", "Exists", "", "NoSchedule").Obj(),
       node().Taint("foo", "bar", "NoSchedule").Obj(), true},
      {"an empty effect tolerates every effect", pod().Toleration("foo", "Equal", "bar", "").Obj(),
       node().Taint("foo", "bar", "NoExecute").Obj(), true},
      {"an effect mismatch", pod().Toleration("foo", "Equal", "bar", "NoExecute").Obj(),
       node().Taint("foo", "bar", "NoSchedule").Obj(), false},
      {"an empty key with Exists tolerates everything",
       pod().Toleration("", "Exists", "", "").Obj(),
       node().Taint("foo", "bar", "NoSchedule").Taint("baz", "", "NoExecute").Obj(), true},
      {"every taint needs a toleration",
       pod().Toleration("foo", "Equal", "bar", "NoSchedule").Obj(),
       node().Taint("foo", "bar", "NoSchedule").Taint("baz", "qux", "NoSchedule").Obj(), false},
      {"an untolerated PreferNoSchedule beside tolerated NoSchedule",
       pod().Toleration("foo", "Equal", "bar", "NoSchedule").Obj(),
       node().Taint("foo", "bar", "NoSchedule").Taint("baz", "qux", "PreferNoSchedule").Obj(),
       true},
      // The Lt/Gt operators are behind an alpha gate, off in 1.36: they tolerate nothing.
      {"Gt tolerates nothing with the gate off",
       pod().Toleration("level", "Gt", "1", "NoSchedule").Obj(),
       node().Taint("level", "5", "NoSchedule").Obj(), false},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = Evaluate({{kTaint, ""}}, {c.node}, {}, c.pod);
    auto status = FilterStatus(result, "n1", kTaint);
    if (c.fits) {
      EXPECT_EQ(status.code, "Success");
    } else {
      EXPECT_EQ(status.code, "UnschedulableAndUnresolvable");
      EXPECT_EQ(status.reasons, std::vector<std::string>{kUntolerated});
    }
  }
}

TEST(TaintTolerationTest, Score) {
  auto prefer = [](const std::string& name, int untolerated) {
    auto node = MakeNode().Name(name);
    for (int i = 0; i < untolerated; ++i) {
      node.Taint("key" + std::to_string(i), "v", "PreferNoSchedule");
    }
    return node.Taint("tolerated", "v", "PreferNoSchedule");
  };
  PodPtr pod = MakePod()
                   .Name("p")
                   .UID("p")
                   .Container("img")
                   .Toleration("tolerated", "Equal", "v", "PreferNoSchedule")
                   .Toleration("key0", "Equal", "v", "NoSchedule")
                   .Obj();
  RunScoreCases(
      kTaint,
      {
          // Untolerated PreferNoSchedule taints: n1 0, n2 1, n3 2 (the NoSchedule toleration of
          // key0 does not count for scoring). Reversed: 100 - 100*s/2 → n1 100, n2 50, n3 0.
          {"fewer untolerated taints score higher",
           "",
           {prefer("n1", 0).Obj(), prefer("n2", 1).Obj(), prefer("n3", 2).Obj()},
           {},
           pod,
           {{"n1", 100}, {"n2", 50}, {"n3", 0}}},
          // n1 1, n2 3 → 100 - 100*1/3 = 67, 100 - 100 = 0; an empty-effect toleration counts.
          {"an empty effect counts for PreferNoSchedule",
           "",
           {prefer("n1", 1).Obj(), prefer("n2", 3).Obj()},
           {},
           MakePod()
               .Name("p")
               .UID("p")
               .Container("img")
               .Toleration("tolerated", "Exists", "", "")
               .Obj(),
           {{"n1", 67}, {"n2", 0}}},
          // All zero: every node gets 100.
          {"no untolerated taints anywhere",
           "",
           {prefer("n1", 0).Obj(), MakeNode().Name("n2").Obj()},
           {},
           pod,
           {{"n1", 100}, {"n2", 100}}},
          // NoSchedule and NoExecute taints do not count for the score.
          {"only PreferNoSchedule taints count",
           "",
           {MakeNode().Name("n1").Taint("a", "b", "NoExecute").Obj(),
            MakeNode().Name("n2").Taint("c", "d", "PreferNoSchedule").Obj()},
           {},
           MakePod()
               .Name("p")
               .UID("p")
               .Container("img")
               .Toleration("a", "Exists", "", "NoExecute")
               .Obj(),
           {{"n1", 100}, {"n2", 0}}},
      });
}

TEST(TaintTolerationTest, Events) {
  LoadedPlugin plugin(kTaint);
  EXPECT_EQ(Registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT, 1},
                {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_TOLERATION, 1}}));

  PodPtr pod = MakePod().Name("p").UID("p").Toleration("foo", "Equal", "bar", "NoSchedule").Obj();
  NodePtr tolerated = MakeNode().Name("n1").Taint("foo", "bar", "NoSchedule").Obj();
  NodePtr untolerated = MakeNode().Name("n1").Taint("other", "x", "NoSchedule").Obj();
  NodePtr preferOnly = MakeNode().Name("n1").Taint("other", "x", "PreferNoSchedule").Obj();
  const uint32_t taint = SH_ACTION_UPDATE_NODE_TAINT;
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, tolerated)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, untolerated)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(taint, untolerated, preferOnly)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(taint, tolerated, preferOnly)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(taint, tolerated, untolerated)), SH_QUEUE_SKIP);

  PodPtr updated = MakePod().Name("p").UID("p").Toleration("other", "Exists", "", "").Obj();
  PodPtr unrelated = MakePod().Name("q").UID("q").Toleration("other", "Exists", "", "").Obj();
  const uint32_t toleration = SH_ACTION_UPDATE_POD_TOLERATION;
  EXPECT_EQ(plugin.Hint(1, pod->view(), PodEvent(toleration, pod, updated)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(1, pod->view(), PodEvent(toleration, unrelated, unrelated)), SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing

// TaintToleration: Filter on NoSchedule/NoExecute taints, Score on PreferNoSchedule taints
// (reversed normalisation), events. Cases after upstream taint_toleration_test.go.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::taint_toleration_test {
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
  auto pod = [] { return makePod().name("p").uid("p").container("img"); };
  auto node = [] { return makeNode().name("n1"); };
  std::vector<FilterCase> cases = {
      {"a node without taints", pod().obj(), node().obj(), true},
      {"an untolerated NoSchedule taint", pod().obj(),
       node().taint("dedicated", "user1", "NoSchedule").obj(), false},
      {"an untolerated NoExecute taint", pod().obj(),
       node().taint("dedicated", "user1", "NoExecute").obj(), false},
      {"PreferNoSchedule never filters", pod().obj(),
       node().taint("dedicated", "user1", "PreferNoSchedule").obj(), true},
      {"Equal toleration with the same key, value and effect",
       pod().toleration("dedicated", "Equal", "user1", "NoSchedule").obj(),
       node().taint("dedicated", "user1", "NoSchedule").obj(), true},
      {"an empty operator means Equal",
       pod().toleration("dedicated", "", "user1", "NoSchedule").obj(),
       node().taint("dedicated", "user1", "NoSchedule").obj(), true},
      {"Equal toleration with another value",
       pod().toleration("dedicated", "Equal", "user2", "NoSchedule").obj(),
       node().taint("dedicated", "user1", "NoSchedule").obj(), false},
      {"Exists tolerates any value", pod().toleration("foo", "Exists", "", "NoSchedule").obj(),
       node().taint("foo", "bar", "NoSchedule").obj(), true},
      {"an empty effect tolerates every effect", pod().toleration("foo", "Equal", "bar", "").obj(),
       node().taint("foo", "bar", "NoExecute").obj(), true},
      {"an effect mismatch", pod().toleration("foo", "Equal", "bar", "NoExecute").obj(),
       node().taint("foo", "bar", "NoSchedule").obj(), false},
      {"an empty key with Exists tolerates everything",
       pod().toleration("", "Exists", "", "").obj(),
       node().taint("foo", "bar", "NoSchedule").taint("baz", "", "NoExecute").obj(), true},
      {"every taint needs a toleration",
       pod().toleration("foo", "Equal", "bar", "NoSchedule").obj(),
       node().taint("foo", "bar", "NoSchedule").taint("baz", "qux", "NoSchedule").obj(), false},
      {"an untolerated PreferNoSchedule beside tolerated NoSchedule",
       pod().toleration("foo", "Equal", "bar", "NoSchedule").obj(),
       node().taint("foo", "bar", "NoSchedule").taint("baz", "qux", "PreferNoSchedule").obj(),
       true},
      // The Lt/Gt operators are behind an alpha gate, off in 1.36: they tolerate nothing.
      {"Gt tolerates nothing with the gate off",
       pod().toleration("level", "Gt", "1", "NoSchedule").obj(),
       node().taint("level", "5", "NoSchedule").obj(), false},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = evaluate({{kTaint, ""}}, {c.node}, {}, c.pod);
    auto status = filterStatus(result, "n1", kTaint);
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
    auto node = makeNode().name(name);
    for (int i = 0; i < untolerated; ++i) {
      node.taint("key" + std::to_string(i), "v", "PreferNoSchedule");
    }
    return node.taint("tolerated", "v", "PreferNoSchedule");
  };
  PodPtr pod = makePod()
                   .name("p")
                   .uid("p")
                   .container("img")
                   .toleration("tolerated", "Equal", "v", "PreferNoSchedule")
                   .toleration("key0", "Equal", "v", "NoSchedule")
                   .obj();
  runScoreCases(
      kTaint,
      {
          // Untolerated PreferNoSchedule taints: n1 0, n2 1, n3 2 (the NoSchedule toleration of
          // key0 does not count for scoring). Reversed: 100 - 100*s/2 → n1 100, n2 50, n3 0.
          {"fewer untolerated taints score higher",
           "",
           {prefer("n1", 0).obj(), prefer("n2", 1).obj(), prefer("n3", 2).obj()},
           {},
           pod,
           {{"n1", 100}, {"n2", 50}, {"n3", 0}}},
          // n1 1, n2 3 → 100 - 100*1/3 = 67, 100 - 100 = 0; an empty-effect toleration counts.
          {"an empty effect counts for PreferNoSchedule",
           "",
           {prefer("n1", 1).obj(), prefer("n2", 3).obj()},
           {},
           makePod()
               .name("p")
               .uid("p")
               .container("img")
               .toleration("tolerated", "Exists", "", "")
               .obj(),
           {{"n1", 67}, {"n2", 0}}},
          // All zero: every node gets 100.
          {"no untolerated taints anywhere",
           "",
           {prefer("n1", 0).obj(), makeNode().name("n2").obj()},
           {},
           pod,
           {{"n1", 100}, {"n2", 100}}},
          // NoSchedule and NoExecute taints do not count for the score.
          {"only PreferNoSchedule taints count",
           "",
           {makeNode().name("n1").taint("a", "b", "NoExecute").obj(),
            makeNode().name("n2").taint("c", "d", "PreferNoSchedule").obj()},
           {},
           makePod()
               .name("p")
               .uid("p")
               .container("img")
               .toleration("a", "Exists", "", "NoExecute")
               .obj(),
           {{"n1", 100}, {"n2", 0}}},
      });
}

TEST(TaintTolerationTest, Events) {
  LoadedPlugin plugin(kTaint);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_TAINT, 1},
                {SH_RESOURCE_POD, SH_ACTION_UPDATE_POD_TOLERATION, 1}}));

  PodPtr pod = makePod().name("p").uid("p").toleration("foo", "Equal", "bar", "NoSchedule").obj();
  NodePtr tolerated = makeNode().name("n1").taint("foo", "bar", "NoSchedule").obj();
  NodePtr untolerated = makeNode().name("n1").taint("other", "x", "NoSchedule").obj();
  NodePtr preferOnly = makeNode().name("n1").taint("other", "x", "PreferNoSchedule").obj();
  const uint32_t taint = SH_ACTION_UPDATE_NODE_TAINT;
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, tolerated)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, untolerated)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(taint, untolerated, preferOnly)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(taint, tolerated, preferOnly)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(taint, tolerated, untolerated)), SH_QUEUE_SKIP);

  PodPtr updated = makePod().name("p").uid("p").toleration("other", "Exists", "", "").obj();
  PodPtr unrelated = makePod().name("q").uid("q").toleration("other", "Exists", "", "").obj();
  const uint32_t toleration = SH_ACTION_UPDATE_POD_TOLERATION;
  EXPECT_EQ(plugin.hint(1, pod->view(), podEvent(toleration, pod, updated)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(1, pod->view(), podEvent(toleration, unrelated, unrelated)), SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing::taint_toleration_test

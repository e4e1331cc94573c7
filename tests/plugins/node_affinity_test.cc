// NodeAffinity: nodeSelector, required and preferred node affinity, matchFields PreFilter
// results, the scheduler-enforced addedAffinity, events. Cases after upstream
// node_affinity_test.go, our own tables.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing {
namespace {

constexpr char kAffinity[] = "NodeAffinity";
constexpr char kErrReasonPod[] = "node(s) didn't match Pod's node affinity/selector";
constexpr char kErrReasonEnforced[] = "node(s) didn't match scheduler-enforced node affinity";

// A pod whose spec.affinity.nodeAffinity is `json`.
PodPtr AffinityPod(const std::string& json) {
  return MakePod()
      .Name("p")
      .UID("p")
      .Container("img")
      .Set({"spec", "affinity", "nodeAffinity"}, boost::json::parse(json))
      .Obj();
}

// A pod with required terms `terms` (a JSON array of NodeSelectorTerms).
PodPtr RequiredPod(const std::string& terms) {
  return AffinityPod(
      R"({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": )" + terms +
      "}}");
}

struct FilterCase {
  std::string name;
  PodPtr pod;
  std::vector<std::pair<std::string, std::string>> labels;  // of node n1
  bool fits;
};

TEST(NodeAffinityTest, Filter) {
  std::vector<FilterCase> cases = {
      {"no selector and no affinity", MakePod().Name("p").UID("p").Obj(), {}, true},
      {"nodeSelector label missing",
       MakePod().Name("p").UID("p").NodeSelector({{"foo", "bar"}}).Obj(),
       {},
       false},
      {"nodeSelector matches",
       MakePod().Name("p").UID("p").NodeSelector({{"foo", "bar"}}).Obj(),
       {{"foo", "bar"}},
       true},
      {"nodeSelector value differs",
       MakePod().Name("p").UID("p").NodeSelector({{"foo", "bar"}}).Obj(),
       {{"foo", "baz"}},
       false},
      {"nodeSelector needs every entry",
       MakePod().Name("p").UID("p").NodeSelector({{"foo", "bar"}, {"baz", "blah"}}).Obj(),
       {{"foo", "bar"}},
       false},
      {"In matches",
       MakePod().Name("p").UID("p").NodeAffinityIn("foo", {"bar", "value2"}).Obj(),
       {{"foo", "value2"}},
       true},
      {"In with another value",
       MakePod().Name("p").UID("p").NodeAffinityIn("foo", {"bar"}).Obj(),
       {{"foo", "baz"}},
       false},
      {"NotIn matches a node without the label",
       MakePod().Name("p").UID("p").NodeAffinityNotIn("foo", {"bar"}).Obj(),
       {},
       true},
      {"NotIn rejects the value",
       MakePod().Name("p").UID("p").NodeAffinityNotIn("foo", {"bar"}).Obj(),
       {{"foo", "bar"}},
       false},
      {"Exists",
       RequiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "Exists"}]}])"),
       {{"foo", "anything"}},
       true},
      {"DoesNotExist",
       RequiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "DoesNotExist"}]}])"),
       {{"foo", "bar"}},
       false},
      {"Gt compares integers",
       RequiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Gt", "values": ["5"]}]}])"),
       {{"kern", "6"}},
       true},
      {"Gt is strict",
       RequiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Gt", "values": ["5"]}]}])"),
       {{"kern", "5"}},
       false},
      {"Lt compares integers, not strings",
       RequiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Lt", "values": ["10"]}]}])"),
       {{"kern", "9"}},
       true},
      {"Gt with a label that is not an integer",
       RequiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Gt", "values": ["5"]}]}])"),
       {{"kern", "six"}},
       false},
      {"expressions of a term are ANDed",
       RequiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]},
                                             {"key": "kern", "operator": "Exists"}]}])"),
       {{"foo", "bar"}},
       false},
      {"terms are ORed",
       RequiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["x"]}]},
                       {"matchExpressions": [{"key": "foo", "operator": "In",
                                              "values": ["bar"]}]}])"),
       {{"foo", "bar"}},
       true},
      {"no terms match no node", RequiredPod("[]"), {{"foo", "bar"}}, false},
      {"an empty term matches no node", RequiredPod("[{}]"), {{"foo", "bar"}}, false},
      {"an empty term does not stop the others",
       RequiredPod(R"([{}, {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}])"),
       {{"foo", "bar"}},
       true},
      {"nodeSelector and affinity must both match",
       MakePod()
           .Name("p")
           .UID("p")
           .NodeSelector({{"zone", "a"}})
           .NodeAffinityIn("foo", {"bar"})
           .Obj(),
       {{"foo", "bar"}},
       false},
      {"matchFields on metadata.name",
       RequiredPod(R"([{"matchFields": [{"key": "metadata.name", "operator": "NotIn",
                                         "values": ["n2"]}]}])"),
       {},
       true},
      {"matchFields and matchExpressions are ANDed",
       RequiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "Exists"}],
                        "matchFields": [{"key": "metadata.name", "operator": "In",
                                         "values": ["n1"]}]}])"),
       {},
       false},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto node = MakeNode().Name("n1");
    for (const auto& [k, v] : c.labels) {
      node.Label(k, v);
    }
    auto result = Evaluate({{kAffinity, ""}}, {node.Obj()}, {}, c.pod);
    auto status = FilterStatus(result, "n1", kAffinity);
    if (c.fits) {
      EXPECT_EQ(status.code, "Success");
    } else {
      EXPECT_EQ(status.code, "UnschedulableAndUnresolvable");
      EXPECT_EQ(status.reasons, std::vector<std::string>{kErrReasonPod});
    }
  }
}

TEST(NodeAffinityTest, PreFilterSkipsPodsWithoutRequirements) {
  auto result = Evaluate({{kAffinity, ""}}, {MakeNode().Name("n1").Obj()}, {},
                         MakePod().Name("p").UID("p").Obj());
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "Skip");
}

TEST(NodeAffinityTest, PreFilterResultFromMetadataName) {
  std::vector<NodePtr> nodes = {MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj(),
                                MakeNode().Name("n3").Obj()};
  // Within a term the sets intersect ({n1, n2} ∩ {n2, n3} = {n2}); across terms they unite.
  auto result = Evaluate({{kAffinity, ""}}, nodes, {}, RequiredPod(R"([{"matchFields": [
                         {"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]},
                         {"key": "metadata.name", "operator": "In", "values": ["n2", "n3"]}]},
                      {"matchFields": [
                         {"key": "metadata.name", "operator": "In", "values": ["n3"]}]}])"));
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "Success");
  EXPECT_EQ(result.preFilter.at(kAffinity).nodeNames, (std::vector<std::string>{"n2", "n3"}));

  // One term without matchFields lets every node through.
  result = Evaluate({{kAffinity, ""}}, nodes, {},
                    RequiredPod(R"([{"matchFields": [{"key": "metadata.name", "operator": "In",
                                        "values": ["n1"]}]},
                      {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}])"));
  EXPECT_TRUE(result.preFilter.at(kAffinity).nodeNames.empty());

  // Every term names nodes, but none survives: the pod can never fit.
  result = Evaluate({{kAffinity, ""}}, nodes, {}, RequiredPod(R"([{"matchFields": [
                         {"key": "metadata.name", "operator": "In", "values": ["n1"]},
                         {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}])"));
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(result.preFilter.at(kAffinity).reasons,
            std::vector<std::string>{"pod affinity terms conflict"});
  EXPECT_EQ(result.message, "0/3 nodes are available: pod affinity terms conflict.");
}

TEST(NodeAffinityTest, AddedAffinity) {
  const std::string args = R"({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [
          {"key": "zone", "operator": "In", "values": ["foo"]}]}]}}})";
  std::vector<NodePtr> nodes = {MakeNode().Name("n1").Label("zone", "foo").Obj(),
                                MakeNode().Name("n2").Label("zone", "bar").Obj(),
                                MakeNode().Name("n3").Label("zone", "foo").Label("x", "y").Obj()};
  // A pod with no requirements of its own is still held to addedAffinity.
  auto result = Evaluate({{kAffinity, args}}, nodes, {}, MakePod().Name("p").UID("p").Obj());
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "Success");
  EXPECT_EQ(FilterStatus(result, "n1", kAffinity).code, "Success");
  EXPECT_EQ(FilterStatus(result, "n2", kAffinity).code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(FilterStatus(result, "n2", kAffinity).reasons,
            std::vector<std::string>{kErrReasonEnforced});

  // addedAffinity is checked first; then the pod's own requirements.
  result = Evaluate({{kAffinity, args}}, nodes, {},
                    MakePod().Name("p").UID("p").NodeSelector({{"x", "y"}}).Obj());
  EXPECT_EQ(FilterStatus(result, "n1", kAffinity).reasons, std::vector<std::string>{kErrReasonPod});
  EXPECT_EQ(FilterStatus(result, "n2", kAffinity).reasons,
            std::vector<std::string>{kErrReasonEnforced});
  EXPECT_EQ(FilterStatus(result, "n3", kAffinity).code, "Success");
  EXPECT_EQ(result.selected, "n3");

  // A required addedAffinity without terms matches no node.
  result = Evaluate({{kAffinity,
                      R"({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                              {"nodeSelectorTerms": []}}})"}},
                    nodes, {}, MakePod().Name("p").UID("p").Obj());
  EXPECT_EQ(result.message,
            "0/3 nodes are available: 3 node(s) didn't match scheduler-enforced node affinity.");
}

TEST(NodeAffinityTest, Score) {
  std::vector<NodePtr> nodes = {
      MakeNode().Name("n1").Label("foo", "bar").Obj(),
      MakeNode().Name("n2").Label("foo", "bar").Label("key", "value").Obj(),
      MakeNode().Name("n3").Label("foo", "bar").Label("key", "value").Label("az", "az1").Obj(),
      MakeNode().Name("n4").Obj()};
  PodPtr preferring = MakePod()
                          .Name("p")
                          .UID("p")
                          .Container("img")
                          .PreferredNodeAffinity(2, "foo", {"bar"})
                          .PreferredNodeAffinity(4, "key", {"value"})
                          .PreferredNodeAffinity(5, "az", {"az1"})
                          .PreferredNodeAffinity(0, "n4-only", {"x"})
                          .Obj();
  RunScoreCases(
      kAffinity,
      {
          // Raw: n1 2, n2 2+4 = 6, n3 2+4+5 = 11, n4 0 (the weight-0 term never counts).
          // Normalized 100*s/11: n1 200/11 = 18, n2 600/11 = 54, n3 100, n4 0
          {"sum of matching weights, normalized",
           "",
           nodes,
           {},
           preferring,
           {{"n1", 18}, {"n2", 54}, {"n3", 100}, {"n4", 0}}},
          // addedAffinity's term (az DoesNotExist, weight 3) adds: n1 2+3 = 5, n2 6+3 = 9, n3 11,
          // n4 0+3 = 3 → 100*s/11: n1 500/11 = 45, n2 900/11 = 81, n3 100, n4 300/11 = 27
          {"addedAffinity preferred terms add",
           R"({"addedAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 3, "preference": {"matchExpressions": [
                {"key": "az", "operator": "DoesNotExist"}]}}]}})",
           nodes,
           {},
           preferring,
           {{"n1", 45}, {"n2", 81}, {"n3", 100}, {"n4", 27}}},
          // No term matches anywhere: every node stays 0.
          {"nothing matches",
           "",
           {MakeNode().Name("n1").Obj(), MakeNode().Name("n2").Obj()},
           {},
           preferring,
           {{"n1", 0}, {"n2", 0}}},
          // PreScore returns Skip when neither the pod nor addedAffinity prefers anything.
          {"no preferred terms",
           "",
           nodes,
           {},
           MakePod().Name("p").UID("p").Obj(),
           {{"n1", -1}, {"n3", -1}}},
      });
}

TEST(NodeAffinityTest, Events) {
  LoadedPlugin plugin(kAffinity);
  EXPECT_EQ(Registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, 1}}));

  PodPtr pod = MakePod().Name("p").UID("p").NodeAffinityIn("foo", {"bar"}).Obj();
  NodePtr matching = MakeNode().Name("n1").Label("foo", "bar").Obj();
  NodePtr other = MakeNode().Name("n1").Label("foo", "baz").Obj();
  const uint32_t update = SH_ACTION_UPDATE_NODE_LABEL;
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, matching)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, other)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(update, other, matching)), SH_QUEUE);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(update, matching, matching)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.Hint(0, pod->view(), NodeEvent(update, matching, other)), SH_QUEUE_SKIP);

  // A node outside addedAffinity never helps.
  LoadedPlugin enforced(kAffinity, R"({"addedAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]}}})");
  EXPECT_EQ(enforced.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, matching)),
            SH_QUEUE_SKIP);
  NodePtr zoned = MakeNode().Name("n1").Label("foo", "bar").Label("zone", "a").Obj();
  EXPECT_EQ(enforced.Hint(0, pod->view(), NodeEvent(SH_ACTION_ADD, nullptr, zoned)), SH_QUEUE);
}

TEST(NodeAffinityArgsTest, Validation) {
  EXPECT_EQ(ArgsError(kAffinity, ""), "");
  std::string err = ArgsError(kAffinity, R"({"addedAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "foo", "operator": "Equals", "values": ["a"]},
                              {"key": "kern", "operator": "Gt", "values": ["x"]},
                              {"key": "foo", "operator": "In"}],
         "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]},
      "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [
            {"key": "foo", "operator": "Exists", "values": ["a"]}]}}]}})");
  EXPECT_TRUE(Contains(err,
                       "matchExpressions[0].operator: Unsupported value: \"Equals\": "
                       "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", "
                       "\"Gt\", \"Lt\""));
  EXPECT_TRUE(Contains(err,
                       "matchExpressions[1].values[0]: Invalid value: \"x\": for 'Gt', "
                       "'Lt' operators, the value must be an integer"));
  EXPECT_TRUE(Contains(err,
                       "matchExpressions[2]: values: Invalid value: []string(nil): for "
                       "'in', 'notin' operators, values set can't be empty"));
  EXPECT_TRUE(Contains(err,
                       "matchFields[0].values: Invalid value: []string{\"a\", \"b\"}: must "
                       "have one element"));
  EXPECT_TRUE(Contains(err,
                       "preferredDuringSchedulingIgnoredDuringExecution[0].preference."
                       "matchExpressions[0].values: Invalid value: []string{\"a\"}: values "
                       "set must be empty for exists and does not exist"));
  EXPECT_TRUE(Contains(ArgsError(kAffinity, R"({"addedAffinity": {"required": {}}})"),
                       "addedAffinity.required: unknown field \"required\""));
}

}  // namespace
}  // namespace schedhost::testing

// NodeAffinity: nodeSelector, required and preferred node affinity, matchFields PreFilter
// results, the scheduler-enforced addedAffinity, events. Cases after upstream
// node_affinity_test.go, our own tables.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::node_affinity_test {
namespace {

constexpr char kAffinity[] = "NodeAffinity";
constexpr char kErrReasonPod[] = "node(s) didn't match Pod's node affinity/selector";
constexpr char kErrReasonEnforced[] = "node(s) didn't match scheduler-enforced node affinity";

// A pod whose spec.affinity.nodeAffinity is `json`.
PodPtr affinityPod(const std::string& json) {
  return makePod()
      .name("p")
      .uid("p")
      .container("img")
      .set({"spec", "affinity", "nodeAffinity"}, boost::json::parse(json))
      .obj();
}

// A pod with required terms `terms` (a JSON array of NodeSelectorTerms).
PodPtr requiredPod(const std::string& terms) {
  return affinityPod(
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
      {"no selector and no affinity", makePod().name("p").uid("p").obj(), {}, true},
      {"nodeSelector label missing",
       makePod().name("p").uid("p").nodeSelector({{"foo", "bar"}}).obj(),
       {},
       false},
      {"nodeSelector matches",
       makePod().name("p").uid("p").nodeSelector({{"foo", "bar"}}).obj(),
       {{"foo", "bar"}},
       true},
      {"nodeSelector value differs",
       makePod().name("p").uid("p").nodeSelector({{"foo", "bar"}}).obj(),
       {{"foo", "baz"}},
       false},
      {"nodeSelector needs every entry",
       makePod().name("p").uid("p").nodeSelector({{"foo", "bar"}, {"baz", "blah"}}).obj(),
       {{"foo", "bar"}},
       false},
      {"In matches",
       makePod().name("p").uid("p").nodeAffinityIn("foo", {"bar", "value2"}).obj(),
       {{"foo", "value2"}},
       true},
      {"In with another value",
       makePod().name("p").uid("p").nodeAffinityIn("foo", {"bar"}).obj(),
       {{"foo", "baz"}},
       false},
      {"NotIn matches a node without the label",
       makePod().name("p").uid("p").nodeAffinityNotIn("foo", {"bar"}).obj(),
       {},
       true},
      {"NotIn rejects the value",
       makePod().name("p").uid("p").nodeAffinityNotIn("foo", {"bar"}).obj(),
       {{"foo", "bar"}},
       false},
      {"Exists",
       requiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "Exists"}]}])"),
       {{"foo", "anything"}},
       true},
      {"DoesNotExist",
       requiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "DoesNotExist"}]}])"),
       {{"foo", "bar"}},
       false},
      {"Gt compares integers",
       requiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Gt", "values": ["5"]}]}])"),
       {{"kern", "6"}},
       true},
      {"Gt is strict",
       requiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Gt", "values": ["5"]}]}])"),
       {{"kern", "5"}},
       false},
      {"Lt compares integers, not strings",
       requiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Lt", "values": ["10"]}]}])"),
       {{"kern", "9"}},
       true},
      {"Gt with a label that is not an integer",
       requiredPod(
           R"([{"matchExpressions": [{"key": "kern", "operator": "Gt", "values": ["5"]}]}])"),
       {{"kern", "six"}},
       false},
      {"expressions of a term are ANDed",
       requiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["bar"]},
                                             {"key": "kern", "operator": "Exists"}]}])"),
       {{"foo", "bar"}},
       false},
      {"terms are ORed",
       requiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "In", "values": ["x"]}]},
                       {"matchExpressions": [{"key": "foo", "operator": "In",
                                              "values": ["bar"]}]}])"),
       {{"foo", "bar"}},
       true},
      {"no terms match no node", requiredPod("[]"), {{"foo", "bar"}}, false},
      {"an empty term matches no node", requiredPod("[{}]"), {{"foo", "bar"}}, false},
      {"an empty term does not stop the others",
       requiredPod(R"([{}, {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}])"),
       {{"foo", "bar"}},
       true},
      {"nodeSelector and affinity must both match",
       makePod()
           .name("p")
           .uid("p")
           .nodeSelector({{"zone", "a"}})
           .nodeAffinityIn("foo", {"bar"})
           .obj(),
       {{"foo", "bar"}},
       false},
      {"matchFields on metadata.name",
       requiredPod(R"([{"matchFields": [{"key": "metadata.name", "operator": "NotIn",
                                         "values": ["n2"]}]}])"),
       {},
       true},
      {"matchFields and matchExpressions are ANDed",
       requiredPod(R"([{"matchExpressions": [{"key": "foo", "operator": "Exists"}],
                        "matchFields": [{"key": "metadata.name", "operator": "In",
                                         "values": ["n1"]}]}])"),
       {},
       false},
  };
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto node = makeNode().name("n1");
    for (const auto& [k, v] : c.labels) {
      node.label(k, v);
    }
    auto result = evaluate({{kAffinity, ""}}, {node.obj()}, {}, c.pod);
    auto status = filterStatus(result, "n1", kAffinity);
    if (c.fits) {
      EXPECT_EQ(status.code, "Success");
    } else {
      EXPECT_EQ(status.code, "UnschedulableAndUnresolvable");
      EXPECT_EQ(status.reasons, std::vector<std::string>{kErrReasonPod});
    }
  }
}

TEST(NodeAffinityTest, PreFilterSkipsPodsWithoutRequirements) {
  auto result = evaluate({{kAffinity, ""}}, {makeNode().name("n1").obj()}, {},
                         makePod().name("p").uid("p").obj());
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "Skip");
}

TEST(NodeAffinityTest, PreFilterResultFromMetadataName) {
  std::vector<NodePtr> nodes = {makeNode().name("n1").obj(), makeNode().name("n2").obj(),
                                makeNode().name("n3").obj()};
  // Within a term the sets intersect ({n1, n2} ∩ {n2, n3} = {n2}); across terms they unite.
  auto result = evaluate({{kAffinity, ""}}, nodes, {}, requiredPod(R"([{"matchFields": [
                         {"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]},
                         {"key": "metadata.name", "operator": "In", "values": ["n2", "n3"]}]},
                      {"matchFields": [
                         {"key": "metadata.name", "operator": "In", "values": ["n3"]}]}])"));
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "Success");
  EXPECT_EQ(result.preFilter.at(kAffinity).nodeNames, (std::vector<std::string>{"n2", "n3"}));

  // One term without matchFields lets every node through.
  result = evaluate({{kAffinity, ""}}, nodes, {},
                    requiredPod(R"([{"matchFields": [{"key": "metadata.name", "operator": "In",
                                        "values": ["n1"]}]},
                      {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}])"));
  EXPECT_TRUE(result.preFilter.at(kAffinity).nodeNames.empty());

  // Every term names nodes, but none survives: the pod can never fit.
  result = evaluate({{kAffinity, ""}}, nodes, {}, requiredPod(R"([{"matchFields": [
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
  std::vector<NodePtr> nodes = {makeNode().name("n1").label("zone", "foo").obj(),
                                makeNode().name("n2").label("zone", "bar").obj(),
                                makeNode().name("n3").label("zone", "foo").label("x", "y").obj()};
  // A pod with no requirements of its own is still held to addedAffinity.
  auto result = evaluate({{kAffinity, args}}, nodes, {}, makePod().name("p").uid("p").obj());
  EXPECT_EQ(result.preFilter.at(kAffinity).code, "Success");
  EXPECT_EQ(filterStatus(result, "n1", kAffinity).code, "Success");
  EXPECT_EQ(filterStatus(result, "n2", kAffinity).code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(filterStatus(result, "n2", kAffinity).reasons,
            std::vector<std::string>{kErrReasonEnforced});

  // addedAffinity is checked first; then the pod's own requirements.
  result = evaluate({{kAffinity, args}}, nodes, {},
                    makePod().name("p").uid("p").nodeSelector({{"x", "y"}}).obj());
  EXPECT_EQ(filterStatus(result, "n1", kAffinity).reasons, std::vector<std::string>{kErrReasonPod});
  EXPECT_EQ(filterStatus(result, "n2", kAffinity).reasons,
            std::vector<std::string>{kErrReasonEnforced});
  EXPECT_EQ(filterStatus(result, "n3", kAffinity).code, "Success");
  EXPECT_EQ(result.selected, "n3");

  // A required addedAffinity without terms matches no node.
  result = evaluate({{kAffinity,
                      R"({"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                              {"nodeSelectorTerms": []}}})"}},
                    nodes, {}, makePod().name("p").uid("p").obj());
  EXPECT_EQ(result.message,
            "0/3 nodes are available: 3 node(s) didn't match scheduler-enforced node affinity.");
}

TEST(NodeAffinityTest, Score) {
  std::vector<NodePtr> nodes = {
      makeNode().name("n1").label("foo", "bar").obj(),
      makeNode().name("n2").label("foo", "bar").label("key", "value").obj(),
      makeNode().name("n3").label("foo", "bar").label("key", "value").label("az", "az1").obj(),
      makeNode().name("n4").obj()};
  PodPtr preferring = makePod()
                          .name("p")
                          .uid("p")
                          .container("img")
                          .preferredNodeAffinity(2, "foo", {"bar"})
                          .preferredNodeAffinity(4, "key", {"value"})
                          .preferredNodeAffinity(5, "az", {"az1"})
                          .preferredNodeAffinity(0, "n4-only", {"x"})
                          .obj();
  runScoreCases(
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
           {makeNode().name("n1").obj(), makeNode().name("n2").obj()},
           {},
           preferring,
           {{"n1", 0}, {"n2", 0}}},
          // PreScore returns Skip when neither the pod nor addedAffinity prefers anything.
          {"no preferred terms",
           "",
           nodes,
           {},
           makePod().name("p").uid("p").obj(),
           {{"n1", -1}, {"n3", -1}}},
      });
}

TEST(NodeAffinityTest, Events) {
  LoadedPlugin plugin(kAffinity);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, 1}}));

  PodPtr pod = makePod().name("p").uid("p").nodeAffinityIn("foo", {"bar"}).obj();
  NodePtr matching = makeNode().name("n1").label("foo", "bar").obj();
  NodePtr other = makeNode().name("n1").label("foo", "baz").obj();
  const uint32_t update = SH_ACTION_UPDATE_NODE_LABEL;
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, matching)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, other)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(update, other, matching)), SH_QUEUE);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(update, matching, matching)), SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(0, pod->view(), nodeEvent(update, matching, other)), SH_QUEUE_SKIP);

  // A node outside addedAffinity never helps.
  LoadedPlugin enforced(kAffinity, R"({"addedAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]}}})");
  EXPECT_EQ(enforced.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, matching)),
            SH_QUEUE_SKIP);
  NodePtr zoned = makeNode().name("n1").label("foo", "bar").label("zone", "a").obj();
  EXPECT_EQ(enforced.hint(0, pod->view(), nodeEvent(SH_ACTION_ADD, nullptr, zoned)), SH_QUEUE);
}

TEST(NodeAffinityArgsTest, Validation) {
  EXPECT_EQ(argsError(kAffinity, ""), "");
  std::string err = argsError(kAffinity, R"({"addedAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "foo", "operator": "Equals", "values": ["a"]},
                              {"key": "kern", "operator": "Gt", "values": ["x"]},
                              {"key": "foo", "operator": "In"}],
         "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]}]}]},
      "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "preference": {"matchExpressions": [
            {"key": "foo", "operator": "Exists", "values": ["a"]}]}}]}})");
  EXPECT_TRUE(contains(err,
                       "matchExpressions[0].operator: Unsupported value: \"Equals\": "
                       "supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", "
                       "\"Gt\", \"Lt\""));
  EXPECT_TRUE(contains(err,
                       "matchExpressions[1].values[0]: Invalid value: \"x\": for 'Gt', "
                       "'Lt' operators, the value must be an integer"));
  EXPECT_TRUE(contains(err,
                       "matchExpressions[2]: values: Invalid value: []string(nil): for "
                       "'in', 'notin' operators, values set can't be empty"));
  EXPECT_TRUE(contains(err,
                       "matchFields[0].values: Invalid value: []string{\"a\", \"b\"}: must "
                       "have one element"));
  EXPECT_TRUE(contains(err,
                       "preferredDuringSchedulingIgnoredDuringExecution[0].preference."
                       "matchExpressions[0].values: Invalid value: []string{\"a\"}: values "
                       "set must be empty for exists and does not exist"));
  EXPECT_TRUE(contains(argsError(kAffinity, R"({"addedAffinity": {"required": {}}})"),
                       "addedAffinity.required: unknown field \"required\""));
}

}  // namespace
}  // namespace schedhost::testing::node_affinity_test

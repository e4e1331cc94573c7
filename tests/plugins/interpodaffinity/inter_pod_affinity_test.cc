// InterPodAffinity: required affinity and anti-affinity in both directions, namespaces and
// namespaceSelector, the first pod of a group, preferred scoring with min-max normalisation,
// args and events. Cases after upstream interpodaffinity filtering_test.go, scoring_test.go and
// plugin_test.go; our own tables.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "host/model/cluster_objects.h"
#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::inter_pod_affinity_test {
namespace {

constexpr char kIPA[] = "InterPodAffinity";
constexpr char kReasonAffinity[] = "node(s) didn't match pod affinity rules";
constexpr char kReasonAnti[] = "node(s) didn't match pod anti-affinity rules";
constexpr char kReasonExisting[] = "node(s) didn't satisfy existing pods anti-affinity rules";

using StringMap = std::map<std::string, std::string>;

// A pod `name` in `ns` with `labels`, on `node` ("" = pending), whose spec.affinity is
// `affinity` (JSON, "" for none).
PodPtr testPod(const std::string& name, const std::string& ns, const StringMap& labels,
               const std::string& node = "", const std::string& affinity = "") {
  auto pod = makePod().name(name).uid(name).inNamespace(ns).container("img");
  for (const auto& [k, v] : labels) {
    pod.label(k, v);
  }
  if (!node.empty()) {
    pod.node(node);
  }
  if (!affinity.empty()) {
    pod.set({"spec", "affinity"}, boost::json::parse(affinity));
  }
  return pod.obj();
}

NodePtr node(const std::string& name, const StringMap& labels) {
  auto node = makeNode().name(name);
  for (const auto& [k, v] : labels) {
    node.label(k, v);
  }
  return node.obj();
}

// {"<kind>": {"requiredDuringSchedulingIgnoredDuringExecution": [<terms>]}}
std::string required(const std::string& kind, const std::string& terms) {
  return R"({")" + kind + R"(": {"requiredDuringSchedulingIgnoredDuringExecution": [)" + terms +
         "]}}";
}
std::string preferred(const std::string& kind, const std::string& weightedTerms) {
  return R"({")" + kind + R"(": {"preferredDuringSchedulingIgnoredDuringExecution": [)" +
         weightedTerms + "]}}";
}
// A term selecting `key In [values...]` (values as a JSON list body) by `topologyKey`, with
// `extra` members (namespaces, namespaceSelector) appended.
std::string affinityTerm(const std::string& key, const std::string& op, const std::string& values,
                         const std::string& topologyKey, const std::string& extra = "") {
  std::string expr = R"({"key": ")" + key + R"(", "operator": ")" + op + R"(")";
  if (!values.empty()) {
    expr += R"(, "values": [)" + values + "]";
  }
  expr += "}";
  return R"({"labelSelector": {"matchExpressions": [)" + expr + R"(]}, "topologyKey": ")" +
         topologyKey + R"(")" + (extra.empty() ? "" : ", " + extra) + "}";
}
std::string weighted(int weight, const std::string& term) {
  return R"({"weight": )" + std::to_string(weight) + R"(, "podAffinityTerm": )" + term + "}";
}

std::shared_ptr<const sh::model::ClusterObjects> namespaces(
    const std::map<std::string, StringMap>& namespaces) {
  auto objects = std::make_shared<sh::model::ClusterObjects>();
  for (const auto& [name, labels] : namespaces) {
    boost::json::object meta;
    meta["name"] = name;
    boost::json::object l;
    for (const auto& [k, v] : labels) {
      l[k] = v;
    }
    meta["labels"] = std::move(l);
    boost::json::object ns;
    ns["apiVersion"] = "v1";
    ns["kind"] = "Namespace";
    ns["metadata"] = std::move(meta);
    std::string error;
    if (!objects->add(ns, error)) {
      throw std::runtime_error("namespace: " + error);
    }
  }
  return objects;
}

sh::evaluate::Result runIpa(const std::string& args, std::vector<NodePtr> nodes,
                            std::vector<PodPtr> placed, PodPtr pod,
                            std::shared_ptr<const sh::model::ClusterObjects> objects = nullptr) {
  sh::evaluate::Scenario scenario;
  scenario.name = "inter-pod affinity";
  scenario.nodes = std::move(nodes);
  scenario.pods = std::move(placed);
  scenario.pod = std::move(pod);
  scenario.plugins = {{kIPA, args}};
  scenario.objects = std::move(objects);
  return sh::evaluate::run(scenario, testOptions());
}

const StringMap kNode1 = {{"region", "r1"}, {"zone", "z11"}, {"kubernetes.io/hostname", "n1"}};

struct FilterCase {
  std::string name;
  PodPtr pod;
  std::vector<PodPtr> placed;  // on n1 unless their node says otherwise
  std::string code;            // "Success", "Unschedulable", "UnschedulableAndUnresolvable"
  std::string reason;
  std::map<std::string, StringMap> namespaces = {};
};

void runFilterCases(const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = runIpa("", {node("n1", kNode1)}, c.placed, c.pod,
                         c.namespaces.empty() ? nullptr : namespaces(c.namespaces));
    auto status = filterStatus(result, "n1", kIPA);
    EXPECT_EQ(status.code, c.code);
    if (!c.reason.empty()) {
      EXPECT_EQ(status.reasons, std::vector<std::string>{c.reason});
    }
  }
}

const std::string kSecurityS1 = R"("securityscan", "value2")";

TEST(InterPodAffinityTest, RequiredAffinitySingleNode) {
  const StringMap s1 = {{"service", "securityscan"}};
  const std::string inS1 = affinityTerm("service", "In", kSecurityS1, "region");
  std::vector<FilterCase> cases = {
      {"a pod without affinity fits",
       testPod("p", "default", {}),
       {testPod("e", "default", s1, "n1")},
       "Success",
       ""},
      {"affinity In satisfied by a pod on the node",
       testPod("p", "default", {}, "", required("podAffinity", inS1)),
       {testPod("e", "default", s1, "n1")},
       "Success",
       ""},
      {"affinity NotIn satisfied",
       testPod("p", "default", {}, "",
               required("podAffinity", affinityTerm("service", "NotIn",
                                                    R"("securityscan3", "value3")", "region"))),
       {testPod("e", "default", s1, "n1")},
       "Success",
       ""},
      {"affinity not satisfied: the existing pod does not match",
       testPod("p", "default", {}, "",
               required("podAffinity",
                        affinityTerm("service", "In", R"("antivirusscan", "value2")", "region"))),
       {testPod("e", "default", s1, "n1")},
       "UnschedulableAndUnresolvable",
       kReasonAffinity},
      {"affinity not satisfied: the matching pod is in another namespace",
       testPod("p", "default", {}, "", required("podAffinity", inS1)),
       {testPod("e", "other", s1, "n1")},
       "UnschedulableAndUnresolvable",
       kReasonAffinity},
      {"affinity satisfied through the term's namespaces",
       testPod("p", "default", {}, "",
               required("podAffinity", affinityTerm("service", "In", kSecurityS1, "region",
                                                    R"("namespaces": ["other"])"))),
       {testPod("e", "other", s1, "n1")},
       "Success",
       ""},
      {"an empty namespaceSelector selects every namespace",
       testPod("p", "default", {}, "",
               required("podAffinity", affinityTerm("service", "In", kSecurityS1, "region",
                                                    R"("namespaceSelector": {})"))),
       {testPod("e", "other", s1, "n1")},
       "Success",
       ""},
      {"namespaceSelector matching the existing pod's namespace",
       testPod("p", "default", {}, "",
               required("podAffinity",
                        affinityTerm("service", "In", kSecurityS1, "region",
                                     R"("namespaceSelector": {"matchLabels": {"team": "a"}})"))),
       {testPod("e", "other", s1, "n1")},
       "Success",
       "",
       {{"other", {{"team", "a"}}}, {"default", {}}}},
      {"namespaceSelector not matching the existing pod's namespace",
       testPod("p", "default", {}, "",
               required("podAffinity",
                        affinityTerm("service", "In", kSecurityS1, "region",
                                     R"("namespaceSelector": {"matchLabels": {"team": "a"}})"))),
       {testPod("e", "other", s1, "n1")},
       "UnschedulableAndUnresolvable",
       kReasonAffinity,
       {{"other", {{"team", "b"}}}, {"default", {}}}},
      {"all affinity terms must be matched by one pod",
       testPod("p", "default", {}, "",
               required("podAffinity", inS1 + ", " +
                                           affinityTerm("wrongkey", "DoesNotExist", "", "region") +
                                           ", " + affinityTerm("service", "Exists", "", "zone"))),
       {testPod("e", "default", {{"service", "securityscan"}, {"wrongkey", "x"}}, "n1")},
       "UnschedulableAndUnresolvable",
       kReasonAffinity},
      {"all affinity terms matched by one pod",
       testPod("p", "default", {}, "",
               required("podAffinity", inS1 + ", " +
                                           affinityTerm("wrongkey", "DoesNotExist", "", "region") +
                                           ", " + affinityTerm("service", "Exists", "", "zone"))),
       {testPod("e", "default", s1, "n1")},
       "Success",
       ""},
      {"first pod of a group: matches its own affinity, no pod matches anywhere",
       testPod("p", "default", s1, "", required("podAffinity", inS1)),
       {},
       "Success",
       ""},
      {"not the first of its group when it does not match its own terms",
       testPod("p", "default", {{"service", "other"}}, "", required("podAffinity", inS1)),
       {},
       "UnschedulableAndUnresolvable",
       kReasonAffinity},
      {"first pod of a group in another namespace listed by the term",
       testPod("p", "default", s1, "",
               required("podAffinity", affinityTerm("service", "In", kSecurityS1, "region",
                                                    R"("namespaces": ["other"])"))),
       {},
       "UnschedulableAndUnresolvable",
       kReasonAffinity},
      {"the node must have the topology key, even for the first pod",
       testPod("p", "default", s1, "",
               required("podAffinity", affinityTerm("service", "In", kSecurityS1, "rack"))),
       {},
       "UnschedulableAndUnresolvable",
       kReasonAffinity},
      {"anti-affinity of the pod violated",
       testPod("p", "default", {}, "", required("podAntiAffinity", inS1)),
       {testPod("e", "default", s1, "n1")},
       "Unschedulable",
       kReasonAnti},
      {"anti-affinity of the pod not matched by any pod",
       testPod("p", "default", {}, "",
               required("podAntiAffinity",
                        affinityTerm("service", "In", R"("antivirusscan")", "region"))),
       {testPod("e", "default", s1, "n1")},
       "Success",
       ""},
      {"anti-affinity on a topology key the node lacks",
       testPod("p", "default", {}, "",
               required("podAntiAffinity", affinityTerm("service", "In", kSecurityS1, "rack"))),
       {testPod("e", "default", s1, "n1")},
       "Success",
       ""},
      {"affinity satisfied but anti-affinity violated",
       testPod(
           "p", "default", {}, "",
           R"({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" + inS1 +
               R"(]}, "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
               affinityTerm("service", "Exists", "", "zone") + "]}}"),
       {testPod("e", "default", s1, "n1")},
       "Unschedulable",
       kReasonAnti},
      {"an existing pod's anti-affinity rejects the incoming pod",
       testPod("p", "default", s1),
       {testPod("e", "default", {}, "n1", required("podAntiAffinity", inS1))},
       "Unschedulable",
       kReasonExisting},
      {"an existing pod's anti-affinity in another namespace does not apply",
       testPod("p", "default", s1),
       {testPod("e", "other", {}, "n1", required("podAntiAffinity", inS1))},
       "Success",
       ""},
      {"an existing pod's anti-affinity with a namespaceSelector matching the pod's namespace",
       testPod("p", "default", s1),
       {testPod("e", "other", {}, "n1",
                required("podAntiAffinity",
                         affinityTerm("service", "In", kSecurityS1, "region",
                                      R"("namespaceSelector": {"matchLabels": {"team": "a"}})")))},
       "Unschedulable",
       kReasonExisting,
       {{"default", {{"team", "a"}}}, {"other", {}}}},
      {"an existing pod's anti-affinity with a namespaceSelector not matching",
       testPod("p", "default", s1),
       {testPod("e", "other", {}, "n1",
                required("podAntiAffinity",
                         affinityTerm("service", "In", kSecurityS1, "region",
                                      R"("namespaceSelector": {"matchLabels": {"team": "a"}})")))},
       "Success",
       "",
       {{"default", {{"team", "b"}}}, {"other", {}}}},
      {"an existing pod's anti-affinity on a key the node lacks",
       testPod("p", "default", s1),
       {testPod("e", "default", {}, "n1",
                required("podAntiAffinity", affinityTerm("service", "In", kSecurityS1, "rack")))},
       "Success",
       ""},
      {"an unparsable term",
       testPod("p", "default", {}, "",
               required("podAffinity", affinityTerm("service", "In", "", "region"))),
       {},
       "",
       ""},
  };
  cases.pop_back();  // checked in PreFilterParseError
  runFilterCases(cases);
}

TEST(InterPodAffinityTest, PreFilterSkipsPodsWithoutAffinity) {
  auto result = runIpa("", {node("n1", kNode1)}, {testPod("e", "default", {}, "n1")},
                       testPod("p", "default", {}));
  EXPECT_EQ(result.preFilter.at(kIPA).code, "Skip");
  // An existing pod's required anti-affinity that does not match still leaves no counts.
  result = runIpa(
      "", {node("n1", kNode1)},
      {testPod("e", "default", {}, "n1",
               required("podAntiAffinity", affinityTerm("service", "Exists", "", "region")))},
      testPod("p", "default", {}));
  EXPECT_EQ(result.preFilter.at(kIPA).code, "Skip");
  // One that matches does not skip.
  result = runIpa(
      "", {node("n1", kNode1)},
      {testPod("e", "default", {}, "n1",
               required("podAntiAffinity", affinityTerm("service", "Exists", "", "region")))},
      testPod("p", "default", {{"service", "x"}}));
  EXPECT_EQ(result.preFilter.at(kIPA).code, "Success");
}

TEST(InterPodAffinityTest, PreFilterParseError) {
  auto result = runIpa(
      "", {node("n1", kNode1)}, {},
      testPod("p", "default", {}, "",
              required("podAffinity", affinityTerm("service", "Exists", R"("x")", "region"))));
  EXPECT_EQ(result.preFilter.at(kIPA).code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(result.preFilter.at(kIPA).reasons,
            std::vector<std::string>{
                "parsing pod: requiredAffinityTerms: values: Invalid value: []string{\"x\"}: "
                "values set must be empty for exists and does not exist"});
}

// Several nodes: domains of a topology key span nodes.
TEST(InterPodAffinityTest, RequiredAffinityMultipleNodes) {
  std::vector<NodePtr> nodes = {
      node("n1", {{"region", "r1"}, {"zone", "z1"}, {"kubernetes.io/hostname", "n1"}}),
      node("n2", {{"region", "r1"}, {"zone", "z2"}, {"kubernetes.io/hostname", "n2"}}),
      node("n3", {{"region", "r2"}, {"zone", "z3"}, {"kubernetes.io/hostname", "n3"}}),
      node("n4", {{"kubernetes.io/hostname", "n4"}})};
  const StringMap foo = {{"foo", "bar"}};
  struct Case {
    std::string name;
    PodPtr pod;
    std::vector<PodPtr> placed;
    std::map<std::string, std::string> want;  // node → code
  };
  std::vector<Case> cases = {
      {"affinity by region: every node of r1 fits, r2 and the node without region do not",
       testPod("p", "default", {}, "",
               required("podAffinity", affinityTerm("foo", "In", R"("bar")", "region"))),
       {testPod("e", "default", foo, "n1")},
       {{"n1", "Success"},
        {"n2", "Success"},
        {"n3", "UnschedulableAndUnresolvable"},
        {"n4", "UnschedulableAndUnresolvable"}}},
      {"affinity by hostname: only the node with the pod",
       testPod("p", "default", {}, "",
               required("podAffinity",
                        affinityTerm("foo", "In", R"("bar")", "kubernetes.io/hostname"))),
       {testPod("e", "default", foo, "n2")},
       {{"n1", "UnschedulableAndUnresolvable"},
        {"n2", "Success"},
        {"n3", "UnschedulableAndUnresolvable"},
        {"n4", "UnschedulableAndUnresolvable"}}},
      {"anti-affinity by region: r1 is excluded",
       testPod("p", "default", {}, "",
               required("podAntiAffinity", affinityTerm("foo", "In", R"("bar")", "region"))),
       {testPod("e", "default", foo, "n2")},
       {{"n1", "Unschedulable"}, {"n2", "Unschedulable"}, {"n3", "Success"}, {"n4", "Success"}}},
      {"an existing pod's anti-affinity by zone excludes its zone only",
       testPod("p", "default", foo),
       {testPod("e", "default", {}, "n1",
                required("podAntiAffinity", affinityTerm("foo", "Exists", "", "zone")))},
       {{"n1", "Unschedulable"}, {"n2", "Success"}, {"n3", "Success"}, {"n4", "Success"}}},
      {"first pod of a group: fits every node having the key",
       testPod("p", "default", foo, "",
               required("podAffinity", affinityTerm("foo", "In", R"("bar")", "zone"))),
       {testPod("e", "default", {{"foo", "baz"}}, "n1")},
       {{"n1", "Success"},
        {"n2", "Success"},
        {"n3", "Success"},
        {"n4", "UnschedulableAndUnresolvable"}}},
      {"not the first pod once a match exists: only the matching domain",
       testPod("p", "default", foo, "",
               required("podAffinity", affinityTerm("foo", "In", R"("bar")", "zone"))),
       {testPod("e", "default", foo, "n3")},
       {{"n1", "UnschedulableAndUnresolvable"},
        {"n2", "UnschedulableAndUnresolvable"},
        {"n3", "Success"},
        {"n4", "UnschedulableAndUnresolvable"}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = runIpa("", nodes, c.placed, c.pod);
    for (const auto& [node, code] : c.want) {
      EXPECT_EQ(filterStatus(result, node, kIPA).code, code) << node;
    }
  }
}

// Nodes for scoring: n1 and n3 share region China, n2 is India; each its own az.
std::vector<NodePtr> scoreNodes() {
  return {node("n1", {{"region", "China"}, {"az", "az1"}}),
          node("n2", {{"region", "India"}, {"az", "az2"}}),
          node("n3", {{"region", "China"}, {"az", "az3"}})};
}

TEST(InterPodAffinityTest, Score) {
  const StringMap s1 = {{"security", "S1"}};
  const StringMap s2 = {{"security", "S2"}};
  const std::string prefS1Region =
      preferred("podAffinity", weighted(5, affinityTerm("security", "In", R"("S1")", "region")));
  std::vector<ScoreCase> cases = {
      {"preferred affinity: China += 5 → 5, 0, 5 → 100, 0, 100",
       "",
       scoreNodes(),
       {testPod("e", "default", s1, "n1")},
       testPod("p", "default", {}, "", prefS1Region),
       {{"n1", 100}, {"n2", 0}, {"n3", 100}}},
      {"preferred anti-affinity: China −= 5 → −5, 0, −5 → 0, 100, 0",
       "",
       scoreNodes(),
       {testPod("e", "default", s1, "n1")},
       testPod("p", "default", {}, "",
               preferred("podAntiAffinity",
                         weighted(5, affinityTerm("security", "In", R"("S1")", "region")))),
       {{"n1", 0}, {"n2", 100}, {"n3", 0}}},
      {"affinity China += 8, anti-affinity az3 −= 3 → 8, 0, 5 → 100, 0, int(100·5/8) = 62",
       "",
       scoreNodes(),
       {testPod("e1", "default", s1, "n1"), testPod("e2", "default", s2, "n3")},
       testPod(
           "p", "default", {}, "",
           R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [)" +
               weighted(8, affinityTerm("security", "In", R"("S1")", "region")) +
               R"(]}, "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [)" +
               weighted(3, affinityTerm("security", "In", R"("S2")", "az")) + "]}}"),
       {{"n1", 100}, {"n2", 0}, {"n3", 62}}},
      {"two matching pods in China: China += 2·5 = 10, India += 5 → 10, 5, 10 → 100, 0, 100",
       "",
       scoreNodes(),
       {testPod("e1", "default", s1, "n1"), testPod("e2", "default", s1, "n3"),
        testPod("e3", "default", s1, "n2")},
       testPod("p", "default", {}, "", prefS1Region),
       {{"n1", 100}, {"n2", 0}, {"n3", 100}}},
      {"existing pod's required affinity to the pod: China += hardPodAffinityWeight 1 → "
       "100, 0, 100",
       "",
       scoreNodes(),
       {testPod("e", "default", {}, "n1",
                required("podAffinity", affinityTerm("security", "In", R"("S1")", "region")))},
       testPod("p", "default", s1),
       {{"n1", 100}, {"n2", 0}, {"n3", 100}}},
      {"hardPodAffinityWeight 0: nothing accumulates, PreScore skips",
       R"({"hardPodAffinityWeight": 0})",
       scoreNodes(),
       {testPod("e", "default", {}, "n1",
                required("podAffinity", affinityTerm("security", "In", R"("S1")", "region")))},
       testPod("p", "default", s1),
       {{"n1", -1}, {"n2", -1}, {"n3", -1}}},
      {"existing pod's preferred anti-affinity to the pod: India −= 4 → 0, −4, 0 → 100, 0, 100",
       "",
       scoreNodes(),
       {testPod("e", "default", {}, "n2",
                preferred("podAntiAffinity",
                          weighted(4, affinityTerm("security", "In", R"("S1")", "region"))))},
       testPod("p", "default", s1),
       {{"n1", 100}, {"n2", 0}, {"n3", 100}}},
      {"existing pod's preferred affinity, ignored with ignorePreferredTermsOfExistingPods",
       R"({"ignorePreferredTermsOfExistingPods": true})",
       scoreNodes(),
       {testPod("e", "default", {}, "n2",
                preferred("podAffinity",
                          weighted(4, affinityTerm("security", "In", R"("S1")", "region"))))},
       testPod("p", "default", s1),
       {{"n1", -1}, {"n2", -1}, {"n3", -1}}},
      {"existing pod's preferred affinity counts by default: India += 4 → 0, 100, 0",
       "",
       scoreNodes(),
       {testPod("e", "default", {}, "n2",
                preferred("podAffinity",
                          weighted(4, affinityTerm("security", "In", R"("S1")", "region"))))},
       testPod("p", "default", s1),
       {{"n1", 0}, {"n2", 100}, {"n3", 0}}},
      {"ignorePreferredTermsOfExistingPods with preferred terms of its own still scores "
       "(China += 5 from the pod; the existing pod's India += 4 is still counted) → "
       "5, 4, 5 → 100, 0, 100",
       R"({"ignorePreferredTermsOfExistingPods": true})",
       scoreNodes(),
       {testPod("e1", "default", s1, "n1"),
        testPod("e2", "default", {}, "n2",
                preferred("podAffinity",
                          weighted(4, affinityTerm("security", "Exists", "", "region"))))},
       testPod("p", "default", s1, "", prefS1Region),
       {{"n1", 100}, {"n2", 0}, {"n3", 100}}},
      {"a matching pod in another namespace does not count: PreScore skips",
       "",
       scoreNodes(),
       {testPod("e", "other", s1, "n1")},
       testPod("p", "default", {}, "", prefS1Region),
       {{"n1", -1}, {"n2", -1}, {"n3", -1}}},
      {"the term's namespaces let it count",
       "",
       scoreNodes(),
       {testPod("e", "other", s1, "n1")},
       testPod(
           "p", "default", {}, "",
           preferred("podAffinity", weighted(5, affinityTerm("security", "In", R"("S1")", "region",
                                                             R"("namespaces": ["other"])")))),
       {{"n1", 100}, {"n2", 0}, {"n3", 100}}},
      {"scores that sum to zero: China +5 −5 = 0 stays accumulated → all 0",
       "",
       scoreNodes(),
       {testPod("e", "default", s1, "n1")},
       testPod(
           "p", "default", {}, "",
           R"({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [)" +
               weighted(5, affinityTerm("security", "In", R"("S1")", "region")) +
               R"(]}, "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [)" +
               weighted(5, affinityTerm("security", "In", R"("S1")", "region")) + "]}}"),
       {{"n1", 0}, {"n2", 0}, {"n3", 0}}},
  };
  runScoreCases(kIPA, cases);
}

TEST(InterPodAffinityTest, ScoreWithNamespaceSelector) {
  // The pod prefers pods of namespaces labelled team=a: "other" is, "third" is not.
  auto objects = namespaces({{"default", {}}, {"other", {{"team", "a"}}}, {"third", {}}});
  const StringMap s1 = {{"security", "S1"}};
  auto pod = testPod(
      "p", "default", {}, "",
      preferred(
          "podAffinity",
          weighted(5, affinityTerm("security", "In", R"("S1")", "az",
                                   R"("namespaceSelector": {"matchLabels": {"team": "a"}})"))));
  // az1 += 5 (n1's pod in "other"); n3's pod in "third" does not count → 5, 0, 0.
  auto result =
      runIpa("", scoreNodes(), {testPod("e1", "other", s1, "n1"), testPod("e3", "third", s1, "n3")},
             pod, objects);
  EXPECT_EQ(scoreOf(result, "n1", kIPA), 100);
  EXPECT_EQ(scoreOf(result, "n2", kIPA), 0);
  EXPECT_EQ(scoreOf(result, "n3", kIPA), 0);
}

TEST(InterPodAffinityTest, Args) {
  EXPECT_EQ(argsError(kIPA, ""), "");
  EXPECT_EQ(argsError(kIPA, R"({"hardPodAffinityWeight": 0})"), "");
  EXPECT_EQ(argsError(kIPA, R"({"hardPodAffinityWeight": 100,
                                "ignorePreferredTermsOfExistingPods": true})"),
            "");
  EXPECT_TRUE(contains(argsError(kIPA, R"({"hardPodAffinityWeight": 101})"),
                       "hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"));
  EXPECT_TRUE(contains(argsError(kIPA, R"({"hardPodAffinityWeight": -1})"),
                       "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"));
  EXPECT_TRUE(contains(argsError(kIPA, R"({"hardPodAffinityWeight": "2"})"),
                       "hardPodAffinityWeight: Invalid value: expected an integer"));
  EXPECT_TRUE(contains(argsError(kIPA, R"({"ignorePreferredTermsOfExistingPods": 1})"),
                       "ignorePreferredTermsOfExistingPods: Invalid value: expected a boolean"));
  EXPECT_TRUE(contains(argsError(kIPA, R"({"hardPodAffinityWieght": 2})"),
                       "unknown field \"hardPodAffinityWieght\""));
}

enum : std::size_t { kPodEvents = 0, kNodeEvents = 1 };

TEST(InterPodAffinityTest, Registrations) {
  LoadedPlugin plugin(kIPA);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_POD, SH_ACTION_ADD | SH_ACTION_UPDATE_POD_LABEL | SH_ACTION_DELETE, 1},
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_LABEL, 1}}));
}

TEST(InterPodAffinityTest, PodEvents) {
  LoadedPlugin plugin(kIPA);
  const std::string aff = R"("podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
                          affinityTerm("service", "In", R"("securityscan")", "region") + "]}";
  const std::string anti =
      R"("podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [)" +
      affinityTerm("service", "In", R"("antivirus")", "region") + "]}";
  PodPtr pod = testPod("p", "default", {}, "", "{" + aff + ", " + anti + "}");
  PodPtr unscheduled = testPod("u", "default", {{"service", "securityscan"}});
  PodPtr plain = testPod("a", "default", {}, "n1");
  PodPtr matchesAffinity = testPod("a", "default", {{"service", "securityscan"}}, "n1");
  PodPtr matchesAnti = testPod("a", "default", {{"service", "antivirus"}}, "n1");
  PodPtr otherNs = testPod("a", "other", {{"service", "securityscan"}}, "n1");
  struct Case {
    std::string name;
    sh_event_objects event;
    sh_queueing_hint want;
  };
  std::vector<Case> cases = {
      {"an unscheduled pod was added", podEvent(SH_ACTION_ADD, nullptr, unscheduled),
       SH_QUEUE_SKIP},
      {"an added pod matches the affinity", podEvent(SH_ACTION_ADD, nullptr, matchesAffinity),
       SH_QUEUE},
      {"an added pod does not match", podEvent(SH_ACTION_ADD, nullptr, plain), SH_QUEUE_SKIP},
      {"an added pod in another namespace", podEvent(SH_ACTION_ADD, nullptr, otherNs),
       SH_QUEUE_SKIP},
      {"labels updated to match the affinity",
       podEvent(SH_ACTION_UPDATE_POD_LABEL, plain, matchesAffinity), SH_QUEUE},
      {"labels updated to stop matching the anti-affinity",
       podEvent(SH_ACTION_UPDATE_POD_LABEL, matchesAnti, plain), SH_QUEUE},
      {"labels updated, still not matching", podEvent(SH_ACTION_UPDATE_POD_LABEL, plain, plain),
       SH_QUEUE_SKIP},
      {"a pod matching the anti-affinity was deleted",
       podEvent(SH_ACTION_DELETE, matchesAnti, nullptr), SH_QUEUE},
      {"a pod not matching the anti-affinity was deleted",
       podEvent(SH_ACTION_DELETE, plain, nullptr), SH_QUEUE_SKIP},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.hint(kPodEvents, pod->view(), c.event), c.want);
  }
}

TEST(InterPodAffinityTest, NodeEvents) {
  LoadedPlugin plugin(kIPA);
  PodPtr affinity =
      testPod("p", "default", {}, "",
              required("podAffinity", affinityTerm("service", "Exists", "", "region")));
  PodPtr anti = testPod("p", "default", {}, "",
                        required("podAntiAffinity", affinityTerm("service", "Exists", "", "zone")));
  NodePtr withRegion = node("n1", {{"region", "r1"}});
  NodePtr withZone = node("n1", {{"zone", "z1"}});
  NodePtr bare = node("n1", {});
  EXPECT_EQ(
      plugin.hint(kNodeEvents, affinity->view(), nodeEvent(SH_ACTION_ADD, nullptr, withRegion)),
      SH_QUEUE);
  EXPECT_EQ(plugin.hint(kNodeEvents, affinity->view(), nodeEvent(SH_ACTION_ADD, nullptr, bare)),
            SH_QUEUE_SKIP);
  EXPECT_EQ(plugin.hint(kNodeEvents, anti->view(),
                        nodeEvent(SH_ACTION_UPDATE_NODE_LABEL, bare, withZone)),
            SH_QUEUE);
  EXPECT_EQ(plugin.hint(kNodeEvents, anti->view(),
                        nodeEvent(SH_ACTION_UPDATE_NODE_LABEL, bare, withRegion)),
            SH_QUEUE_SKIP);
}

}  // namespace
}  // namespace schedhost::testing::inter_pod_affinity_test

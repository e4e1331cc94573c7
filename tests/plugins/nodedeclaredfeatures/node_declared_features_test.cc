// NodeDeclaredFeatures through the host: what the v1.36 features infer from a pod's manifest,
// Filter against status.declaredFeatures, and the queueing hints. Cases after upstream
// nodedeclaredfeatures_test.go (v1.36) and the registered features' tests in component-helpers
// nodedeclaredfeatures/features (v0.36.2): restart_all_containers_test.go TestInferForScheduling,
// user_namespaces_host_network_test.go TestInferForScheduling.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::node_declared_features_test {
namespace {

using sh::model::testing::PodWrapper;

constexpr char kPlugin[] = "NodeDeclaredFeatures";
constexpr char kReason[] = "node(s) didn't match Pod's required features";
constexpr char kRestartAll[] = "RestartAllContainersOnContainerExits";
constexpr char kUserNsHostNetwork[] = "UserNamespacesHostNetworkSupport";

// A node (MakeNode().Name(name).DeclaredFeatures(features)).
NodePtr node(const std::string& name, const std::vector<std::string>& features = {}) {
  boost::json::value json = makeNode().name(name).parseJson();
  if (!features.empty()) {
    boost::json::array declared;
    for (const std::string& f : features) {
      declared.emplace_back(f);
    }
    boost::json::object& o = json.as_object();
    if (!o.contains("status")) {
      o["status"] = boost::json::object();
    }
    o["status"].as_object()["declaredFeatures"] = std::move(declared);
  }
  std::string error;
  auto n = sh::model::parseNode(json, error);
  if (!n) {
    throw std::runtime_error("node: " + error);
  }
  return n;
}

// A container; with `restartAll`, one whose restartPolicyRules restart all containers on exit
// code 1 (containerWithRestartAllContainersAction).
boost::json::value container(const std::string& name, bool restartAll = false) {
  if (!restartAll) {
    return boost::json::object{{"name", name}, {"image", "image"}};
  }
  return boost::json::parse(R"({"name": ")" + name + R"(", "image": "image",
      "restartPolicy": "Never",
      "restartPolicyRules": [{"action": "RestartAllContainers",
                              "exitCodes": {"operator": "In", "values": [1]}}]})");
}

PodWrapper pod() { return makePod().name("p").inNamespace("default").uid("p"); }

PodWrapper podWithContainers(boost::json::array inits, boost::json::array containers) {
  PodWrapper w = pod();
  if (!inits.empty()) {
    w.set({"spec", "initContainers"}, std::move(inits));
  }
  w.set({"spec", "containers"}, std::move(containers));
  return w;
}

// hostNetwork and hostUsers as the test sets them; nullopt leaves hostUsers out.
PodWrapper podWithHostUsers(bool hostNetwork, std::optional<bool> hostUsers) {
  PodWrapper w = pod();
  w.set({"spec", "containers"}, boost::json::array{container("c")});
  w.set({"spec", "hostNetwork"}, hostNetwork);
  if (hostUsers) {
    w.set({"spec", "hostUsers"}, *hostUsers);
  }
  return w;
}

sh::evaluate::Result run(const PodPtr& p, std::vector<NodePtr> nodes) {
  return evaluate({{kPlugin, ""}}, std::move(nodes), {}, p);
}

// Whether scheduling `p` needs a feature, as PreFilter answers on a node that declares none:
// Skip, or Success with the node rejected.
bool requiresSomething(const PodPtr& p) {
  auto result = run(p, {node("n1")});
  const std::string code = result.preFilter.at(kPlugin).code;
  EXPECT_TRUE(code == "Skip" || code == "Success") << code;
  if (code == "Skip") {
    EXPECT_TRUE(result.nodes.at("n1").feasible);
    return false;
  }
  auto status = filterStatus(result, "n1", kPlugin);
  EXPECT_EQ(status.code, "UnschedulableAndUnresolvable");
  EXPECT_EQ(status.reasons, std::vector<std::string>{kReason});
  return true;
}

// restart_all_containers_test.go TestInferForScheduling, and the node that declares it.
TEST(NodeDeclaredFeaturesTest, RestartAllContainersInferForScheduling) {
  struct Case {
    std::string name;
    PodPtr pod;
    bool expected;
  };
  std::vector<Case> cases = {
      {"init container with rules",
       podWithContainers({container("container", true)}, {container("name")}).obj(), true},
      {"regular container with rules",
       podWithContainers({container("name")}, {container("container", true)}).obj(), true},
      {"no rules", podWithContainers({container("name")}, {container("name2")}).obj(), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(requiresSomething(c.pod), c.expected);
    if (c.expected) {
      auto result = run(c.pod, {node("n1", {kRestartAll})});
      EXPECT_EQ(filterStatus(result, "n1", kPlugin).code, "Success");
      EXPECT_EQ(result.selected, "n1");
    }
  }

  // A rule with another action does not need the feature.
  boost::json::value restartOne = container("c", true);
  restartOne.as_object()["restartPolicyRules"].as_array()[0].as_object()["action"] = "Restart";
  EXPECT_FALSE(requiresSomething(podWithContainers({}, {restartOne}).obj()));
}

// user_namespaces_host_network_test.go TestInferForScheduling, and the node that declares it.
TEST(NodeDeclaredFeaturesTest, UserNamespacesHostNetworkInferForScheduling) {
  struct Case {
    std::string name;
    bool hostNetwork;
    std::optional<bool> hostUsers;
    bool expected;
  };
  std::vector<Case> cases = {
      {"HostNetwork true, HostUsers false", true, false, true},
      {"HostNetwork true, HostUsers nil", true, std::nullopt, false},
      {"HostNetwork true, HostUsers true", true, true, false},
      {"HostNetwork false, HostUsers false", false, false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PodPtr p = podWithHostUsers(c.hostNetwork, c.hostUsers).obj();
    EXPECT_EQ(requiresSomething(p), c.expected);
    if (c.expected) {
      auto result = run(p, {node("n1", {kUserNsHostNetwork})});
      EXPECT_EQ(filterStatus(result, "n1", kPlugin).code, "Success");
    }
  }
}

// The other features registered in v1.36 never infer for scheduling (pod-level resources and
// init-container resizes matter to updates only; ExtendWebSocketsToKubelet to nothing).
TEST(NodeDeclaredFeaturesTest, OtherRegisteredFeaturesAreNotNeededToSchedule) {
  EXPECT_FALSE(requiresSomething(pod().obj()));
  EXPECT_FALSE(requiresSomething(pod()
                                     .podRequests({{"cpu", "500m"}})
                                     .podLimits({{"cpu", "1"}})
                                     .initReq({{"cpu", "100m"}})
                                     .sidecarReq({{"cpu", "100m"}})
                                     .req({{"cpu", "100m"}})
                                     .obj()));
  EXPECT_FALSE(requiresSomething(pod().hostNetwork().req({}).obj()));
}

// nodedeclaredfeatures_test.go TestFilter, with the registered features in place of FeatureA
// (RestartAllContainersOnContainerExits) and FeatureB (UserNamespacesHostNetworkSupport).
TEST(NodeDeclaredFeaturesTest, Filter) {
  PodPtr needsA = podWithContainers({}, {container("c", true)}).obj();
  PodWrapper both = podWithHostUsers(true, false);
  both.set({"spec", "containers"}, boost::json::array{container("c", true)});
  PodPtr needsAB = both.obj();
  struct Case {
    std::string name;
    PodPtr pod;
    NodePtr node;
    bool fits;
  };
  std::vector<Case> cases = {
      {"Node matches requirements", needsA, node("node-1", {kRestartAll, kUserNsHostNetwork}),
       true},
      {"Node does not match requirements", needsA, node("node-1", {kUserNsHostNetwork}), false},
      {"Node with multiple features, pod requires subset", needsAB,
       node("node-1", {"ExtendWebSocketsToKubelet", kRestartAll, kUserNsHostNetwork}), true},
      {"Node has no declared features", needsA, node("node-1"), false},
      {"Node with some but not all required features", needsAB, node("node-1", {kRestartAll}),
       false},
      {"Node declares only features the registry does not know", needsA,
       node("node-1", {"SomeFutureFeature"}), false},
      {"Unknown features beside the required one", needsA,
       node("node-1", {"AFutureFeature", kRestartAll, "ZFutureFeature"}), true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto result = run(c.pod, {c.node});
    EXPECT_EQ(result.preFilter.at(kPlugin).code, "Success");
    auto status = filterStatus(result, "node-1", kPlugin);
    if (c.fits) {
      EXPECT_EQ(status.code, "Success");
    } else {
      EXPECT_EQ(status.code, "UnschedulableAndUnresolvable");
      EXPECT_EQ(status.reasons, std::vector<std::string>{kReason});
    }
  }
}

// Among several nodes only those declaring the feature are feasible; the FitError counts the
// others under the reason.
TEST(NodeDeclaredFeaturesTest, OnlyDeclaringNodesAreFeasible) {
  PodPtr p = podWithContainers({}, {container("c", true)}).obj();
  auto result = run(p, {node("old-1"), node("new", {kRestartAll}), node("old-2", {"Other"})});
  EXPECT_FALSE(result.nodes.at("old-1").feasible);
  EXPECT_TRUE(result.nodes.at("new").feasible);
  EXPECT_FALSE(result.nodes.at("old-2").feasible);
  EXPECT_EQ(result.selected, "new");

  auto none = run(p, {node("old-1"), node("old-2")});
  EXPECT_FALSE(none.selected.has_value());
  EXPECT_TRUE(contains(none.message, "2 node(s) didn't match Pod's required features"));
}

// A field a feature reads, of the wrong type, is an Error naming the pod and the field.
TEST(NodeDeclaredFeaturesTest, MalformedFieldIsAnError) {
  struct Case {
    std::string name;
    PodPtr pod;
    std::string message;
  };
  PodWrapper hostUsers = podWithHostUsers(true, false);
  hostUsers.set({"spec", "hostUsers"}, "false");
  PodWrapper rules = podWithContainers({}, {container("c")});
  rules.set({"spec", "containers"},
            boost::json::parse(R"([{"name": "c", "restartPolicyRules": "RestartAllContainers"}])"));
  PodWrapper action = podWithContainers({}, {container("c")});
  action.set({"spec", "initContainers"},
             boost::json::parse(R"([{"name": "i", "restartPolicyRules": [{"action": 1}]}])"));
  std::vector<Case> cases = {
      {"hostUsers", hostUsers.obj(), "pod \"default/p\": spec.hostUsers: expected a boolean"},
      {"restartPolicyRules", rules.obj(),
       "pod \"default/p\": spec.containers[0].restartPolicyRules: expected an array"},
      {"action", action.obj(),
       "pod \"default/p\": spec.initContainers[0].restartPolicyRules[0].action: expected a "
       "string"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    try {
      run(c.pod, {node("n1")});
      ADD_FAILURE() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_TRUE(contains(e.what(), c.message));
    }
  }
}

TEST(NodeDeclaredFeaturesTest, Events) {
  LoadedPlugin plugin(kPlugin);
  EXPECT_EQ(registrations(plugin),
            (std::vector<std::tuple<int32_t, uint32_t, int32_t>>{
                {SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE_NODE_DECLARED_FEATURE, 1},
                {SH_RESOURCE_POD, SH_ACTION_UPDATE, 1}}));
}

// TestEnqueueExtensionsNodeUpdate.
TEST(NodeDeclaredFeaturesTest, NodeChangeHint) {
  LoadedPlugin plugin(kPlugin);
  PodPtr p = pod().obj();
  const uint32_t update = SH_ACTION_UPDATE_NODE_DECLARED_FEATURE;
  struct Case {
    std::string name;
    NodePtr oldNode;
    NodePtr newNode;
    sh_queueing_hint want;
  };
  std::vector<Case> cases = {
      {"Node Add with feature", nullptr, node("node-1", {"FeatureA"}), SH_QUEUE},
      {"Node Add without features", nullptr, node("node-1"), SH_QUEUE},
      {"Node Update (Features Added)", node("node-1"), node("node-1", {"FeatureA"}), SH_QUEUE},
      {"Node Update (Features Removed)", node("node-1", {"FeatureA"}), node("node-1"), SH_QUEUE},
      {"Node Update (Features Unchanged)", node("node-1", {"FeatureA"}),
       node("node-1", {"FeatureA"}), SH_QUEUE_SKIP},
      {"Node Update (a feature replaced)", node("node-1", {"FeatureA"}),
       node("node-1", {"FeatureB"}), SH_QUEUE},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    uint32_t actions = c.oldNode ? update : SH_ACTION_ADD;
    EXPECT_EQ(plugin.hint(0, p->view(), nodeEvent(actions, c.oldNode, c.newNode)), c.want);
  }
}

// TestEnqueueExtensionsPodUpdate, with the registered RestartAllContainersOnContainerExits in
// place of the mock feature.
TEST(NodeDeclaredFeaturesTest, PodUpdateHint) {
  LoadedPlugin plugin(kPlugin);
  PodPtr target = pod().obj();
  PodPtr plain = pod().req({}).obj();
  PodPtr labelled = pod().label("foo", "bar").req({}).obj();
  PodPtr restartAll = podWithContainers({}, {container("c", true)}).obj();
  PodPtr restartAllLabelled =
      podWithContainers({}, {container("c", true)}).label("foo", "bar").obj();
  PodPtr other = makePod().name("another-test-pod").uid("456").label("foo", "bar").obj();
  PodPtr otherNeeding =
      podWithContainers({}, {container("c", true)}).name("another-test-pod").uid("456").obj();
  PodPtr malformed = pod().set({"spec", "hostUsers"}, "no").obj();
  struct Case {
    std::string name;
    PodPtr oldPod;
    PodPtr newPod;
    sh_queueing_hint want;
  };
  std::vector<Case> cases = {
      {"Pod Update adds requirement", plain, restartAll, SH_QUEUE},
      {"Pod Update removes requirement", restartAll, plain, SH_QUEUE},
      {"Pod Update with no change in requirements", plain, labelled, SH_QUEUE_SKIP},
      {"Pod Update keeping its requirement", restartAll, restartAllLabelled, SH_QUEUE_SKIP},
      {"Updated pod not the same as target pod", other, otherNeeding, SH_QUEUE_SKIP},
      {"Infer returns error", plain, malformed, SH_QUEUE},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(plugin.hint(1, target->view(), podEvent(SH_ACTION_UPDATE, c.oldPod, c.newPod)),
              c.want);
  }
}

}  // namespace
}  // namespace schedhost::testing::node_declared_features_test

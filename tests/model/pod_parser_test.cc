#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "host/model/interner.h"
#include "host/model/pod.h"
#include "host/model/pod_assign.h"
#include "host/model/testing/wrappers.h"
#include "tests/model/sv.h"

namespace sh::model::pod_parser_test {
namespace {

using testing::AffinityKind;
using testing::makePod;
using testing::sv;

std::string_view nameOf(sh_id id) { return interner().view(id); }

std::string parseError(std::string_view json) {
  std::string error;
  auto pod = parsePodJson(json, error);
  EXPECT_EQ(pod, nullptr) << json;
  return error;
}

TEST(PodParserTest, MetadataAndDefaults) {
  auto pod = makePod().name("p").uid("u1").obj();
  const sh_pod& v = pod->view();
  EXPECT_EQ(v.struct_size, sizeof(sh_pod));
  EXPECT_EQ(sv(v.name), "p");
  EXPECT_EQ(sv(v.namespace_), "default");
  EXPECT_EQ(sv(v.uid), "u1");
  EXPECT_EQ(sv(v.scheduler_name), "default-scheduler");
  EXPECT_EQ(sv(v.node_name), "");
  EXPECT_EQ(v.priority, 0);
  EXPECT_FALSE(pod->hasPriority());
  EXPECT_EQ(v.preemption_policy, SH_PREEMPT_LOWER_PRIORITY);
  EXPECT_EQ(v.creation_unix_nanos, 0);
  EXPECT_EQ(v.deleting, 0);
  EXPECT_EQ(v.phase_terminal, 0);
  EXPECT_EQ(v.node_affinity, nullptr);
  EXPECT_EQ(v.pod_affinity, nullptr);
  EXPECT_EQ(v.pod_anti_affinity, nullptr);
  EXPECT_EQ(v.container_count, 0u);
  EXPECT_EQ(pod->name(), "p");
}

TEST(PodParserTest, ScalarFields) {
  auto pod = makePod()
                 .name("p")
                 .inNamespace("ns")
                 .node("n1")
                 .schedulerName("custom")
                 .priority(10)
                 .priorityClassName("high")
                 .preemptionPolicy("Never")
                 .creationTimestamp("2024-01-02T03:04:05Z")
                 .terminating()
                 .nominatedNodeName("n2")
                 .startTime("2024-01-02T03:04:06Z")
                 .phase("Succeeded")
                 .obj();
  const sh_pod& v = pod->view();
  EXPECT_EQ(sv(v.namespace_), "ns");
  EXPECT_EQ(sv(v.node_name), "n1");
  EXPECT_EQ(sv(v.scheduler_name), "custom");
  EXPECT_EQ(v.priority, 10);
  EXPECT_TRUE(pod->hasPriority());
  EXPECT_EQ(pod->priorityClassName(), "high");
  EXPECT_EQ(v.preemption_policy, SH_PREEMPT_NEVER);
  EXPECT_EQ(v.creation_unix_nanos, int64_t{1704164645} * 1000000000);
  EXPECT_EQ(v.start_unix_nanos, int64_t{1704164646} * 1000000000);
  EXPECT_EQ(v.deleting, 1);
  EXPECT_EQ(sv(v.nominated_node_name), "n2");
  EXPECT_EQ(v.phase_terminal, 1);
}

TEST(PodParserTest, LabelsAndNodeSelectorSortedByKeyId) {
  sh_id zeta = intern("zeta-first-interned");
  sh_id alpha = intern("alpha-second-interned");
  auto pod = makePod()
                 .name("p")
                 .label("alpha-second-interned", "1")
                 .label("zeta-first-interned", "2")
                 .nodeSelector({{"alpha-second-interned", "a"}, {"zeta-first-interned", "z"}})
                 .obj();
  const sh_pod& v = pod->view();
  ASSERT_EQ(v.label_count, 2u);
  EXPECT_EQ(v.labels[0].key, zeta);
  EXPECT_EQ(v.labels[1].key, alpha);
  EXPECT_EQ(sv(v.labels[0].value_str), "2");
  EXPECT_EQ(sv(v.labels[1].key_str), "alpha-second-interned");
  ASSERT_EQ(v.node_selector_count, 2u);
  EXPECT_EQ(v.node_selector[0].key, zeta);
  EXPECT_EQ(nameOf(v.node_selector[0].value), "z");
}

TEST(PodParserTest, Tolerations) {
  auto pod = makePod()
                 .name("p")
                 .toleration("k", "Equal", "v", "NoSchedule", 30)
                 .toleration("", "Exists", "", "")
                 .toleration("k2", "Gt", "5", "NoExecute")
                 .toleration("k3", "Weird", "", "PreferNoSchedule")
                 .obj();
  const sh_pod& v = pod->view();
  ASSERT_EQ(v.toleration_count, 4u);
  EXPECT_EQ(nameOf(v.tolerations[0].key), "k");
  EXPECT_EQ(nameOf(v.tolerations[0].value), "v");
  EXPECT_EQ(v.tolerations[0].op, SH_TOLERATION_EQUAL);
  EXPECT_EQ(v.tolerations[0].effect, SH_EFFECT_NO_SCHEDULE);
  EXPECT_EQ(v.tolerations[0].toleration_seconds, 30);
  EXPECT_EQ(v.tolerations[1].key, SH_ID_NONE);
  EXPECT_EQ(v.tolerations[1].op, SH_TOLERATION_EXISTS);
  EXPECT_EQ(v.tolerations[1].effect, SH_EFFECT_NONE);
  EXPECT_EQ(v.tolerations[1].toleration_seconds, -1);
  EXPECT_EQ(v.tolerations[2].op, SH_TOLERATION_GT);
  EXPECT_EQ(v.tolerations[2].effect, SH_EFFECT_NO_EXECUTE);
  EXPECT_EQ(v.tolerations[3].op, SH_TOLERATION_UNKNOWN);
  EXPECT_EQ(v.tolerations[3].effect, SH_EFFECT_PREFER_NO_SCHEDULE);
}

TEST(PodParserTest, HostPorts) {
  auto pod = makePod()
                 .name("p")
                 .hostPort(8080)
                 .hostPort(53, "UDP", "10.0.0.1")
                 .set({"spec", "initContainers"}, boost::json::parse(R"([
                   {"name": "sidecar", "restartPolicy": "Always",
                    "ports": [{"containerPort": 9000, "hostPort": 9000, "protocol": "SCTP"}]},
                   {"name": "init", "ports": [{"containerPort": 7000, "hostPort": 7000}]}])"))
                 .obj();
  const sh_pod& v = pod->view();
  ASSERT_EQ(v.host_port_count, 3u);  // the non-restartable init container's port is ignored
  EXPECT_EQ(v.host_ports[0].port, 8080);
  EXPECT_EQ(v.host_ports[0].protocol, SH_PROTO_TCP);
  EXPECT_EQ(sv(v.host_ports[0].host_ip), "0.0.0.0");
  EXPECT_EQ(v.host_ports[1].port, 53);
  EXPECT_EQ(v.host_ports[1].protocol, SH_PROTO_UDP);
  EXPECT_EQ(sv(v.host_ports[1].host_ip), "10.0.0.1");
  EXPECT_EQ(v.host_ports[2].port, 9000);
  EXPECT_EQ(v.host_ports[2].protocol, SH_PROTO_SCTP);
}

TEST(PodParserTest, HostNetworkExposesContainerPorts) {
  auto pod = makePod()
                 .name("p")
                 .hostNetwork()
                 .set({"spec", "containers"}, boost::json::parse(R"([
                   {"name": "c", "ports": [{"containerPort": 80}, {"containerPort": 0}]}])"))
                 .obj();
  ASSERT_EQ(pod->view().host_port_count, 1u);
  EXPECT_EQ(pod->view().host_ports[0].port, 80);
}

TEST(PodParserTest, ImagesAreNormalizedInOrder) {
  auto pod = makePod()
                 .name("p")
                 .initContainerImage("busybox")
                 .container("nginx")
                 .container("registry:5000/app")
                 .container("app@sha256:abcd")
                 .container("quay.io/x/y:1.2")
                 .imageVolume("data/image")
                 .obj();
  const sh_pod& v = pod->view();
  EXPECT_EQ(v.container_count, 5u);
  ASSERT_EQ(v.image_count, 6u);
  EXPECT_EQ(nameOf(v.images[0]), "busybox:latest");
  EXPECT_EQ(nameOf(v.images[1]), "nginx:latest");
  EXPECT_EQ(nameOf(v.images[2]), "registry:5000/app:latest");
  EXPECT_EQ(nameOf(v.images[3]), "app@sha256:abcd");
  EXPECT_EQ(nameOf(v.images[4]), "quay.io/x/y:1.2");
  EXPECT_EQ(nameOf(v.images[5]), "data/image:latest");
}

TEST(PodParserTest, NodeAffinity) {
  auto pod = makePod()
                 .name("p")
                 .nodeAffinityIn("zone", {"a", "b"})
                 .nodeAffinityNotIn("kind", {"gpu"})
                 .preferredNodeAffinity(7, "disk", {"ssd"})
                 .obj();
  const sh_node_affinity* a = pod->view().node_affinity;
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->has_required, 1);
  ASSERT_EQ(a->required_count, 2u);
  ASSERT_EQ(a->required[0].match_expression_count, 1u);
  const sh_requirement& r = a->required[0].match_expressions[0];
  EXPECT_EQ(nameOf(r.key), "zone");
  EXPECT_EQ(r.op, SH_OP_IN);
  ASSERT_EQ(r.value_count, 2u);
  EXPECT_EQ(nameOf(r.values[1]), "b");
  EXPECT_EQ(a->required[1].match_expressions[0].op, SH_OP_NOT_IN);
  ASSERT_EQ(a->preferred_count, 1u);
  EXPECT_EQ(a->preferred[0].weight, 7);
  EXPECT_EQ(nameOf(a->preferred[0].preference.match_expressions[0].key), "disk");
}

TEST(PodParserTest, NodeAffinityFieldsAndNumbers) {
  auto pod = makePod()
                 .name("p")
                 .set({"spec", "affinity"}, boost::json::parse(R"({"nodeAffinity": {
                   "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                     {"matchFields": [{"key": "metadata.name", "operator": "In",
                                       "values": ["n1"]}],
                      "matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]},
                                           {"key": "mem", "operator": "Lt", "values": ["x"]}]}
                   ]}}})"))
                 .obj();
  const sh_node_affinity* a = pod->view().node_affinity;
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->required_count, 1u);
  const sh_node_selector_term& t = a->required[0];
  ASSERT_EQ(t.match_field_count, 1u);
  EXPECT_EQ(nameOf(t.match_fields[0].key), "metadata.name");
  ASSERT_EQ(t.match_expression_count, 2u);
  EXPECT_EQ(t.match_expressions[0].op, SH_OP_GT);
  EXPECT_EQ(t.match_expressions[0].number_ok, 1);
  EXPECT_EQ(t.match_expressions[0].number, 8);
  EXPECT_EQ(t.match_expressions[1].op, SH_OP_LT);
  EXPECT_EQ(t.match_expressions[1].number_ok, 0);
}

TEST(PodParserTest, EmptyRequiredNodeAffinity) {
  auto pod = makePod()
                 .name("p")
                 .set({"spec", "affinity"}, boost::json::parse(R"({"nodeAffinity": {
                   "requiredDuringSchedulingIgnoredDuringExecution": {}}})"))
                 .obj();
  ASSERT_NE(pod->view().node_affinity, nullptr);
  EXPECT_EQ(pod->view().node_affinity->has_required, 1);
  EXPECT_EQ(pod->view().node_affinity->required_count, 0u);
}

TEST(PodParserTest, PodAffinityAndAntiAffinity) {
  auto pod =
      makePod()
          .name("p")
          .podAffinityIn("app", "kubernetes.io/hostname", {"web"}, AffinityKind::kRequired)
          .podAntiAffinityExists("app", "topology.kubernetes.io/zone", AffinityKind::kPreferred)
          .obj();
  const sh_pod& v = pod->view();
  ASSERT_NE(v.pod_affinity, nullptr);
  ASSERT_EQ(v.pod_affinity->required_count, 1u);
  const sh_pod_affinity_term& t = v.pod_affinity->required[0];
  EXPECT_EQ(t.topology_key, SH_ID_HOSTNAME);
  ASSERT_NE(t.label_selector, nullptr);
  EXPECT_EQ(t.namespace_selector, nullptr);
  ASSERT_EQ(t.label_selector->match_expression_count, 1u);
  EXPECT_EQ(t.label_selector->match_expressions[0].op, SH_OP_IN);
  ASSERT_NE(v.pod_anti_affinity, nullptr);
  EXPECT_EQ(v.pod_anti_affinity->required_count, 0u);
  ASSERT_EQ(v.pod_anti_affinity->preferred_count, 1u);
  EXPECT_EQ(v.pod_anti_affinity->preferred[0].weight, 1);
  EXPECT_EQ(v.pod_anti_affinity->preferred[0].term.topology_key, SH_ID_ZONE);
  EXPECT_TRUE(pod->hasAffinity());
  EXPECT_FALSE(pod->hasRequiredAntiAffinity());
}

TEST(PodParserTest, AffinityTermDetails) {
  auto pod = makePod()
                 .name("p")
                 .set({"spec", "affinity"}, boost::json::parse(R"({"podAntiAffinity": {
                   "requiredDuringSchedulingIgnoredDuringExecution": [{
                     "labelSelector": {"matchLabels": {"app": "db"}},
                     "namespaceSelector": {},
                     "namespaces": ["a", "b"],
                     "topologyKey": "rack",
                     "matchLabelKeys": ["pod-template-hash"],
                     "mismatchLabelKeys": ["tenant"]}]}})"))
                 .obj();
  const sh_pod_affinity* a = pod->view().pod_anti_affinity;
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->required_count, 1u);
  const sh_pod_affinity_term& t = a->required[0];
  ASSERT_NE(t.label_selector, nullptr);
  ASSERT_EQ(t.label_selector->match_label_count, 1u);
  EXPECT_EQ(nameOf(t.label_selector->match_labels[0].value), "db");
  ASSERT_NE(t.namespace_selector, nullptr);  // empty selector: matches all namespaces
  EXPECT_EQ(t.namespace_selector->match_label_count, 0u);
  ASSERT_EQ(t.namespace_count, 2u);
  EXPECT_EQ(sv(t.namespaces[1]), "b");
  EXPECT_EQ(nameOf(t.topology_key), "rack");
  ASSERT_EQ(t.match_label_key_count, 1u);
  EXPECT_EQ(sv(t.match_label_keys[0]), "pod-template-hash");
  ASSERT_EQ(t.mismatch_label_key_count, 1u);
  EXPECT_EQ(sv(t.mismatch_label_keys[0]), "tenant");
  EXPECT_TRUE(pod->hasRequiredAntiAffinity());
}

TEST(PodParserTest, SpreadConstraintsGatesOwners) {
  auto pod =
      makePod()
          .name("p")
          .spreadConstraint(2, "topology.kubernetes.io/zone", "DoNotSchedule", {{"app", "web"}}, 3)
          .schedulingGates({"gate-a", "gate-b"})
          .ownerReference("rs-1", "ReplicaSet")
          .obj();
  const sh_pod& v = pod->view();
  ASSERT_EQ(v.topology_spread_constraint_count, 1u);
  const sh_topology_spread_constraint& c = v.topology_spread_constraints[0];
  EXPECT_EQ(c.max_skew, 2);
  EXPECT_EQ(c.topology_key, SH_ID_ZONE);
  EXPECT_EQ(c.when_unsatisfiable, SH_DO_NOT_SCHEDULE);
  EXPECT_EQ(c.min_domains, 3);
  EXPECT_EQ(c.node_affinity_policy, SH_POLICY_UNSET);
  ASSERT_NE(c.label_selector, nullptr);
  EXPECT_EQ(c.label_selector->match_label_count, 1u);
  ASSERT_EQ(v.scheduling_gate_count, 2u);
  EXPECT_EQ(sv(v.scheduling_gates[1]), "gate-b");
  ASSERT_EQ(v.owner_ref_count, 1u);
  EXPECT_EQ(sv(v.owner_refs[0].kind), "ReplicaSet");
  EXPECT_EQ(sv(v.owner_refs[0].name), "rs-1");
  EXPECT_EQ(sv(v.owner_refs[0].api_version), "apps/v1");
  EXPECT_EQ(v.owner_refs[0].controller, 1);
}

TEST(PodParserTest, ConditionsInManifestOrder) {
  auto pod = makePod()
                 .name("p")
                 .set({"status", "conditions"}, boost::json::parse(R"([
                   {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "message": "0/3 nodes are available"},
                   {"type": "DisruptionTarget", "status": "True",
                    "reason": "PreemptionByScheduler", "lastTransitionTime": null},
                   {"type": "Ready", "status": "Unknown"}])"))
                 .obj();
  const sh_pod& v = pod->view();
  ASSERT_EQ(v.condition_count, 3u);
  EXPECT_EQ(sv(v.conditions[0].type), "PodScheduled");
  EXPECT_EQ(sv(v.conditions[0].status), "False");
  EXPECT_EQ(sv(v.conditions[0].reason), "Unschedulable");
  EXPECT_EQ(sv(v.conditions[1].type), "DisruptionTarget");
  EXPECT_EQ(sv(v.conditions[1].status), "True");
  EXPECT_EQ(sv(v.conditions[1].reason), "PreemptionByScheduler");
  EXPECT_EQ(sv(v.conditions[2].type), "Ready");
  EXPECT_EQ(sv(v.conditions[2].reason), "");  // absent reads as empty
}

TEST(PodParserTest, NoConditions) {
  auto pod = makePod().name("p").obj();
  EXPECT_EQ(pod->view().condition_count, 0u);
  EXPECT_EQ(pod->view().conditions, nullptr);
}

TEST(PodParserTest, ConditionErrorsNameTheirPath) {
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "status": {"conditions": [
              {"type": "Ready", "status": true}]}})"),
            "status.conditions[0].status: expected string, got boolean");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "status": {"conditions": [
              {"type": "Ready"}, {"type": 1, "reason": ["x"]}]}})"),
            "status.conditions[1].type: expected string, got number; "
            "status.conditions[1].reason: expected string, got array");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "status": {"conditions": [null]}})"),
            "status.conditions[0]: expected object, got null");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "status": {"conditions": {}}})"),
            "status.conditions: expected array, got object");
}

TEST(PodParserTest, AssignedCopyKeepsConditions) {
  auto pod = makePod()
                 .name("p")
                 .set({"status", "conditions"},
                      boost::json::parse(R"([{"type": "DisruptionTarget", "status": "True",
                                              "reason": "PreemptionByScheduler"}])"))
                 .obj();
  auto placed = assignToNode(*pod, "n1");
  ASSERT_NE(placed, nullptr);
  EXPECT_EQ(sv(placed->view().node_name), "n1");
  ASSERT_EQ(placed->view().condition_count, 1u);
  EXPECT_EQ(placed->view().conditions, pod->view().conditions);  // shares the base's arena
  EXPECT_EQ(sv(placed->view().conditions[0].reason), "PreemptionByScheduler");
}

TEST(PodParserTest, NominatedCopyThenAssignedCopy) {
  auto pod = makePod().name("p").label("app", "web").nominatedNodeName("old").obj();
  auto nominated = withNominatedNode(*pod, "n2");
  ASSERT_NE(nominated, nullptr);
  EXPECT_EQ(sv(nominated->view().nominated_node_name), "n2");
  EXPECT_EQ(sv(pod->view().nominated_node_name), "old");    // the original is untouched
  EXPECT_EQ(nominated->view().labels, pod->view().labels);  // shares the base's arena
  auto manifest = boost::json::parse(nominated->json());
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName"), "n2");
  EXPECT_FALSE(manifest.at("spec").as_object().contains("nodeName"));

  // Binding the nominated copy keeps the nomination; the copy of a copy owns its strings,
  // so it outlives the copy it was made from.
  auto placed = assignToNode(*nominated, "n2");
  nominated.reset();
  ASSERT_NE(placed, nullptr);
  EXPECT_EQ(sv(placed->view().node_name), "n2");
  EXPECT_EQ(sv(placed->view().nominated_node_name), "n2");
  manifest = boost::json::parse(placed->json());
  EXPECT_EQ(manifest.at("spec").at("nodeName"), "n2");
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName"), "n2");

  // An empty nomination removes the field.
  auto cleared = withNominatedNode(*pod, "");
  EXPECT_EQ(cleared->view().nominated_node_name.len, 0u);
  EXPECT_FALSE(
      boost::json::parse(cleared->json()).at("status").as_object().contains("nominatedNodeName"));
}

TEST(PodParserTest, FromViewFindsTheOwner) {
  auto pod = makePod().name("p").obj();
  EXPECT_EQ(Pod::fromView(&pod->view()), pod.get());
  EXPECT_EQ(Pod::fromView(nullptr), nullptr);
}

TEST(PodParserTest, KeepsJson) {
  auto pod = makePod().name("p").label("a", "b").obj();
  EXPECT_EQ(boost::json::parse(pod->json()), makePod().name("p").label("a", "b").parseJson());
}

TEST(PodParserTest, AcceptsNullsAndNumbersLeniently) {
  std::string error;
  auto pod = parsePodJson(R"({"metadata": {"name": "p", "namespace": null, "labels": {"a": null}},
    "spec": {"priority": 5.0, "nodeSelector": null, "containers": [
      {"name": "c", "resources": {"requests": {"cpu": 2, "memory": " 1Gi ", "x.io/y": 1.5}}}]},
    "status": null})",
                          error);
  ASSERT_NE(pod, nullptr) << error;
  EXPECT_EQ(pod->view().priority, 5);
  EXPECT_EQ(sv(pod->view().namespace_), "default");
  EXPECT_EQ(nameOf(pod->view().labels[0].value), "");
  EXPECT_EQ(pod->view().requests.milli_cpu, 2000);
  EXPECT_EQ(pod->view().requests.memory, 1024 * 1024 * 1024);
  ASSERT_EQ(pod->view().requests.scalar_count, 1u);
  EXPECT_EQ(pod->view().requests.scalars[0].value, 2);  // 1.5 rounds up
}

TEST(PodParserTest, ErrorPaths) {
  EXPECT_EQ(parseError(R"({"metadata": {}})"), "metadata.name: required");
  EXPECT_EQ(parseError(R"({"metadata": {"name": ""}})"), "metadata.name: required");
  EXPECT_EQ(parseError(R"({"metadata": {"name": 3}})"),
            "metadata.name: expected string, got number");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"priority": "10"}})"),
            "spec.priority: expected integer, got string");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"priority": 3000000000}})"),
            "spec.priority: value 3000000000 out of range [-2147483648, 2147483647]");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"priority": 1.5}})"),
            "spec.priority: expected integer, got non-integral number");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"containers": [{},
              {"resources": {"requests": {"cpu": "1.2.3"}}}]}})"),
            "spec.containers[1].resources.requests.cpu: unable to parse quantity \"1.2.3\": "
            "quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"containers": [
              {"resources": {"limits": {"nvidia.com/gpu": "-1"}}}]}})"),
            "spec.containers[0].resources.limits[nvidia.com/gpu]: must be non-negative");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"containers": [
              {"resources": {"requests": {"cpu": "1K"}}}]}})"),
            "spec.containers[0].resources.requests.cpu: unable to parse quantity \"1K\": "
            "unable to parse quantity's suffix");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"tolerations": [
              {"key": "k", "effect": "Sometimes"}]}})"),
            "spec.tolerations[0].effect: unsupported value \"Sometimes\"; supported values: "
            "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"affinity": {"podAffinity": {
              "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {
                "matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]}}]}}}})"),
            "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
            ".labelSelector.matchExpressions[0].operator: unsupported value \"Gt\"; supported "
            "values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p", "creationTimestamp": "yesterday"}})"),
            "metadata.creationTimestamp: invalid RFC 3339 time \"yesterday\"");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": "none"})"),
            "spec: expected object, got string");
  EXPECT_EQ(parseError(R"([1, 2])"), "<root>: expected object, got array");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"containers": {}}})"),
            "spec.containers: expected array, got object");
  EXPECT_EQ(parseError(R"({"metadata": {"name": "p"}, "spec": {"containers": [null]}})"),
            "spec.containers[0]: expected object, got null");
  EXPECT_EQ(parseError("{\"metadata\": "), "invalid JSON: incomplete JSON");
}

TEST(PodParserTest, CollectsEveryError) {
  std::string error = parseError(R"({"metadata": {"labels": {"a": 1}},
    "spec": {"priority": "x", "topologySpreadConstraints": [{"maxSkew": 1}]}})");
  EXPECT_EQ(error,
            "metadata.name: required; metadata.labels.a: expected string, got number; "
            "spec.priority: expected integer, got string; "
            "spec.topologySpreadConstraints[0].topologyKey: required; "
            "spec.topologySpreadConstraints[0].whenUnsatisfiable: required");
}

TEST(PodParserTest, ManyErrorsAreCapped) {
  boost::json::object labels;
  for (int i = 0; i < 1000; ++i) {
    labels["k" + std::to_string(i)] = i;
  }
  boost::json::value v = makePod().name("p").set({"metadata", "labels"}, labels).parseJson();
  std::string error;
  EXPECT_EQ(parsePod(v, error), nullptr);
  EXPECT_EQ(error.substr(0, 47), "metadata.labels.k0: expected string, got number");
  EXPECT_NE(error.find("; and 992 more"), std::string::npos) << error;
}

// spec.volumes as sh_volume (plugin.h's table): the claim of an ephemeral volume is
// <pod>-<volume>, rbd.pool defaults to "rbd", sources the scheduler ignores are OTHER.
TEST(PodParserTest, SpecFieldsFlagTheFieldsNoMemberCarries) {
  auto flags = [](std::string_view spec) {
    std::string error;
    auto pod = parsePodJson(R"({"metadata":{"name":"p"},"spec":)" + std::string(spec) + "}", error);
    EXPECT_NE(pod, nullptr) << error;
    return pod == nullptr ? ~0u : pod->view().spec_fields;
  };
  EXPECT_EQ(flags(R"({"containers":[{"name":"c"}]})"), 0u);
  EXPECT_EQ(flags(R"({"hostUsers":null,"containers":[{"name":"c","restartPolicyRules":null}]})"),
            0u);  // null is unset
  EXPECT_EQ(flags(R"({"hostUsers":false})"), SH_POD_FIELD_HOST_USERS);
  EXPECT_EQ(flags(R"({"hostUsers":true})"), SH_POD_FIELD_HOST_USERS);
  // A value of the wrong type is flagged too: the plugin reading it names the error.
  EXPECT_EQ(flags(R"({"hostUsers":"no"})"), SH_POD_FIELD_HOST_USERS);
  EXPECT_EQ(flags(R"({"initContainers":[{"name":"i","restartPolicyRules":[]}],
                      "containers":[{"name":"c"}]})"),
            SH_POD_FIELD_RESTART_POLICY_RULES);
  EXPECT_EQ(flags(R"({"hostUsers":false,"containers":[{"name":"a"},
                      {"name":"b","restartPolicyRules":[{"action":"RestartAllContainers"}]}]})"),
            SH_POD_FIELD_HOST_USERS | SH_POD_FIELD_RESTART_POLICY_RULES);
}

TEST(PodParserTest, VolumesAsTheVolumePluginsReadThem) {
  std::string error;
  auto pod = parsePodJson(R"({"metadata":{"name":"web-0","namespace":"ns"},"spec":{
    "volumes":[
      {"name":"data","persistentVolumeClaim":{"claimName":"data-web-0","readOnly":true}},
      {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{}}}},
      {"name":"inline","csi":{"driver":"ebs.csi.aws.com"}},
      {"name":"pd","gcePersistentDisk":{"pdName":"disk-1","readOnly":true}},
      {"name":"ebs","awsElasticBlockStore":{"volumeID":"vol-1"}},
      {"name":"ceph","rbd":{"monitors":["a:6789","b:6789"],"image":"img"}},
      {"name":"lun","iscsi":{"targetPortal":"10.0.0.1:3260","iqn":"iqn.x","lun":3}},
      {"name":"cm","configMap":{"name":"c"}}],
    "resourceClaims":[{"name":"gpu","resourceClaimName":"gpu-claim"}]}})",
                          error);
  ASSERT_NE(pod, nullptr) << error;
  const sh_pod& v = pod->view();
  ASSERT_EQ(v.volume_count, 8u);
  EXPECT_EQ(v.resource_claim_count, 1u);
  const sh_volume* vol = v.volumes;
  EXPECT_EQ(vol[0].struct_size, sizeof(sh_volume));
  EXPECT_EQ(vol[0].source, SH_VOLUME_PVC);
  EXPECT_EQ(sv(vol[0].name), "data");
  EXPECT_EQ(sv(vol[0].claim), "data-web-0");
  EXPECT_EQ(vol[0].read_only, 1);
  EXPECT_EQ(vol[1].source, SH_VOLUME_EPHEMERAL);
  EXPECT_EQ(sv(vol[1].claim), "web-0-scratch");
  EXPECT_EQ(vol[2].source, SH_VOLUME_CSI);
  EXPECT_EQ(sv(vol[2].driver), "ebs.csi.aws.com");
  EXPECT_EQ(vol[3].source, SH_VOLUME_GCE_PD);
  EXPECT_EQ(sv(vol[3].handle), "disk-1");
  EXPECT_EQ(vol[3].read_only, 1);
  EXPECT_EQ(vol[4].source, SH_VOLUME_AWS_EBS);
  EXPECT_EQ(sv(vol[4].handle), "vol-1");
  EXPECT_EQ(vol[4].read_only, 0);
  EXPECT_EQ(vol[5].source, SH_VOLUME_RBD);
  EXPECT_EQ(sv(vol[5].handle), "img");
  EXPECT_EQ(sv(vol[5].pool), "rbd");
  ASSERT_EQ(vol[5].monitor_count, 2u);
  EXPECT_EQ(sv(vol[5].monitors[1]), "b:6789");
  EXPECT_EQ(vol[6].source, SH_VOLUME_ISCSI);
  EXPECT_EQ(sv(vol[6].handle), "iqn.x");
  EXPECT_EQ(vol[6].lun, 3);
  EXPECT_EQ(vol[7].source, SH_VOLUME_OTHER);
  EXPECT_EQ(sv(vol[7].claim), "");
}

TEST(PodParserTest, AVolumeWithoutItsRequiredFieldIsRefusedWithItsPath) {
  EXPECT_EQ(parseError(R"({"metadata":{"name":"p"},"spec":{"volumes":[
      {"name":"data","persistentVolumeClaim":{}}]}})"),
            "spec.volumes[0].persistentVolumeClaim.claimName: required");
  EXPECT_EQ(parseError(R"({"metadata":{"name":"p"},"spec":{"volumes":[{"emptyDir":{}}]}})"),
            "spec.volumes[0].name: required");
}

// The manifest's tree (pod_manifest): parsed once, on first use, from the pod's JSON.
TEST(PodParserTest, TheManifestTreeIsThePodsJson) {
  std::string error;
  auto pod = parsePodJson(
      R"({"metadata":{"name":"p"},"spec":{"hostNetwork":true,"securityContext":{"runAsUser":7}}})",
      error);
  ASSERT_NE(pod, nullptr) << error;
  const boost::json::value& tree = pod->manifest();
  EXPECT_EQ(&tree, &pod->manifest());  // kept, not parsed again
  EXPECT_EQ(tree.at("spec").at("securityContext").at("runAsUser"), 7);
}

}  // namespace
}  // namespace sh::model::pod_parser_test

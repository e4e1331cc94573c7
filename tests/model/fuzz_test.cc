// Mutation fuzzing of the parsers: valid manifests with random values replaced by values of
// the wrong type, odd numbers and strings, or removed. Parsing must never crash or throw, and
// every view it accepts must be fully readable.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "host/model/cluster_objects.h"
#include "host/model/node.h"
#include "host/model/node_info.h"
#include "host/model/pod.h"
#include "host/model/priority_admission.h"
#include "host/model/testing/wrappers.h"

namespace sh::model::fuzz_test {
namespace {

using testing::AffinityKind;
using testing::makeNode;
using testing::makePod;

boost::json::value fullPod() {
  return makePod()
      .name("p")
      .inNamespace("ns")
      .uid("u")
      .node("n1")
      .priority(10)
      .label("app", "web")
      .creationTimestamp("2024-01-02T03:04:05Z")
      .req({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}})
      .reqLim({{"cpu", "100m"}}, {{"memory", "2Gi"}})
      .initReq({{"cpu", "2"}})
      .sidecarReq({{"memory", "100Mi"}})
      .overhead({{"cpu", "10m"}})
      .podRequests({{"cpu", "3"}})
      .hostPort(80)
      .toleration("k", "Equal", "v", "NoSchedule", 10)
      .nodeSelector({{"disk", "ssd"}})
      .nodeAffinityIn("zone", {"a"})
      .preferredNodeAffinity(5, "kind", {"x"})
      .podAffinityIn("app", "kubernetes.io/hostname", {"web"}, AffinityKind::kRequired)
      .podAntiAffinityExists("app", "topology.kubernetes.io/zone", AffinityKind::kPreferred)
      .spreadConstraint(1, "topology.kubernetes.io/zone", "ScheduleAnyway", {{"app", "web"}})
      .schedulingGates({"g"})
      .ownerReference("rs", "ReplicaSet")
      .imageVolume("data")
      .nominatedNodeName("n2")
      .phase("Running")
      .set({"status", "containerStatuses"}, boost::json::parse(R"([{"name": "con0",
        "allocatedResources": {"cpu": "1"}, "resources": {"requests": {"cpu": "1"}}}])"))
      .set({"status", "conditions"}, boost::json::parse(R"([{"type": "DisruptionTarget",
        "status": "True", "reason": "PreemptionByScheduler"}, {"type": "Ready"}])"))
      .parseJson();
}

boost::json::value fullNode() {
  return makeNode()
      .name("n1")
      .label("zone", "a")
      .capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"example.com/x", "2"}})
      .taint("k", "v", "NoSchedule")
      .images({{"nginx:latest", 100}})
      .parseJson();
}

// Pointers to every value of the tree, parents before children.
void collect(boost::json::value& v, std::vector<boost::json::value*>& out) {
  out.push_back(&v);
  if (v.is_object()) {
    for (auto& kv : v.as_object()) {
      collect(kv.value(), out);
    }
  } else if (v.is_array()) {
    for (auto& e : v.as_array()) {
      collect(e, out);
    }
  }
}

boost::json::value randomValue(std::mt19937& rng) {
  static const char* strings[] = {"",
                                  "1",
                                  "-1",
                                  "1.2.3",
                                  "1Gi",
                                  "abc",
                                  "1e999",
                                  "Always",
                                  "NoSchedule",
                                  "In",
                                  "Gt",
                                  "2024-01-02T03:04:05Z",
                                  "null",
                                  "99999999999999999999999",
                                  "0.0000000000001",
                                  " 5 "};
  switch (rng() % 12) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng()) - (1ll << 31);
    case 3:
      return std::numeric_limits<int64_t>::min();
    case 4:
      return std::numeric_limits<uint64_t>::max();
    case 5:
      return 1.5e300;
    case 6:
      return -0.25;
    case 7:
      return strings[rng() % std::size(strings)];
    case 8:
      return boost::json::object();
    case 9:
      return boost::json::array({nullptr, 1, "x", boost::json::object()});
    case 10:
      return boost::json::object({{"cpu", "1"}, {"key", 5}, {"", nullptr}});
    default:
      return boost::json::array();
  }
}

void mutate(boost::json::value& root, std::mt19937& rng) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < edits; ++i) {
    std::vector<boost::json::value*> values;
    collect(root, values);
    boost::json::value* target = values[rng() % values.size()];
    if (target->is_object() && !target->as_object().empty() && rng() % 3 == 0) {
      auto& obj = target->as_object();
      obj.erase(obj.begin() + static_cast<std::ptrdiff_t>(rng() % obj.size()));
    } else {
      *target = randomValue(rng);
    }
  }
}

volatile uint64_t sink = 0;

// SCHEDHOST_FUZZ_ITERATIONS overrides the iteration count (and SCHEDHOST_FUZZ_SEED the seed)
// for longer local runs.
int iterations(int fallback) {
  const char* env = std::getenv("SCHEDHOST_FUZZ_ITERATIONS");
  return env != nullptr ? std::max(1, std::atoi(env)) : fallback;
}

unsigned seed(unsigned fallback) {
  const char* env = std::getenv("SCHEDHOST_FUZZ_SEED");
  return env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : fallback;
}

// Reads every byte a plugin could reach through the view (sums wrap; only the reads matter).
uint64_t touch(const sh_str& s) {
  uint64_t sum = 0;
  for (size_t i = 0; i < s.len; ++i) {
    sum += s.ptr[i];
  }
  return sum;
}

uint64_t touch(const sh_label_selector* s) {
  if (s == nullptr) {
    return 0;
  }
  uint64_t sum = 0;
  for (uint32_t i = 0; i < s->match_label_count; ++i) {
    sum += touch(s->match_labels[i].key_str) + touch(s->match_labels[i].value_str);
  }
  for (uint32_t i = 0; i < s->match_expression_count; ++i) {
    for (uint32_t j = 0; j < s->match_expressions[i].value_count; ++j) {
      sum += s->match_expressions[i].values[j];
    }
  }
  return sum;
}

uint64_t touch(const sh_pod_affinity* a) {
  if (a == nullptr) {
    return 0;
  }
  uint64_t sum = 0;
  auto term = [&](const sh_pod_affinity_term& t) {
    sum += touch(t.label_selector) + touch(t.namespace_selector) + t.topology_key;
    for (uint32_t i = 0; i < t.namespace_count; ++i) {
      sum += touch(t.namespaces[i]);
    }
    for (uint32_t i = 0; i < t.match_label_key_count; ++i) {
      sum += touch(t.match_label_keys[i]);
    }
    for (uint32_t i = 0; i < t.mismatch_label_key_count; ++i) {
      sum += touch(t.mismatch_label_keys[i]);
    }
  };
  for (uint32_t i = 0; i < a->required_count; ++i) {
    term(a->required[i]);
  }
  for (uint32_t i = 0; i < a->preferred_count; ++i) {
    term(a->preferred[i].term);
  }
  return sum;
}

uint64_t touch(const sh_pod& p) {
  uint64_t sum = touch(p.uid) + touch(p.name) + touch(p.namespace_) + touch(p.node_name) +
                 touch(p.scheduler_name) + touch(p.nominated_node_name);
  for (uint32_t i = 0; i < p.label_count; ++i) {
    sum += touch(p.labels[i].key_str) + touch(p.labels[i].value_str);
  }
  for (uint32_t i = 0; i < p.toleration_count; ++i) {
    sum += p.tolerations[i].key + p.tolerations[i].toleration_seconds;
  }
  for (uint32_t i = 0; i < p.requests.scalar_count; ++i) {
    sum += p.requests.scalars[i].value;
  }
  for (uint32_t i = 0; i < p.host_port_count; ++i) {
    sum += touch(p.host_ports[i].host_ip) + p.host_ports[i].port;
  }
  for (uint32_t i = 0; i < p.node_selector_count; ++i) {
    sum += touch(p.node_selector[i].value_str);
  }
  if (p.node_affinity != nullptr) {
    auto term = [&](const sh_node_selector_term& t) {
      for (uint32_t i = 0; i < t.match_expression_count; ++i) {
        for (uint32_t j = 0; j < t.match_expressions[i].value_count; ++j) {
          sum += t.match_expressions[i].values[j];
        }
      }
      for (uint32_t i = 0; i < t.match_field_count; ++i) {
        sum += t.match_fields[i].value_count;
      }
    };
    for (uint32_t i = 0; i < p.node_affinity->required_count; ++i) {
      term(p.node_affinity->required[i]);
    }
    for (uint32_t i = 0; i < p.node_affinity->preferred_count; ++i) {
      term(p.node_affinity->preferred[i].preference);
    }
  }
  sum += touch(p.pod_affinity) + touch(p.pod_anti_affinity);
  for (uint32_t i = 0; i < p.scheduling_gate_count; ++i) {
    sum += touch(p.scheduling_gates[i]);
  }
  for (uint32_t i = 0; i < p.image_count; ++i) {
    sum += p.images[i];
  }
  for (uint32_t i = 0; i < p.topology_spread_constraint_count; ++i) {
    const auto& c = p.topology_spread_constraints[i];
    sum += touch(c.label_selector);
    for (uint32_t j = 0; j < c.match_label_key_count; ++j) {
      sum += touch(c.match_label_keys[j]);
    }
  }
  for (uint32_t i = 0; i < p.owner_ref_count; ++i) {
    sum += touch(p.owner_refs[i].uid) + touch(p.owner_refs[i].kind);
  }
  for (uint32_t i = 0; i < p.condition_count; ++i) {
    sum +=
        touch(p.conditions[i].type) + touch(p.conditions[i].status) + touch(p.conditions[i].reason);
  }
  return sum;
}

uint64_t touch(const sh_pdb& p) {
  uint64_t sum = touch(p.namespace_) + touch(p.name) + touch(p.selector) +
                 static_cast<uint64_t>(p.disruptions_allowed);
  for (uint32_t i = 0; i < p.disrupted_pod_count; ++i) {
    sum += touch(p.disrupted_pods[i]);
  }
  return sum;
}

TEST(FuzzTest, MutatedPodsNeverCrash) {
  std::mt19937 rng(seed(12345));
  const boost::json::value base = fullPod();
  std::string error;
  ASSERT_NE(parsePod(base, error), nullptr) << error;
  int accepted = 0;
  const int n = iterations(3000);
  NodeInfo info;
  for (int i = 0; i < n; ++i) {
    boost::json::value v = base;
    mutate(v, rng);
    error.clear();
    std::shared_ptr<const Pod> pod;
    ASSERT_NO_THROW(pod = parsePod(v, error));
    if (pod == nullptr) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    ++accepted;
    sink = sink + touch(pod->view());
    info.addPod(pod);  // aggregation must cope with whatever parsed
  }
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, n);
}

TEST(FuzzTest, MutatedPodsThroughAdmissionNeverCrash) {
  std::mt19937 rng(seed(4242));
  ClusterObjects classes;
  std::string error;
  ASSERT_TRUE(classes.add(boost::json::parse(R"({"kind": "PriorityClass",
    "metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"})"),
                          error))
      << error;
  boost::json::value base = fullPod();
  base.as_object()["spec"].as_object().erase("priority");
  base.as_object()["spec"].as_object()["priorityClassName"] = "high";
  const int n = iterations(2000);
  for (int i = 0; i < n; ++i) {
    boost::json::value v = base;
    mutate(v, rng);
    error.clear();
    ASSERT_NO_THROW(admitPriority(v, &classes, error));
    std::shared_ptr<const Pod> pod;
    ASSERT_NO_THROW(pod = parsePod(v, error));
    if (pod != nullptr) {
      sink = sink + touch(pod->view());
    }
  }
}

TEST(FuzzTest, MutatedBudgetsAndClassesNeverCrash) {
  std::mt19937 rng(seed(999));
  const boost::json::value pdb = boost::json::parse(R"({"kind": "PodDisruptionBudget",
    "metadata": {"name": "b", "namespace": "ns"},
    "spec": {"selector": {"matchLabels": {"app": "web"},
      "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}},
    "status": {"disruptionsAllowed": 1, "disruptedPods": {"p": "2024-01-02T03:04:05Z"}}})");
  const boost::json::value pc = boost::json::parse(R"({"kind": "PriorityClass",
    "metadata": {"name": "c"}, "value": 5, "globalDefault": true,
    "preemptionPolicy": "Never"})");
  ClusterObjects objects;
  const int n = iterations(2000);
  for (int i = 0; i < n; ++i) {
    boost::json::value v = i % 2 == 0 ? pdb : pc;
    mutate(v, rng);
    std::string error;
    bool ok = false;
    ASSERT_NO_THROW(ok = objects.add(v, error));
    EXPECT_EQ(ok, error.empty()) << error;
  }
  for (const sh_pdb* p : objects.pdbs()) {
    sink = sink + touch(*p);
  }
  if (const PriorityClassInfo* d = objects.globalDefaultPriorityClass()) {
    sink = sink + static_cast<uint64_t>(d->value);
  }
}

TEST(FuzzTest, MutatedNodesNeverCrash) {
  std::mt19937 rng(seed(777));
  const boost::json::value base = fullNode();
  std::string error;
  ASSERT_NE(parseNode(base, error), nullptr) << error;
  const int n = iterations(2000);
  for (int i = 0; i < n; ++i) {
    boost::json::value v = base;
    mutate(v, rng);
    std::shared_ptr<const Node> node;
    ASSERT_NO_THROW(node = parseNode(v, error));
    if (node != nullptr) {
      NodeInfo info(node);
      EXPECT_EQ(info.view().node, &node->view());
    }
  }
}

TEST(FuzzTest, ArbitraryRootsAndText) {
  std::string error;
  for (const char* text : {"null", "1", "\"x\"", "[]", "{}", "[{}]", "{\"metadata\": []}", "", "{",
                           "\xff\xfe", "{\"a\": 1e999}"}) {
    EXPECT_EQ(parsePodJson(text, error), nullptr) << text;
    EXPECT_FALSE(error.empty());
    EXPECT_EQ(parseNodeJson(text, error), nullptr) << text;
    EXPECT_FALSE(error.empty());
  }
  EXPECT_EQ(parsePodJson(R"({"metadata": {"name": "p"}, "spec": {"containers": 5}})", error),
            nullptr);
}

TEST(FuzzTest, DeeplyNestedJsonIsRejectedNotRecursedInto) {
  boost::json::value v = boost::json::object();
  boost::json::value* cur = &v;
  for (int i = 0; i < 10000; ++i) {
    cur->as_object()["spec"] = boost::json::object();
    cur = &cur->as_object()["spec"];
  }
  v.as_object()["metadata"] = boost::json::object({{"name", "p"}});
  std::string error;
  // Only the fixed schema depth is walked; the rest of the tree is never visited.
  EXPECT_NO_THROW(parsePod(v, error));
}

}  // namespace
}  // namespace sh::model::fuzz_test

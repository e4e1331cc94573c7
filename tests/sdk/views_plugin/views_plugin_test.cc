// ViewsProbe (views_plugin.c), a plugin of the raw C ABI built against the current header,
// through the real host under `evaluate`: what ABI 1.3 added reaches it from the scenario's
// manifests. The volumes of the pending pod and of the pods already placed (each source's
// fields, as plugin.h's table says), their resource claims, the PVCs those pods use (in their
// namespace only), the pod's and nodes' manifests as JSON trees (kept: asked twice, the same
// tree), and the nodes' declared features, sorted so that the plugin's binary search finds
// them.
#include <schedhost/plugin.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/evaluate/evaluate.h"
#include "host/plugin/registry.h"

namespace {

// The pending pod ns/p asks for the feature example.com/gpu-v2 and names three claims to ask
// about; ns/web-0 on n1 uses the PVC "shared" and an ephemeral volume (its claim is
// web-0-scratch), other/db-0 on n2 uses the PVC "own" of its namespace. n1 declares the feature
// (after "Alpha", out of order in its manifest), n2 another, n3 none.
constexpr char kScenario[] = R"({
  "name": "views",
  "nodes": [
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "n1", "annotations": {"probe/zone": "z1"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                "declaredFeatures": ["example.com/gpu-v2", "Alpha"]}},
    {"apiVersion": "v1", "kind": "Node",
     "metadata": {"name": "n2", "annotations": {"probe/zone": "z2"}},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                "declaredFeatures": ["example.com/gpu-v1"]}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n3"},
     "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"}}}
  ],
  "pods": [
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "web-0", "namespace": "ns", "uid": "web-0"},
     "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}],
              "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": "shared", "readOnly": true}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
                   "accessModes": ["ReadWriteOnce"],
                   "resources": {"requests": {"storage": "1Gi"}}}}}}],
              "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"},
                                 {"name": "nic", "resourceClaimTemplateName": "nic"}]}},
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": "db-0", "namespace": "other", "uid": "db-0"},
     "spec": {"nodeName": "n2", "containers": [{"name": "c", "image": "i"}],
              "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "own"}}]}}
  ],
  "pod": {"apiVersion": "v1", "kind": "Pod",
          "metadata": {"name": "p", "namespace": "ns", "uid": "p",
                       "annotations": {"probe/feature": "example.com/gpu-v2",
                                       "probe/claims": "shared,own,web-0-scratch"}},
          "spec": {"securityContext": {"runAsUser": 1000},
                   "containers": [{"name": "c", "image": "i"}],
                   "volumes": [
                     {"name": "inline", "csi": {"driver": "csi.example.com"}},
                     {"name": "ceph", "rbd": {"image": "image-1",
                                              "monitors": ["10.0.0.1:6789", "10.0.0.2:6789"]}},
                     {"name": "disk", "iscsi": {"targetPortal": "10.0.0.3:3260",
                                                "iqn": "iqn.2001-04.com.example:storage",
                                                "lun": 3, "readOnly": true}},
                     {"name": "gce", "gcePersistentDisk": {"pdName": "pd-1"}},
                     {"name": "cache", "emptyDir": {}}]}},
  "plugins": [{"name": "ViewsProbe"}]
})";

sh::evaluate::Result evaluate() {
  sh::plugin::PluginRegistry registry;
  registry.add(SCHEDHOST_VIEWS_PLUGIN);
  std::string error;
  auto scenario = sh::evaluate::parseScenario(boost::json::parse(kScenario), error);
  EXPECT_TRUE(scenario.has_value()) << error;
  sh::evaluate::Options options;
  options.registry = &registry;
  return sh::evaluate::run(*scenario, options);
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ViewsPluginTest, PreFilterReadsVolumesClaimsAndThePodsManifest) {
  sh::evaluate::Result r = evaluate();
  ASSERT_EQ(r.preFilter.count("ViewsProbe"), 1u);
  const sh::evaluate::PluginStatus& pre = r.preFilter.at("ViewsProbe");
  EXPECT_EQ(pre.code, "Success");
  // The snapshot's pods come in the snapshot's order: compared as sets.
  EXPECT_EQ(sorted(pre.reasons),
            sorted({
                // The pending pod: each source gives its fields (RBD's pool defaults to "rbd").
                "ns/p/inline source=3 claim= handle= driver=csi.example.com pool= monitors= "
                "lun=0 ro=0",
                "ns/p/ceph source=6 claim= handle=image-1 driver= pool=rbd "
                "monitors=10.0.0.1:6789,10.0.0.2:6789 lun=0 ro=0",
                "ns/p/disk source=7 claim= handle=iqn.2001-04.com.example:storage driver= pool= "
                "monitors= lun=3 ro=1",
                "ns/p/gce source=4 claim= handle=pd-1 driver= pool= monitors= lun=0 ro=0",
                "ns/p/cache source=0 claim= handle= driver= pool= monitors= lun=0 ro=0",
                "ns/p resourceClaims=0",
                // The pods of the snapshot; an ephemeral volume's claim is <pod>-<volume>.
                "ns/web-0/data source=1 claim=shared handle= driver= pool= monitors= lun=0 ro=1",
                "ns/web-0/scratch source=2 claim=web-0-scratch handle= driver= pool= monitors= "
                "lun=0 ro=0",
                "ns/web-0 resourceClaims=2",
                "other/db-0/data source=1 claim=own handle= driver= pool= monitors= lun=0 ro=0",
                "other/db-0 resourceClaims=0",
                // In use in ns: shared and web-0's ephemeral claim; "own" only in other.
                "inUse shared=1",
                "inUse own=0",
                "inUse web-0-scratch=1",
                // The pod's manifest, parsed once and kept.
                "runAsUser=1000",
                "kept=1",
            }));
  // The pending pod's own entries come first, in manifest order.
  ASSERT_GE(pre.reasons.size(), 6u);
  EXPECT_EQ(pre.reasons[0].rfind("ns/p/inline ", 0), 0u) << pre.reasons[0];
  EXPECT_EQ(pre.reasons[4].rfind("ns/p/cache ", 0), 0u) << pre.reasons[4];
}

TEST(ViewsPluginTest, FilterFindsDeclaredFeaturesAndReadsTheNodesManifest) {
  sh::evaluate::Result r = evaluate();
  ASSERT_TRUE(r.selected.has_value()) << r.message;
  EXPECT_EQ(*r.selected, "n1");
  const auto filter = [&](const std::string& node) {
    return r.nodes.at(node).filter.at("ViewsProbe");
  };
  // Sorted by their bytes: "Alpha" before "example.com/gpu-v2".
  EXPECT_EQ(filter("n1").code, "Success");
  EXPECT_EQ(filter("n1").reasons,
            std::vector<std::string>{"features=Alpha,example.com/gpu-v2; zone=z1"});
  EXPECT_EQ(filter("n2").code, "Unschedulable");
  EXPECT_EQ(filter("n2").reasons,
            std::vector<std::string>{
                "node(s) lack declared feature example.com/gpu-v2; features=example.com/gpu-v1; "
                "zone=z2"});
  EXPECT_EQ(filter("n3").reasons,
            std::vector<std::string>{
                "node(s) lack declared feature example.com/gpu-v2; features=; zone="});
}

}  // namespace

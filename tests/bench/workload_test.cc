// buildWorkload: scheduler_perf's volume workloads -- a CSINode per node, and per pod a claim
// "pvc-<i>" bound to volume "<namespace>-vol-<i>" that the pod's volume "vol" uses.
#include "host/bench/workload.h"

#include <gtest/gtest.h>

#include <string>

#include <boost/json.hpp>

namespace sh::bench::workload_test {
namespace {

const char* kStorageWorkload = R"({
  "name": "SchedulingCSIPVs",
  "nodes": {"count": 2, "namePrefix": "n-",
            "template": {"status": {"allocatable": {"cpu": "4", "pods": "110"}}},
            "csiNode": {"drivers": {"ebs.csi.aws.com": 39},
                        "migratedPlugins": ["kubernetes.io/aws-ebs"]}},
  "measuredPods": {"count": 3, "namePrefix": "pod-", "namespace": "sched-1",
    "template": {"spec": {"containers": [{"name": "c", "image": "pause"}]}},
    "persistentVolumeTemplate": {"spec": {"accessModes": ["ReadOnlyMany"],
                                          "capacity": {"storage": "1Gi"},
                                          "csi": {"driver": "ebs.csi.aws.com"}}},
    "persistentVolumeClaimTemplate": {"spec": {"accessModes": ["ReadOnlyMany"],
                                               "resources": {"requests": {"storage": "1Gi"}}}}}
})";

const boost::json::value* at(const boost::json::value& v, std::initializer_list<const char*> path) {
  const boost::json::value* cur = &v;
  for (const char* key : path) {
    if (!cur->is_object() || (cur = cur->as_object().if_contains(key)) == nullptr) {
      return nullptr;
    }
  }
  return cur;
}

std::string text(const boost::json::value& v, std::initializer_list<const char*> path) {
  const boost::json::value* x = at(v, path);
  return x != nullptr && x->is_string() ? std::string(x->as_string()) : std::string("<absent>");
}

TEST(WorkloadTest, VolumeWorkloadGivesEachNodeACsiNodeAndEachPodABoundClaim) {
  std::string error;
  auto w = buildWorkload(boost::json::parse(kStorageWorkload), 1.0, error);
  ASSERT_TRUE(w) << error;
  ASSERT_EQ(w->nodes.size(), 2u);
  ASSERT_EQ(w->measuredPods.size(), 3u);
  // 2 CSINodes + 3 pods x (one volume + one claim) = 8 objects, CSINodes first.
  ASSERT_EQ(w->objects.size(), 8u);

  const boost::json::value& csiNode = w->objects[1]->json();
  EXPECT_EQ(text(csiNode, {"kind"}), "CSINode");
  EXPECT_EQ(text(csiNode, {"metadata", "name"}), "n-1");
  EXPECT_EQ(
      text(csiNode, {"metadata", "annotations", "storage.alpha.kubernetes.io/migrated-plugins"}),
      "kubernetes.io/aws-ebs");
  const auto& driver = at(csiNode, {"spec", "drivers"})->as_array().at(0);
  EXPECT_EQ(text(driver, {"name"}), "ebs.csi.aws.com");
  EXPECT_EQ(text(driver, {"nodeID"}), "n-1");
  EXPECT_EQ(at(driver, {"allocatable", "count"})->to_number<int64_t>(), 39);

  // The third pod (i = 2): volume sched-1-vol-2 bound to claim sched-1/pvc-2 and back.
  const boost::json::value& pv = w->objects[6]->json();
  const boost::json::value& pvc = w->objects[7]->json();
  EXPECT_EQ(text(pv, {"kind"}), "PersistentVolume");
  EXPECT_EQ(text(pv, {"metadata", "name"}), "sched-1-vol-2");
  EXPECT_EQ(text(pv, {"spec", "csi", "volumeHandle"}), "sched-1-vol-2");
  EXPECT_EQ(text(pv, {"spec", "claimRef", "namespace"}), "sched-1");
  EXPECT_EQ(text(pv, {"spec", "claimRef", "name"}), "pvc-2");
  EXPECT_EQ(text(pv, {"status", "phase"}), "Bound");
  EXPECT_EQ(text(pvc, {"kind"}), "PersistentVolumeClaim");
  EXPECT_EQ(w->objects[7]->key(), "sched-1/pvc-2");
  EXPECT_EQ(text(pvc, {"spec", "volumeName"}), "sched-1-vol-2");
  EXPECT_EQ(text(pvc, {"status", "phase"}), "Bound");

  const boost::json::value pod = boost::json::parse(w->measuredPods[2]->json());
  const auto& volume = at(pod, {"spec", "volumes"})->as_array().at(0);
  EXPECT_EQ(text(volume, {"name"}), "vol");
  EXPECT_EQ(text(volume, {"persistentVolumeClaim", "claimName"}), "pvc-2");
  EXPECT_EQ(w->measuredPods[2]->view().volume_count, 1u);
}

TEST(WorkloadTest, InTreeAwsVolumeGetsItsOwnVolumeId) {
  boost::json::value doc = boost::json::parse(kStorageWorkload);
  boost::json::object& spec =
      doc.at("measuredPods").at("persistentVolumeTemplate").at("spec").as_object();
  spec.erase("csi");
  spec["awsElasticBlockStore"] = boost::json::object{{"volumeID", "placeholder"}};
  std::string error;
  auto w = buildWorkload(doc, 1.0, error);
  ASSERT_TRUE(w) << error;
  EXPECT_EQ(text(w->objects[2]->json(), {"spec", "awsElasticBlockStore", "volumeID"}), "vol-0");
  EXPECT_EQ(text(w->objects[4]->json(), {"spec", "awsElasticBlockStore", "volumeID"}), "vol-1");
}

TEST(WorkloadTest, VolumeTemplateWithoutClaimTemplateIsRefusedByName) {
  boost::json::value doc = boost::json::parse(kStorageWorkload);
  doc.at("measuredPods").as_object().erase("persistentVolumeClaimTemplate");
  std::string error;
  EXPECT_FALSE(buildWorkload(doc, 1.0, error));
  EXPECT_EQ(error,
            "measuredPods: persistentVolumeTemplate and persistentVolumeClaimTemplate go "
            "together, each an object");
}

TEST(WorkloadTest, BadCsiNodeCountIsRefusedByName) {
  boost::json::value doc = boost::json::parse(kStorageWorkload);
  doc.at("nodes").at("csiNode").at("drivers").as_object()["ebs.csi.aws.com"] = "39";
  std::string error;
  EXPECT_FALSE(buildWorkload(doc, 1.0, error));
  EXPECT_EQ(error, "nodes.csiNode.drivers.ebs.csi.aws.com: expected a non-negative integer");
}

}  // namespace
}  // namespace sh::bench::workload_test

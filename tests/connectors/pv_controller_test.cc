// The PV controller's emulation (host/connectors/pv_controller.h): a claim VolumeBinding
// annotated with its selected node is provisioned in the node's zone and bound; a volume
// VolumeBinding reserved for a claim is bound to it; anything else is left alone. Then the same
// through EmbeddedCluster::writeObject, whose writes come back as changes.
#include "host/connectors/pv_controller.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include <boost/json.hpp>

#include "host/connectors/embedded/embedded_cluster.h"
#include "host/connectors/object_write.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::pv_controller_test {
namespace {

namespace json = boost::json;

std::string at(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* cur = &v;
  for (std::string_view key : path) {
    if (!cur->is_object() || (cur = cur->as_object().if_contains(key)) == nullptr) {
      return "<absent>";
    }
  }
  return cur->is_string() ? std::string(cur->as_string()) : json::serialize(*cur);
}

json::value claim(const std::string& name, const std::string& selectedNode = "") {
  json::value c = json::parse(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
    "metadata":{"name":"","namespace":"default","uid":"","annotations":{}},
    "spec":{"storageClassName":"zonal","accessModes":["ReadWriteOnce"],
            "resources":{"requests":{"storage":"5Gi"}}},
    "status":{"phase":"Pending"}})");
  c.at("metadata").as_object()["name"] = name;
  c.at("metadata").as_object()["uid"] = name + "-uid";
  if (!selectedNode.empty()) {
    c.at("metadata").at("annotations").as_object()["volume.kubernetes.io/selected-node"] =
        selectedNode;
  }
  return c;
}

class MapWorld : public PvWorld {
 public:
  const json::value* claim(std::string_view ns, std::string_view name) const override {
    return find(claims, std::string(ns) + "/" + std::string(name));
  }
  const json::value* volume(std::string_view name) const override {
    return find(volumes, std::string(name));
  }
  const json::value* storageClass(std::string_view name) const override {
    return find(classes, std::string(name));
  }
  bool nodeLabels(std::string_view name,
                  std::map<std::string, std::string, std::less<>>& out) const override {
    auto it = nodes.find(std::string(name));
    if (it == nodes.end()) {
      return false;
    }
    out = it->second;
    return true;
  }

  std::map<std::string, json::value> claims, volumes, classes;
  std::map<std::string, std::map<std::string, std::string, std::less<>>> nodes;

 private:
  static const json::value* find(const std::map<std::string, json::value>& m,
                                 const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? nullptr : &it->second;
  }
};

class PvControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    world_.classes["zonal"] = json::parse(
        R"({"metadata":{"name":"zonal"},"provisioner":"ebs.csi.aws.com",
            "volumeBindingMode":"WaitForFirstConsumer"})");
    world_.classes["local"] = json::parse(
        R"({"metadata":{"name":"local"},"provisioner":"kubernetes.io/no-provisioner"})");
    world_.nodes["n-zonal"] = {{"kubernetes.io/hostname", "n-zonal"},
                               {"topology.kubernetes.io/zone", "z2"}};
    world_.nodes["n-plain"] = {{"kubernetes.io/hostname", "n-plain"}};
  }
  MapWorld world_;
};

TEST_F(PvControllerTest, ClaimOnAZonalNodeIsProvisionedInItsZoneAndBound) {
  const json::value c = claim("data-web-0", "n-zonal");
  world_.claims["default/data-web-0"] = c;
  auto writes = reconcileAfterWrite(c, false, world_);
  ASSERT_EQ(writes.size(), 2u);

  ASSERT_EQ(writes[0].kind, PvControllerWrite::Kind::kVolume);
  EXPECT_TRUE(writes[0].create);
  const json::value& pv = writes[0].object;
  EXPECT_EQ(at(pv, {"metadata", "name"}), "pvc-data-web-0-uid");
  EXPECT_EQ(at(pv, {"spec", "capacity", "storage"}), "5Gi");
  EXPECT_EQ(at(pv, {"spec", "storageClassName"}), "zonal");
  EXPECT_EQ(at(pv, {"spec", "csi", "driver"}), "ebs.csi.aws.com");
  EXPECT_EQ(at(pv, {"spec", "claimRef", "uid"}), "data-web-0-uid");
  EXPECT_EQ(at(pv, {"status", "phase"}), "Bound");
  EXPECT_EQ(json::serialize(pv.at("spec").at("nodeAffinity")),
            R"({"required":{"nodeSelectorTerms":[{"matchExpressions":[)"
            R"({"key":"topology.kubernetes.io/zone","operator":"In","values":["z2"]}]}]}})");

  ASSERT_EQ(writes[1].kind, PvControllerWrite::Kind::kClaim);
  EXPECT_FALSE(writes[1].create);
  const json::value& bound = writes[1].object;
  EXPECT_EQ(at(bound, {"spec", "volumeName"}), "pvc-data-web-0-uid");
  EXPECT_EQ(at(bound, {"metadata", "annotations", "pv.kubernetes.io/bind-completed"}), "yes");
  EXPECT_EQ(at(bound, {"metadata", "annotations", "volume.kubernetes.io/selected-node"}),
            "n-zonal");
  EXPECT_EQ(at(bound, {"status", "phase"}), "Bound");
  EXPECT_EQ(at(bound, {"status", "capacity", "storage"}), "5Gi");
}

TEST_F(PvControllerTest, NodeWithoutZoneGetsAVolumeOfItsOwn) {
  const json::value c = claim("data", "n-plain");
  auto writes = reconcileAfterWrite(c, false, world_);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(at(writes[0].object, {"spec", "nodeAffinity", "required", "nodeSelectorTerms"}),
            R"([{"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In",)"
            R"("values":["n-plain"]}]}])");
}

TEST_F(PvControllerTest, NothingIsProvisionedWithoutASelectedNodeOrAProvisioner) {
  EXPECT_TRUE(reconcileAfterWrite(claim("unselected"), false, world_).empty());
  EXPECT_TRUE(reconcileAfterWrite(claim("gone-node", "n-missing"), false, world_).empty());
  json::value local = claim("local", "n-zonal");
  local.at("spec").as_object()["storageClassName"] = "local";
  EXPECT_TRUE(reconcileAfterWrite(local, false, world_).empty());
  json::value bound = claim("bound", "n-zonal");
  bound.at("spec").as_object()["volumeName"] = "pv-1";
  EXPECT_TRUE(reconcileAfterWrite(bound, false, world_).empty());
}

TEST_F(PvControllerTest, VolumeReservedForAClaimIsBoundToIt) {
  world_.claims["default/data"] = claim("data");
  // What VolumeBinding's PreBind writes for a static binding: the claimRef on the volume.
  const json::value pv = json::parse(R"({"apiVersion":"v1","kind":"PersistentVolume",
    "metadata":{"name":"local-a"},
    "spec":{"capacity":{"storage":"10Gi"},"claimRef":{"namespace":"default","name":"data",
            "uid":"data-uid"}},
    "status":{"phase":"Available"}})");
  auto writes = reconcileAfterWrite(pv, true, world_);
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_FALSE(writes[0].create);
  EXPECT_EQ(at(writes[0].object, {"status", "phase"}), "Bound");
  EXPECT_EQ(at(writes[1].object, {"spec", "volumeName"}), "local-a");
  EXPECT_EQ(at(writes[1].object, {"status", "capacity", "storage"}), "10Gi");

  // Bound already, or reserved for another claim of the same name: nothing to do.
  world_.claims["default/data"] = writes[1].object;
  EXPECT_TRUE(reconcileAfterWrite(pv, true, world_).empty());
  json::value other = pv;
  other.at("spec").at("claimRef").as_object()["uid"] = "someone-else";
  world_.claims["default/data"] = claim("data");
  EXPECT_TRUE(reconcileAfterWrite(other, true, world_).empty());
}

// Through the embedded cluster: VolumeBinding's write of the claim comes back, then the
// emulation's volume and bound claim, each as a change with the source "pv-controller".
class EmbeddedPvControllerTest : public ::testing::Test {
 protected:
  void start(bool pvController) {
    json::value node = testing::nodeJson("n1");
    node.at("metadata").as_object()["labels"] =
        json::object{{"topology.kubernetes.io/zone", "z3"}, {"kubernetes.io/hostname", "n1"}};
    json::value cls = json::parse(
        R"({"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"zonal"},
            "provisioner":"ebs.csi.aws.com","volumeBindingMode":"WaitForFirstConsumer"})");
    std::string lines = testing::text(node) + "\n" + testing::text(cls) + "\n" +
                        testing::text(claim("data")) + "\n";
    EmbeddedCluster::Options o;
    o.initialState = dir_.write("state.jsonl", lines);
    o.pvController = pvController;
    cluster_ = std::make_unique<EmbeddedCluster>(o);
    ASSERT_TRUE(cluster_->start().ok());
    ASSERT_EQ(testing::drain(*cluster_).size(), 3u);
  }
  Status selectNode() {
    ObjectKind kind;
    kind.version = "v1";
    kind.resource = "persistentvolumeclaims";
    kind.kind = "PersistentVolumeClaim";
    ObjectWrite w;
    w.verb = SH_VERB_UPDATE;
    w.ns = "default";
    w.name = "data";
    json::value body = claim("data", "n1");
    body.at("metadata").as_object()["resourceVersion"] = "";
    w.body = json::serialize(body);
    return cluster_->writeObject(kind, w);
  }
  testing::TempDir dir_;
  std::unique_ptr<EmbeddedCluster> cluster_;
};

TEST_F(EmbeddedPvControllerTest, AnnotatedClaimIsProvisionedAndBound) {
  start(true);
  ASSERT_TRUE(selectNode().ok());
  std::vector<ClusterChange> changes = testing::drain(*cluster_);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].source, "write");
  EXPECT_EQ(changes[1].source, "pv-controller");
  EXPECT_EQ(changes[1].type, ClusterChange::Type::kAdded);
  EXPECT_EQ(changes[1].object->key(), "pvc-data-uid");
  EXPECT_EQ(
      at(changes[1].object->json(), {"spec", "nodeAffinity", "required", "nodeSelectorTerms"}),
      R"([{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In",)"
      R"("values":["z3"]}]}])");
  EXPECT_EQ(changes[2].source, "pv-controller");
  EXPECT_EQ(changes[2].type, ClusterChange::Type::kModified);
  EXPECT_EQ(changes[2].object->key(), "default/data");
  EXPECT_EQ(at(changes[2].object->json(), {"spec", "volumeName"}), "pvc-data-uid");
  EXPECT_EQ(at(changes[2].object->json(), {"status", "phase"}), "Bound");
  // Each write is a new resourceVersion: the claim was written twice since it was loaded.
  EXPECT_EQ(changes[2].object->resourceVersion(), changes[0].object->resourceVersion() + 1);
}

TEST_F(EmbeddedPvControllerTest, WithoutTheEmulationTheClaimStaysAsWritten) {
  start(false);
  ASSERT_TRUE(selectNode().ok());
  std::vector<ClusterChange> changes = testing::drain(*cluster_);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].source, "write");
  EXPECT_EQ(at(changes[0].object->json(), {"spec", "volumeName"}), "<absent>");
}

}  // namespace
}  // namespace sh::connectors::pv_controller_test

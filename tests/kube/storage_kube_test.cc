// Pods with PersistentVolumeClaims under `schedhost run --kubeconfig`, against the test API
// server serving PersistentVolumeClaims, PersistentVolumes and StorageClasses, with the PV
// controller and a dynamic provisioner beside it as kube-controller-manager and a CSI
// external-provisioner run beside kube-apiserver (host/connectors/pv_controller.h, acting on
// what it lists every 50 ms). It proves that VolumeBinding's writes go through the API and that
// its pods wait for them to complete:
//   - a StatefulSet's replicas, each with a claim of a WaitForFirstConsumer class: each claim
//     gets its pod's node (volume.kubernetes.io/selected-node, written by PreBind), is
//     provisioned in that node's zone and bound before the pod is bound;
//   - a pod whose claim does not exist stays pending with upstream's message, and binds once the
//     claim is created (the claim's Add event brings it back);
//   - a pod whose claim is bound to a zonal volume goes to that zone, with nothing written;
//   - an Available local volume is bound statically (PreBind writes its claimRef) to the claim
//     of the pod placed on its node.
// Every test ends by checking the cluster's invariants and that the controller's writes all
// went through.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/connectors/pv_controller.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::storage_kube_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kDeadline = 60s;
constexpr char kClaims[] = "persistentvolumeclaims";
constexpr char kVolumes[] = "persistentvolumes";
constexpr char kZone[] = "topology.kubernetes.io/zone";
constexpr char kSelectedNode[] = "volume.kubernetes.io/selected-node";
constexpr char kBindCompleted[] = "pv.kubernetes.io/bind-completed";
constexpr char kBoundByController[] = "pv.kubernetes.io/bound-by-controller";
constexpr char kEbs[] = "ebs.csi.aws.com";
constexpr char kNoProvisioner[] = "kubernetes.io/no-provisioner";

// The value at a JSON pointer ("/spec/claimRef/uid"), or null.
const json::value* at(const json::value& v, std::string_view pointer) {
  boost::system::error_code ec;
  return v.find_pointer(pointer, ec);
}

std::string versionOf(const json::object& o) {
  return stringAt(o, {"metadata", "resourceVersion"});
}

// The cluster as the controller reads it: the server's objects as they are now. Each answer
// lives as long as the world (one reconcile).
class ServerPvWorld : public connectors::PvWorld {
 public:
  explicit ServerPvWorld(const FakeApiServer& server) : server_(server) {}

  const json::value* claim(std::string_view ns, std::string_view name) const override {
    return keep(server_.get(kClaims, std::string(ns), std::string(name)));
  }
  const json::value* volume(std::string_view name) const override {
    return keep(server_.get(kVolumes, "", std::string(name)));
  }
  const json::value* storageClass(std::string_view name) const override {
    return keep(server_.get("storageclasses", "", std::string(name)));
  }
  bool nodeLabels(std::string_view name,
                  std::map<std::string, std::string, std::less<>>& out) const override {
    const std::optional<json::object> node = server_.get("nodes", "", std::string(name));
    if (!node) {
      return false;
    }
    const json::value whole(*node);
    const json::value* labels = at(whole, "/metadata/labels");
    if (labels != nullptr && labels->is_object()) {
      for (const auto& [key, value] : labels->as_object()) {
        if (value.is_string()) {
          out.emplace(std::string(key), std::string(value.as_string()));
        }
      }
    }
    return true;
  }

 private:
  const json::value* keep(std::optional<json::object> object) const {
    if (!object) {
      return nullptr;
    }
    read_.emplace_back(std::move(*object));
    return &read_.back();
  }

  const FakeApiServer& server_;
  mutable std::deque<json::value> read_;  // a deque: answers already given stay where they are
};

// The PV controller and the provisioner, on a thread of the test: every 50 ms each claim and
// volume the server holds is acted on once per resourceVersion (reconcileAfterWrite), and what
// that calls for is written through the server's own methods, each a watch event for the
// scheduler like any other. A replacement goes through only while the object is still the
// version it was made from (a PUT's optimistic concurrency), and a status through the status
// subresource, as the main resource leaves it as it was.
class PvControllerLoop {
 public:
  explicit PvControllerLoop(FakeApiServer& server) : server_(server) {
    thread_ = std::thread([this] { run(); });
  }
  ~PvControllerLoop() { stop(); }
  PvControllerLoop(const PvControllerLoop&) = delete;
  PvControllerLoop& operator=(const PvControllerLoop&) = delete;

  void stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
      thread_.join();
    }
  }

  // When the controller wrote the claim Bound, if it did.
  std::optional<Clock::time_point> boundAt(const std::string& ns, const std::string& name) const {
    std::lock_guard lock(mu_);
    auto it = boundAt_.find(ns + "/" + name);
    return it == boundAt_.end() ? std::nullopt : std::optional<Clock::time_point>(it->second);
  }

  // The writes the server refused.
  std::vector<std::string> errors() const {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      lock.unlock();
      pass();
      lock.lock();
      wake_.wait_for(lock, 50ms, [this] { return stopping_; });
    }
  }

  void pass() {
    for (const bool isVolume : {false, true}) {
      const char* resource = isVolume ? kVolumes : kClaims;
      for (const json::object& listed : server_.list(resource)) {
        const std::string ns = stringAt(listed, {"metadata", "namespace"});
        const std::string name = stringAt(listed, {"metadata", "name"});
        // The object as it is now: the list may be older than this pass's own writes.
        const std::optional<json::object> current = server_.get(resource, ns, name);
        if (!current) {
          continue;
        }
        std::string& seen = handled_[std::string(resource) + " " + ns + "/" + name];
        if (seen == versionOf(*current)) {
          continue;
        }
        seen = versionOf(*current);
        const ServerPvWorld world(server_);
        const json::value written(*current);
        for (const connectors::PvControllerWrite& write :
             connectors::reconcileAfterWrite(written, isVolume, world)) {
          if (!apply(write)) {
            break;  // the object moved on: its next version is acted on in its turn
          }
        }
      }
    }
  }

  bool apply(const connectors::PvControllerWrite& write) {
    const bool isVolume = write.kind == connectors::PvControllerWrite::Kind::kVolume;
    const char* resource = isVolume ? kVolumes : kClaims;
    const json::object& object = write.object.as_object();
    const std::string ns = stringAt(object, {"metadata", "namespace"});
    const std::string name = stringAt(object, {"metadata", "name"});
    json::object stored;
    try {
      if (write.create) {
        stored = server_.create(resource, object);
      } else {
        const std::optional<json::object> current = server_.get(resource, ns, name);
        if (!current || versionOf(*current) != versionOf(object)) {
          return false;
        }
        stored = server_.update(resource, object);
      }
      if (const json::value* status = object.if_contains("status")) {
        stored["status"] = *status;
        stored = server_.updateStatus(resource, stored);
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mu_);
      errors_.push_back(std::string(resource) + " " + name + ": " + e.what());
      return false;
    }
    if (!isVolume && stringAt(stored, {"status", "phase"}) == "Bound") {
      std::lock_guard lock(mu_);
      boundAt_.emplace(ns + "/" + name, Clock::now());
    }
    return true;
  }

  FakeApiServer& server_;
  std::map<std::string, std::string> handled_;  // "<resource> <ns>/<name>" -> resourceVersion

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<std::string, Clock::time_point> boundAt_;  // claims, by "<ns>/<name>"
  std::vector<std::string> errors_;
  std::thread thread_;
};

// A ready node in `zone`.
json::object zonalNode(const std::string& name, const std::string& zone, const std::string& cpu) {
  json::object node = nodeJson(name, cpu);
  node["metadata"].as_object()["labels"].as_object()[kZone] = zone;
  return node;
}

json::object storageClass(const std::string& name, const std::string& provisioner) {
  return json::object{
      {"apiVersion", "storage.k8s.io/v1"}, {"kind", "StorageClass"},
      {"metadata", {{"name", name}}},      {"provisioner", provisioner},
      {"reclaimPolicy", "Delete"},         {"volumeBindingMode", "WaitForFirstConsumer"}};
}

json::object claimJson(const std::string& name, const std::string& className) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "PersistentVolumeClaim"},
                      {"metadata", {{"name", name}, {"namespace", "default"}}},
                      {"spec",
                       {{"storageClassName", className},
                        {"accessModes", json::array{"ReadWriteOnce"}},
                        {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
}

// A volume of `className` that only nodes labelled `key`=`value` reach.
json::object volumeJson(const std::string& name, const std::string& className,
                        const std::string& key, const std::string& value) {
  json::object expression{{"key", key}, {"operator", "In"}, {"values", json::array{value}}};
  json::object term{{"matchExpressions", json::array{std::move(expression)}}};
  json::object affinity{{"required", {{"nodeSelectorTerms", json::array{std::move(term)}}}}};
  return json::object{{"apiVersion", "v1"},
                      {"kind", "PersistentVolume"},
                      {"metadata", {{"name", name}}},
                      {"spec",
                       {{"capacity", {{"storage", "10Gi"}}},
                        {"accessModes", json::array{"ReadWriteOnce"}},
                        {"storageClassName", className},
                        {"persistentVolumeReclaimPolicy", "Retain"},
                        {"csi", {{"driver", kEbs}, {"volumeHandle", "vol-" + name}}},
                        {"nodeAffinity", std::move(affinity)}}}};
}

json::object statefulSet(const std::string& name, int replicas) {
  json::object labels{{"app", name}};
  return json::object{{"apiVersion", "apps/v1"},
                      {"kind", "StatefulSet"},
                      {"metadata", {{"name", name}, {"namespace", "default"}}},
                      {"spec",
                       {{"replicas", replicas},
                        {"serviceName", name},
                        {"selector", {{"matchLabels", labels}}},
                        {"template", {{"metadata", {{"labels", labels}}}}}}}};
}

// A pod of app `app` mounting `claim`, owned by the StatefulSet `owner` when it has a uid.
json::object podWithClaim(const std::string& name, const std::string& app, const std::string& claim,
                          const json::object& owner = {}) {
  json::object pod = podJson("default", name, "500m");
  json::object& metadata = pod["metadata"].as_object();
  metadata["labels"] = json::object{{"app", app}};
  if (!stringAt(owner, {"metadata", "uid"}).empty()) {
    metadata["ownerReferences"] =
        json::array{json::object{{"apiVersion", "apps/v1"},
                                 {"kind", "StatefulSet"},
                                 {"name", stringAt(owner, {"metadata", "name"})},
                                 {"uid", stringAt(owner, {"metadata", "uid"})},
                                 {"controller", true},
                                 {"blockOwnerDeletion", true}}};
  }
  json::object& spec = pod["spec"].as_object();
  spec["volumes"] = json::array{
      json::object{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claim}}}}};
  spec["containers"].as_array()[0].as_object()["volumeMounts"] =
      json::array{json::object{{"name", "data"}, {"mountPath", "/data"}}};
  return pod;
}

// The zone a volume's node affinity requires ("" when none).
std::string affinityZone(const json::object& volume) {
  const json::value whole(volume);
  const json::value* terms = at(whole, "/spec/nodeAffinity/required/nodeSelectorTerms");
  if (terms == nullptr || !terms->is_array()) {
    return {};
  }
  for (const json::value& term : terms->as_array()) {
    const json::value* expressions = at(term, "/matchExpressions");
    if (expressions == nullptr || !expressions->is_array()) {
      continue;
    }
    for (const json::value& e : expressions->as_array()) {
      const json::value* values = at(e, "/values");
      if (e.is_object() && stringAt(e.as_object(), {"key"}) == kZone && values != nullptr &&
          values->is_array() && values->as_array().size() == 1 &&
          values->as_array()[0].is_string()) {
        return std::string(values->as_array()[0].as_string());
      }
    }
  }
  return {};
}

class StorageKubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial("schedhost");
    FakeApiServer::Options o;
    o.tls = tls_;
    o.tokens = {"token-a"};
    server_ = std::make_unique<FakeApiServer>(o);
    server_->start();
    std::ofstream out(dir_.path() / "schedhost.toml");
    out << "parallelism = 2\npodInitialBackoffSeconds = 1\npodMaxBackoffSeconds = 1\n"
           "[reload]\nwatch = false\n[[profiles]]\nschedulerName = \"default-scheduler\"\n";
  }

  void TearDown() override {
    if (controller_) {
      controller_->stop();
      const std::vector<std::string> errors = controller_->errors();
      EXPECT_TRUE(errors.empty()) << errors.front();
    }
    const std::vector<std::string> problems = invariantViolations(*server_);
    EXPECT_TRUE(problems.empty()) << problems.front();
  }

  // Nodes n1, n2, n3 in zones z1, z2, z3, with `cpu` each.
  void threeZones(const std::vector<std::string>& cpu = {"4", "4", "4"}) {
    for (int i = 0; i < 3; ++i) {
      const std::string n = std::to_string(i + 1);
      server_->create("nodes", zonalNode("n" + n, "z" + n, cpu[i]));
    }
  }

  // Creates `object` and gives it `phase`, as the PV controller would (a create starts the
  // status at Pending).
  json::object createWithPhase(const std::string& resource, json::object object,
                               const std::string& phase) {
    json::object stored = server_->create(resource, std::move(object));
    stored["status"] = json::object{{"phase", phase}};
    return server_->updateStatus(resource, std::move(stored));
  }

  // The controller, then the scheduler beside it.
  std::unique_ptr<SchedhostProcess> start() {
    controller_ = std::make_unique<PvControllerLoop>(*server_);
    const auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
    const std::vector<std::string> args = {"run",
                                           "--config",
                                           (dir_.path() / "schedhost.toml").string(),
                                           "--kubeconfig",
                                           kubeconfig.string(),
                                           "--plugin-dir",
                                           SCHEDHOST_PLUGIN_DIR,
                                           "--seed",
                                           "1",
                                           "--leader-elect=false",
                                           "--secure-port=0"};
    auto p = std::make_unique<SchedhostProcess>(SCHEDHOST_BIN, args, dir_.path(), "schedhost");
    EXPECT_TRUE(p->started());
    return p;
  }

  std::string nodeOf(const std::string& pod) const {
    auto p = server_->get("pods", "default", pod);
    return p ? stringAt(*p, {"spec", "nodeName"}) : "";
  }

  bool allBound(const std::vector<std::string>& pods) const {
    for (const std::string& p : pods) {
      if (nodeOf(p).empty()) {
        return false;
      }
    }
    return true;
  }

  std::string zoneOf(const std::string& node) const {
    auto n = server_->get("nodes", "", node);
    return n ? stringAt(*n, {"metadata", "labels", kZone}) : "";
  }

  // The pod's PodScheduled condition, or null.
  std::optional<json::object> podScheduled(const std::string& pod) const {
    const std::optional<json::object> p = server_->get("pods", "default", pod);
    const json::value whole = p ? json::value(*p) : json::value();
    const json::value* conditions = at(whole, "/status/conditions");
    if (conditions == nullptr || !conditions->is_array()) {
      return std::nullopt;
    }
    for (const json::value& c : conditions->as_array()) {
      if (c.is_object() && stringAt(c.as_object(), {"type"}) == "PodScheduled") {
        return c.as_object();
      }
    }
    return std::nullopt;
  }

  // When the pod's binding was answered 201.
  std::optional<Clock::time_point> boundAt(const std::string& pod) const {
    const std::string path = "/api/v1/namespaces/default/pods/" + pod + "/binding";
    for (const auto& r : server_->requests()) {
      if (r.resource == "pods/binding" && r.status == 201 && r.path == path) {
        return r.at;
      }
    }
    return std::nullopt;
  }

  // The paths the scheduler wrote (PUT) objects of `resource` at, and how it was answered.
  std::multimap<std::string, int> updates(const std::string& resource) const {
    std::multimap<std::string, int> out;
    for (const auto& r : server_->requests()) {
      if (r.verb == "update" && r.resource == resource) {
        out.emplace(r.path, r.status);
      }
    }
    return out;
  }

  // The claim was bound before its pod was: the controller wrote it Bound, then the pod's
  // binding was answered.
  void expectClaimBoundFirst(const std::string& pod, const std::string& claim) const {
    const std::optional<Clock::time_point> claimBound = controller_->boundAt("default", claim);
    // The binding is stored before its request is recorded (once answered): wait for the record.
    std::optional<Clock::time_point> podBound;
    eventually([&] { return (podBound = boundAt(pod)).has_value(); }, 10s);
    ASSERT_TRUE(claimBound.has_value()) << claim;
    ASSERT_TRUE(podBound.has_value()) << pod;
    EXPECT_LT(*claimBound, *podBound) << pod << " bound before its claim " << claim;
  }

  // `claim` was provisioned for bound `pod`: the scheduler's node on the claim, a volume in that
  // node's zone, the two bound to each other, and the claim bound first.
  void expectProvisionedFor(const std::string& pod, const std::string& claim) const {
    SCOPED_TRACE(pod + " with " + claim);
    const std::string node = nodeOf(pod);
    ASSERT_FALSE(node.empty());
    const std::optional<json::object> pvc = server_->get(kClaims, "default", claim);
    ASSERT_TRUE(pvc.has_value());
    EXPECT_EQ(stringAt(*pvc, {"metadata", "annotations", kSelectedNode}), node);
    EXPECT_EQ(stringAt(*pvc, {"metadata", "annotations", kBindCompleted}), "yes");
    EXPECT_EQ(stringAt(*pvc, {"status", "phase"}), "Bound");
    const std::string uid = stringAt(*pvc, {"metadata", "uid"});
    const std::string volumeName = stringAt(*pvc, {"spec", "volumeName"});
    EXPECT_EQ(volumeName, "pvc-" + uid);
    const std::optional<json::object> pv = server_->get(kVolumes, "", volumeName);
    ASSERT_TRUE(pv.has_value());
    EXPECT_EQ(stringAt(*pv, {"spec", "csi", "driver"}), kEbs);
    EXPECT_EQ(stringAt(*pv, {"spec", "claimRef", "uid"}), uid);
    EXPECT_EQ(stringAt(*pv, {"status", "phase"}), "Bound");
    EXPECT_FALSE(zoneOf(node).empty());
    EXPECT_EQ(affinityZone(*pv), zoneOf(node));
    expectClaimBoundFirst(pod, claim);
  }

  TempDir dir_;
  TlsMaterial tls_;
  std::unique_ptr<FakeApiServer> server_;
  std::unique_ptr<PvControllerLoop> controller_;
};

TEST_F(StorageKubeTest, AStatefulSetsClaimsAreProvisionedInTheZonesOfTheirPodsNodes) {
  threeZones();
  server_->create("storageclasses", storageClass("zonal", kEbs));
  const json::object web = server_->create("statefulsets", statefulSet("web", 6));
  // As the StatefulSet controller creates them: each replica's claim from the template, then
  // the replica.
  std::vector<std::string> pods, claims;
  for (int i = 0; i < 6; ++i) {
    pods.push_back("web-" + std::to_string(i));
    claims.push_back("data-" + pods.back());
    server_->create(kClaims, claimJson(claims.back(), "zonal"));
    server_->create("pods", podWithClaim(pods.back(), "web", claims.back(), web));
  }
  auto run = start();
  ASSERT_TRUE(eventually([&] { return allBound(pods); }, kDeadline)) << run->err();
  std::set<std::string> zones;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    expectProvisionedFor(pods[i], claims[i]);
    zones.insert(zoneOf(nodeOf(pods[i])));
  }
  // The replicas spread over the three zones (the StatefulSet's default topology spreading),
  // so the volumes went to each zone by where their pods went.
  EXPECT_EQ(zones, (std::set<std::string>{"z1", "z2", "z3"}));
  // PreBind wrote each claim once (PUT, through the API); no volume was written by the
  // scheduler, all were provisioned.
  const std::multimap<std::string, int> claimWrites = updates(kClaims);
  EXPECT_EQ(claimWrites.size(), claims.size());
  for (const std::string& claim : claims) {
    const std::string path = "/api/v1/namespaces/default/persistentvolumeclaims/" + claim;
    ASSERT_EQ(claimWrites.count(path), 1u) << path;
    EXPECT_EQ(claimWrites.find(path)->second, 200) << path;
  }
  EXPECT_TRUE(updates(kVolumes).empty());
  EXPECT_EQ(server_->list(kVolumes).size(), claims.size());
}

TEST_F(StorageKubeTest, APodWhoseClaimIsMissingWaitsUntilTheClaimIsCreated) {
  threeZones();
  server_->create("storageclasses", storageClass("zonal", kEbs));
  server_->create(kClaims, claimJson("data-web-0", "zonal"));
  server_->create("pods", podWithClaim("web-0", "web", "data-web-0"));
  const std::string orphanUid = stringAt(
      server_->create("pods", podWithClaim("orphan", "web", "missing")), {"metadata", "uid"});
  auto run = start();
  ASSERT_TRUE(eventually([&] { return !nodeOf("web-0").empty(); }, kDeadline)) << run->err();
  expectProvisionedFor("web-0", "data-web-0");
  // VolumeBinding's PreFilter turned it away, UnschedulableAndUnresolvable, with upstream's
  // message.
  ASSERT_TRUE(eventually(
      [&] {
        auto c = podScheduled("orphan");
        return c && stringAt(*c, {"status"}) == "False";
      },
      kDeadline))
      << run->err();
  const json::object condition = *podScheduled("orphan");
  EXPECT_EQ(stringAt(condition, {"reason"}), "Unschedulable");
  EXPECT_NE(stringAt(condition, {"message"}).find(R"(persistentvolumeclaim "missing" not found)"),
            std::string::npos)
      << stringAt(condition, {"message"});
  // Nothing brings it back while the claim does not exist: never bound, never bind-requested.
  const auto until = Clock::now() + 2s;
  bool bound = false;
  while (Clock::now() < until) {
    bound = bound || !nodeOf("orphan").empty();
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_FALSE(bound);
  EXPECT_EQ(server_->bindCount(orphanUid), 0u);
  // The claim's Add (VolumeBinding's PersistentVolumeClaim event, its hint: a claim of the pod)
  // retries it; the claim is provisioned on the node it goes to.
  server_->create(kClaims, claimJson("missing", "zonal"));
  ASSERT_TRUE(eventually([&] { return !nodeOf("orphan").empty(); }, kDeadline)) << run->err();
  expectProvisionedFor("orphan", "missing");
  EXPECT_EQ(server_->bindCount(orphanUid), 1u);
}

TEST_F(StorageKubeTest, APodWhoseClaimIsBoundToAZonalVolumeGoesToThatZone) {
  // n2 is the smallest node: on resources alone the pod would go elsewhere.
  threeZones({"8", "2", "8"});
  server_->create("storageclasses", storageClass("zonal", kEbs));
  // As the PV controller left them: the claim and a volume in z2 bound to each other.
  json::object claim = server_->create(kClaims, claimJson("data-db-0", "zonal"));
  json::object volume = volumeJson("pv-z2", "zonal", kZone, "z2");
  volume["spec"].as_object()["claimRef"] =
      json::object{{"kind", "PersistentVolumeClaim"},
                   {"apiVersion", "v1"},
                   {"namespace", "default"},
                   {"name", "data-db-0"},
                   {"uid", stringAt(claim, {"metadata", "uid"})}};
  createWithPhase(kVolumes, std::move(volume), "Bound");
  claim["spec"].as_object()["volumeName"] = "pv-z2";
  claim["metadata"].as_object()["annotations"] =
      json::object{{kBindCompleted, "yes"}, {kBoundByController, "yes"}};
  claim = server_->update(kClaims, std::move(claim));
  claim["status"] = json::object{{"phase", "Bound"}};
  server_->updateStatus(kClaims, std::move(claim));
  server_->create("pods", podWithClaim("db-0", "db", "data-db-0"));
  auto run = start();
  ASSERT_TRUE(eventually([&] { return !nodeOf("db-0").empty(); }, kDeadline)) << run->err();
  // Filter kept it to the volume's zone.
  EXPECT_EQ(nodeOf("db-0"), "n2");
  // Every claim was bound already: nothing to write, nothing to wait for.
  EXPECT_TRUE(updates(kClaims).empty());
  EXPECT_TRUE(updates(kVolumes).empty());
}

TEST_F(StorageKubeTest, AnAvailableLocalVolumeIsBoundToTheClaimOfThePodPlacedOnItsNode) {
  // n3 is the smallest node: on resources alone the pod would go elsewhere.
  threeZones({"8", "8", "2"});
  server_->create("storageclasses", storageClass("local", kNoProvisioner));
  json::object local = volumeJson("local-n3", "local", "kubernetes.io/hostname", "n3");
  json::object& spec = local["spec"].as_object();
  spec.erase("csi");
  spec["local"] = json::object{{"path", "/mnt/disks/ssd0"}};
  createWithPhase(kVolumes, std::move(local), "Available");
  server_->create(kClaims, claimJson("data-cache-0", "local"));
  server_->create("pods", podWithClaim("cache-0", "cache", "data-cache-0"));
  auto run = start();
  ASSERT_TRUE(eventually([&] { return !nodeOf("cache-0").empty(); }, kDeadline)) << run->err();
  EXPECT_EQ(nodeOf("cache-0"), "n3");
  // PreBind wrote the volume's claimRef (PUT); the controller completed the binding before the
  // pod was bound.
  const std::multimap<std::string, int> volumeWrites = updates(kVolumes);
  ASSERT_EQ(volumeWrites.size(), 1u);
  EXPECT_EQ(volumeWrites.begin()->first, "/api/v1/persistentvolumes/local-n3");
  EXPECT_EQ(volumeWrites.begin()->second, 200);
  EXPECT_TRUE(updates(kClaims).empty());
  const json::object pvc = *server_->get(kClaims, "default", "data-cache-0");
  const json::object pv = *server_->get(kVolumes, "", "local-n3");
  EXPECT_EQ(stringAt(pvc, {"spec", "volumeName"}), "local-n3");
  EXPECT_EQ(stringAt(pvc, {"metadata", "annotations", kBindCompleted}), "yes");
  EXPECT_EQ(stringAt(pvc, {"metadata", "annotations", kSelectedNode}), "");
  EXPECT_EQ(stringAt(pvc, {"status", "phase"}), "Bound");
  EXPECT_EQ(stringAt(pv, {"spec", "claimRef", "uid"}), stringAt(pvc, {"metadata", "uid"}));
  EXPECT_EQ(stringAt(pv, {"metadata", "annotations", kBoundByController}), "yes");
  EXPECT_EQ(stringAt(pv, {"status", "phase"}), "Bound");
  expectClaimBoundFirst("cache-0", "data-cache-0");
}

}  // namespace
}  // namespace sh::kubetest::storage_kube_test

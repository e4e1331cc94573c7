// Fixtures for the VolumeBinding tests: storage objects built as upstream's test_utils.go and
// binder_test.go build them (makePV, makePVC, makeTestPV, makeTestPVC, makeCapacity, ...), a
// scenario run through sh::evaluate (PreFilter and Filter on every node), and a binding harness
// that runs Reserve, Unreserve and PreBind through the framework against an object store whose
// writes act as the API server's (the version is bumped and the watch delivers it).
#ifndef SCHEDHOST_TESTS_PLUGINS_VOLUMEBINDING_VOLUME_BINDING_TEST_UTIL_H
#define SCHEDHOST_TESTS_PLUGINS_VOLUMEBINDING_VOLUME_BINDING_TEST_UTIL_H

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "host/cache/snapshot.h"
#include "host/connectors/object_store.h"
#include "host/connectors/object_write.h"
#include "host/evaluate/evaluate.h"
#include "host/framework/cycle_state.h"
#include "host/model/node.h"
#include "host/model/pod.h"
#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing::volumebinding {

inline constexpr char kPlugin[] = "VolumeBinding";
inline constexpr char kBindConflict[] = "node(s) didn't find available persistent volumes to bind";
inline constexpr char kNodeConflict[] = "node(s) didn't match PersistentVolume's node affinity";
inline constexpr char kNotEnoughSpace[] = "node(s) did not have enough free storage";
inline constexpr char kPVNotExist[] =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr char kHostname[] = "kubernetes.io/hostname";

using Json = boost::json::value;
using Labels = std::vector<std::pair<std::string, std::string>>;

// -- Manifests --------------------------------------------------------------------------------

inline boost::json::object& metadata(Json& o) { return o.as_object()["metadata"].as_object(); }
inline boost::json::object& annotations(Json& o) {
  boost::json::object& m = metadata(o);
  if (!m.contains("annotations") || !m["annotations"].is_object()) {
    m["annotations"] = boost::json::object();
  }
  return m["annotations"].as_object();
}
inline boost::json::object& spec(Json& o) {
  if (!o.as_object().contains("spec")) {
    o.as_object()["spec"] = boost::json::object();
  }
  return o.as_object()["spec"].as_object();
}

// A node with the hostname label (upstream makeNode) and room for pods.
class NodeBuilder {
 public:
  explicit NodeBuilder(const std::string& name) {
    json_ = {{"metadata", {{"name", name}, {"labels", {{kHostname, name}}}}},
             {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}}}}};
  }
  NodeBuilder& label(const std::string& k, const std::string& v) {
    metadata(json_)["labels"].as_object()[k] = v;
    return *this;
  }
  NodeBuilder& noLabels() {
    metadata(json_)["labels"] = boost::json::object();
    return *this;
  }
  Json json() const { return json_; }

 private:
  Json json_;
};

inline boost::json::object affinityTerm(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& exprs) {
  boost::json::array matchExpressions;
  for (const auto& [key, values] : exprs) {
    boost::json::array vs;
    for (const std::string& v : values) {
      vs.emplace_back(v);
    }
    matchExpressions.push_back({{"key", key}, {"operator", "In"}, {"values", vs}});
  }
  return {{"matchExpressions", matchExpressions}};
}

// A PersistentVolume (upstream makePV / makeTestPV).
class PVBuilder {
 public:
  PVBuilder(const std::string& name, const std::string& className) {
    json_ = {{"metadata", {{"name", name}, {"resourceVersion", "1"}}},
             {"spec", {{"storageClassName", className}}}};
  }
  // One term with an In expression per key (upstream withNodeAffinity).
  PVBuilder& nodeAffinity(const std::vector<std::pair<std::string, std::vector<std::string>>>& e) {
    spec(json_)["nodeAffinity"] = {
        {"required", {{"nodeSelectorTerms", boost::json::array{affinityTerm(e)}}}}};
    return *this;
  }
  PVBuilder& rawNodeAffinity(Json affinity) {
    spec(json_)["nodeAffinity"] = std::move(affinity);
    return *this;
  }
  PVBuilder& capacity(const std::string& q) {
    spec(json_)["capacity"] = {{"storage", q}};
    return *this;
  }
  PVBuilder& phase(const std::string& p) {
    json_.as_object()["status"] = {{"phase", p}};
    return *this;
  }
  PVBuilder& version(const std::string& rv) {
    metadata(json_)["resourceVersion"] = rv;
    return *this;
  }
  PVBuilder& accessModes(std::vector<std::string> modes) {
    boost::json::array a;
    for (const std::string& m : modes) {
      a.emplace_back(m);
    }
    spec(json_)["accessModes"] = a;
    return *this;
  }
  PVBuilder& volumeMode(const std::string& mode) {
    spec(json_)["volumeMode"] = mode;
    return *this;
  }
  PVBuilder& label(const std::string& k, const std::string& v) {
    if (!metadata(json_).contains("labels")) {
      metadata(json_)["labels"] = boost::json::object();
    }
    metadata(json_)["labels"].as_object()[k] = v;
    return *this;
  }
  // spec.claimRef to `claim` (namespace/name/uid) and bound-by-controller (makeTestPV).
  PVBuilder& claimRef(const std::string& ns, const std::string& name, const std::string& uid) {
    spec(json_)["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                               {"apiVersion", "v1"},
                               {"namespace", ns},
                               {"name", name},
                               {"uid", uid},
                               {"resourceVersion", "1"}};
    annotations(json_)["pv.kubernetes.io/bound-by-controller"] = "yes";
    return *this;
  }
  PVBuilder& source(const std::string& key, Json value) {
    spec(json_)[key] = std::move(value);
    return *this;
  }
  PVBuilder& deleting() {
    metadata(json_)["deletionTimestamp"] = "2024-01-01T00:00:00Z";
    return *this;
  }
  Json json() const { return json_; }

 private:
  Json json_;
};

// A PersistentVolumeClaim (upstream makePVC / makeTestPVC).
class PVCBuilder {
 public:
  PVCBuilder(const std::string& name, const std::string& className,
             const std::string& ns = "default") {
    json_ = {{"metadata",
              {{"name", name}, {"namespace", ns}, {"uid", "pvc-uid"}, {"resourceVersion", "1"}}},
             {"spec", {{"storageClassName", className}}}};
  }
  PVCBuilder& noClass() {
    spec(json_).erase("storageClassName");
    return *this;
  }
  // Bound: spec.volumeName and bind-completed (upstream withBoundPV / pvcBound).
  PVCBuilder& boundTo(const std::string& pv) {
    spec(json_)["volumeName"] = pv;
    annotations(json_)["pv.kubernetes.io/bind-completed"] = "yes";
    return *this;
  }
  // Pre-bound: spec.volumeName alone (pvcPrebound).
  PVCBuilder& preboundTo(const std::string& pv) {
    spec(json_)["volumeName"] = pv;
    return *this;
  }
  PVCBuilder& request(const std::string& q) {
    spec(json_)["resources"] = {{"requests", {{"storage", q}}}};
    return *this;
  }
  PVCBuilder& phase(const std::string& p) {
    json_.as_object()["status"] = {{"phase", p}};
    return *this;
  }
  PVCBuilder& selectedNode(const std::string& node) {
    annotations(json_)["volume.kubernetes.io/selected-node"] = node;
    return *this;
  }
  PVCBuilder& uid(const std::string& uid) {
    metadata(json_)["uid"] = uid;
    return *this;
  }
  PVCBuilder& version(const std::string& rv) {
    metadata(json_)["resourceVersion"] = rv;
    return *this;
  }
  PVCBuilder& accessModes(std::vector<std::string> modes) {
    boost::json::array a;
    for (const std::string& m : modes) {
      a.emplace_back(m);
    }
    spec(json_)["accessModes"] = a;
    return *this;
  }
  PVCBuilder& selector(Json s) {
    spec(json_)["selector"] = std::move(s);
    return *this;
  }
  PVCBuilder& ownedBy(const std::string& podName, const std::string& podUid) {
    metadata(json_)["ownerReferences"] = boost::json::array{{{"apiVersion", "v1"},
                                                             {"kind", "Pod"},
                                                             {"name", podName},
                                                             {"uid", podUid},
                                                             {"controller", true}}};
    return *this;
  }
  PVCBuilder& deleting() {
    metadata(json_)["deletionTimestamp"] = "2024-01-01T00:00:00Z";
    return *this;
  }
  Json json() const { return json_; }

 private:
  Json json_;
};

inline Json storageClass(const std::string& name, const std::string& mode,
                         const std::string& provisioner = "") {
  boost::json::object sc = {{"metadata", {{"name", name}}}};
  if (!mode.empty()) {
    sc["volumeBindingMode"] = mode;
  }
  if (!provisioner.empty()) {
    sc["provisioner"] = provisioner;
  }
  return sc;
}

inline Json withAllowedTopology(Json sc, const std::string& key,
                                const std::vector<std::string>& values) {
  boost::json::array vs;
  for (const std::string& v : values) {
    vs.emplace_back(v);
  }
  sc.as_object()["allowedTopologies"] = boost::json::array{
      {{"matchLabelExpressions", boost::json::array{{{"key", key}, {"values", vs}}}}}};
  return sc;
}

inline Json csiDriver(const std::string& name, bool storageCapacity) {
  return {{"metadata", {{"name", name}}}, {"spec", {{"storageCapacity", storageCapacity}}}};
}

// upstream makeCapacity: nodeTopology {} (network attached) or matching `nodeLabel`.
inline Json capacity(const std::string& name, const std::string& className,
                     const std::pair<std::string, std::string>* nodeLabel, const std::string& total,
                     const std::string& maximum) {
  boost::json::object c = {{"metadata", {{"name", name}, {"namespace", "kube-system"}}},
                           {"storageClassName", className},
                           {"nodeTopology", boost::json::object()}};
  if (nodeLabel != nullptr) {
    c["nodeTopology"] = {{"matchLabels", {{nodeLabel->first, nodeLabel->second}}}};
  }
  if (!total.empty()) {
    c["capacity"] = total;
  }
  if (!maximum.empty()) {
    c["maximumVolumeSize"] = maximum;
  }
  return c;
}

inline Json csiNode(const std::string& name, const std::string& migratedPlugins) {
  return {{"metadata",
           {{"name", name},
            {"annotations", {{"storage.alpha.kubernetes.io/migrated-plugins", migratedPlugins}}}}}};
}

// A pod of `ns` with one persistentVolumeClaim volume per claim.
inline Json podJson(const std::string& name, const std::vector<std::string>& claims,
                    const std::string& ns = "default") {
  auto w =
      makePod().name(name).uid(name).inNamespace(ns).container(sh::model::testing::kPauseImage);
  for (const std::string& c : claims) {
    w.pvc(c);
  }
  return w.parseJson();
}

// Everything a case puts in the cluster besides nodes and the pod.
struct Storage {
  std::vector<Json> pvs;
  std::vector<Json> pvcs;
  std::vector<Json> classes;
  std::vector<Json> csiNodes;
  std::vector<Json> csiDrivers;
  std::vector<Json> capacities;
};

inline boost::json::array toArray(const std::vector<Json>& values) {
  boost::json::array out;
  for (const Json& v : values) {
    out.push_back(v);
  }
  return out;
}

inline boost::json::object scenarioDoc(const Storage& storage, const Json& pod,
                                       const std::vector<Json>& nodes, const std::string& args) {
  boost::json::object doc;
  doc["name"] = "volume binding test";
  boost::json::object plugin = {{"name", kPlugin}};
  if (!args.empty()) {
    plugin["args"] = boost::json::parse(args);
  }
  doc["plugins"] = boost::json::array{plugin};
  doc["nodes"] = toArray(nodes);
  doc["pod"] = pod;
  doc["persistentVolumes"] = toArray(storage.pvs);
  doc["persistentVolumeClaims"] = toArray(storage.pvcs);
  doc["storageClasses"] = toArray(storage.classes);
  doc["csiNodes"] = toArray(storage.csiNodes);
  doc["csiDrivers"] = toArray(storage.csiDrivers);
  doc["csiStorageCapacities"] = toArray(storage.capacities);
  return doc;
}

// PreFilter and Filter on every node (and, on the node selected, Reserve and PreBind without
// writing: bindTimeoutSeconds 0 keeps the wait from waiting).
inline sh::evaluate::Result run(const Storage& storage, const Json& pod,
                                const std::vector<Json>& nodes,
                                const std::string& args = R"({"bindTimeoutSeconds":0})") {
  std::string error;
  auto scenario = sh::evaluate::parseScenario(scenarioDoc(storage, pod, nodes, args), error);
  if (!scenario) {
    throw std::runtime_error(error);
  }
  return sh::evaluate::run(*scenario, testOptions());
}

// "Code" or "Code: reason, reason".
inline std::string statusText(const sh::evaluate::PluginStatus& s) {
  std::string out = s.code;
  for (std::size_t i = 0; i < s.reasons.size(); ++i) {
    out += (i == 0 ? ": " : ", ") + s.reasons[i];
  }
  return out;
}

inline std::string preFilterOf(const sh::evaluate::Result& r) {
  auto it = r.preFilter.find(kPlugin);
  return it == r.preFilter.end() ? std::string("Success") : statusText(it->second);
}

inline std::string filterOf(const sh::evaluate::Result& r, const std::string& node) {
  return statusText(filterStatus(r, node, kPlugin));
}

// The lines PreBind would write, from the bindingPlan.
inline std::vector<std::string> plannedWrites(const sh::evaluate::Result& r) {
  auto point = r.writes.find("preBind");
  if (point == r.writes.end()) {
    return {};
  }
  auto plugin = point->second.find(kPlugin);
  return plugin == point->second.end() ? std::vector<std::string>() : plugin->second;
}

// -- The binding cycle against an API server of our own --------------------------------------

// An object store whose writes behave as the API server's: an update against the stored
// resourceVersion is stored with the next one and delivered as the watch would (which drops an
// assumed version); one against another version is refused with the API's conflict message.
class ApiServices : public sh::NullHostServices {
 public:
  sh::connectors::ObjectStore* objectStore() override { return &store; }
  sh::Status writeObject(const sh::connectors::ObjectKind& kind,
                         const sh::connectors::ObjectWrite& write, std::string_view,
                         std::string_view) override {
    std::lock_guard<std::mutex> lock(mu);
    writes.push_back(write.describe(kind));
    if (!failWrites.empty()) {
      return sh::Status::error(failWrites);
    }
    boost::json::value body = boost::json::parse(write.body);
    boost::json::object& meta = body.as_object()["metadata"].as_object();
    const std::string ns =
        meta.contains("namespace") ? std::string(meta["namespace"].as_string()) : "";
    const std::string name(meta["name"].as_string());
    const std::string rv(meta["resourceVersion"].as_string());
    const std::size_t id = kindId(kind);
    auto version = store.version(id);
    const sh::connectors::StoredObject* stored = version->find(ns, name);
    if (stored == nullptr) {
      return sh::Status::error(kind.resource + " \"" + name + "\" not found");
    }
    if (std::to_string(stored->resourceVersion()) != rv) {
      return sh::Status::error("Operation cannot be fulfilled on " + kind.resource + " \"" + name +
                               "\": the object has been modified; please apply your changes to "
                               "the latest version and try again");
    }
    // An update that changes nothing is no new version.
    if (body == stored->json()) {
      return sh::Status();
    }
    meta["resourceVersion"] = std::to_string(stored->resourceVersion() + 1);
    applyLocked(body);
    return sh::Status();
  }

  // Stores `object` (with its apiVersion and kind) as the watch delivers it.
  void apply(const boost::json::value& object) {
    std::lock_guard<std::mutex> lock(mu);
    applyLocked(object);
  }
  // Changes the stored object ns/name of `kind` with `change`, bumping its version.
  template <typename Fn>
  void update(std::size_t kind, const std::string& ns, const std::string& name, Fn&& change) {
    std::lock_guard<std::mutex> lock(mu);
    const sh::connectors::StoredObject* stored = store.version(kind)->find(ns, name);
    ASSERT_NE(stored, nullptr) << name;
    boost::json::value copy = stored->json();
    change(copy);
    copy.as_object()["metadata"].as_object()["resourceVersion"] =
        std::to_string(stored->resourceVersion() + 1);
    applyLocked(copy);
  }
  std::vector<std::string> takeWrites() {
    std::lock_guard<std::mutex> lock(mu);
    return std::move(writes);
  }

  sh::connectors::ObjectStore store;
  std::mutex mu;
  std::vector<std::string> writes;
  std::string failWrites;  // when set, every write fails with it

 private:
  std::size_t kindId(const sh::connectors::ObjectKind& kind) {
    auto kinds = store.kinds();
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i].spec.resource == kind.resource && kinds[i].spec.group == kind.group) {
        return i;
      }
    }
    throw std::runtime_error("unknown kind " + kind.resource);
  }
  void applyLocked(const boost::json::value& object) {
    std::string error;
    auto parsed = sh::connectors::StoredObject::parse(object, error);
    if (parsed == nullptr) {
      throw std::runtime_error(error);
    }
    std::vector<sh::connectors::ObjectEvent> events;
    store.applyByKind(false, parsed, events);
  }
};

// `object` with its apiVersion and kind, as a watch delivers it.
inline Json typed(Json object, const std::string& apiVersion, const std::string& kind) {
  object.as_object()["apiVersion"] = apiVersion;
  object.as_object()["kind"] = kind;
  return object;
}

// One pod's scheduling and binding cycle through the framework: PreFilter, Filter on every node,
// then Reserve, PreBind or Unreserve on the node the test picks.
class BindingHarness {
 public:
  // Declared-kind ids in the store: the plugin declares them in this order.
  static constexpr std::size_t kClaims = 0;
  static constexpr std::size_t kVolumes = 1;

  BindingHarness(const Storage& storage, const Json& pod, const std::vector<Json>& nodes,
                 const std::string& args = "")
      : plugin_(kPlugin, args, &services) {
    for (const Json& pv : storage.pvs) {
      services.apply(typed(pv, "v1", "PersistentVolume"));
    }
    for (const Json& pvc : storage.pvcs) {
      services.apply(typed(pvc, "v1", "PersistentVolumeClaim"));
    }
    for (const Json& sc : storage.classes) {
      services.apply(typed(sc, "storage.k8s.io/v1", "StorageClass"));
    }
    for (const Json& n : storage.csiNodes) {
      services.apply(typed(n, "storage.k8s.io/v1", "CSINode"));
    }
    for (const Json& d : storage.csiDrivers) {
      services.apply(typed(d, "storage.k8s.io/v1", "CSIDriver"));
    }
    for (const Json& c : storage.capacities) {
      services.apply(typed(c, "storage.k8s.io/v1", "CSIStorageCapacity"));
    }
    std::string error;
    for (const Json& n : nodes) {
      auto node = sh::model::parseNode(n, error);
      if (node == nullptr) {
        throw std::runtime_error(error);
      }
      nodes_.push_back(node);
    }
    pod_ = sh::model::parsePod(pod, error);
    if (pod_ == nullptr) {
      throw std::runtime_error(error);
    }
    snapshot_ = sh::cache::buildSnapshot(nodes_, {});
    cycle_.snapshot = snapshot_.get();
    cycle_.objects = services.store.snapshot();
  }

  // PreFilter, then Filter on every node: each node's status text.
  std::map<std::string, std::string> schedule() {
    sh::PreFilterOutcome outcome;
    sh::Status pre = framework().runPreFilter(cycle_, pod_->view(), outcome);
    preFilter = pre.ok() ? "Success" : codeText(pre);
    std::map<std::string, std::string> out;
    if (!pre.ok()) {
      return out;
    }
    for (const sh_node_info* ni : snapshot_->views) {
      sh::Status s = framework().runFilter(cycle_, pod_->view(), *ni);
      out[std::string(ni->node->name.ptr, ni->node->name.len)] = s.ok() ? "Success" : codeText(s);
    }
    return out;
  }
  sh::Status reserve(const std::string& node) {
    return framework().runReserve(cycle_, pod_->view(), node);
  }
  void unreserve(const std::string& node) { framework().runUnreserve(cycle_, pod_->view(), node); }
  sh::Status preBind(const std::string& node) {
    return framework().runPreBind(cycle_, pod_->view(), node);
  }

  // The latest version of an object, as the plugin reads it (an assumed one included); null
  // when there is none. `kind` is the plugin's own index (kClaims, kVolumes).
  sh::connectors::ObjectPtr latest(std::size_t kind, const std::string& ns,
                                   const std::string& name) {
    const std::size_t id = plugin_.instance().kindIds().at(kind);
    const std::string key = ns.empty() ? name : ns + "/" + name;
    if (sh::connectors::ObjectPtr a = services.store.assumed(id, key)) {
      return a;
    }
    for (const sh::connectors::ObjectPtr& o : services.store.version(id)->objects()) {
      if (o->key() == key) {
        return o;
      }
    }
    return nullptr;
  }
  // A string at a dotted path of the latest version ("<none>" without the object, "" when the
  // member is absent).
  std::string field(std::size_t kind, const std::string& ns, const std::string& name,
                    const std::vector<std::string>& path) {
    sh::connectors::ObjectPtr o = latest(kind, ns, name);
    if (o == nullptr) {
      return "<none>";
    }
    const boost::json::value* v = &o->json();
    for (const std::string& step : path) {
      if (!v->is_object() || !v->as_object().contains(step)) {
        return "";
      }
      v = &v->as_object().at(step);
    }
    return v->is_string() ? std::string(v->as_string()) : boost::json::serialize(*v);
  }
  bool assumed(std::size_t kind, const std::string& ns, const std::string& name) {
    sh::connectors::ObjectPtr o = latest(kind, ns, name);
    return o != nullptr && o->view().assumed != 0;
  }

  const sh::Framework& framework() const { return plugin_.framework(); }
  static std::string codeText(const sh::Status& s) {
    std::string out = std::string(sh::codeName(s.code()));
    auto reasons = s.reasons();
    for (std::size_t i = 0; i < reasons.size(); ++i) {
      out += (i == 0 ? ": " : ", ") + reasons[i];
    }
    return out;
  }

  ApiServices services;
  std::string preFilter;

 private:
  LoadedPlugin plugin_;
  std::vector<std::shared_ptr<const sh::model::Node>> nodes_;
  std::shared_ptr<const sh::model::Pod> pod_;
  std::unique_ptr<sh::cache::Snapshot> snapshot_;
  sh::CycleState cycle_;
};

}  // namespace schedhost::testing::volumebinding

#endif  // SCHEDHOST_TESTS_PLUGINS_VOLUMEBINDING_VOLUME_BINDING_TEST_UTIL_H

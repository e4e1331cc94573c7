#include "host/bench/workload.h"

#include <cmath>

#include <boost/json.hpp>

namespace sh::bench {
namespace {

struct Group {
  std::size_t count = 0;
  std::string prefix;
  std::string ns;
  boost::json::object templ;
  std::vector<std::pair<std::string, std::vector<std::string>>> labels;
  // Storage (see workload.h): CSINode drivers and migrated plugins of each node; the volume
  // and claim templates of each pod.
  std::vector<std::pair<std::string, int64_t>> csiDrivers;
  std::vector<std::string> migratedPlugins;
  bool hasCsiNode = false;
  boost::json::object pvTemplate;
  boost::json::object pvcTemplate;
  bool hasVolumes = false;
};

bool readStorage(const boost::json::object& o, const char* field, Group& g, std::string& error) {
  const std::string at(field);
  if (const auto* c = o.if_contains("csiNode"); c != nullptr) {
    if (!c->is_object()) {
      error = at + ".csiNode: expected an object";
      return false;
    }
    g.hasCsiNode = true;
    if (const auto* d = c->get_object().if_contains("drivers"); d != nullptr) {
      if (!d->is_object()) {
        error = at + ".csiNode.drivers: expected an object of driver -> count";
        return false;
      }
      for (const auto& kv : d->get_object()) {
        if (!kv.value().is_int64() || kv.value().get_int64() < 0) {
          error = at + ".csiNode.drivers." + std::string(kv.key()) +
                  ": expected a non-negative integer";
          return false;
        }
        g.csiDrivers.emplace_back(std::string(kv.key()), kv.value().get_int64());
      }
    }
    if (const auto* m = c->get_object().if_contains("migratedPlugins"); m != nullptr) {
      if (!m->is_array()) {
        error = at + ".csiNode.migratedPlugins: expected an array of strings";
        return false;
      }
      for (const auto& x : m->get_array()) {
        if (!x.is_string()) {
          error = at + ".csiNode.migratedPlugins: expected an array of strings";
          return false;
        }
        g.migratedPlugins.emplace_back(x.get_string());
      }
    }
  }
  const auto* pv = o.if_contains("persistentVolumeTemplate");
  const auto* pvc = o.if_contains("persistentVolumeClaimTemplate");
  if (pv == nullptr && pvc == nullptr) {
    return true;
  }
  if (pv == nullptr || pvc == nullptr || !pv->is_object() || !pvc->is_object()) {
    error = at + ": persistentVolumeTemplate and persistentVolumeClaimTemplate go together, " +
            "each an object";
    return false;
  }
  g.pvTemplate = pv->get_object();
  g.pvcTemplate = pvc->get_object();
  g.hasVolumes = true;
  return true;
}

bool readGroup(const boost::json::object& doc, const char* field, double scale, Group& g,
               std::string& error) {
  const boost::json::value* v = doc.if_contains(field);
  if (v == nullptr) {
    return true;  // an absent group is empty
  }
  if (!v->is_object()) {
    error = std::string(field) + ": expected an object";
    return false;
  }
  const auto& o = v->get_object();
  const boost::json::value* count = o.if_contains("count");
  if (count == nullptr || !count->is_int64() || count->get_int64() < 0) {
    error = std::string(field) + ".count: expected a non-negative integer";
    return false;
  }
  g.count = static_cast<std::size_t>(std::llround(static_cast<double>(count->get_int64()) * scale));
  if (const auto* p = o.if_contains("namePrefix"); p != nullptr && p->is_string()) {
    g.prefix = std::string(p->get_string());
  }
  if (const auto* n = o.if_contains("namespace"); n != nullptr && n->is_string()) {
    g.ns = std::string(n->get_string());
  }
  const boost::json::value* t = o.if_contains("template");
  if (t == nullptr || !t->is_object()) {
    error = std::string(field) + ".template: expected an object";
    return false;
  }
  g.templ = t->get_object();
  if (const auto* l = o.if_contains("labels"); l != nullptr) {
    if (!l->is_object()) {
      error = std::string(field) + ".labels: expected an object";
      return false;
    }
    for (const auto& kv : l->get_object()) {
      std::vector<std::string> values;
      if (!kv.value().is_array()) {
        error = std::string(field) + ".labels." + std::string(kv.key()) + ": expected an array";
        return false;
      }
      for (const auto& x : kv.value().get_array()) {
        if (x.is_string()) {
          values.emplace_back(x.get_string());
        }
      }
      if (!values.empty()) {
        g.labels.emplace_back(std::string(kv.key()), std::move(values));
      }
    }
  }
  return readStorage(o, field, g, error);
}

boost::json::object& child(boost::json::object& o, const char* key) {
  if (boost::json::value* v = o.if_contains(key); v != nullptr && v->is_object()) {
    return v->get_object();
  }
  o[key] = boost::json::object();
  return o[key].get_object();
}

// The i-th object of a group: the template with name, uid, namespace and labels set.
boost::json::object instance(const Group& g, std::size_t i, bool node) {
  boost::json::object obj = g.templ;
  std::string name = g.prefix + std::to_string(i);
  boost::json::object& meta = child(obj, "metadata");
  meta["name"] = name;
  meta["uid"] = (node ? "node-uid-" : "pod-uid-") + g.ns + "-" + name;
  if (!g.ns.empty()) {
    meta["namespace"] = g.ns;
  }
  if (node || !g.labels.empty()) {
    boost::json::object& labels = child(meta, "labels");
    if (node) {
      labels["kubernetes.io/hostname"] = name;
    }
    for (const auto& [key, values] : g.labels) {
      labels[key] = values[i % values.size()];
    }
  }
  return obj;
}

connectors::ObjectPtr storedObject(boost::json::object o, const std::string& what,
                                   std::string& error) {
  std::string err;
  auto object = connectors::StoredObject::parse(boost::json::value(std::move(o)), err);
  if (object == nullptr) {
    error = what + ": " + err;
  }
  return object;
}

// The node's CSINode: one entry per driver with its attach limit, and the in-tree plugins
// migrated to CSI in the annotation the CSI translation reads.
connectors::ObjectPtr csiNodeFor(const Group& g, const std::string& node, std::string& error) {
  boost::json::object o;
  o["apiVersion"] = "storage.k8s.io/v1";
  o["kind"] = "CSINode";
  boost::json::object& meta = child(o, "metadata");
  meta["name"] = node;
  meta["uid"] = "csinode-uid-" + node;
  if (!g.migratedPlugins.empty()) {
    std::string joined;
    for (const std::string& p : g.migratedPlugins) {
      joined += (joined.empty() ? "" : ",") + p;
    }
    child(meta, "annotations")["storage.alpha.kubernetes.io/migrated-plugins"] = joined;
  }
  boost::json::array drivers;
  for (const auto& [name, count] : g.csiDrivers) {
    drivers.push_back(boost::json::object{
        {"name", name}, {"nodeID", node}, {"allocatable", boost::json::object{{"count", count}}}});
  }
  child(o, "spec")["drivers"] = std::move(drivers);
  return storedObject(std::move(o), "nodes.csiNode", error);
}

// The i-th pod's claim and its volume, bound to each other, and the pod's volume using the
// claim (test/utils: CreatePodWithPersistentVolume, bindVolume true).
bool addVolumes(const Group& g, std::size_t i, const char* field, boost::json::object& pod,
                std::vector<connectors::ObjectPtr>& objects, std::string& error) {
  const std::string claim = "pvc-" + std::to_string(i);
  const std::string volume = g.ns + "-vol-" + std::to_string(i);

  boost::json::object pv = g.pvTemplate;
  pv["apiVersion"] = "v1";
  pv["kind"] = "PersistentVolume";
  boost::json::object& pvMeta = child(pv, "metadata");
  pvMeta["name"] = volume;
  pvMeta["uid"] = "pv-uid-" + volume;
  boost::json::object& spec = child(pv, "spec");
  if (auto* aws = spec.if_contains("awsElasticBlockStore"); aws != nullptr && aws->is_object()) {
    aws->get_object()["volumeID"] = "vol-" + std::to_string(i);
  }
  if (auto* csi = spec.if_contains("csi"); csi != nullptr && csi->is_object()) {
    csi->get_object()["volumeHandle"] = volume;
  }
  spec["claimRef"] = boost::json::object{{"kind", "PersistentVolumeClaim"},
                                         {"namespace", g.ns},
                                         {"name", claim},
                                         {"apiVersion", "v1"}};
  child(pv, "status")["phase"] = "Bound";

  boost::json::object pvc = g.pvcTemplate;
  pvc["apiVersion"] = "v1";
  pvc["kind"] = "PersistentVolumeClaim";
  boost::json::object& pvcMeta = child(pvc, "metadata");
  pvcMeta["name"] = claim;
  pvcMeta["namespace"] = g.ns;
  pvcMeta["uid"] = "pvc-uid-" + g.ns + "-" + claim;
  child(pvc, "spec")["volumeName"] = volume;
  child(pvc, "status")["phase"] = "Bound";

  const std::string what = std::string(field) + ".persistentVolume";
  auto pvObject = storedObject(std::move(pv), what + "Template", error);
  auto pvcObject = pvObject ? storedObject(std::move(pvc), what + "ClaimTemplate", error) : nullptr;
  if (pvcObject == nullptr) {
    return false;
  }
  objects.push_back(std::move(pvObject));
  objects.push_back(std::move(pvcObject));

  boost::json::object& podSpec = child(pod, "spec");
  boost::json::value& volumes = podSpec["volumes"];
  if (!volumes.is_array()) {
    volumes = boost::json::array();
  }
  volumes.get_array().push_back(boost::json::object{
      {"name", "vol"}, {"persistentVolumeClaim", boost::json::object{{"claimName", claim}}}});
  return true;
}

}  // namespace

std::optional<Workload> buildWorkload(const boost::json::value& doc, double scale,
                                      std::string& error) {
  if (!doc.is_object()) {
    error = "workload: expected a JSON object";
    return std::nullopt;
  }
  const auto& o = doc.get_object();
  Workload w;
  if (const auto* n = o.if_contains("name"); n != nullptr && n->is_string()) {
    w.name = std::string(n->get_string());
  }
  Group nodes;
  Group init;
  Group measured;
  if (!readGroup(o, "nodes", scale, nodes, error) ||
      !readGroup(o, "initPods", scale, init, error) ||
      !readGroup(o, "measuredPods", scale, measured, error)) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < nodes.count; ++i) {
    std::string err;
    auto node = model::parseNode(boost::json::value(instance(nodes, i, true)), err);
    if (!node) {
      error = "nodes.template: " + err;
      return std::nullopt;
    }
    if (nodes.hasCsiNode) {
      auto csiNode = csiNodeFor(nodes, std::string(node->name()), error);
      if (csiNode == nullptr) {
        return std::nullopt;
      }
      w.objects.push_back(std::move(csiNode));
    }
    w.nodes.push_back(std::move(node));
  }
  for (auto [group, out, field] : {std::tuple{&init, &w.initPods, "initPods"},
                                   std::tuple{&measured, &w.measuredPods, "measuredPods"}}) {
    for (std::size_t i = 0; i < group->count; ++i) {
      std::string err;
      boost::json::object object = instance(*group, i, false);
      if (group->hasVolumes && !addVolumes(*group, i, field, object, w.objects, error)) {
        return std::nullopt;
      }
      auto pod = model::parsePod(boost::json::value(std::move(object)), err);
      if (!pod) {
        error = std::string(field) + ".template: " + err;
        return std::nullopt;
      }
      out->push_back(std::move(pod));
    }
  }
  return w;
}

}  // namespace sh::bench

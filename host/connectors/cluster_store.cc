#include "host/connectors/cluster_store.h"

#include <algorithm>
#include <array>

#include <boost/json/object.hpp>

#include "host/model/priority_admission.h"

namespace sh::connectors {

namespace {

using Type = ClusterChange::Type;

struct RawKind {
  std::string_view kind;
  bool namespaced;
};

constexpr std::array<RawKind, 7> kRawKinds = {{
    {"Namespace", false},
    {"PriorityClass", false},
    {"Service", true},
    {"ReplicaSet", true},
    {"StatefulSet", true},
    {"ReplicationController", true},
    {"PodDisruptionBudget", true},
}};

const RawKind* findRawKind(std::string_view kind) {
  for (const RawKind& k : kRawKinds) {
    if (k.kind == kind) {
      return &k;
    }
  }
  return nullptr;
}

std::string_view typeName(Type t) {
  switch (t) {
    case Type::kAdded:
      return "ADDED";
    case Type::kModified:
      return "MODIFIED";
    case Type::kDeleted:
      return "DELETED";
  }
  return "?";
}

std::string_view stringField(const boost::json::object& o, std::string_view key) {
  const boost::json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// How an object is named in messages: `pod ns/p`, `node "n1"`, `Service ns/s`.
std::string describe(std::string_view kind, std::string_view key) {
  if (kind == "Pod") {
    return "pod " + std::string(key);
  }
  if (kind == "Node") {
    return "node \"" + std::string(key) + "\"";
  }
  return std::string(kind) + " " + std::string(key);
}

// The common checks: the object exists for MODIFIED/DELETED; ADDED of an existing one is a
// modification. Returns false (and fills `r`) when the change is rejected.
bool checkExistence(Type& type, bool exists, std::string_view kind, std::string_view key,
                    ClusterStore::Result& r) {
  if (!exists && type != Type::kAdded) {
    r.rejected = true;
    r.warning =
        std::string(typeName(type)) + " of " + describe(kind, key) + ", which does not exist";
    return false;
  }
  if (exists && type == Type::kAdded) {
    r.warning = "ADDED of " + describe(kind, key) + ", which already exists; applied as MODIFIED";
    type = Type::kModified;
  }
  return true;
}

// Whether a pod manifest has spec.priority (null counts as unset, as parse_pod reads it).
bool hasPriority(const boost::json::value& pod) {
  const boost::json::object* o = pod.if_object();
  const boost::json::value* spec = o != nullptr ? o->if_contains("spec") : nullptr;
  const boost::json::object* so = spec != nullptr ? spec->if_object() : nullptr;
  const boost::json::value* priority = so != nullptr ? so->if_contains("priority") : nullptr;
  return priority != nullptr && !priority->is_null();
}

// Upstream admission on update: spec.priority and spec.preemptionPolicy, which the API
// server does not let change, carry over from the stored pod when the update leaves them out.
void keepPriority(boost::json::value& manifest, const model::Pod& stored) {
  boost::json::object* o = manifest.if_object();
  if (o == nullptr) {
    return;  // parse_pod reports it
  }
  boost::json::value* spec = o->if_contains("spec");
  if (spec == nullptr || spec->is_null()) {
    (*o)["spec"] = boost::json::object();
    spec = o->if_contains("spec");
  }
  boost::json::object* so = spec->if_object();
  if (so == nullptr) {
    return;
  }
  (*so)["priority"] = stored.view().priority;
  const boost::json::value* policy = so->if_contains("preemptionPolicy");
  if (policy == nullptr || policy->is_null()) {
    (*so)["preemptionPolicy"] =
        stored.view().preemption_policy == SH_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority";
  }
}

}  // namespace

bool isRawKind(std::string_view kind) { return findRawKind(kind) != nullptr; }

std::optional<PreparedChange> prepareChange(Type type, boost::json::value&& object,
                                            std::string& error, std::string_view text) {
  if (!object.is_object()) {
    error = "object: expected an object";
    return std::nullopt;
  }
  const boost::json::object& o = object.as_object();
  PreparedChange c;
  c.type = type;
  c.kind = stringField(o, "kind");
  if (c.kind.empty()) {
    error = "object has no kind";
    return std::nullopt;
  }
  const RawKind* raw = findRawKind(c.kind);
  // Any other kind is an object of a kind plugins may declare (ObjectStore), custom resources
  // included, known by its apiVersion and kind.
  const bool declarable = c.kind != "Pod" && c.kind != "Node" && raw == nullptr;
  if (declarable) {
    const std::string_view apiVersion = stringField(o, "apiVersion");
    if (apiVersion.empty()) {
      error = c.kind +
              ": apiVersion: required (an object of any kind but the built-in ones is "
              "known by its apiVersion and kind)";
      return std::nullopt;
    }
    c.apiKind = std::string(apiVersion) + "|" + c.kind;
  }
  const boost::json::value* meta = o.if_contains("metadata");
  std::string_view name;
  std::string_view ns;
  if (meta != nullptr && meta->is_object()) {
    name = stringField(meta->as_object(), "name");
    ns = stringField(meta->as_object(), "namespace");
  }
  bool namespaced =
      c.kind == "Pod" || (raw != nullptr && raw->namespaced) || (declarable && !ns.empty());
  if (namespaced && ns.empty()) {
    ns = "default";  // the API server's default, as parse_pod applies it
  }
  std::string key = namespaced ? podKey(ns, name) : std::string(name);
  if (name.empty()) {
    std::string what = c.kind == "Pod" ? "pod" : c.kind == "Node" ? "node" : c.kind;
    error = what + ": metadata.name: required";
    return std::nullopt;
  }
  c.key = std::move(key);
  if (type == Type::kDeleted) {
    return c;
  }
  std::string parseError;
  if (c.kind == "Pod") {
    if (!hasPriority(object)) {
      c.unadmitted = std::move(object);  // parsed once admitted
      return c;
    }
    c.pod = model::parsePod(object, parseError, text);
  } else if (c.kind == "Node") {
    c.node = model::parseNode(object, parseError);
  } else if (declarable) {
    c.object = StoredObject::parse(std::move(object), parseError, text.size());
    if (c.object == nullptr) {
      error = describe(c.kind, c.key) + ": " + parseError;
      return std::nullopt;
    }
    return c;
  } else {
    // Checked now, so a malformed object is rejected with its line and never stored.
    if (model::ClusterObjects::keeps(c.kind)) {
      model::ClusterObjects check;
      if (!check.add(object, parseError)) {
        error = describe(c.kind, c.key) + ": " + parseError;
        return std::nullopt;
      }
    }
    c.raw = std::make_shared<const boost::json::value>(std::move(object));
    return c;
  }
  if (c.pod == nullptr && c.node == nullptr) {
    error = describe(c.kind, c.key) + ": " + parseError;
    return std::nullopt;
  }
  return c;
}

bool admitPod(PreparedChange& c, const model::ClusterObjects* objects, const model::Pod* stored,
              std::string& error) {
  if (!c.unadmitted.has_value()) {
    return true;
  }
  boost::json::value manifest = std::move(*c.unadmitted);
  c.unadmitted.reset();
  std::string reason;
  if (stored != nullptr && stored->hasPriority()) {
    keepPriority(manifest, *stored);
  } else if (!model::admitPriority(manifest, objects, reason)) {
    error = describe(c.kind, c.key) + ": " + reason;
    return false;
  }
  c.pod = model::parsePod(manifest, reason);
  if (c.pod == nullptr) {
    error = describe(c.kind, c.key) + ": " + reason;
    return false;
  }
  return true;
}

ClusterStore::Result ClusterStore::apply(PreparedChange&& change) {
  if (change.kind == "Pod") {
    return applyPod(std::move(change));
  }
  if (change.kind == "Node") {
    return applyNode(std::move(change));
  }
  return applyRaw(std::move(change));
}

ClusterStore::Result ClusterStore::applyNode(PreparedChange&& c) {
  Result r;
  auto it = nodes_.find(c.key);
  if (!checkExistence(c.type, it != nodes_.end(), c.kind, c.key, r)) {
    return r;
  }
  ClusterChange out;
  out.type = c.type;
  out.kind = ClusterChange::Kind::kNode;
  if (it != nodes_.end()) {
    out.oldNode = it->second;
  }
  if (c.type == Type::kDeleted) {
    nodes_.erase(it);
  } else {
    out.curNode = c.node;
    nodes_[c.key] = std::move(c.node);
  }
  r.change = std::move(out);
  return r;
}

ClusterStore::Result ClusterStore::applyPod(PreparedChange&& c) {
  Result r;
  if (c.type != Type::kDeleted && c.pod == nullptr) {
    // The caller skipped admitPod(); storing an unparsed pod is never right.
    r.rejected = true;
    r.warning = describe(c.kind, c.key) + ": not admitted";
    return r;
  }
  auto it = pods_.find(c.key);
  bool exists = it != pods_.end();
  if (c.type != Type::kDeleted) {
    // The API server's identity rules: every pod has a uid of its own, and a name is taken
    // until its pod is deleted.
    const std::string_view uid = c.pod->uid();
    if (uid.empty()) {
      r.rejected = true;
      r.warning = describe(c.kind, c.key) + ": metadata.uid: required";
      return r;
    }
    if (exists && it->second->uid() != uid) {
      r.rejected = true;
      r.warning = describe(c.kind, c.key) + ": metadata.uid: \"" + std::string(uid) +
                  "\" is not the uid of the pod of this name, \"" + std::string(it->second->uid()) +
                  "\" (a name is taken until its pod is deleted)";
      return r;
    }
    if (auto owner = uidKeys_.find(uid); owner != uidKeys_.end() && owner->second != c.key) {
      r.rejected = true;
      r.warning = describe(c.kind, c.key) + ": metadata.uid: \"" + std::string(uid) +
                  "\" is already the uid of pod " + owner->second + " (a uid is unique)";
      return r;
    }
  }
  if (c.type != Type::kDeleted && !c.pod->nodeName().empty() &&
      nodes_.count(std::string(c.pod->nodeName())) == 0) {
    r.rejected = true;
    r.warning = describe(c.kind, c.key) + ": spec.nodeName: node \"" +
                std::string(c.pod->nodeName()) + "\" not found";
    return r;
  }
  if (exists && c.type != Type::kDeleted) {
    // The API server refuses this too: spec.nodeName is immutable once set.
    std::string_view was = it->second->nodeName();
    if (!was.empty() && c.pod->nodeName() != was) {
      r.rejected = true;
      r.warning = describe(c.kind, c.key) + ": spec.nodeName: may not change from \"" +
                  std::string(was) + "\" to \"" + std::string(c.pod->nodeName()) + "\" once set";
      return r;
    }
  }
  if (!checkExistence(c.type, exists, c.kind, c.key, r)) {
    return r;
  }
  ClusterChange out;
  out.type = c.type;
  out.kind = ClusterChange::Kind::kPod;
  if (exists) {
    out.oldPod = it->second;
  }
  if (c.type == Type::kDeleted) {
    uidKeys_.erase(std::string(it->second->uid()));
    pods_.erase(it);
  } else {
    out.curPod = c.pod;
    uidKeys_.emplace(std::string(c.pod->uid()), c.key);
    pods_[c.key] = std::move(c.pod);
  }
  r.change = std::move(out);
  return r;
}

ClusterStore::Result ClusterStore::applyObject(PreparedChange&& c) {
  Result r;
  auto& objects = objects_[c.apiKind];
  auto it = objects.find(c.key);
  if (!checkExistence(c.type, it != objects.end(), c.kind, c.key, r)) {
    return r;
  }
  ClusterChange out;
  out.type = c.type;
  out.kind = ClusterChange::Kind::kObject;
  out.objectKind = ClusterChange::kByApiKind;
  if (c.type == Type::kDeleted) {
    out.object = it->second;
    objects.erase(it);
  } else {
    out.object = c.object;
    objects[c.key] = std::move(c.object);
  }
  r.change = std::move(out);
  return r;
}

ClusterStore::Result ClusterStore::applyRaw(PreparedChange&& c) {
  if (!c.apiKind.empty()) {
    return applyObject(std::move(c));
  }
  Result r;
  auto& objects = raw_[c.kind];
  auto it = objects.find(c.key);
  if (!checkExistence(c.type, it != objects.end(), c.kind, c.key, r)) {
    return r;
  }
  if (c.type == Type::kDeleted) {
    objects.erase(it);
  } else {
    objects[c.key] = std::move(c.raw);
  }
  ++rawGeneration_;
  return r;
}

ObjectPtr ClusterStore::object(std::string_view apiKind, std::string_view key) const {
  auto kind = objects_.find(apiKind);
  if (kind == objects_.end()) {
    return nullptr;
  }
  auto it = kind->second.find(key);
  return it == kind->second.end() ? nullptr : it->second;
}

std::shared_ptr<const model::Pod> ClusterStore::pod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second;
}

std::shared_ptr<const model::Node> ClusterStore::node(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : it->second;
}

void ClusterStore::replacePod(const std::string& key, std::shared_ptr<const model::Pod> pod) {
  pods_[key] = std::move(pod);
}

std::shared_ptr<const model::Pod> ClusterStore::erasePod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return nullptr;
  }
  std::shared_ptr<const model::Pod> pod = std::move(it->second);
  pods_.erase(it);
  uidKeys_.erase(std::string(pod->uid()));
  return pod;
}

namespace {

// The values of `objects`, ordered by key.
template <typename Map>
auto sortedValues(const Map& objects) {
  std::vector<std::pair<std::string_view, typename Map::mapped_type>> found(objects.begin(),
                                                                            objects.end());
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<typename Map::mapped_type> out;
  out.reserve(found.size());
  for (auto& [key, object] : found) {
    out.push_back(std::move(object));
  }
  return out;
}

}  // namespace

std::vector<std::shared_ptr<const model::Node>> ClusterStore::nodes() const {
  return sortedValues(nodes_);
}

std::vector<std::shared_ptr<const model::Pod>> ClusterStore::pods() const {
  return sortedValues(pods_);
}

std::vector<std::shared_ptr<const model::Pod>> ClusterStore::podsOnNode(
    std::string_view name) const {
  std::vector<std::pair<std::string, std::shared_ptr<const model::Pod>>> found;
  for (const auto& [key, pod] : pods_) {
    if (pod->nodeName() == name) {
      found.emplace_back(key, pod);
    }
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::shared_ptr<const model::Pod>> out;
  out.reserve(found.size());
  for (auto& [key, pod] : found) {
    out.push_back(std::move(pod));
  }
  return out;
}

std::vector<std::shared_ptr<const boost::json::value>> ClusterStore::objectsOfKind(
    std::string_view kind) const {
  std::vector<std::shared_ptr<const boost::json::value>> out;
  auto it = raw_.find(kind);
  if (it != raw_.end()) {
    for (const auto& [key, object] : it->second) {
      out.push_back(object);
    }
  }
  return out;
}

}  // namespace sh::connectors

// The embedded cluster's objects: nodes by name, pods by namespace/name, and the other kinds a
// scheduler watches kept as raw JSON. Not thread-safe: EmbeddedCluster guards it.
//
// A change goes in two steps, three for a pod without spec.priority. prepareChange() parses
// the object (the slow part, done outside any lock); admitPod() resolves such a pod's
// priority as the API server's admission would, then parses it; apply() checks the change
// against what is stored and stores it:
//
//   ADDED    of a new object      -> stored, kAdded
//            of an existing one   -> stored, kModified, with a warning (not rejected)
//   MODIFIED of an existing one   -> stored, kModified
//   DELETED  of an existing one   -> removed, kDeleted
//   MODIFIED/DELETED of a missing object, a pod whose spec.nodeName names a missing node,
//   or one that changes a pod's spec.nodeName once set
//                                 -> rejected with a warning, nothing changes
//   a pod without metadata.uid, with the uid of another stored pod, or with another uid than
//   the stored pod of its name (upstream's identity rules: a uid is unique, and a name is
//   taken until its pod is deleted)
//                                 -> rejected with a warning, nothing changes
//
// Nodes and pods produce a ClusterChange; so does every object of another kind than the raw
// ones below (a kObject change known by apiVersion and kind, for the ObjectStore: custom
// resources, PersistentVolumeClaims, ...). The raw kinds are stored silently.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/json/value.hpp>

#include "host/connectors/connector.h"
#include "host/model/pod_key.h"

namespace sh::connectors {

// The kinds kept as raw JSON for later use (scheduling plugins that need them).
bool isRawKind(std::string_view kind);

// A parsed change of one object, ready for ClusterStore::apply() once it needs no admission.
struct PreparedChange {
  ClusterChange::Type type = ClusterChange::Type::kAdded;
  std::string kind;  // "Pod", "Node" or a raw kind
  std::string key;   // "namespace/name" for namespaced kinds, the name otherwise
  std::shared_ptr<const model::Node> node;        // kNode, unless deleted
  std::shared_ptr<const model::Pod> pod;          // kPod, unless deleted or still to admit
  std::shared_ptr<const boost::json::value> raw;  // raw kinds, unless deleted
  // Any other kind: "apiVersion|kind", and the object unless deleted.
  std::string apiKind;
  ObjectPtr object;
  // A pod without spec.priority: the manifest, which admitPod() takes through priority
  // admission and parses into `pod`.
  std::optional<boost::json::value> unadmitted;

  bool needsAdmission() const { return unadmitted.has_value(); }
};

// Parses `object` (one change of type `type`). For a deletion only the kind and the name are
// read. A pod that has spec.priority is parsed here; one without is left for admitPod(). A
// raw kind that ClusterObjects reads is checked here as ClusterObjects will read it. nullopt
// with `error` set when the object cannot be used: no or unsupported kind, no name, or (not
// for deletions) a pod, node or raw object that does not parse. `text`, when not empty, is
// `object` as JSON text; a pod keeps it as its manifest (see model::parsePod).
std::optional<PreparedChange> prepareChange(ClusterChange::Type type, boost::json::value&& object,
                                            std::string& error, std::string_view text = {});

// Completes a pod change that needsAdmission(): the API server's priority admission, then
// parsing. On create it resolves the class against `objects` (may be null) and the system
// classes; when `stored` (the pod now stored under the same key, may be null) has a priority,
// the change is an update and keeps that priority and preemption policy, as upstream's
// admission does on update. False with `error` set ("pod ns/p: spec.priorityClassName: no
// PriorityClass with name x was found", or a parse error) when the pod cannot be used.
bool admitPod(PreparedChange& change, const model::ClusterObjects* objects,
              const model::Pod* stored, std::string& error);

class ClusterStore {
 public:
  struct Result {
    std::optional<ClusterChange> change;  // for nodes and pods, unless rejected
    std::string warning;                  // empty when there is nothing to say
    bool rejected = false;                // the change was not applied
  };

  Result apply(PreparedChange&& change);

  std::shared_ptr<const model::Pod> pod(const std::string& key) const;
  std::shared_ptr<const model::Node> node(const std::string& name) const;
  // The stored object of another kind ("apiVersion|kind", key); nullptr when none.
  ObjectPtr object(std::string_view apiKind, std::string_view key) const;
  // Replaces a stored pod (binding, status). The pod must exist, with the same uid.
  void replacePod(const std::string& key, std::shared_ptr<const model::Pod> pod);
  // Removes a stored pod and returns it (null when there was none).
  std::shared_ptr<const model::Pod> erasePod(const std::string& key);

  // Pods with spec.nodeName == `name`, by key. A scan over every pod.
  std::vector<std::shared_ptr<const model::Pod>> podsOnNode(std::string_view name) const;
  // The stored objects of a raw kind, by key.
  std::vector<std::shared_ptr<const boost::json::value>> objectsOfKind(std::string_view kind) const;
  // Every stored node, ordered by name, and every stored pod, ordered by key.
  std::vector<std::shared_ptr<const model::Node>> nodes() const;
  std::vector<std::shared_ptr<const model::Pod>> pods() const;
  // Bumped by every change of a raw kind.
  uint64_t rawGeneration() const { return rawGeneration_; }
  std::size_t podCount() const { return pods_.size(); }
  std::size_t nodeCount() const { return nodes_.size(); }

 private:
  Result applyNode(PreparedChange&& change);
  Result applyPod(PreparedChange&& change);
  Result applyRaw(PreparedChange&& change);
  Result applyObject(PreparedChange&& change);

  std::unordered_map<std::string, std::shared_ptr<const model::Node>> nodes_;
  std::unordered_map<std::string, std::shared_ptr<const model::Pod>> pods_;
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // uid -> key of every stored pod.
  std::unordered_map<std::string, std::string, StringHash, std::equal_to<>> uidKeys_;
  // kind -> key -> object
  std::map<std::string, std::map<std::string, std::shared_ptr<const boost::json::value>>,
           std::less<>>
      raw_;
  uint64_t rawGeneration_ = 0;
  // "apiVersion|kind" -> key -> object, for the kinds plugins may declare
  std::map<std::string, std::map<std::string, ObjectPtr, std::less<>>, std::less<>> objects_;
};

// "namespace/name", the key of a pod.
using model::podKey;

}  // namespace sh::connectors

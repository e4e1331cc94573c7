// ObjectStore: the one place that holds cluster objects of any kind besides pods and nodes —
// the kinds plugins declare in their descriptors (sh_object_kind), custom resources included —
// for both connectors: the embedded cluster feeds it from files and stdin, the Kubernetes
// connector from one list+watch per declared kind.
//
//   kinds      a declared kind is registered once per (group, version, resource, selectors),
//              however many plugins and profiles declare it; its id is its index, stable for
//              the life of the process (kinds are never removed: a kind no plugin uses any
//              more just stops being read).
//   objects    each parsed once into a StoredObject (the sh_object view, labels interned, the
//              JSON tree kept for the json_* services), indexed by namespace and name.
//   versions   an immutable KindVersion per kind, rebuilt on first read after a change: a
//              scheduling cycle takes one ObjectSnapshot (the current version of every kind) so
//              that every plugin of the cycle reads the same objects; a list returns a slice
//              of the version's array, nothing copied.
//   assumed    upstream's assume cache (pkg/scheduler/util/assumecache): an assumed version
//              of an object hides the stored one in every read until a newer resourceVersion
//              is stored or the plugin restores it.
//
// Thread-safe. apply() comes from the scheduler's event loop; reads and assume/restore from
// any thread.
#pragma once

#include <schedhost/plugin.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/value.hpp>

#include "host/common/status.h"
#include "host/connectors/label_selector_text.h"
#include "host/connectors/object_write.h"

namespace sh::connectors {

// A kind of object as a plugin declares it and the API serves it.
struct ObjectKind {
  std::string group;     // "" for the core group
  std::string version;   // "v1alpha1"
  std::string resource;  // "podgroups"
  std::string kind;      // "PodGroup"
  bool namespaced = true;
  std::string labelSelector;  // "" when none
  std::string fieldSelector;  // "" when none

  // "scheduling.x-k8s.io/v1alpha1", or "v1" for the core group.
  std::string apiVersion() const;
  // Upstream's name of a resource in events and metrics: "podgroups.v1alpha1.scheduling.x-k8s.io"
  // ("persistentvolumes" alone for the core group's well-known kinds).
  std::string resourceName() const;
  // The collection's path: /api/v1/<resource> or /apis/<group>/<version>/<resource>, with
  // /namespaces/<ns> before the resource when `ns` is not empty.
  std::string path(std::string_view ns = {}) const;
  // What identifies one watch: resource, version, group and the selectors.
  std::string watchKey() const;
  // "PodGroup (podgroups.v1alpha1.scheduling.x-k8s.io)" for messages, with the selectors.
  std::string describe() const;
};

// The resource of the cluster events of kind `id` (queue::ClusterEvent::resource): the ABI's
// named resource when the kind is one (core/v1 persistentvolumes is
// SH_RESOURCE_PERSISTENT_VOLUME, storage.k8s.io storageclasses SH_RESOURCE_STORAGE_CLASS, ...),
// else kObjectEventResourceBase + id. Upstream labels the events of a custom resource with its
// resourceName(): "podgroups.v1alpha1.scheduling.x-k8s.ioAdd".
inline constexpr int32_t kObjectEventResourceBase = 0x20000;
int32_t eventResourceOf(const ObjectKind& kind, std::size_t id);

// Checks a declared kind as sh_object_kind documents it; "" when it is fine, else the cause
// ("group \"Foo_\": not a DNS subdomain").
std::string checkKind(const ObjectKind& kind);

// Objects per kind and the size of one object the store accepts (docs/limits.md).
inline constexpr std::size_t kMaxObjectsPerKind = 1'000'000;
inline constexpr std::size_t kMaxObjectBytes = 3 * 1024 * 1024;

// One object, parsed once and never changed.
class StoredObject {
 public:
  // Parses `object`. nullptr with `error` set when it is not an object, has no metadata.name,
  // or its labels, timestamps or resourceVersion are malformed. `bytes`, when known, is the
  // size of its JSON text (checked against kMaxObjectBytes).
  static std::shared_ptr<const StoredObject> parse(boost::json::value object, std::string& error,
                                                   std::size_t bytes = 0);
  StoredObject(const StoredObject&) = delete;
  StoredObject& operator=(const StoredObject&) = delete;

  const sh_object& view() const { return view_; }
  const boost::json::value& json() const { return json_; }
  std::string_view ns() const { return {view_.namespace_.ptr, view_.namespace_.len}; }
  std::string_view name() const { return {view_.name.ptr, view_.name.len}; }
  // "namespace/name", or the name of a cluster-scoped object.
  const std::string& key() const { return key_; }
  // metadata.resourceVersion as a number (0 when empty; the API's versions are integers).
  uint64_t resourceVersion() const { return rv_; }
  // A copy flagged as assumed (sh_object.assumed = 1).
  std::shared_ptr<const StoredObject> asAssumed() const;

 private:
  StoredObject() = default;
  void fillView();

  boost::json::value json_;
  std::string apiVersion_, kind_, ns_, name_, uid_, rvText_, key_;
  std::vector<sh_label> labels_;
  uint64_t rv_ = 0;
  sh_object view_{};
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

// The objects of one kind at one moment, sorted by (namespace, name), with a hash index by
// key: plugins look objects up by name once per node and cycle, so find() is one hash and
// one comparison, not a binary search of string comparisons.
class KindVersion {
 public:
  // `stamp` names this version (ObjectStore: unique within the process; 0 names none).
  explicit KindVersion(std::vector<ObjectPtr> objects, uint64_t stamp = 0);
  std::size_t size() const { return objects_.size(); }
  uint64_t stamp() const { return stamp_; }
  // The object `ns`/`name`; nullptr when absent.
  const StoredObject* find(std::string_view ns, std::string_view name) const;
  // Every view, or those of one namespace: a slice of one array.
  const sh_object* const* all(std::size_t& count) const;
  const sh_object* const* inNamespace(std::string_view ns, std::size_t& count) const;
  const std::vector<ObjectPtr>& objects() const { return objects_; }

 private:
  std::vector<ObjectPtr> objects_;
  std::vector<const sh_object*> views_;
  // Open addressing over objects_: index + 1 per slot (0 empty), a power-of-two size at least
  // twice the object count.
  std::vector<uint32_t> slots_;
  uint64_t stamp_ = 0;
};
using KindVersionPtr = std::shared_ptr<const KindVersion>;

// The current version of every kind, taken for one scheduling cycle.
struct ObjectSnapshot {
  std::vector<KindVersionPtr> kinds;  // by kind id
};

// What one change did to one kind: the event a plugin's EnqueueExtensions hear about.
struct ObjectEvent {
  std::size_t kind = 0;
  uint32_t action = 0;  // SH_ACTION_ADD, SH_ACTION_UPDATE or SH_ACTION_DELETE
  ObjectPtr oldObject;  // null for Add
  ObjectPtr newObject;  // null for Delete
};

class ObjectStore {
 public:
  ObjectStore() = default;
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // Registers a kind `plugin` declared and returns its id; the same watch key gives the same
  // id. The kind must pass checkKind() and its selectors must parse (throws
  // std::invalid_argument naming the cause otherwise). `verbs` (SH_VERB_*) and the plugins
  // accumulate over every declaration.
  std::size_t addKind(const ObjectKind& kind, uint32_t verbs = 0, std::string_view plugin = {});
  struct KindInfo {
    ObjectKind spec;
    uint32_t verbs = 0;                // the union of the declared verbs
    std::vector<std::string> plugins;  // the plugins that declared it, sorted, once each
  };
  // Every kind registered so far, by id.
  std::vector<KindInfo> kinds() const;
  // One kind as declared; nullopt for an unknown id.
  std::optional<ObjectKind> kind(std::size_t id) const;
  std::size_t kindCount() const;
  // Called whenever a kind is added (the Kubernetes connector starts its watch); called at
  // once for every kind already registered.
  void onKindAdded(std::function<void(std::size_t id, const ObjectKind&)> fn);
  // Marks a kind the cluster does not serve (no CustomResourceDefinition): reads see it empty.
  void markNotServed(std::size_t kind, std::string why);
  std::optional<std::string> notServed(std::size_t kind) const;

  // A change from a watch of kind `kind` (the Kubernetes connector: one watch per kind).
  // `object` is the new object (for a deletion, the last one). Appends the event it makes to
  // `events` (none when it changed nothing, or when a stored version is newer: a stale
  // update is dropped as the assume cache does). Deleting an object drops its assumed version.
  void apply(std::size_t kind, bool deleted, const ObjectPtr& object,
             std::vector<ObjectEvent>& events);
  // A change of an object identified by its apiVersion and kind (the embedded cluster, a
  // scenario): applied to every registered kind with that apiVersion and kind, as a watch
  // with the kind's selectors would see it (an update that leaves a kind's selectors is a
  // deletion there, one that enters them an addition). Objects of kinds no plugin declared are
  // kept too, so that a kind declared later (a reloaded profile) finds them.
  void applyByKind(bool deleted, const ObjectPtr& object, std::vector<ObjectEvent>& events);
  // Replaces the whole content of kind `kind` (a relist), producing the events of the
  // difference.
  void replace(std::size_t kind, const std::vector<ObjectPtr>& objects,
               std::vector<ObjectEvent>& events);

  // The current version of one kind or of all; nullptr for an unknown kind.
  KindVersionPtr version(std::size_t kind) const;
  std::shared_ptr<const ObjectSnapshot> snapshot() const;
  // The number naming what a read of kind `kind` returns when it reads `version` (one of the
  // kind's versions, or nullptr for the current one) with the assumed objects of now laid
  // over it (object_kind_version): the version's stamp when nothing is assumed, else a number
  // for the pair. Never reused within the process; 0 for an unknown kind.
  uint64_t readVersion(std::size_t kind, const KindVersion* version) const;
  // Bumped by every change of any kind (and every assume/restore).
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // -- the assume cache -------------------------------------------------------------------
  // Assumes `object` in place of the stored object of the same key; an Error status naming the
  // kind and object when there is no such object or the stored one is newer.
  Status assume(std::size_t kind, const ObjectPtr& object);
  void restore(std::size_t kind, std::string_view key);
  // The assumed version of `key`; nullptr when none. Cheap when the kind has none.
  ObjectPtr assumed(std::size_t kind, std::string_view key) const;
  bool hasAssumed(std::size_t kind) const;
  // Every assumed object of `kind`, by key.
  std::map<std::string, ObjectPtr, std::less<>> assumedOf(std::size_t kind) const;

 private:
  struct Kind {
    ObjectKind spec;
    uint32_t verbs = 0;
    std::vector<std::string> plugins;
    LabelSelectorText labels;
    FieldSelectorText fields;
    std::map<std::string, ObjectPtr, std::less<>> objects;  // by key
    std::map<std::string, ObjectPtr, std::less<>> assumed;  // by key
    std::atomic<bool> anyAssumed{false};
    mutable KindVersionPtr version;  // null when stale
    uint64_t assumedStamp = 0;       // names the assumed set; 0 when it is empty
    // readVersion's last pair (version stamp, assumed stamp) and the number it was given.
    mutable uint64_t pairVersion = 0, pairAssumed = 0, pairNumber = 0;
    std::optional<std::string> notServed;
    uint64_t refused = 0;  // objects beyond kMaxObjectsPerKind
  };
  bool selected(const Kind& k, const StoredObject& o) const;
  void applyLocked(std::size_t id, Kind& k, bool deleted, const ObjectPtr& object,
                   std::vector<ObjectEvent>& events);
  KindVersionPtr versionLocked(Kind& k) const;
  void refreshAssumedLocked(Kind& k);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Kind>> kinds_;
  std::map<std::string, std::size_t, std::less<>> byWatchKey_;
  // Every object the embedded cluster delivered, by "apiVersion|kind" then key, for kinds
  // declared later.
  std::map<std::string, std::map<std::string, ObjectPtr, std::less<>>, std::less<>> byApiKind_;
  std::vector<std::function<void(std::size_t, const ObjectKind&)>> kindListeners_;
  std::atomic<uint64_t> generation_{0};
  mutable uint64_t stamps_ = 0;          // the last stamp given (versions, assumed sets, pairs)
  std::atomic<bool> anyAssumed_{false};  // any kind has an assumed object
};

}  // namespace sh::connectors

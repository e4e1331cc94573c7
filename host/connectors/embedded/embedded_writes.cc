// EmbeddedCluster::writeObject: the writes plugins make to objects of their declared kinds,
// applied to the embedded cluster as the API server applies them (a status subresource: the
// main resource's writes keep the stored status, and the status writes change nothing else).
#include <atomic>
#include <map>
#include <string>
#include <utility>

#include <boost/json.hpp>

#include "host/common/quoted.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "host/connectors/json_patch.h"
#include "host/connectors/object_file.h"
#include "host/connectors/object_write.h"
#include "host/connectors/pod_patch.h"
#include "host/connectors/pv_controller.h"

namespace sh::connectors {
namespace {

using Type = ClusterChange::Type;

// How the API server names an object in its errors: `podgroups.scheduling.x-k8s.io "pg-1"`.
std::string apiName(const ObjectKind& kind, const std::string& name) {
  return kind.resource + (kind.group.empty() ? "" : "." + kind.group) + " " + quoted(name);
}

std::atomic<uint64_t> nextUid{1};

boost::json::object& metadataOf(boost::json::value& v) {
  boost::json::object& o = v.as_object();
  boost::json::value& m = o["metadata"];
  if (!m.is_object()) {
    m = boost::json::object();
  }
  return m.as_object();
}

// The embedded cluster's objects as the PV controller's emulation reads them.
class EmbeddedPvWorld : public PvWorld {
 public:
  explicit EmbeddedPvWorld(const ClusterStore& store) : store_(store) {}
  const boost::json::value* claim(std::string_view ns, std::string_view name) const override {
    return json(store_.object(kClaimKind, std::string(ns) + "/" + std::string(name)));
  }
  const boost::json::value* volume(std::string_view name) const override {
    return json(store_.object(kVolumeKind, name));
  }
  const boost::json::value* storageClass(std::string_view name) const override {
    return json(store_.object("storage.k8s.io/v1|StorageClass", name));
  }
  bool nodeLabels(std::string_view name,
                  std::map<std::string, std::string, std::less<>>& out) const override {
    std::shared_ptr<const model::Node> node = store_.node(std::string(name));
    if (node == nullptr) {
      return false;
    }
    const sh_node& view = node->view();
    for (uint32_t i = 0; i < view.label_count; ++i) {
      const sh_label& l = view.labels[i];
      out.emplace(std::string(l.key_str.ptr, l.key_str.len),
                  std::string(l.value_str.ptr, l.value_str.len));
    }
    return true;
  }

  static constexpr std::string_view kVolumeKind = "v1|PersistentVolume";
  static constexpr std::string_view kClaimKind = "v1|PersistentVolumeClaim";

 private:
  // Objects stay alive while the store holds them, and the store does not change while the
  // emulation reads it (under mu_).
  const boost::json::value* json(const ObjectPtr& o) const {
    return o == nullptr ? nullptr : &o->json();
  }
  const ClusterStore& store_;
};

}  // namespace

Status EmbeddedCluster::writeObject(const ObjectKind& kind, const ObjectWrite& w) {
  std::lock_guard<std::mutex> lock(mu_);
  ObjectPtr written;
  Status s = writeObjectLocked(kind, w, written);
  if (!s.ok() || written == nullptr || !pvController_ || !kind.group.empty()) {
    return s;
  }
  if (kind.kind == "PersistentVolume" || kind.kind == "PersistentVolumeClaim") {
    runPvControllerLocked(*written, kind.kind == "PersistentVolume");
  }
  return s;
}

void EmbeddedCluster::runPvControllerLocked(const StoredObject& written, bool isVolume) {
  // Each write the emulation makes can call for another (a provisioned volume is then bound);
  // a claim and its volume take at most three.
  std::vector<std::pair<boost::json::value, bool>> pending{{written.json(), isVolume}};
  for (int round = 0; round < 4 && !pending.empty(); ++round) {
    std::vector<std::pair<boost::json::value, bool>> next;
    for (const auto& [object, volume] : pending) {
      for (PvControllerWrite& w : reconcileAfterWrite(object, volume, EmbeddedPvWorld(store_))) {
        const bool isPv = w.kind == PvControllerWrite::Kind::kVolume;
        const std::string_view apiKind =
            isPv ? EmbeddedPvWorld::kVolumeKind : EmbeddedPvWorld::kClaimKind;
        ObjectPtr stored = storeAsControllerLocked(apiKind, std::move(w.object), w.create);
        if (stored != nullptr && w.create) {
          next.emplace_back(stored->json(), isPv);
        }
      }
    }
    pending = std::move(next);
  }
}

ObjectPtr EmbeddedCluster::storeAsControllerLocked(std::string_view apiKind,
                                                   boost::json::value object, bool create) {
  boost::json::object& meta = metadataOf(object);
  const std::string ns = meta.contains("namespace") && meta["namespace"].is_string()
                             ? std::string(meta["namespace"].as_string())
                             : std::string();
  const std::string name = meta.contains("name") && meta["name"].is_string()
                               ? std::string(meta["name"].as_string())
                               : std::string();
  const std::string key = ns.empty() ? name : ns + "/" + name;
  ObjectPtr stored = store_.object(apiKind, key);
  if (create == (stored != nullptr)) {
    return nullptr;  // created meanwhile, or gone
  }
  if (create) {
    meta["uid"] = "embedded-" + std::to_string(nextUid.fetch_add(1));
    meta["creationTimestamp"] = rfc3339Now();
    meta["resourceVersion"] = "1";
  } else {
    meta["resourceVersion"] = std::to_string(stored->resourceVersion() + 1);
  }
  std::string error;
  PreparedChange change;
  change.type = create ? Type::kAdded : Type::kModified;
  change.kind = apiKind.substr(apiKind.find('|') + 1);
  change.apiKind = std::string(apiKind);
  change.object = StoredObject::parse(std::move(object), error);
  if (change.object == nullptr) {
    return nullptr;
  }
  change.key = change.object->key();
  ObjectPtr out = change.object;
  ClusterStore::Result r = store_.apply(std::move(change));
  if (r.rejected || !r.change) {
    return nullptr;
  }
  r.change->source = "pv-controller";
  pushLocked(std::move(*r.change));
  return out;
}

Status EmbeddedCluster::writeObjectLocked(const ObjectKind& kind, const ObjectWrite& w,
                                          ObjectPtr& written) {
  const std::string apiKind = kind.apiVersion() + "|" + kind.kind;
  const std::string key = w.ns.empty() ? w.name : w.ns + "/" + w.name;
  ObjectPtr stored = w.name.empty() ? nullptr : store_.object(apiKind, key);
  if (w.verb != SH_VERB_CREATE && stored == nullptr) {
    return Status::error(apiName(kind, w.name) + " not found");
  }
  boost::json::value next;
  Type type = Type::kModified;
  if (w.verb == SH_VERB_DELETE) {
    type = Type::kDeleted;
  } else {
    boost::system::error_code ec;
    boost::json::value body = boost::json::parse(w.body, ec, {}, jsonParseOptions());
    if (ec) {
      return Status::error("the body of " + w.describe(kind) + " is not JSON: " + ec.message());
    }
    // The API server serves strategic merge patches for its built-in kinds only (415 for a
    // custom resource); built-in groups are the core group, one-word groups and *.k8s.io.
    const bool builtIn = kind.group.find('.') == std::string::npos ||
                         (kind.group.size() > 7 && kind.group.ends_with(".k8s.io"));
    if (w.patchType == SH_PATCH_STRATEGIC_MERGE && !builtIn) {
      return Status::error(w.describe(kind) +
                           ": the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml");
    }
    const bool patch = w.verb == SH_VERB_PATCH ||
                       (w.verb == SH_VERB_UPDATE_STATUS && w.patchType != SH_PATCH_NONE);
    if (w.verb == SH_VERB_CREATE) {
      if (stored != nullptr || (!w.name.empty() && store_.object(apiKind, key) != nullptr)) {
        return Status::error(apiName(kind, w.name) + " already exists");
      }
      next = std::move(body);
      if (!next.is_object()) {
        return Status::error("the body of " + w.describe(kind) + " is not an object");
      }
      next.as_object()["apiVersion"] = kind.apiVersion();
      next.as_object()["kind"] = kind.kind;
      boost::json::object& meta = metadataOf(next);
      meta["name"] = w.name;
      if (kind.namespaced) {
        meta["namespace"] = w.ns;
      }
      if (w.name.empty()) {
        return Status::error(w.describe(kind) + ": metadata.name: required");
      }
      meta["uid"] = "embedded-" + std::to_string(nextUid.fetch_add(1));
      meta["creationTimestamp"] = rfc3339Now();
      meta["resourceVersion"] = "1";
      type = Type::kAdded;
    } else {
      next = stored->json();
      if (patch) {
        std::string error;
        bool ok = true;
        switch (w.patchType) {
          case SH_PATCH_MERGE:
            applyMergePatch(next, body);
            break;
          case SH_PATCH_JSON:
            ok = applyJsonPatch(next, body, error);
            break;
          case SH_PATCH_STRATEGIC_MERGE:
            ok = applyStrategicMergePatch(next, body, error);
            break;
          default:
            ok = false;
            error = "no patch type";
            break;
        }
        if (!ok) {
          return Status::error(w.describe(kind) + ": " + error);
        }
      } else {
        // A PUT: the object's resourceVersion, when it has one, must be the stored one.
        const boost::json::value* rv =
            body.is_object() ? body.as_object().if_contains("metadata") : nullptr;
        rv = rv != nullptr && rv->is_object() ? rv->as_object().if_contains("resourceVersion")
                                              : nullptr;
        if (rv != nullptr && rv->is_string() && !rv->as_string().empty() &&
            std::string_view(rv->as_string()) !=
                std::string_view(stored->view().resource_version.ptr,
                                 stored->view().resource_version.len)) {
          return Status::error("Operation cannot be fulfilled on " + apiName(kind, w.name) +
                               ": the object has been modified; please apply your changes to "
                               "the latest version and try again");
        }
        next = std::move(body);
      }
      if (!next.is_object()) {
        return Status::error(w.describe(kind) + ": the result is not an object");
      }
      // The status subresource's rule: one side changes status, the other everything else.
      const boost::json::object& old = stored->json().as_object();
      boost::json::object& cur = next.as_object();
      if (w.verb == SH_VERB_UPDATE_STATUS) {
        boost::json::value status = cur.contains("status") ? cur["status"] : boost::json::value();
        next = stored->json();
        if (status.is_null()) {
          next.as_object().erase("status");
        } else {
          next.as_object()["status"] = std::move(status);
        }
      } else if (const boost::json::value* st = old.if_contains("status")) {
        cur["status"] = *st;
      } else {
        cur.erase("status");
      }
      // Identity is the stored object's.
      boost::json::object& meta = metadataOf(next);
      const boost::json::object& oldMeta = old.at("metadata").as_object();
      for (const char* field : {"name", "namespace", "uid", "creationTimestamp"}) {
        if (const boost::json::value* f = oldMeta.if_contains(field)) {
          meta[field] = *f;
        } else {
          meta.erase(field);
        }
      }
      next.as_object()["apiVersion"] = kind.apiVersion();
      next.as_object()["kind"] = kind.kind;
      meta["resourceVersion"] = std::to_string(stored->resourceVersion() + 1);
    }
  }
  PreparedChange change;
  change.type = type;
  change.kind = kind.kind;
  change.key = key;
  change.apiKind = apiKind;
  if (type != Type::kDeleted) {
    std::string error;
    change.object = StoredObject::parse(std::move(next), error);
    if (change.object == nullptr) {
      return Status::error(w.describe(kind) + ": " + error);
    }
    change.key = change.object->key();
  }
  written = change.object;
  ClusterStore::Result r = store_.apply(std::move(change));
  if (r.rejected || !r.change) {
    written = nullptr;
    return Status::error(w.describe(kind) + ": " + r.warning);
  }
  r.change->source = "write";
  pushLocked(std::move(*r.change));
  return Status::success();
}

}  // namespace sh::connectors

// EmbeddedCluster::writeObject: the writes plugins make to objects of their declared kinds,
// applied to the embedded cluster as the API server applies them (a status subresource: the
// main resource's writes keep the stored status, and the status writes change nothing else).
#include <atomic>
#include <string>
#include <utility>

#include <boost/json.hpp>

#include "host/common/quoted.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "host/connectors/json_patch.h"
#include "host/connectors/object_file.h"
#include "host/connectors/object_write.h"
#include "host/connectors/pod_patch.h"

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

}  // namespace

Status EmbeddedCluster::writeObject(const ObjectKind& kind, const ObjectWrite& w) {
  const std::string apiKind = kind.apiVersion() + "|" + kind.kind;
  const std::string key = w.ns.empty() ? w.name : w.ns + "/" + w.name;
  std::lock_guard<std::mutex> lock(mu_);
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
  ClusterStore::Result r = store_.apply(std::move(change));
  if (r.rejected || !r.change) {
    return Status::error(w.describe(kind) + ": " + r.warning);
  }
  r.change->source = "write";
  pushLocked(std::move(*r.change));
  return Status::success();
}

}  // namespace sh::connectors

// The test API server: the store, its history and watchers (under one mutex, so that a watch's
// replay and its live events never leave a gap), the router that turns a request into a store
// operation, and the connections (a Session per connection, templated on plain TCP or TLS).
// A watch response is written by hand: the header, then one HTTP chunk per event line (or per
// random piece with watchChunkMax), then the terminating chunk when it ends cleanly.
#include "tests/kube/support/fake_apiserver.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "host/connectors/json_patch.h"
#include "host/connectors/kube/proto/schema.h"
#include "host/connectors/kube/proto/transcode.h"
#include "tests/kube/support/fake_apiserver_json.h"

namespace sh::kubetest {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ssl = asio::ssl;
using Tcp = asio::ip::tcp;
using ErrorCode = boost::system::error_code;
using ObjPtr = std::shared_ptr<const json::object>;
using TextPtr = std::shared_ptr<const std::string>;

constexpr std::size_t kBodyLimit = 64 * 1024 * 1024;
constexpr std::size_t kContinueSnapshotsKept = 4096;
constexpr std::string_view kWatchHeader =
    "HTTP/1.1 200 OK\r\nCache-Control: no-cache, private\r\nContent-Type: application/json\r\n"
    "Transfer-Encoding: chunked\r\n\r\n";
// A protobuf watch (k8s.io/apimachinery's protobuf serializer, stream=watch framing).
constexpr std::string_view kProtobufWatchHeader =
    "HTTP/1.1 200 OK\r\nCache-Control: no-cache, private\r\n"
    "Content-Type: application/vnd.kubernetes.protobuf;stream=watch\r\n"
    "Transfer-Encoding: chunked\r\n\r\n";
constexpr std::string_view kContinueTooOld =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";

struct ResourceInfo {
  std::string name, kind, group, version;
  bool namespaced = true;
  bool custom = false;            // served for a CustomResourceDefinition
  bool statusSubresource = true;  // custom: spec.versions[].subresources.status
  // Built-in: only the status subresource writes the status, as the kind's registry strategy
  // has it (PrepareForCreate, PrepareForUpdate): a create starts it anew (with `initialPhase`
  // when set), a write of the main resource leaves it as it was.
  bool statusKept = false;
  std::string initialPhase;
};

// A built-in kind whose status only its status subresource writes.
ResourceInfo statusKept(ResourceInfo info, std::string initialPhase = {}) {
  info.statusKept = true;
  info.initialPhase = std::move(initialPhase);
  return info;
}

// A built-in kind without a status subresource (its /status paths are 404).
ResourceInfo noStatus(ResourceInfo info) {
  info.statusSubresource = false;
  return info;
}

// The built-in kinds; custom resources are added after them (addCustomResource).
std::deque<ResourceInfo> builtinResources() {
  return {
      {"pods", "Pod", "", "v1", true},
      {"nodes", "Node", "", "v1", false},
      {"namespaces", "Namespace", "", "v1", false},
      {"services", "Service", "", "v1", true},
      {"replicationcontrollers", "ReplicationController", "", "v1", true},
      {"replicasets", "ReplicaSet", "apps", "v1", true},
      {"statefulsets", "StatefulSet", "apps", "v1", true},
      {"poddisruptionbudgets", "PodDisruptionBudget", "policy", "v1", true},
      {"priorityclasses", "PriorityClass", "scheduling.k8s.io", "v1", false},
      {"leases", "Lease", "coordination.k8s.io", "v1", true},
      {"events", "Event", "events.k8s.io", "v1", true},
      // Storage: the PV controller owns the status of volumes and claims (phase Pending until it
      // acts); VolumeAttachment's status is the attacher's.
      statusKept({"persistentvolumes", "PersistentVolume", "", "v1", false}, "Pending"),
      statusKept({"persistentvolumeclaims", "PersistentVolumeClaim", "", "v1", true}, "Pending"),
      noStatus({"storageclasses", "StorageClass", "storage.k8s.io", "v1", false}),
      noStatus({"csinodes", "CSINode", "storage.k8s.io", "v1", false}),
      noStatus({"csidrivers", "CSIDriver", "storage.k8s.io", "v1", false}),
      noStatus({"csistoragecapacities", "CSIStorageCapacity", "storage.k8s.io", "v1", true}),
      statusKept({"volumeattachments", "VolumeAttachment", "storage.k8s.io", "v1", false}),
      // kube-system/extension-apiserver-authentication, for the secure port's lookup.
      noStatus({"configmaps", "ConfigMap", "", "v1", true}),
  };
}
constexpr int kPods = 0;

std::string apiVersionOf(const ResourceInfo& info) {
  return info.group.empty() ? info.version : info.group + "/" + info.version;
}

// "pods", "leases.coordination.k8s.io": how kube-apiserver names a resource in messages.
std::string qualified(const ResourceInfo& info) {
  return info.group.empty() ? info.name : info.name + "." + info.group;
}

// Everything of an object but its metadata and status: what metadata.generation counts.
bool sameSpec(const json::object& a, const json::object& b) {
  auto rest = [](const json::object& o) {
    json::object out = o;
    out.erase("metadata");
    out.erase("status");
    out.erase("kind");
    out.erase("apiVersion");
    return out;
  };
  return rest(a) == rest(b);
}

std::string nowRfc3339() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string urlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      auto hex = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      int hi = i + 1 < text.size() ? hex(text[i + 1]) : -1;
      int lo = i + 2 < text.size() ? hex(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        out.push_back(c);
      } else {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
      }
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::unordered_map<std::string, std::string> parseQuery(std::string_view query) {
  std::unordered_map<std::string, std::string> out;
  std::size_t start = 0;
  while (start <= query.size()) {
    auto amp = query.find('&', start);
    auto part = query.substr(start, amp == std::string_view::npos ? query.npos : amp - start);
    if (!part.empty()) {
      auto eq = part.find('=');
      if (eq == std::string_view::npos) {
        out[urlDecode(part)] = "";
      } else {
        out[urlDecode(part.substr(0, eq))] = urlDecode(part.substr(eq + 1));
      }
    }
    if (amp == std::string_view::npos) break;
    start = amp + 1;
  }
  return out;
}

bool parseUint(std::string_view text, uint64_t& out) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  out = value;
  return true;
}

std::string eventLine(std::string_view type, std::string_view objectText) {
  std::string line;
  line.reserve(objectText.size() + 32);
  line.append("{\"type\":\"").append(type).append("\",\"object\":");
  line.append(objectText).append("}\n");
  return line;
}

json::object& metadataOf(json::object& object) {
  auto& metadata = object["metadata"];
  if (!metadata.is_object()) metadata = json::object{};
  return metadata.as_object();
}

enum class EventType { kAdded, kModified, kDeleted };

std::string_view eventTypeName(EventType type) {
  switch (type) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "";
}

struct Stored {
  ObjPtr object;
  TextPtr text;  // the serialised object
};

struct HistoryEvent {
  uint64_t rv = 0;
  int resource = 0;
  EventType type = EventType::kAdded;
  ObjPtr object;
  ObjPtr prev;  // MODIFIED: the object before
  TextPtr line;
};

// What one watch connection is sent, in order.
struct WatchItem {
  enum class Kind { kRaw, kLine, kEnd, kDrop } kind = Kind::kLine;
  TextPtr bytes;
};

// One open watch. Filled by the store (under its mutex), drained by the connection's strand.
struct Watcher {
  int resource = 0;
  std::string ns;  // "" all namespaces
  Selector fields, labels;
  bool bookmarks = false;
  bool protobuf = false;       // events go out as protobuf frames (the Accept header asked)
  std::function<void()> wake;  // posts a drain to the connection

  std::mutex mutex;
  std::deque<WatchItem> queue;
  bool scheduled = false;  // a drain is posted or running
  bool ended = false;      // an End or a Drop is queued: nothing more is taken

  bool matches(const json::object& object) const {
    if (!ns.empty() && stringAt(object, {"metadata", "namespace"}) != ns) return false;
    return fields.matches(object) && labels.matches(object);
  }

  // Returns false when ended.
  bool push(WatchItem item) {
    bool wakeNow = false;
    {
      std::lock_guard lock(mutex);
      if (ended) return false;
      if (item.kind == WatchItem::Kind::kEnd || item.kind == WatchItem::Kind::kDrop) ended = true;
      queue.push_back(std::move(item));
      if (!scheduled) {
        scheduled = true;
        wakeNow = true;
      }
    }
    if (wakeNow && wake) wake();
    return true;
  }
};

class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void closeFromOutside() = 0;  // posts a close to the connection's strand
};

struct ApiReply {
  int status = 200;
  std::string body;
  int retryAfter = 0;
};

// Whether an Accept header puts protobuf first, as kube-apiserver's negotiation picks the first
// media type it can serve ("application/vnd.kubernetes.protobuf, */*" from client-go).
bool prefersProtobuf(std::string_view accept) {
  const std::size_t comma = accept.find(',');
  return kube::proto::isProtobuf(accept.substr(0, comma));
}

// A JSON body of a kind with a protobuf schema, re-encoded; nullopt when the body is not
// such an object (a custom resource, /version): kube-apiserver answers those in JSON.
std::optional<std::string> protobufOf(std::string_view jsonBody) {
  boost::system::error_code ec;
  json::value value = json::parse(jsonBody, ec);
  if (ec || !value.is_object()) return std::nullopt;
  const json::object& object = value.get_object();
  const json::value* apiVersion = object.if_contains("apiVersion");
  const json::value* kind = object.if_contains("kind");
  if (apiVersion == nullptr || kind == nullptr || !apiVersion->is_string() || !kind->is_string())
    return std::nullopt;
  std::string out;
  std::string error;
  if (!kube::proto::encodeObject(object, apiVersion->get_string(), kind->get_string(), out,
                                 error)) {
    return std::nullopt;
  }
  return out;
}

// A JSON watch line ({"type":...,"object":...}) as a protobuf frame; null when its object
// has no schema.
TextPtr protobufFrameOf(const std::string& line) {
  boost::system::error_code ec;
  json::value event = json::parse(line, ec);
  if (ec || !event.is_object()) return nullptr;
  const json::value* type = event.get_object().if_contains("type");
  const json::value* object = event.get_object().if_contains("object");
  if (type == nullptr || !type->is_string() || object == nullptr) return nullptr;
  std::optional<std::string> body = protobufOf(json::serialize(*object));
  if (!body) return nullptr;
  return std::make_shared<const std::string>(
      kube::proto::encodeWatchFrame(type->get_string(), *body));
}

struct FailRule {
  std::string prefix;
  int status = 500;
  int remaining = 0;
  int retryAfter = 0;
};

struct ContinueSnapshot {
  std::shared_ptr<const std::vector<Stored>> items;
  std::size_t offset = 0;
  uint64_t rv = 0;
  uint64_t epoch = 0;
  int resource = 0;
};

// Where a request goes.
struct Route {
  bool found = false;
  bool special = false;  // /version, /api, ...
  int resource = -1;
  std::string ns, name, sub;
  bool bindingsCollection = false;  // POST /api/v1/namespaces/<ns>/bindings
  std::string verb, label, group;   // for the record
};

}  // namespace

struct FakeApiServer::Impl {
  explicit Impl(Options opts)
      : options(std::move(opts)),
        rng(options.seed),
        tokens(options.tokens.begin(), options.tokens.end()) {
    objects.resize(resources.size());
    watchers.resize(resources.size());
  }

  Options options;

  // The store, its history and watchers.
  mutable std::mutex mu;
  uint64_t rv = 0;
  uint64_t compactedRv = 0;  // events after it are all in history
  uint64_t epoch = 0;        // bumped by compact(): older continue tokens expire
  // By resource index; deques, so that a custom resource added keeps references valid.
  std::deque<ResourceInfo> resources = builtinResources();
  std::deque<std::map<std::pair<std::string, std::string>, Stored>> objects;
  std::deque<HistoryEvent> history;
  std::deque<std::vector<std::shared_ptr<Watcher>>> watchers;
  std::unordered_map<std::string, ContinueSnapshot> continues;
  std::deque<std::string> continueOrder;
  uint64_t continueCounter = 0;
  std::mt19937_64 rng;
  std::map<std::string, std::size_t> binds;

  // Everything else.
  mutable std::mutex metaMu;
  std::unordered_set<std::string> tokens;
  std::vector<FailRule> failRules;
  // Requests whose "METHOD target" starts with one of these are read and never answered; their
  // sessions are held here until the server stops.
  std::vector<std::string> stallPrefixes;
  std::vector<std::shared_ptr<void>> stalled;
  std::vector<std::string> stalledKeys;
  std::vector<Recorded> recorded;
  std::chrono::milliseconds bindDelay{0};

  std::mutex sessionsMu;
  bool stopping = false;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions;
  std::atomic<uint64_t> sessionCounter{0};

  std::optional<ssl::context> sslContext;
  uint16_t port = 0;
  std::mutex threadsMu;
  std::condition_variable threadsCv;
  int threadsRunning = 0;
  bool started = false, stopped = false;
  // Declared last: destroyed first, with the handlers (and sessions) it still holds.
  asio::io_context ioc;
  std::optional<Tcp::acceptor> acceptor;
  std::vector<std::thread> threads;

  // ---- store (callers hold mu) ----

  int resourceIndex(std::string_view group, std::string_view version, std::string_view name) const {
    for (std::size_t i = 0; i < resources.size(); ++i) {
      const ResourceInfo& r = resources[i];
      if (r.name == name && r.group == group && r.version == version) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  // By plural name ("pods") or qualified name ("podgroups.scheduling.x-k8s.io").
  int resourceIndex(std::string_view name) const {
    for (std::size_t i = 0; i < resources.size(); ++i) {
      if (resources[i].name == name || qualified(resources[i]) == name) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  struct Outcome {
    int code = 200;
    ObjPtr object;
    json::object status;  // when code >= 400
  };

  static Outcome failure(int code, std::string_view message, json::value details = nullptr,
                         std::string_view reason = {}) {
    Outcome out;
    out.code = code;
    out.status = statusBody(code, reason.empty() ? reasonFor(code) : reason, message, details);
    return out;
  }

  static json::object detailsFor(const ResourceInfo& info, std::string_view name) {
    json::object details;
    details["name"] = name;
    if (!info.group.empty()) details["group"] = info.group;
    details["kind"] = info.name;
    return details;
  }

  static Outcome notFound(const ResourceInfo& info, std::string_view name) {
    return failure(404, qualified(info) + " \"" + std::string(name) + "\" not found",
                   detailsFor(info, name));
  }

  static Outcome conflict(const ResourceInfo& info, std::string_view name, std::string_view why) {
    return failure(409,
                   "Operation cannot be fulfilled on " + qualified(info) + " \"" +
                       std::string(name) + "\": " + std::string(why),
                   detailsFor(info, name));
  }

  std::string newUid() {
    char text[40];
    uint64_t a = rng(), b = rng();
    std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                  static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return text;
  }

  Stored storedOf(json::object object) {
    auto ptr = std::make_shared<const json::object>(std::move(object));
    return Stored{ptr, std::make_shared<const std::string>(json::serialize(*ptr))};
  }

  // The line a watcher gets for an event, null when none (selectors, namespace).
  static TextPtr lineFor(const Watcher& watcher, const HistoryEvent& event) {
    if (watcher.resource != event.resource) return nullptr;
    bool now = watcher.matches(*event.object);
    if (event.type != EventType::kModified) return now ? event.line : nullptr;
    bool before = event.prev != nullptr && watcher.matches(*event.prev);
    if (now && before) return event.line;
    if (now)
      return std::make_shared<const std::string>(
          eventLine("ADDED", json::serialize(*event.object)));
    if (!before) return nullptr;
    // Left the selector: DELETED with the object as it was, at the event's resourceVersion
    // (apiserver cacher.go `convertToWatchEvent`).
    json::object old = *event.prev;
    metadataOf(old)["resourceVersion"] = std::to_string(event.rv);
    return std::make_shared<const std::string>(eventLine("DELETED", json::serialize(old)));
  }

  void recordEvent(int resource, EventType type, const Stored& stored, ObjPtr prev) {
    HistoryEvent event;
    event.rv = rv;
    event.resource = resource;
    event.type = type;
    event.object = stored.object;
    event.prev = std::move(prev);
    event.line = std::make_shared<const std::string>(eventLine(eventTypeName(type), *stored.text));
    for (const auto& watcher : watchers[resource]) {
      if (auto line = lineFor(*watcher, event)) watcher->push({WatchItem::Kind::kLine, line});
    }
    history.push_back(std::move(event));
    while (history.size() > std::max<std::size_t>(options.historyLimit, 1)) {
      compactedRv = history.front().rv;
      history.pop_front();
    }
  }

  void stamp(json::object& object, const ResourceInfo& info) {
    object["kind"] = info.kind;
    object["apiVersion"] = apiVersionOf(info);
    metadataOf(object)["resourceVersion"] = std::to_string(rv);
  }

  Outcome createLocked(int resource, const std::string& pathNs, json::object object) {
    const auto& info = resources[resource];
    auto& metadata = metadataOf(object);
    std::string name = stringAt(object, {"metadata", "name"});
    if (name.empty()) {
      std::string prefix = stringAt(object, {"metadata", "generateName"});
      if (prefix.empty()) {
        return failure(422, std::string(info.kind) +
                                " \"\" is invalid: metadata.name: Required value: name or "
                                "generateName is required");
      }
      static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
      name = prefix;
      for (int i = 0; i < 5; ++i) name.push_back(kAlphabet[rng() % kAlphabet.size()]);
      metadata["name"] = name;
    }
    std::string ns;
    if (info.namespaced) {
      ns = stringAt(object, {"metadata", "namespace"});
      if (!pathNs.empty() && !ns.empty() && ns != pathNs) {
        return failure(400,
                       "the namespace of the provided object does not match the namespace sent "
                       "on the request");
      }
      if (ns.empty()) ns = pathNs.empty() ? "default" : pathNs;
      metadata["namespace"] = ns;
    } else {
      metadata.erase("namespace");
    }
    auto& table = objects[resource];
    auto key = std::make_pair(ns, name);
    if (table.count(key) != 0) {
      return failure(409, qualified(info) + " \"" + name + "\" already exists",
                     detailsFor(info, name), "AlreadyExists");
    }
    if (stringAt(object, {"metadata", "uid"}).empty()) metadata["uid"] = newUid();
    if (stringAt(object, {"metadata", "creationTimestamp"}).empty()) {
      metadata["creationTimestamp"] = nowRfc3339();
    }
    if (info.custom) {
      // apiextensions-apiserver's PrepareForCreate: a create cannot set the status of a kind
      // with a status subresource; generation starts at 1.
      if (info.statusSubresource) object.erase("status");
      metadata["generation"] = 1;
    }
    if (info.statusKept) {
      // The registry strategy's PrepareForCreate: the status starts anew, whatever was sent.
      json::object status;
      if (!info.initialPhase.empty()) status["phase"] = info.initialPhase;
      object["status"] = std::move(status);
    }
    if (resource == kPods) {
      auto& status = object["status"];
      if (!status.is_object()) status = json::object{};
      if (stringAt(object, {"status", "phase"}).empty()) status.as_object()["phase"] = "Pending";
    }
    ++rv;
    stamp(object, info);
    Stored stored = storedOf(std::move(object));
    table[key] = stored;
    recordEvent(resource, EventType::kAdded, stored, nullptr);
    return Outcome{201, stored.object, {}};
  }

  // Replaces the stored object by `object` (statusOnly: only its status), keeping identity.
  Outcome replaceLocked(int resource, const std::string& pathNs, const std::string& pathName,
                        json::object object, bool statusOnly, bool checkVersion) {
    const auto& info = resources[resource];
    std::string name = pathName.empty() ? stringAt(object, {"metadata", "name"}) : pathName;
    std::string bodyName = stringAt(object, {"metadata", "name"});
    if (!bodyName.empty() && bodyName != name) {
      return failure(400, "the name of the object (" + bodyName +
                              ") does not match the name on the URL (" + name + ")");
    }
    std::string ns;
    if (info.namespaced) {
      ns = pathNs.empty() ? stringAt(object, {"metadata", "namespace"}) : pathNs;
      if (ns.empty()) ns = "default";
    }
    auto& table = objects[resource];
    auto found = table.find({ns, name});
    if (found == table.end()) return notFound(info, name);
    const json::object& old = *found->second.object;
    std::string bodyRv = stringAt(object, {"metadata", "resourceVersion"});
    if (checkVersion && !bodyRv.empty() &&
        bodyRv != stringAt(old, {"metadata", "resourceVersion"})) {
      return conflict(info, name,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again");
    }
    json::object next;
    if (statusOnly) {
      next = old;
      if (const auto* status = object.if_contains("status")) {
        next["status"] = *status;
      } else {
        next.erase("status");
      }
    } else {
      next = std::move(object);
      auto& metadata = metadataOf(next);
      const auto& oldMeta = old.at("metadata").as_object();
      metadata["name"] = name;
      if (info.namespaced) metadata["namespace"] = ns;
      for (const char* kept : {"uid", "creationTimestamp"}) {
        if (const auto* value = oldMeta.if_contains(kept)) metadata[kept] = *value;
      }
      // PrepareForUpdate (apiextensions-apiserver's, or the built-in kind's registry
      // strategy): the main resource does not change the status, the status subresource does.
      if ((info.custom && info.statusSubresource) || info.statusKept) {
        if (const auto* status = old.if_contains("status")) {
          next["status"] = *status;
        } else {
          next.erase("status");
        }
      }
      if (info.custom) {
        // A change of anything but metadata and status is a new generation.
        int64_t generation = 1;
        if (const auto* g = oldMeta.if_contains("generation"); g != nullptr && g->is_int64()) {
          generation = g->as_int64();
        }
        metadata["generation"] = sameSpec(old, next) ? generation : generation + 1;
      }
    }
    ++rv;
    stamp(next, info);
    ObjPtr prev = found->second.object;
    found->second = storedOf(std::move(next));
    Stored stored = found->second;
    recordEvent(resource, EventType::kModified, stored, std::move(prev));
    return Outcome{200, stored.object, {}};
  }

  Outcome patchLocked(int resource, const std::string& ns, const std::string& name,
                      std::string_view body, std::string_view contentType, bool statusOnly) {
    const auto& info = resources[resource];
    auto type = contentType.substr(0, contentType.find(';'));
    bool strategic = type == "application/strategic-merge-patch+json";
    bool jsonPatch = type == "application/json-patch+json";
    // Custom resources have no patch strategies: no strategic merge patch for them.
    if ((strategic && info.custom) ||
        (!strategic && !jsonPatch && type != "application/merge-patch+json")) {
      return failure(415, std::string("the body of the request was in an unknown format - accepted "
                                      "media types include: application/json-patch+json, "
                                      "application/merge-patch+json, ") +
                              (info.custom ? "application/apply-patch+yaml"
                                           : "application/apply-patch+yaml, "
                                             "application/strategic-merge-patch+json"));
    }
    ErrorCode ec;
    json::value patch = json::parse(body, ec);
    if (ec || (jsonPatch ? !patch.is_array() : !patch.is_object())) {
      return failure(400,
                     "error decoding patch: " +
                         (ec ? ec.message()
                             : std::string(jsonPatch ? "not a JSON array" : "not a JSON object")));
    }
    auto& table = objects[resource];
    auto found = table.find({info.namespaced ? ns : std::string(), name});
    if (found == table.end()) return notFound(info, name);
    std::string patchRv =
        jsonPatch ? std::string() : stringAt(patch.as_object(), {"metadata", "resourceVersion"});
    if (!patchRv.empty() &&
        patchRv != stringAt(*found->second.object, {"metadata", "resourceVersion"})) {
      return conflict(info, name,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again");
    }
    json::value base = *found->second.object;
    json::value merged;
    if (jsonPatch) {
      // RFC 6902, as apimachinery's jsonpatch applies it: all operations or none.
      std::string error;
      merged = base;
      if (!connectors::applyJsonPatch(merged, patch, error)) {
        return failure(422, error);
      }
    } else {
      merged = strategic ? strategicMergePatch(base, patch) : mergePatch(base, patch);
    }
    if (!merged.is_object()) return failure(422, "the patch result is not an object");
    auto& metadata = metadataOf(merged.as_object());
    metadata.erase("resourceVersion");
    return replaceLocked(resource, ns, name, std::move(merged.as_object()), statusOnly, false);
  }

  Outcome deleteLocked(int resource, const std::string& ns, const std::string& name,
                       std::string_view body) {
    const auto& info = resources[resource];
    auto& table = objects[resource];
    auto found = table.find({info.namespaced ? ns : std::string(), name});
    if (found == table.end()) return notFound(info, name);
    if (!body.empty()) {
      ErrorCode ec;
      json::value deleteOptions = json::parse(body, ec);
      if (ec || !deleteOptions.is_object()) return failure(400, "invalid DeleteOptions body");
      const auto& stored = *found->second.object;
      std::string wantUid = stringAt(deleteOptions.as_object(), {"preconditions", "uid"});
      std::string haveUid = stringAt(stored, {"metadata", "uid"});
      if (!wantUid.empty() && wantUid != haveUid) {
        return conflict(info, name,
                        "Precondition failed: UID in precondition: " + wantUid +
                            ", UID in object meta: " + haveUid);
      }
      std::string wantRv =
          stringAt(deleteOptions.as_object(), {"preconditions", "resourceVersion"});
      std::string haveRv = stringAt(stored, {"metadata", "resourceVersion"});
      if (!wantRv.empty() && wantRv != haveRv) {
        return conflict(info, name,
                        "Precondition failed: ResourceVersion in precondition: " + wantRv +
                            ", ResourceVersion in object meta: " + haveRv);
      }
    }
    ++rv;
    json::object last = *found->second.object;
    metadataOf(last)["resourceVersion"] = std::to_string(rv);
    table.erase(found);
    Stored stored = storedOf(std::move(last));
    recordEvent(resource, EventType::kDeleted, stored, nullptr);
    return Outcome{200, stored.object, {}};
  }

  Outcome bindLocked(const std::string& ns, std::string name, std::string_view body) {
    static const ResourceInfo kBinding{"pods/binding", "Binding", "", "v1", true};
    ErrorCode ec;
    json::value parsed = json::parse(body, ec);
    if (ec || !parsed.is_object()) return failure(400, "invalid Binding body");
    const auto& binding = parsed.as_object();
    if (name.empty()) name = stringAt(binding, {"metadata", "name"});
    std::string node = stringAt(binding, {"target", "name"});
    if (node.empty()) {
      return failure(422, "Binding \"" + name + "\" is invalid: target.name: Required value");
    }
    auto& table = objects[kPods];
    auto found = table.find({ns, name});
    if (found == table.end()) return notFound(resources[kPods], name);
    const json::object& pod = *found->second.object;
    std::string wantUid = stringAt(binding, {"metadata", "uid"});
    std::string haveUid = stringAt(pod, {"metadata", "uid"});
    if (!wantUid.empty() && wantUid != haveUid) {
      return conflict(kBinding, name,
                      "Precondition failed: UID in precondition: " + wantUid +
                          ", UID in object meta: " + haveUid);
    }
    if (!stringAt(pod, {"metadata", "deletionTimestamp"}).empty()) {
      return conflict(kBinding, name,
                      "pod " + name + " is being deleted, cannot be assigned to a host");
    }
    std::string bound = stringAt(pod, {"spec", "nodeName"});
    if (!bound.empty()) {
      return conflict(kBinding, name,
                      "pod " + name + " is already assigned to node \"" + bound + "\"");
    }
    json::object next = pod;
    auto& spec = next["spec"];
    if (!spec.is_object()) spec = json::object{};
    spec.as_object()["nodeName"] = node;
    auto& status = next["status"];
    if (!status.is_object()) status = json::object{};
    auto& conditions = status.as_object()["conditions"];
    if (!conditions.is_array()) conditions = json::array{};
    json::object scheduled{{"type", "PodScheduled"},
                           {"status", "True"},
                           {"lastProbeTime", nullptr},
                           {"lastTransitionTime", nowRfc3339()}};
    auto& list = conditions.as_array();
    auto same = std::find_if(list.begin(), list.end(), [](const json::value& c) {
      return c.is_object() && stringAt(c.as_object(), {"type"}) == "PodScheduled";
    });
    if (same == list.end()) {
      list.push_back(std::move(scheduled));
    } else {
      *same = std::move(scheduled);
    }
    ++rv;
    stamp(next, resources[kPods]);
    ObjPtr prev = found->second.object;
    found->second = storedOf(std::move(next));
    Stored stored = found->second;
    recordEvent(kPods, EventType::kModified, stored, std::move(prev));
    ++binds[haveUid];
    return Outcome{201, nullptr, {}};
  }

  // ---- HTTP-level operations (take mu) ----

  static ApiReply replyOf(const Outcome& outcome) {
    if (outcome.code >= 400) return ApiReply{outcome.code, json::serialize(outcome.status)};
    if (outcome.object == nullptr) {
      return ApiReply{outcome.code, json::serialize(statusBody(outcome.code, "", ""))};
    }
    return ApiReply{outcome.code, json::serialize(*outcome.object)};
  }

  static ApiReply errorReply(int code, std::string_view message, std::string_view reason = {}) {
    return ApiReply{code, json::serialize(statusBody(
                              code, reason.empty() ? reasonFor(code) : reason, message))};
  }

  ApiReply listReply(const Route& route,
                     const std::unordered_map<std::string, std::string>& query) {
    auto param = [&](const char* key) -> std::string {
      auto it = query.find(key);
      return it == query.end() ? std::string() : it->second;
    };
    uint64_t limit = 0;
    if (!param("limit").empty() && !parseUint(param("limit"), limit)) {
      return errorReply(400, "invalid limit: " + param("limit"));
    }
    std::lock_guard lock(mu);
    const auto& info = resources[route.resource];
    ContinueSnapshot snap;
    std::string token = param("continue");
    if (!token.empty()) {
      auto found = continues.find(token);
      if (token.rfind("fake-continue-", 0) != 0) {
        return errorReply(400, "continue key is not valid: " + token);
      }
      if (found == continues.end() || found->second.epoch != epoch ||
          found->second.resource != route.resource) {
        return errorReply(410, kContinueTooOld, "Expired");
      }
      snap = found->second;
    } else {
      std::string rvParam = param("resourceVersion");
      uint64_t asked = 0;
      if (!rvParam.empty() && !parseUint(rvParam, asked)) {
        return errorReply(400, "invalid resourceVersion: " + rvParam);
      }
      if (asked != 0 && asked < compactedRv) {
        return errorReply(
            410,
            "too old resource version: " + rvParam + " (" + std::to_string(compactedRv + 1) + ")",
            "Expired");
      }
      Selector fields, labels;
      try {
        fields = Selector::parseFields(param("fieldSelector"));
        labels = Selector::parseLabels(param("labelSelector"));
      } catch (const std::exception& e) {
        return errorReply(400, e.what());
      }
      auto items = std::make_shared<std::vector<Stored>>();
      for (const auto& [key, stored] : objects[route.resource]) {
        if (!route.ns.empty() && key.first != route.ns) continue;
        if (!fields.matches(*stored.object) || !labels.matches(*stored.object)) continue;
        items->push_back(stored);
      }
      snap.items = std::move(items);
      snap.rv = rv;
      snap.epoch = epoch;
      snap.resource = route.resource;
    }
    std::size_t total = snap.items->size();
    std::size_t end = limit == 0 ? total : std::min<std::size_t>(total, snap.offset + limit);
    std::string next;
    if (end < total) {
      next = "fake-continue-" + std::to_string(++continueCounter);
      ContinueSnapshot rest = snap;
      rest.offset = end;
      continues[next] = rest;
      continueOrder.push_back(next);
      while (continueOrder.size() > kContinueSnapshotsKept) {
        continues.erase(continueOrder.front());
        continueOrder.pop_front();
      }
    }
    std::string body;
    body.reserve(128 + (end - snap.offset) * 512);
    body.append("{\"kind\":\"").append(info.kind).append("List\",\"apiVersion\":\"");
    body.append(apiVersionOf(info)).append("\",\"metadata\":{\"resourceVersion\":\"");
    body.append(std::to_string(snap.rv)).append("\"");
    if (!next.empty()) {
      body.append(",\"continue\":\"").append(next).append("\",\"remainingItemCount\":");
      body.append(std::to_string(total - end));
    }
    body.append("},\"items\":[");
    for (std::size_t i = snap.offset; i < end; ++i) {
      if (i != snap.offset) body.push_back(',');
      body.append(*(*snap.items)[i].text);
    }
    body.append("]}");
    return ApiReply{200, std::move(body)};
  }

  // Sets up a watch: its queue holds the header and the first lines. Null with `error` set
  // when the request is refused before any byte is sent.
  std::shared_ptr<Watcher> startWatch(const Route& route,
                                      const std::unordered_map<std::string, std::string>& query,
                                      std::function<void()> wake, bool protobuf, ApiReply& error) {
    auto param = [&](const char* key) -> std::string {
      auto it = query.find(key);
      return it == query.end() ? std::string() : it->second;
    };
    auto watcher = std::make_shared<Watcher>();
    watcher->resource = route.resource;
    watcher->ns = route.ns;
    try {
      watcher->fields = Selector::parseFields(param("fieldSelector"));
      watcher->labels = Selector::parseLabels(param("labelSelector"));
    } catch (const std::exception& e) {
      error = errorReply(400, e.what());
      return nullptr;
    }
    watcher->bookmarks = param("allowWatchBookmarks") == "true";
    std::string rvParam = param("resourceVersion");
    uint64_t from = 0;
    if (!rvParam.empty() && !parseUint(rvParam, from)) {
      error = errorReply(400, "invalid resourceVersion: " + rvParam);
      return nullptr;
    }
    watcher->scheduled = true;  // the connection drains right after this returns
    {
      std::lock_guard lock(mu);
      const auto& info = resources[route.resource];
      watcher->protobuf = protobuf && kube::proto::speaksProtobuf(apiVersionOf(info), info.kind);
    }
    watcher->queue.push_back(
        {WatchItem::Kind::kRaw, std::make_shared<const std::string>(
                                    watcher->protobuf ? kProtobufWatchHeader : kWatchHeader)});
    std::lock_guard lock(mu);
    if (from == 0) {
      for (const auto& [key, stored] : objects[route.resource]) {
        if (!watcher->matches(*stored.object)) continue;
        watcher->queue.push_back({WatchItem::Kind::kLine, std::make_shared<const std::string>(
                                                              eventLine("ADDED", *stored.text))});
      }
    } else if (from < compactedRv) {
      watcher->queue.push_back({WatchItem::Kind::kLine, expiredLine(from)});
      watcher->queue.push_back({WatchItem::Kind::kEnd, nullptr});
      watcher->ended = true;
      watcher->wake = std::move(wake);
      return watcher;
    } else {
      auto first = std::upper_bound(history.begin(), history.end(), from,
                                    [](uint64_t v, const HistoryEvent& e) { return v < e.rv; });
      for (auto it = first; it != history.end(); ++it) {
        if (auto line = lineFor(*watcher, *it)) {
          watcher->queue.push_back({WatchItem::Kind::kLine, std::move(line)});
        }
      }
    }
    watcher->wake = std::move(wake);
    watchers[route.resource].push_back(watcher);
    return watcher;
  }

  TextPtr expiredLine(uint64_t from) const {
    json::object status = statusBody(410, "Expired",
                                     "too old resource version: " + std::to_string(from) + " (" +
                                         std::to_string(compactedRv + 1) + ")");
    status.erase("metadata");
    std::string text = "{\"type\":\"ERROR\",\"object\":" + json::serialize(status) + "}\n";
    return std::make_shared<const std::string>(std::move(text));
  }

  void bookmark(const std::shared_ptr<Watcher>& watcher) {
    std::lock_guard lock(mu);
    const auto& info = resources[watcher->resource];
    std::string line = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"" + std::string(info.kind) +
                       "\",\"apiVersion\":\"" + apiVersionOf(info) +
                       "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) + "\"}}}\n";
    watcher->push({WatchItem::Kind::kLine, std::make_shared<const std::string>(std::move(line))});
  }

  void unregister(const std::shared_ptr<Watcher>& watcher) {
    std::lock_guard lock(mu);
    auto& list = watchers[watcher->resource];
    list.erase(std::remove(list.begin(), list.end(), watcher), list.end());
  }

  // ---- routing ----

  // Takes mu: the custom resources can change.
  Route route(http::verb method, std::string_view path,
              const std::unordered_map<std::string, std::string>& query) {
    std::lock_guard lock(mu);
    Route out;
    std::vector<std::string_view> parts;
    std::size_t start = 1;
    while (start <= path.size()) {
      auto slash = path.find('/', start);
      auto part = path.substr(start, slash == std::string_view::npos ? path.npos : slash - start);
      if (!part.empty()) parts.push_back(part);
      if (slash == std::string_view::npos) break;
      start = slash + 1;
    }
    if (path == "/version" || path == "/api" || path == "/apis" || path == "/healthz" ||
        path == "/readyz" || path == "/livez") {
      out.found = method == http::verb::get;
      out.special = true;
      out.verb = "get";
      return out;
    }
    if (path == "/apis/authentication.k8s.io/v1/tokenreviews" ||
        path == "/apis/authorization.k8s.io/v1/subjectaccessreviews") {
      out.found = method == http::verb::post;
      out.special = true;
      out.verb = "create";
      out.label = std::string(parts.back());
      out.group = std::string(parts[1]);
      return out;
    }
    std::string_view group;
    std::string_view version = "v1";
    std::size_t rest = 0;
    if (parts.size() >= 2 && parts[0] == "api" && parts[1] == "v1") {
      rest = 2;
    } else if (parts.size() >= 3 && parts[0] == "apis") {
      group = parts[1];
      version = parts[2];
      rest = 3;
      if (std::none_of(resources.begin(), resources.end(), [&](const ResourceInfo& r) {
            return r.group == group && r.version == version;
          })) {
        return out;  // a group or version nobody serves (a CRD not installed)
      }
    } else {
      return out;
    }
    out.group = std::string(group);
    std::vector<std::string_view> tail(parts.begin() + static_cast<long>(rest), parts.end());
    if (tail.empty()) return out;
    if (tail.size() >= 3 && tail[0] == "namespaces") {
      int res = resourceIndex(group, version, tail[2]);
      if (group.empty() && tail[2] == "bindings" && tail.size() == 3) {
        out.found = method == http::verb::post;
        out.bindingsCollection = true;
        out.resource = kPods;
        out.ns = std::string(tail[1]);
        out.verb = "create";
        out.label = "bindings";
        return out;
      }
      if (res >= 0 && resources[res].namespaced) {
        out.resource = res;
        out.ns = std::string(tail[1]);
        tail.erase(tail.begin(), tail.begin() + 2);
      }
    }
    if (out.resource < 0) {
      out.resource = resourceIndex(group, version, tail[0]);
      if (out.resource < 0) return out;
      bool collection = tail.size() == 1;
      if (resources[out.resource].namespaced && !collection) return out;
    }
    if (tail.size() > 3) return out;
    if (tail.size() >= 2) out.name = std::string(tail[1]);
    if (tail.size() == 3) {
      out.sub = std::string(tail[2]);
      bool podBinding = out.resource == kPods && out.sub == "binding";
      bool status = out.sub == "status" && resources[out.resource].statusSubresource;
      if (!status && !podBinding) return out;
    }
    out.label = resources[out.resource].name;
    if (!out.sub.empty()) out.label += "/" + out.sub;
    auto watch = query.find("watch");
    bool isWatch = watch != query.end() && (watch->second == "1" || watch->second == "true");
    switch (method) {
      case http::verb::get:
        out.verb = out.name.empty() ? (isWatch ? "watch" : "list") : "get";
        out.found = out.sub.empty() || out.sub == "status";
        break;
      case http::verb::post:
        out.verb = "create";
        out.found = out.sub == "binding" || (out.name.empty() && out.sub.empty());
        break;
      case http::verb::put:
        out.verb = "update";
        out.found = !out.name.empty() && out.sub != "binding";
        break;
      case http::verb::patch:
        out.verb = "patch";
        out.found = !out.name.empty() && out.sub != "binding";
        break;
      case http::verb::delete_:
        out.verb = "delete";
        out.found = !out.name.empty() && out.sub.empty();
        break;
      default:
        out.verb = std::string(http::to_string(method));
        break;
    }
    return out;
  }

  // TokenReview and SubjectAccessReview, answered from Options::reviewTokens and
  // ::allowedAccess.
  ApiReply review(std::string_view path, const std::string& body) {
    boost::system::error_code ec;
    json::value request = json::parse(body, ec);
    const json::value* spec =
        !ec && request.is_object() ? request.as_object().if_contains("spec") : nullptr;
    if (spec == nullptr || !spec->is_object()) {
      return errorReply(400, "the review has no spec", "BadRequest");
    }
    json::object answer = request.as_object();
    json::object status;
    if (path.ends_with("tokenreviews")) {
      const json::value* token = spec->as_object().if_contains("token");
      auto it = token != nullptr && token->is_string()
                    ? options.reviewTokens.find(std::string(token->get_string()))
                    : options.reviewTokens.end();
      status["authenticated"] = it != options.reviewTokens.end();
      if (it != options.reviewTokens.end()) {
        json::array groups;
        for (const std::string& g : it->second.second) groups.emplace_back(g);
        status["user"] = json::object{{"username", it->second.first},
                                      {"uid", "uid-" + it->second.first},
                                      {"groups", std::move(groups)}};
      }
    } else {
      const json::object& s = spec->as_object();
      std::string key = s.contains("user") && s.at("user").is_string()
                            ? std::string(s.at("user").get_string())
                            : std::string();
      if (const json::value* attrs = s.if_contains("nonResourceAttributes");
          attrs != nullptr && attrs->is_object()) {
        for (const char* field : {"verb", "path"}) {
          const json::value* v = attrs->as_object().if_contains(field);
          key += " " + (v != nullptr && v->is_string() ? std::string(v->get_string()) : "");
        }
      }
      const bool allowed = std::find(options.allowedAccess.begin(), options.allowedAccess.end(),
                                     key) != options.allowedAccess.end();
      status["allowed"] = allowed;
      if (!allowed) status["reason"] = "no RBAC policy matched";
    }
    answer["status"] = std::move(status);
    return ApiReply{201, json::serialize(answer)};
  }

  ApiReply special(std::string_view path) {
    if (path == "/version") {
      json::object version{{"major", "1"},
                           {"minor", "36"},
                           {"gitVersion", "v1.36.0-schedhost-test"},
                           {"gitCommit", "0000000000000000000000000000000000000000"},
                           {"gitTreeState", "clean"},
                           {"buildDate", "2026-01-01T00:00:00Z"},
                           {"goVersion", "go1.25.0"},
                           {"compiler", "gc"},
                           {"platform", "linux/amd64"}};
      return ApiReply{200, json::serialize(version)};
    }
    if (path == "/api") {
      json::object api{
          {"kind", "APIVersions"},
          {"versions", json::array{"v1"}},
          {"serverAddressByClientCIDRs",
           json::array{json::object{{"clientCIDR", "0.0.0.0/0"},
                                    {"serverAddress", "127.0.0.1:" + std::to_string(port)}}}}};
      return ApiReply{200, json::serialize(api)};
    }
    if (path == "/apis") {
      json::array groups;
      std::vector<std::string_view> seen;
      std::lock_guard lock(mu);
      for (const auto& info : resources) {
        if (info.group.empty() || std::find(seen.begin(), seen.end(), info.group) != seen.end()) {
          continue;
        }
        seen.push_back(info.group);
        json::object version{{"groupVersion", apiVersionOf(info)}, {"version", info.version}};
        groups.push_back(json::object{{"name", info.group},
                                      {"versions", json::array{version}},
                                      {"preferredVersion", version}});
      }
      return ApiReply{200,
                      json::serialize(json::object{
                          {"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}})};
    }
    return ApiReply{200, "ok"};
  }

  ApiReply dispatch(const Route& route, http::verb method, std::string_view body,
                    std::string_view contentType) {
    if (route.bindingsCollection || route.sub == "binding") {
      std::lock_guard lock(mu);
      return replyOf(bindLocked(route.ns, route.name, body));
    }
    if (method == http::verb::get) {
      std::lock_guard lock(mu);
      auto found = objects[route.resource].find({route.ns, route.name});
      if (found == objects[route.resource].end()) {
        return replyOf(notFound(resources[route.resource], route.name));
      }
      return ApiReply{200, *found->second.text};
    }
    if (method == http::verb::delete_) {
      std::lock_guard lock(mu);
      return replyOf(deleteLocked(route.resource, route.ns, route.name, body));
    }
    if (method == http::verb::patch) {
      std::lock_guard lock(mu);
      return replyOf(patchLocked(route.resource, route.ns, route.name, body, contentType,
                                 route.sub == "status"));
    }
    ErrorCode ec;
    json::value parsed = json::parse(body, ec);
    if (ec || !parsed.is_object()) {
      return errorReply(400, "the request body is not a JSON object: " +
                                 (ec ? ec.message() : std::string("wrong type")));
    }
    std::lock_guard lock(mu);
    if (method == http::verb::post) {
      return replyOf(createLocked(route.resource, route.ns, std::move(parsed.as_object())));
    }
    return replyOf(replaceLocked(route.resource, route.ns, route.name,
                                 std::move(parsed.as_object()), route.sub == "status", true));
  }

  // Everything but the watch's streaming: authentication, faults, routing, the record.
  struct Handled {
    ApiReply reply;
    std::shared_ptr<Watcher> watcher;
  };

  Handled handle(const http::request<http::string_body>& req, const std::string& certUser,
                 std::function<void()> wake) {
    std::string_view target(req.target().data(), req.target().size());
    auto q = target.find('?');
    std::string_view path = target.substr(0, q);
    std::string_view rawQuery =
        q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
    auto query = parseQuery(rawQuery);
    Route where = route(req.method(), path, query);
    std::string user;
    Handled out;
    bool authorised = false;
    auto auth = req.find(http::field::authorization);
    std::string contentType(req[http::field::content_type]);
    const std::string accept(req[http::field::accept]);
    if (auth != req.end()) {
      std::string_view value(auth->value().data(), auth->value().size());
      if (value.rfind("Bearer ", 0) == 0) {
        std::string token(value.substr(7));
        std::lock_guard lock(metaMu);
        if (tokens.count(token) != 0) {
          authorised = true;
          user = token;
        }
      }
    } else if (!certUser.empty()) {
      authorised = true;
      user = certUser;
    } else if (options.allowAnonymous) {
      authorised = true;
      user = "system:anonymous";
    }
    std::optional<ApiReply> early;
    if (!authorised) {
      early = ApiReply{401, json::serialize(statusBody(401, "Unauthorized", "Unauthorized"))};
    } else {
      std::string key = std::string(http::to_string(req.method())) + " " + std::string(target);
      std::lock_guard lock(metaMu);
      for (auto it = failRules.begin(); it != failRules.end(); ++it) {
        if (it->remaining <= 0 || key.rfind(it->prefix, 0) != 0) continue;
        std::string message = it->status == 429 ? "Too many requests, please try again later."
                                                : "injected failure " + std::to_string(it->status);
        early = ApiReply{it->status,
                         json::serialize(statusBody(it->status, reasonFor(it->status), message)),
                         it->retryAfter};
        if (--it->remaining == 0) failRules.erase(it);
        break;
      }
    }
    if (early) {
      out.reply = std::move(*early);
    } else if (!where.found) {
      out.reply = where.resource >= 0 && !where.verb.empty() && where.label.size() > 0
                      ? errorReply(405,
                                   "the server does not allow this method on the requested "
                                   "resource")
                      : errorReply(404, "the server could not find the requested resource");
    } else if (where.special && where.verb == "create") {
      json::value object;
      std::string error;
      out.reply =
          !kube::proto::isProtobuf(contentType) ? review(path, req.body())
          : kube::proto::decodeObject(req.body(), object, error)
              ? review(path, json::serialize(object))
              : errorReply(400, "the body is not a protobuf object: " + error, "BadRequest");
    } else if (where.special) {
      out.reply = special(path);
    } else if (where.verb == "watch") {
      out.watcher = startWatch(where, query, std::move(wake), prefersProtobuf(accept), out.reply);
      if (out.watcher) out.reply.status = 200;
    } else if (where.verb == "list") {
      out.reply = listReply(where, query);
    } else if (kube::proto::isProtobuf(contentType)) {
      // A protobuf body (a create or an update from a client configured for protobuf) is read
      // as the JSON object it stands for.
      json::value object;
      std::string error;
      if (!kube::proto::decodeObject(req.body(), object, error)) {
        out.reply = errorReply(400, "the body is not a protobuf object: " + error, "BadRequest");
      } else {
        out.reply = dispatch(where, req.method(), json::serialize(object), "application/json");
      }
    } else {
      out.reply = dispatch(where, req.method(), req.body(), contentType);
    }
    if (options.recordRequests) {
      Recorded record{std::string(http::to_string(req.method())),
                      std::string(path),
                      std::string(rawQuery),
                      contentType,
                      req.body(),
                      user,
                      out.reply.status,
                      where.verb,
                      where.label,
                      where.group,
                      std::chrono::steady_clock::now(),
                      accept};
      std::lock_guard lock(metaMu);
      recorded.push_back(std::move(record));
    }
    return out;
  }

  bool isBinding(const http::request<http::string_body>& req) const {
    if (req.method() != http::verb::post) return false;
    std::string_view target(req.target().data(), req.target().size());
    target = target.substr(0, target.find('?'));
    return target.size() > 8 && (target.substr(target.size() - 8) == "/binding" ||
                                 target.substr(target.size() - 9) == "/bindings");
  }

  void forget(SessionBase* session) {
    std::lock_guard lock(sessionsMu);
    sessions.erase(session);
  }

  void accept();
};

namespace {

template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
 public:
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

  template <class... Args>
  Session(FakeApiServer::Impl* impl, uint64_t id, Args&&... args)
      : impl_(impl),
        stream_(std::forward<Args>(args)...),
        timer_(stream_.get_executor()),
        bookmarkTimer_(stream_.get_executor()),
        rng_(impl->options.seed * 0x9e3779b97f4a7c15ULL + id) {}

  ~Session() override {
    if (watcher_) impl_->unregister(watcher_);
    impl_->forget(this);
  }

  void run() {
    auto self = this->shared_from_this();
    asio::dispatch(stream_.get_executor(), [self] {
      if constexpr (kTls) {
        self->stream_.async_handshake(ssl::stream_base::server,
                                      [self](const ErrorCode& ec) { self->onHandshake(ec); });
      } else {
        self->doRead();
      }
    });
  }

  void closeFromOutside() override {
    auto self = this->shared_from_this();
    asio::post(stream_.get_executor(), [self] { self->close(); });
  }

 private:
  void onHandshake(const ErrorCode& ec) {
    if (ec) return close();
    if constexpr (kTls) {
      if (impl_->options.acceptClientCerts) {
        SSL* native = stream_.native_handle();
        X509* cert = SSL_get1_peer_certificate(native);
        if (cert != nullptr) {
          if (SSL_get_verify_result(native) == X509_V_OK) {
            char name[256] = {0};
            if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, name,
                                          sizeof name) > 0) {
              certUser_ = name;
            }
          }
          X509_free(cert);
        }
      }
    }
    doRead();
  }

  void doRead() {
    if (closed_) return;
    parser_.emplace();
    parser_->body_limit(kBodyLimit);
    parser_->header_limit(64 * 1024);
    auto self = this->shared_from_this();
    http::async_read(stream_, buffer_, *parser_,
                     [self](const ErrorCode& ec, std::size_t) { self->onRead(ec); });
  }

  void onRead(const ErrorCode& ec) {
    if (ec) return close();
    request_ = parser_->release();
    {
      const std::string key =
          std::string(http::to_string(request_.method())) + " " + std::string(request_.target());
      std::lock_guard lock(impl_->metaMu);
      for (const std::string& prefix : impl_->stallPrefixes) {
        if (key.rfind(prefix, 0) == 0) {
          impl_->stalled.push_back(this->shared_from_this());  // no answer, ever
          impl_->stalledKeys.push_back(key);
          return;
        }
      }
    }
    std::chrono::milliseconds delay{0};
    if (impl_->isBinding(request_)) {
      std::lock_guard lock(impl_->metaMu);
      delay = impl_->bindDelay;
    }
    if (delay.count() > 0) {
      auto self = this->shared_from_this();
      timer_.expires_after(delay);
      timer_.async_wait([self](const ErrorCode& error) {
        if (error || self->closed_) return self->close();
        self->process();
      });
      return;
    }
    process();
  }

  void process() {
    std::weak_ptr<Session> weak = this->shared_from_this();
    auto executor = stream_.get_executor();
    auto wake = [weak, executor] {
      if (auto self = weak.lock()) asio::post(executor, [self] { self->drain(); });
    };
    auto handled = impl_->handle(request_, certUser_, wake);
    if (handled.watcher) {
      startWatch(std::move(handled.watcher));
      return;
    }
    auto response = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(handled.reply.status), request_.version());
    response->set(http::field::content_type, "application/json");
    if (prefersProtobuf(request_[http::field::accept])) {
      if (std::optional<std::string> body = protobufOf(handled.reply.body)) {
        handled.reply.body = std::move(*body);
        response->set(http::field::content_type, kube::proto::kProtobufContentType);
      }
    }
    if (handled.reply.retryAfter > 0) {
      response->set(http::field::retry_after, std::to_string(handled.reply.retryAfter));
    }
    response->body() = std::move(handled.reply.body);
    response->keep_alive(request_.keep_alive());
    response->prepare_payload();
    auto self = this->shared_from_this();
    http::async_write(stream_, *response, [self, response](const ErrorCode& error, std::size_t) {
      if (error || !response->keep_alive()) return self->close();
      self->doRead();
    });
  }

  void startWatch(std::shared_ptr<Watcher> watcher) {
    watcher_ = std::move(watcher);
    auto self = this->shared_from_this();
    // Notices the client going away while nothing is written.
    beast::get_lowest_layer(stream_).expires_never();
    probe();
    auto timeout = watchTimeoutSeconds();
    if (timeout > 0) {
      timer_.expires_after(std::chrono::seconds(timeout));
      timer_.async_wait([self](const ErrorCode& ec) {
        if (!ec && self->watcher_) self->watcher_->push({WatchItem::Kind::kEnd, nullptr});
      });
    }
    if (watcher_->bookmarks && impl_->options.bookmarkInterval.count() > 0) armBookmark();
    drain();
  }

  int watchTimeoutSeconds() const {
    std::string_view target(request_.target().data(), request_.target().size());
    auto q = target.find('?');
    if (q == std::string_view::npos) return 0;
    auto query = parseQuery(target.substr(q + 1));
    uint64_t seconds = 0;
    auto it = query.find("timeoutSeconds");
    if (it == query.end() || !parseUint(it->second, seconds)) return 0;
    return static_cast<int>(std::min<uint64_t>(seconds, 86400));
  }

  void armBookmark() {
    auto self = this->shared_from_this();
    bookmarkTimer_.expires_after(impl_->options.bookmarkInterval);
    bookmarkTimer_.async_wait([self](const ErrorCode& ec) {
      if (ec || self->closed_ || !self->watcher_) return;
      self->impl_->bookmark(self->watcher_);
      self->armBookmark();
    });
  }

  void probe() {
    auto self = this->shared_from_this();
    stream_.async_read_some(asio::buffer(probeBuffer_), [self](const ErrorCode& ec, std::size_t) {
      if (ec) return self->close();
      self->probe();
    });
  }

  struct Piece {
    WatchItem::Kind kind;
    TextPtr owner;
    std::size_t offset = 0, size = 0;
  };

  // Moves what the watcher queued into pieces and writes the next batch.
  void drain() {
    if (closed_ || writing_ || !watcher_) return;
    if (pieces_.empty()) {
      std::deque<WatchItem> items;
      {
        std::lock_guard lock(watcher_->mutex);
        if (watcher_->queue.empty()) {
          watcher_->scheduled = false;
          return;
        }
        items.swap(watcher_->queue);
      }
      std::size_t chunkMax = impl_->options.watchChunkMax;
      for (auto& item : items) {
        if (item.kind == WatchItem::Kind::kLine && watcher_->protobuf) {
          if (TextPtr frame = protobufFrameOf(*item.bytes)) item.bytes = std::move(frame);
        }
        if (item.kind != WatchItem::Kind::kLine || chunkMax == 0) {
          std::size_t size = item.bytes ? item.bytes->size() : 0;
          pieces_.push_back({item.kind, item.bytes, 0, size});
          continue;
        }
        std::size_t at = 0;
        while (at < item.bytes->size()) {
          std::size_t size = std::uniform_int_distribution<std::size_t>(1, chunkMax)(rng_);
          size = std::min(size, item.bytes->size() - at);
          pieces_.push_back({item.kind, item.bytes, at, size});
          at += size;
        }
      }
    }
    if (pieces_.front().kind == WatchItem::Kind::kDrop) return close();
    auto batch = std::make_shared<Batch>();
    bool ending = false;
    std::size_t take = impl_->options.watchChunkMax > 0 ? 1 : pieces_.size();
    while (take-- > 0 && !pieces_.empty()) {
      Piece piece = pieces_.front();
      if (piece.kind == WatchItem::Kind::kDrop) break;
      pieces_.pop_front();
      if (piece.kind == WatchItem::Kind::kEnd) {
        batch->buffers.push_back(asio::buffer("0\r\n\r\n", 5));
        ending = true;
        break;
      }
      const char* data = piece.owner->data() + piece.offset;
      if (piece.kind == WatchItem::Kind::kLine) {
        char head[24];
        int n = std::snprintf(head, sizeof head, "%zx\r\n", piece.size);
        batch->heads.emplace_back(head, static_cast<std::size_t>(n));
        batch->buffers.push_back(asio::buffer(batch->heads.back()));
        batch->buffers.push_back(asio::buffer(data, piece.size));
        batch->buffers.push_back(asio::buffer("\r\n", 2));
      } else {
        batch->buffers.push_back(asio::buffer(data, piece.size));
      }
      batch->owners.push_back(std::move(piece.owner));
    }
    if (batch->buffers.empty()) return drain();
    writing_ = true;
    auto self = this->shared_from_this();
    asio::async_write(stream_, batch->buffers,
                      [self, batch, ending](const ErrorCode& ec, std::size_t) {
                        self->writing_ = false;
                        if (ec || ending) return self->close();
                        self->drain();
                      });
  }

  struct Batch {
    std::deque<std::string> heads;  // a deque: buffers point into its strings
    std::vector<TextPtr> owners;
    std::vector<asio::const_buffer> buffers;
  };

  void close() {
    if (closed_) return;
    closed_ = true;
    timer_.cancel();
    bookmarkTimer_.cancel();
    if (watcher_) {
      {
        std::lock_guard lock(watcher_->mutex);
        watcher_->ended = true;
        watcher_->queue.clear();
      }
      impl_->unregister(watcher_);
    }
    ErrorCode ec;
    auto& socket = beast::get_lowest_layer(stream_).socket();
    socket.shutdown(Tcp::socket::shutdown_both, ec);
    socket.close(ec);
  }

  FakeApiServer::Impl* impl_;
  Stream stream_;
  asio::steady_timer timer_, bookmarkTimer_;
  std::mt19937_64 rng_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  std::string certUser_;
  std::shared_ptr<Watcher> watcher_;
  std::deque<Piece> pieces_;
  bool writing_ = false;
  bool closed_ = false;
  std::array<char, 256> probeBuffer_{};
};

}  // namespace

void FakeApiServer::Impl::accept() {
  acceptor->async_accept(asio::make_strand(ioc), [this](const ErrorCode& ec, Tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
    if (!ec) {
      ErrorCode ignored;
      socket.set_option(Tcp::no_delay(true), ignored);
      std::lock_guard lock(sessionsMu);
      if (!stopping) {
        uint64_t id = ++sessionCounter;
        if (options.plainHttp) {
          auto session = std::make_shared<Session<beast::tcp_stream>>(this, id, std::move(socket));
          sessions[session.get()] = session;
          session->run();
        } else {
          auto session = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
              this, id, std::move(socket), *sslContext);
          sessions[session.get()] = session;
          session->run();
        }
      }
    }
    accept();
  });
}

FakeApiServer::FakeApiServer(Options options) : impl_(std::make_shared<Impl>(std::move(options))) {}

FakeApiServer::~FakeApiServer() { stop(); }

void FakeApiServer::start() {
  auto& impl = *impl_;
  if (impl.started) throw std::runtime_error("fake API server: already started");
  impl.started = true;
  if (!impl.options.plainHttp) {
    try {
      impl.sslContext.emplace(ssl::context::tls_server);
      auto& context = *impl.sslContext;
      context.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                          ssl::context::no_sslv3);
      context.use_certificate_chain(asio::buffer(impl.options.tls.serverCert));
      context.use_private_key(asio::buffer(impl.options.tls.serverKey), ssl::context::pem);
      if (impl.options.acceptClientCerts && !impl.options.tls.caCert.empty()) {
        context.add_certificate_authority(asio::buffer(impl.options.tls.caCert));
        context.set_verify_mode(ssl::verify_peer);
      } else {
        context.set_verify_mode(ssl::verify_none);
      }
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("fake API server: TLS setup: ") + e.what());
    }
  }
  try {
    impl.acceptor.emplace(asio::make_strand(impl.ioc));
    Tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    impl.acceptor->open(endpoint.protocol());
    impl.acceptor->set_option(asio::socket_base::reuse_address(true));
    impl.acceptor->bind(endpoint);
    impl.acceptor->listen(asio::socket_base::max_listen_connections);
    impl.port = impl.acceptor->local_endpoint().port();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("fake API server: listen on 127.0.0.1: ") + e.what());
  }
  asio::post(impl.acceptor->get_executor(), [&impl] { impl.accept(); });
  int count = std::max(1, impl.options.threads);
  impl.threadsRunning = count;
  for (int i = 0; i < count; ++i) {
    impl.threads.emplace_back([&impl] {
      for (;;) {
        try {
          impl.ioc.run();
          break;
        } catch (...) {
          // A handler threw: keep serving.
        }
      }
      std::lock_guard lock(impl.threadsMu);
      --impl.threadsRunning;
      impl.threadsCv.notify_all();
    });
  }
}

uint16_t FakeApiServer::port() const { return impl_->port; }

std::string FakeApiServer::url() const {
  return std::string(impl_->options.plainHttp ? "http" : "https") +
         "://127.0.0.1:" + std::to_string(impl_->port);
}

void FakeApiServer::stop() {
  auto& impl = *impl_;
  if (!impl.started || impl.stopped) return;
  impl.stopped = true;
  std::vector<std::shared_ptr<SessionBase>> open;
  {
    std::lock_guard lock(impl.sessionsMu);
    impl.stopping = true;
    for (auto& [ptr, weak] : impl.sessions) {
      if (auto session = weak.lock()) open.push_back(std::move(session));
    }
  }
  asio::post(impl.acceptor->get_executor(), [&impl] {
    ErrorCode ec;
    impl.acceptor->close(ec);
  });
  for (auto& session : open) session->closeFromOutside();
  open.clear();
  {
    std::unique_lock lock(impl.threadsMu);
    if (!impl.threadsCv.wait_for(lock, std::chrono::seconds(5),
                                 [&impl] { return impl.threadsRunning == 0; })) {
      impl.ioc.stop();
    }
  }
  for (auto& thread : impl.threads) thread.join();
  impl.threads.clear();
  std::lock_guard lock(impl.metaMu);
  impl.stalled.clear();  // the sessions hold the server: no cycle left behind
}

void FakeApiServer::addCustomResource(const CustomResource& resource) {
  std::lock_guard lock(impl_->mu);
  auto& impl = *impl_;
  if (impl.resourceIndex(resource.group, resource.version, resource.resource) >= 0) {
    throw std::runtime_error("fake API server: " + resource.resource + "." + resource.group +
                             " is served already");
  }
  ResourceInfo info{resource.resource,   resource.kind,
                    resource.group,      resource.version,
                    resource.namespaced,
                    /*custom=*/true,     resource.statusSubresource};
  impl.resources.push_back(std::move(info));
  impl.objects.emplace_back();
  impl.watchers.emplace_back();
}

namespace {

// The resource's index under the server's mutex, or a throw naming it.
int indexOf(const FakeApiServer::Impl& impl, const std::string& resource) {
  int index = impl.resourceIndex(resource);
  if (index < 0) throw std::runtime_error("fake API server: unknown resource " + resource);
  return index;
}

}  // namespace

boost::json::object FakeApiServer::create(const std::string& resource, boost::json::object object) {
  std::lock_guard lock(impl_->mu);
  auto outcome = impl_->createLocked(indexOf(*impl_, resource), "", std::move(object));
  if (outcome.code >= 400) {
    throw std::runtime_error("fake API server: create " + resource + ": " +
                             stringAt(outcome.status, {"message"}));
  }
  return *outcome.object;
}

boost::json::object FakeApiServer::update(const std::string& resource, boost::json::object object) {
  std::lock_guard lock(impl_->mu);
  auto outcome =
      impl_->replaceLocked(indexOf(*impl_, resource), "", "", std::move(object), false, false);
  if (outcome.code >= 400) {
    throw std::runtime_error("fake API server: update " + resource + ": " +
                             stringAt(outcome.status, {"message"}));
  }
  return *outcome.object;
}

boost::json::object FakeApiServer::updateStatus(const std::string& resource,
                                                boost::json::object object) {
  std::lock_guard lock(impl_->mu);
  auto outcome =
      impl_->replaceLocked(indexOf(*impl_, resource), "", "", std::move(object), true, false);
  if (outcome.code >= 400) {
    throw std::runtime_error("fake API server: update status " + resource + ": " +
                             stringAt(outcome.status, {"message"}));
  }
  return *outcome.object;
}

void FakeApiServer::remove(const std::string& resource, const std::string& ns,
                           const std::string& name) {
  std::lock_guard lock(impl_->mu);
  auto outcome = impl_->deleteLocked(indexOf(*impl_, resource), ns, name, "");
  if (outcome.code >= 400) {
    throw std::runtime_error("fake API server: delete " + resource + ": " +
                             stringAt(outcome.status, {"message"}));
  }
}

std::optional<boost::json::object> FakeApiServer::get(const std::string& resource,
                                                      const std::string& ns,
                                                      const std::string& name) const {
  std::lock_guard lock(impl_->mu);
  int index = impl_->resourceIndex(resource);
  if (index < 0) return std::nullopt;
  const auto& table = impl_->objects[index];
  auto found = table.find({impl_->resources[index].namespaced ? ns : std::string(), name});
  if (found == table.end()) return std::nullopt;
  return *found->second.object;
}

std::vector<boost::json::object> FakeApiServer::list(const std::string& resource) const {
  std::vector<boost::json::object> out;
  std::lock_guard lock(impl_->mu);
  int index = impl_->resourceIndex(resource);
  if (index < 0) return out;
  for (const auto& [key, stored] : impl_->objects[index]) out.push_back(*stored.object);
  return out;
}

std::string FakeApiServer::resourceVersion() const {
  std::lock_guard lock(impl_->mu);
  return std::to_string(impl_->rv);
}

void FakeApiServer::dropWatches() {
  std::lock_guard lock(impl_->mu);
  for (auto& list : impl_->watchers) {
    for (auto& watcher : list) watcher->push({WatchItem::Kind::kDrop, nullptr});
  }
}

void FakeApiServer::compact() {
  std::lock_guard lock(impl_->mu);
  auto& impl = *impl_;
  impl.compactedRv = impl.rv;
  impl.history.clear();
  ++impl.epoch;
  impl.continues.clear();
  impl.continueOrder.clear();
  for (auto& list : impl.watchers) {
    for (auto& watcher : list) {
      watcher->push({WatchItem::Kind::kLine, impl.expiredLine(impl.rv > 0 ? impl.rv - 1 : 0)});
      watcher->push({WatchItem::Kind::kEnd, nullptr});
    }
  }
}

void FakeApiServer::failNext(std::string methodAndPathPrefix, int status, int count,
                             int retryAfterSeconds) {
  if (count <= 0) return;
  std::lock_guard lock(impl_->metaMu);
  impl_->failRules.push_back({std::move(methodAndPathPrefix), status, count, retryAfterSeconds});
}

void FakeApiServer::stall(std::string methodAndPathPrefix) {
  std::lock_guard lock(impl_->metaMu);
  impl_->stallPrefixes.push_back(std::move(methodAndPathPrefix));
}

void FakeApiServer::setTokens(std::vector<std::string> tokens) {
  std::lock_guard lock(impl_->metaMu);
  impl_->tokens = std::unordered_set<std::string>(tokens.begin(), tokens.end());
}

void FakeApiServer::setBindDelay(std::chrono::milliseconds delay) {
  std::lock_guard lock(impl_->metaMu);
  impl_->bindDelay = delay;
}

std::vector<std::string> FakeApiServer::stalledRequests() const {
  std::lock_guard lock(impl_->metaMu);
  return impl_->stalledKeys;
}

std::vector<FakeApiServer::Recorded> FakeApiServer::requests() const {
  std::lock_guard lock(impl_->metaMu);
  return impl_->recorded;
}

void FakeApiServer::clearRequests() {
  std::lock_guard lock(impl_->metaMu);
  impl_->recorded.clear();
}

std::size_t FakeApiServer::openWatches() const {
  std::lock_guard lock(impl_->mu);
  std::size_t count = 0;
  for (const auto& list : impl_->watchers) count += list.size();
  return count;
}

std::map<std::string, std::size_t> FakeApiServer::bindCounts() const {
  std::lock_guard lock(impl_->mu);
  return impl_->binds;
}

std::size_t FakeApiServer::bindCount(const std::string& podUid) const {
  std::lock_guard lock(impl_->mu);
  auto found = impl_->binds.find(podUid);
  return found == impl_->binds.end() ? 0 : found->second;
}

}  // namespace sh::kubetest

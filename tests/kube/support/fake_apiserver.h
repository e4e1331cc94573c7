// FakeApiServer: an in-process Kubernetes API server for the API connector's tests and the
// benchmark, over loopback HTTPS (Boost.Beast over OpenSSL) or plain HTTP. It behaves like
// kube-apiserver for what a scheduler does, and lets a test inject faults and see every
// request.
//
// What it serves (kube-apiserver's semantics, see the API concepts: resource versions, watch,
// 410 Gone, chunked lists):
//   GET /version, /api, /apis, /healthz, /readyz; core /api/v1/<res> and
//   /api/v1/namespaces/<ns>/<res>[/<name>[/<sub>]] (pods, nodes, namespaces, services,
//   replicationcontrollers, persistentvolumes, persistentvolumeclaims, configmaps);
//   /apis/apps/v1
//   replicasets, statefulsets; /apis/policy/v1 poddisruptionbudgets;
//   /apis/scheduling.k8s.io/v1 priorityclasses; /apis/coordination.k8s.io/v1 leases;
//   /apis/events.k8s.io/v1 events; /apis/storage.k8s.io/v1 storageclasses, csinodes,
//   csidrivers, csistoragecapacities, volumeattachments; the custom resources a test adds
//   (addCustomResource). Anything else 404, as a CRD not installed.
//   Verbs: GET (one object), list (limit/continue paging over a snapshot kept per token,
//   fieldSelector, labelSelector), watch (watch=1|true; resourceVersion replays history,
//   absent or "0" starts with synthetic ADDED events; timeoutSeconds; allowWatchBookmarks),
//   POST create, PUT update (a body resourceVersion that differs from the stored one is a 409),
//   PATCH (merge patch, JSON patch, strategic merge patch; /status changes only status),
//   DELETE (with DeleteOptions preconditions). Pods also take POST .../pods/<name>/binding and
//   POST .../namespaces/<ns>/bindings.
//   PersistentVolumes, PersistentVolumeClaims and VolumeAttachments follow their registry
//   strategies: a create starts the status anew (phase Pending for the first two), a write of
//   the main resource (PUT, PATCH) leaves it as it was, and only /status changes it.
//   StorageClasses, CSINodes, CSIDrivers and CSIStorageCapacities have no /status.
//   Custom resources follow apiextensions-apiserver: no strategic merge patch (415);
//   metadata.generation starts at 1 and grows when anything but metadata and status changes;
//   with a status subresource, a create or a write of the main resource leaves the status as it
//   was and /status changes nothing else.
//   One resourceVersion counter for everything; each change is a watch event kept in a bounded
//   history. A watch on a field or label selector sees an object that stops matching as
//   DELETED and one that starts matching as ADDED (apiserver `cacheWatcher`).
//   Errors are Status bodies. A request whose Accept header puts
//   "application/vnd.kubernetes.protobuf" first is answered in protobuf for the kinds with a
//   schema (host/connectors/kube/proto): objects, lists, Status bodies and watch frames
//   ("...;stream=watch"); custom resources and the discovery paths stay JSON, as
//   kube-apiserver's. Authentication: a bearer token from `tokens`, or a client
//   certificate signed by tls.caCert (user = its CN), else 401 (unless allowAnonymous).
//
// Threading: every public method is thread-safe. Requests are served by `threads` io threads;
// each watch event is serialised once and its bytes shared by every watcher; a slow watcher
// only grows its own queue. stop() (and the destructor) closes every connection and joins.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/kube/support/test_certs.h"

namespace sh::kubetest {

class FakeApiServer {
 public:
  struct Options {
    TlsMaterial tls;                    // server cert/key; caCert verifies client certificates
    bool plainHttp = false;             // serve http:// (benchmarks)
    std::vector<std::string> tokens;    // accepted bearer tokens (see setTokens)
    bool acceptClientCerts = true;      // a client cert signed by tls.caCert authenticates
    bool allowAnonymous = false;        // no credentials needed (user "system:anonymous")
    std::size_t historyLimit = 100000;  // watch events kept; older resourceVersions get 410
    // > 0: each watch body write is cut into pieces of random size 1..watchChunkMax (lines
    // split anywhere), each written as its own HTTP chunk.
    std::size_t watchChunkMax = 0;
    // > 0: BOOKMARK events this often on watches that asked allowWatchBookmarks=true.
    std::chrono::milliseconds bookmarkInterval{0};
    bool recordRequests = true;  // false: requests() stays empty (long benchmarks)
    // TokenReviews (POST authentication.k8s.io/v1 tokenreviews): the token's user name and
    // groups; any other token is not authenticated.
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> reviewTokens;
    // SubjectAccessReviews (authorization.k8s.io/v1): "USER VERB PATH" entries allowed; any
    // other is denied with the reason "no RBAC policy matched".
    std::vector<std::string> allowedAccess;
    int threads = 2;
    uint64_t seed = 1;
  };

  // One request as the server saw it.
  struct Recorded {
    std::string method, path /* without query */, query, contentType, body, user;
    int status = 0;
    std::string verb;      // get list watch create update patch delete ("" for /version, ...)
    std::string resource;  // "pods", "pods/binding", "pods/status", "leases", ...
    std::string apiGroup;  // "" (core), "apps", "events.k8s.io", ...
    std::chrono::steady_clock::time_point at;  // when it was answered
    std::string accept;                        // the Accept header
  };

  explicit FakeApiServer(Options options);
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  // Listens on 127.0.0.1, an ephemeral port. Throws std::runtime_error on failure.
  void start();
  uint16_t port() const;
  std::string url() const;  // "https://127.0.0.1:<port>" ("http://" with plainHttp)
  // Closes the listener and every connection, joins the io threads. Idempotent.
  void stop();

  // A custom resource, as its CustomResourceDefinition declares it.
  struct CustomResource {
    std::string group;     // "scheduling.x-k8s.io"
    std::string version;   // "v1alpha1"
    std::string resource;  // "podgroups"
    std::string kind;      // "PodGroup"
    bool namespaced = true;
    bool statusSubresource = true;  // spec.versions[].subresources.status
  };
  // Serves `resource` from now on, as kube-apiserver does once its CustomResourceDefinition
  // is established: until then its paths answer 404. Throws when it is served already.
  void addCustomResource(const CustomResource& resource);

  // Objects, by plural resource name (pods, nodes, namespaces, services, replicasets,
  // statefulsets, replicationcontrollers, configmaps, poddisruptionbudgets, priorityclasses,
  // leases, events, the storage kinds above, the custom resources) or by qualified name
  // ("podgroups.scheduling.x-k8s.io"). Each returns the stored object (resourceVersion, uid,
  // creationTimestamp set) and makes a watch event like the same request over HTTP, with the
  // same status rules (a PersistentVolumeClaim's status is set by updateStatus, not by create
  // or update). Throw std::runtime_error with the Status message on failure (exists, missing,
  // unknown resource).
  boost::json::object create(const std::string& resource, boost::json::object object);
  boost::json::object update(const std::string& resource, boost::json::object object);
  // As a PUT to the status subresource: only the object's status is taken.
  boost::json::object updateStatus(const std::string& resource, boost::json::object object);
  void remove(const std::string& resource, const std::string& ns, const std::string& name);
  std::optional<boost::json::object> get(const std::string& resource, const std::string& ns,
                                         const std::string& name) const;
  std::vector<boost::json::object> list(const std::string& resource) const;
  std::string resourceVersion() const;  // the current one

  // Faults.
  // Closes every open watch connection abruptly (no terminating chunk, no TLS close_notify).
  void dropWatches();
  // Forgets all history up to now: watches and lists from older resourceVersions get 410,
  // each open watch gets an in-stream ERROR event (Expired, 410) and ends, continue tokens
  // issued before expire.
  void compact();
  // The next `count` requests whose "METHOD path?query" starts with `methodAndPathPrefix`
  // (e.g. "POST /api/v1/namespaces/") are answered `status` with a Status body (and
  // Retry-After when retryAfterSeconds > 0), after authentication.
  void failNext(std::string methodAndPathPrefix, int status, int count, int retryAfterSeconds = 0);
  // From now on, requests whose "METHOD path?query" starts with `methodAndPathPrefix` ("" for
  // all) are read and never answered: the connection stays open and silent, as a server that
  // hangs. Watches already open go on.
  void stall(std::string methodAndPathPrefix);
  void setTokens(std::vector<std::string> tokens);
  void setBindDelay(std::chrono::milliseconds delay);  // each binding waits this long first

  // Recording.
  std::vector<Recorded> requests() const;
  void clearRequests();
  std::size_t openWatches() const;
  // "METHOD target" of each request held by stall(), in arrival order.
  std::vector<std::string> stalledRequests() const;
  // Successful bindings per pod uid, and one pod's count.
  std::map<std::string, std::size_t> bindCounts() const;
  std::size_t bindCount(const std::string& podUid) const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace sh::kubetest

#include "host/connectors/kube/kube_cluster.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/json/object.hpp>

#include "host/connectors/kube/event_recorder.h"
#include "host/connectors/kube/json_members.h"
#include "host/connectors/kube/status_patch.h"
#include "host/connectors/pod_patch.h"

namespace sh::kube {

namespace {

using connectors::ClusterChange;
using connectors::PreparedChange;
using Type = ClusterChange::Type;

std::string versionOf(const boost::json::value& object) {
  const boost::json::object* o = object.if_object();
  const boost::json::value* meta = o != nullptr ? o->if_contains("metadata") : nullptr;
  if (meta == nullptr || !meta->is_object()) {
    return {};
  }
  return std::string(stringAt(meta->as_object(), "resourceVersion"));
}

Type typeOf(WatchEventType t) {
  switch (t) {
    case WatchEventType::kAdded:
      return Type::kAdded;
    case WatchEventType::kModified:
      return Type::kModified;
    case WatchEventType::kDeleted:
      return Type::kDeleted;
  }
  return Type::kModified;
}

ClusterChange podChange(Type type, std::shared_ptr<const model::Pod> old,
                        std::shared_ptr<const model::Pod> cur) {
  ClusterChange c;
  c.type = type;
  c.kind = ClusterChange::Kind::kPod;
  c.oldPod = std::move(old);
  c.curPod = std::move(cur);
  c.source = "watch";
  return c;
}

ClusterChange nodeChange(Type type, std::shared_ptr<const model::Node> old,
                         std::shared_ptr<const model::Node> cur) {
  ClusterChange c;
  c.type = type;
  c.kind = ClusterChange::Kind::kNode;
  c.oldNode = std::move(old);
  c.curNode = std::move(cur);
  c.source = "watch";
  return c;
}

std::string podKeyOf(const model::Pod& pod) {
  return connectors::podKey(pod.namespaceName(), pod.name());
}

// The 409 the API server answers a bind of a pod that has a node: `... is already assigned to
// node "n1"`.
bool alreadyAssigned(const Response& r) { return r.status == 409; }

}  // namespace

KubeCluster::KubeCluster(Transport& transport, Options options)
    : transport_(transport), options_(std::move(options)) {
  queue_.coalesce(options_.coalesce);
}

KubeCluster::~KubeCluster() {
  stop();
  stopObjectWatches();
  for (auto& r : reflectors_) {
    r->requestStop();
  }
  for (auto& r : reflectors_) {
    r->stop();
  }
  stopWrites_.request_stop();
  {
    std::lock_guard<std::mutex> lock(writeMu_);
    writeWake_.notify_all();
  }
  writers_.clear();  // joins
}

void KubeCluster::start() {
  // spdlog builds its registry on first use; the reflectors' threads all log at once when a
  // watch expires, so it is built here first, on one thread (libspdlog's own guard is not
  // visible to ThreadSanitizer).
  spdlog::default_logger_raw();
  for (const Resource& r : watchedResources()) {
    prepared_[std::string(r.kind)];
  }
  for (const Resource& r : watchedResources()) {
    ReflectorSink& sink = *this;
    reflectors_.push_back(std::make_unique<Reflector>(transport_, r, sink, options_.reflector));
  }
  for (auto& r : reflectors_) {
    r->start();
  }
  std::vector<ObjectWatch*> declared;
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = true;
    for (auto& [id, state] : objectKinds_) {
      if (!state.started) {
        state.started = true;
        declared.push_back(state.watch.get());
      }
    }
  }
  for (ObjectWatch* w : declared) {
    w->start();
  }
  for (int i = 0; i < std::max(1, options_.statusWriters); ++i) {
    writers_.emplace_back([this](std::stop_token) { writerLoop(stopWrites_.get_token()); });
  }
}

bool KubeCluster::synced() const {
  if (reflectors_.empty() || !std::all_of(reflectors_.begin(), reflectors_.end(),
                                          [](const auto& r) { return r->synced(); })) {
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  return std::all_of(objectKinds_.begin(), objectKinds_.end(), [](const auto& entry) {
    return !entry.second.atStart || entry.second.watch->synced();
  });
}

bool KubeCluster::waitForSync(std::chrono::milliseconds timeout, std::stop_token stop) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!synced()) {
    if (stop.stop_requested() || std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::string KubeCluster::syncProblems() const {
  std::string out;
  for (const auto& r : reflectors_) {
    if (r->synced()) {
      continue;
    }
    const std::string path(r->resource().path);
    out += out.empty() ? "" : "; ";
    out += path.substr(path.rfind('/') + 1);
    if (std::string e = r->lastError(); !e.empty()) {
      out += " (" + e + ")";
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [id, state] : objectKinds_) {
    if (!state.atStart || state.watch->synced()) {
      continue;
    }
    out += out.empty() ? "" : "; ";
    out += state.watch->kind().resourceName();
    if (std::string e = state.watch->lastError(); !e.empty()) {
      out += " (" + e + ")";
    }
  }
  return out;
}

void KubeCluster::activate() {
  std::lock_guard<std::mutex> lock(mu_);
  if (active_) {
    return;
  }
  active_ = true;
  // As the embedded cluster's initial state: nodes, then pods, each in name order.
  std::vector<const std::string*> names;
  names.reserve(nodes_.size());
  for (const auto& [name, entry] : nodes_) {
    names.push_back(&name);
  }
  std::sort(names.begin(), names.end(), [](auto* a, auto* b) { return *a < *b; });
  for (const std::string* name : names) {
    pushLocked(nodeChange(Type::kAdded, nullptr, nodes_.at(*name).node));
  }
  // The objects of the declared kinds before the pods that may wait for them.
  for (const auto& [id, state] : objectKinds_) {
    if (state.listed) {
      pushRelistLocked(id, state);
    }
  }
  names.clear();
  for (const auto& [key, entry] : pods_) {
    names.push_back(&key);
  }
  std::sort(names.begin(), names.end(), [](auto* a, auto* b) { return *a < *b; });
  for (const std::string* key : names) {
    pushLocked(podChange(Type::kAdded, nullptr, pods_.at(*key).pod));
  }
  queue_.notify();
}

// ---------------------------------------------------------------------------------------
// The store, fed by the reflectors.

void KubeCluster::warn(const std::string& message) {
  if (options_.warn) {
    options_.warn(message);
  } else {
    spdlog::warn("{}", message);
  }
}

std::optional<PreparedChange> KubeCluster::prepare(Type type, boost::json::value&& object,
                                                   std::string& version, std::string_view text) {
  version = versionOf(object);
  std::string error;
  std::optional<PreparedChange> change =
      connectors::prepareChange(type, std::move(object), error, text);
  if (!change) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.rejected;
    }
    warn("kubernetes: ignored an object: " + error);
  }
  return change;
}

void KubeCluster::replace(const Resource& resource, std::vector<boost::json::value>&& items) {
  // Parsed outside the lock: the slow part.
  std::vector<std::pair<PreparedChange, std::string>> prepared;
  prepared.reserve(items.size());
  for (boost::json::value& item : items) {
    std::string version;
    if (auto c = prepare(Type::kAdded, std::move(item), version)) {
      prepared.emplace_back(std::move(*c), std::move(version));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::unordered_set<std::string> listed;
  listed.reserve(prepared.size());
  for (const auto& [c, version] : prepared) {
    listed.insert(c.key);
  }
  // What the list no longer has was deleted while we were not watching.
  if (resource.kind == "Pod") {
    for (auto it = pods_.begin(); it != pods_.end();) {
      if (listed.count(it->first) == 0) {
        pushLocked(podChange(Type::kDeleted, it->second.pod, nullptr));
        it = pods_.erase(it);
      } else {
        ++it;
      }
    }
  } else if (resource.kind == "Node") {
    for (auto it = nodes_.begin(); it != nodes_.end();) {
      if (listed.count(it->first) == 0) {
        pushLocked(nodeChange(Type::kDeleted, it->second.node, nullptr));
        it = nodes_.erase(it);
      } else {
        ++it;
      }
    }
  } else if (auto kind = raw_.find(resource.kind); kind != raw_.end()) {
    for (auto it = kind->second.begin(); it != kind->second.end();) {
      if (listed.count(it->first) == 0) {
        it = kind->second.erase(it);
        ++rawGeneration_;
      } else {
        ++it;
      }
    }
  }
  for (auto& [c, version] : prepared) {
    applyLocked(std::move(c), std::move(version));
  }
  queue_.notify();
}

void KubeCluster::apply(const Resource& resource, WatchEventType type, boost::json::value&& object,
                        std::string_view text) {
  std::string version;
  std::optional<PreparedChange> c = prepare(typeOf(type), std::move(object), version, text);
  if (!c) {
    return;
  }
  if (c->needsAdmission()) {
    // The manifest waits for admission under the lock, after the event's arena is gone.
    c->unadmitted = boost::json::value(*c->unadmitted, boost::json::storage_ptr());
  }
  auto pending = prepared_.find(std::string(resource.kind));
  if (pending != prepared_.end()) {
    pending->second.emplace_back(std::move(*c), std::move(version));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  const bool wasEmpty = queue_.empty();
  applyLocked(std::move(*c), std::move(version));
  if (wasEmpty) {
    queue_.notify();
  }
}

void KubeCluster::flush(const Resource& resource) {
  auto pending = prepared_.find(std::string(resource.kind));
  if (pending == prepared_.end() || pending->second.empty()) {
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  // The loop waits only on an empty queue, and was woken when it stopped being empty: changes
  // added behind others need no wake-up.
  const bool wasEmpty = queue_.empty();
  for (auto& [c, version] : pending->second) {
    applyLocked(std::move(c), std::move(version));
  }
  pending->second.clear();
  if (wasEmpty) {
    queue_.notify();
  }
}

void KubeCluster::applyLocked(PreparedChange&& c, std::string version) {
  ++stats_.objectsApplied;
  if (c.kind == "Pod") {
    applyPodLocked(std::move(c), std::move(version));
  } else if (c.kind == "Node") {
    applyNodeLocked(std::move(c), std::move(version));
  } else {
    applyRawLocked(std::move(c));
  }
}

void KubeCluster::applyPodLocked(PreparedChange&& c, std::string version) {
  auto it = pods_.find(c.key);
  if (c.type == Type::kDeleted) {
    if (it != pods_.end()) {
      pushLocked(podChange(Type::kDeleted, it->second.pod, nullptr));
      pods_.erase(it);
    }
    return;
  }
  if (it != pods_.end() && !version.empty() && it->second.resourceVersion == version) {
    ++stats_.unchanged;
    return;
  }
  if (c.needsAdmission()) {
    // A pod without spec.priority (an API server always sets it; the test server may not).
    std::string error;
    const model::Pod* stored = it != pods_.end() ? it->second.pod.get() : nullptr;
    if (!connectors::admitPod(c, clusterObjectsLocked().get(), stored, error)) {
      ++stats_.rejected;
      warn("kubernetes: ignored a pod: " + error);
      return;
    }
  }
  if (it == pods_.end()) {
    pods_.emplace(c.key, PodEntry{c.pod, std::move(version)});
    pushLocked(podChange(Type::kAdded, nullptr, c.pod));
    return;
  }
  std::shared_ptr<const model::Pod> old = it->second.pod;
  it->second = PodEntry{c.pod, std::move(version)};
  if (old->uid() != c.pod->uid()) {
    // Recreated under the same name while we were not watching: two pods, not one.
    pushLocked(podChange(Type::kDeleted, std::move(old), nullptr));
    pushLocked(podChange(Type::kAdded, nullptr, c.pod));
    return;
  }
  pushLocked(podChange(Type::kModified, std::move(old), c.pod));
}

void KubeCluster::applyNodeLocked(PreparedChange&& c, std::string version) {
  auto it = nodes_.find(c.key);
  if (c.type == Type::kDeleted) {
    if (it != nodes_.end()) {
      pushLocked(nodeChange(Type::kDeleted, it->second.node, nullptr));
      nodes_.erase(it);
    }
    return;
  }
  if (it == nodes_.end()) {
    nodes_.emplace(c.key, NodeEntry{c.node, std::move(version)});
    pushLocked(nodeChange(Type::kAdded, nullptr, c.node));
    return;
  }
  if (!version.empty() && it->second.resourceVersion == version) {
    ++stats_.unchanged;
    return;
  }
  std::shared_ptr<const model::Node> old = std::move(it->second.node);
  it->second = NodeEntry{c.node, std::move(version)};
  pushLocked(nodeChange(Type::kModified, std::move(old), c.node));
}

void KubeCluster::applyRawLocked(PreparedChange&& c) {
  auto& kind = raw_[c.kind];
  if (c.type == Type::kDeleted) {
    if (kind.erase(c.key) > 0) {
      ++rawGeneration_;
    }
    return;
  }
  kind[c.key] = std::move(c.raw);
  ++rawGeneration_;
}

void KubeCluster::pushLocked(ClusterChange change) {
  if (!active_ || stopped_) {
    return;
  }
  ++stats_.changesQueued;
  queue_.push(std::move(change));
}

std::shared_ptr<const model::ClusterObjects> KubeCluster::clusterObjectsLocked() const {
  if (objectsGeneration_ == rawGeneration_) {
    return objects_;
  }
  auto objects = std::make_shared<model::ClusterObjects>();
  for (const char* kindName : {"Namespace", "Service", "ReplicationController", "ReplicaSet",
                               "StatefulSet", "PodDisruptionBudget", "PriorityClass"}) {
    auto kind = raw_.find(std::string_view(kindName));
    if (kind == raw_.end()) {
      continue;
    }
    for (const auto& [key, object] : kind->second) {
      std::string error;
      if (!objects->add(*object, error)) {
        spdlog::warn("kubernetes: {} {}: {}", kindName, key, error);
      }
    }
  }
  objectsGeneration_ = rawGeneration_;
  objects_ = objects->size() > 0 ? std::move(objects) : nullptr;
  return objects_;
}

std::shared_ptr<const model::ClusterObjects> KubeCluster::clusterObjects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return clusterObjectsLocked();
}

// ---------------------------------------------------------------------------------------
// Connector: the loop's side.

std::optional<ClusterChange> KubeCluster::next(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return queue_.next(lock, timeout, stopped_);
}

std::size_t KubeCluster::nextBatch(std::vector<ClusterChange>& out,
                                   std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return queue_.takeAll(lock, timeout, stopped_, out);
}

bool KubeCluster::exhausted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

std::size_t KubeCluster::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

void KubeCluster::cancelBinds() { stopBinds_.request_stop(); }

void KubeCluster::stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  queue_.notify();
}

// ---------------------------------------------------------------------------------------
// Writes.

Response KubeCluster::sendWrite(const Request& request) {
  return sendWithRetry(transport_, request, options_.writeRetry, stopWrites_.get_token());
}

Status KubeCluster::bind(const model::Pod& pod, std::string_view nodeName) {
  Request request;
  request.method = Method::kPost;
  request.path = podPath(pod.namespaceName(), pod.name()) + "/binding";
  request.body = bindingBody(pod, nodeName);
  request.stop = stopBinds_.get_token();
  request.rateClass = RateClass::kBinding;
  Response response = sendWrite(request);
  const std::string key = podKeyOf(pod);
  if (response.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.binds;
    return Status::success();
  }
  const std::string why = describeFailure(response);
  if (alreadyAssigned(response)) {
    const std::string ours = "node \"" + std::string(nodeName) + "\"";
    if (why.find("already assigned to " + ours) != std::string::npos) {
      // An earlier attempt of this bind landed, and its answer was lost.
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.binds;
      return Status::success();
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.bindConflicts;
    boundElsewhere_.insert(std::string(pod.uid()));
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.writeFailures;
  }
  return Status::error("binding pod " + key + " to node \"" + std::string(nodeName) + "\": " + why);
}

Status KubeCluster::deletePod(const model::Pod& pod, std::string_view reason) {
  Request request;
  request.method = Method::kDelete;
  request.path = podPath(pod.namespaceName(), pod.name());
  request.body = deleteOptionsBody(pod);
  request.stop = stopBinds_.get_token();
  Response response = sendWrite(request);
  std::lock_guard<std::mutex> lock(mu_);
  if (!response.ok()) {
    ++stats_.writeFailures;
    return Status::error("deleting pod " + podKeyOf(pod) + ": " + describeFailure(response));
  }
  ++stats_.deletes;
  spdlog::debug("kubernetes: deleted pod {}: {}", podKeyOf(pod), reason);
  return Status::success();
}

Status KubeCluster::preemptPod(const model::Pod& pod, std::string_view message) {
  std::shared_ptr<const model::Pod> stored = this->pod(pod.namespaceName(), pod.name());
  if (stored != nullptr && stored->uid() == pod.uid()) {
    if (auto patch = disruptionTargetPatch(*stored, message, connectors::rfc3339Now())) {
      Request request;
      request.method = Method::kPatch;
      request.path = podPath(pod.namespaceName(), pod.name()) + "/status";
      request.contentType = std::string(kStrategicMergePatch);
      request.body = std::move(*patch);
      Response response = sendWrite(request);
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.statusPatches;
      if (!response.ok()) {
        ++stats_.writeFailures;
        return Status::error("preempting pod " + podKeyOf(pod) + ": " + describeFailure(response));
      }
    }
  }
  return deletePod(pod, message);
}

Status KubeCluster::clearNominatedNodeName(const model::Pod& pod) {
  std::shared_ptr<const model::Pod> stored = this->pod(pod.namespaceName(), pod.name());
  if (stored == nullptr || stored->uid() != pod.uid()) {
    return Status::error("pod " + podKeyOf(pod) + " not found");
  }
  std::optional<std::string> patch = clearNominationPatch(*stored);
  if (!patch) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.statusSkipped;
    return Status::success();
  }
  Write w;
  w.key = podKeyOf(pod);
  w.request.method = Method::kPatch;
  w.request.path = podPath(pod.namespaceName(), pod.name()) + "/status";
  w.request.contentType = std::string(kStrategicMergePatch);
  w.request.body = std::move(*patch);
  enqueueWrite(std::move(w));
  return Status::success();
}

void KubeCluster::recordFailure(const connectors::SchedulingFailure& failure) {
  if (failure.pod == nullptr) {
    return;
  }
  const std::string key = podKeyOf(*failure.pod);
  std::shared_ptr<const model::Pod> stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(key);
    // Gone, recreated, bound by now, or bound elsewhere: nothing to say about it.
    if (it == pods_.end() || it->second.pod->uid() != failure.pod->uid() ||
        !it->second.pod->nodeName().empty() ||
        boundElsewhere_.count(std::string(failure.pod->uid())) > 0) {
      ++stats_.statusSkipped;
      return;
    }
    stored = it->second.pod;
  }
  std::optional<std::string> patch =
      schedulingFailurePatch(*stored, failure.reason, connectors::truncateNote(failure.message),
                             failure.nominatedNodeName, connectors::rfc3339Now());
  if (!patch) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.statusSkipped;
    return;
  }
  Write w;
  w.key = key;
  w.request.method = Method::kPatch;
  w.request.path = podPath(failure.pod->namespaceName(), failure.pod->name()) + "/status";
  w.request.contentType = std::string(kStrategicMergePatch);
  w.request.body = std::move(*patch);
  enqueueWrite(std::move(w));
}

void KubeCluster::recordEvent(const connectors::EventRecord& event) {
  connectors::EventRecord e = event;
  e.message = connectors::truncateNote(std::move(e.message));
  std::shared_ptr<const model::Pod> regarding;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(e.podKey);
    if (it != pods_.end()) {
      regarding = it->second.pod;
      if (e.reason == "FailedScheduling" &&
          boundElsewhere_.count(std::string(regarding->uid())) > 0) {
        return;
      }
    }
  }
  if (options_.eventLog != nullptr) {
    options_.eventLog->event(e);
  }
  if (options_.events == nullptr) {
    return;
  }
  KubeEvent k;
  k.type = e.type;
  k.reason = e.reason;
  k.action = e.action;
  k.note = e.message;
  const std::size_t slash = e.podKey.find('/');
  k.regarding.kind = "Pod";
  k.regarding.apiVersion = "v1";
  k.regarding.namespaceName = slash == std::string::npos ? "" : e.podKey.substr(0, slash);
  k.regarding.name = slash == std::string::npos ? e.podKey : e.podKey.substr(slash + 1);
  k.reportingController = "default-scheduler";
  if (regarding != nullptr) {
    k.regarding.uid = std::string(regarding->uid());
    const sh_str scheduler = regarding->view().scheduler_name;
    if (scheduler.len > 0) {
      k.reportingController = std::string(scheduler.ptr, scheduler.len);
    }
  }
  options_.events->record(std::move(k));
}

void KubeCluster::enqueueWrite(Write write) {
  std::lock_guard<std::mutex> lock(writeMu_);
  auto [it, inserted] = writes_.insert_or_assign(write.key, std::move(write.request));
  if (inserted) {
    writeOrder_.push_back(write.key);
  }
  writeWake_.notify_one();
}

void KubeCluster::writerLoop(std::stop_token stop) {
  std::unique_lock<std::mutex> lock(writeMu_);
  while (true) {
    writeWake_.wait(lock, stop, [this] { return !writeOrder_.empty(); });
    if (writeOrder_.empty()) {
      return;  // stopped
    }
    std::string key = std::move(writeOrder_.front());
    writeOrder_.pop_front();
    auto it = writes_.find(key);
    Request request = std::move(it->second);
    writes_.erase(it);
    ++writesInFlight_;
    lock.unlock();
    Response response = sendWrite(request);
    {
      std::lock_guard<std::mutex> statsLock(mu_);
      ++stats_.statusPatches;
      if (!response.ok()) {
        ++stats_.writeFailures;
      }
    }
    // 404: the pod is gone meanwhile; nothing to tell.
    if (!response.ok() && response.status != 404) {
      warn("kubernetes: updating the status of pod " + key + ": " + describeFailure(response));
    }
    lock.lock();
    --writesInFlight_;
    writeIdle_.notify_all();
  }
}

void KubeCluster::flushWrites(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(writeMu_);
  writeIdle_.wait_for(lock, stopWrites_.get_token(), timeout,
                      [this] { return writeOrder_.empty() && writesInFlight_ == 0; });
}

// ---------------------------------------------------------------------------------------
// For tests and the run summary.

std::shared_ptr<const model::Pod> KubeCluster::pod(std::string_view ns,
                                                   std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(connectors::podKey(ns, name));
  return it == pods_.end() ? nullptr : it->second.pod;
}

std::shared_ptr<const model::Node> KubeCluster::node(std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = nodes_.find(std::string(name));
  return it == nodes_.end() ? nullptr : it->second.node;
}

std::size_t KubeCluster::podCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

std::size_t KubeCluster::nodeCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return nodes_.size();
}

KubeCluster::Stats KubeCluster::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

Reflector::Stats KubeCluster::reflectorStats() const {
  std::vector<Reflector::Stats> each;
  for (const auto& r : reflectors_) {
    each.push_back(r->stats());
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, state] : objectKinds_) {
      each.push_back(state.watch->stats());
    }
  }
  Reflector::Stats sum;
  for (const Reflector::Stats& s : each) {
    sum.lists += s.lists;
    sum.pages += s.pages;
    sum.watches += s.watches;
    sum.expired += s.expired;
    sum.events += s.events;
    sum.bookmarks += s.bookmarks;
    sum.errors += s.errors;
    sum.notServed += s.notServed;
  }
  return sum;
}

}  // namespace sh::kube

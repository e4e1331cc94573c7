// KubeCluster and the kinds plugins declare: one ObjectWatch per ObjectStore kind, its objects
// kept per kind and delivered as kObject changes, the kinds the API server does not serve, and
// the writes plugins make (see the top of kube_cluster.h).
#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/connectors/kube/kube_cluster.h"
#include "host/connectors/kube/object_writer.h"

namespace sh::kube {

namespace {

using connectors::ClusterChange;
using connectors::ObjectPtr;

ClusterChange objectChange(ClusterChange::Type type, std::size_t kind, ObjectPtr object) {
  ClusterChange c;
  c.type = type;
  c.kind = ClusterChange::Kind::kObject;
  c.objectKind = kind;
  c.object = std::move(object);
  c.source = "watch";
  return c;
}

// "plugin Coscheduling", "plugins A, B": who declared a kind, for messages.
std::string pluginsOf(const std::vector<std::string>& plugins) {
  if (plugins.empty()) {
    return "no plugin";
  }
  std::string out = plugins.size() == 1 ? "plugin " : "plugins ";
  for (std::size_t i = 0; i < plugins.size(); ++i) {
    out += (i > 0 ? ", " : "") + plugins[i];
  }
  return out;
}

}  // namespace

void KubeCluster::watchKinds(connectors::ObjectStore& store) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (kindListener_ != nullptr) {
      return;  // once
    }
    objectStore_ = &store;
    kindListener_ = std::make_shared<KindListener>();
    kindListener_->cluster = this;
    watchingKinds_ = true;
  }
  // The store calls it for every kind it has now, before onKindAdded returns, and later for
  // each added, on whichever thread adds it (a reload).
  std::shared_ptr<KindListener> listener = kindListener_;
  store.onKindAdded([listener](std::size_t id, const connectors::ObjectKind& kind) {
    std::lock_guard<std::mutex> lock(listener->mu);
    if (listener->cluster != nullptr) {
      listener->cluster->addObjectKind(id, kind);
    }
  });
  std::lock_guard<std::mutex> lock(mu_);
  watchingKinds_ = false;
}

void KubeCluster::addObjectKind(std::size_t id, const connectors::ObjectKind& kind) {
  ObjectWatch* start = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (objectKinds_.count(id) > 0) {
      return;
    }
    ObjectKindState& state = objectKinds_[id];
    ObjectWatchSink& sink = *this;
    state.watch = std::make_unique<ObjectWatch>(transport_, id, kind, sink, options_.reflector);
    state.atStart = watchingKinds_;
    if (started_) {
      state.started = true;
      start = state.watch.get();
    }
  }
  spdlog::debug("kubernetes: watching {}", kind.describe());
  if (start != nullptr) {
    start->start();
  }
}

void KubeCluster::stopObjectWatches() {
  if (std::shared_ptr<KindListener> listener = kindListener_) {
    // No kind added from now on starts a watch.
    std::lock_guard<std::mutex> lock(listener->mu);
    listener->cluster = nullptr;
  }
  std::vector<ObjectWatch*> watches;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, state] : objectKinds_) {
      watches.push_back(state.watch.get());
    }
  }
  for (ObjectWatch* w : watches) {
    w->requestStop();
  }
  for (ObjectWatch* w : watches) {
    w->stop();
  }
}

std::vector<ObjectPtr> KubeCluster::objects(std::size_t kind) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ObjectPtr> out;
  auto it = objectKinds_.find(kind);
  if (it != objectKinds_.end()) {
    for (const auto& [key, object] : it->second.objects) {
      out.push_back(object);
    }
  }
  return out;
}

void KubeCluster::pushRelistLocked(std::size_t id, const ObjectKindState& state) {
  auto content = std::make_shared<std::vector<ObjectPtr>>();
  content->reserve(state.objects.size());
  for (const auto& [key, object] : state.objects) {
    content->push_back(object);
  }
  ClusterChange c = objectChange(ClusterChange::Type::kAdded, id, nullptr);
  c.relist = std::move(content);
  pushLocked(std::move(c));
}

// ---------------------------------------------------------------------------------------
// ObjectWatchSink, on the watches' threads.

void KubeCluster::objectsListed(std::size_t kind, std::vector<ObjectPtr>&& objects) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objectKinds_.find(kind);
  if (it == objectKinds_.end()) {
    return;
  }
  ObjectKindState& state = it->second;
  if (state.notServed) {
    state.notServed = false;
    spdlog::info("kubernetes: the API server serves {} now", state.watch->kind().describe());
  }
  state.objects.clear();
  for (ObjectPtr& o : objects) {
    std::string key = o->key();
    state.objects.insert_or_assign(std::move(key), std::move(o));
  }
  state.listed = true;
  stats_.objectsApplied += state.objects.size();
  const bool wasEmpty = queue_.empty();
  pushRelistLocked(kind, state);
  if (wasEmpty) {
    queue_.notify();
  }
}

void KubeCluster::objectsChanged(std::size_t kind, std::vector<ObjectWatchSink::Change>&& changes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objectKinds_.find(kind);
  if (it == objectKinds_.end()) {
    return;
  }
  auto& objects = it->second.objects;
  const bool wasEmpty = queue_.empty();
  for (auto& [type, object] : changes) {
    ++stats_.objectsApplied;
    auto stored = objects.find(object->key());
    if (type == WatchEventType::kDeleted) {
      if (stored != objects.end()) {
        objects.erase(stored);
        pushLocked(objectChange(ClusterChange::Type::kDeleted, kind, std::move(object)));
      }
      continue;
    }
    if (stored != objects.end() && object->resourceVersion() != 0 &&
        stored->second->resourceVersion() == object->resourceVersion()) {
      ++stats_.unchanged;
      continue;
    }
    const ClusterChange::Type t =
        stored == objects.end() ? ClusterChange::Type::kAdded : ClusterChange::Type::kModified;
    if (stored == objects.end()) {
      objects.emplace(object->key(), object);
    } else {
      stored->second = object;
    }
    pushLocked(objectChange(t, kind, std::move(object)));
  }
  if (wasEmpty) {
    queue_.notify();
  }
}

void KubeCluster::objectRejected(std::size_t /*kind*/, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.rejected;
  }
  warn(message);
}

void KubeCluster::kindNotServed(std::size_t kind, const std::string& why) {
  connectors::ObjectKind spec;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objectKinds_.find(kind);
    if (it == objectKinds_.end() || it->second.notServed) {
      return;  // said once
    }
    ObjectKindState& state = it->second;
    state.notServed = true;
    ++stats_.kindsNotServed;
    spec = state.watch->kind();
    if (!state.objects.empty()) {
      // Served before (its CustomResourceDefinition was deleted): its objects are gone too.
      state.objects.clear();
      pushRelistLocked(kind, state);
      queue_.notify();
    }
  }
  std::vector<std::string> plugins;
  if (objectStore_ != nullptr) {
    std::vector<connectors::ObjectStore::KindInfo> kinds = objectStore_->kinds();
    if (kind < kinds.size()) {
      plugins = std::move(kinds[kind].plugins);
    }
    objectStore_->markNotServed(kind, why);
  }
  warn("kubernetes: the API server does not serve " + spec.describe() + ", declared by " +
       pluginsOf(plugins) + " (" + why +
       "); they see no objects of it until it is served (is its CustomResourceDefinition "
       "installed?)");
}

// ---------------------------------------------------------------------------------------
// Writes.

Status KubeCluster::writeObject(const connectors::ObjectKind& kind,
                                const connectors::ObjectWrite& write) {
  std::string error;
  std::optional<Request> request = objectWriteRequest(kind, write, error);
  if (!request) {
    return Status::error(error);
  }
  request->stop = stopBinds_.get_token();
  const Response response = sendWrite(*request);
  std::lock_guard<std::mutex> lock(mu_);
  if (!response.ok()) {
    ++stats_.writeFailures;
    ++stats_.objectWriteFailures;
    spdlog::debug("kubernetes: {}: {}", write.describe(kind), describeFailure(response));
    return Status::error(apiMessage(response));
  }
  ++stats_.objectWrites;
  return Status::success();
}

}  // namespace sh::kube

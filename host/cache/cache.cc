#include "host/cache/cache.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <tuple>
#include <utility>

#include "host/common/quoted.h"
#include "host/model/pod_key.h"

namespace sh::cache {
namespace {

std::atomic<uint64_t> g_nextCacheId{1};

// "namespace/name", quoted, as upstream's klog.KObj in messages.
std::string podRef(const model::Pod& pod) { return quoted(model::podKey(pod)); }

// The checks shared by every pod operation: a pod with a UID (the cache's key), and, where
// the pod must sit on a node, a node name.
Status checkPod(const model::Pod* pod, bool needsNode) {
  if (pod == nullptr) {
    return Status::error("pod is null");
  }
  if (pod->uid().empty()) {
    return Status::error("pod " + podRef(*pod) + " has no UID");
  }
  if (needsNode && pod->nodeName().empty()) {
    return Status::error("pod " + podRef(*pod) + " has no node name");
  }
  return Status();
}

}  // namespace

Cache::Cache() : id_(g_nextCacheId.fetch_add(1, std::memory_order_relaxed)) {}

// ---- nodes ----------------------------------------------------------------------------

Status Cache::addNode(std::shared_ptr<const model::Node> node) {
  if (node == nullptr) {
    return Status::error("node is null");
  }
  std::lock_guard<std::mutex> lock(mu_);
  setNode(std::move(node));
  return Status();
}

Status Cache::updateNode(const std::shared_ptr<const model::Node>& /*oldNode*/,
                         std::shared_ptr<const model::Node> newNode) {
  if (newNode == nullptr) {
    return Status::error("node is null");
  }
  std::lock_guard<std::mutex> lock(mu_);
  setNode(std::move(newNode));
  return Status();
}

// AddNode and UpdateNode: the entry (created, or revived from a ghost) takes the new node;
// the tree gains it, or moves it when its zone changed; its images are re-registered.
void Cache::setNode(std::shared_ptr<const model::Node> node) {
  auto it = findOrCreateNode(node->name());
  CachedNode& entry = *it;
  const std::shared_ptr<const model::Node>& old = entry.info.node();
  const sh_node& now = node->view();
  if (old == nullptr) {
    tree_.add(now);
    ++treeVersion_;
  } else if (zoneKey(old->view()) != zoneKey(now)) {
    // The tree's order changes, but not the snapshot's: upstream's UpdateSnapshot rebuilds its
    // node list only when a node was added or removed (updateAllLists), so the node keeps its
    // place there until then.
    tree_.update(old->view(), now);
  }
  if (images_.replace(&entry, old != nullptr ? &old->view() : nullptr, &now)) {
    markImagesStale(entry);
  }
  entry.info.setNode(std::move(node));
  moveToFront(it);
}

Status Cache::removeNode(const model::Node& node) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = findNode(node.name());
  if (it == nodes_.end() || it->info.node() == nullptr) {
    return Status::error("node " + quoted(node.name()) + " is not found");
  }
  // The cached object's images, not the argument's: they are what the index holds.
  images_.replace(&*it, &it->info.node()->view(), nullptr);
  markImagesStale(*it);
  tree_.remove(it->name);
  ++treeVersion_;
  it->info.removeNode();
  // Pod deletions come on another watch and may arrive later: keep a ghost until they do.
  if (it->info.pods().empty()) {
    eraseNode(it);
  } else {
    moveToFront(it);
  }
  return Status();
}

Cache::NodeList::iterator Cache::findNode(std::string_view name) {
  auto it = byName_.find(name);
  return it == byName_.end() ? nodes_.end() : it->second;
}

Cache::NodeList::iterator Cache::findOrCreateNode(std::string_view name) {
  auto it = byName_.find(name);
  if (it != byName_.end()) {
    return it->second;
  }
  nodes_.emplace_front(std::string(name));
  byName_.emplace(nodes_.front().name, nodes_.begin());
  return nodes_.begin();
}

void Cache::moveToFront(NodeList::iterator it) { nodes_.splice(nodes_.begin(), nodes_, it); }

void Cache::eraseNode(NodeList::iterator it) {
  byName_.erase(it->name);
  nodes_.erase(it);
}

// ---- pods -----------------------------------------------------------------------------

Status Cache::assumePod(std::shared_ptr<const model::Pod> pod) {
  if (Status st = checkPod(pod.get(), true); !st.ok()) {
    return st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (pods_.find(pod->uid()) != pods_.end()) {
    return Status::error("pod " + podRef(*pod) + " is in the cache, so can't be assumed");
  }
  addPodLocked(std::move(pod), true);
  return Status();
}

Status Cache::forgetPod(const std::shared_ptr<const model::Pod>& pod) {
  if (Status st = checkPod(pod.get(), false); !st.ok()) {
    return st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod->uid());
  if (it == pods_.end()) {
    return Status();  // no longer cached
  }
  std::shared_ptr<const model::Pod> cached = it->second.pod;
  if (cached->nodeName() != pod->nodeName()) {
    return Status::error("pod " + podRef(*pod) + " was assumed on " + quoted(pod->nodeName()) +
                         " but assigned to " + quoted(cached->nodeName()));
  }
  if (!it->second.assumed) {
    return Status::error("pod " + podRef(*pod) +
                         " is not assumed, so it cannot be removed or forgotten");
  }
  removePodLocked(*cached);
  return Status();
}

Status Cache::finishBinding(const std::shared_ptr<const model::Pod>& /*pod*/) { return Status(); }

Status Cache::addPod(std::shared_ptr<const model::Pod> pod) {
  if (Status st = checkPod(pod.get(), true); !st.ok()) {
    return st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod->uid());
  if (it == pods_.end()) {
    addPodLocked(std::move(pod), false);
    return Status();
  }
  if (!it->second.assumed) {
    return Status::error("pod " + podRef(*pod) + " was already in added state");
  }
  // Confirmation of an assumed pod: the informer's copy replaces ours.
  std::shared_ptr<const model::Pod> assumed = it->second.pod;
  removePodLocked(*assumed);
  if (assumed->nodeName() != pod->nodeName()) {
    spdlog::info(
        "scheduler cache: pod {} was added to a different node than it was assumed "
        "(assumed on {}, added on {})",
        podRef(*pod), quoted(assumed->nodeName()), quoted(pod->nodeName()));
  }
  addPodLocked(std::move(pod), false);
  return Status();
}

Status Cache::updatePod(const std::shared_ptr<const model::Pod>& oldPod,
                        std::shared_ptr<const model::Pod> newPod) {
  if (Status st = checkPod(oldPod.get(), false); !st.ok()) {
    return st;
  }
  if (Status st = checkPod(newPod.get(), true); !st.ok()) {
    return st;
  }
  if (newPod->uid() != oldPod->uid()) {
    return Status::error("pod " + podRef(*newPod) + " changed its UID from " +
                         quoted(oldPod->uid()) + " to " + quoted(newPod->uid()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(oldPod->uid());
  if (it == pods_.end()) {
    return Status::error("pod " + podRef(*oldPod) +
                         " is not added to scheduler cache, so cannot be updated");
  }
  // An assumed pod gets an Add (the binding confirmed) before any Update.
  if (it->second.assumed) {
    return Status::error("assumed pod " + podRef(*oldPod) + " should not be updated");
  }
  std::shared_ptr<const model::Pod> cached = it->second.pod;
  removePodLocked(*cached);
  const bool moved = cached->nodeName() != newPod->nodeName();
  std::string ref = podRef(*newPod);
  std::string newNode(newPod->nodeName());
  addPodLocked(std::move(newPod), false);
  if (moved) {
    // Upstream exits here. The pod now sits on the node the event names.
    return corrupted("pod " + ref + " updated on a different node than previously added to (" +
                     quoted(cached->nodeName()) + " -> " + quoted(newNode) +
                     "); moved the cached pod");
  }
  return Status();
}

Status Cache::removePod(const model::Pod& pod) {
  if (Status st = checkPod(&pod, false); !st.ok()) {
    return st;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod.uid());
  if (it == pods_.end()) {
    return Status::error("pod " + podRef(pod) +
                         " is not found in scheduler cache, so cannot be removed from it");
  }
  std::shared_ptr<const model::Pod> cached = it->second.pod;
  removePodLocked(*cached);
  if (cached->nodeName() != pod.nodeName()) {
    if (pod.nodeName().empty()) {
      // A missed Delete: the informer's last known state may predate the binding.
      spdlog::warn(
          "scheduler cache: pod {} removed without a node name; dropped the copy "
          "cached on {}",
          podRef(pod), quoted(cached->nodeName()));
      return Status();
    }
    // Upstream exits here. The pod is gone either way.
    return corrupted("pod " + podRef(pod) + " was cached on " + quoted(cached->nodeName()) +
                     " but removed from " + quoted(pod.nodeName()) + "; removed the cached copy");
  }
  return Status();
}

void Cache::addPodLocked(std::shared_ptr<const model::Pod> pod, bool assumed) {
  auto it = findOrCreateNode(pod->nodeName());
  it->info.addPod(pod);
  moveToFront(it);
  std::string uid(pod->uid());
  pods_.insert_or_assign(std::move(uid), PodState{std::move(pod), assumed});
  if (assumed) {
    ++assumedCount_;
  }
}

// Drops the pod's state and takes it off its node; a ghost node goes with its last pod.
void Cache::removePodLocked(const model::Pod& cached) {
  auto state = pods_.find(cached.uid());
  if (state != pods_.end()) {
    if (state->second.assumed) {
      --assumedCount_;
    }
  }
  auto it = findNode(cached.nodeName());
  if (it == nodes_.end() || !it->info.removePod(cached.uid())) {
    noteCorruption("pod " + podRef(cached) + " was not on its node " + quoted(cached.nodeName()));
  } else if (it->info.pods().empty() && it->info.node() == nullptr) {
    eraseNode(it);
  } else {
    moveToFront(it);
  }
  // Last: `cached` may be the state's own pod.
  if (state != pods_.end()) {
    pods_.erase(state);
  }
}

void Cache::noteCorruption(const std::string& message) {
  ++corruptions_;
  spdlog::error("scheduler cache was corrupted: {}", message);
}

Status Cache::corrupted(std::string message) {
  noteCorruption(message);
  return Status::error("scheduler cache was corrupted: " + message);
}

bool Cache::isAssumedPod(std::string_view uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it != pods_.end() && it->second.assumed;
}

std::shared_ptr<const model::Pod> Cache::getPod(std::string_view uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second.pod;
}

// ---- snapshot -------------------------------------------------------------------------

Status Cache::updateSnapshot(Snapshot& snapshot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (snapshot.cacheId != id_) {
    rebuildSnapshot(snapshot);
    return Status();
  }
  const uint64_t since = snapshot.generation;
  const uint64_t round = ++publishRound_;
  std::vector<CachedNode*> changed;
  auto collect = [&](CachedNode* n) {
    if (n->publishRound != round && n->info.node() != nullptr) {
      n->publishRound = round;
      changed.push_back(n);
    }
  };
  // The list is ordered by generation, newest first: stop at the first one already seen.
  for (CachedNode& n : nodes_) {
    if (n.info.generation() <= since) {
      break;
    }
    collect(&n);
  }
  // Nodes whose own state is unchanged but whose images' node counts moved.
  images_.forEachHolderChangedAfter(since, collect);

  bool relist = snapshot.nodeTreeVersion != treeVersion_;
  std::unordered_map<std::string_view, std::shared_ptr<model::NodeInfo>> fresh;
  for (CachedNode* n : changed) {
    std::shared_ptr<model::NodeInfo> info = publish(*n);
    if (!relist) {
      auto at = snapshot.byName.find(n->name);
      if (at != snapshot.byName.end()) {
        snapshot.replaceAt(at->second, std::move(info));
        continue;
      }
      relist = true;  // the snapshot lacks a node although the tree did not change
    }
    fresh.emplace(n->name, std::move(info));
  }
  if (relist) {
    relistSnapshot(snapshot, fresh);
  }
  snapshot.generation = std::max(since, latestGeneration());
  snapshot.nodeTreeVersion = treeVersion_;

  if (snapshot.nodeInfos.size() != tree_.size()) {
    std::string message = "snapshot state is not consistent, length of NodeInfoList=" +
                          std::to_string(snapshot.nodeInfos.size()) +
                          " not equal to length of nodes in tree=" + std::to_string(tree_.size()) +
                          ", trying to recover";
    spdlog::error("scheduler cache: {}", message);
    rebuildSnapshot(snapshot);
    return Status::error(std::move(message));
  }
  return Status();
}

void Cache::markImagesStale(CachedNode& node) {
  node.imageEntries.clear();  // some may be gone
  node.imageEntriesStale = true;
}

void Cache::refreshImages(CachedNode& node) {
  if (node.info.node() == nullptr) {
    return;
  }
  if (node.imageEntriesStale) {
    node.info.setImageStates(images_.statesFor(node.info.node()->view(), node.imageEntries));
    node.imageEntriesStale = false;
  } else if (node.imagesEpoch != images_.epoch()) {
    const sh_node_info& v = node.info.view();
    std::vector<sh_image_state> states(v.image_states, v.image_states + v.image_state_count);
    ImageIndex::refresh(node.imageEntries, states);
    node.info.setImageStates(std::move(states));
  }
  node.imagesEpoch = images_.epoch();
}

std::shared_ptr<model::NodeInfo> Cache::publish(CachedNode& node) {
  refreshImages(node);
  return std::make_shared<model::NodeInfo>(node.info);
}

uint64_t Cache::latestGeneration() const {
  uint64_t newest = nodes_.empty() ? 0 : nodes_.front().info.generation();
  return std::max(newest, images_.epoch());
}

// The node order changed: lists the nodes in tree order again, taking this round's copies
// from `fresh` and the unchanged ones from the snapshot itself.
void Cache::relistSnapshot(
    Snapshot& snapshot,
    std::unordered_map<std::string_view, std::shared_ptr<model::NodeInfo>>& fresh) {
  std::vector<std::shared_ptr<model::NodeInfo>> infos;
  infos.reserve(tree_.size());
  for (const std::string& name : tree_.list()) {
    if (auto f = fresh.find(name); f != fresh.end()) {
      infos.push_back(std::move(f->second));
    } else if (auto at = snapshot.byName.find(name); at != snapshot.byName.end()) {
      infos.push_back(snapshot.nodeInfos[at->second]);
    } else if (auto it = findNode(name); it != nodes_.end() && it->info.node() != nullptr) {
      infos.push_back(publish(*it));  // unreachable unless the snapshot lost a node
    }
  }
  snapshot.nodeInfos = std::move(infos);
  snapshot.reindex();
}

void Cache::rebuildSnapshot(Snapshot& snapshot) {
  std::vector<std::shared_ptr<model::NodeInfo>> infos;
  infos.reserve(tree_.size());
  for (const std::string& name : tree_.list()) {
    if (auto it = findNode(name); it != nodes_.end() && it->info.node() != nullptr) {
      infos.push_back(publish(*it));
    }
  }
  snapshot.nodeInfos = std::move(infos);
  snapshot.reindex();
  snapshot.cacheId = id_;
  snapshot.generation = latestGeneration();
  snapshot.nodeTreeVersion = treeVersion_;
}

// ---- introspection --------------------------------------------------------------------

CacheSize Cache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return CacheSize{nodes_.size(), pods_.size(), assumedCount_};
}

uint64_t Cache::corruptionCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return corruptions_;
}

std::pair<std::vector<std::shared_ptr<const model::Node>>,
          std::vector<std::shared_ptr<const model::Pod>>>
Cache::objects() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objectsLocked();
}

std::pair<std::vector<std::shared_ptr<const model::Node>>,
          std::vector<std::shared_ptr<const model::Pod>>>
Cache::objectsLocked() const {
  std::vector<std::shared_ptr<const model::Node>> nodes;
  // tree_.list() is round-robin; its first round names every zone in zone order, so grouping
  // by zone in order of first appearance gives back the insertion order.
  std::vector<std::pair<std::string, std::vector<std::shared_ptr<const model::Node>>>> zones;
  for (const std::string& name : tree_.list()) {
    auto it = byName_.find(name);
    if (it == byName_.end() || it->second->info.node() == nullptr) {
      continue;
    }
    const std::shared_ptr<const model::Node>& node = it->second->info.node();
    std::string zone = zoneKey(node->view());
    auto z =
        std::find_if(zones.begin(), zones.end(), [&](const auto& e) { return e.first == zone; });
    if (z == zones.end()) {
      zones.emplace_back(std::move(zone), std::vector<std::shared_ptr<const model::Node>>{});
      z = zones.end() - 1;
    }
    z->second.push_back(node);
  }
  for (auto& [zone, list] : zones) {
    nodes.insert(nodes.end(), list.begin(), list.end());
  }
  std::vector<std::shared_ptr<const model::Pod>> pods;
  pods.reserve(pods_.size());
  for (const auto& [uid, state] : pods_) {
    pods.push_back(state.pod);
  }
  std::sort(pods.begin(), pods.end(),
            [](const auto& a, const auto& b) { return a->uid() < b->uid(); });
  return {std::move(nodes), std::move(pods)};
}

CacheDump Cache::dumpForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  CacheDump dump;
  std::tie(dump.nodes, dump.pods) = objectsLocked();
  for (const auto& [uid, state] : pods_) {
    if (state.assumed) {
      dump.assumedPods.push_back(uid);
    }
  }
  std::sort(dump.assumedPods.begin(), dump.assumedPods.end());
  for (const CachedNode& n : nodes_) {
    model::NodeInfo copy(n.info);
    if (n.info.node() != nullptr) {
      std::vector<const ImageIndex::Entry*> entries;
      copy.setImageStates(images_.statesFor(n.info.node()->view(), entries));
    }
    dump.nodeInfos.emplace(n.name, std::move(copy));
  }
  return dump;
}

std::vector<std::string> Cache::recencyOrderForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  names.reserve(nodes_.size());
  for (const CachedNode& n : nodes_) {
    names.push_back(n.name);
  }
  return names;
}

std::size_t Cache::imageCountForTest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return images_.size();
}

std::optional<ImageIndex::Summary> Cache::imageForTest(sh_id name) const {
  std::lock_guard<std::mutex> lock(mu_);
  return images_.find(name);
}

}  // namespace sh::cache

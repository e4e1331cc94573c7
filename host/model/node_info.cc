#include "host/model/node_info.h"

#include <algorithm>
#include <atomic>

namespace sh::model {
namespace {

std::atomic<uint64_t> g_generation{0};

bool samePort(const sh_host_port& a, const sh_host_port& b) {
  return a.port == b.port && a.protocol == b.protocol &&
         std::string_view(a.host_ip.ptr, a.host_ip.len) ==
             std::string_view(b.host_ip.ptr, b.host_ip.len);
}

// Removes the first element equal to `p`, swapping the last element into its slot.
void swapRemove(std::vector<const sh_pod*>& list, const sh_pod* p) {
  auto it = std::find(list.begin(), list.end(), p);
  if (it != list.end()) {
    *it = list.back();
    list.pop_back();
  }
}

}  // namespace

uint64_t nextGeneration() { return g_generation.fetch_add(1, std::memory_order_relaxed) + 1; }

NodeInfo::NodeInfo() {
  view_.generation = nextGeneration();
  refreshView();
}

NodeInfo::NodeInfo(std::shared_ptr<const Node> node) : node_(std::move(node)) {
  view_.generation = nextGeneration();
  refreshView();
}

NodeInfo::NodeInfo(const NodeInfo& other)
    : node_(other.node_),
      pods_(other.pods_),
      podViews_(other.podViews_),
      withAffinity_(other.withAffinity_),
      withRequiredAntiAffinity_(other.withRequiredAntiAffinity_),
      totals_(other.totals_),
      scalarTotals_(other.scalarTotals_),
      requestedScalars_(other.requestedScalars_),
      portUses_(other.portUses_),
      usedPorts_(other.usedPorts_),
      imageStates_(other.imageStates_),
      pvcRefCounts_(other.pvcRefCounts_),
      view_(other.view_) {
  refreshView();
}

NodeInfo& NodeInfo::operator=(const NodeInfo& other) {
  if (this != &other) {
    NodeInfo copy(other);
    *this = std::move(copy);
  }
  return *this;
}

NodeInfo::NodeInfo(NodeInfo&& other) noexcept
    : node_(std::move(other.node_)),
      pods_(std::move(other.pods_)),
      podViews_(std::move(other.podViews_)),
      withAffinity_(std::move(other.withAffinity_)),
      withRequiredAntiAffinity_(std::move(other.withRequiredAntiAffinity_)),
      totals_(other.totals_),
      scalarTotals_(std::move(other.scalarTotals_)),
      requestedScalars_(std::move(other.requestedScalars_)),
      portUses_(std::move(other.portUses_)),
      usedPorts_(std::move(other.usedPorts_)),
      imageStates_(std::move(other.imageStates_)),
      pvcRefCounts_(std::move(other.pvcRefCounts_)),
      view_(other.view_) {
  refreshView();
  other.totals_ = Totals{};
  other.view_ = sh_node_info{};
  other.refreshView();
}

NodeInfo& NodeInfo::operator=(NodeInfo&& other) noexcept {
  if (this != &other) {
    node_ = std::move(other.node_);
    pods_ = std::move(other.pods_);
    podViews_ = std::move(other.podViews_);
    withAffinity_ = std::move(other.withAffinity_);
    withRequiredAntiAffinity_ = std::move(other.withRequiredAntiAffinity_);
    totals_ = other.totals_;
    scalarTotals_ = std::move(other.scalarTotals_);
    requestedScalars_ = std::move(other.requestedScalars_);
    portUses_ = std::move(other.portUses_);
    usedPorts_ = std::move(other.usedPorts_);
    imageStates_ = std::move(other.imageStates_);
    pvcRefCounts_ = std::move(other.pvcRefCounts_);
    view_ = other.view_;
    refreshView();
    other.totals_ = Totals{};
    other.view_ = sh_node_info{};
    other.refreshView();
  }
  return *this;
}

void NodeInfo::setNode(std::shared_ptr<const Node> node) {
  node_ = std::move(node);
  view_.generation = nextGeneration();
  refreshView();
}

void NodeInfo::removeNode() {
  node_.reset();
  view_.generation = nextGeneration();
  refreshView();
}

void NodeInfo::addPod(std::shared_ptr<const Pod> pod) {
  const Pod& p = *pod;
  pods_.push_back(std::move(pod));
  podViews_.push_back(&p.view());
  if (p.hasAffinity()) {
    withAffinity_.push_back(&p.view());
  }
  if (p.hasRequiredAntiAffinity()) {
    withRequiredAntiAffinity_.push_back(&p.view());
  }
  account(p, +1);
  for (uint32_t i = 0; i < p.view().host_port_count; ++i) {
    addPort(p.view().host_ports[i]);
  }
  view_.generation = nextGeneration();
  refreshView();
}

bool NodeInfo::removePod(std::string_view uid) {
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i]->uid() != uid) {
      continue;
    }
    std::shared_ptr<const Pod> pod = std::move(pods_[i]);
    const sh_pod* v = &pod->view();
    swapRemove(withAffinity_, v);
    swapRemove(withRequiredAntiAffinity_, v);
    pods_[i] = std::move(pods_.back());
    pods_.pop_back();
    podViews_[i] = podViews_.back();
    podViews_.pop_back();
    account(*pod, -1);
    for (uint32_t j = 0; j < v->host_port_count; ++j) {
      removePort(v->host_ports[j]);
    }
    view_.generation = nextGeneration();
    refreshView();
    return true;
  }
  return false;
}

void NodeInfo::setImageStates(std::vector<sh_image_state> states) {
  std::sort(states.begin(), states.end(),
            [](const sh_image_state& a, const sh_image_state& b) { return a.name < b.name; });
  imageStates_ = std::move(states);
  refreshView();
}

void NodeInfo::account(const Pod& pod, int sign) {
  const sh_pod& p = pod.view();
  totals_.milliCpu += sign * int128_t{p.requests.milli_cpu};
  totals_.memory += sign * int128_t{p.requests.memory};
  totals_.ephemeralStorage += sign * int128_t{p.requests.ephemeral_storage};
  totals_.nonZeroMilliCpu += sign * int128_t{p.non_zero_milli_cpu};
  totals_.nonZeroMemory += sign * int128_t{p.non_zero_memory};
  addScalars(p.requests, sign);
  for (uint32_t i = 0; i < p.volume_count; ++i) {
    const sh_volume& v = p.volumes[i];
    if (v.source != SH_VOLUME_PVC && v.source != SH_VOLUME_EPHEMERAL) {
      continue;
    }
    std::string key;
    key.reserve(p.namespace_.len + 1 + v.claim.len);
    key.append(p.namespace_.ptr, p.namespace_.len).append(1, '/').append(v.claim.ptr, v.claim.len);
    if (sign > 0) {
      ++pvcRefCounts_[key];
    } else if (auto it = pvcRefCounts_.find(key); it != pvcRefCounts_.end() && --it->second == 0) {
      pvcRefCounts_.erase(it);
    }
  }
}

void NodeInfo::addScalars(const sh_resources& r, int sign) {
  // Both lists are sorted by name; entries that drop to zero stay, as in upstream's map.
  for (uint32_t i = 0; i < r.scalar_count; ++i) {
    const sh_quantity& q = r.scalars[i];
    auto it = std::lower_bound(requestedScalars_.begin(), requestedScalars_.end(), q.name,
                               [](const sh_quantity& a, sh_id name) { return a.name < name; });
    auto at = it - requestedScalars_.begin();
    if (it == requestedScalars_.end() || it->name != q.name) {
      requestedScalars_.insert(it, sh_quantity{q.name, 0});
      scalarTotals_.insert(scalarTotals_.begin() + at, 0);
    }
    scalarTotals_[at] += sign * int128_t{q.value};
    requestedScalars_[at].value = saturateInt64(scalarTotals_[at]);
  }
}

void NodeInfo::addPort(const sh_host_port& p) {
  for (PortUse& use : portUses_) {
    if (samePort(use.port, p)) {
      ++use.count;
      return;
    }
  }
  portUses_.push_back(PortUse{p, 1});
  usedPorts_.push_back(p);
}

void NodeInfo::removePort(const sh_host_port& p) {
  for (std::size_t i = 0; i < portUses_.size(); ++i) {
    if (!samePort(portUses_[i].port, p)) {
      continue;
    }
    if (--portUses_[i].count == 0) {
      portUses_[i] = portUses_.back();
      portUses_.pop_back();
      usedPorts_[i] = usedPorts_.back();
      usedPorts_.pop_back();
    }
    return;
  }
}

void NodeInfo::refreshView() {
  view_.struct_size = sizeof(sh_node_info);
  view_.requested.milli_cpu = saturateInt64(totals_.milliCpu);
  view_.requested.memory = saturateInt64(totals_.memory);
  view_.requested.ephemeral_storage = saturateInt64(totals_.ephemeralStorage);
  view_.non_zero_milli_cpu = saturateInt64(totals_.nonZeroMilliCpu);
  view_.non_zero_memory = saturateInt64(totals_.nonZeroMemory);
  view_.node = node_ ? &node_->view() : nullptr;
  view_.pods = podViews_.empty() ? nullptr : podViews_.data();
  view_.pod_count = static_cast<uint32_t>(podViews_.size());
  view_.requested.scalars = requestedScalars_.empty() ? nullptr : requestedScalars_.data();
  view_.requested.scalar_count = static_cast<uint32_t>(requestedScalars_.size());
  view_.used_ports = usedPorts_.empty() ? nullptr : usedPorts_.data();
  view_.used_port_count = static_cast<uint32_t>(usedPorts_.size());
  view_.image_states = imageStates_.empty() ? nullptr : imageStates_.data();
  view_.image_state_count = static_cast<uint32_t>(imageStates_.size());
  view_.pods_with_affinity = withAffinity_.empty() ? nullptr : withAffinity_.data();
  view_.pods_with_affinity_count = static_cast<uint32_t>(withAffinity_.size());
  view_.pods_with_required_anti_affinity =
      withRequiredAntiAffinity_.empty() ? nullptr : withRequiredAntiAffinity_.data();
  view_.pods_with_required_anti_affinity_count =
      static_cast<uint32_t>(withRequiredAntiAffinity_.size());
}

}  // namespace sh::model

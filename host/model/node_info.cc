#include "host/model/node_info.h"

#include <algorithm>
#include <atomic>

namespace sh::model {
namespace {

std::atomic<uint64_t> g_generation{0};

bool same_port(const sh_host_port& a, const sh_host_port& b) {
  return a.port == b.port && a.protocol == b.protocol &&
         std::string_view(a.host_ip.ptr, a.host_ip.len) ==
             std::string_view(b.host_ip.ptr, b.host_ip.len);
}

// Removes the first element equal to `p`, swapping the last element into its slot.
void swap_remove(std::vector<const sh_pod*>& list, const sh_pod* p) {
  auto it = std::find(list.begin(), list.end(), p);
  if (it != list.end()) {
    *it = list.back();
    list.pop_back();
  }
}

}  // namespace

uint64_t next_generation() { return g_generation.fetch_add(1, std::memory_order_relaxed) + 1; }

NodeInfo::NodeInfo() {
  view_.generation = next_generation();
  refresh_view();
}

NodeInfo::NodeInfo(std::shared_ptr<const Node> node) : node_(std::move(node)) {
  view_.generation = next_generation();
  refresh_view();
}

NodeInfo::NodeInfo(const NodeInfo& other)
    : node_(other.node_),
      pods_(other.pods_),
      pod_views_(other.pod_views_),
      with_affinity_(other.with_affinity_),
      with_required_anti_affinity_(other.with_required_anti_affinity_),
      totals_(other.totals_),
      scalar_totals_(other.scalar_totals_),
      requested_scalars_(other.requested_scalars_),
      port_uses_(other.port_uses_),
      used_ports_(other.used_ports_),
      image_states_(other.image_states_),
      view_(other.view_) {
  refresh_view();
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
      pod_views_(std::move(other.pod_views_)),
      with_affinity_(std::move(other.with_affinity_)),
      with_required_anti_affinity_(std::move(other.with_required_anti_affinity_)),
      totals_(other.totals_),
      scalar_totals_(std::move(other.scalar_totals_)),
      requested_scalars_(std::move(other.requested_scalars_)),
      port_uses_(std::move(other.port_uses_)),
      used_ports_(std::move(other.used_ports_)),
      image_states_(std::move(other.image_states_)),
      view_(other.view_) {
  refresh_view();
  other.totals_ = Totals{};
  other.view_ = sh_node_info{};
  other.refresh_view();
}

NodeInfo& NodeInfo::operator=(NodeInfo&& other) noexcept {
  if (this != &other) {
    node_ = std::move(other.node_);
    pods_ = std::move(other.pods_);
    pod_views_ = std::move(other.pod_views_);
    with_affinity_ = std::move(other.with_affinity_);
    with_required_anti_affinity_ = std::move(other.with_required_anti_affinity_);
    totals_ = other.totals_;
    scalar_totals_ = std::move(other.scalar_totals_);
    requested_scalars_ = std::move(other.requested_scalars_);
    port_uses_ = std::move(other.port_uses_);
    used_ports_ = std::move(other.used_ports_);
    image_states_ = std::move(other.image_states_);
    view_ = other.view_;
    refresh_view();
    other.totals_ = Totals{};
    other.view_ = sh_node_info{};
    other.refresh_view();
  }
  return *this;
}

void NodeInfo::set_node(std::shared_ptr<const Node> node) {
  node_ = std::move(node);
  view_.generation = next_generation();
  refresh_view();
}

void NodeInfo::remove_node() {
  node_.reset();
  view_.generation = next_generation();
  refresh_view();
}

void NodeInfo::add_pod(std::shared_ptr<const Pod> pod) {
  const Pod& p = *pod;
  pods_.push_back(std::move(pod));
  pod_views_.push_back(&p.view());
  if (p.has_affinity()) {
    with_affinity_.push_back(&p.view());
  }
  if (p.has_required_anti_affinity()) {
    with_required_anti_affinity_.push_back(&p.view());
  }
  account(p, +1);
  for (uint32_t i = 0; i < p.view().host_port_count; ++i) {
    add_port(p.view().host_ports[i]);
  }
  view_.generation = next_generation();
  refresh_view();
}

bool NodeInfo::remove_pod(std::string_view uid) {
  for (std::size_t i = 0; i < pods_.size(); ++i) {
    if (pods_[i]->uid() != uid) {
      continue;
    }
    std::shared_ptr<const Pod> pod = std::move(pods_[i]);
    const sh_pod* v = &pod->view();
    swap_remove(with_affinity_, v);
    swap_remove(with_required_anti_affinity_, v);
    pods_[i] = std::move(pods_.back());
    pods_.pop_back();
    pod_views_[i] = pod_views_.back();
    pod_views_.pop_back();
    account(*pod, -1);
    for (uint32_t j = 0; j < v->host_port_count; ++j) {
      remove_port(v->host_ports[j]);
    }
    view_.generation = next_generation();
    refresh_view();
    return true;
  }
  return false;
}

void NodeInfo::set_image_states(std::vector<sh_image_state> states) {
  std::sort(states.begin(), states.end(),
            [](const sh_image_state& a, const sh_image_state& b) { return a.name < b.name; });
  image_states_ = std::move(states);
  refresh_view();
}

void NodeInfo::account(const Pod& pod, int sign) {
  const sh_pod& p = pod.view();
  totals_.milli_cpu += sign * int128_t{p.requests.milli_cpu};
  totals_.memory += sign * int128_t{p.requests.memory};
  totals_.ephemeral_storage += sign * int128_t{p.requests.ephemeral_storage};
  totals_.non_zero_milli_cpu += sign * int128_t{p.non_zero_milli_cpu};
  totals_.non_zero_memory += sign * int128_t{p.non_zero_memory};
  add_scalars(p.requests, sign);
}

void NodeInfo::add_scalars(const sh_resources& r, int sign) {
  // Both lists are sorted by name; entries that drop to zero stay, as in upstream's map.
  for (uint32_t i = 0; i < r.scalar_count; ++i) {
    const sh_quantity& q = r.scalars[i];
    auto it = std::lower_bound(requested_scalars_.begin(), requested_scalars_.end(), q.name,
                               [](const sh_quantity& a, sh_id name) { return a.name < name; });
    auto at = it - requested_scalars_.begin();
    if (it == requested_scalars_.end() || it->name != q.name) {
      requested_scalars_.insert(it, sh_quantity{q.name, 0});
      scalar_totals_.insert(scalar_totals_.begin() + at, 0);
    }
    scalar_totals_[at] += sign * int128_t{q.value};
    requested_scalars_[at].value = saturate_int64(scalar_totals_[at]);
  }
}

void NodeInfo::add_port(const sh_host_port& p) {
  for (PortUse& use : port_uses_) {
    if (same_port(use.port, p)) {
      ++use.count;
      return;
    }
  }
  port_uses_.push_back(PortUse{p, 1});
  used_ports_.push_back(p);
}

void NodeInfo::remove_port(const sh_host_port& p) {
  for (std::size_t i = 0; i < port_uses_.size(); ++i) {
    if (!same_port(port_uses_[i].port, p)) {
      continue;
    }
    if (--port_uses_[i].count == 0) {
      port_uses_[i] = port_uses_.back();
      port_uses_.pop_back();
      used_ports_[i] = used_ports_.back();
      used_ports_.pop_back();
    }
    return;
  }
}

void NodeInfo::refresh_view() {
  view_.struct_size = sizeof(sh_node_info);
  view_.requested.milli_cpu = saturate_int64(totals_.milli_cpu);
  view_.requested.memory = saturate_int64(totals_.memory);
  view_.requested.ephemeral_storage = saturate_int64(totals_.ephemeral_storage);
  view_.non_zero_milli_cpu = saturate_int64(totals_.non_zero_milli_cpu);
  view_.non_zero_memory = saturate_int64(totals_.non_zero_memory);
  view_.node = node_ ? &node_->view() : nullptr;
  view_.pods = pod_views_.empty() ? nullptr : pod_views_.data();
  view_.pod_count = static_cast<uint32_t>(pod_views_.size());
  view_.requested.scalars = requested_scalars_.empty() ? nullptr : requested_scalars_.data();
  view_.requested.scalar_count = static_cast<uint32_t>(requested_scalars_.size());
  view_.used_ports = used_ports_.empty() ? nullptr : used_ports_.data();
  view_.used_port_count = static_cast<uint32_t>(used_ports_.size());
  view_.image_states = image_states_.empty() ? nullptr : image_states_.data();
  view_.image_state_count = static_cast<uint32_t>(image_states_.size());
  view_.pods_with_affinity = with_affinity_.empty() ? nullptr : with_affinity_.data();
  view_.pods_with_affinity_count = static_cast<uint32_t>(with_affinity_.size());
  view_.pods_with_required_anti_affinity =
      with_required_anti_affinity_.empty() ? nullptr : with_required_anti_affinity_.data();
  view_.pods_with_required_anti_affinity_count =
      static_cast<uint32_t>(with_required_anti_affinity_.size());
}

}  // namespace sh::model

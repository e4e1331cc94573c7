// NodePorts: a pod fits a node only if none of its host ports is already in use there.
//
// Extension points: PreFilter, Filter, EnqueueExtensions.
// Upstream: pkg/scheduler/framework/plugins/nodeports/node_ports.go (v1.36) and
// framework.HostPortInfo.CheckConflict.
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace schedhost::plugins::nodeports {

constexpr const char* kName = "NodePorts";
constexpr char kErrReason[] = "node(s) didn't have free ports for the requested pod ports";
constexpr std::string_view kBindAllHostIP = "0.0.0.0";

// One wanted host port, owned (PreFilter state outlives the pod view it came from).
struct Port {
  std::string hostIP;
  int32_t protocol;
  int32_t port;
};
using PreFilterState = std::vector<Port>;

class NodePorts : public PreFilterPlugin, public FilterPlugin, public EnqueueExtensions {
 public:
  NodePorts(Host& host, const Args& args);

  Status preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& result);
  Status filter(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo);
  std::vector<EventRegistration> eventsToRegister();
  sh_queueing_hint queueingHint(std::size_t index, const sh_pod& pod,
                                const sh_event_objects& event);

 private:
  enum Event : std::size_t { kPodDelete = 0, kNodeAdd = 1 };
  sh_id preFilterStateKey_;
};

namespace {

std::string_view sanitizedIP(std::string_view ip) noexcept {
  return ip.empty() ? kBindAllHostIP : ip;
}

// HostPortInfo.CheckConflict: a wanted 0.0.0.0 conflicts with the same protocol and port on any
// IP; any other IP conflicts with the same IP or with 0.0.0.0.
bool conflicts(std::string_view wantIP, int32_t protocol, int32_t port, const sh_host_port* used,
               uint32_t usedCount) noexcept {
  if (port <= 0) {
    return false;
  }
  wantIP = sanitizedIP(wantIP);
  for (uint32_t i = 0; i < usedCount; ++i) {
    const sh_host_port& u = used[i];
    if (u.port != port || u.protocol != protocol) {
      continue;
    }
    std::string_view usedIP = sanitizedIP(view(u.host_ip));
    if (wantIP == kBindAllHostIP || usedIP == kBindAllHostIP || usedIP == wantIP) {
      return true;
    }
  }
  return false;
}

}  // namespace

NodePorts::NodePorts(Host& host, const Args& /*args*/)
    : preFilterStateKey_(host.intern(std::string("PreFilter") + kName)) {}

Status NodePorts::preFilter(Cycle& cycle, const sh_pod& pod, PreFilterResult& /*result*/) {
  if (pod.host_port_count == 0) {
    return Status::skip();
  }
  auto state = std::make_unique<PreFilterState>();
  state->reserve(pod.host_port_count);
  for (uint32_t i = 0; i < pod.host_port_count; ++i) {
    const sh_host_port& p = pod.host_ports[i];
    state->push_back(Port{std::string(view(p.host_ip)), p.protocol, p.port});
  }
  cycle.write(preFilterStateKey_, std::move(state));
  return Status::success();
}

Status NodePorts::filter(Cycle& cycle, const sh_pod& /*pod*/, const sh_node_info& nodeInfo) {
  const PreFilterState* wanted = cycle.read<PreFilterState>(preFilterStateKey_);
  if (wanted == nullptr) {
    return Status::error(std::string("reading \"PreFilter") + kName +
                         "\" from cycleState: not found");
  }
  for (const Port& p : *wanted) {
    if (conflicts(p.hostIP, p.protocol, p.port, nodeInfo.used_ports, nodeInfo.used_port_count)) {
      return Status::unschedulable(kErrReason);
    }
  }
  return Status::success();
}

std::vector<EventRegistration> NodePorts::eventsToRegister() {
  return {
      // Container ports are immutable, so only a deletion can free a port.
      {SH_RESOURCE_POD, SH_ACTION_DELETE, true},
      // A new node is always worth a retry (with backoff).
      {SH_RESOURCE_NODE, SH_ACTION_ADD, false},
  };
}

// Queue when the deleted pod was placed (or nominated) and held a port the pod wants.
sh_queueing_hint NodePorts::queueingHint(std::size_t index, const sh_pod& pod,
                                         const sh_event_objects& event) {
  const sh_pod* deleted = event.old_pod;
  if (index != kPodDelete || deleted == nullptr) {
    return SH_QUEUE;
  }
  if (deleted->node_name.len == 0 && deleted->nominated_node_name.len == 0) {
    return SH_QUEUE_SKIP;
  }
  if (deleted->host_port_count == 0) {
    return SH_QUEUE_SKIP;
  }
  for (uint32_t i = 0; i < pod.host_port_count; ++i) {
    const sh_host_port& p = pod.host_ports[i];
    if (conflicts(view(p.host_ip), p.protocol, p.port, deleted->host_ports,
                  deleted->host_port_count)) {
      return SH_QUEUE;
    }
  }
  return SH_QUEUE_SKIP;
}

}  // namespace schedhost::plugins::nodeports

SCHEDHOST_PLUGIN(schedhost::plugins::nodeports::NodePorts, schedhost::plugins::nodeports::kName,
                 "1.36.0")

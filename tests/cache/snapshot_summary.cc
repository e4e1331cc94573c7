#include "snapshot_summary.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "host/model/interner.h"
#include "host/model/pod.h"

namespace sh::cache::testing {
namespace {

std::string text(sh_str s) { return std::string(s.ptr, s.len); }

std::vector<std::string> uids(const sh_pod* const* pods, uint32_t count) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < count; ++i) {
    out.push_back(text(pods[i]->uid));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i == 0 ? "" : " ") + v[i];
  }
  return out + "]";
}

std::string describe(const NodeSummary& s) {
  std::ostringstream out;
  out << "{node " << s.name << " pods " << join(s.pods) << " affinity " << join(s.podsWithAffinity)
      << " anti " << join(s.podsWithRequiredAntiAffinity) << " cpu " << s.milliCpu << " mem "
      << s.memory << " eph " << s.ephemeralStorage << " nzcpu " << s.nonZeroMilliCpu << " nzmem "
      << s.nonZeroMemory << " scalars " << join(s.scalars) << " ports " << join(s.usedPorts)
      << " images " << join(s.imageStates) << "}";
  return out.str();
}

}  // namespace

NodeSummary summarize(const sh_node_info& v) {
  NodeSummary s;
  s.name = v.node == nullptr ? std::string() : text(v.node->name);
  s.pods = uids(v.pods, v.pod_count);
  s.podsWithAffinity = uids(v.pods_with_affinity, v.pods_with_affinity_count);
  s.podsWithRequiredAntiAffinity =
      uids(v.pods_with_required_anti_affinity, v.pods_with_required_anti_affinity_count);
  s.milliCpu = v.requested.milli_cpu;
  s.memory = v.requested.memory;
  s.ephemeralStorage = v.requested.ephemeral_storage;
  s.nonZeroMilliCpu = v.non_zero_milli_cpu;
  s.nonZeroMemory = v.non_zero_memory;
  for (uint32_t i = 0; i < v.requested.scalar_count; ++i) {
    const sh_quantity& q = v.requested.scalars[i];
    if (q.value != 0) {
      s.scalars.push_back(std::string(model::interner().view(q.name)) + "=" +
                          std::to_string(q.value));
    }
  }
  std::sort(s.scalars.begin(), s.scalars.end());
  for (uint32_t i = 0; i < v.used_port_count; ++i) {
    const sh_host_port& p = v.used_ports[i];
    s.usedPorts.push_back(std::to_string(p.protocol) + "/" + text(p.host_ip) + ":" +
                          std::to_string(p.port));
  }
  std::sort(s.usedPorts.begin(), s.usedPorts.end());
  for (uint32_t i = 0; i < v.image_state_count; ++i) {
    const sh_image_state& st = v.image_states[i];
    s.imageStates.push_back(std::string(model::interner().view(st.name)) +
                            " size=" + std::to_string(st.size_bytes) +
                            " nodes=" + std::to_string(st.num_nodes));
  }
  std::sort(s.imageStates.begin(), s.imageStates.end());
  return s;
}

NodeSummary summarize(const model::NodeInfo& info) { return summarize(info.view()); }

SnapshotSummary summarize(const Snapshot& snapshot) {
  SnapshotSummary s;
  for (const auto& info : snapshot.nodeInfos) {
    s.nodes.push_back(summarize(*info));
  }
  for (const sh_node_info* v : snapshot.withAffinity) {
    s.withAffinity.push_back(text(v->node->name));
  }
  for (const sh_node_info* v : snapshot.withRequiredAntiAffinity) {
    s.withRequiredAntiAffinity.push_back(text(v->node->name));
  }
  for (const auto& [key, count] : snapshot.usedPvcs) {
    s.usedPvcs.push_back(key + "=" + std::to_string(count));
  }
  std::sort(s.usedPvcs.begin(), s.usedPvcs.end());
  return s;
}

std::string diff(const NodeSummary& want, const NodeSummary& got) {
  if (want == got) {
    return {};
  }
  return "want " + describe(want) + "\n got " + describe(got);
}

std::string diff(const SnapshotSummary& want, const SnapshotSummary& got) {
  std::vector<std::string> wantNames;
  std::vector<std::string> gotNames;
  for (const NodeSummary& n : want.nodes) {
    wantNames.push_back(n.name);
  }
  for (const NodeSummary& n : got.nodes) {
    gotNames.push_back(n.name);
  }
  if (wantNames != gotNames) {
    return "node order: want " + join(wantNames) + " got " + join(gotNames);
  }
  for (std::size_t i = 0; i < want.nodes.size(); ++i) {
    if (std::string d = diff(want.nodes[i], got.nodes[i]); !d.empty()) {
      return "node #" + std::to_string(i) + ":\n" + d;
    }
  }
  if (want.withAffinity != got.withAffinity) {
    return "withAffinity: want " + join(want.withAffinity) + " got " + join(got.withAffinity);
  }
  if (want.withRequiredAntiAffinity != got.withRequiredAntiAffinity) {
    return "withRequiredAntiAffinity: want " + join(want.withRequiredAntiAffinity) + " got " +
           join(got.withRequiredAntiAffinity);
  }
  if (want.usedPvcs != got.usedPvcs) {
    return "usedPvcs: want " + join(want.usedPvcs) + " got " + join(got.usedPvcs);
  }
  return {};
}

std::string checkIndexes(const Snapshot& s) {
  const std::size_t n = s.nodeInfos.size();
  if (s.views.size() != n || s.byName.size() != n) {
    return "sizes: nodeInfos " + std::to_string(n) + " views " + std::to_string(s.views.size()) +
           " byName " + std::to_string(s.byName.size());
  }
  std::vector<const sh_node_info*> affinity;
  std::vector<uint32_t> affinityIndex;
  std::vector<const sh_node_info*> anti;
  std::vector<uint32_t> antiIndex;
  for (std::size_t i = 0; i < n; ++i) {
    const sh_node_info* v = &s.nodeInfos[i]->view();
    if (s.views[i] != v) {
      return "views[" + std::to_string(i) + "] is not nodeInfos[i]'s view";
    }
    if (v->node == nullptr) {
      return "nodeInfos[" + std::to_string(i) + "] has no node";
    }
    auto it = s.byName.find(std::string_view(v->node->name.ptr, v->node->name.len));
    if (it == s.byName.end() || it->second != i) {
      return "byName does not map " + text(v->node->name) + " to " + std::to_string(i);
    }
    if (it->first.data() != v->node->name.ptr) {
      return "byName's key for " + text(v->node->name) + " points outside its node";
    }
    for (uint32_t k = 1; k < v->image_state_count; ++k) {
      if (v->image_states[k - 1].name >= v->image_states[k].name) {
        return "image states of " + text(v->node->name) + " are not sorted by name id";
      }
    }
    if (v->pods_with_affinity_count > 0) {
      affinity.push_back(v);
      affinityIndex.push_back(static_cast<uint32_t>(i));
    }
    if (v->pods_with_required_anti_affinity_count > 0) {
      anti.push_back(v);
      antiIndex.push_back(static_cast<uint32_t>(i));
    }
  }
  if (affinity != s.withAffinity || affinityIndex != s.withAffinityIndex) {
    return "withAffinity (or its index) does not match nodeInfos";
  }
  if (anti != s.withRequiredAntiAffinity || antiIndex != s.withRequiredAntiAffinityIndex) {
    return "withRequiredAntiAffinity (or its index) does not match nodeInfos";
  }
  return {};
}

std::string compareWithRebuild(const Cache& cache, const Snapshot& snapshot, bool anyNodeOrder) {
  if (std::string d = checkIndexes(snapshot); !d.empty()) {
    return "indexes: " + d;
  }
  CacheDump dump = cache.dumpForTest();
  auto rebuilt = buildSnapshot(dump.nodes, dump.pods);
  SnapshotSummary want = summarize(*rebuilt);
  SnapshotSummary got = summarize(snapshot);
  if (anyNodeOrder) {
    for (SnapshotSummary* s : {&want, &got}) {
      std::sort(s->nodes.begin(), s->nodes.end(),
                [](const NodeSummary& a, const NodeSummary& b) { return a.name < b.name; });
      std::sort(s->withAffinity.begin(), s->withAffinity.end());
      std::sort(s->withRequiredAntiAffinity.begin(), s->withRequiredAntiAffinity.end());
    }
  }
  return diff(want, got);
}

std::vector<std::string> nodeNames(const Snapshot& snapshot) {
  std::vector<std::string> out;
  for (const auto& info : snapshot.nodeInfos) {
    out.push_back(text(info->view().node->name));
  }
  return out;
}

}  // namespace sh::cache::testing

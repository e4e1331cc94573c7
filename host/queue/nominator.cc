#include "host/queue/nominator.h"

#include <algorithm>

namespace sh::queue {
namespace {

std::string_view nominatedNodeName(const model::Pod& pod) {
  const sh_str& s = pod.view().nominated_node_name;
  return {s.ptr, s.len};
}

}  // namespace

void Nominator::add(const model::Pod& pod, const NominatingInfo& info) {
  removeUid(pod.uid());

  std::string nodeName;
  if (info.mode == NominatingInfo::Mode::kOverride) {
    nodeName = info.nominatedNodeName;
    if (nodeName.empty()) {
      // Upstream records the pod under the node name "", which no lookup ever asks for;
      // every failed attempt clears a nomination this way, and a list of all of them would
      // only cost a linear removal each. Not recording it answers every query the same.
      return;
    }
  } else {
    if (nominatedNodeName(pod).empty()) {
      return;
    }
    nodeName = std::string(nominatedNodeName(pod));
  }

  if (lister_) {
    PodPtr current = lister_(pod.namespaceName(), pod.name());
    if (current == nullptr || !current->nodeName().empty()) {
      return;  // deleted, or already bound
    }
  }

  nodeByUid_[std::string(pod.uid())] = nodeName;
  std::vector<PodRef>& refs = byNode_[nodeName];
  for (const PodRef& r : refs) {
    if (r.uid == pod.uid()) {
      return;
    }
  }
  refs.push_back(
      PodRef{std::string(pod.name()), std::string(pod.namespaceName()), std::string(pod.uid())});
}

void Nominator::update(const model::Pod& old, const model::Pod& cur) {
  NominatingInfo info;
  if (nominatedNodeName(old).empty() && nominatedNodeName(cur).empty()) {
    auto it = nodeByUid_.find(old.uid());
    if (it != nodeByUid_.end()) {
      info = NominatingInfo::overrideWith(it->second);
    }
  }
  removeUid(old.uid());
  add(cur, info);
}

void Nominator::remove(const model::Pod& pod) { removeUid(pod.uid()); }

void Nominator::removeUid(std::string_view uid) {
  auto it = nodeByUid_.find(uid);
  if (it == nodeByUid_.end()) {
    return;
  }
  auto node = byNode_.find(it->second);
  if (node != byNode_.end()) {
    std::vector<PodRef>& refs = node->second;
    auto ref =
        std::find_if(refs.begin(), refs.end(), [&](const PodRef& r) { return r.uid == uid; });
    if (ref != refs.end()) {
      refs.erase(ref);
    }
    if (refs.empty()) {
      byNode_.erase(node);
    }
  }
  nodeByUid_.erase(it);
}

std::vector<PodRef> Nominator::podsForNode(std::string_view node) const {
  auto it = byNode_.find(node);
  return it == byNode_.end() ? std::vector<PodRef>{} : it->second;
}

std::optional<std::string> Nominator::nodeOf(std::string_view uid) const {
  auto it = nodeByUid_.find(uid);
  if (it == nodeByUid_.end()) {
    return std::nullopt;
  }
  return it->second;
}

}  // namespace sh::queue

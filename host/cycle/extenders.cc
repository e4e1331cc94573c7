// The HTTP extenders' places in the cycles (upstream schedule_one.go:
// findNodesThatPassExtenders, prioritizeNodes, extendersBinding).
#include <algorithm>
#include <future>
#include <system_error>

#include <spdlog/spdlog.h>

#include "host/cycle/pod_text.h"
#include "host/cycle/scheduler.h"

namespace sh::cycle {
namespace {

// upstream: framework.MaxNodeScore / extenderv1.MaxExtenderPriority
constexpr int64_t kExtenderScoreScale = 100 / kMaxExtenderPriority;

std::vector<const model::Node*> nodesOf(const std::vector<const sh_node_info*>& infos) {
  std::vector<const model::Node*> out;
  out.reserve(infos.size());
  for (const sh_node_info* ni : infos) {
    out.push_back(model::Node::fromView(ni->node));
  }
  return out;
}

}  // namespace

bool Scheduler::hasExtenderFilters() const {
  for (const auto& e : options_.extenders) {
    if (e->isFilter()) {
      return true;
    }
  }
  return false;
}

bool Scheduler::hasExtenderPrioritizers() const {
  for (const auto& e : options_.extenders) {
    if (e->isPrioritizer()) {
      return true;
    }
  }
  return false;
}

std::vector<const sh_node_info*> Scheduler::findNodesThatPassExtenders(
    const sh_pod& pod, std::vector<const sh_node_info*> feasible, Diagnosis& diagnosis,
    Status& status) {
  if (options_.extenders.empty()) {
    return feasible;
  }
  const model::Pod& podObj = *model::Pod::fromView(&pod);
  NodeToStatus& statuses = diagnosis.nodeToStatus;
  const std::size_t before = feasible.size();
  for (const auto& extender : options_.extenders) {
    if (feasible.empty()) {
      break;
    }
    if (!extender->isInterested(podObj)) {
      continue;
    }
    ExtenderFilterResult result;
    Status s = extender->filter(podObj, nodesOf(feasible), result);
    if (!s.ok()) {
      if (extender->isIgnorable()) {
        spdlog::info("skipping extender {} as it returned error and has ignorable flag set: {}",
                     extender->name(), s.message());
        continue;
      }
      status = Status(SH_ERROR, s.message());
      return {};
    }
    // Failed-and-unresolvable first, its reason added to the node's earlier ones; a node also
    // in failedNodes keeps only this status (upstream's precedence).
    for (const auto& [node, message] : result.failedAndUnresolvableNodes) {
      std::vector<std::string> reasons;
      if (statuses.has(node)) {
        reasons = statuses.get(node).reasons();
      }
      Status st(SH_UNSCHEDULABLE_AND_UNRESOLVABLE);
      for (std::string& r : reasons) {
        st.addReason(std::move(r));
      }
      st.addReason(message);
      statuses.set(node, std::move(st));
    }
    for (const auto& [node, message] : result.failedNodes) {
      if (result.failedAndUnresolvableNodes.count(node) != 0) {
        continue;
      }
      if (!statuses.has(node)) {
        statuses.set(node, Status(SH_UNSCHEDULABLE, message));
      } else {
        Status st = statuses.get(node);
        st.addReason(message);
        statuses.set(node, std::move(st));
      }
    }
    std::unordered_map<std::string_view, const sh_node_info*> byName;
    for (const sh_node_info* ni : feasible) {
      byName.emplace(std::string_view(ni->node->name.ptr, ni->node->name.len), ni);
    }
    std::vector<const sh_node_info*> passed;
    passed.reserve(result.nodes.size());
    for (const std::string& name : result.nodes) {
      auto it = byName.find(name);
      if (it == byName.end()) {
        // HttpExtender already refuses this; any other implementation is held to it here.
        status =
            Status(SH_ERROR, "extender \"" + extender->name() + "\" claims a filtered node \"" +
                                 name + "\" which is not found in the input node list");
        return {};
      }
      passed.push_back(it->second);
    }
    feasible = std::move(passed);
  }
  if (feasible.size() != before) {
    // Extenders have no enqueue extensions: the pseudo-plugin is woken by any event.
    diagnosis.unschedulablePlugins.insert(kExtenderPluginName);
  }
  return feasible;
}

void Scheduler::addExtenderScores(const sh_pod& pod, std::vector<NodeScore>& scores) {
  const model::Pod& podObj = *model::Pod::fromView(&pod);
  std::vector<const Extender*> prioritizers;
  for (const auto& e : options_.extenders) {
    if (e->isPrioritizer() && e->isInterested(podObj)) {
      prioritizers.push_back(e.get());
    }
  }
  if (prioritizers.empty()) {
    return;
  }
  std::vector<const model::Node*> nodes;
  nodes.reserve(scores.size());
  for (const NodeScore& s : scores) {
    nodes.push_back(model::Node::fromView(s.node->node));
  }
  // Each extender on a thread of its own, as upstream's goroutines; the first on this one.
  std::vector<std::vector<HostPriority>> lists(prioritizers.size());
  std::vector<Status> results(prioritizers.size());
  auto ask = [&](std::size_t i) {
    if (extenderGoroutines_ != nullptr) {
      extenderGoroutines_->add(1);
    }
    results[i] = prioritizers[i]->prioritize(podObj, nodes, lists[i]);
    if (extenderGoroutines_ != nullptr) {
      extenderGoroutines_->add(-1);
    }
  };
  std::vector<std::future<void>> others;
  for (std::size_t i = 1; i < prioritizers.size(); ++i) {
    try {
      others.push_back(std::async(std::launch::async, ask, i));
    } catch (const std::system_error&) {
      ask(i);  // no thread to be had: asked in turn
    }
  }
  ask(0);
  for (auto& f : others) {
    f.get();
  }
  std::unordered_map<std::string_view, int64_t> extra;
  for (std::size_t i = 0; i < prioritizers.size(); ++i) {
    if (!results[i].ok()) {
      spdlog::debug("extender {} gave {} no scores: {}", prioritizers[i]->name(), podKey(pod),
                    results[i].message());
      continue;
    }
    const int64_t weight = prioritizers[i]->weight();
    for (const HostPriority& p : lists[i]) {
      extra[p.host] += p.score * weight * kExtenderScoreScale;
    }
  }
  for (NodeScore& s : scores) {
    auto it = extra.find(std::string_view(s.node->node->name.ptr, s.node->node->name.len));
    if (it != extra.end()) {
      s.total += it->second;
    }
  }
}

std::optional<Status> Scheduler::bindWithExtenders(const model::Pod& pod, const std::string& node) {
  for (const auto& extender : options_.extenders) {
    if (!extender->isBinder() || !extender->isInterested(pod)) {
      continue;
    }
    Status s = extender->bind(pod, node);
    if (!s.ok() && extender->isIgnorable()) {
      spdlog::info(
          "skipping extender {} in bind as it returned error and has ignorable flag set: "
          "{}",
          extender->name(), s.message());
      continue;
    }
    return s;
  }
  return std::nullopt;
}

// upstream preemption.go: Evaluator.callExtenders. Upstream rebuilds the candidates from a Go
// map, in no set order; here they come back ordered by node name (pickOneNodeForPreemption
// keeps the first of equals).
Status Scheduler::filterPreemptionCandidates(const sh_pod& preemptor,
                                             std::vector<PreemptionCandidate>& candidates) {
  if (candidates.empty()) {
    return Status();
  }
  const model::Pod& pod = *model::Pod::fromView(&preemptor);
  bool anyTakesPart = false;
  for (const auto& extender : options_.extenders) {
    anyTakesPart = anyTakesPart || (extender->supportsPreemption() && extender->isInterested(pod));
  }
  if (!anyTakesPart) {
    return Status();
  }
  NodeVictims victims;
  for (const PreemptionCandidate& c : candidates) {
    ExtenderVictims& v = victims[c.node];
    v.numPdbViolations = c.pdbViolations;
    for (const sh_pod* p : c.victims) {
      v.pods.push_back(model::Pod::fromView(p));
    }
  }
  const PodOnNode podOnNode = [this](const std::string& node,
                                     const std::string& uid) -> const model::Pod* {
    const sh_node_info* info = snapshot_.find(node);
    for (uint32_t i = 0; info != nullptr && i < info->pod_count; ++i) {
      const sh_pod& p = *info->pods[i];
      if (std::string_view(p.uid.ptr, p.uid.len) == uid) {
        return model::Pod::fromView(&p);
      }
    }
    return nullptr;
  };
  for (const auto& extender : options_.extenders) {
    if (!extender->supportsPreemption() || !extender->isInterested(pod)) {
      continue;
    }
    NodeVictims kept;
    Status s = extender->processPreemption(pod, victims, podOnNode, kept);
    if (!s.ok()) {
      if (extender->isIgnorable()) {
        spdlog::info(
            "preemption: skipped extender {} as it returned error and has ignorable "
            "flag set: {}",
            extender->name(), s.message());
        continue;
      }
      return Status(SH_ERROR, s.message());
    }
    for (auto it = kept.begin(); it != kept.end();) {
      if (!it->second.pods.empty()) {
        ++it;
        continue;
      }
      if (!extender->isIgnorable()) {
        return Status(SH_ERROR, "expected at least one victim pod on node \"" + it->first + "\"");
      }
      spdlog::info("preemption: ignored node {} for which extender {} reported no victims",
                   it->first, extender->name());
      it = kept.erase(it);
    }
    victims = std::move(kept);
    if (victims.empty()) {
      break;
    }
  }
  candidates.clear();
  for (auto& [node, v] : victims) {
    PreemptionCandidate c{
        node, {}, static_cast<uint32_t>(std::max<int64_t>(0, v.numPdbViolations))};
    for (const model::Pod* p : v.pods) {
      c.victims.push_back(&p->view());
    }
    candidates.push_back(std::move(c));
  }
  return Status();
}

}  // namespace sh::cycle

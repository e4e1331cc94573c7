#include "victims.h"

#include <schedhost/helpers.hpp>

#include <algorithm>
#include <string_view>

namespace schedhost::plugins::defaultpreemption {
namespace {

constexpr char kNoVictims[] = "No preemption victims found for incoming pod";

bool selectorEmpty(const sh_label_selector& s) noexcept {
  return s.match_label_count == 0 && s.match_expression_count == 0;
}

bool isDisrupted(const sh_pdb& pdb, std::string_view name) noexcept {
  for (uint32_t i = 0; i < pdb.disrupted_pod_count; ++i) {
    if (view(pdb.disrupted_pods[i]) == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool terminatingByPreemption(const sh_pod& pod) noexcept {
  if (pod.deleting == 0) {
    return false;
  }
  for (uint32_t i = 0; i < pod.condition_count; ++i) {
    const sh_pod_condition& c = pod.conditions[i];
    if (view(c.type) == "DisruptionTarget") {
      return view(c.status) == "True" && view(c.reason) == "PreemptionByScheduler";
    }
  }
  return false;
}

void splitByPdbViolation(const std::vector<const sh_pod*>& pods, const sh_pdb* const* pdbs,
                         std::size_t pdbCount, std::vector<const sh_pod*>& violating,
                         std::vector<const sh_pod*>& nonViolating) {
  std::vector<int64_t> allowed(pdbCount);
  for (std::size_t i = 0; i < pdbCount; ++i) {
    allowed[i] = pdbs[i]->disruptions_allowed;
  }
  for (const sh_pod* pod : pods) {
    bool violated = false;
    // A pod without labels matches no budget.
    if (pod->label_count != 0) {
      for (std::size_t i = 0; i < pdbCount; ++i) {
        const sh_pdb& pdb = *pdbs[i];
        if (view(pdb.namespace_) != view(pod->namespace_)) {
          continue;
        }
        // A budget with no selector, or an empty one, covers no pod.
        if (pdb.selector == nullptr || selectorEmpty(*pdb.selector) ||
            !matchLabelSelector(pdb.selector, pod->labels, pod->label_count)) {
          continue;
        }
        // Already being evicted under this budget: it does not spend it again.
        if (isDisrupted(pdb, view(pod->name))) {
          continue;
        }
        if (--allowed[i] < 0) {
          violated = true;
        }
      }
    }
    (violated ? violating : nonViolating).push_back(pod);
  }
}

Status selectVictimsOnNode(const Preemption& preemption, const sh_pod& pod,
                           const sh_node_info& node, const sh_pdb* const* pdbs,
                           std::size_t pdbCount, int64_t now, Victims& out) {
  std::vector<const sh_pod*> potential;
  for (uint32_t i = 0; i < node.pod_count; ++i) {
    if (node.pods[i]->priority < pod.priority) {
      potential.push_back(node.pods[i]);
    }
  }
  if (potential.empty()) {
    return Status::unresolvable(kNoVictims);
  }
  Sim sim = preemption.beginSim(pod, node);
  if (!sim.valid()) {
    return Status::error("node " + std::string(view(node.node->name)) +
                         " is not in the cycle's snapshot");
  }
  auto asError = [](Status s) {
    s.setCode(SH_ERROR);
    return s;
  };
  // Take every potential victim off; if the pod still does not fit, this node cannot help.
  for (const sh_pod* victim : potential) {
    Status s = sim.removePod(*victim);
    if (!s.ok()) {
      return asError(std::move(s));
    }
  }
  Status fits = sim.filter();
  if (!fits.ok()) {
    return fits;
  }

  // Reprieve the most important pods first: sort by importance (stable, so equal pods keep
  // the node's order and the result is reproducible).
  std::stable_sort(potential.begin(), potential.end(),
                   [now](const sh_pod* a, const sh_pod* b) { return moreImportant(*a, *b, now); });
  std::vector<const sh_pod*> violating;
  std::vector<const sh_pod*> nonViolating;
  splitByPdbViolation(potential, pdbs, pdbCount, violating, nonViolating);

  Status failure;
  auto reprieve = [&](const sh_pod* p, bool& stays) -> bool {
    Status s = sim.addPod(*p);
    if (!s.ok()) {
      failure = asError(std::move(s));
      return false;
    }
    stays = sim.filter().ok();
    if (!stays) {
      Status r = sim.removePod(*p);
      if (!r.ok()) {
        failure = asError(std::move(r));
        return false;
      }
      out.pods.push_back(p);
    }
    return true;
  };
  for (const sh_pod* p : violating) {
    bool stays = false;
    if (!reprieve(p, stays)) {
      return failure;
    }
    if (!stays) {
      ++out.numPdbViolations;
    }
  }
  for (const sh_pod* p : nonViolating) {
    bool stays = false;
    if (!reprieve(p, stays)) {
      return failure;
    }
  }
  if (!violating.empty() && !nonViolating.empty()) {
    std::stable_sort(out.pods.begin(), out.pods.end(), [now](const sh_pod* a, const sh_pod* b) {
      return moreImportant(*a, *b, now);
    });
  }
  return Status::success();
}

}  // namespace schedhost::plugins::defaultpreemption

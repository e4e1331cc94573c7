#include "host/model/pod_assign.h"

#include <algorithm>
#include <iterator>

#include <boost/json.hpp>

namespace sh::model {

namespace {

constexpr std::string_view kPodScheduled = "PodScheduled";
constexpr std::string_view kTrue = "True";

sh_str literal(std::string_view s) { return sh_str{s.data(), s.size()}; }

bool isPodScheduled(const sh_pod_condition& c) {
  return std::string_view(c.type.ptr, c.type.len) == kPodScheduled;
}

}  // namespace

// A copy shares the base pod's arena (every pointer of the view stays valid while the base
// lives) and owns only its overridden strings: no parsing, no copying of the manifest. The
// manifest itself is rebuilt only if someone asks for it (Pod::json()). A pod made by
// bindToNode is the base of its copies: they point at its conditions and build on its
// manifest.
std::shared_ptr<Pod> Pod::derivedCopy() const {
  const bool ownsEdits = manifestEdit_ != nullptr;
  std::shared_ptr<const Pod> base =
      base_ != nullptr && !ownsEdits ? base_ : weak_from_this().lock();
  if (base == nullptr) {
    return nullptr;  // not owned by a shared_ptr: nothing could keep the arena alive
  }
  auto copy = std::make_shared<Pod>(Pod::Key{});
  copy->base_ = std::move(base);
  copy->block_.view = block_.view;
  copy->hasPriority_ = hasPriority_;
  copy->priorityClassName_ = priorityClassName_;
  copy->nodeName_ = nodeName_;
  copy->overridesNodeName_ = overridesNodeName_;
  copy->nominatedNodeName_ = nominatedNodeName_;
  copy->overridesNominated_ = overridesNominated_;
  // The view's overridden strings point into this pod: point them at the copy's own.
  if (copy->overridesNodeName_) {
    copy->block_.view.node_name = sh_str{copy->nodeName_.data(), copy->nodeName_.size()};
  }
  if (copy->overridesNominated_) {
    copy->block_.view.nominated_node_name =
        sh_str{copy->nominatedNodeName_.data(), copy->nominatedNodeName_.size()};
  }
  return copy;
}

std::shared_ptr<const Pod> assignToNode(const Pod& pod, std::string_view node) {
  std::shared_ptr<Pod> copy = pod.derivedCopy();
  if (copy == nullptr) {
    return nullptr;
  }
  copy->nodeName_ = std::string(node);
  copy->overridesNodeName_ = true;
  copy->block_.view.node_name = sh_str{copy->nodeName_.data(), copy->nodeName_.size()};
  return copy;
}

std::shared_ptr<const Pod> withNominatedNode(const Pod& pod, std::string_view node) {
  std::shared_ptr<Pod> copy = pod.derivedCopy();
  if (copy == nullptr) {
    return nullptr;
  }
  copy->nominatedNodeName_ = std::string(node);
  copy->overridesNominated_ = true;
  copy->block_.view.nominated_node_name =
      sh_str{copy->nominatedNodeName_.data(), copy->nominatedNodeName_.size()};
  return copy;
}

std::shared_ptr<const Pod> bindToNode(const Pod& pod, std::string_view node,
                                      ManifestEdit manifestEdit) {
  std::shared_ptr<Pod> copy = pod.derivedCopy();
  if (copy == nullptr) {
    return nullptr;
  }
  copy->nodeName_ = std::string(node);
  copy->overridesNodeName_ = true;
  copy->block_.view.node_name = sh_str{copy->nodeName_.data(), copy->nodeName_.size()};
  // The parser keeps a condition's type, status and reason: the binding sets the status to
  // "True" and removes the reason of the first PodScheduled condition, or appends one.
  const sh_pod& v = pod.view();
  copy->conditions_.assign(v.conditions, v.conditions + v.condition_count);
  auto it = std::find_if(copy->conditions_.begin(), copy->conditions_.end(), isPodScheduled);
  if (it == copy->conditions_.end()) {
    copy->conditions_.push_back(sh_pod_condition{literal(kPodScheduled), {}, {}});
    it = std::prev(copy->conditions_.end());
  }
  it->status = literal(kTrue);
  it->reason = literal("");
  copy->block_.view.conditions = copy->conditions_.data();
  copy->block_.view.condition_count = static_cast<uint32_t>(copy->conditions_.size());
  copy->manifestEdit_ = std::move(manifestEdit);
  return copy;
}

}  // namespace sh::model

#include "host/model/pod_assign.h"

#include <boost/json.hpp>

namespace sh::model {

// A copy shares the base pod's arena (every pointer of the view stays valid while the base
// lives) and owns only its overridden strings: no parsing, no copying of the manifest. The
// manifest itself is rebuilt only if someone asks for it (Pod::json()).
std::shared_ptr<Pod> Pod::derivedCopy() const {
  std::shared_ptr<const Pod> base = base_ != nullptr ? base_ : weak_from_this().lock();
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

}  // namespace sh::model

#include "host/model/pod_assign.h"

#include <boost/json.hpp>

namespace sh::model {

// The copy shares the base pod's arena (every pointer of the view stays valid while the
// base lives) and owns only its node name: no parsing, no copying of the manifest. The
// manifest itself is rebuilt only if someone asks for it (Pod::json()).
std::shared_ptr<const Pod> assign_to_node(const Pod& pod, std::string_view node) {
  std::shared_ptr<const Pod> base = pod.base_ != nullptr ? pod.base_ : pod.weak_from_this().lock();
  if (base == nullptr) {
    return nullptr;  // not owned by a shared_ptr: nothing could keep the arena alive
  }
  auto copy = std::make_shared<Pod>(Pod::Key{});
  copy->base_ = std::move(base);
  copy->nodeName_ = std::string(node);
  copy->block_.view = pod.block_.view;
  copy->block_.view.node_name = sh_str{copy->nodeName_.data(), copy->nodeName_.size()};
  copy->has_priority_ = pod.has_priority_;
  copy->priority_class_name_ = pod.priority_class_name_;
  return copy;
}

}  // namespace sh::model

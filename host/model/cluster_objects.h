// ClusterObjects: what plugins read besides pods and nodes — Namespaces (namespaceSelector
// in pod affinity), Services, ReplicationControllers, ReplicaSets and StatefulSets (the
// selectors of PodTopologySpread's System default constraints). Immutable once built;
// shared by the snapshots that use it.
#ifndef SCHEDHOST_HOST_MODEL_CLUSTER_OBJECTS_H
#define SCHEDHOST_HOST_MODEL_CLUSTER_OBJECTS_H

#include <schedhost/plugin.h>

#include <boost/json/value.hpp>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "host/model/arena.h"

namespace sh::model {

class ClusterObjects {
 public:
  ClusterObjects() = default;
  ClusterObjects(const ClusterObjects&) = delete;
  ClusterObjects& operator=(const ClusterObjects&) = delete;

  // Whether objects of `kind` are kept here.
  static bool keeps(std::string_view kind);
  // Adds one object of a kept kind. On a malformed object returns false and sets `error`
  // to its JSON path; the store is unchanged.
  bool add(const boost::json::value& object, std::string& error);

  // The labels of namespace `ns` (sorted by key id); nullptr when the namespace is unknown.
  const std::vector<sh_label>* namespaceLabels(std::string_view ns) const;

  // The selectors upstream's System default spreading derives for `pod`: each Service of
  // the pod's namespace whose selector matches the pod's labels, then the selector of the
  // pod's controlling ReplicationController, ReplicaSet or StatefulSet.
  void workloadSelectors(const sh_pod& pod, std::vector<const sh_label_selector*>& out) const;

  std::size_t size() const { return count_; }

 private:
  struct Selected {
    std::string ns;
    std::vector<sh_label> labels;  // a map selector (Service, RC)
    sh_label_selector selector{};
  };
  Arena arena_;
  std::size_t count_ = 0;
  std::unordered_map<std::string, std::vector<sh_label>> namespaces_;
  std::vector<std::unique_ptr<Selected>> services_;
  // (namespace, kind, name) -> selector
  std::map<std::tuple<std::string, std::string, std::string>, const sh_label_selector*>
      controllers_;
  std::vector<std::unique_ptr<Selected>> mapSelectors_;
};

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_CLUSTER_OBJECTS_H

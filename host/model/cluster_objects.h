// ClusterObjects: what plugins read besides pods and nodes — Namespaces (namespaceSelector
// in pod affinity), Services, ReplicationControllers, ReplicaSets and StatefulSets (the
// selectors of PodTopologySpread's System default constraints), PodDisruptionBudgets
// (preemption) — and the PriorityClasses that priority admission resolves pods against.
// Immutable once built; shared by the snapshots that use it.
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
#include "host/model/json_cursor.h"

namespace sh::model {

// A PriorityClass (scheduling.k8s.io/v1), as priority admission reads it.
struct PriorityClassInfo {
  std::string name;
  int32_t value = 0;
  bool globalDefault = false;
  sh_preemption_policy preemptionPolicy = SH_PREEMPT_LOWER_PRIORITY;
};

class ClusterObjects {
 public:
  ClusterObjects() = default;
  ClusterObjects(const ClusterObjects&) = delete;
  ClusterObjects& operator=(const ClusterObjects&) = delete;

  // Whether objects of `kind` are kept here.
  static bool keeps(std::string_view kind);
  // Adds one object of a kept kind. A Namespace, controller, PodDisruptionBudget or
  // PriorityClass with the same namespace and name as one added before replaces it. On a
  // malformed object returns false and sets `error` to every problem found, each with its
  // JSON path ("value: required"); the store is unchanged.
  bool add(const boost::json::value& object, std::string& error);

  // The labels of namespace `ns` (sorted by key id); nullptr when the namespace is unknown.
  const std::vector<sh_label>* namespaceLabels(std::string_view ns) const;

  // The selectors upstream's System default spreading derives for `pod`: each Service of
  // the pod's namespace whose selector matches the pod's labels, then the selector of the
  // pod's controlling ReplicationController, ReplicaSet or StatefulSet.
  void workloadSelectors(const sh_pod& pod, std::vector<const sh_label_selector*>& out) const;

  // Every PodDisruptionBudget, ordered by (namespace, name); each one's disrupted_pods are
  // sorted. The views live as long as this object.
  const std::vector<const sh_pdb*>& pdbs() const { return pdbs_; }

  // The PriorityClass named `name`; nullptr when there is none. Only classes added here:
  // the built-in system classes are priority admission's business.
  const PriorityClassInfo* priorityClass(std::string_view name) const;
  // The class with globalDefault set; when several are (a race upstream admission cannot
  // rule out), the one with the lowest value, as upstream's getDefaultPriorityClass picks,
  // then the first by name. nullptr when there is none.
  const PriorityClassInfo* globalDefaultPriorityClass() const { return globalDefault_; }

  // How many objects were added (a replaced object counts each time).
  std::size_t size() const { return count_; }

 private:
  // The kinds with more to read than a selector. False when the context holds errors.
  bool addPdb(const Cursor& root, const std::string& ns, const std::string& name);
  bool addPriorityClass(const Cursor& root, const std::string& name);

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
  std::vector<const sh_pdb*> pdbs_;  // sorted by (namespace, name), one per budget
  std::map<std::string, PriorityClassInfo, std::less<>> priorityClasses_;
  const PriorityClassInfo* globalDefault_ = nullptr;
};

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_CLUSTER_OBJECTS_H

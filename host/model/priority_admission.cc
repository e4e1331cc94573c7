#include "host/model/priority_admission.h"

#include <array>

#include <boost/json/object.hpp>

namespace sh::model {
namespace {

// scheduling.SystemPriorityClasses(): the values are SystemCriticalPriority (2e9) and
// SystemCriticalPriority + 1000.
const std::array<PriorityClassInfo, 2>& systemClasses() {
  static const std::array<PriorityClassInfo, 2> kClasses = {{
      {"system-cluster-critical", 2000000000, false, SH_PREEMPT_LOWER_PRIORITY},
      {"system-node-critical", 2000001000, false, SH_PREEMPT_LOWER_PRIORITY},
  }};
  return kClasses;
}

bool isSet(const boost::json::value* v) { return v != nullptr && !v->is_null(); }

}  // namespace

const PriorityClassInfo* systemPriorityClass(std::string_view name) {
  for (const PriorityClassInfo& c : systemClasses()) {
    if (c.name == name) {
      return &c;
    }
  }
  return nullptr;
}

bool admitPriority(boost::json::value& pod, const ClusterObjects* objects, std::string& error) {
  boost::json::object* root = pod.if_object();
  if (root == nullptr) {
    return true;  // parse_pod reports it
  }
  boost::json::value* specValue = root->if_contains("spec");
  if (!isSet(specValue)) {
    (*root)["spec"] = boost::json::object();
    specValue = root->if_contains("spec");
  }
  boost::json::object* spec = specValue->if_object();
  if (spec == nullptr || isSet(spec->if_contains("priority"))) {
    return true;
  }
  std::string name;
  if (const boost::json::value* n = spec->if_contains("priorityClassName"); isSet(n)) {
    if (!n->is_string()) {
      return true;  // parse_pod reports the type
    }
    name = std::string(n->get_string());
  }

  const PriorityClassInfo* cls = nullptr;
  if (name.empty()) {
    cls = objects != nullptr ? objects->globalDefaultPriorityClass() : nullptr;
  } else {
    cls = objects != nullptr ? objects->priorityClass(name) : nullptr;
    if (cls == nullptr) {
      cls = systemPriorityClass(name);
    }
    if (cls == nullptr) {
      error = "spec.priorityClassName: no PriorityClass with name " + name + " was found";
      return false;
    }
  }

  // DefaultPriorityWhenNoDefaultClassExists is 0, with PreemptLowerPriority.
  const int32_t priority = cls != nullptr ? cls->value : 0;
  const sh_preemption_policy policy =
      cls != nullptr ? cls->preemptionPolicy : SH_PREEMPT_LOWER_PRIORITY;
  if (cls != nullptr && name.empty()) {
    (*spec)["priorityClassName"] = cls->name;
  }
  (*spec)["priority"] = priority;
  if (!isSet(spec->if_contains("preemptionPolicy"))) {
    (*spec)["preemptionPolicy"] = policy == SH_PREEMPT_NEVER ? "Never" : "PreemptLowerPriority";
  }
  return true;
}

}  // namespace sh::model

// Reading a scenario document (docs/scenario-format.md).
#include <boost/json.hpp>

#include "host/evaluate/evaluate.h"

#include "host/connectors/object_store.h"
#include "host/model/node.h"
#include "host/model/pod.h"
#include "host/model/priority_admission.h"

namespace sh::evaluate {
namespace {

// The optional arrays of other objects, by scenario field name.
constexpr const char* kObjectFields[] = {"namespaces",
                                         "services",
                                         "replicaSets",
                                         "statefulSets",
                                         "replicationControllers",
                                         "podDisruptionBudgets",
                                         "priorityClasses"};

// A pod as the API server would have stored it: through priority admission (against the
// scenario's PriorityClasses), then parsed. `at` names it in errors ("pods[1]", "pod").
std::shared_ptr<const model::Pod> admitAndParsePod(const boost::json::value& manifest,
                                                   const model::ClusterObjects& objects,
                                                   const std::string& at, std::string& error) {
  boost::json::value admitted = manifest;
  std::string err;
  if (!model::admitPriority(admitted, &objects, err)) {
    error = at + ": " + err;
    return nullptr;
  }
  auto pod = model::parsePod(admitted, err);
  if (!pod) {
    error = at + "." + err;
  }
  return pod;
}

bool parseObjects(const boost::json::object& doc, const char* field, bool pods,
                  const model::ClusterObjects& objects,
                  std::vector<std::shared_ptr<const model::Pod>>* podsOut,
                  std::vector<std::shared_ptr<const model::Node>>* nodesOut, std::string& error) {
  auto it = doc.find(field);
  if (it == doc.end() || it->value().is_null()) {
    return true;
  }
  if (!it->value().is_array()) {
    error = std::string(field) + ": expected array";
    return false;
  }
  const auto& arr = it->value().get_array();
  for (std::size_t i = 0; i < arr.size(); ++i) {
    std::string prefix = std::string(field) + "[" + std::to_string(i) + "]";
    std::string err;
    if (pods) {
      auto pod = admitAndParsePod(arr[i], objects, prefix, error);
      if (!pod) {
        return false;
      }
      podsOut->push_back(std::move(pod));
    } else {
      auto node = model::parseNode(arr[i], err);
      if (!node) {
        error = prefix + "." + err;
        return false;
      }
      nodesOut->push_back(std::move(node));
    }
  }
  return true;
}

}  // namespace

std::optional<Scenario> parseScenario(const boost::json::value& doc, std::string& error) {
  if (!doc.is_object()) {
    error = "scenario: expected a JSON object";
    return std::nullopt;
  }
  const auto& obj = doc.get_object();
  Scenario s;
  if (auto it = obj.find("name"); it != obj.end() && it->value().is_string()) {
    s.name = std::string(it->value().get_string());
  }
  // The other objects come first: the pods are admitted against the PriorityClasses.
  auto objects = std::make_shared<model::ClusterObjects>();
  for (const char* field : kObjectFields) {
    auto it = obj.find(field);
    if (it == obj.end() || it->value().is_null()) {
      continue;
    }
    if (!it->value().is_array()) {
      error = std::string(field) + ": expected array";
      return std::nullopt;
    }
    const auto& arr = it->value().get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string err;
      if (!objects->add(arr[i], err)) {
        error = std::string(field) + "[" + std::to_string(i) + "]: " + err;
        return std::nullopt;
      }
    }
  }
  // Objects of the kinds plugins declare: the storage arrays, each of one kind, and `objects`,
  // of any kind (each names its own apiVersion and kind).
  struct Typed {
    const char* field;
    const char* apiVersion;
    const char* kind;
  };
  static constexpr Typed kTyped[] = {
      {"persistentVolumes", "v1", "PersistentVolume"},
      {"persistentVolumeClaims", "v1", "PersistentVolumeClaim"},
      {"storageClasses", "storage.k8s.io/v1", "StorageClass"},
      {"csiNodes", "storage.k8s.io/v1", "CSINode"},
      {"csiDrivers", "storage.k8s.io/v1", "CSIDriver"},
      {"csiStorageCapacities", "storage.k8s.io/v1", "CSIStorageCapacity"},
      {"volumeAttachments", "storage.k8s.io/v1", "VolumeAttachment"},
      {"objects", nullptr, nullptr},
  };
  for (const Typed& t : kTyped) {
    auto it = obj.find(t.field);
    if (it == obj.end() || it->value().is_null()) {
      continue;
    }
    if (!it->value().is_array()) {
      error = std::string(t.field) + ": expected array";
      return std::nullopt;
    }
    const auto& arr = it->value().get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      const std::string at = std::string(t.field) + "[" + std::to_string(i) + "]";
      if (!arr[i].is_object()) {
        error = at + ": expected object";
        return std::nullopt;
      }
      boost::json::value v = arr[i];
      boost::json::object& o = v.as_object();
      if (t.apiVersion != nullptr) {
        // The array names the kind; an object that says otherwise is a mistake.
        auto check = [&](const char* key, const char* want) {
          const boost::json::value* f = o.if_contains(key);
          if (f == nullptr || (f->is_string() && f->as_string().empty())) {
            o[key] = want;
            return true;
          }
          return f->is_string() && f->as_string() == want;
        };
        if (!check("apiVersion", t.apiVersion) || !check("kind", t.kind)) {
          error = at + ": expected apiVersion " + t.apiVersion + " and kind " + t.kind;
          return std::nullopt;
        }
      } else {
        for (const char* key : {"apiVersion", "kind"}) {
          const boost::json::value* f = o.if_contains(key);
          if (f == nullptr || !f->is_string() || f->as_string().empty()) {
            error = at + "." + key + ": required";
            return std::nullopt;
          }
        }
      }
      std::string err;
      connectors::ObjectPtr parsed = connectors::StoredObject::parse(std::move(v), err);
      if (parsed == nullptr) {
        error = at + ": " + err;
        return std::nullopt;
      }
      s.kindObjects.push_back(std::move(parsed));
    }
  }
  if (!parseObjects(obj, "nodes", false, *objects, nullptr, &s.nodes, error) ||
      !parseObjects(obj, "pods", true, *objects, &s.pods, nullptr, error)) {
    return std::nullopt;
  }
  auto pit = obj.find("pod");
  if (pit == obj.end() || !pit->value().is_object()) {
    error = "pod: required (the pending pod)";
    return std::nullopt;
  }
  s.pod = admitAndParsePod(pit->value(), *objects, "pod", error);
  if (!s.pod) {
    return std::nullopt;
  }
  if (objects->size() > 0) {
    s.objects = std::move(objects);
  }
  if (auto it = obj.find("plugins"); it != obj.end()) {
    if (!it->value().is_array()) {
      error = "plugins: expected array";
      return std::nullopt;
    }
    const auto& arr = it->value().get_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string at = "plugins[" + std::to_string(i) + "]";
      if (!arr[i].is_object()) {
        error = at + ": expected object";
        return std::nullopt;
      }
      const auto& p = arr[i].get_object();
      auto name = p.find("name");
      if (name == p.end() || !name->value().is_string() || name->value().get_string().empty()) {
        error = at + ".name: required";
        return std::nullopt;
      }
      PluginSpec spec;
      spec.name = std::string(name->value().get_string());
      if (auto args = p.find("args"); args != p.end() && !args->value().is_null()) {
        if (!args->value().is_object()) {
          error = at + ".args: expected object";
          return std::nullopt;
        }
        spec.argsJson = boost::json::serialize(args->value());
      }
      s.plugins.push_back(std::move(spec));
    }
  }
  if (auto it = obj.find("percentageOfNodesToScore"); it != obj.end() && !it->value().is_null()) {
    if (!it->value().is_int64() || it->value().get_int64() < 0 || it->value().get_int64() > 100) {
      error = "percentageOfNodesToScore: must be an integer in [0, 100]";
      return std::nullopt;
    }
    s.percentageOfNodesToScore = static_cast<int>(it->value().get_int64());
  }
  return s;
}

}  // namespace sh::evaluate

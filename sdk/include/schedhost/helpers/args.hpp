// Args validation, with the wording of k8s.io/apimachinery's field errors. A host reports the
// path, so these give the part after "<path>: ".
//
//   wording        quoted, invalidValue, requiredValue, forbidden, duplicateValue,
//                  unsupportedValue (field.Error's messages)
//   tree checks    expectObject, expectArray, rejectUnknownFields (strict decoding), errorAt
//   resources      ResourceSpec, parseResourceSpecs (config.ResourceSpec lists)
//
// The name checks (qualifiedNameErrors, labelValueErrors) are in names.hpp, included here.
#ifndef SCHEDHOST_HELPERS_ARGS_HPP
#define SCHEDHOST_HELPERS_ARGS_HPP

#include <schedhost/plugin.h>
#include <schedhost/helpers/names.hpp>
#include <schedhost/plugin.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost {

inline std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  out += '"';
  return out;
}

inline std::string invalidValue(std::string_view valueRepr, std::string_view detail) {
  std::string out = "Invalid value: ";
  out.append(valueRepr);
  if (!detail.empty()) {
    out += ": ";
    out.append(detail);
  }
  return out;
}
inline std::string requiredValue(std::string_view detail) {
  return detail.empty() ? std::string("Required value") : "Required value: " + std::string(detail);
}
inline std::string forbidden(std::string_view detail) {
  return "Forbidden: " + std::string(detail);
}
inline std::string duplicateValue(std::string_view valueRepr) {
  return "Duplicate value: " + std::string(valueRepr);
}
inline std::string unsupportedValue(std::string_view valueRepr,
                                    const std::vector<std::string_view>& supported) {
  std::string out = "Unsupported value: ";
  out.append(valueRepr);
  out += ": supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += quoted(supported[i]);
  }
  return out;
}

// Checks on an args tree (schedhost::Args). Each reports through Args::error, so a plugin
// constructor can run them all and let the host list every problem.

inline bool expectObject(const Args& node) {
  if (!node.isObject()) {
    node.error("Invalid value: expected an object");
    return false;
  }
  return true;
}

inline bool expectArray(const Args& node) {
  if (!node.isArray()) {
    node.error("Invalid value: expected an array");
    return false;
  }
  return true;
}

// Reports the members of an object that are not in `known`, as strict decoding does. The
// "kind" and "apiVersion" of a typed args object are always accepted.
inline void rejectUnknownFields(const Args& obj, std::initializer_list<std::string_view> known) {
  for (std::size_t i = 0; i < obj.size(); ++i) {
    std::string_view key = obj.keyAt(i);
    bool ok = key == "kind" || key == "apiVersion";
    for (std::string_view k : known) {
      ok = ok || k == key;
    }
    if (!ok) {
      obj.at(i).error("unknown field " + quoted(key));
    }
  }
}

// Reports `message` at parent[child], or at `parent` naming the child when it is absent.
inline void errorAt(const Args& parent, const char* child, const std::string& message) {
  Args node = parent[child];
  if (node.present()) {
    node.error(message);
  } else {
    parent.error(std::string(child) + ": " + message);
  }
}

// ---------------------------------------------------------------------------
// Scoring resources (config.ResourceSpec), as NodeResourcesFit's scoringStrategy.resources and
// NodeResourcesBalancedAllocation's resources list them.
// ---------------------------------------------------------------------------

struct ResourceSpec {
  std::string name;
  sh_id id = SH_ID_NONE;  // name, interned
  int64_t weight = 1;     // 0 in the args is defaulted to 1
  bool scalar = false;    // isScalarResourceName(name)
};

// Reads a list of {name, weight} objects: unknown fields, a non-object entry and a weight that
// is not an integer are reported; a weight of 0 becomes 1 (upstream's defaulting). Each entry,
// defaulted, is passed to check(const Args& item, const ResourceSpec& spec, const
// std::vector<ResourceSpec>& earlier) for the plugin's own validation before it is added. An
// absent or empty list gives cpu and memory with weight 1.
template <typename Check>
std::vector<ResourceSpec> parseResourceSpecs(const Host& host, const Args& list, Check&& check) {
  std::vector<ResourceSpec> out;
  if (list.present() && expectArray(list)) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      Args item = list.at(i);
      if (!expectObject(item)) {
        continue;
      }
      rejectUnknownFields(item, {"name", "weight"});
      ResourceSpec spec;
      spec.name = std::string(item["name"].asString());
      Args weight = item["weight"];
      spec.weight = 0;
      if (weight.present() && !weight.isInt()) {
        weight.error("Invalid value: expected an integer");
      } else if (weight.present()) {
        spec.weight = weight.asInt();
      }
      if (spec.weight == 0) {
        spec.weight = 1;
      }
      spec.id = host.intern(spec.name);
      spec.scalar = isScalarResourceName(spec.name);
      check(static_cast<const Args&>(item), static_cast<const ResourceSpec&>(spec),
            static_cast<const std::vector<ResourceSpec>&>(out));
      out.push_back(std::move(spec));
    }
  }
  if (out.empty()) {
    out.push_back({"cpu", SH_ID_CPU, 1, false});
    out.push_back({"memory", SH_ID_MEMORY, 1, false});
  }
  return out;
}

}  // namespace schedhost

#endif  // SCHEDHOST_HELPERS_ARGS_HPP

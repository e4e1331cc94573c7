#include "host/extender/extender_messages.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace sh::extender {
namespace {

namespace json = boost::json;

bool sameIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) {
      return false;
    }
  }
  return true;
}

// A member as Go's decoder finds it: the exact name first, else the last member whose name
// matches without regard to case. nullptr when absent or null (a nil pointer, map or slice).
const json::value* member(const json::object& object, std::string_view name) {
  if (const json::value* v = object.if_contains(name)) {
    return v->is_null() ? nullptr : v;
  }
  const json::value* found = nullptr;
  for (const auto& kv : object) {
    if (sameIgnoringCase(kv.key(), name)) {
      found = &kv.value();
    }
  }
  return found == nullptr || found->is_null() ? nullptr : found;
}

std::string quoted(std::string_view text) { return json::serialize(json::string(text)); }

bool parseObject(std::string_view text, json::value& root, std::string& problem) {
  boost::system::error_code ec;
  root = json::parse(text, ec);
  if (ec) {
    problem = "the answer is not JSON: " + ec.message();
    return false;
  }
  return true;
}

bool readString(const json::object& object, std::string_view name, std::string& out,
                std::string& problem) {
  const json::value* v = member(object, name);
  if (v == nullptr) {
    return true;
  }
  if (!v->is_string()) {
    problem = std::string(name) + ": expected a string";
    return false;
  }
  out = std::string(v->as_string());
  return true;
}

bool readInt(const json::value& v, int64_t& out) {
  if (v.is_int64()) {
    out = v.as_int64();
    return true;
  }
  if (v.is_uint64() && v.as_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    out = static_cast<int64_t>(v.as_uint64());
    return true;
  }
  return false;
}

bool readFailedNodes(const json::object& object, std::string_view name,
                     std::map<std::string, std::string>& out, std::string& problem) {
  const json::value* v = member(object, name);
  if (v == nullptr) {
    return true;
  }
  if (!v->is_object()) {
    problem = std::string(name) + ": expected an object of strings";
    return false;
  }
  for (const auto& kv : v->as_object()) {
    if (!kv.value().is_string()) {
      problem = std::string(name) + "." + std::string(kv.key()) + ": expected a string";
      return false;
    }
    out[std::string(kv.key())] = std::string(kv.value().as_string());
  }
  return true;
}

void appendNodes(std::string& out, const std::vector<const model::Node*>& nodes,
                 bool nodeCacheCapable) {
  if (nodeCacheCapable) {
    out += "\"Nodes\":null,\"NodeNames\":[";
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      out += i == 0 ? "" : ",";
      out += quoted(nodes[i]->name());
    }
    out += "]";
    return;
  }
  out += "\"Nodes\":{\"metadata\":{},\"items\":[";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    out += i == 0 ? "" : ",";
    out += nodes[i]->json();
  }
  out += "]},\"NodeNames\":null";
}

}  // namespace

std::string encodeArgs(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                       bool nodeCacheCapable) {
  std::string out;
  std::size_t size = pod.json().size() + 64;
  for (const model::Node* n : nodes) {
    size += nodeCacheCapable ? n->name().size() + 3 : n->json().size() + 1;
  }
  out.reserve(size);
  out += "{\"Pod\":";
  out += pod.json();
  out += ",";
  appendNodes(out, nodes, nodeCacheCapable);
  out += "}";
  return out;
}

std::string encodeBindingArgs(const model::Pod& pod, const std::string& node) {
  return "{\"PodName\":" + quoted(pod.name()) + ",\"PodNamespace\":" + quoted(pod.namespaceName()) +
         ",\"PodUID\":" + quoted(pod.uid()) + ",\"Node\":" + quoted(node) + "}";
}

std::string encodePreemptionArgs(const model::Pod& pod, const cycle::NodeVictims& victims,
                                 bool nodeCacheCapable) {
  std::string out = "{\"Pod\":" + pod.json();
  out += nodeCacheCapable ? ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
                          : ",\"NodeNameToVictims\":{";
  bool first = true;
  for (const auto& [node, v] : victims) {
    out += first ? "" : ",";
    first = false;
    out += quoted(node) + ":{\"Pods\":[";
    for (std::size_t i = 0; i < v.pods.size(); ++i) {
      out += i == 0 ? "" : ",";
      out += nodeCacheCapable ? "{\"UID\":" + quoted(v.pods[i]->uid()) + "}" : v.pods[i]->json();
    }
    out += "],\"NumPDBViolations\":" + std::to_string(v.numPdbViolations) + "}";
  }
  out += nodeCacheCapable ? "}}" : "},\"NodeNameToMetaVictims\":null}";
  return out;
}

bool decodeFilterResult(std::string_view text, bool nodeCacheCapable,
                        cycle::ExtenderFilterResult& out, std::string& extenderError,
                        std::string& problem) {
  json::value root;
  if (!parseObject(text, root, problem)) {
    return false;
  }
  if (!root.is_object()) {
    problem = "expected an ExtenderFilterResult object";
    return false;
  }
  const json::object& o = root.as_object();
  if (!readString(o, "Error", extenderError, problem) ||
      !readFailedNodes(o, "FailedNodes", out.failedNodes, problem) ||
      !readFailedNodes(o, "FailedAndUnresolvableNodes", out.failedAndUnresolvableNodes, problem)) {
    return false;
  }
  const json::value* names = member(o, "NodeNames");
  if (nodeCacheCapable && names != nullptr) {
    if (!names->is_array()) {
      problem = "NodeNames: expected a list of strings";
      return false;
    }
    for (const json::value& n : names->as_array()) {
      if (!n.is_string()) {
        problem = "NodeNames: expected a list of strings";
        return false;
      }
      out.nodes.emplace_back(n.as_string());
    }
    return true;
  }
  if (const json::value* nodes = member(o, "Nodes")) {
    const json::value* items = nodes->is_object() ? member(nodes->as_object(), "items") : nullptr;
    if (!nodes->is_object() || (items != nullptr && !items->is_array())) {
      problem = "Nodes: expected a NodeList";
      return false;
    }
    if (items == nullptr) {
      return true;
    }
    for (const json::value& n : items->as_array()) {
      const json::value* meta = n.is_object() ? member(n.as_object(), "metadata") : nullptr;
      const json::value* name =
          meta != nullptr && meta->is_object() ? member(meta->as_object(), "name") : nullptr;
      if (name == nullptr || !name->is_string()) {
        problem = "Nodes.items: a node without metadata.name";
        return false;
      }
      out.nodes.emplace_back(name->as_string());
    }
  }
  return true;
}

bool decodeHostPriorityList(std::string_view text, std::vector<cycle::HostPriority>& out,
                            std::string& problem) {
  json::value root;
  if (!parseObject(text, root, problem)) {
    return false;
  }
  if (root.is_null()) {
    return true;  // a nil list
  }
  if (!root.is_array()) {
    problem = "expected a HostPriorityList (a list of {Host, Score})";
    return false;
  }
  for (const json::value& item : root.as_array()) {
    if (!item.is_object()) {
      problem = "expected a HostPriorityList (a list of {Host, Score})";
      return false;
    }
    cycle::HostPriority p;
    if (!readString(item.as_object(), "Host", p.host, problem)) {
      return false;
    }
    if (const json::value* score = member(item.as_object(), "Score");
        score != nullptr && !readInt(*score, p.score)) {
      problem = "Score of " + quoted(p.host) + ": expected an integer";
      return false;
    }
    out.push_back(std::move(p));
  }
  return true;
}

bool decodeBindingResult(std::string_view text, std::string& extenderError, std::string& problem) {
  json::value root;
  if (!parseObject(text, root, problem)) {
    return false;
  }
  if (!root.is_object()) {
    problem = "expected an ExtenderBindingResult object";
    return false;
  }
  return readString(root.as_object(), "Error", extenderError, problem);
}

bool decodePreemptionResult(std::string_view text, std::map<std::string, MetaVictims>& out,
                            std::string& problem) {
  json::value root;
  if (!parseObject(text, root, problem)) {
    return false;
  }
  if (!root.is_object()) {
    problem = "expected an ExtenderPreemptionResult object";
    return false;
  }
  const json::value* map = member(root.as_object(), "NodeNameToMetaVictims");
  if (map == nullptr) {
    return true;
  }
  if (!map->is_object()) {
    problem = "NodeNameToMetaVictims: expected an object";
    return false;
  }
  for (const auto& kv : map->as_object()) {
    MetaVictims& victims = out[std::string(kv.key())];
    if (kv.value().is_null()) {
      continue;  // a nil *MetaVictims: no victims
    }
    const std::string where = "NodeNameToMetaVictims." + std::string(kv.key());
    if (!kv.value().is_object()) {
      problem = where + ": expected {Pods, NumPDBViolations}";
      return false;
    }
    const json::object& v = kv.value().as_object();
    if (const json::value* n = member(v, "NumPDBViolations");
        n != nullptr && !readInt(*n, victims.numPdbViolations)) {
      problem = where + ".NumPDBViolations: expected an integer";
      return false;
    }
    const json::value* pods = member(v, "Pods");
    if (pods == nullptr) {
      continue;
    }
    if (!pods->is_array()) {
      problem = where + ".Pods: expected a list of {UID}";
      return false;
    }
    for (const json::value& p : pods->as_array()) {
      std::string uid;
      if (!p.is_object() || !readString(p.as_object(), "UID", uid, problem)) {
        problem = where + ".Pods: expected a list of {UID}";
        return false;
      }
      victims.uids.push_back(std::move(uid));
    }
  }
  return true;
}

}  // namespace sh::extender

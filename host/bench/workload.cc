#include "host/bench/workload.h"

#include <cmath>

#include <boost/json.hpp>

namespace sh::bench {
namespace {

struct Group {
  std::size_t count = 0;
  std::string prefix;
  std::string ns;
  boost::json::object templ;
  std::vector<std::pair<std::string, std::vector<std::string>>> labels;
};

bool readGroup(const boost::json::object& doc, const char* field, double scale, Group& g,
               std::string& error) {
  const boost::json::value* v = doc.if_contains(field);
  if (v == nullptr) {
    return true;  // an absent group is empty
  }
  if (!v->is_object()) {
    error = std::string(field) + ": expected an object";
    return false;
  }
  const auto& o = v->get_object();
  const boost::json::value* count = o.if_contains("count");
  if (count == nullptr || !count->is_int64() || count->get_int64() < 0) {
    error = std::string(field) + ".count: expected a non-negative integer";
    return false;
  }
  g.count = static_cast<std::size_t>(std::llround(static_cast<double>(count->get_int64()) * scale));
  if (const auto* p = o.if_contains("namePrefix"); p != nullptr && p->is_string()) {
    g.prefix = std::string(p->get_string());
  }
  if (const auto* n = o.if_contains("namespace"); n != nullptr && n->is_string()) {
    g.ns = std::string(n->get_string());
  }
  const boost::json::value* t = o.if_contains("template");
  if (t == nullptr || !t->is_object()) {
    error = std::string(field) + ".template: expected an object";
    return false;
  }
  g.templ = t->get_object();
  if (const auto* l = o.if_contains("labels"); l != nullptr) {
    if (!l->is_object()) {
      error = std::string(field) + ".labels: expected an object";
      return false;
    }
    for (const auto& kv : l->get_object()) {
      std::vector<std::string> values;
      if (!kv.value().is_array()) {
        error = std::string(field) + ".labels." + std::string(kv.key()) + ": expected an array";
        return false;
      }
      for (const auto& x : kv.value().get_array()) {
        if (x.is_string()) {
          values.emplace_back(x.get_string());
        }
      }
      if (!values.empty()) {
        g.labels.emplace_back(std::string(kv.key()), std::move(values));
      }
    }
  }
  return true;
}

boost::json::object& child(boost::json::object& o, const char* key) {
  if (boost::json::value* v = o.if_contains(key); v != nullptr && v->is_object()) {
    return v->get_object();
  }
  o[key] = boost::json::object();
  return o[key].get_object();
}

// The i-th object of a group: the template with name, uid, namespace and labels set.
boost::json::object instance(const Group& g, std::size_t i, bool node) {
  boost::json::object obj = g.templ;
  std::string name = g.prefix + std::to_string(i);
  boost::json::object& meta = child(obj, "metadata");
  meta["name"] = name;
  meta["uid"] = (node ? "node-uid-" : "pod-uid-") + g.ns + "-" + name;
  if (!g.ns.empty()) {
    meta["namespace"] = g.ns;
  }
  if (node || !g.labels.empty()) {
    boost::json::object& labels = child(meta, "labels");
    if (node) {
      labels["kubernetes.io/hostname"] = name;
    }
    for (const auto& [key, values] : g.labels) {
      labels[key] = values[i % values.size()];
    }
  }
  return obj;
}

}  // namespace

std::optional<Workload> buildWorkload(const boost::json::value& doc, double scale,
                                      std::string& error) {
  if (!doc.is_object()) {
    error = "workload: expected a JSON object";
    return std::nullopt;
  }
  const auto& o = doc.get_object();
  Workload w;
  if (const auto* n = o.if_contains("name"); n != nullptr && n->is_string()) {
    w.name = std::string(n->get_string());
  }
  Group nodes;
  Group init;
  Group measured;
  if (!readGroup(o, "nodes", scale, nodes, error) ||
      !readGroup(o, "initPods", scale, init, error) ||
      !readGroup(o, "measuredPods", scale, measured, error)) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < nodes.count; ++i) {
    std::string err;
    auto node = model::parseNode(boost::json::value(instance(nodes, i, true)), err);
    if (!node) {
      error = "nodes.template: " + err;
      return std::nullopt;
    }
    w.nodes.push_back(std::move(node));
  }
  for (auto [group, out, field] : {std::tuple{&init, &w.initPods, "initPods"},
                                   std::tuple{&measured, &w.measuredPods, "measuredPods"}}) {
    for (std::size_t i = 0; i < group->count; ++i) {
      std::string err;
      auto pod = model::parsePod(boost::json::value(instance(*group, i, false)), err);
      if (!pod) {
        error = std::string(field) + ".template: " + err;
        return std::nullopt;
      }
      out->push_back(std::move(pod));
    }
  }
  return w;
}

}  // namespace sh::bench

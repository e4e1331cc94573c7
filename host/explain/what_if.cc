#include "host/explain/what_if.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <boost/json.hpp>

#include "host/cache/snapshot.h"
#include "host/model/node.h"
#include "host/model/pod.h"
#include "host/model/quantity.h"

namespace sh::explain {
namespace {

namespace json = boost::json;

// The nodes a scenario's pod fits on, every node examined.
std::set<std::string> feasibleNodes(const evaluate::Result& result) {
  std::set<std::string> out;
  for (const auto& [name, node] : result.nodes) {
    if (node.feasible) {
      out.insert(name);
    }
  }
  return out;
}

class Trial {
 public:
  Trial(const evaluate::Scenario& scenario, const evaluate::Options& options,
        const WhatIfOptions& limits)
      : scenario_(scenario), options_(options), limits_(limits) {
    evaluate::Scenario all = scenario;
    all.percentageOfNodesToScore = 100;
    baseline_ = feasibleNodes(evaluate::run(all, options));
  }

  // Evaluates `changed` and, when it opens nodes, keeps the change as `what`.
  void tryScenario(evaluate::Scenario changed, std::string what) {
    changed.percentageOfNodesToScore = 100;
    std::set<std::string> now;
    try {
      now = feasibleNodes(evaluate::run(changed, options_));
    } catch (const std::exception& e) {
      // A plugin's error on the copy: the change is left out, and said to be.
      if (failed_++ == 0) {
        firstError_ = what + ": " + e.what();
      }
      return;
    }
    WhatIf w;
    w.change = std::move(what);
    for (const std::string& name : now) {
      if (baseline_.count(name) == 0) {
        ++w.nodes;
        if (w.examples.size() < limits_.examples) {
          w.examples.push_back(name);
        }
      }
    }
    if (w.nodes > 0) {
      found_.push_back(std::move(w));
    }
  }

  // Evaluates the scenario with the pod's manifest edited by `edit`.
  void tryPod(const std::function<void(json::object& spec)>& edit, std::string what) {
    json::value manifest = scenario_.pod->manifest();
    if (!manifest.is_object()) {
      return;
    }
    json::value& spec = manifest.as_object()["spec"];
    if (!spec.is_object()) {
      spec.emplace_object();
    }
    try {
      edit(spec.as_object());
    } catch (const std::exception&) {
      return;  // a manifest not shaped as the edit expects
    }
    std::string error;
    auto pod = model::parsePod(manifest, error);
    if (!pod) {
      if (failed_++ == 0) {
        firstError_ = what + ": the changed pod does not parse: " + error;
      }
      return;
    }
    evaluate::Scenario changed = scenario_;
    changed.pod = std::move(pod);
    tryScenario(std::move(changed), std::move(what));
  }

  void add(WhatIf w) { found_.push_back(std::move(w)); }
  std::vector<WhatIf> take() { return std::move(found_); }
  // "" when every change tried was evaluated; else how many were not, and the first error.
  std::string failures() const {
    if (failed_ == 0) {
      return "";
    }
    return std::to_string(failed_) + " change(s) could not be evaluated (" + firstError_ + ")";
  }
  const std::set<std::string>& baseline() const { return baseline_; }

 private:
  const evaluate::Scenario& scenario_;
  const evaluate::Options& options_;
  const WhatIfOptions& limits_;
  std::set<std::string> baseline_;
  std::vector<WhatIf> found_;
  std::size_t failed_ = 0;
  std::string firstError_;
};

const json::object* objectAt(const json::value& v, std::initializer_list<const char*> path) {
  const json::value* at = &v;
  for (const char* key : path) {
    if (!at->is_object()) {
      return nullptr;
    }
    at = at->as_object().if_contains(key);
    if (at == nullptr) {
      return nullptr;
    }
  }
  return at->is_object() ? &at->as_object() : nullptr;
}

std::string text(const json::value* v) {
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// The nodes of `result` that Filter plugin `plugin` rejected (a node's first failing plugin),
// and when `reason` is given, only those it gave that reason among others.
std::set<std::string> rejectedBy(const evaluate::Result& result, const std::string& plugin,
                                 const std::string& reason = "") {
  std::set<std::string> out;
  for (const auto& [name, node] : result.nodes) {
    auto it = node.filter.find(plugin);
    if (node.feasible || it == node.filter.end() || it->second.code == "Success" ||
        it->second.code == "Skip") {
      continue;
    }
    const auto& reasons = it->second.reasons;
    if (reason.empty() || std::find(reasons.begin(), reasons.end(), reason) != reasons.end()) {
      out.insert(name);
    }
  }
  return out;
}

bool preFilterFailed(const evaluate::Result& result, const std::string& plugin) {
  auto it = result.preFilter.find(plugin);
  return it != result.preFilter.end() && it->second.code != "Success" && it->second.code != "Skip";
}

// Taints: tolerate one of the NoSchedule / NoExecute taints of the rejected nodes.
void taints(const evaluate::Scenario& scenario, const evaluate::Result& current, Trial& trial,
            const WhatIfOptions& limits) {
  const std::set<std::string> rejected = rejectedBy(current, "TaintToleration");
  if (rejected.empty()) {
    return;
  }
  // key, value, effect -> nodes carrying it
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> seen;
  for (const auto& node : scenario.nodes) {
    if (rejected.count(std::string(node->view().name.ptr, node->view().name.len)) == 0) {
      continue;
    }
    const json::value& m = node->manifest();
    const json::object* spec = objectAt(m, {"spec"});
    const json::value* list = spec != nullptr ? spec->if_contains("taints") : nullptr;
    if (list == nullptr || !list->is_array()) {
      continue;
    }
    for (const json::value& t : list->as_array()) {
      if (!t.is_object()) {
        continue;
      }
      std::string effect = text(t.as_object().if_contains("effect"));
      if (effect != "NoSchedule" && effect != "NoExecute") {
        continue;
      }
      ++seen[{text(t.as_object().if_contains("key")), text(t.as_object().if_contains("value")),
              effect}];
    }
  }
  std::vector<std::pair<std::size_t, std::tuple<std::string, std::string, std::string>>> order;
  for (const auto& [taint, count] : seen) {
    order.emplace_back(count, taint);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < order.size() && i < limits.maxPerKind; ++i) {
    // Named copies: clang 14 (clang-tidy's) cannot capture structured bindings in a lambda.
    const std::string key = std::get<0>(order[i].second);
    const std::string value = std::get<1>(order[i].second);
    const std::string effect = std::get<2>(order[i].second);
    std::string shown = key + (value.empty() ? "" : "=" + value) + ":" + effect;
    trial.tryPod(
        [&](json::object& spec) {
          json::object toleration;
          toleration["key"] = key;
          toleration["operator"] = value.empty() ? "Exists" : "Equal";
          if (!value.empty()) {
            toleration["value"] = value;
          }
          toleration["effect"] = effect;
          json::value& list = spec["tolerations"];
          if (!list.is_array()) {
            list.emplace_array();
          }
          list.as_array().push_back(std::move(toleration));
        },
        "tolerate the taint " + shown + " (or remove it from the nodes)");
  }
}

std::string requirementText(const json::value& r) {
  if (!r.is_object()) {
    return "?";
  }
  std::string out =
      text(r.as_object().if_contains("key")) + " " + text(r.as_object().if_contains("operator"));
  if (const json::value* values = r.as_object().if_contains("values");
      values != nullptr && values->is_array() && !values->as_array().empty()) {
    out += " [";
    bool first = true;
    for (const json::value& v : values->as_array()) {
      out += (first ? "" : ", ") + text(&v);
      first = false;
    }
    out += "]";
  }
  return out;
}

// Node affinity: drop one nodeSelector entry, or one requirement of the required terms.
void nodeAffinity(const evaluate::Scenario& scenario, const evaluate::Result& current, Trial& trial,
                  const WhatIfOptions& limits) {
  if (rejectedBy(current, "NodeAffinity").empty() && !preFilterFailed(current, "NodeAffinity")) {
    return;
  }
  const json::value& m = scenario.pod->manifest();
  std::size_t tried = 0;
  if (const json::object* selector = objectAt(m, {"spec", "nodeSelector"})) {
    for (const auto& entry : *selector) {
      if (tried++ >= limits.maxPerKind) {
        break;
      }
      const std::string key(entry.key());
      trial.tryPod([&](json::object& spec) { spec["nodeSelector"].as_object().erase(key); },
                   "drop the nodeSelector entry " + key + "=" + text(&entry.value()));
    }
  }
  const json::object* required = objectAt(
      m, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  const json::value* terms =
      required != nullptr ? required->if_contains("nodeSelectorTerms") : nullptr;
  if (terms == nullptr || !terms->is_array()) {
    return;
  }
  const json::array& list = terms->as_array();
  for (std::size_t t = 0; t < list.size(); ++t) {
    for (const char* field : {"matchExpressions", "matchFields"}) {
      const json::value* exprs =
          list[t].is_object() ? list[t].as_object().if_contains(field) : nullptr;
      if (exprs == nullptr || !exprs->is_array()) {
        continue;
      }
      for (std::size_t i = 0; i < exprs->as_array().size(); ++i) {
        if (tried++ >= limits.maxPerKind) {
          return;
        }
        const std::string shown = requirementText(exprs->as_array()[i]);
        trial.tryPod(
            [&](json::object& spec) {
              json::object& nodeAff = spec["affinity"].as_object()["nodeAffinity"].as_object();
              json::object& req =
                  nodeAff["requiredDuringSchedulingIgnoredDuringExecution"].as_object();
              json::object& term = req["nodeSelectorTerms"].as_array()[t].as_object();
              json::array& arr = term[field].as_array();
              arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(i));
              std::size_t left = 0;
              for (const char* f : {"matchExpressions", "matchFields"}) {
                if (const json::value* v = term.if_contains(f); v != nullptr && v->is_array()) {
                  left += v->as_array().size();
                }
              }
              // A term left with no requirement matches every node: the affinity is gone.
              if (left == 0) {
                nodeAff.erase("requiredDuringSchedulingIgnoredDuringExecution");
              }
            },
            "drop the requirement " + shown + " of the required node affinity (term " +
                std::to_string(t + 1) + ")");
      }
    }
  }
}

// Pod affinity and anti-affinity: drop one required term.
void podAffinity(const evaluate::Scenario& scenario, const evaluate::Result& current, Trial& trial,
                 const WhatIfOptions& limits) {
  if (rejectedBy(current, "InterPodAffinity").empty() &&
      !preFilterFailed(current, "InterPodAffinity")) {
    return;
  }
  const json::value& m = scenario.pod->manifest();
  std::size_t tried = 0;
  for (const char* kind : {"podAffinity", "podAntiAffinity"}) {
    const json::object* aff = objectAt(m, {"spec", "affinity", kind});
    const json::value* terms =
        aff != nullptr ? aff->if_contains("requiredDuringSchedulingIgnoredDuringExecution")
                       : nullptr;
    if (terms == nullptr || !terms->is_array()) {
      continue;
    }
    for (std::size_t t = 0; t < terms->as_array().size() && tried < limits.maxPerKind;
         ++t, ++tried) {
      const json::value& term = terms->as_array()[t];
      std::string topology =
          term.is_object() ? text(term.as_object().if_contains("topologyKey")) : std::string();
      trial.tryPod(
          [&](json::object& spec) {
            json::array& arr = spec["affinity"]
                                   .as_object()[kind]
                                   .as_object()["requiredDuringSchedulingIgnoredDuringExecution"]
                                   .as_array();
            arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(t));
          },
          std::string("drop the required pod ") +
              (std::string(kind) == "podAffinity" ? "affinity" : "anti-affinity") + " term " +
              std::to_string(t + 1) + (topology.empty() ? "" : " (topologyKey " + topology + ")"));
    }
  }
}

std::string showQuantity(const std::string& resource, int64_t v) {
  if (resource == "cpu") {
    return std::to_string(v) + "m";
  }
  constexpr int64_t kMi = 1024 * 1024;
  if (v % kMi == 0) {
    return std::to_string(v / kMi) + "Mi";
  }
  return std::to_string(v);
}

// Resources: lower one request to what the node with the most of it free, of the nodes short
// of it, has free.
void resources(const evaluate::Scenario& scenario, const evaluate::Result& current, Trial& trial) {
  struct Kind {
    const char* name;
    int64_t sh_resources::*field;
  };
  static constexpr Kind kKinds[] = {{"cpu", &sh_resources::milli_cpu},
                                    {"memory", &sh_resources::memory},
                                    {"ephemeral-storage", &sh_resources::ephemeral_storage}};
  auto snapshot = cache::buildSnapshot(scenario.nodes, scenario.pods);
  const sh_pod& pod = scenario.pod->view();
  for (const Kind& kind : kKinds) {
    const std::set<std::string> shortOf =
        rejectedBy(current, "NodeResourcesFit", std::string("Insufficient ") + kind.name);
    if (shortOf.empty()) {
      continue;
    }
    const int64_t wanted = pod.requests.*kind.field;
    int64_t bestFree = 0;
    std::string bestNode;
    for (const sh_node_info* ni : snapshot->views) {
      if (shortOf.count(std::string(ni->node->name.ptr, ni->node->name.len)) == 0) {
        continue;
      }
      const int64_t free = ni->node->allocatable.*kind.field - ni->requested.*kind.field;
      if (free > bestFree) {
        bestFree = free;
        bestNode.assign(ni->node->name.ptr, ni->node->name.len);
      }
    }
    if (bestFree <= 0 || bestFree >= wanted) {
      continue;
    }
    // Lowers the containers' requests by the excess, the largest first.
    int64_t excess = wanted - bestFree;
    const std::string resource = kind.name;
    trial.tryPod(
        [&](json::object& spec) {
          json::value* containers = spec.if_contains("containers");
          if (containers == nullptr || !containers->is_array()) {
            return;
          }
          std::vector<std::pair<int64_t, json::object*>> requests;
          for (json::value& c : containers->as_array()) {
            json::object* res = c.is_object() ? c.as_object()["resources"].if_object() : nullptr;
            if (res == nullptr) {
              continue;
            }
            json::value& reqs = (*res)["requests"];
            if (!reqs.is_object()) {
              reqs.emplace_object();
            }
            // Requests left unset default to the limits, as the API server does.
            const json::value* v = reqs.as_object().if_contains(resource);
            if (v == nullptr) {
              if (const json::object* limitsObj = res->if_contains("limits") != nullptr
                                                      ? (*res)["limits"].if_object()
                                                      : nullptr) {
                v = limitsObj->if_contains(resource);
              }
            }
            auto q = v != nullptr && v->is_string() ? model::parseQuantity(v->as_string().c_str())
                                                    : std::nullopt;
            if (!q) {
              continue;
            }
            requests.emplace_back(resource == "cpu" ? q->milliValue() : q->value(),
                                  &reqs.as_object());
          }
          std::stable_sort(requests.begin(), requests.end(),
                           [](const auto& a, const auto& b) { return a.first > b.first; });
          for (auto& [value, reqs] : requests) {
            const int64_t cut = std::min(value, excess);
            excess -= cut;
            (*reqs)[resource] = showQuantity(resource, value - cut);
            if (excess == 0) {
              break;
            }
          }
        },
        "lower the " + resource + " request from " + showQuantity(resource, wanted) + " to " +
            showQuantity(resource, bestFree) + " (what " + bestNode + " has free)");
  }
}

// A node like one the pod was rejected from: its labels, taints and allocatable, no pods.
// One per way of failing, the one with the most allocatable cpu, then memory, of its group.
void newNode(const evaluate::Scenario& scenario, const evaluate::Result& current, Trial& trial,
             const WhatIfOptions& limits) {
  std::map<std::string, const sh_node*> byName;
  for (const auto& node : scenario.nodes) {
    byName[std::string(node->view().name.ptr, node->view().name.len)] = &node->view();
  }
  std::map<std::string, std::string> bestOfGroup;  // how it failed -> node
  std::vector<std::string> order;                  // the groups as first met
  for (const auto& [name, node] : current.nodes) {
    auto self = byName.find(name);
    if (node.feasible || self == byName.end()) {
      continue;
    }
    std::string how;
    for (const auto& [plugin, status] : node.filter) {
      if (status.code != "Success" && status.code != "Skip") {
        how = plugin;
        for (const std::string& r : status.reasons) {
          how += "|" + r;
        }
      }
    }
    auto [it, added] = bestOfGroup.emplace(how, name);
    if (added) {
      order.push_back(how);
      continue;
    }
    const sh_resources& a = self->second->allocatable;
    const sh_resources& b = byName.at(it->second)->allocatable;
    if (std::tie(a.milli_cpu, a.memory) > std::tie(b.milli_cpu, b.memory)) {
      it->second = name;
    }
  }
  std::vector<std::string> tried;
  for (const std::string& how : order) {
    if (tried.size() >= std::min<std::size_t>(limits.maxPerKind, 3)) {
      break;
    }
    tried.push_back(bestOfGroup.at(how));
  }
  for (const std::string& like : tried) {
    auto source = std::find_if(scenario.nodes.begin(), scenario.nodes.end(), [&](const auto& n) {
      return std::string_view(n->view().name.ptr, n->view().name.len) == like;
    });
    if (source == scenario.nodes.end()) {
      continue;
    }
    json::value manifest = (*source)->manifest();
    if (!manifest.is_object()) {
      continue;
    }
    const std::string name = like + "-copy";
    json::value& metaValue = manifest.as_object()["metadata"];
    if (!metaValue.is_object()) {
      metaValue.emplace_object();
    }
    json::object& meta = metaValue.as_object();
    meta["name"] = name;
    meta.erase("uid");
    meta.erase("resourceVersion");
    if (json::object* labels =
            meta.if_contains("labels") != nullptr ? meta["labels"].if_object() : nullptr) {
      if (labels->contains("kubernetes.io/hostname")) {
        (*labels)["kubernetes.io/hostname"] = name;
      }
    }
    std::string error;
    auto node = model::parseNode(manifest, error);
    if (!node) {
      continue;
    }
    evaluate::Scenario changed = scenario;
    changed.nodes.push_back(std::move(node));
    trial.tryScenario(std::move(changed),
                      "add a node like " + like + " (its labels, taints and allocatable; no pods)");
  }
}

}  // namespace

std::vector<WhatIf> whatIfs(const evaluate::Scenario& scenario, const evaluate::Result& current,
                            const evaluate::Options& options, const WhatIfOptions& limits,
                            std::string* note) {
  if (current.selected) {
    return {};  // it fits already
  }
  Trial trial(scenario, options, limits);
  if (!trial.baseline().empty()) {
    return {};  // it fits on some node once every node is examined
  }
  taints(scenario, current, trial, limits);
  nodeAffinity(scenario, current, trial, limits);
  podAffinity(scenario, current, trial, limits);
  resources(scenario, current, trial);
  if (!current.victims.empty() || current.nominatedNodeName) {
    WhatIf w;
    std::string victims;
    for (const std::string& v : current.victims) {
      victims += (victims.empty() ? "" : ", ") + v;
    }
    w.change = victims.empty() ? "wait: preemption nominated a node"
                               : "evict " + victims + " (lower priority; what preemption does)";
    w.nodes = current.nominatedNodeName ? 1 : 0;
    if (current.nominatedNodeName) {
      w.examples.push_back(*current.nominatedNodeName);
    }
    trial.add(std::move(w));
  }
  newNode(scenario, current, trial, limits);
  if (note != nullptr) {
    *note = trial.failures();
  }
  return trial.take();
}

}  // namespace sh::explain

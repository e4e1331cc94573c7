#include "host/explain/explanation.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <utility>

#include <boost/json.hpp>

namespace sh::explain {
namespace {

namespace json = boost::json;

bool rejects(const std::string& code) { return code != "Success" && code != "Skip"; }

// "2026-12-06T21:53:50Z"
std::string utcTime(int64_t unixNanos) {
  const std::time_t seconds = static_cast<std::time_t>(unixNanos / 1000000000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[32];
  std::strftime(out, sizeof(out), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

std::vector<NodeGroup> toGroups(std::vector<cycle::AttemptRecord::NodeGroup> groups) {
  std::vector<NodeGroup> out;
  out.reserve(groups.size());
  for (auto& g : groups) {
    out.push_back({{std::move(g.plugin), std::move(g.code), std::move(g.reasons)},
                   g.count,
                   std::move(g.nodes)});
  }
  return out;
}

json::array strings(const std::vector<std::string>& items) {
  json::array out;
  for (const std::string& s : items) {
    out.emplace_back(s);
  }
  return out;
}

json::object verdictJson(const Verdict& v) {
  json::object o;
  o["plugin"] = v.plugin;
  o["code"] = v.code;
  o["reasons"] = strings(v.reasons);
  return o;
}

json::array verdictsJson(const std::vector<Verdict>& verdicts) {
  json::array out;
  for (const Verdict& v : verdicts) {
    out.push_back(verdictJson(v));
  }
  return out;
}

}  // namespace

std::string Explanation::groupKey(const Verdict& v) {
  return cycle::AttemptRecord::NodeGroup{v.plugin, v.code, v.reasons, 0, {}}.key();
}

Explanation fromEvaluation(const evaluate::Result& result, std::string source) {
  Explanation e;
  e.pod = result.pod;
  e.source = std::move(source);
  e.result = result.selected ? "scheduled" : "unschedulable";
  e.message = result.message;
  e.numAllNodes = result.nodeNames.size();
  e.filterPlugins = result.filterPlugins;
  e.scorePlugins = result.scorePlugins;

  // PreFilter: a failure rejects every node; node names given narrow the nodes Filter sees.
  std::optional<Verdict> preFilterRejection;
  std::vector<std::string> restricting;
  std::set<std::string> allowed;
  bool restricted = false;
  for (const auto& [plugin, status] : result.preFilter) {
    Verdict v{plugin, status.code, status.reasons};
    if (rejects(status.code)) {
      if (!preFilterRejection) {
        preFilterRejection = v;
        e.preFilterMessage = status.reasons.empty() ? status.code : status.reasons.front();
      }
      e.preFilter.push_back(std::move(v));
    } else if (!status.nodeNames.empty()) {
      v.reasons = {"narrowed the nodes to " + std::to_string(status.nodeNames.size())};
      e.preFilter.push_back(std::move(v));
      std::set<std::string> names(status.nodeNames.begin(), status.nodeNames.end());
      if (restricted) {
        std::set<std::string> both;
        std::set_intersection(allowed.begin(), allowed.end(), names.begin(), names.end(),
                              std::inserter(both, both.end()));
        allowed = std::move(both);
      } else {
        allowed = std::move(names);
      }
      restricted = true;
      restricting.push_back(plugin);
    }
  }

  std::vector<cycle::NodeVerdict> verdicts;
  for (const std::string& name : result.nodeNames) {
    NodeDetail detail;
    detail.name = name;
    auto it = result.nodes.find(name);
    if (it != result.nodes.end()) {
      const evaluate::NodeResult& node = it->second;
      detail.feasible = node.feasible;
      // The order the plugins ran in; a plugin the framework did not list comes last.
      std::set<std::string> seen;
      for (const std::string& plugin : e.filterPlugins) {
        if (auto f = node.filter.find(plugin); f != node.filter.end()) {
          detail.filter.push_back({plugin, f->second.code, f->second.reasons});
          seen.insert(plugin);
        }
      }
      for (const auto& [plugin, status] : node.filter) {
        if (seen.count(plugin) == 0) {
          detail.filter.push_back({plugin, status.code, status.reasons});
        }
      }
      if (node.feasible) {
        FeasibleNode f;
        f.name = name;
        for (const std::string& plugin : e.scorePlugins) {
          if (auto s = node.scores.find(plugin); s != node.scores.end()) {
            f.scores.emplace_back(plugin, s->second);
          }
        }
        f.total = node.total;
        e.feasible.push_back(std::move(f));
      }
    }
    if (!detail.feasible) {
      Verdict why;
      auto first = std::find_if(detail.filter.begin(), detail.filter.end(),
                                [](const Verdict& v) { return rejects(v.code); });
      if (first != detail.filter.end()) {
        why = *first;
      } else if (preFilterRejection) {
        why = *preFilterRejection;
      } else if (restricted && allowed.count(name) == 0) {
        std::sort(restricting.begin(), restricting.end());
        std::string list;
        for (const std::string& plugin : restricting) {
          list += (list.empty() ? "" : " ") + plugin;
        }
        why = {"",
               "UnschedulableAndUnresolvable",
               {"node(s) didn't satisfy plugin(s) [" + list + "]"}};
      } else {
        why = {"", "NotExamined", {"not examined: enough feasible nodes were found"}};
      }
      verdicts.push_back({name, why.plugin, why.code, why.reasons});
    }
    e.details.push_back(std::move(detail));
  }
  e.rejected = toGroups(cycle::groupNodes(std::move(verdicts), SIZE_MAX, 0));
  std::sort(e.feasible.begin(), e.feasible.end(), [](const FeasibleNode& a, const FeasibleNode& b) {
    return a.total != b.total ? a.total > b.total : a.name < b.name;
  });
  e.feasibleCount = e.feasible.size();
  e.selected = result.selected;
  e.nominatedNode = result.nominatedNodeName;
  e.victims = result.victims;
  return e;
}

Explanation fromAttempt(const cycle::AttemptRecord& record) {
  Explanation e;
  e.pod = record.pod;
  e.source = "attempt " + std::to_string(record.attempts) + ", " + utcTime(record.unixNanos);
  e.profile = record.profile;
  e.generation = record.generation;
  e.attempts = record.attempts;
  e.result = record.result;
  e.message = record.message;
  e.numAllNodes = record.numAllNodes;
  e.preFilterMessage = record.preFilterMessage;
  e.postFilterMessage = record.postFilterMessage;
  e.filterPlugins = record.filterPlugins;
  e.scorePlugins = record.scorePlugins;
  e.rejected = toGroups(record.groups);
  for (const cycle::AttemptRecord::ScoredNode& node : record.best) {
    e.feasible.push_back({node.name, node.scores, node.total});
  }
  e.feasibleCount = record.feasibleCount;
  if (!record.nominatedNode.empty()) {
    e.nominatedNode = record.nominatedNode;
  }
  e.previousGroups = record.previousGroups;
  return e;
}

json::value toJson(const Explanation& e) {
  json::object out;
  out["pod"] = e.pod;
  out["source"] = e.source;
  out["profile"] = e.profile;
  out["generation"] = e.generation;
  out["attempts"] = e.attempts;
  out["result"] = e.result;
  out["message"] = e.message;
  out["numAllNodes"] = e.numAllNodes;
  out["preFilter"] = verdictsJson(e.preFilter);
  out["preFilterMessage"] = e.preFilterMessage;
  out["filterPlugins"] = strings(e.filterPlugins);
  out["scorePlugins"] = strings(e.scorePlugins);
  json::array rejected;
  for (const NodeGroup& g : e.rejected) {
    json::object o = verdictJson(g.verdict);
    o["count"] = g.count;
    o["nodes"] = strings(g.nodes);
    rejected.push_back(std::move(o));
  }
  out["rejected"] = std::move(rejected);
  json::array feasible;
  for (const FeasibleNode& f : e.feasible) {
    json::object o;
    o["name"] = f.name;
    json::object scores;
    for (const auto& [plugin, score] : f.scores) {
      scores[plugin] = score;
    }
    o["scores"] = std::move(scores);
    o["total"] = f.total;
    feasible.push_back(std::move(o));
  }
  out["feasible"] = std::move(feasible);
  out["feasibleCount"] = e.feasibleCount;
  json::array details;
  for (const NodeDetail& d : e.details) {
    json::object o;
    o["name"] = d.name;
    o["feasible"] = d.feasible;
    o["filter"] = verdictsJson(d.filter);
    details.push_back(std::move(o));
  }
  out["details"] = std::move(details);
  out["selected"] = e.selected ? json::value(*e.selected) : json::value(nullptr);
  out["nominatedNode"] = e.nominatedNode ? json::value(*e.nominatedNode) : json::value(nullptr);
  out["victims"] = strings(e.victims);
  out["postFilterMessage"] = e.postFilterMessage;
  if (e.previousGroups) {
    json::object previous;
    for (const auto& [key, count] : *e.previousGroups) {
      previous[key] = count;
    }
    out["previousGroups"] = std::move(previous);
  } else {
    out["previousGroups"] = nullptr;
  }
  json::array whatIfs;
  for (const WhatIf& w : e.whatIfs) {
    json::object o;
    o["change"] = w.change;
    o["nodes"] = w.nodes;
    o["examples"] = strings(w.examples);
    whatIfs.push_back(std::move(o));
  }
  out["whatIfs"] = std::move(whatIfs);
  out["whatIfNote"] = e.whatIfNote;
  return out;
}

namespace {

std::string str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<std::string> optionalStr(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v != nullptr && v->is_string()) {
    return std::string(v->as_string());
  }
  return std::nullopt;
}

template <typename T>
T number(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) {
    return T{};
  }
  if (v->is_uint64()) {
    return static_cast<T>(v->as_uint64());
  }
  if (v->is_int64()) {
    return static_cast<T>(v->as_int64());
  }
  return T{};
}

std::vector<std::string> strs(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const json::value* v = o.if_contains(key); v != nullptr && v->is_array()) {
    for (const json::value& x : v->as_array()) {
      if (x.is_string()) {
        out.emplace_back(x.as_string());
      }
    }
  }
  return out;
}

const json::array& arrayAt(const json::object& o, std::string_view key) {
  static const json::array kEmpty;
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? v->as_array() : kEmpty;
}

Verdict verdictOf(const json::object& o) {
  return {str(o, "plugin"), str(o, "code"), strs(o, "reasons")};
}

}  // namespace

std::optional<Explanation> fromJson(const json::value& v, std::string& error) {
  if (!v.is_object() || v.as_object().if_contains("pod") == nullptr ||
      !v.as_object().at("pod").is_string()) {
    error = "not an explanation: no \"pod\" string";
    return std::nullopt;
  }
  const json::object& o = v.as_object();
  Explanation e;
  e.pod = str(o, "pod");
  e.source = str(o, "source");
  e.profile = str(o, "profile");
  e.generation = number<uint64_t>(o, "generation");
  e.attempts = number<int>(o, "attempts");
  e.result = str(o, "result");
  e.message = str(o, "message");
  e.numAllNodes = number<std::size_t>(o, "numAllNodes");
  for (const json::value& x : arrayAt(o, "preFilter")) {
    if (x.is_object()) {
      e.preFilter.push_back(verdictOf(x.as_object()));
    }
  }
  e.preFilterMessage = str(o, "preFilterMessage");
  e.filterPlugins = strs(o, "filterPlugins");
  e.scorePlugins = strs(o, "scorePlugins");
  for (const json::value& x : arrayAt(o, "rejected")) {
    if (x.is_object()) {
      const json::object& g = x.as_object();
      e.rejected.push_back({verdictOf(g), number<std::size_t>(g, "count"), strs(g, "nodes")});
    }
  }
  for (const json::value& x : arrayAt(o, "feasible")) {
    if (!x.is_object()) {
      continue;
    }
    const json::object& f = x.as_object();
    FeasibleNode node;
    node.name = str(f, "name");
    if (const json::value* scores = f.if_contains("scores"); scores && scores->is_object()) {
      for (const auto& [plugin, score] : scores->as_object()) {
        if (score.is_int64() || score.is_uint64()) {
          node.scores.emplace_back(std::string(plugin), score.to_number<int64_t>());
        }
      }
    }
    node.total = number<int64_t>(f, "total");
    e.feasible.push_back(std::move(node));
  }
  e.feasibleCount = number<std::size_t>(o, "feasibleCount");
  for (const json::value& x : arrayAt(o, "details")) {
    if (!x.is_object()) {
      continue;
    }
    const json::object& d = x.as_object();
    NodeDetail detail;
    detail.name = str(d, "name");
    const json::value* feasible = d.if_contains("feasible");
    detail.feasible = feasible != nullptr && feasible->is_bool() && feasible->as_bool();
    for (const json::value& f : arrayAt(d, "filter")) {
      if (f.is_object()) {
        detail.filter.push_back(verdictOf(f.as_object()));
      }
    }
    e.details.push_back(std::move(detail));
  }
  e.selected = optionalStr(o, "selected");
  e.nominatedNode = optionalStr(o, "nominatedNode");
  e.victims = strs(o, "victims");
  e.postFilterMessage = str(o, "postFilterMessage");
  if (const json::value* p = o.if_contains("previousGroups"); p != nullptr && p->is_object()) {
    std::map<std::string, std::size_t> previous;
    for (const auto& [key, count] : p->as_object()) {
      if (count.is_uint64() || count.is_int64()) {
        previous[std::string(key)] = count.to_number<std::size_t>();
      }
    }
    e.previousGroups = std::move(previous);
  }
  for (const json::value& x : arrayAt(o, "whatIfs")) {
    if (x.is_object()) {
      const json::object& w = x.as_object();
      e.whatIfs.push_back({str(w, "change"), number<std::size_t>(w, "nodes"), strs(w, "examples")});
    }
  }
  e.whatIfNote = str(o, "whatIfNote");
  return e;
}

}  // namespace sh::explain

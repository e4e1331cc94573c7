// Explanation: one scheduling attempt of one pod, in the shape a person reads it
// (docs/explaining-decisions.md). Built from a scenario's evaluation (every node's verdicts and
// scores) or from a running scheduler's kept attempt (cycle/attempt_store.h: the nodes grouped
// by their verdict), then printed as a terminal summary (summary.h), drawn as a page
// (html_page.h) or served as JSON (/debug/pods/NAMESPACE/NAME).
//
// Nodes are grouped by the first Filter plugin that rejected them and its reasons, as
// upstream's FitError counts them, so that 5,000 nodes read as a handful of lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "host/cycle/attempt_store.h"
#include "host/evaluate/evaluate.h"

namespace sh::explain {

// A plugin's verdict: its status code and reasons.
struct Verdict {
  std::string plugin;
  std::string code;  // Success, Skip, Unschedulable, UnschedulableAndUnresolvable, Error
  std::vector<std::string> reasons;
};

// Nodes rejected the same way: by the same plugin, with the same code and reasons.
struct NodeGroup {
  Verdict verdict;
  std::size_t count = 0;
  std::vector<std::string> nodes;  // in name order; the first ones only when a record kept few
};

// A node the pod could go to, with each Score plugin's score (after NormalizeScore, before
// the weight) and the weighted total.
struct FeasibleNode {
  std::string name;
  std::vector<std::pair<std::string, int64_t>> scores;
  int64_t total = 0;
};

// One node's detail: every Filter plugin that ran on it, in the order they ran.
struct NodeDetail {
  std::string name;
  bool feasible = false;
  std::vector<Verdict> filter;
};

// A change that would make the pod fit, and how many nodes it would open up (what_if.h).
struct WhatIf {
  std::string change;  // "tolerate the taint dedicated=gpu:NoSchedule"
  std::size_t nodes = 0;
  std::vector<std::string> examples;  // a few of those nodes, in name order
};

struct Explanation {
  std::string pod;     // namespace/name
  std::string source;  // "scenario FILE" or "attempt 3, 2026-12-06T21:53:50Z"
  std::string profile;
  uint64_t generation = 0;
  int attempts = 0;     // 0: not known (a scenario)
  std::string result;   // scheduled | unschedulable | error
  std::string message;  // the FailedScheduling message, when it failed
  std::size_t numAllNodes = 0;

  std::vector<Verdict> preFilter;  // each PreFilter plugin that did more than succeed
  std::string preFilterMessage;
  // The plugins of the pipeline, in the order they ran: the heat map's columns.
  std::vector<std::string> filterPlugins;
  std::vector<std::string> scorePlugins;

  std::vector<NodeGroup> rejected;     // largest first, then by plugin and reasons
  std::vector<FeasibleNode> feasible;  // best first (total, then name)
  std::size_t feasibleCount = 0;       // feasible.size() unless a record kept only the best
  std::vector<NodeDetail> details;     // every node's verdicts, when the source had them

  std::optional<std::string> selected;
  std::optional<std::string> nominatedNode;
  std::vector<std::string> victims;
  std::string postFilterMessage;

  // The previous attempt's groups ("plugin: reasons" -> nodes), when there was one.
  std::optional<std::map<std::string, std::size_t>> previousGroups;
  std::vector<WhatIf> whatIfs;
  std::string whatIfNote;  // why the what-if list is missing or partial ("" when it is whole)

  // "plugin: reasons", the key groups are compared by across attempts.
  static std::string groupKey(const Verdict& v);
};

// From an evaluation of a scenario.
Explanation fromEvaluation(const evaluate::Result& result, std::string source);
// From a running scheduler's kept attempt.
Explanation fromAttempt(const cycle::AttemptRecord& record);

boost::json::value toJson(const Explanation& e);
// toJson's inverse, for a client that asked a scheduler (/debug/pods). Fields missing are left
// empty; nullopt, with `error` set, when `v` is not an explanation (no "pod" string).
std::optional<Explanation> fromJson(const boost::json::value& v, std::string& error);

}  // namespace sh::explain

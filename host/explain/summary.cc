#include "host/explain/summary.h"

#include <algorithm>
#include <set>

namespace sh::explain {
namespace {

std::string joinReasons(const std::vector<std::string>& reasons) {
  std::string out;
  for (const std::string& r : reasons) {
    out += (out.empty() ? "" : "; ") + r;
  }
  return out;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) {
    s.append(width - s.size(), ' ');
  }
  return s;
}

// "node-a, node-b, node-c and 7 more"
std::string names(const std::vector<std::string>& nodes, std::size_t count, std::size_t max) {
  std::string out;
  const std::size_t shown = std::min(max, nodes.size());
  for (std::size_t i = 0; i < shown; ++i) {
    out += (i > 0 ? ", " : "") + nodes[i];
  }
  if (count > shown) {
    out += (shown > 0 ? " and " : "") + std::to_string(count - shown) + " more";
  }
  return out;
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string pluginOf(const Verdict& v) { return v.plugin.empty() ? "-" : v.plugin; }

}  // namespace

std::string summary(const Explanation& e, const SummaryOptions& options) {
  std::string out = e.pod + ": " + e.result;
  std::vector<std::string> about;
  if (!e.profile.empty()) {
    about.push_back(
        "profile " + e.profile +
        (e.generation > 0 ? ", generation " + std::to_string(e.generation) : std::string()));
  }
  about.push_back(e.source);
  out += " (";
  for (std::size_t i = 0; i < about.size(); ++i) {
    out += (i > 0 ? "; " : "") + about[i];
  }
  out += ")\n";
  if (!e.message.empty()) {
    out += e.message + "\n";
  }

  if (!e.preFilter.empty()) {
    out += "\nPreFilter\n";
    std::size_t width = 0;
    for (const Verdict& v : e.preFilter) {
      width = std::max(width, v.plugin.size());
    }
    for (const Verdict& v : e.preFilter) {
      out += "  " + pad(v.plugin, width) + "  " + v.code;
      if (!v.reasons.empty()) {
        out += ": " + joinReasons(v.reasons);
      }
      out += "\n";
    }
  }

  if (!e.rejected.empty()) {
    std::size_t total = 0;
    std::size_t countWidth = 0;
    std::size_t pluginWidth = 0;
    for (const NodeGroup& g : e.rejected) {
      total += g.count;
      countWidth = std::max(countWidth, std::to_string(g.count).size());
      pluginWidth = std::max(pluginWidth, pluginOf(g.verdict).size());
    }
    out += "\nRejected: " + std::to_string(total) + " of " +
           plural(e.numAllNodes, "node", "nodes") + "\n";
    for (const NodeGroup& g : e.rejected) {
      std::string count = std::to_string(g.count);
      out += "  " + std::string(countWidth - count.size(), ' ') + count + "  " +
             pad(pluginOf(g.verdict), pluginWidth) + "  " + joinReasons(g.verdict.reasons) + " (" +
             g.verdict.code + ")\n";
      const std::string list = names(g.nodes, g.count, options.maxNodeNames);
      if (!list.empty()) {
        out += "  " + std::string(countWidth, ' ') + "  " + list + "\n";
      }
    }
  }

  if (e.feasibleCount > 0) {
    out += "\nFeasible: " + plural(e.feasibleCount, "node", "nodes");
    const std::size_t shown = std::min(options.maxBest, e.feasible.size());
    out += shown > 0 ? "; the best:\n" : "\n";
    std::size_t width = 0;
    for (std::size_t i = 0; i < shown; ++i) {
      width = std::max(width, e.feasible[i].name.size());
    }
    for (std::size_t i = 0; i < shown; ++i) {
      const FeasibleNode& f = e.feasible[i];
      out += "  " + std::to_string(i + 1) + ". " + pad(f.name, width) + "  total " +
             std::to_string(f.total);
      // The plugins that scored it, highest first: why it won.
      std::vector<std::pair<std::string, int64_t>> scores = f.scores;
      std::stable_sort(scores.begin(), scores.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      for (std::size_t s = 0; s < scores.size(); ++s) {
        out += (s == 0 ? ": " : ", ") + scores[s].first + " " + std::to_string(scores[s].second);
      }
      out += "\n";
    }
  }
  if (e.selected) {
    out += "\nSelected: " + *e.selected + "\n";
  }
  if (e.nominatedNode || !e.victims.empty()) {
    out += "\nPreemption: ";
    out += e.nominatedNode ? "nominated " + *e.nominatedNode : std::string("no node nominated");
    if (!e.victims.empty()) {
      out += "; evicting " + names(e.victims, e.victims.size(), e.victims.size());
    }
    out += "\n";
  } else if (!e.postFilterMessage.empty()) {
    out += "\nPostFilter: " + e.postFilterMessage + "\n";
  }

  if (e.previousGroups) {
    std::map<std::string, std::size_t> now;
    for (const NodeGroup& g : e.rejected) {
      now[Explanation::groupKey(g.verdict)] += g.count;
    }
    std::set<std::string> keys;
    for (const auto& [key, count] : now) {
      keys.insert(key);
    }
    for (const auto& [key, count] : *e.previousGroups) {
      keys.insert(key);
    }
    std::vector<std::string> lines;
    std::size_t width = 0;
    for (const std::string& key : keys) {
      width = std::max(width, key.size());
    }
    for (const std::string& key : keys) {
      auto before = e.previousGroups->find(key);
      auto after = now.find(key);
      const std::size_t b = before == e.previousGroups->end() ? 0 : before->second;
      const std::size_t a = after == now.end() ? 0 : after->second;
      if (a != b) {
        lines.push_back("  " + pad(key, width) + "  " + std::to_string(b) + " -> " +
                        std::to_string(a) + "\n");
      }
    }
    out += "\nSince the previous attempt:";
    if (lines.empty()) {
      out += " no change in the rejections\n";
    } else {
      out += "\n";
      for (const std::string& line : lines) {
        out += line;
      }
    }
  }

  if (!e.whatIfNote.empty()) {
    out += "\nWhat would make it fit: " + e.whatIfNote + "\n";
  }
  if (!e.whatIfs.empty()) {
    out += "\nWhat would make it fit (never applied):\n";
    for (const WhatIf& w : e.whatIfs) {
      out += "  - " + w.change + ": " + plural(w.nodes, "node", "nodes");
      if (!w.examples.empty()) {
        out += " (" + names(w.examples, w.nodes, options.maxNodeNames) + ")";
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace sh::explain

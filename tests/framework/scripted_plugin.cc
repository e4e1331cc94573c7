// A plugin whose answers are scripted by its args, for framework tests. Built several
// times under different names (SCRIPTED_NAME) so a profile can hold more than one.
//
// args: {
//   "preFilter": {"code": "Skip", "reasons": ["..."], "nodes": ["n1"]},
//   "filter":    {"<node>": {"code": "Unschedulable", "reasons": ["..."]}},
//   "score":     {"<node>": 7},
//   "normalizeTimes": 10,          // multiply every score by this in NormalizeScore
//   "preScore":  {"code": "Skip"},
//   "postFilter": {"code": "Success", "nominate": "n2", "reasons": ["..."]},
//   "reserve":   {"code": "Unschedulable", "reasons": ["..."]},
//   "permit":    {"code": "Wait", "timeoutMs": 100},
//   "bind":      {"code": "Skip"},
//   "throwIn":   "filter" | "score" | "create"
// }
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <schedhost/plugin.hpp>

#ifndef SCRIPTED_NAME
#define SCRIPTED_NAME "ScriptedA"
#endif

namespace {

using schedhost::Args;
using schedhost::Cycle;
using schedhost::Status;

struct Answer {
  sh_code code = SH_SUCCESS;
  std::vector<std::string> reasons;
  Status status() const {
    Status s(code);
    for (const std::string& r : reasons) {
      s.addReason(r);
    }
    return s;
  }
};

sh_code codeFromName(std::string_view n) {
  static const char* kNames[] = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
      "Wait",    "Skip",  "Pending"};
  for (int i = 0; i < 7; ++i) {
    if (n == kNames[i]) {
      return static_cast<sh_code>(i);
    }
  }
  return static_cast<sh_code>(42);  // deliberately invalid: tests the host's checks
}

Answer readAnswer(const Args& a) {
  Answer out;
  if (!a.present()) {
    return out;
  }
  out.code = codeFromName(a["code"].asString());
  Args rs = a["reasons"];
  for (std::size_t i = 0; i < rs.size(); ++i) {
    out.reasons.emplace_back(rs.at(i).asString());
  }
  return out;
}

class Scripted : public schedhost::PreFilterPlugin,
                 public schedhost::FilterPlugin,
                 public schedhost::PostFilterPlugin,
                 public schedhost::PreScorePlugin,
                 public schedhost::ScorePlugin,
                 public schedhost::ScoreExtensions,
                 public schedhost::ReservePlugin,
                 public schedhost::PermitPlugin,
                 public schedhost::BindPlugin {
 public:
  Scripted(schedhost::Host&, const Args& args) {
    throwIn_ = std::string(args["throwIn"].asString());
    if (throwIn_ == "create") {
      throw std::runtime_error("scripted create failure");
    }
    preFilter_ = readAnswer(args["preFilter"]);
    Args nodes = args["preFilter"]["nodes"];
    restrict_ = nodes.isArray();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      nodes_.emplace_back(nodes.at(i).asString());
    }
    Args filter = args["filter"];
    for (std::size_t i = 0; i < filter.size(); ++i) {
      filter_[std::string(filter.keyAt(i))] = readAnswer(filter.at(i));
    }
    Args score = args["score"];
    for (std::size_t i = 0; i < score.size(); ++i) {
      score_[std::string(score.keyAt(i))] = score.at(i).asInt();
    }
    normalizeTimes_ = args["normalizeTimes"].present() ? args["normalizeTimes"].asInt() : 1;
    preScore_ = readAnswer(args["preScore"]);
    postFilter_ = readAnswer(args["postFilter"]);
    nominate_ = std::string(args["postFilter"]["nominate"].asString());
    reserve_ = readAnswer(args["reserve"]);
    permit_ = readAnswer(args["permit"]);
    timeoutMs_ = args["permit"]["timeoutMs"].asInt();
    bind_ = readAnswer(args["bind"]);
    if (args["badArg"].present()) {
      args["badArg"].error("must not be set");
    }
  }

  Status preFilter(Cycle&, const sh_pod&, schedhost::PreFilterResult& result) {
    if (restrict_) {
      for (const std::string& n : nodes_) {
        result.addNode(n);
      }
    }
    return preFilter_.status();
  }
  Status filter(Cycle&, const sh_pod&, const sh_node_info& node) {
    if (throwIn_ == "filter") {
      throw std::runtime_error("boom");
    }
    auto it = filter_.find(std::string(node.node->name.ptr, node.node->name.len));
    return it == filter_.end() ? Status() : it->second.status();
  }
  Status postFilter(Cycle& cycle, const sh_pod&) {
    if (!nominate_.empty()) {
      cycle.nominate(nominate_);
    }
    return postFilter_.status();
  }
  Status preScore(Cycle&, const sh_pod&, const sh_node_info* const*, std::size_t) {
    return preScore_.status();
  }
  Status score(Cycle&, const sh_pod&, const sh_node_info& node, int64_t& out) {
    if (throwIn_ == "score") {
      throw std::runtime_error("score boom");
    }
    auto it = score_.find(std::string(node.node->name.ptr, node.node->name.len));
    out = it == score_.end() ? 0 : it->second;
    return Status();
  }
  Status normalizeScore(Cycle&, const sh_pod&, sh_node_score* scores, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      scores[i].score *= normalizeTimes_;
    }
    return Status();
  }
  Status reserve(Cycle&, const sh_pod&, std::string_view) { return reserve_.status(); }
  void unreserve(Cycle&, const sh_pod&, std::string_view) { ++unreserved_; }
  Status permit(Cycle&, const sh_pod&, std::string_view, int64_t& timeoutMs) {
    timeoutMs = timeoutMs_;
    return permit_.status();
  }
  Status bind(Cycle&, const sh_pod&, std::string_view) { return bind_.status(); }

 private:
  std::string throwIn_;
  Answer preFilter_;
  bool restrict_ = false;
  std::vector<std::string> nodes_;
  std::map<std::string, Answer> filter_;
  std::map<std::string, int64_t> score_;
  int64_t normalizeTimes_ = 1;
  Answer preScore_;
  Answer postFilter_;
  std::string nominate_;
  Answer reserve_;
  Answer permit_;
  int64_t timeoutMs_ = 0;
  Answer bind_;
  int unreserved_ = 0;
};

}  // namespace

SCHEDHOST_PLUGIN(Scripted, SCRIPTED_NAME, "0.0.1")

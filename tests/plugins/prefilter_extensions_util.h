// One PreFilter plugin driven step by step through the host framework, for the
// PreFilterExtensions (AddPod, RemovePod) and for cycles over a changing cluster:
//
//   PreFilterHarness h("PodTopologySpread", args);
//   h.SetCluster(nodes, pods);            // a snapshot as sh::cache::buildSnapshot makes it
//                                         // (or UseSnapshot: one the test keeps up to date)
//   h.PreFilter(pod);                     // a fresh CycleState on that snapshot
//   h.AddPod(pod, added, "node-a");       // on a NodeInfo copy of node-a holding `added`
//   h.FilterAll(pod);                     // node → "Success" or "<code>: <reason>"
//
// The framework runs AddPod and RemovePod as the host does for nominated pods and preemption:
// on a copy of the node's NodeInfo with the pod already added or removed.
#ifndef SCHEDHOST_TESTS_PLUGINS_PREFILTER_EXTENSIONS_UTIL_H
#define SCHEDHOST_TESTS_PLUGINS_PREFILTER_EXTENSIONS_UTIL_H

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "host/cache/snapshot.h"
#include "host/common/status.h"
#include "host/framework/cycle_state.h"
#include "host/model/node_info.h"
#include "tests/plugins/plugin_test_util.h"

namespace schedhost::testing {

// "Success", or the code's name and the reasons: "Unschedulable: node(s) didn't ...".
inline std::string outcome(const sh::Status& s) {
  if (s.ok()) {
    return "Success";
  }
  std::string out(sh::codeName(s.code()));
  for (const std::string& r : s.reasons()) {
    out += ": " + r;
  }
  return out;
}

class PreFilterHarness {
 public:
  explicit PreFilterHarness(const std::string& plugin, const std::string& argsJson = "")
      : plugin_(plugin, argsJson) {}

  const sh::Framework& framework() const { return plugin_.framework(); }

  void setCluster(const std::vector<NodePtr>& nodes, const std::vector<PodPtr>& pods) {
    owned_ = sh::cache::buildSnapshot(nodes, pods);
    useSnapshot(owned_.get());
  }
  // Cycles from now on run on `snapshot`, which the caller keeps (and may update between
  // cycles, as the scheduler's cache does).
  void useSnapshot(sh::cache::Snapshot* snapshot) {
    snapshot_ = snapshot;
    cycle_.reset();
  }

  // PreFilter for `pod` in a new cycle on the current snapshot.
  sh::Status preFilter(const PodPtr& pod) {
    cycle_ = std::make_unique<sh::CycleState>();
    cycle_->snapshot = snapshot_;
    sh::PreFilterOutcome outcome;
    return framework().runPreFilter(*cycle_, pod->view(), outcome);
  }

  // AddPod of `added` on a copy of `node`'s NodeInfo that holds it.
  sh::Status addPod(const PodPtr& pod, const PodPtr& added, const std::string& node) {
    sh::model::NodeInfo copy = nodeInfoCopy(node);
    copy.addPod(added);
    return framework().runPreFilterAddPod(*cycle_, pod->view(), added->view(), copy.view());
  }

  // RemovePod of `removed` on a copy of `node`'s NodeInfo without it (when it was there).
  sh::Status removePod(const PodPtr& pod, const PodPtr& removed, const std::string& node) {
    sh::model::NodeInfo copy = nodeInfoCopy(node);
    copy.removePod(removed->uid());
    return framework().runPreFilterRemovePod(*cycle_, pod->view(), removed->view(), copy.view());
  }

  // Filter on every node of the snapshot, in the current cycle.
  std::map<std::string, std::string> filterAll(const PodPtr& pod) {
    std::map<std::string, std::string> out;
    for (const sh_node_info* ni : snapshot_->views) {
      std::string name(ni->node->name.ptr, ni->node->name.len);
      out[name] = outcome(framework().runFilter(*cycle_, pod->view(), *ni));
    }
    return out;
  }

  // PreScore over every node, then each node's normalised score.
  std::map<std::string, int64_t> scoreAll(const PodPtr& pod) {
    std::map<std::string, int64_t> out;
    std::vector<const sh_node_info*> nodes(snapshot_->views.begin(), snapshot_->views.end());
    sh::Status pre = framework().runPreScore(*cycle_, pod->view(), nodes);
    EXPECT_TRUE(pre.ok()) << outcome(pre);
    std::vector<sh::NodeScore> scores;
    sh::ScoreTable table;
    sh::Status s =
        framework().runScore(*cycle_, pod->view(), nodes, scores, &table,
                             [](std::size_t n, const std::function<void(std::size_t)>& fn) {
                               for (std::size_t i = 0; i < n; ++i) {
                                 fn(i);
                               }
                             });
    EXPECT_TRUE(s.ok()) << outcome(s);
    for (std::size_t i = 0; i < scores.size(); ++i) {
      out[std::string(nodes[i]->node->name.ptr, nodes[i]->node->name.len)] = scores[i].total;
    }
    return out;
  }

 private:
  sh::model::NodeInfo nodeInfoCopy(const std::string& node) const {
    for (const auto& info : snapshot_->nodeInfos) {
      const sh_node& n = *info->view().node;
      if (std::string(n.name.ptr, n.name.len) == node) {
        return info->clone();
      }
    }
    ADD_FAILURE() << "no node " << node << " in the snapshot";
    return sh::model::NodeInfo();
  }

  LoadedPlugin plugin_;
  std::unique_ptr<sh::cache::Snapshot> owned_;
  sh::cache::Snapshot* snapshot_ = nullptr;
  std::unique_ptr<sh::CycleState> cycle_;
};

}  // namespace schedhost::testing

#endif  // SCHEDHOST_TESTS_PLUGINS_PREFILTER_EXTENSIONS_UTIL_H

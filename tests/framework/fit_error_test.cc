#include "host/framework/fit_error.h"

#include <gtest/gtest.h>

namespace sh::fit_error_test {
namespace {

Status rejected(sh_code code, std::vector<std::string> reasons, std::string plugin) {
  Status s(code);
  for (auto& r : reasons) {
    s.addReason(std::move(r));
  }
  s.setPlugin(std::move(plugin));
  return s;
}

TEST(FitErrorTest, HistogramCountsEachReasonAndSortsLexicographically) {
  FitError e;
  e.numAllNodes = 12;
  auto& nts = e.diagnosis.nodeToStatus;
  for (int i = 0; i < 10; ++i) {
    nts.set("t" + std::to_string(i),
            rejected(SH_UNSCHEDULABLE_AND_UNRESOLVABLE, {"node(s) had untolerated taint(s)"},
                     "TaintToleration"));
  }
  nts.set("c1", rejected(SH_UNSCHEDULABLE, {"Insufficient cpu", "Insufficient memory"},
                         "NodeResourcesFit"));
  nts.set("c2", rejected(SH_UNSCHEDULABLE, {"Insufficient cpu"}, "NodeResourcesFit"));
  // "10 node(s)..." sorts before "2 Insufficient cpu": the comparison is on the strings.
  EXPECT_EQ(e.message(),
            "0/12 nodes are available: 1 Insufficient memory, 10 node(s) had untolerated "
            "taint(s), 2 Insufficient cpu.");
}

TEST(FitErrorTest, AbsentNodesCountWithTheAbsentStatus) {
  FitError e;
  e.numAllNodes = 5;
  e.diagnosis.nodeToStatus.setAbsent(
      Status(SH_UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't satisfy plugin(s) [NodeAffinity]"));
  e.diagnosis.nodeToStatus.set("n1", Status(SH_UNSCHEDULABLE, "Too many pods"));
  // 1 explicit + (5 - 1) absent
  EXPECT_EQ(e.message(),
            "0/5 nodes are available: 1 Too many pods, 4 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity].");
}

TEST(FitErrorTest, AnEmptyReasonAddsNoEntry) {
  FitError e;
  e.numAllNodes = 4;
  e.diagnosis.nodeToStatus.setAbsent(Status(SH_UNSCHEDULABLE_AND_UNRESOLVABLE, ""));
  e.diagnosis.nodeToStatus.set("n1", rejected(SH_UNSCHEDULABLE, {""}, "A"));
  e.diagnosis.nodeToStatus.set("n2", rejected(SH_UNSCHEDULABLE, {"", "Insufficient cpu"}, "A"));
  e.diagnosis.nodeToStatus.set("n3", rejected(SH_UNSCHEDULABLE, {""}, "A"));
  // Not "0/4 nodes are available: 1 Insufficient cpu, 4 .": "" is no reason.
  EXPECT_EQ(e.message(), "0/4 nodes are available: 1 Insufficient cpu.");
  e.diagnosis.nodeToStatus.set("n2", rejected(SH_UNSCHEDULABLE, {""}, "A"));
  EXPECT_EQ(e.message(), "0/4 nodes are available:");
}

TEST(FitErrorTest, PreFilterMessageReplacesTheHistogramAndPostFilterIsAppended) {
  FitError e;
  e.numAllNodes = 3;
  e.diagnosis.nodeToStatus.set("n1", Status(SH_UNSCHEDULABLE, "Insufficient cpu"));
  e.diagnosis.preFilterMsg = "pod affinity terms conflict";
  e.diagnosis.postFilterMsg = "preemption: not eligible due to preemptionPolicy=Never.";
  EXPECT_EQ(e.message(),
            "0/3 nodes are available: pod affinity terms conflict. preemption: not eligible due "
            "to preemptionPolicy=Never.");
}

TEST(FitErrorTest, DiagnosisRecordsRejectorsAndPendingPlugins) {
  Diagnosis d;
  d.addPluginStatus(rejected(SH_UNSCHEDULABLE, {"x"}, "A"));
  d.addPluginStatus(rejected(SH_PENDING, {"y"}, "B"));
  d.addPluginStatus(rejected(SH_ERROR, {"z"}, "C"));
  d.addPluginStatus(rejected(SH_UNSCHEDULABLE, {"w"}, ""));
  EXPECT_EQ(d.unschedulablePlugins, (std::set<std::string, std::less<>>{"A", "B"}));
  EXPECT_EQ(d.pendingPlugins, (std::set<std::string, std::less<>>{"B"}));
}

}  // namespace
}  // namespace sh::fit_error_test

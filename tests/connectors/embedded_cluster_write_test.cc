// EmbeddedCluster's write side: bind, deletePod, recordFailure, recordEvent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "host/connectors/embedded/embedded_cluster.h"
#include "host/cycle/decision_log.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::embedded_cluster_write_test {
namespace {

using testing::drain;
using ::testing::HasSubstr;
using testing::nodeJson;
using testing::podJson;
using testing::TempDir;
using testing::text;

// The PodScheduled condition of a stored pod, or null.
const boost::json::object* podScheduled(const boost::json::value& pod) {
  const boost::json::value* conditions = pod.at("status").as_object().if_contains("conditions");
  const boost::json::object* found = nullptr;
  int count = 0;
  for (const auto& c : conditions->as_array()) {
    if (c.at("type").as_string() == "PodScheduled") {
      found = &c.as_object();
      ++count;
    }
  }
  EXPECT_LE(count, 1) << "conditions merge by type";
  return found;
}

// A cluster with nodes n1, n2 and pods ns/p, ns/q (unbound) and ns/r (on n1), all drained.
class WriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string lines;
    for (const auto& v : {nodeJson("n1"), nodeJson("n2"), podJson("ns", "p"), podJson("ns", "q"),
                          podJson("ns", "r", "n1")}) {
      lines += text(v) + "\n";
    }
    EmbeddedCluster::Options o;
    o.initialState = dir_.write("state.jsonl", lines);
    o.eventLog = &log_;
    o.maxEventsKept = 3;
    cluster_ = std::make_unique<EmbeddedCluster>(o);
    ASSERT_TRUE(cluster_->start().ok());
    ASSERT_EQ(drain(*cluster_).size(), 5u);
  }

  std::shared_ptr<const model::Pod> pod(std::string_view name) { return cluster_->pod("ns", name); }

  TempDir dir_;
  std::ostringstream logText_;
  cycle::DecisionLog log_{logText_};
  std::unique_ptr<EmbeddedCluster> cluster_;
};

TEST_F(WriteTest, BindEmitsModifiedWithNodeName) {
  auto before = pod("p");
  ASSERT_TRUE(cluster_->bind(*before, "n2").ok());
  EXPECT_EQ(cluster_->pending(), 1u);
  EXPECT_FALSE(cluster_->exhausted()) << "our bind is still to be delivered";

  auto change = cluster_->next(std::chrono::seconds(1));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->type, ClusterChange::Type::kModified);
  EXPECT_EQ(change->kind, ClusterChange::Kind::kPod);
  EXPECT_EQ(change->source, "binding");
  EXPECT_EQ(change->oldPod, before);
  ASSERT_NE(change->curPod, nullptr);
  EXPECT_EQ(change->curPod->nodeName(), "n2");
  EXPECT_EQ(change->curPod->uid(), "p-uid");
  EXPECT_EQ(pod("p"), change->curPod);
  EXPECT_TRUE(cluster_->exhausted());

  auto manifest = boost::json::parse(change->curPod->json());
  EXPECT_EQ(manifest.at("spec").at("nodeName").as_string(), "n2");
  const boost::json::object* cond = podScheduled(manifest);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->at("status").as_string(), "True");
  EXPECT_TRUE(cond->at("lastTransitionTime").is_string());
  EXPECT_EQ(manifest.at("spec").at("containers").as_array().size(), 1u) << "nothing else changed";

  EXPECT_EQ(cluster_->boundCount(), 1u);
  ASSERT_EQ(cluster_->podsOnNode("n2").size(), 1u);
  EXPECT_EQ(cluster_->podsOnNode("n2")[0]->name(), "p");
}

TEST_F(WriteTest, DoubleBindIsRefused) {
  ASSERT_TRUE(cluster_->bind(*pod("p"), "n1").ok());
  Status s = cluster_->bind(*pod("p"), "n2");
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "pod ns/p is already assigned to node \"n1\"");
  s = cluster_->bind(*pod("r"), "n2");
  EXPECT_EQ(s.message(), "pod ns/r is already assigned to node \"n1\"");
  EXPECT_EQ(cluster_->pending(), 1u);
  EXPECT_EQ(cluster_->boundCount(), 1u);
}

TEST_F(WriteTest, BindToMissingNodeIsRefused) {
  Status s = cluster_->bind(*pod("p"), "n9");
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "node \"n9\" not found");
  EXPECT_EQ(pod("p")->nodeName(), "");
  EXPECT_EQ(cluster_->pending(), 0u);
}

TEST_F(WriteTest, BindOfMissingOrReplacedPodIsRefused) {
  auto ghost = model::testing::makePod().name("ghost").inNamespace("ns").obj();
  EXPECT_EQ(cluster_->bind(*ghost, "n1").message(), "pod ns/ghost not found");

  auto impostor = model::testing::makePod().name("p").inNamespace("ns").uid("other").obj();
  EXPECT_EQ(cluster_->bind(*impostor, "n1").message(),
            "pod ns/p: precondition failed: UID \"other\" does not match \"p-uid\"");
  EXPECT_EQ(cluster_->pending(), 0u);
}

TEST_F(WriteTest, BindOfTerminatingPodIsRefused) {
  // A pod being deleted, added through the change stream.
  auto terminating = testing::withKind(
      model::testing::makePod().name("t").inNamespace("ns").uid("t-uid").terminating().parseJson(),
      "Pod");
  EmbeddedCluster::Options o;
  o.initialState = dir_.write("t.jsonl", text(nodeJson("n1")) + "\n" + text(terminating) + "\n");
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  EXPECT_EQ(cluster.bind(*cluster.pod("ns", "t"), "n1").message(),
            "pod ns/t is being deleted, cannot be assigned to a host");
}

// bind() builds the new pod outside the lock; what happens when the pod changes meanwhile.
TEST_F(WriteTest, BindChecksAgainWhenAnotherBindWonMeanwhile) {
  bool once = false;
  cluster_->setBeforeCommitForTest([&] {
    if (!once) {
      once = true;
      EXPECT_TRUE(cluster_->bind(*pod("p"), "n2").ok());
    }
  });
  Status s = cluster_->bind(*pod("p"), "n1");
  EXPECT_EQ(s.message(), "pod ns/p is already assigned to node \"n2\"");
  EXPECT_EQ(pod("p")->nodeName(), "n2");
  EXPECT_EQ(cluster_->pending(), 1u);
  EXPECT_EQ(cluster_->boundCount(), 1u);
}

TEST_F(WriteTest, BindLosesNoConcurrentStatusPatch) {
  auto original = pod("p");
  bool once = false;
  cluster_->setBeforeCommitForTest([&] {
    if (!once) {
      once = true;
      cluster_->recordFailure({original, "Unschedulable", "earlier attempt", "n2"});
    }
  });
  ASSERT_TRUE(cluster_->bind(*original, "n1").ok());
  auto nominated = cluster_->next(std::chrono::seconds(1));  // the patch set a nomination
  ASSERT_TRUE(nominated.has_value());
  EXPECT_EQ(nominated->source, "status");
  auto change = cluster_->next(std::chrono::seconds(1));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->source, "binding");
  EXPECT_NE(change->oldPod, original) << "the bind started over from the patched pod";
  EXPECT_EQ(change->oldPod, nominated->curPod);
  auto manifest = boost::json::parse(change->curPod->json());
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName").as_string(), "n2");
  EXPECT_EQ(podScheduled(manifest)->at("status").as_string(), "True");
}

TEST_F(WriteTest, BindOfAPodDeletedMeanwhileFails) {
  bool once = false;
  cluster_->setBeforeCommitForTest([&] {
    if (!once) {
      once = true;
      EXPECT_TRUE(cluster_->deletePod(*pod("p"), "test").ok());
    }
  });
  EXPECT_EQ(cluster_->bind(*pod("p"), "n1").message(), "pod ns/p not found");
  ASSERT_EQ(cluster_->pending(), 1u);
  EXPECT_EQ(cluster_->next(std::chrono::seconds(1))->type, ClusterChange::Type::kDeleted);
}

TEST_F(WriteTest, DeletePodEmitsDeleted) {
  auto victim = pod("r");
  ASSERT_TRUE(cluster_->deletePod(*victim, "preempted by ns/p").ok());
  auto change = cluster_->next(std::chrono::seconds(1));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->type, ClusterChange::Type::kDeleted);
  EXPECT_EQ(change->oldPod, victim);
  EXPECT_EQ(change->curPod, nullptr);
  EXPECT_EQ(change->source, "deletion");
  EXPECT_EQ(pod("r"), nullptr);
  EXPECT_TRUE(cluster_->podsOnNode("n1").empty());
  EXPECT_EQ(cluster_->deletePod(*victim, "again").message(), "pod ns/r not found");
  EXPECT_EQ(cluster_->bind(*victim, "n1").message(), "pod ns/r not found");
}

TEST_F(WriteTest, PreemptPodMarksTheVictimThenDeletesIt) {
  auto victim = pod("r");
  ASSERT_TRUE(cluster_
                  ->preemptPod(*victim,
                               "default-scheduler: preempting to accommodate a "
                               "higher priority pod")
                  .ok());
  auto change = cluster_->next(std::chrono::seconds(1));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->type, ClusterChange::Type::kDeleted);
  EXPECT_EQ(pod("r"), nullptr);
  // The deleted object is the marked one.
  ASSERT_NE(change->oldPod, nullptr);
  const sh_pod& v = change->oldPod->view();
  ASSERT_EQ(v.condition_count, 1u);
  EXPECT_EQ(std::string(v.conditions[0].type.ptr, v.conditions[0].type.len), "DisruptionTarget");
  EXPECT_EQ(std::string(v.conditions[0].status.ptr, v.conditions[0].status.len), "True");
  EXPECT_EQ(std::string(v.conditions[0].reason.ptr, v.conditions[0].reason.len),
            "PreemptionByScheduler");
  auto manifest = boost::json::parse(change->oldPod->json());
  EXPECT_EQ(manifest.at("status").at("conditions").at(0).at("message").as_string(),
            "default-scheduler: preempting to accommodate a higher priority pod");
  EXPECT_EQ(cluster_->pending(), 0u) << "one change only: the deletion";
  EXPECT_EQ(cluster_->preemptPod(*victim, "again").message(), "pod ns/r not found");
}

TEST_F(WriteTest, RecordFailureEmitsAChangeOnlyWhenTheNominationChanges) {
  SchedulingFailure f;
  f.pod = pod("p");
  f.reason = "Unschedulable";
  f.message = "0/2 nodes are available: 2 Insufficient cpu.";
  f.nominatedNodeName = "n2";
  cluster_->recordFailure(f);
  EXPECT_NE(pod("p"), f.pod) << "a new Pod was stored";
  // The nomination went from none to n2: the update comes back, as a watch delivers it.
  ASSERT_EQ(cluster_->pending(), 1u);
  auto nominated = cluster_->next(std::chrono::seconds(1));
  ASSERT_TRUE(nominated.has_value());
  EXPECT_EQ(nominated->type, ClusterChange::Type::kModified);
  EXPECT_EQ(nominated->source, "status");
  EXPECT_EQ(nominated->oldPod, f.pod);
  EXPECT_EQ(nominated->curPod, pod("p"));

  auto manifest = boost::json::parse(pod("p")->json());
  const boost::json::object* cond = podScheduled(manifest);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->at("status").as_string(), "False");
  EXPECT_EQ(cond->at("reason").as_string(), "Unschedulable");
  EXPECT_EQ(cond->at("message").as_string(), f.message);
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName").as_string(), "n2");

  // A later failure without a nomination keeps it, and the same nomination again changes
  // nothing a watcher acts on: no change. An empty one clears it: a change.
  f.nominatedNodeName.reset();
  cluster_->recordFailure(f);
  manifest = boost::json::parse(pod("p")->json());
  EXPECT_EQ(manifest.at("status").at("nominatedNodeName").as_string(), "n2");
  f.nominatedNodeName = "n2";
  cluster_->recordFailure(f);
  EXPECT_EQ(cluster_->pending(), 0u) << "a status-only patch is not delivered";
  f.nominatedNodeName = "";
  cluster_->recordFailure(f);
  manifest = boost::json::parse(pod("p")->json());
  EXPECT_FALSE(manifest.at("status").as_object().contains("nominatedNodeName"));
  ASSERT_EQ(cluster_->pending(), 1u);
  EXPECT_EQ(cluster_->next(std::chrono::seconds(1))->curPod, pod("p"));

  // The bind starts from the patched pod and turns the condition True.
  auto patched = pod("p");
  ASSERT_TRUE(cluster_->bind(*f.pod, "n1").ok());
  auto change = cluster_->next(std::chrono::seconds(1));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->oldPod, patched);
  manifest = boost::json::parse(change->curPod->json());
  cond = podScheduled(manifest);
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->at("status").as_string(), "True");
  EXPECT_FALSE(cond->contains("reason"));

  // Failures of bound or deleted pods are ignored.
  cluster_->recordFailure(f);
  EXPECT_EQ(pod("p"), change->curPod);
  f.pod = model::testing::makePod().name("ghost").inNamespace("ns").obj();
  cluster_->recordFailure(f);
  EXPECT_EQ(cluster_->pending(), 0u);
}

TEST_F(WriteTest, ClearNominatedNodeNameIsAStatusPatchDeliveredAsAChange) {
  SchedulingFailure f;
  f.pod = pod("p");
  f.reason = "Unschedulable";
  f.message = "0/2 nodes are available: 2 Insufficient cpu.";
  f.nominatedNodeName = "n2";
  cluster_->recordFailure(f);
  ASSERT_EQ(pod("p")->view().nominated_node_name.len, 2u);
  ASSERT_TRUE(cluster_->next(std::chrono::seconds(1)).has_value());

  auto nominated = pod("p");
  ASSERT_TRUE(cluster_->clearNominatedNodeName(*nominated).ok());
  EXPECT_EQ(pod("p")->view().nominated_node_name.len, 0u);
  ASSERT_EQ(cluster_->pending(), 1u);
  auto change = cluster_->next(std::chrono::seconds(1));
  EXPECT_EQ(change->oldPod, nominated);
  EXPECT_EQ(change->curPod, pod("p"));
  ASSERT_TRUE(cluster_->clearNominatedNodeName(*pod("p")).ok());
  EXPECT_EQ(cluster_->pending(), 0u) << "nothing was nominated any more";
  auto manifest = boost::json::parse(pod("p")->json());
  EXPECT_FALSE(manifest.at("status").as_object().contains("nominatedNodeName"));
  // The rest of the status stays.
  EXPECT_NE(podScheduled(manifest), nullptr);

  auto ghost = model::testing::makePod().name("ghost").inNamespace("ns").obj();
  EXPECT_EQ(cluster_->clearNominatedNodeName(*ghost).message(), "pod ns/ghost not found");
}

TEST_F(WriteTest, FailureMessageIsCutAt1KiB) {
  SchedulingFailure f;
  f.pod = pod("q");
  f.reason = "Unschedulable";
  f.message = std::string(2000, 'x');
  cluster_->recordFailure(f);
  auto manifest = boost::json::parse(pod("q")->json());
  std::string message(podScheduled(manifest)->at("message").as_string());
  EXPECT_EQ(message.size(), 1024u);
  EXPECT_EQ(message.substr(1020), " ...");
}

TEST_F(WriteTest, RecordEventKeepsTheNewestAndWritesTheLog) {
  for (int i = 0; i < 5; ++i) {
    cluster_->recordEvent({"Normal", "Scheduled", "Binding",
                           "Successfully assigned ns/p" + std::to_string(i) + " to n1",
                           "ns/p" + std::to_string(i)});
  }
  auto events = cluster_->events();
  ASSERT_EQ(events.size(), 3u);  // maxEventsKept
  EXPECT_EQ(events[0].podKey, "ns/p2");
  EXPECT_EQ(events[2].message, "Successfully assigned ns/p4 to n1");
  std::istringstream lines(logText_.str());
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    auto v = boost::json::parse(line);
    EXPECT_EQ(v.at("kind").as_string(), "Event");
    EXPECT_EQ(v.at("pod").as_string(), "ns/p" + std::to_string(n));
    ++n;
  }
  EXPECT_EQ(n, 5);
}

TEST_F(WriteTest, BindAfterTheInputEndedRefillsTheQueue) {
  EXPECT_TRUE(cluster_->exhausted());
  ASSERT_TRUE(cluster_->bind(*pod("q"), "n1").ok());
  EXPECT_FALSE(cluster_->exhausted());
  EXPECT_TRUE(cluster_->next(std::chrono::milliseconds(100)).has_value());
  EXPECT_TRUE(cluster_->exhausted());
  // With nothing to deliver, next() waits its timeout (a bind may still come), no longer.
  auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(cluster_->next(std::chrono::milliseconds(30)).has_value());
  EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(25));
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_write_test

// EmbeddedCluster: the initial state, the change stream and its bad input. Binding, deletion
// and status are in embedded_cluster_write_test.cc; follow mode and stdin in
// change_stream_test.cc; concurrency in embedded_cluster_concurrency_test.cc.
#include "host/connectors/embedded/embedded_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/connectors/test_support.h"

namespace sh::connectors::embedded_cluster_test {
namespace {

using testing::describe;
using testing::drain;
using ::testing::ElementsAre;
using testing::event;
using ::testing::HasSubstr;
using testing::nodeJson;
using testing::options;
using testing::podJson;
using ::testing::StartsWith;
using testing::TempDir;
using testing::text;
using testing::Warnings;
using testing::withKind;

std::vector<std::string> describeWithSources(const std::vector<ClusterChange>& changes) {
  std::vector<std::string> out;
  for (const ClusterChange& c : changes) {
    out.push_back(describe(c) + " @" + c.source);
  }
  return out;
}

TEST(EmbeddedClusterTest, LoadsV1ListNodesFirstThenPods) {
  TempDir dir;
  // As `kubectl get nodes,pods,services -A -o json` prints it, one item per line here so the
  // lines are known: a pod comes before the node it runs on.
  // clang-format off
  std::string list = "{\n"                                                          // 1
                     "  \"apiVersion\": \"v1\",\n"                                  // 2
                     "  \"items\": [\n"                                             // 3
                     "    " + text(podJson("ns", "a", "n1")) + ",\n"                // 4
                     "    " + text(nodeJson("n1")) + ",\n"                          // 5
                     "    " + text(podJson("ns", "b")) + ",\n"                      // 6
                     "    " + text(nodeJson("n2")) + ",\n"                          // 7
                     "    {\"apiVersion\": \"v1\", \"kind\": \"Service\", "         // 8
                     "\"metadata\": {\"name\": \"svc\", \"namespace\": \"ns\"}}\n"  //
                     "  ],\n"
                     "  \"kind\": \"List\",\n"
                     "  \"metadata\": {\"resourceVersion\": \"\"}\n"
                     "}\n";
  // clang-format on
  std::string path = dir.write("state.json", list);
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());

  EXPECT_EQ(cluster.pending(), 4u);
  EXPECT_THAT(describeWithSources(drain(cluster)),
              ElementsAre("ADDED Node n1 @" + path + ":5", "ADDED Node n2 @" + path + ":7",
                          "ADDED Pod ns/a @" + path + ":4", "ADDED Pod ns/b @" + path + ":6"));
  EXPECT_TRUE(cluster.exhausted());
  EXPECT_TRUE(w.all().empty());
  EXPECT_EQ(cluster.nodeCount(), 2u);
  EXPECT_EQ(cluster.podCount(), 2u);
  ASSERT_EQ(cluster.podsOnNode("n1").size(), 1u);
  EXPECT_EQ(cluster.podsOnNode("n1")[0]->name(), "a");
  auto services = cluster.objectsOfKind("Service");
  ASSERT_EQ(services.size(), 1u);
  EXPECT_EQ(services[0]->at("metadata").at("name").as_string(), "svc");
  EXPECT_TRUE(cluster.objectsOfKind("Namespace").empty());
}

TEST(EmbeddedClusterTest, ContentsIsEveryNodeAndPodInOrder) {
  TempDir dir;
  Warnings w;
  auto o = options(w);
  o.initialState =
      dir.write("state.jsonl", text(nodeJson("n2")) + "\n" + text(podJson("ns", "b", "n2")) + "\n" +
                                   text(nodeJson("n1")) + "\n" + text(podJson("ns", "a")) + "\n" +
                                   text(podJson("another", "c")) + "\n");
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  drain(cluster);
  ASSERT_TRUE(cluster.bind(*cluster.pod("ns", "a"), "n1").ok());
  drain(cluster);

  const EmbeddedCluster::Contents all = cluster.contents();
  std::vector<std::string> nodes, pods;
  for (const auto& n : all.nodes) {
    nodes.emplace_back(n->name());
  }
  for (const auto& p : all.pods) {
    pods.push_back(std::string(p->namespaceName()) + "/" + std::string(p->name()) + "@" +
                   std::string(p->nodeName()));
  }
  EXPECT_THAT(nodes, ElementsAre("n1", "n2"));
  EXPECT_THAT(pods, ElementsAre("another/c@", "ns/a@n1", "ns/b@n2"));
  EXPECT_TRUE(w.all().empty());
}

TEST(EmbeddedClusterTest, LoadsJsonLines) {
  TempDir dir;
  std::string path = dir.write(
      "state.jsonl", text(podJson("ns", "a", "n1")) + "\n\n" + text(nodeJson("n1")) + "\r\n" +
                         R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ns"}})" +
                         "\n" + text(podJson("", "b")));  // no final newline; default namespace
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  EXPECT_THAT(describeWithSources(drain(cluster)),
              ElementsAre("ADDED Node n1 @" + path + ":3", "ADDED Pod ns/a @" + path + ":1",
                          "ADDED Pod default/b @" + path + ":5"));
  EXPECT_TRUE(w.all().empty());
  EXPECT_EQ(cluster.objectsOfKind("Namespace").size(), 1u);
  EXPECT_NE(cluster.pod("default", "b"), nullptr);
}

TEST(EmbeddedClusterTest, InitialStateProblemsAreWarnedAndSkipped) {
  TempDir dir;
  auto badPriority = podJson("ns", "bad");
  badPriority.as_object()["spec"].as_object()["priority"] = "high";
  auto noKind = podJson("ns", "nokind");
  noKind.as_object().erase("kind");
  // clang-format off
  std::string path = dir.write(
      "state.jsonl",
      text(nodeJson("n1")) + "\n" +                                                 // 1
          "{\"kind\": \"Pod\", \n" +                                                // 2
          R"({"kind":"ConfigMap","metadata":{"name":"c"}})" "\n"                   // 3
          + text(badPriority) + "\n" +                                              // 4
          text(podJson("ns", "lost", "n9")) + "\n" +                                // 5
          text(podJson("ns", "ok")) + "\n" +                                        // 6
          text(podJson("ns", "ok")) + "\n" +                                        // 7
          text(noKind) + "\n" +                                                     // 8
          "[1, 2]\n" +                                                              // 9
          text(podJson("ns", "last", "n1")) + "\n");                                // 10
  // clang-format on
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());

  auto warnings = w.all();
  ASSERT_EQ(warnings.size(), 7u);
  // Reading and parsing problems come in line order, then what the store refused.
  EXPECT_THAT(warnings[0], StartsWith(path + ":2: invalid JSON: "));
  EXPECT_EQ(warnings[1], path +
                             ":3: ConfigMap: apiVersion: required (an object of any kind "
                             "but the built-in ones is known by its apiVersion and kind)");
  EXPECT_EQ(warnings[2], path + ":4: pod ns/bad: spec.priority: expected integer, got string");
  EXPECT_EQ(warnings[3], path + ":8: object has no kind");
  EXPECT_EQ(warnings[4], path + ":9: expected an object");
  EXPECT_EQ(warnings[5], path + ":5: pod ns/lost: spec.nodeName: node \"n9\" not found");
  EXPECT_EQ(warnings[6],
            path + ":7: ADDED of pod ns/ok, which already exists; applied as MODIFIED");
  EXPECT_EQ(cluster.rejectedLines(), 6u);  // all but the duplicate, which was applied

  EXPECT_THAT(
      describeWithSources(drain(cluster)),
      ElementsAre("ADDED Node n1 @" + path + ":1", "ADDED Pod ns/ok @" + path + ":6",
                  "MODIFIED Pod ns/ok @" + path + ":7", "ADDED Pod ns/last @" + path + ":10"));
}

TEST(EmbeddedClusterTest, BrokenDocumentWithoutOneObjectIsAnError) {
  // Not one object could be read: not taken for an empty cluster.
  TempDir dir;
  std::string path =
      dir.write("state.json", "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"a\"\n");
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  EmbeddedCluster cluster(o);
  Status s = cluster.start();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), StartsWith(path + ":5: invalid JSON: "));
  EXPECT_THAT(s.message(), ::testing::EndsWith(" (no object could be read from the file)"));
  EXPECT_TRUE(w.all().empty());
}

TEST(EmbeddedClusterTest, ListItemThatIsNotAnObject) {
  TempDir dir;
  std::string path =
      dir.write("state.json", "{\"items\": [\n" + text(nodeJson("n1")) + ",\n\"oops\"\n]}\n");
  Warnings w;
  auto o = options(w);
  o.initialState = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  EXPECT_THAT(w.all(), ElementsAre(path + ":3: items[1]: expected an object"));
  EXPECT_THAT(describeWithSources(drain(cluster)), ElementsAre("ADDED Node n1 @" + path + ":2"));
}

TEST(EmbeddedClusterTest, StartFailsOnlyWhenAFileCannotBeOpened) {
  TempDir dir;
  EmbeddedCluster::Options o;
  o.initialState = dir.write("x", "") + ".missing";
  EmbeddedCluster missing(o);
  Status s = missing.start();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("cannot read [" + o.initialState + "]: No such file"));

  EmbeddedCluster::Options c;
  c.changes = o.initialState;
  EXPECT_FALSE(EmbeddedCluster(c).start().ok());

  EmbeddedCluster::Options both;
  both.initialState = "-";
  both.changes = "-";
  EXPECT_FALSE(EmbeddedCluster(both).start().ok());

  EmbeddedCluster empty(EmbeddedCluster::Options{});
  EXPECT_TRUE(empty.start().ok());
  EXPECT_FALSE(empty.start().ok()) << "start() twice";
  EXPECT_TRUE(empty.exhausted());
}

TEST(EmbeddedClusterTest, WatchStreamAddedModifiedDeleted) {
  TempDir dir;
  auto relabelled = podJson("ns", "p");
  relabelled.as_object()["metadata"].as_object()["labels"] = boost::json::object{{"app", "web"}};
  // clang-format off
  std::string path = dir.write("changes.jsonl",
                               event("ADDED", nodeJson("n1")) +          // 1
                                   event("ADDED", podJson("ns", "p")) +  // 2
                                   R"({"type":"BOOKMARK","object":{"kind":"Pod",)"
                                   R"("metadata":{"resourceVersion":"12"}}})" "\n" +  // 3
                                   event("MODIFIED", relabelled) +                    // 4
                                   "\n" +                                             // 5
                                   event("DELETED", podJson("ns", "p")) +             // 6
                                   event("DELETED", nodeJson("n1")));                 // 7
  // clang-format on
  Warnings w;
  auto o = options(w);
  o.changes = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  auto changes = drain(cluster);
  EXPECT_THAT(describeWithSources(changes),
              ElementsAre("ADDED Node n1 @" + path + ":1", "ADDED Pod ns/p @" + path + ":2",
                          "MODIFIED Pod ns/p @" + path + ":4", "DELETED Pod ns/p @" + path + ":6",
                          "DELETED Node n1 @" + path + ":7"));
  EXPECT_TRUE(w.all().empty());
  EXPECT_EQ(cluster.rejectedLines(), 0u);
  ASSERT_EQ(changes.size(), 5u);
  // Added: cur only; modified: old is what was added; deleted: old only, the last version.
  EXPECT_EQ(changes[1].oldPod, nullptr);
  EXPECT_EQ(changes[2].oldPod, changes[1].curPod);
  EXPECT_EQ(changes[2].curPod->view().label_count, 1u);
  EXPECT_EQ(changes[3].oldPod, changes[2].curPod);
  EXPECT_EQ(changes[3].curPod, nullptr);
  EXPECT_EQ(changes[4].oldNode, changes[0].curNode);
  EXPECT_EQ(cluster.podCount(), 0u);
  EXPECT_EQ(cluster.nodeCount(), 0u);
}

// Each bad line is followed by a good one: the warning names FILE:LINE and the run goes on.
TEST(EmbeddedClusterTest, EveryBadLineIsWarnedAndTheNextOneApplies) {
  auto badPriority = podJson("ns", "bad");
  badPriority.as_object()["spec"].as_object()["priority"] = "high";
  auto noKind = nodeJson("x");
  noKind.as_object().erase("kind");
  auto noApiVersion = withKind(nodeJson("c"), "ConfigMap");
  noApiVersion.as_object().erase("apiVersion");
  auto noName = podJson("ns", "x");
  noName.as_object()["metadata"].as_object().erase("name");
  const std::string status = R"json({"kind":"Status","code":410,"reason":"Expired",)json"
                             R"json("message":"too old resource version: 1 (5)"})json";
  struct Case {
    std::string line;
    std::string reason;  // the warning after "FILE:LINE: "; "*" prefix: only the start
  };
  // clang-format off
  const std::vector<Case> cases = {
      {"this is not json\n", "*invalid JSON: "},
      {R"({"type":"ADDED"})" "\n",
       R"(expected a watch event {"type": "ADDED|MODIFIED|DELETED", "object": {...}})"},
      {R"({"type":"UPSERT","object":{}})" "\n", "unknown event type \"UPSERT\""},
      {R"({"type":"ADDED","object":[]})" "\n", "object: expected an object"},
      {event("ADDED", noApiVersion), "*ConfigMap: apiVersion: required"},
      {event("ADDED", noKind), "object has no kind"},
      {event("ADDED", noName), "pod: metadata.name: required"},
      {event("ADDED", badPriority), "pod ns/bad: spec.priority: expected integer, got string"},
      {event("MODIFIED", podJson("ns", "ghost")), "MODIFIED of pod ns/ghost, which does not exist"},
      {event("DELETED", nodeJson("ghost")), "DELETED of node \"ghost\", which does not exist"},
      {event("ADDED", podJson("ns", "lost", "n9")),
       "pod ns/lost: spec.nodeName: node \"n9\" not found"},
      {R"({"type":"ERROR","object":)" + status + "}\n",
       "watch ERROR event: too old resource version: 1 (5)"},
      // p0 was added on n1 after the first case.
      {event("MODIFIED", podJson("ns", "p0")),
       "pod ns/p0: spec.nodeName: may not change from \"n1\" to \"\" once set"},
  };
  // clang-format on
  TempDir dir;
  std::string stream = event("ADDED", nodeJson("n1"));
  std::vector<std::string> expectedChanges = {"ADDED Node n1"};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string name = "p" + std::to_string(i);
    stream += cases[i].line + event("ADDED", podJson("ns", name, "n1"));
    expectedChanges.push_back("ADDED Pod ns/" + name);
  }
  std::string path = dir.write("changes.jsonl", stream);
  Warnings w;
  auto o = options(w);
  o.changes = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  std::vector<std::string> got;
  for (const ClusterChange& c : drain(cluster)) {
    got.push_back(describe(c));
  }
  EXPECT_EQ(got, expectedChanges);

  auto warnings = w.all();
  ASSERT_EQ(warnings.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string prefix = path + ":" + std::to_string(2 + 2 * i) + ": ";
    const std::string& reason = cases[i].reason;
    if (reason[0] == '*') {
      EXPECT_THAT(warnings[i], StartsWith(prefix + reason.substr(1))) << "case " << i;
    } else {
      EXPECT_EQ(warnings[i], prefix + reason) << "case " << i;
    }
  }
  EXPECT_EQ(cluster.rejectedLines(), cases.size());
}

TEST(EmbeddedClusterTest, AddedOfExistingIsAppliedAsModified) {
  TempDir dir;
  std::string path = dir.write(
      "changes.jsonl", event("ADDED", podJson("ns", "p")) + event("ADDED", podJson("ns", "p")));
  Warnings w;
  auto o = options(w);
  o.changes = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  auto changes = drain(cluster);
  EXPECT_THAT(describeWithSources(changes),
              ElementsAre("ADDED Pod ns/p @" + path + ":1", "MODIFIED Pod ns/p @" + path + ":2"));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[1].oldPod, changes[0].curPod);
  EXPECT_THAT(w.all(), ElementsAre(path + ":2: ADDED of pod ns/p, which already exists; applied "
                                          "as MODIFIED"));
  EXPECT_EQ(cluster.rejectedLines(), 0u);
}

TEST(EmbeddedClusterTest, RawKindsFollowTheStreamSilently) {
  TempDir dir;
  auto svc = [](std::string_view port) {
    return boost::json::parse(std::string(R"({"apiVersion":"v1","kind":"Service",)") +
                              R"("metadata":{"name":"web","namespace":"ns"},)" +
                              R"("spec":{"ports":[{"port":)" + std::string(port) + "}]}}");
  };
  auto pc = boost::json::parse(R"({"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",)"
                               R"("metadata":{"name":"high"},"value":1000})");
  std::string path =
      dir.write("changes.jsonl", event("ADDED", svc("80")) + event("MODIFIED", svc("8080")) +
                                     event("ADDED", pc) + event("DELETED", svc("1")) +
                                     event("DELETED", svc("1")));
  Warnings w;
  auto o = options(w);
  o.changes = path;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  EXPECT_TRUE(drain(cluster).empty());
  EXPECT_TRUE(cluster.objectsOfKind("Service").empty());
  auto classes = cluster.objectsOfKind("PriorityClass");
  ASSERT_EQ(classes.size(), 1u);
  EXPECT_EQ(classes[0]->at("value").as_int64(), 1000);
  EXPECT_THAT(w.all(), ElementsAre(path + ":5: DELETED of Service ns/web, which does not exist"));
}

TEST(EmbeddedClusterTest, StopEndsNextAtOnce) {
  TempDir dir;
  std::string path = dir.write("changes.jsonl", event("ADDED", nodeJson("n1")));
  EmbeddedCluster::Options o;
  o.changes = path;
  o.follow = true;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  ASSERT_TRUE(cluster.next(std::chrono::seconds(10)).has_value());
  EXPECT_FALSE(cluster.exhausted()) << "following: the input never ends by itself";
  cluster.stop();
  auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(cluster.next(std::chrono::seconds(10)).has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  EXPECT_TRUE(cluster.exhausted());
}

TEST(EmbeddedClusterTest, ReadAheadIsBounded) {
  TempDir dir;
  std::string stream;
  for (int i = 0; i < 50; ++i) {
    stream += event("ADDED", nodeJson("n" + std::to_string(i)));
  }
  EmbeddedCluster::Options o;
  o.changes = dir.write("changes.jsonl", stream);
  o.maxReadAhead = 8;
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_LE(cluster.pending(), 8u);
  EXPECT_EQ(drain(cluster).size(), 50u);
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_test

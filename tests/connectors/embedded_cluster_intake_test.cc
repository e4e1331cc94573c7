// EmbeddedCluster intake: the API server's identity rules for pods (a uid is unique, a name
// is taken until its pod is deleted), a manifest that could not be read back (1e999), and
// initial-state files that cannot be read (a directory, a FIFO, a device, not one object).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "host/connectors/embedded/embedded_cluster.h"
#include "host/connectors/object_file.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::embedded_cluster_intake_test {
namespace {

using testing::describe;
using testing::drain;
using ::testing::ElementsAre;
using testing::event;
using testing::nodeJson;
using testing::TempDir;
using testing::text;
using testing::Warnings;
using testing::withKind;

boost::json::value podWithUid(std::string_view name, std::string_view uid) {
  auto w = model::testing::makePod().name(name).inNamespace("ns").req({{"cpu", "100m"}});
  if (!uid.empty()) {
    w.uid(uid);
  }
  return withKind(w.parseJson(), "Pod");
}

std::vector<std::string> describeWithUids(const std::vector<ClusterChange>& changes) {
  std::vector<std::string> out;
  for (const ClusterChange& c : changes) {
    const auto& p = c.curPod != nullptr ? c.curPod : c.oldPod;
    out.push_back(describe(c) + (p != nullptr ? " uid=" + std::string(p->uid()) : ""));
  }
  return out;
}

// The initial state `lines` (JSON lines) and the change stream `changes`, run to the end.
struct Loaded {
  std::vector<std::string> changes;
  std::vector<std::string> warnings;
  std::size_t rejected = 0;
};
Loaded load(const std::string& lines, const std::string& changes = "") {
  TempDir dir;
  Warnings w;
  EmbeddedCluster::Options o;
  o.warn = w.sink();
  o.initialState = dir.write("cluster.json", lines);
  o.changes = dir.write("changes.json", changes);
  EmbeddedCluster cluster(o);
  EXPECT_TRUE(cluster.start().ok());
  Loaded out;
  out.changes = describeWithUids(drain(cluster));
  // File names without their temporary directory.
  const std::string dirPrefix = o.initialState.substr(0, o.initialState.rfind('/') + 1);
  for (std::string warning : w.all()) {
    if (warning.starts_with(dirPrefix)) {
      warning.erase(0, dirPrefix.size());
    }
    out.warnings.push_back(std::move(warning));
  }
  out.rejected = cluster.rejectedLines();
  return out;
}

TEST(EmbeddedClusterIntakeTest, APodWithoutUidIsRefused) {
  Loaded l = load(text(nodeJson("n1")) + "\n" + text(podWithUid("a", "")) + "\n" +
                  text(podWithUid("b", "ub")) + "\n");
  EXPECT_THAT(l.changes, ElementsAre("ADDED Node n1", "ADDED Pod ns/b uid=ub"));
  EXPECT_THAT(l.warnings, ElementsAre("cluster.json:2: pod ns/a: metadata.uid: required"));
  EXPECT_EQ(l.rejected, 1u);
}

TEST(EmbeddedClusterIntakeTest, ASecondPodWithTheSameUidIsRefusedAndTheFirstKept) {
  Loaded l = load(text(podWithUid("a", "u1")) + "\n" + text(podWithUid("b", "u1")) + "\n",
                  event("ADDED", podWithUid("c", "u1")));
  EXPECT_THAT(l.changes, ElementsAre("ADDED Pod ns/a uid=u1"));
  EXPECT_THAT(l.warnings,
              ElementsAre(R"(cluster.json:2: pod ns/b: metadata.uid: "u1" is already the uid )"
                          R"(of pod ns/a (a uid is unique))",
                          R"(changes.json:1: pod ns/c: metadata.uid: "u1" is already the uid )"
                          R"(of pod ns/a (a uid is unique))"));
  EXPECT_EQ(l.rejected, 2u);
}

TEST(EmbeddedClusterIntakeTest, ANameIsTakenUntilItsPodIsDeleted) {
  // ADDED and MODIFIED of ns/a with another uid while the first lives are refused; once it is
  // deleted, the name may come back with a new uid, and the old uid is free again.
  Loaded l =
      load(text(podWithUid("a", "u1")) + "\n" + text(podWithUid("a", "u2")) + "\n",
           event("ADDED", podWithUid("a", "u3")) + event("MODIFIED", podWithUid("a", "u4")) +
               event("DELETED", podWithUid("a", "u1")) + event("ADDED", podWithUid("a", "u5")) +
               event("ADDED", podWithUid("b", "u1")));
  EXPECT_THAT(l.changes, ElementsAre("ADDED Pod ns/a uid=u1", "DELETED Pod ns/a uid=u1",
                                     "ADDED Pod ns/a uid=u5", "ADDED Pod ns/b uid=u1"));
  const std::string taken = R"(" is not the uid of the pod of this name, "u1" (a name is )"
                            R"(taken until its pod is deleted))";
  EXPECT_THAT(l.warnings, ElementsAre(R"(cluster.json:2: pod ns/a: metadata.uid: "u2)" + taken,
                                      R"(changes.json:1: pod ns/a: metadata.uid: "u3)" + taken,
                                      R"(changes.json:2: pod ns/a: metadata.uid: "u4)" + taken));
  EXPECT_EQ(l.rejected, 3u);
}

TEST(EmbeddedClusterIntakeTest, ANumberBeyondADoublesRangeRefusesThePodAtIntake) {
  // 1e999 parses as infinity, which JSON text cannot carry: the manifest would not parse again
  // at its first status patch or binding. Refused once, with the field, wherever it is.
  const std::string bad =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"up"},)"
      R"("spec":{"containers":[{"name":"c"}],"extra":[1,{"x":-1e999}]}})";
  Loaded l =
      load(text(nodeJson("n1")) + "\n" + bad + "\n", R"({"type":"ADDED","object":)" + bad + "}\n");
  EXPECT_THAT(l.changes, ElementsAre("ADDED Node n1"));
  const std::string why =
      ": pod ns/p: spec.extra[1].x: number out of range (beyond a double's range, as 1e999)";
  EXPECT_THAT(l.warnings, ElementsAre("cluster.json:2" + why, "changes.json:1" + why));
}

TEST(EmbeddedClusterIntakeTest, AFileWithNotOneObjectIsAnError) {
  TempDir dir;
  EmbeddedCluster::Options o;
  o.initialState = dir.write("cluster.json", std::string("\x7f"
                                                         "ELF\x02\x01\x01",
                                                         7));
  EmbeddedCluster cluster(o);
  Status s = cluster.start();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().substr(0, o.initialState.size() + 3), o.initialState + ":1:");
  EXPECT_THAT(s.message(), ::testing::EndsWith("(no object could be read from the file)"));
}

TEST(EmbeddedClusterIntakeTest, OnlyARegularFileIsReadWhole) {
  TempDir dir;
  const std::string fifo = dir.write("x", "") + ".fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string directory = dir.write("x", "") + ".d";
  std::filesystem::create_directory(directory);
  struct Case {
    std::string path;
    std::string error;
  };
  const std::vector<Case> cases = {
      // No writer: open() must not wait for one.
      {fifo, "cannot read [" + fifo + "]: not a regular file (use - to read standard input)"},
      // Never ends: refused before a byte is read.
      {"/dev/zero", "cannot read [/dev/zero]: not a regular file (use - to read standard input)"},
      {directory, "cannot read [" + directory + "]: is a directory"},
      {directory + "/missing",
       "cannot read [" + directory + "/missing]: No such file or directory"},
  };
  for (const Case& c : cases) {
    std::string error;
    EXPECT_FALSE(readFileText(c.path, error).has_value()) << c.path;
    EXPECT_EQ(error, c.error);
    EmbeddedCluster::Options o;
    o.initialState = c.path;
    EmbeddedCluster cluster(o);
    Status s = cluster.start();
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.message(), c.error);
  }
  std::string error;
  EXPECT_EQ(readFileText(dir.write("ok.json", "{}"), error), std::optional<std::string>("{}"));
}

}  // namespace
}  // namespace sh::connectors::embedded_cluster_intake_test

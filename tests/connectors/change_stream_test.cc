// The change stream's inputs: follow mode on a growing file, standard input, EOF handling.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "host/common/limits.h"
#include "host/connectors/embedded/embedded_cluster.h"
#include "tests/connectors/test_support.h"

namespace sh::connectors::change_stream_test {
namespace {

using testing::describe;
using testing::event;
using testing::nodeJson;
using testing::podJson;
using testing::TempDir;
using testing::Warnings;

TEST(ChangeStreamTest, FollowReadsWhatIsAppended) {
  TempDir dir;
  std::string path = dir.write("changes.jsonl", event("ADDED", nodeJson("n1")));
  Warnings w;
  EmbeddedCluster::Options o;
  o.changes = path;
  o.follow = true;
  o.followInterval = std::chrono::milliseconds(5);
  o.warn = w.sink();
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());

  auto first = cluster.next(std::chrono::seconds(10));
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(describe(*first), "ADDED Node n1");
  // At EOF: nothing yet, and not over.
  EXPECT_FALSE(cluster.next(std::chrono::milliseconds(30)).has_value());
  EXPECT_FALSE(cluster.exhausted());

  // A writer caught mid-line: the half line is not read until its newline arrives.
  std::string line = event("ADDED", podJson("ns", "p", "n1"));
  dir.append("changes.jsonl", line.substr(0, line.size() / 2));
  EXPECT_FALSE(cluster.next(std::chrono::milliseconds(50)).has_value());
  dir.append("changes.jsonl", line.substr(line.size() / 2) + "not json\n");
  auto second = cluster.next(std::chrono::seconds(10));
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(describe(*second), "ADDED Pod ns/p");
  EXPECT_EQ(second->source, path + ":2");

  // Many more lines while the reader is following.
  std::thread writer([&] {
    for (int i = 0; i < 20; ++i) {
      dir.append("changes.jsonl", event("ADDED", nodeJson("m" + std::to_string(i))));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  int got = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got < 20 && std::chrono::steady_clock::now() < deadline) {
    if (auto c = cluster.next(std::chrono::milliseconds(50))) {
      EXPECT_EQ(describe(*c), "ADDED Node m" + std::to_string(got));
      ++got;
    }
  }
  writer.join();
  EXPECT_EQ(got, 20);
  // The malformed line in between was reported with its line number.
  auto warnings = w.all();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind(path + ":3: invalid JSON", 0), 0u) << warnings[0];

  cluster.stop();
  EXPECT_TRUE(cluster.exhausted());
}

TEST(ChangeStreamTest, WithoutFollowEofEndsTheStream) {
  TempDir dir;
  // The last line has no newline: still read.
  std::string stream = event("ADDED", nodeJson("n1"));
  stream.pop_back();
  EmbeddedCluster::Options o;
  o.changes = dir.write("changes.jsonl", stream);
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  auto changes = testing::drain(cluster);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_TRUE(cluster.exhausted());
}

// A line over limits::kMaxLineBytes is refused with its length and the limit, without being
// held whole; the next line applies.
TEST(ChangeStreamTest, ALineOverTheLimitIsRefusedAndTheNextApplies) {
  TempDir dir;
  const std::string path = dir.write("changes.jsonl", std::string(limits::kMaxLineBytes + 1, ' ') +
                                                          "\n" + event("ADDED", nodeJson("n1")));
  Warnings w;
  EmbeddedCluster::Options o;
  o.changes = path;
  o.warn = w.sink();
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  auto changes = testing::drain(cluster);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(describe(changes[0]), "ADDED Node n1");
  EXPECT_EQ(w.all(), std::vector<std::string>{path + ":1: line of 16842753 bytes is longer than "
                                                     "the limit of 16842752 bytes"});
}

// Standard input, here a pipe put in place of fd 0 for the test.
class StdinTest : public ::testing::Test {
 protected:
  void SetUp() override {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    savedStdin_ = ::dup(STDIN_FILENO);
    ASSERT_GE(savedStdin_, 0);
    ASSERT_EQ(::dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
    ::close(fds[0]);
    writeEnd_ = fds[1];
  }
  void TearDown() override {
    closeWriter();
    ::dup2(savedStdin_, STDIN_FILENO);
    ::close(savedStdin_);
  }
  void write(const std::string& s) {
    ASSERT_EQ(::write(writeEnd_, s.data(), s.size()), static_cast<ssize_t>(s.size()));
  }
  void closeWriter() {
    if (writeEnd_ >= 0) {
      ::close(writeEnd_);
      writeEnd_ = -1;
    }
  }

  int savedStdin_ = -1;
  int writeEnd_ = -1;
};

TEST_F(StdinTest, ReadsUntilTheWriterCloses) {
  Warnings w;
  EmbeddedCluster::Options o;
  o.changes = "-";
  o.follow = true;  // no effect on a pipe: EOF is the end
  o.warn = w.sink();
  EmbeddedCluster cluster(o);
  ASSERT_TRUE(cluster.start().ok());
  write(event("ADDED", nodeJson("n1")));
  auto c = cluster.next(std::chrono::seconds(10));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->source, "<stdin>:1");
  EXPECT_FALSE(cluster.exhausted());
  write("{\"type\":\"ADDED\"}\n" + event("ADDED", nodeJson("n2")));
  closeWriter();
  auto rest = testing::drain(cluster);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].source, "<stdin>:3");
  ASSERT_EQ(w.all().size(), 1u);
  EXPECT_EQ(w.all()[0].rfind("<stdin>:2: expected a watch event", 0), 0u);
  EXPECT_TRUE(cluster.exhausted());
}

TEST_F(StdinTest, StopEndsAReaderWaitingOnAnOpenPipe) {
  EmbeddedCluster::Options o;
  o.changes = "-";
  auto cluster = std::make_unique<EmbeddedCluster>(o);
  ASSERT_TRUE(cluster->start().ok());
  EXPECT_FALSE(cluster->next(std::chrono::milliseconds(30)).has_value());
  auto before = std::chrono::steady_clock::now();
  cluster.reset();  // stop() and join, although the writer never closed
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
}

}  // namespace
}  // namespace sh::connectors::change_stream_test

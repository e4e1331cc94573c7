// `schedhost test` run as a plugin vendor runs it: a directory of scenario files, some passing,
// some not; what it prints for each, the closing count and the exit code.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sh::test_command_test {
namespace {

namespace fs = std::filesystem;

// Two nodes and a pod asking for 2 cpu: n1 (1 cpu) can never hold it, n2 (4 cpu) takes it.
constexpr const char* kCluster = R"(
  "plugins": [{"name": "NodeResourcesFit"}],
  "nodes": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
     "status": {"allocatable": {"cpu": "1", "memory": "4Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
     "status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "110"}}}],
  "pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
          "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]}})";

std::string scenario(const std::string& expect) {
  std::string text = std::string("{\"name\": \"two nodes\",") + kCluster;
  if (!expect.empty()) {
    text += ",\n  \"expect\": " + expect;
  }
  return text + "\n}\n";
}

struct CliRun {
  int exitCode = -1;
  std::string out;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

class TestCommand : public ::testing::Test {
 protected:
  // Under the build tree: plugins may only be loaded by tests whose files live there.
  void SetUp() override {
    dir_ = fs::path(SCHEDHOST_SCRATCH_DIR) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }

  CliRun run(const std::string& args) {
    fs::path out = dir_.parent_path() / (dir_.filename().string() + ".out");
    std::string command = std::string(SCHEDHOST_BIN) + " test --plugin-dir " +
                          SCHEDHOST_PLUGIN_DIR + " " + args + " >" + out.string() + " 2>&1";
    int raw = std::system(command.c_str());
    CliRun result;
    result.exitCode = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = slurp(out);
    fs::remove(out);
    return result;
  }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

constexpr const char* kPassing = R"({"selected": "n2", "nodes": {
    "n1": {"feasible": false,
           "filter": {"NodeResourcesFit": {"code": "UnschedulableAndUnresolvable",
                                            "reasons": ["Insufficient cpu"]}}},
    "n2": {"feasible": true, "filter": {"NodeResourcesFit": {"code": "Success"}}}}})";

TEST_F(TestCommand, PassingDirectoryExitsZero) {
  write("a.json", scenario(kPassing));
  write("sub/b.json", scenario(R"({"selected": "n2"})"));
  write("notes.txt", "not a scenario: not a .json file");
  CliRun r = run(dir_.string());
  EXPECT_EQ(r.exitCode, 0) << r.out;
  // Sorted, recursive, .json only.
  EXPECT_EQ(lines(r.out),
            (std::vector<std::string>{"ok " + path("a.json"), "ok " + path("sub/b.json"),
                                      "2 passed, 0 failed"}));
}

TEST_F(TestCommand, FailuresErrorsAndTheirCount) {
  write("a-pass.json", scenario(kPassing));
  write("b-fail.json", scenario(R"({"selected": "n1", "nodes": {"n1": {"feasible": true,
      "filter": {"NodeResourcesFit": {"code": "Success"}}}}})"));
  write("c-no-expect.json", scenario(""));
  write("d-bad.json", "{\n  \"name\": \"x\",\n  \"nodes\": [ ,\n}\n");
  write("e-typo.json", scenario(R"({"nodes": {"n2": {"feasable": true}}})"));
  write("sub/f-unknown-plugin.json",
        "{\"pod\": {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}},"
        " \"plugins\": [{\"name\": \"NoSuchPlugin\"}], \"expect\": {\"selected\": null}}");
  CliRun r = run(dir_.string());
  EXPECT_EQ(r.exitCode, 1) << r.out;
  std::vector<std::string> got = lines(r.out);
  ASSERT_EQ(got.size(), 11u) << r.out;
  EXPECT_EQ(got[0], "ok " + path("a-pass.json"));
  EXPECT_EQ(got[1], "FAIL " + path("b-fail.json"));
  EXPECT_EQ(got[2], R"(  selected: expected "n1", got "n2")");
  EXPECT_EQ(got[3], "  nodes.n1.feasible: expected true, got false");
  EXPECT_EQ(got[4],
            "  nodes.n1.filter.NodeResourcesFit.code: expected \"Success\", got "
            "\"UnschedulableAndUnresolvable\"");
  EXPECT_EQ(got[5], "ERROR " + path("c-no-expect.json") +
                        ": no \"expect\" object: nothing to check (add one; an explanation "
                        "without expectations is `schedhost evaluate`'s job)");
  EXPECT_EQ(got[6].rfind("ERROR " + path("d-bad.json") + ":3:", 0), 0u) << got[6];
  EXPECT_NE(got[6].find(": invalid JSON: "), std::string::npos) << got[6];
  EXPECT_EQ(got[7], "FAIL " + path("e-typo.json"));
  EXPECT_EQ(got[8],
            "  expect.nodes.n2.feasable: unknown key (expected one of: feasible, filter, scores, "
            "total)");
  EXPECT_EQ(got[9].rfind("ERROR " + path("sub/f-unknown-plugin.json") + ": ", 0), 0u) << got[9];
  EXPECT_NE(got[9].find("plugin \"NoSuchPlugin\" does not exist"), std::string::npos) << got[9];
  // The closing count, alone on the last line; errors count as failures.
  EXPECT_EQ(got.back(), "1 passed, 5 failed");
}

TEST_F(TestCommand, FilesAndMissingPaths) {
  write("a.json", scenario(kPassing));
  CliRun r = run(path("a.json") + " " + path("nowhere") + " " + path("sub"));
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_EQ(lines(r.out),
            (std::vector<std::string>{
                "ERROR " + path("nowhere") + ": no such file or directory",
                "ERROR " + path("sub") + ": no *.json scenario files in this directory",
                "ok " + path("a.json"), "1 passed, 2 failed"}));
}

// A FIFO (or any file that is not a regular one) is never opened: opening a FIFO without a
// writer would block the run.
TEST_F(TestCommand, AFifoIsNotARegularFile) {
  ASSERT_EQ(::mkfifo(path("pipe.json").c_str(), 0600), 0);
  write("a.json", scenario(kPassing));
  CliRun r = run(path("pipe.json") + " " + path("a.json"));
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_EQ(lines(r.out), (std::vector<std::string>{
                              "ERROR " + path("pipe.json") + ": not a regular file (a FIFO)",
                              "ok " + path("a.json"), "1 passed, 1 failed"}));
}

TEST_F(TestCommand, JsonReport) {
  write("a.json", scenario(R"({"nodes": {"n2": {"total": 99}}})"));
  CliRun r = run("--json " + dir_.string());
  EXPECT_EQ(r.exitCode, 1) << r.out;
  boost::json::value doc = boost::json::parse(r.out);
  EXPECT_EQ(doc.at("passed").to_number<int64_t>(), 0);
  EXPECT_EQ(doc.at("failed").to_number<int64_t>(), 1);
  const auto& result = doc.at("results").at(0);
  EXPECT_EQ(result.at("result").as_string(), "fail");
  const auto& mismatch = result.at("mismatches").at(0);
  EXPECT_EQ(mismatch.at("path").as_string(), "nodes.n2.total");
  EXPECT_EQ(mismatch.at("expected").to_number<int64_t>(), 99);
  EXPECT_TRUE(mismatch.at("present").as_bool());
}

}  // namespace
}  // namespace sh::test_command_test

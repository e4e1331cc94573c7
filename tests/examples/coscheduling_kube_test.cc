// examples/coscheduling under `schedhost run --kubeconfig`, as an operator runs it beside a
// cluster that has the PodGroup CRD: the test API server serves PodGroups as a custom resource,
// the example's profile.toml comes from a profile directory and its plugin from a second
// --plugin-dir. A gang binds whole and its PodGroup's status is patched through the API; a gang
// that cannot complete binds nothing until a node is added; a member waits for its PodGroup.
// Every test ends by checking the cluster's invariants.
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::coscheduling_kube_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr auto kDeadline = 60s;
constexpr char kGroupLabel[] = "scheduling.x-k8s.io/pod-group";

FakeApiServer::CustomResource podGroupResource() {
  FakeApiServer::CustomResource r;
  r.group = "scheduling.x-k8s.io";
  r.version = "v1alpha1";
  r.resource = "podgroups";
  r.kind = "PodGroup";
  return r;
}

json::object podGroup(const std::string& name, int minMember, int timeoutSeconds) {
  return json::object{
      {"apiVersion", "scheduling.x-k8s.io/v1alpha1"},
      {"kind", "PodGroup"},
      {"metadata", {{"name", name}, {"namespace", "default"}}},
      {"spec", {{"minMember", minMember}, {"scheduleTimeoutSeconds", timeoutSeconds}}}};
}

json::object member(const std::string& name, const std::string& group, const std::string& cpu) {
  json::object p = podJson("default", name, cpu);
  p["metadata"].as_object()["labels"] = json::object{{kGroupLabel, group}};
  return p;
}

class CoschedulingKubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial("schedhost");
    FakeApiServer::Options o;
    o.tls = tls_;
    o.tokens = {"token-a"};
    server_ = std::make_unique<FakeApiServer>(o);
    server_->addCustomResource(podGroupResource());
    server_->start();
    // The example's directory as the profile directory: its profile.toml is the one *.toml.
    std::ofstream out(dir_.path() / "schedhost.toml");
    out << "parallelism = 2\npodInitialBackoffSeconds = 1\npodMaxBackoffSeconds = 1\n"
        << "profileDirs = [\"" << SCHEDHOST_EXAMPLE_SOURCE_DIR << "\"]\n"
        << "[reload]\nwatch = false\n";
  }

  void TearDown() override {
    const std::vector<std::string> problems = invariantViolations(*server_);
    EXPECT_TRUE(problems.empty()) << problems.front();
  }

  std::unique_ptr<SchedhostProcess> start() {
    const auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
    const std::vector<std::string> args = {"run",
                                           "--config",
                                           (dir_.path() / "schedhost.toml").string(),
                                           "--kubeconfig",
                                           kubeconfig.string(),
                                           "--plugin-dir",
                                           SCHEDHOST_PLUGIN_DIR,
                                           "--plugin-dir",
                                           SCHEDHOST_EXAMPLE_PLUGIN_DIR,
                                           "--seed",
                                           "1",
                                           "--leader-elect=false",
                                           "--secure-port=0"};
    auto p = std::make_unique<SchedhostProcess>(SCHEDHOST_BIN, args, dir_.path(), "schedhost");
    EXPECT_TRUE(p->started());
    return p;
  }

  std::string nodeOf(const std::string& pod) const {
    auto p = server_->get("pods", "default", pod);
    return p ? stringAt(*p, {"spec", "nodeName"}) : "";
  }

  bool anyBound(const std::vector<std::string>& pods) const {
    for (const std::string& p : pods) {
      if (!nodeOf(p).empty()) {
        return true;
      }
    }
    return false;
  }

  bool allBound(const std::vector<std::string>& pods) const {
    for (const std::string& p : pods) {
      if (nodeOf(p).empty()) {
        return false;
      }
    }
    return true;
  }

  // PodGroup default/<name>'s status, or null.
  json::value groupStatus(const std::string& name) const {
    auto g = server_->get("podgroups", "default", name);
    const json::value* s = g ? g->if_contains("status") : nullptr;
    return s != nullptr ? *s : json::value();
  }

  std::set<std::string> nodesOf(const std::vector<std::string>& pods) const {
    std::set<std::string> out;
    for (const std::string& p : pods) {
      out.insert(nodeOf(p));
    }
    return out;
  }

  TempDir dir_;
  TlsMaterial tls_;
  std::unique_ptr<FakeApiServer> server_;
};

TEST_F(CoschedulingKubeTest, ACompleteGangBindsAndItsPodGroupStatusIsPatched) {
  // Three nodes of 2 cpu, three members of 1500m: one member per node.
  for (const char* n : {"n1", "n2", "n3"}) {
    server_->create("nodes", nodeJson(n, "2"));
  }
  server_->create("podgroups", podGroup("train", 3, 10));
  const std::vector<std::string> members = {"train-0", "train-1", "train-2"};
  for (const std::string& m : members) {
    server_->create("pods", member(m, "train", "1500m"));
  }
  auto run = start();
  ASSERT_TRUE(eventually([&] { return allBound(members); }, kDeadline)) << run->err();
  EXPECT_EQ(nodesOf(members), (std::set<std::string>{"n1", "n2", "n3"}));
  // PostBind's merge patch of the status went through the API: three bound of minMember 3.
  ASSERT_TRUE(eventually(
      [&] {
        json::value s = groupStatus("train");
        return s.is_object() && s.as_object().if_contains("scheduled") != nullptr &&
               s.at("scheduled") == 3;
      },
      kDeadline))
      << run->err();
  EXPECT_EQ(groupStatus("train").at("phase"), "Scheduled");
  bool patched = false;
  for (const auto& r : server_->requests()) {
    patched = patched || (r.apiGroup == "scheduling.x-k8s.io" && r.verb == "patch");
  }
  EXPECT_TRUE(patched);
}

TEST_F(CoschedulingKubeTest, AGangThatCannotCompleteBindsNothingUntilANodeIsAdded) {
  // Two nodes of 2 cpu hold two members of 1500m; the third fits nowhere.
  server_->create("nodes", nodeJson("n1", "2"));
  server_->create("nodes", nodeJson("n2", "2"));
  server_->create("podgroups", podGroup("train", 3, 1));
  const std::vector<std::string> members = {"train-0", "train-1", "train-2"};
  for (const std::string& m : members) {
    server_->create("pods", member(m, "train", "1500m"));
  }
  auto run = start();
  // Sampled over three of the group's 1 s timeouts: the two that fit wait on Permit and are
  // turned away with the group, never bound.
  const auto until = std::chrono::steady_clock::now() + 4s;
  bool bound = false;
  while (std::chrono::steady_clock::now() < until) {
    bound = bound || anyBound(members);
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_FALSE(bound);
  EXPECT_EQ(server_->bindCounts().size(), 0u);

  // The third node arrives through the watch; its Add wakes the group, which binds whole.
  server_->create("nodes", nodeJson("n3", "2"));
  ASSERT_TRUE(eventually([&] { return allBound(members); }, kDeadline)) << run->err();
  EXPECT_EQ(nodesOf(members), (std::set<std::string>{"n1", "n2", "n3"}));
}

TEST_F(CoschedulingKubeTest, AMemberWaitsForItsPodGroupAndBindsOnceItIsCreated) {
  server_->create("nodes", nodeJson("n1", "2"));
  server_->create("pods", member("solo-0", "solo", "500m"));
  auto run = start();
  // PreEnqueue holds it while the PodGroup does not exist: never bound, never bind-requested.
  std::this_thread::sleep_for(2s);
  EXPECT_EQ(nodeOf("solo-0"), "");
  EXPECT_EQ(server_->bindCounts().size(), 0u);
  // The PodGroup's Add, delivered by the custom resource's watch, brings it back.
  server_->create("podgroups", podGroup("solo", 1, 10));
  ASSERT_TRUE(eventually([&] { return nodeOf("solo-0") == "n1"; }, kDeadline)) << run->err();
  ASSERT_TRUE(eventually([&] { return groupStatus("solo").is_object(); }, kDeadline));
  // One bound of minMember 1: Scheduled, 1.
  EXPECT_EQ(groupStatus("solo").at("phase"), "Scheduled");
  EXPECT_EQ(groupStatus("solo").at("scheduled"), 1);
}

}  // namespace
}  // namespace sh::kubetest::coscheduling_kube_test

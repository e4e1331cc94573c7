// `schedhost run --kubeconfig` with HTTP extenders (docs/extenders.md), as an operator runs it:
// the extender is a loopback web service that answers filter, prioritize and bind, and binds
// through the (test) API server itself; a second configuration points at an extender that is
// down. Decisions must follow the extender, and a dead one must fail only the pods it is
// interested in while the others are scheduled.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/https_responder.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::run_extender_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr auto kDeadline = 60s;

class RunExtenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial("schedhost");
    FakeApiServer::Options o;
    o.tls = tls_;
    server_ = std::make_unique<FakeApiServer>(o);
    server_->start();
  }

  std::unique_ptr<SchedhostProcess> run(const std::string& extenders) {
    {
      std::ofstream out(dir_.path() / "schedhost.toml", std::ios::trunc);
      out << "parallelism = 2\npodInitialBackoffSeconds = 1\npodMaxBackoffSeconds = 1\n"
             "[reload]\nwatch = false\n"
          << extenders << "[[profiles]]\nschedulerName = \"default-scheduler\"\n";
    }
    auto kubeconfig = writeKubeconfig(dir_.path(), server_->url(), tls_);
    auto p = std::make_unique<SchedhostProcess>(
        SCHEDHOST_BIN,
        std::vector<std::string>{"run", "--config", (dir_.path() / "schedhost.toml").string(),
                                 "--kubeconfig", kubeconfig.string(), "--plugin-dir",
                                 SCHEDHOST_PLUGIN_DIR, "--seed", "1", "--secure-port=0",
                                 "--leader-elect=false"},
        dir_.path(), "schedhost");
    EXPECT_TRUE(p->started());
    return p;
  }

  std::string nodeOf(const std::string& pod) {
    auto p = server_->get("pods", "default", pod);
    return p ? stringAt(*p, {"spec", "nodeName"}) : std::string();
  }

  TempDir dir_;
  TlsMaterial tls_;
  std::unique_ptr<FakeApiServer> server_;
};

TEST_F(RunExtenderTest, TheExtenderFiltersScoresAndBindsEachPodWithOneCallPerVerb) {
  for (int i = 0; i < 3; ++i) {
    server_->create("nodes", nodeJson("node-" + std::to_string(i), "2"));
  }
  for (int i = 0; i < 3; ++i) {
    server_->create("pods", podJson("default", "p" + std::to_string(i), "100m"));
  }
  std::mutex mu;
  std::vector<std::string> calls;  // "filter p0 node-0,node-1,node-2"
  FakeApiServer& api = *server_;
  HttpsResponder extender({.tls = false}, [&](const RecordedRequest& r) {
    const json::value body = json::parse(r.body);
    const json::object& args = body.as_object();
    const std::string verb = r.target.substr(r.target.rfind('/') + 1);
    if (verb == "bind") {
      // The extender binds through the API server, as a real one does.
      auto pod = api.get("pods", std::string(args.at("PodNamespace").as_string()),
                         std::string(args.at("PodName").as_string()));
      if (!pod) {
        return Reply{200, R"({"Error":"no such pod"})"};
      }
      (*pod)["spec"].as_object()["nodeName"] = args.at("Node");
      api.update("pods", *pod);
      std::lock_guard<std::mutex> lock(mu);
      calls.push_back("bind " + std::string(args.at("PodName").as_string()) + " " +
                      std::string(args.at("Node").as_string()));
      return Reply{200, R"({"Error":""})"};
    }
    std::string names;
    for (const json::value& n : args.at("NodeNames").as_array()) {
      names += (names.empty() ? "" : ",") + std::string(n.as_string());
    }
    const std::string pod(args.at("Pod").at("metadata").at("name").as_string());
    {
      std::lock_guard<std::mutex> lock(mu);
      calls.push_back(verb + " " + pod + " " + names);
    }
    if (verb == "filter") {
      // node-0 fails; the others pass.
      json::array passed;
      for (const json::value& n : args.at("NodeNames").as_array()) {
        if (n.as_string() != "node-0") {
          passed.push_back(n);
        }
      }
      json::object result{{"NodeNames", passed},
                          {"FailedNodes", json::object{{"node-0", "node-0 is reserved"}}},
                          {"Error", ""}};
      return Reply{200, json::serialize(result)};
    }
    // prioritize: node-2 gets 10 (× weight 5 × 10 = 500 more than node-1).
    return Reply{200, R"([{"Host":"node-1","Score":0},{"Host":"node-2","Score":10}])"};
  });
  auto proc = run("[[extenders]]\nurlPrefix = \"" + extender.url() +
                  "/scheduler/\"\nfilterVerb = \"filter\"\nprioritizeVerb = \"prioritize\"\n"
                  "weight = 5\nbindVerb = \"bind\"\nnodeCacheCapable = true\n");
  ASSERT_TRUE(eventually(
      [&] {
        return nodeOf("p0") == "node-2" && nodeOf("p1") == "node-2" && nodeOf("p2") == "node-2";
      },
      kDeadline))
      << proc->err();
  // The scheduler wrote no binding itself: the extender did.
  for (const auto& r : server_->requests()) {
    EXPECT_FALSE(r.verb == "create" && r.resource == "pods/binding") << r.path;
  }
  std::lock_guard<std::mutex> lock(mu);
  std::multiset<std::string> seen(calls.begin(), calls.end());
  for (const char* pod : {"p0", "p1", "p2"}) {
    const std::string p(pod);
    EXPECT_EQ(seen.count("filter " + p + " node-0,node-1,node-2") +
                  seen.count("filter " + p + " node-1,node-2,node-0") +
                  seen.count("filter " + p + " node-2,node-0,node-1"),
              1u)
        << "one filter call with every node for " << p;
    EXPECT_EQ(seen.count("bind " + p + " node-2"), 1u);
  }
  proc->signal(SIGTERM);
  EXPECT_EQ(proc->waitExit(30s), 0) << proc->err();
}

TEST_F(RunExtenderTest, ADeadExtenderFailsOnlyThePodsItManagesAndSchedulingGoesOn) {
  server_->create("nodes", nodeJson("node-0", "4"));
  server_->create("pods", podJson("default", "plain-0", "100m"));
  json::object gpu = podJson("default", "gpu", "100m");
  gpu["spec"]
      .as_object()["containers"]
      .as_array()[0]
      .as_object()["resources"]
      .as_object()["requests"]
      .as_object()["example.com/gpu"] = "1";
  server_->create("pods", gpu);
  // A port nothing listens on any more.
  const int port = [] {
    HttpsResponder gone({.tls = false}, [](const RecordedRequest&) { return Reply{}; });
    return gone.port();
  }();
  // ignoredByScheduler: NodeResourcesFit leaves example.com/gpu to the extender, so the pod
  // reaches it (the node has none of it).
  auto proc = run("[[extenders]]\nurlPrefix = \"http://127.0.0.1:" + std::to_string(port) +
                  "/scheduler\"\nfilterVerb = \"filter\"\nhttpTimeout = \"500ms\"\n"
                  "managedResources = [{ name = \"example.com/gpu\", ignoredByScheduler = true "
                  "}]\n");
  ASSERT_TRUE(eventually([&] { return nodeOf("plain-0") == "node-0"; }, kDeadline)) << proc->err();
  std::string message;
  ASSERT_TRUE(eventually(
      [&] {
        auto pod = server_->get("pods", "default", "gpu");
        if (!pod) {
          return false;
        }
        const json::value* conditions =
            pod->if_contains("status") != nullptr
                ? pod->at("status").as_object().if_contains("conditions")
                : nullptr;
        if (conditions == nullptr) {
          return false;
        }
        for (const json::value& c : conditions->as_array()) {
          if (stringAt(c.as_object(), {"type"}) == "PodScheduled" &&
              stringAt(c.as_object(), {"reason"}) == "SchedulerError") {
            message = stringAt(c.as_object(), {"message"});
            return true;
          }
        }
        return false;
      },
      kDeadline))
      << proc->err();
  EXPECT_NE(message.find("extender http://127.0.0.1:" + std::to_string(port) + "/scheduler"),
            std::string::npos)
      << message;
  // Still scheduling: a pod created now is bound while the gpu pod keeps failing.
  server_->create("pods", podJson("default", "plain-1", "100m"));
  ASSERT_TRUE(eventually([&] { return nodeOf("plain-1") == "node-0"; }, kDeadline)) << proc->err();
  EXPECT_EQ(nodeOf("gpu"), "");
  proc->signal(SIGTERM);
  EXPECT_EQ(proc->waitExit(30s), 0) << proc->err();
}

}  // namespace
}  // namespace sh::kubetest::run_extender_test

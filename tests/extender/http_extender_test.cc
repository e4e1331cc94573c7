// HttpExtender (host/extender/http_extender.h) against a loopback HTTP/HTTPS responder
// (tests/kube/support/https_responder.h): what it posts where, how it reads the answers, the
// failures it reports (upstream pkg/scheduler/extender.go and its extender_test.go), and TLS
// as upstream's makeTransport sets it up.
#include "host/extender/http_extender.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "host/connectors/kube/rest_config.h"
#include "host/extender/extender_messages.h"
#include "host/model/node.h"
#include "host/model/pod.h"
#include "tests/extender/extender_objects.h"
#include "tests/kube/support/https_responder.h"
#include "tests/kube/support/test_certs.h"

namespace sh::extender::http_extender_test {
namespace {

namespace json = boost::json;
using kubetest::HttpsResponder;
using kubetest::RecordedRequest;
using kubetest::Reply;
using kubetest::TlsMaterial;
using std::chrono::milliseconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::makeNode;
using testing::makePod;
using ::testing::Pair;
using testing::parse;

const TlsMaterial& material() {
  static const TlsMaterial kMaterial = kubetest::makeTlsMaterial();
  return kMaterial;
}

HttpsResponder::Options plainServer() {
  HttpsResponder::Options options;
  options.tls = false;
  return options;
}

HttpsResponder::Options tlsServer() {
  HttpsResponder::Options options;
  options.material = material();
  return options;
}

// A handler that answers every request with `body` and `status`.
HttpsResponder::Handler answering(std::string body, int status = 200) {
  return [body = std::move(body), status](const RecordedRequest&) {
    Reply reply;
    reply.status = status;
    reply.body = body;
    return reply;
  };
}

config::ExtenderConfig configFor(const std::string& urlPrefix) {
  config::ExtenderConfig config;
  config.urlPrefix = urlPrefix;
  config.filterVerb = "filter";
  config.prioritizeVerb = "prioritize";
  config.bindVerb = "bind";
  config.preemptVerb = "preempt";
  config.weight = 3;
  return config;
}

std::shared_ptr<HttpExtender> makeExtender(const config::ExtenderConfig& config) {
  std::string error;
  auto extender = HttpExtender::create(config, error);
  EXPECT_NE(extender, nullptr) << error;
  return extender;
}

std::string createError(const config::ExtenderConfig& config) {
  std::string error;
  auto extender = HttpExtender::create(config, error);
  EXPECT_EQ(extender, nullptr) << config.urlPrefix;
  return error;
}

std::shared_ptr<const model::Pod> podFromJson(const std::string& text) {
  std::string error;
  auto pod = model::parsePodJson(text, error);
  EXPECT_NE(pod, nullptr) << error;
  return pod;
}

// A port nothing listens on: a responder's, after it stopped.
int closedPort() {
  HttpsResponder server(plainServer(), answering("{}"));
  const int port = server.port();
  server.stop();
  return port;
}

using HttpExtenderTest = testing::ExtenderObjectsTest;

// --- filter ---

TEST_F(HttpExtenderTest, FilterPostsTheArgsToThePrefixAndVerb) {
  HttpsResponder server(
      plainServer(),
      answering(R"({"Nodes":{"items":[{"metadata":{"name":"b"}}]},"FailedNodes":{"a":"no GPU"},)"
                R"("FailedAndUnresolvableNodes":{},"Error":""})"));
  auto extender = makeExtender(configFor(server.url() + "/scheduler"));
  ASSERT_NE(extender, nullptr);
  cycle::ExtenderFilterResult result;
  Status s = extender->filter(*pod_, nodes_, result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_THAT(result.nodes, ElementsAre("b"));
  EXPECT_THAT(result.failedNodes, ElementsAre(Pair("a", "no GPU")));
  EXPECT_THAT(result.failedAndUnresolvableNodes, IsEmpty());

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/scheduler/filter");
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  json::value body = parse(requests[0].body);
  EXPECT_EQ(body, parse(encodeArgs(*pod_, nodes_, false)));
  EXPECT_EQ(body.at("Pod").at("metadata").at("name"), "web");
  ASSERT_EQ(body.at("Nodes").at("items").as_array().size(), 2u);
  EXPECT_TRUE(body.at("NodeNames").is_null());
}

TEST_F(HttpExtenderTest, FilterSendsNodeNamesWhenNodeCacheCapable) {
  HttpsResponder server(plainServer(), answering(R"({"NodeNames":["a"]})"));
  auto config = configFor(server.url() + "/x");
  config.nodeCacheCapable = true;
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  cycle::ExtenderFilterResult result;
  Status s = extender->filter(*pod_, nodes_, result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_THAT(result.nodes, ElementsAre("a"));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  json::value body = parse(requests[0].body);
  EXPECT_EQ(body.at("NodeNames"), parse(R"(["a","b"])"));
  EXPECT_TRUE(body.at("Nodes").is_null());
}

TEST_F(HttpExtenderTest, FilterTrimsTheTrailingSlashesOfTheUrlPrefix) {
  HttpsResponder server(plainServer(), answering(R"({"NodeNames":["a","b"]})"));
  for (const char* suffix : {"/scheduler/", "/scheduler//"}) {
    auto extender = makeExtender(configFor(server.url() + suffix));
    ASSERT_NE(extender, nullptr);
    cycle::ExtenderFilterResult result;
    Status s = extender->filter(*pod_, nodes_, result);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  for (const char* suffix : {"", "/"}) {
    auto extender = makeExtender(configFor(server.url() + suffix));
    ASSERT_NE(extender, nullptr);
    cycle::ExtenderFilterResult result;
    Status s = extender->filter(*pod_, nodes_, result);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].target, "/scheduler/filter");
  EXPECT_EQ(requests[1].target, "/scheduler/filter");
  EXPECT_EQ(requests[2].target, "/filter");
  EXPECT_EQ(requests[3].target, "/filter");
}

TEST_F(HttpExtenderTest, FilterAnswerOtherThan200IsAnErrorWithUpstreamsMessage) {
  for (int code : {500, 404, 201}) {
    HttpsResponder server(plainServer(), answering(R"({"NodeNames":["a"]})", code));
    auto extender = makeExtender(configFor(server.url() + "/scheduler/"));
    ASSERT_NE(extender, nullptr);
    cycle::ExtenderFilterResult result;
    Status s = extender->filter(*pod_, nodes_, result);
    EXPECT_EQ(s.code(), SH_ERROR);
    // upstream: the URL it posted to, the prefix's trailing '/' trimmed.
    EXPECT_EQ(s.message(), "failed filter with extender at URL " + server.url() +
                               "/scheduler/filter, code " + std::to_string(code));
  }
}

TEST_F(HttpExtenderTest, FilterSlowerThanTheTimeoutIsAnError) {
  HttpsResponder server(plainServer(), [](const RecordedRequest&) {
    Reply reply;
    reply.body = R"({"NodeNames":["a"]})";
    reply.delay = milliseconds(5000);
    return reply;
  });
  auto config = configFor(server.url());
  config.httpTimeout = milliseconds(300);
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  cycle::ExtenderFilterResult result;
  const auto start = std::chrono::steady_clock::now();
  Status s = extender->filter(*pod_, nodes_, result);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_THAT(s.message(), HasSubstr("extender " + server.url() + ": filter: "));
  EXPECT_THAT(s.message(), HasSubstr("timed out"));
  EXPECT_GE(took, milliseconds(250));
  EXPECT_LT(took, milliseconds(2500));  // about the timeout, not the server's 5 s
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpExtenderTest, FilterToAClosedPortIsAnError) {
  const std::string url = "http://127.0.0.1:" + std::to_string(closedPort());
  auto extender = makeExtender(configFor(url + "/sched"));
  ASSERT_NE(extender, nullptr);
  cycle::ExtenderFilterResult result;
  const auto start = std::chrono::steady_clock::now();
  Status s = extender->filter(*pod_, nodes_, result);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_THAT(s.message(), HasSubstr("extender " + url + "/sched: filter: "));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(4000));  // refused, not 5 s
}

TEST_F(HttpExtenderTest, FilterRefusesANodeItWasNotGiven) {
  {
    HttpsResponder server(plainServer(), answering(R"({"NodeNames":["a","c"]})"));
    auto config = configFor(server.url());
    config.nodeCacheCapable = true;
    auto extender = makeExtender(config);
    ASSERT_NE(extender, nullptr);
    cycle::ExtenderFilterResult result;
    Status s = extender->filter(*pod_, nodes_, result);
    EXPECT_EQ(s.code(), SH_ERROR);
    EXPECT_EQ(s.message(), "extender \"" + server.url() +
                               "\" claims a filtered node \"c\" which is not found in the input "
                               "node list");
  }
  {
    HttpsResponder server(plainServer(),
                          answering(R"({"Nodes":{"items":[{"metadata":{"name":"zz"}}]}})"));
    auto extender = makeExtender(configFor(server.url()));
    ASSERT_NE(extender, nullptr);
    cycle::ExtenderFilterResult result;
    Status s = extender->filter(*pod_, nodes_, result);
    EXPECT_EQ(s.code(), SH_ERROR);
    EXPECT_THAT(s.message(), HasSubstr("claims a filtered node \"zz\""));
  }
}

TEST_F(HttpExtenderTest, FilterReturnsTheExtendersError) {
  HttpsResponder server(plainServer(),
                        answering(R"({"NodeNames":["a"],"Error":"the GPU inventory is stale"})"));
  auto config = configFor(server.url());
  config.nodeCacheCapable = true;
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  cycle::ExtenderFilterResult result;
  Status s = extender->filter(*pod_, nodes_, result);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "the GPU inventory is stale");
}

TEST_F(HttpExtenderTest, FilterAnswerThatDoesNotDecodeIsAnError) {
  HttpsResponder server(plainServer(), answering(R"({"FailedNodes":["a"]})"));
  auto extender = makeExtender(configFor(server.url() + "/p"));
  ASSERT_NE(extender, nullptr);
  cycle::ExtenderFilterResult result;
  Status s = extender->filter(*pod_, nodes_, result);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(),
            "extender " + server.url() + "/p: filter: FailedNodes: expected an object of strings");
}

TEST_F(HttpExtenderTest, FilterWithoutAVerbPassesEveryNodeWithoutAsking) {
  HttpsResponder server(plainServer(), answering("{}"));
  auto config = configFor(server.url());
  config.filterVerb.clear();
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  EXPECT_FALSE(extender->isFilter());
  cycle::ExtenderFilterResult result;
  Status s = extender->filter(*pod_, nodes_, result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_THAT(result.nodes, ElementsAre("a", "b"));
  EXPECT_TRUE(server.requests().empty());
}

// --- prioritize ---

TEST_F(HttpExtenderTest, PrioritizeReturnsTheScores) {
  HttpsResponder server(plainServer(),
                        answering(R"([{"Host":"a","Score":2},{"Host":"b","Score":10}])"));
  auto extender = makeExtender(configFor(server.url() + "/sched"));
  ASSERT_NE(extender, nullptr);
  std::vector<cycle::HostPriority> scores;
  Status s = extender->prioritize(*pod_, nodes_, scores);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].host, "a");
  EXPECT_EQ(scores[0].score, 2);
  EXPECT_EQ(scores[1].host, "b");
  EXPECT_EQ(scores[1].score, 10);
  EXPECT_EQ(extender->weight(), 3);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/sched/prioritize");
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  EXPECT_EQ(parse(requests[0].body), parse(encodeArgs(*pod_, nodes_, false)));
}

TEST_F(HttpExtenderTest, PrioritizeAnswerThatDoesNotDecodeGivesAnErrorAndNoScores) {
  HttpsResponder server(plainServer(), answering(R"([{"Host":"a","Score":2},{"Host":"b",)"
                                                 R"("Score":"high"}])"));
  auto extender = makeExtender(configFor(server.url()));
  ASSERT_NE(extender, nullptr);
  std::vector<cycle::HostPriority> scores;
  Status s = extender->prioritize(*pod_, nodes_, scores);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_THAT(s.message(), HasSubstr("prioritize: Score of \"b\": expected an integer"));
  EXPECT_TRUE(scores.empty());
}

TEST_F(HttpExtenderTest, PrioritizeWithoutAVerbScoresEveryNodeZeroWithoutAsking) {
  HttpsResponder server(plainServer(), answering("[]"));
  auto config = configFor(server.url());
  config.prioritizeVerb.clear();
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  std::vector<cycle::HostPriority> scores;
  ASSERT_TRUE(extender->prioritize(*pod_, nodes_, scores).ok());
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0].host, "a");
  EXPECT_EQ(scores[0].score, 0);
  EXPECT_EQ(scores[1].host, "b");
  EXPECT_TRUE(server.requests().empty());
}

// --- bind ---

TEST_F(HttpExtenderTest, BindPostsThePodAndTheNode) {
  HttpsResponder server(plainServer(), answering(R"({"Error":""})"));
  auto extender = makeExtender(configFor(server.url() + "/sched"));
  ASSERT_NE(extender, nullptr);
  Status s = extender->bind(*pod_, "b");
  ASSERT_TRUE(s.ok()) << s.message();
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/sched/bind");
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  EXPECT_EQ(parse(requests[0].body),
            parse(R"({"PodName":"web","PodNamespace":"team","PodUID":"uid-web","Node":"b"})"));
}

TEST_F(HttpExtenderTest, BindReturnsTheExtendersError) {
  HttpsResponder server(plainServer(), answering(R"({"Error":"node b refused the pod"})"));
  auto extender = makeExtender(configFor(server.url()));
  ASSERT_NE(extender, nullptr);
  Status s = extender->bind(*pod_, "b");
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "node b refused the pod");
}

TEST_F(HttpExtenderTest, BindWithoutAVerbIsAnError) {
  auto config = configFor("http://127.0.0.1:1");
  config.bindVerb.clear();
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  EXPECT_FALSE(extender->isBinder());
  Status s = extender->bind(*pod_, "a");
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(), "unexpected empty bindVerb in extender");
}

// --- processPreemption ---

class HttpExtenderPreemptionTest : public HttpExtenderTest {
 protected:
  HttpExtenderPreemptionTest() {
    victims_["a"].pods = {v1_.get(), v2_.get()};
    victims_["a"].numPdbViolations = 1;
    victims_["b"].pods = {v3_.get()};
  }

  // The pods of the snapshot by (node, uid), as the cycle's PodOnNode finds them.
  cycle::PodOnNode podOnNode() {
    return [this](const std::string& node, const std::string& uid) -> const model::Pod* {
      std::lock_guard<std::mutex> lock(mutex_);
      asked_.emplace_back(node, uid);
      const std::map<std::pair<std::string, std::string>, const model::Pod*> onNodes = {
          {{"a", "uid-v1"}, v1_.get()}, {{"a", "uid-v2"}, v2_.get()}, {{"b", "uid-v3"}, v3_.get()}};
      auto it = onNodes.find({node, uid});
      return it == onNodes.end() ? nullptr : it->second;
    };
  }

  std::shared_ptr<const model::Pod> v1_ = makePod("v1", "uid-v1");
  std::shared_ptr<const model::Pod> v2_ = makePod("v2", "uid-v2");
  std::shared_ptr<const model::Pod> v3_ = makePod("v3", "uid-v3");
  cycle::NodeVictims victims_;
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> asked_;
};

TEST_F(HttpExtenderPreemptionTest, ProcessPreemptionMapsUidsBackToPods) {
  HttpsResponder server(
      plainServer(),
      answering(R"({"NodeNameToMetaVictims":{"a":{"Pods":[{"UID":"uid-v2"}],"NumPDBViolations":4},)"
                R"("b":{"Pods":[],"NumPDBViolations":0}}})"));
  auto config = configFor(server.url() + "/sched");
  config.nodeCacheCapable = true;
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  EXPECT_TRUE(extender->supportsPreemption());
  cycle::NodeVictims out;
  Status s = extender->processPreemption(*pod_, victims_, podOnNode(), out);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out["a"].pods, ElementsAre(v2_.get()));
  EXPECT_EQ(out["a"].numPdbViolations, 4);
  EXPECT_THAT(out["b"].pods, IsEmpty());
  EXPECT_THAT(asked_, ElementsAre(Pair("a", "uid-v2")));

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/sched/preempt");
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  json::value body = parse(requests[0].body);
  EXPECT_EQ(body.at("Pod").at("metadata").at("uid"), "uid-web");
  EXPECT_TRUE(body.at("NodeNameToVictims").is_null());
  EXPECT_EQ(body.at("NodeNameToMetaVictims"),
            parse(R"({"a":{"Pods":[{"UID":"uid-v1"},{"UID":"uid-v2"}],"NumPDBViolations":1},)"
                  R"("b":{"Pods":[{"UID":"uid-v3"}],"NumPDBViolations":0}})"));
}

TEST_F(HttpExtenderPreemptionTest, ProcessPreemptionSendsWholeVictimsWhenNotNodeCacheCapable) {
  HttpsResponder server(plainServer(), answering(R"({"NodeNameToMetaVictims":{"b":{"Pods":)"
                                                 R"([{"UID":"uid-v3"}]}}})"));
  auto extender = makeExtender(configFor(server.url()));
  ASSERT_NE(extender, nullptr);
  cycle::NodeVictims out;
  Status s = extender->processPreemption(*pod_, victims_, podOnNode(), out);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_THAT(out["b"].pods, ElementsAre(v3_.get()));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  json::value body = parse(requests[0].body);
  EXPECT_TRUE(body.at("NodeNameToMetaVictims").is_null());
  EXPECT_EQ(body.at("NodeNameToVictims").at("a").at("Pods"),
            json::array({parse(v1_->json()), parse(v2_->json())}));
}

TEST_F(HttpExtenderPreemptionTest, ProcessPreemptionErrsOnAUidNotOnThatNode) {
  for (std::string answer : {R"({"NodeNameToMetaVictims":{"a":{"Pods":[{"UID":"ghost"}]}}})",
                             R"({"NodeNameToMetaVictims":{"a":{"Pods":[{"UID":"uid-v3"}]}}})"}) {
    HttpsResponder server(plainServer(), answering(answer));
    auto extender = makeExtender(configFor(server.url()));
    ASSERT_NE(extender, nullptr);
    cycle::NodeVictims out;
    Status s = extender->processPreemption(*pod_, victims_, podOnNode(), out);
    EXPECT_EQ(s.code(), SH_ERROR) << answer;
    const std::string uid = answer.find("ghost") != std::string::npos ? "ghost" : "uid-v3";
    EXPECT_EQ(s.message(), "extender: " + server.url() + " claims to preempt pod (UID: " + uid +
                               ") on node: a, but the pod is not found on that node");
  }
}

TEST_F(HttpExtenderPreemptionTest, ProcessPreemptionAnswerThatDoesNotDecodeIsAnError) {
  HttpsResponder server(plainServer(), answering(R"({"NodeNameToMetaVictims":["a"]})"));
  auto extender = makeExtender(configFor(server.url()));
  ASSERT_NE(extender, nullptr);
  cycle::NodeVictims out;
  Status s = extender->processPreemption(*pod_, victims_, podOnNode(), out);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_THAT(s.message(), HasSubstr("preempt: NodeNameToMetaVictims: expected an object"));
}

TEST_F(HttpExtenderPreemptionTest, ProcessPreemptionWithoutAVerbIsAnError) {
  auto config = configFor("http://127.0.0.1:1");
  config.preemptVerb.clear();
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  EXPECT_FALSE(extender->supportsPreemption());
  cycle::NodeVictims out;
  Status s = extender->processPreemption(*pod_, victims_, podOnNode(), out);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_EQ(s.message(),
            "preempt verb is not defined for extender http://127.0.0.1:1 but run "
            "into ProcessPreemption");
}

// --- the configuration: accessors, isInterested, create() ---

TEST(HttpExtenderConfigTest, AccessorsFollowTheConfiguration) {
  auto config = configFor("http://127.0.0.1:1/x");
  config.ignorable = true;
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  EXPECT_EQ(extender->name(), "http://127.0.0.1:1/x");
  EXPECT_TRUE(extender->isFilter());
  EXPECT_TRUE(extender->isPrioritizer());
  EXPECT_TRUE(extender->isBinder());
  EXPECT_TRUE(extender->supportsPreemption());
  EXPECT_TRUE(extender->isIgnorable());
  EXPECT_EQ(extender->weight(), 3);

  config = configFor("http://127.0.0.1:1/x");
  config.filterVerb.clear();
  config.prioritizeVerb.clear();
  extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  EXPECT_FALSE(extender->isFilter());
  EXPECT_FALSE(extender->isPrioritizer());
  EXPECT_FALSE(extender->isIgnorable());
}

TEST(HttpExtenderConfigTest, IsInterestedInPodsThatRequestOrLimitAManagedResource) {
  auto config = configFor("http://127.0.0.1:1");
  config.managedResources = {{"example.com/gpu", false}, {"example.com/fpga", true}};
  auto extender = makeExtender(config);
  ASSERT_NE(extender, nullptr);
  auto withContainers = [](const std::string& containers) {
    return podFromJson(R"({"metadata":{"name":"p","uid":"u"},"spec":)" + containers + "}");
  };
  auto requests = withContainers(
      R"({"containers":[{"name":"x","resources":{"requests":{"cpu":"1"}}},)"
      R"({"name":"y","resources":{"requests":{"cpu":"1","example.com/gpu":"1"}}}]})");
  auto limits = withContainers(
      R"({"containers":[{"name":"x","resources":{"limits":{"example.com/fpga":"2"}}}]})");
  auto init = withContainers(
      R"({"initContainers":[{"name":"i","resources":{"requests":{"example.com/gpu":"1"}}}],)"
      R"("containers":[{"name":"x"}]})");
  auto other = withContainers(
      R"({"initContainers":[{"name":"i","resources":{"limits":{"example.com/tpu":"1"}}}],)"
      R"("containers":[{"name":"x","resources":{"requests":{"cpu":"1","memory":"1Gi"},)"
      R"("limits":{"example.com/gpus":"1"}}}]})");
  auto none = withContainers(R"({"containers":[{"name":"x"}]})");
  EXPECT_TRUE(extender->isInterested(*requests));
  EXPECT_TRUE(extender->isInterested(*limits));
  EXPECT_TRUE(extender->isInterested(*init));
  EXPECT_FALSE(extender->isInterested(*other));
  EXPECT_FALSE(extender->isInterested(*none));
}

TEST(HttpExtenderConfigTest, IsInterestedInEveryPodWithoutManagedResources) {
  auto extender = makeExtender(configFor("http://127.0.0.1:1"));
  ASSERT_NE(extender, nullptr);
  auto pod = makePod("p", "u");
  EXPECT_TRUE(extender->isInterested(*pod));
}

TEST(HttpExtenderConfigTest, CreateRefusesAUrlThatIsNotHttp) {
  for (const std::string url :
       {"", "127.0.0.1:8888/sched", "ftp://127.0.0.1/sched", "unix:///run/x.sock", "http://",
        "https:///sched", "httpx://127.0.0.1/", "http://127.0.0.1/a b"}) {
    EXPECT_THAT(createError(configFor(url)), HasSubstr("urlPrefix \"" + url + "\"")) << url;
  }
}

TEST(HttpExtenderConfigTest, CreateRefusesTlsMaterialItCannotRead) {
  auto config = configFor("https://127.0.0.1:1");
  config.tls.caData = "not base64!";
  EXPECT_THAT(createError(config), HasSubstr("tlsConfig.caData"));
  config = configFor("https://127.0.0.1:1");
  config.tls.caFile = "/nonexistent/ca.pem";
  EXPECT_THAT(createError(config), HasSubstr("tlsConfig.caFile"));
  config = configFor("https://127.0.0.1:1");
  config.tls.certData = "%%%";
  EXPECT_THAT(createError(config), HasSubstr("tlsConfig.certData"));
}

// --- TLS ---

class HttpExtenderTlsTest : public HttpExtenderTest {
 protected:
  // One bind through an extender of `config` to `server`: the status.
  Status bindThrough(config::ExtenderConfig config) {
    auto extender = makeExtender(config);
    if (extender == nullptr) {
      return Status(SH_ERROR, "not created");
    }
    return extender->bind(*pod_, "a");
  }
};

TEST_F(HttpExtenderTlsTest, EnableHttpsWithoutACaDoesNotVerifyTheServer) {
  HttpsResponder server(tlsServer(), answering("{}"));
  auto config = configFor(server.url());
  config.enableHttps = true;
  Status s = bindThrough(config);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpExtenderTlsTest, InsecureDoesNotVerifyTheServer) {
  HttpsResponder server(tlsServer(), answering("{}"));
  auto config = configFor(server.url());
  config.tls.insecure = true;
  Status s = bindThrough(config);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(HttpExtenderTlsTest, HttpsWithoutEnableHttpsOrACaVerifiesAgainstTheSystemStore) {
  HttpsResponder server(tlsServer(), answering("{}"));
  Status s = bindThrough(configFor(server.url()));  // the test CA is in no system store
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_THAT(s.message(), HasSubstr("extender " + server.url() + ": bind: "));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HttpExtenderTlsTest, CaDataVerifiesTheServer) {
  HttpsResponder server(tlsServer(), answering("{}"));
  auto config = configFor(server.url());
  config.enableHttps = true;
  config.tls.caData = kube::encodeBase64(material().caCert);
  Status s = bindThrough(config);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpExtenderTlsTest, AWrongCaFails) {
  HttpsResponder server(tlsServer(), answering("{}"));
  auto config = configFor(server.url());
  config.enableHttps = true;  // with a CA: verified
  config.tls.caData = kube::encodeBase64(material().otherCaCert);
  Status s = bindThrough(config);
  EXPECT_EQ(s.code(), SH_ERROR);
  EXPECT_THAT(s.message(), HasSubstr("extender " + server.url() + ": bind: "));
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HttpExtenderTlsTest, CaFileVerifiesTheServer) {
  HttpsResponder server(tlsServer(), answering("{}"));
  char dir[] = "/tmp/extender_test_XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string good = std::string(dir) + "/ca.pem";
  const std::string wrong = std::string(dir) + "/other.pem";
  std::ofstream(good) << material().caCert;
  std::ofstream(wrong) << material().otherCaCert;
  auto config = configFor(server.url());
  config.tls.caFile = good;
  Status s = bindThrough(config);
  EXPECT_TRUE(s.ok()) << s.message();
  config.tls.caFile = wrong;
  EXPECT_EQ(bindThrough(config).code(), SH_ERROR);
  std::remove(good.c_str());
  std::remove(wrong.c_str());
  ::rmdir(dir);
}

TEST_F(HttpExtenderTlsTest, ServerNameIsWhatTheCertificateIsVerifiedFor) {
  HttpsResponder server(tlsServer(), answering("{}"));
  auto config = configFor(server.url());
  config.tls.caData = kube::encodeBase64(material().caCert);
  config.tls.serverName = "localhost";  // in the certificate's subjectAltNames
  Status s = bindThrough(config);
  EXPECT_TRUE(s.ok()) << s.message();
  config.tls.serverName = "elsewhere.example";
  EXPECT_EQ(bindThrough(config).code(), SH_ERROR);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(HttpExtenderTlsTest, PresentsTheClientCertificate) {
  auto options = tlsServer();
  options.requireClientCert = true;
  HttpsResponder server(options, answering("{}"));
  auto config = configFor(server.url());
  config.enableHttps = true;
  config.tls.caData = kube::encodeBase64(material().caCert);
  EXPECT_EQ(bindThrough(config).code(), SH_ERROR);  // none: refused
  config.tls.certData = kube::encodeBase64(material().clientCert);
  config.tls.keyData = kube::encodeBase64(material().clientKey);
  Status s = bindThrough(config);
  EXPECT_TRUE(s.ok()) << s.message();
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].clientCommonName, "schedhost");
}

}  // namespace
}  // namespace sh::extender::http_extender_test

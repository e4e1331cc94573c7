// The reflector against a scripted API: each list page and each watch is answered by the next
// step of a script, and every request is recorded.
#include "host/connectors/kube/reflector.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "host/connectors/kube/proto/transcode.h"

namespace sh::kube::reflector_test {
namespace {

using namespace std::chrono_literals;

class ScriptedApi final : public Transport {
 public:
  using ListStep = std::function<Response(const Request&)>;
  using WatchStep = std::function<Response(const Request&, const BodySink&, std::stop_token)>;

  void onList(ListStep step) {
    std::lock_guard<std::mutex> lock(mu_);
    lists_.push_back(std::move(step));
  }
  void onWatch(WatchStep step) {
    std::lock_guard<std::mutex> lock(mu_);
    watches_.push_back(std::move(step));
  }

  Response send(const Request& request) override {
    ListStep step;
    {
      std::lock_guard<std::mutex> lock(mu_);
      paths_.push_back(request.path);
      accepts_.push_back(request.accept);
      if (lists_.empty()) {
        return Response{500, R"({"kind":"Status","message":"no script"})", ""};
      }
      step = std::move(lists_.front());
      lists_.pop_front();
    }
    changed_.notify_all();
    return step(request);
  }

  Response stream(const Request& request, const BodySink& sink, std::stop_token stop) override {
    WatchStep step;
    {
      std::unique_lock<std::mutex> lock(mu_);
      paths_.push_back(request.path);
      accepts_.push_back(request.accept);
      changed_.notify_all();
      // No step left: an idle watch, open until stopped.
      changed_.wait(lock, stop, [this] { return !watches_.empty(); });
      if (watches_.empty()) {
        return Response{200, "", ""};
      }
      step = std::move(watches_.front());
      watches_.pop_front();
    }
    return step(request, sink, stop);
  }

  std::string server() const override { return "https://scripted"; }

  std::vector<std::string> paths() {
    std::lock_guard<std::mutex> lock(mu_);
    return paths_;
  }
  // The Accept header of each request, in order.
  std::vector<std::string> accepts() {
    std::lock_guard<std::mutex> lock(mu_);
    return accepts_;
  }
  // Waits until `n` requests were made.
  bool waitForRequests(std::size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, 5s, [&] { return paths_.size() >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable_any changed_;
  std::deque<ListStep> lists_;
  std::deque<WatchStep> watches_;
  std::vector<std::string> paths_;
  std::vector<std::string> accepts_;
};

class RecordingSink final : public ReflectorSink {
 public:
  void replace(const Resource&, std::vector<boost::json::value>&& items) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string names;
    for (const auto& i : items) {
      names += (names.empty() ? "" : ",") + std::string(i.at("metadata").at("name").as_string());
      EXPECT_EQ(i.at("kind"), "Pod");
      EXPECT_EQ(i.at("apiVersion"), "v1");
    }
    log_.push_back("replace " + names);
  }
  void apply(const Resource&, WatchEventType type, boost::json::value&& object,
             std::string_view text) override {
    std::lock_guard<std::mutex> lock(mu_);
    const char* t = type == WatchEventType::kAdded      ? "added "
                    : type == WatchEventType::kModified ? "modified "
                                                        : "deleted ";
    log_.push_back(t + std::string(object.at("metadata").at("name").as_string()));
    if (!text.empty()) {
      // The text is the object: parsed, it gives the same value.
      boost::system::error_code ec;
      EXPECT_EQ(boost::json::parse(text, ec), object) << text;
    }
    texts_.emplace_back(text);
  }
  void flush(const Resource&) override {
    std::lock_guard<std::mutex> lock(mu_);
    flushedAt_.push_back(log_.size());
  }
  std::vector<std::string> log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  // The text apply() was given with each event, in order.
  std::vector<std::string> texts() {
    std::lock_guard<std::mutex> lock(mu_);
    return texts_;
  }
  // For each flush(), how many entries the log had then.
  std::vector<std::size_t> flushedAt() {
    std::lock_guard<std::mutex> lock(mu_);
    return flushedAt_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> log_;
  std::vector<std::string> texts_;
  std::vector<std::size_t> flushedAt_;
};

std::string item(const std::string& name, const std::string& rv) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"ns","resourceVersion":")" + rv +
         R"("}})";
}

ScriptedApi::ListStep page(const std::string& rv, const std::string& cont,
                           const std::vector<std::string>& items) {
  return [=](const Request&) {
    std::string body = R"({"kind":"PodList","metadata":{"resourceVersion":")" + rv +
                       R"(","continue":")" + cont + R"("},"items":[)";
    for (std::size_t i = 0; i < items.size(); ++i) {
      body += (i > 0 ? "," : "") + items[i];
    }
    return Response{200, body + "]}", ""};
  };
}

ScriptedApi::ListStep status(int code) {
  return [=](const Request&) {
    return Response{code,
                    R"({"kind":"Status","reason":"Expired","code":)" + std::to_string(code) +
                        R"(,"message":"too old"})",
                    ""};
  };
}

std::string event(const std::string& type, const std::string& name, const std::string& rv) {
  return R"({"type":")" + type +
         R"(","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"ns","resourceVersion":")" + rv + R"("}}})" + "\n";
}

// A watch that sends `body` in pieces of 7 bytes, then ends as `end` says.
ScriptedApi::WatchStep watchSends(std::string body, Response end = Response{200, "", ""}) {
  return [body, end](const Request&, const BodySink& sink, std::stop_token) {
    for (std::size_t at = 0; at < body.size(); at += 7) {
      if (!sink(std::string_view(body).substr(at, 7))) {
        break;
      }
    }
    return end;
  };
}

Resource pods() {
  for (const Resource& r : watchedResources()) {
    if (r.kind == "Pod") {
      return r;
    }
  }
  return {};
}

Reflector::Options fastOptions() {
  Reflector::Options o;
  o.pageSize = 2;
  o.initialBackoff = 1ms;
  o.maxBackoff = 4ms;
  o.seed = 42;
  o.warn = [](const std::string&) {};
  return o;
}

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(ReflectorTest, ListsInPagesThenWatchesFromTheListVersion) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "tok1", {item("a", "3"), item("b", "4")}));
  api.onList(page("10", "", {item("c", "9")}));
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(3));
  EXPECT_TRUE(reflector.synced());
  reflector.stop();
  const auto paths = api.paths();
  const std::string selector =
      "fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed";
  EXPECT_EQ(paths[0], "/api/v1/pods?limit=2&resourceVersion=0&" + selector);
  EXPECT_EQ(paths[1], "/api/v1/pods?limit=2&continue=tok1&" + selector);
  EXPECT_EQ(paths[2].rfind("/api/v1/pods?watch=1&resourceVersion=10&allowWatchBookmarks=true"
                           "&timeoutSeconds=",
                           0),
            0u)
      << paths[2];
  // timeoutSeconds in [300, 600).
  const std::string timeout = paths[2].substr(paths[2].find("timeoutSeconds=") + 15, 3);
  EXPECT_GE(std::stoi(timeout), 300);
  EXPECT_LT(std::stoi(timeout), 600);
  EXPECT_EQ(sink.log(), std::vector<std::string>{"replace a,b,c"});
}

// A JSON document in protobuf, as an API server configured for it answers.
std::string protobufOf(const std::string& text, std::string_view apiVersion,
                       std::string_view kind) {
  std::string body;
  std::string error;
  EXPECT_TRUE(
      proto::encodeObject(boost::json::parse(text).as_object(), apiVersion, kind, body, error))
      << error;
  return body;
}

std::string protobufEvent(const std::string& type, const std::string& name, const std::string& rv) {
  const boost::json::value line = boost::json::parse(event(type, name, rv));
  return proto::encodeWatchFrame(
      type, protobufOf(boost::json::serialize(line.at("object")), "v1", "Pod"));
}

TEST(ReflectorTest, KindsWithASchemaAreListedAndWatchedInProtobufWhenConfigured) {
  ScriptedApi api;
  RecordingSink sink;
  constexpr std::string_view kAccept = "application/vnd.kubernetes.protobuf, */*";
  api.onList([](const Request&) {
    Response r{
        200,
        protobufOf(R"({"metadata":{"resourceVersion":"10"},"items":[)" + item("a", "3") + "]}",
                   "v1", "PodList"),
        ""};
    r.contentType = "application/vnd.kubernetes.protobuf";
    return r;
  });
  // Frames cut into pieces of 7 bytes; an expired ERROR (a protobuf Status) ends the watch.
  const std::string expired = proto::encodeWatchFrame(
      "ERROR", protobufOf(R"({"status":"Failure","reason":"Expired","code":410})", "v1", "Status"));
  api.onWatch(watchSends(protobufEvent("ADDED", "b", "11") + protobufEvent("MODIFIED", "a", "12") +
                         expired));
  // The relist is answered in JSON, as a server may answer whatever was asked.
  api.onList(page("20", "", {item("a", "12"), item("b", "11")}));
  Reflector::Options options = fastOptions();
  options.protobufAccept = std::string(kAccept);
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, options);
  reflector.start();
  ASSERT_TRUE(eventually([&] { return sink.log().size() >= 4; }));
  reflector.stop();
  EXPECT_EQ(sink.log(),
            (std::vector<std::string>{"replace a", "added b", "modified a", "replace a,b"}));
  for (const std::string& accept : api.accepts()) {
    EXPECT_EQ(accept, kAccept);
  }
  // No text comes with a protobuf event: the sink serialises the object if it needs one.
  EXPECT_EQ(sink.texts(), (std::vector<std::string>{"", ""}));

  // A kind without a schema (a custom resource: the API server serves those only as JSON) is
  // asked for in JSON, protobuf configured or not.
  ScriptedApi custom;
  RecordingSink customSink;
  custom.onList(page("5", "", {}));
  const Resource podGroups{"PodGroup", "scheduling.x-k8s.io/v1alpha1",
                           "/apis/scheduling.x-k8s.io/v1alpha1/podgroups", "", true};
  Reflector customReflector(custom, podGroups, customSink, options);
  customReflector.start();
  ASSERT_TRUE(custom.waitForRequests(2));
  customReflector.stop();
  for (const std::string& accept : custom.accepts()) {
    EXPECT_EQ(accept, "application/json");
  }
}

TEST(ReflectorTest, EventsBookmarksAndACleanEndWatchAgainFromTheLastVersion) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "", {}));
  api.onWatch(watchSends(
      event("ADDED", "a", "11") + event("MODIFIED", "a", "12") +
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"15"}}})"
      "\n" +
      event("DELETED", "a", "16") +
      R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"20"}}})"
      "\n"));
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(3));
  reflector.stop();
  EXPECT_EQ(sink.log(),
            (std::vector<std::string>{"replace ", "added a", "modified a", "deleted a"}));
  EXPECT_NE(api.paths()[2].find("watch=1&resourceVersion=20&"), std::string::npos);
  EXPECT_EQ(reflector.stats().bookmarks, 2u);
  EXPECT_EQ(reflector.stats().lists, 1u);
}

TEST(ReflectorTest, EventsInTheServersLayoutComeWithTheObjectsTextOthersAreParsedWhole) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "", {}));
  const std::string a = event("ADDED", "a", "11");
  const std::string objectOfA =
      a.substr(a.find(R"("object":)") + 9, a.size() - 9 - a.find(R"("object":)") - 2);  // no "}\n"
  api.onWatch(watchSends(
      a +
      // Keys in another order, spaces, a member after the object: parsed whole, no text.
      R"({"object":{"kind":"Pod","metadata":{"name":"b","namespace":"ns","resourceVersion":"12"}},"type":"ADDED"})"
      "\n"
      R"({"type": "ADDED", "object": {"kind":"Pod","metadata":{"name":"c","namespace":"ns","resourceVersion":"13"}}})"
      "\n"
      R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"d","namespace":"ns","resourceVersion":"14"}},"x":{"y":1}})"
      "\n"));
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(3));
  reflector.stop();
  EXPECT_EQ(sink.log(),
            (std::vector<std::string>{"replace ", "added a", "added b", "added c", "added d"}));
  EXPECT_EQ(sink.texts(), (std::vector<std::string>{objectOfA, "", "", ""}));
  EXPECT_NE(api.paths()[2].find("watch=1&resourceVersion=14&"), std::string::npos);
}

TEST(ReflectorTest, TheSinkIsFlushedAfterEachReadThatCompletedEvents) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "", {}));
  const std::string first = event("ADDED", "a", "11") + event("ADDED", "b", "12");
  const std::string second = event("ADDED", "c", "13");
  api.onWatch([&](const Request&, const BodySink& body, std::stop_token) {
    // Two events and half of the third in one read, the rest in the next.
    const std::size_t half = second.size() / 2;
    body(first + second.substr(0, half));
    body(second.substr(half));
    return Response{200, "", ""};
  });
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(3));
  reflector.stop();
  EXPECT_EQ(sink.log(), (std::vector<std::string>{"replace ", "added a", "added b", "added c"}));
  // Log sizes at each flush: after "replace", a, b (3), then after c (4).
  EXPECT_EQ(sink.flushedAt(), (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(reflector.stats().events, 3u);
}

TEST(ReflectorTest, An410InTheStreamRelistsFromTheLastVersionThenFromAConsistentRead) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "", {item("a", "5")}));
  api.onWatch(watchSends(
      event("ADDED", "b", "11") +
      R"json({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 11 (50)"}})json"
      "\n"));
  api.onList(status(410));  // the last version is gone too
  api.onList(page("60", "", {item("b", "11"), item("c", "55")}));
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(5));
  reflector.stop();
  const auto paths = api.paths();
  EXPECT_NE(paths[2].find("resourceVersion=11&"), std::string::npos) << paths[2];
  EXPECT_EQ(paths[2].find("watch=1"), std::string::npos);
  // A consistent read: no resourceVersion at all.
  EXPECT_EQ(
      paths[3],
      "/api/v1/pods?limit=2&fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed");
  EXPECT_NE(paths[4].find("watch=1&resourceVersion=60&"), std::string::npos);
  EXPECT_EQ(sink.log(), (std::vector<std::string>{"replace a", "added b", "replace b,c"}));
  EXPECT_EQ(reflector.stats().expired, 2u);
}

TEST(ReflectorTest, AnExpiredContinueTokenStartsTheListOver) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "tok", {item("a", "1"), item("b", "2")}));
  api.onList(status(410));
  api.onList(page("12", "tok2", {item("a", "1"), item("b", "2")}));
  api.onList(page("12", "", {item("c", "12")}));
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(5));
  reflector.stop();
  const auto paths = api.paths();
  EXPECT_NE(paths[2].find("limit=2"), std::string::npos);
  EXPECT_EQ(paths[2].find("continue="), std::string::npos);
  EXPECT_EQ(sink.log(), std::vector<std::string>{"replace a,b,c"});
}

TEST(ReflectorTest, ABrokenStreamWatchesAgainAndAFailedWatchBacksOff) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(page("10", "", {}));
  // Events, then the connection breaks mid-line: the half line is dropped, not applied.
  api.onWatch(watchSends(event("ADDED", "a", "11") + R"({"type":"ADDED","obj)",
                         Response{200, "", "connection reset by peer"}));
  // The server is unreachable for a moment.
  api.onWatch([](const Request&, const BodySink&, std::stop_token) {
    return Response{0, "", "connect: Connection refused"};
  });
  api.onWatch(watchSends(event("ADDED", "b", "12")));
  const Resource resource = pods();
  Reflector reflector(api, resource, sink, fastOptions());
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(5));
  reflector.stop();
  const auto paths = api.paths();
  EXPECT_NE(paths[2].find("resourceVersion=11&"), std::string::npos);
  EXPECT_NE(paths[3].find("resourceVersion=11&"), std::string::npos);
  EXPECT_NE(paths[4].find("resourceVersion=12&"), std::string::npos);
  EXPECT_EQ(sink.log(), (std::vector<std::string>{"replace ", "added a", "added b"}));
  EXPECT_EQ(reflector.stats().lists, 1u);  // no relist for any of it
}

TEST(ReflectorTest, AFailedListIsRetriedAndReported) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList([](const Request&) {
    return Response{
        403,
        R"({"kind":"Status","message":"pods is forbidden: User \"x\" cannot list resource \"pods\""})",
        ""};
  });
  api.onList(page("10", "", {}));
  const Resource resource = pods();
  std::vector<std::string> warnings;
  std::mutex mu;
  Reflector::Options o = fastOptions();
  o.warn = [&](const std::string& w) {
    std::lock_guard<std::mutex> lock(mu);
    warnings.push_back(w);
  };
  Reflector reflector(api, resource, sink, o);
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.synced(); }));
  reflector.stop();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(
      warnings[0],
      "list pods: 403 Forbidden: pods is forbidden: User \"x\" cannot list resource \"pods\"");
}

// A sink for a kind plugins declare: it takes a 404 as the kind not served.
class DeclaredKindSink final : public ReflectorSink {
 public:
  void replace(const Resource&, std::vector<boost::json::value>&& items) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string names;
    for (const auto& i : items) {
      names += (names.empty() ? "" : ",") + std::string(i.at("metadata").at("name").as_string());
      EXPECT_EQ(i.at("kind"), "PodGroup");
      EXPECT_EQ(i.at("apiVersion"), "scheduling.x-k8s.io/v1alpha1");
    }
    log_.push_back("replace " + names);
  }
  void apply(const Resource&, WatchEventType, boost::json::value&&, std::string_view) override {}
  bool notServed(const Resource&, const std::string& why) override {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back("not served: " + why);
    return true;
  }
  std::vector<std::string> log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> log_;
};

Resource podGroups() {
  Resource r;
  r.kind = "PodGroup";
  r.apiVersion = "scheduling.x-k8s.io/v1alpha1";
  r.path = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
  r.labelSelector = "team in (a,b)";
  r.fieldSelector = "metadata.namespace!=kube-system";
  return r;
}

ScriptedApi::ListStep notFound() {
  return [](const Request&) {
    return Response{
        404,
        R"({"kind":"Status","code":404,"message":"the server could not find the requested resource"})",
        ""};
  };
}

TEST(ReflectorTest, AKindNotServedIsSyncedWithoutAWarningAndListedAgainUntilItIsServed) {
  ScriptedApi api;
  DeclaredKindSink sink;
  api.onList(notFound());
  api.onList(notFound());
  api.onList(page("7", "", {item("pg-1", "5")}));
  const Resource resource = podGroups();
  std::vector<std::string> warnings;
  std::mutex mu;
  Reflector::Options o = fastOptions();
  o.notServedRetry = 2ms;
  o.warn = [&](const std::string& w) {
    std::lock_guard<std::mutex> lock(mu);
    warnings.push_back(w);
  };
  Reflector reflector(api, resource, sink, o);
  reflector.start();
  ASSERT_TRUE(api.waitForRequests(4));  // three lists, then the watch
  reflector.stop();
  const std::string why =
      "not served: list podgroups: 404 Not Found: the server could not find the requested "
      "resource";
  EXPECT_EQ(sink.log(), (std::vector<std::string>{why, why, "replace pg-1"}));
  EXPECT_EQ(reflector.stats().notServed, 2u);
  EXPECT_EQ(reflector.stats().errors, 0u);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_TRUE(warnings.empty());
  // The selectors go with every request, lists and watch.
  const std::string selectors =
      "&labelSelector=team%20in%20%28a%2Cb%29&fieldSelector=metadata.namespace%21%3Dkube-system";
  const auto paths = api.paths();
  EXPECT_EQ(paths[0],
            "/apis/scheduling.x-k8s.io/v1alpha1/podgroups?limit=2&resourceVersion=0" + selectors);
  EXPECT_NE(paths[3].find(selectors), std::string::npos) << paths[3];
}

TEST(ReflectorTest, AKindNotServedCountsAsSyncedWhileItWaitsToListAgain) {
  ScriptedApi api;
  DeclaredKindSink sink;
  api.onList(notFound());
  const Resource resource = podGroups();
  Reflector::Options o = fastOptions();
  o.notServedRetry = std::chrono::hours(1);
  Reflector reflector(api, resource, sink, o);
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.synced(); }));
  EXPECT_EQ(sink.log().size(), 1u);
  EXPECT_NE(reflector.lastError().find("404 Not Found"), std::string::npos);
  // The long wait ends with stop().
  const auto stopping = std::chrono::steady_clock::now();
  reflector.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, 2s);
  EXPECT_EQ(api.paths().size(), 1u);
}

TEST(ReflectorTest, ToASinkThatDoesNotTakeItA404IsAFailedList) {
  ScriptedApi api;
  RecordingSink sink;
  api.onList(notFound());
  api.onList(page("10", "", {}));
  const Resource resource = pods();
  std::atomic<int> warnings{0};
  Reflector::Options o = fastOptions();
  o.warn = [&](const std::string&) { ++warnings; };
  Reflector reflector(api, resource, sink, o);
  reflector.start();
  ASSERT_TRUE(eventually([&] { return reflector.synced(); }));
  reflector.stop();
  EXPECT_EQ(warnings.load(), 1);
  EXPECT_EQ(reflector.stats().notServed, 0u);
  EXPECT_EQ(reflector.stats().errors, 1u);
}

}  // namespace
}  // namespace sh::kube::reflector_test

// Tests of the test API server (support/fake_apiserver.h) over loopback HTTPS, with a small
// synchronous Beast client of their own: lists and paging, selectors, watches (history,
// 410s, selector transitions, chunk splitting, bookmarks, timeouts, drops), binding, patches,
// deletes with preconditions, Leases, Events, the storage kinds' status, authentication,
// injected failures and the request record.
#include "tests/kube/support/fake_apiserver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "host/connectors/kube/https_transport.h"
#include "host/connectors/kube/leader_elector.h"
#include "tests/kube/support/fake_apiserver_json.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::fake_apiserver_test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace ssl = asio::ssl;
using Tcp = asio::ip::tcp;
using ::testing::HasSubstr;

const TlsMaterial& material() {
  static const TlsMaterial kMaterial = makeTlsMaterial("cert-user");
  return kMaterial;
}

struct Credentials {
  std::string token;
  bool clientCert = false;
};

struct Result {
  int status = 0;
  std::string body;
  std::string retryAfter;
  json::object json() const {
    auto value = json::parse(body);
    return value.as_object();
  }
};

// One keep-alive connection, TLS or plain.
class Connection {
 public:
  Connection(uint16_t port, bool plain, const Credentials& credentials)
      : plain_(plain), credentials_(credentials), context_(ssl::context::tls_client) {
    context_.add_certificate_authority(asio::buffer(material().caCert));
    context_.set_verify_mode(ssl::verify_peer);
    if (credentials.clientCert) {
      context_.use_certificate_chain(asio::buffer(material().clientCert));
      context_.use_private_key(asio::buffer(material().clientKey), ssl::context::pem);
    }
    Tcp::socket socket(ioc_);
    socket.connect(Tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    timeval timeout{5, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (plain) {
      tcp_ = std::make_unique<beast::tcp_stream>(std::move(socket));
    } else {
      tls_ = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(std::move(socket), context_);
      tls_->handshake(ssl::stream_base::client);
    }
  }

  http::request<http::string_body> makeRequest(http::verb verb, const std::string& target,
                                               const std::string& body,
                                               const std::string& contentType) const {
    http::request<http::string_body> request(verb, target, 11);
    request.set(http::field::host, "127.0.0.1");
    if (!credentials_.token.empty()) {
      request.set(http::field::authorization, "Bearer " + credentials_.token);
    }
    if (!body.empty()) {
      request.set(http::field::content_type, contentType);
      request.body() = body;
    }
    request.keep_alive(true);
    request.prepare_payload();
    return request;
  }

  template <class F>
  auto with(F f) {
    return plain_ ? f(*tcp_) : f(*tls_);
  }

  Result send(http::verb verb, const std::string& target, const std::string& body = "",
              const std::string& contentType = "application/json") {
    auto request = makeRequest(verb, target, body, contentType);
    http::response<http::string_body> response;
    with([&](auto& stream) {
      http::write(stream, request);
      http::read(stream, buffer_, response);
      return 0;
    });
    return Result{static_cast<int>(response.result_int()), response.body(),
                  std::string(response[http::field::retry_after])};
  }

  beast::flat_buffer& buffer() { return buffer_; }

 private:
  bool plain_;
  Credentials credentials_;
  asio::io_context ioc_;
  ssl::context context_;
  std::unique_ptr<beast::tcp_stream> tcp_;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> tls_;
  beast::flat_buffer buffer_;
};

// A watch: the response header, then lines as they come.
class WatchStream {
 public:
  WatchStream(uint16_t port, const std::string& target, const Credentials& credentials,
              bool plain = false)
      : connection_(port, plain, credentials) {
    parser_.body_limit(boost::none);
    parser_.on_chunk_body(chunkCallback_);
    auto request = connection_.makeRequest(http::verb::get, target, "", "");
    connection_.with([&](auto& stream) {
      http::write(stream, request);
      http::read_header(stream, connection_.buffer(), parser_);
      return 0;
    });
    status = static_cast<int>(parser_.get().result_int());
  }

  // The next line, or nullopt when the body ended (cleanEnd) or the connection failed.
  std::optional<std::string> next() {
    while (true) {
      auto newline = pending_.find('\n');
      if (newline != std::string::npos) {
        std::string line = pending_.substr(0, newline);
        pending_.erase(0, newline + 1);
        return line;
      }
      if (parser_.is_done()) {
        cleanEnd = true;
        return std::nullopt;
      }
      beast::error_code ec;
      connection_.with([&](auto& stream) {
        http::read_some(stream, connection_.buffer(), parser_, ec);
        return 0;
      });
      if (ec) {
        error = ec;
        return std::nullopt;
      }
    }
  }

  json::object nextEvent() {
    auto line = next();
    EXPECT_TRUE(line.has_value()) << error.message();
    if (!line) return {};
    return json::parse(*line).as_object();
  }

  int status = 0;
  bool cleanEnd = false;
  beast::error_code error;
  std::vector<std::size_t> chunkSizes;

 private:
  Connection connection_;
  http::response_parser<http::string_body> parser_;
  std::string pending_;
  std::function<std::uint64_t(std::uint64_t, beast::string_view, beast::error_code&)>
      chunkCallback_ = [this](std::uint64_t, beast::string_view body, beast::error_code&) {
        pending_.append(body.data(), body.size());
        chunkSizes.push_back(body.size());
        return body.size();
      };
};

json::object pod(const std::string& name, const std::string& ns = "default",
                 const std::string& phase = "Pending", const std::string& node = "") {
  json::object spec{{"schedulerName", "default-scheduler"}};
  if (!node.empty()) spec["nodeName"] = node;
  return json::object{{"apiVersion", "v1"},
                      {"kind", "Pod"},
                      {"metadata", {{"name", name}, {"namespace", ns}}},
                      {"spec", spec},
                      {"status", {{"phase", phase}}}};
}

std::string nameOf(const json::object& object) { return stringAt(object, {"metadata", "name"}); }
std::string rvOf(const json::object& object) {
  return stringAt(object, {"metadata", "resourceVersion"});
}

template <class Pred>
bool waitFor(Pred pred) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

class FakeApiServerTest : public ::testing::Test {
 protected:
  void startServer(FakeApiServer::Options options = {}) {
    options.tls = material();
    if (options.tokens.empty()) options.tokens = {"good-token"};
    server_ = std::make_unique<FakeApiServer>(std::move(options));
    server_->start();
  }
  Connection connect(Credentials credentials = {"good-token", false}) {
    return Connection(server_->port(), false, credentials);
  }
  WatchStream watch(const std::string& target, Credentials credentials = {"good-token", false}) {
    return WatchStream(server_->port(), target, credentials);
  }
  void SetUp() override {}
  std::unique_ptr<FakeApiServer> server_;
};

TEST_F(FakeApiServerTest, ListPagesKeepTheFirstPagesSnapshot) {
  startServer();
  for (const char* name : {"e", "b", "a", "d", "c"}) server_->create("pods", pod(name));
  server_->create("pods", pod("z", "another"));
  auto client = connect();
  auto first = client.send(http::verb::get, "/api/v1/namespaces/default/pods?limit=2");
  ASSERT_EQ(first.status, 200) << first.body;
  auto page = first.json();
  EXPECT_EQ(stringAt(page, {"kind"}), "PodList");
  std::string listRv = stringAt(page, {"metadata", "resourceVersion"});
  EXPECT_EQ(listRv, server_->resourceVersion());
  std::vector<std::string> names;
  for (const auto& item : page.at("items").as_array()) names.push_back(nameOf(item.as_object()));
  std::string token = stringAt(page, {"metadata", "continue"});
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(page.at("metadata").as_object().at("remainingItemCount").as_int64(), 3);
  // Changes after the first page do not show in later pages.
  server_->create("pods", pod("bb"));
  server_->remove("pods", "default", "e");
  while (!token.empty()) {
    auto next =
        client.send(http::verb::get, "/api/v1/namespaces/default/pods?limit=2&continue=" + token);
    ASSERT_EQ(next.status, 200) << next.body;
    auto body = next.json();
    EXPECT_EQ(stringAt(body, {"metadata", "resourceVersion"}), listRv);
    for (const auto& item : body.at("items").as_array()) {
      names.push_back(nameOf(item.as_object()));
    }
    token = stringAt(body, {"metadata", "continue"});
  }
  EXPECT_THAT(names, ::testing::ElementsAre("a", "b", "c", "d", "e"));
  // Cluster-wide: sorted by namespace, then name.
  auto all = client.send(http::verb::get, "/api/v1/pods").json();
  std::vector<std::string> everywhere;
  for (const auto& item : all.at("items").as_array()) {
    everywhere.push_back(nameOf(item.as_object()));
  }
  EXPECT_THAT(everywhere, ::testing::ElementsAre("z", "a", "b", "bb", "c", "d"));
}

TEST_F(FakeApiServerTest, ContinueTokenAfterCompactIsExpired) {
  startServer();
  for (const char* name : {"a", "b", "c"}) server_->create("pods", pod(name));
  auto client = connect();
  auto token = stringAt(client.send(http::verb::get, "/api/v1/pods?limit=1").json(),
                        {"metadata", "continue"});
  ASSERT_FALSE(token.empty());
  server_->compact();
  auto expired = client.send(http::verb::get, "/api/v1/pods?limit=1&continue=" + token);
  EXPECT_EQ(expired.status, 410);
  auto status = expired.json();
  EXPECT_EQ(stringAt(status, {"kind"}), "Status");
  EXPECT_EQ(stringAt(status, {"reason"}), "Expired");
  EXPECT_EQ(status.at("code").as_int64(), 410);
  EXPECT_THAT(stringAt(status, {"message"}),
              HasSubstr("The provided continue parameter is too old"));
  // A list from a resourceVersion before the compaction is gone as well.
  EXPECT_EQ(client.send(http::verb::get, "/api/v1/pods?resourceVersion=1").status, 410);
  EXPECT_EQ(client.send(http::verb::get, "/api/v1/pods?resourceVersion=0").status, 200);
}

TEST_F(FakeApiServerTest, FieldSelectorFiltersLists) {
  startServer();
  server_->create("pods", pod("pending"));
  server_->create("pods", pod("running", "default", "Running", "n1"));
  server_->create("pods", pod("done", "default", "Succeeded", "n1"));
  auto client = connect();
  auto names = [&](const std::string& query) {
    auto result = client.send(http::verb::get, "/api/v1/pods?" + query);
    EXPECT_EQ(result.status, 200) << result.body;
    std::vector<std::string> out;
    auto body = result.json();
    for (const auto& item : body.at("items").as_array()) {
      out.push_back(nameOf(item.as_object()));
    }
    return out;
  };
  EXPECT_THAT(names("fieldSelector=status.phase%21%3DSucceeded%2Cspec.nodeName%3D"),
              ::testing::ElementsAre("pending"));
  EXPECT_THAT(names("fieldSelector=spec.nodeName==n1"), ::testing::ElementsAre("done", "running"));
  EXPECT_THAT(names("fieldSelector=metadata.name=running,metadata.namespace=default"),
              ::testing::ElementsAre("running"));
  EXPECT_THAT(names("fieldSelector=spec.schedulerName=default-scheduler").size(), 3u);
  EXPECT_EQ(client.send(http::verb::get, "/api/v1/pods?fieldSelector=nonsense").status, 400);
}

TEST_F(FakeApiServerTest, WatchSendsObjectsLeavingAndEnteringTheSelectorAsDeletedAndAdded) {
  startServer();
  auto live = server_->create("pods", pod("p", "default", "Running", "n1"));
  auto stream = watch(
      "/api/v1/pods?watch=1&fieldSelector=status.phase!%3DSucceeded&resourceVersion=" + rvOf(live));
  ASSERT_EQ(stream.status, 200);
  auto done = live;
  done["status"].as_object()["phase"] = "Succeeded";
  auto stored = server_->update("pods", done);
  auto left = stream.nextEvent();
  EXPECT_EQ(stringAt(left, {"type"}), "DELETED");
  EXPECT_EQ(rvOf(left.at("object").as_object()), rvOf(stored));
  auto back = stored;
  back["status"].as_object()["phase"] = "Running";
  server_->update("pods", back);
  auto entered = stream.nextEvent();
  EXPECT_EQ(stringAt(entered, {"type"}), "ADDED");
  EXPECT_EQ(stringAt(entered, {"object", "status", "phase"}), "Running");
  // Not matching before or after: nothing; the next matching event comes next.
  server_->create("pods", pod("other", "default", "Succeeded"));
  server_->create("pods", pod("third"));
  auto third = stream.nextEvent();
  EXPECT_EQ(stringAt(third, {"type"}), "ADDED");
  EXPECT_EQ(stringAt(third, {"object", "metadata", "name"}), "third");
}

TEST_F(FakeApiServerTest, WatchFromAResourceVersionReplaysHistoryThenLiveEvents) {
  startServer();
  auto a = server_->create("pods", pod("a"));
  server_->create("pods", pod("b"));
  server_->create("nodes", json::object{{"metadata", {{"name", "n1"}}}});
  server_->remove("pods", "default", "a");
  auto stream = watch("/api/v1/namespaces/default/pods?watch=true&resourceVersion=" + rvOf(a));
  auto added = stream.nextEvent();
  EXPECT_EQ(stringAt(added, {"type"}), "ADDED");
  EXPECT_EQ(stringAt(added, {"object", "metadata", "name"}), "b");
  auto deleted = stream.nextEvent();
  EXPECT_EQ(stringAt(deleted, {"type"}), "DELETED");
  EXPECT_EQ(stringAt(deleted, {"object", "metadata", "name"}), "a");
  EXPECT_EQ(stringAt(deleted, {"object", "metadata", "resourceVersion"}),
            server_->resourceVersion());
  server_->create("pods", pod("c"));
  auto live = stream.nextEvent();
  EXPECT_EQ(stringAt(live, {"type"}), "ADDED");
  EXPECT_EQ(stringAt(live, {"object", "metadata", "name"}), "c");
}

TEST_F(FakeApiServerTest, WatchWithoutAResourceVersionStartsWithSyntheticAdds) {
  startServer();
  server_->create("pods", pod("a"));
  server_->create("pods", pod("b", "other"));
  auto stream = watch("/api/v1/namespaces/default/pods?watch=1");
  auto first = stream.nextEvent();
  EXPECT_EQ(stringAt(first, {"type"}), "ADDED");
  EXPECT_EQ(stringAt(first, {"object", "metadata", "name"}), "a");
  server_->create("pods", pod("c", "other"));
  server_->create("pods", pod("d"));
  EXPECT_EQ(stringAt(stream.nextEvent(), {"object", "metadata", "name"}), "d");
}

TEST_F(FakeApiServerTest, WatchFromACompactedResourceVersionGetsAnInStream410) {
  FakeApiServer::Options options;
  options.historyLimit = 2;
  startServer(options);
  for (const char* name : {"a", "b", "c", "d"}) server_->create("pods", pod(name));
  auto stream = watch("/api/v1/pods?watch=1&resourceVersion=1");
  ASSERT_EQ(stream.status, 200);
  auto error = stream.nextEvent();
  EXPECT_EQ(stringAt(error, {"type"}), "ERROR");
  EXPECT_EQ(stringAt(error, {"object", "kind"}), "Status");
  EXPECT_EQ(stringAt(error, {"object", "reason"}), "Expired");
  EXPECT_EQ(error.at("object").as_object().at("code").as_int64(), 410);
  EXPECT_THAT(stringAt(error, {"object", "message"}), HasSubstr("too old resource version: 1"));
  EXPECT_FALSE(stream.next().has_value());
  EXPECT_TRUE(stream.cleanEnd);
  // Within the kept history it replays.
  auto kept = watch("/api/v1/pods?watch=1&resourceVersion=2");
  EXPECT_EQ(stringAt(kept.nextEvent(), {"object", "metadata", "name"}), "c");
}

TEST_F(FakeApiServerTest, CompactEndsOpenWatchesWithAnExpiredError) {
  startServer();
  server_->create("pods", pod("a"));
  auto stream = watch("/api/v1/pods?watch=1&resourceVersion=" + server_->resourceVersion());
  ASSERT_TRUE(waitFor([&] { return server_->openWatches() == 1; }));
  server_->compact();
  auto error = stream.nextEvent();
  EXPECT_EQ(stringAt(error, {"type"}), "ERROR");
  EXPECT_EQ(error.at("object").as_object().at("code").as_int64(), 410);
  EXPECT_FALSE(stream.next().has_value());
  EXPECT_TRUE(stream.cleanEnd);
  EXPECT_TRUE(waitFor([&] { return server_->openWatches() == 0; }));
}

TEST_F(FakeApiServerTest, ChunkSplittingKeepsTheLines) {
  FakeApiServer::Options options;
  options.watchChunkMax = 7;
  startServer(options);
  std::vector<std::string> expected;
  for (int i = 0; i < 20; ++i) {
    auto stored = server_->create("pods", pod("p" + std::to_string(100 + i)));
    expected.push_back(json::serialize(stored));
  }
  auto stream = watch("/api/v1/pods?watch=1");
  for (const auto& object : expected) {
    auto line = stream.next();
    ASSERT_TRUE(line.has_value()) << stream.error.message();
    EXPECT_EQ(*line, "{\"type\":\"ADDED\",\"object\":" + object + "}");
  }
  ASSERT_GT(stream.chunkSizes.size(), expected.size() * 10);
  for (auto size : stream.chunkSizes) EXPECT_LE(size, 7u);
}

TEST_F(FakeApiServerTest, BookmarksCarryOnlyTheResourceVersion) {
  FakeApiServer::Options options;
  options.bookmarkInterval = std::chrono::milliseconds(20);
  startServer(options);
  server_->create("pods", pod("a"));
  auto stream = watch("/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=" +
                      server_->resourceVersion());
  auto bookmark = stream.nextEvent();
  EXPECT_EQ(stringAt(bookmark, {"type"}), "BOOKMARK");
  const auto& object = bookmark.at("object").as_object();
  EXPECT_EQ(object.size(), 3u);
  EXPECT_EQ(stringAt(object, {"kind"}), "Pod");
  EXPECT_EQ(stringAt(object, {"apiVersion"}), "v1");
  EXPECT_EQ(object.at("metadata").as_object().size(), 1u);
  EXPECT_EQ(rvOf(object), server_->resourceVersion());
}

TEST_F(FakeApiServerTest, TimeoutSecondsEndsTheBodyCleanly) {
  startServer();
  auto stream = watch("/api/v1/pods?watch=1&timeoutSeconds=1&resourceVersion=0");
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(stream.next().has_value());
  EXPECT_TRUE(stream.cleanEnd) << stream.error.message();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
  EXPECT_TRUE(waitFor([&] { return server_->openWatches() == 0; }));
}

TEST_F(FakeApiServerTest, DropWatchesClosesMidStream) {
  startServer();
  auto stream = watch("/api/v1/pods?watch=1&resourceVersion=0");
  ASSERT_TRUE(waitFor([&] { return server_->openWatches() == 1; }));
  server_->dropWatches();
  EXPECT_FALSE(stream.next().has_value());
  EXPECT_FALSE(stream.cleanEnd);
  EXPECT_TRUE(stream.error);
  EXPECT_TRUE(waitFor([&] { return server_->openWatches() == 0; }));
}

std::string binding(const std::string& name, const std::string& node, const std::string& uid) {
  json::object metadata{{"name", name}, {"namespace", "default"}};
  if (!uid.empty()) metadata["uid"] = uid;
  return json::serialize(json::object{{"apiVersion", "v1"},
                                      {"kind", "Binding"},
                                      {"metadata", metadata},
                                      {"target", {{"kind", "Node"}, {"name", node}}}});
}

TEST_F(FakeApiServerTest, BindingAssignsOnceAndRefusesConflicts) {
  startServer();
  auto stored = server_->create("pods", pod("p"));
  std::string uid = stringAt(stored, {"metadata", "uid"});
  auto client = connect();
  const std::string path = "/api/v1/namespaces/default/pods/p/binding";
  auto wrongUid = client.send(http::verb::post, path, binding("p", "n1", "not-the-uid"));
  EXPECT_EQ(wrongUid.status, 409);
  EXPECT_THAT(stringAt(wrongUid.json(), {"message"}), HasSubstr("Precondition failed: UID"));
  auto ok = client.send(http::verb::post, path, binding("p", "n1", uid));
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(stringAt(ok.json(), {"status"}), "Success");
  auto bound = *server_->get("pods", "default", "p");
  EXPECT_EQ(stringAt(bound, {"spec", "nodeName"}), "n1");
  const auto& conditions = bound.at("status").as_object().at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(stringAt(conditions[0].as_object(), {"type"}), "PodScheduled");
  EXPECT_EQ(stringAt(conditions[0].as_object(), {"status"}), "True");
  auto again = client.send(http::verb::post, path, binding("p", "n2", uid));
  EXPECT_EQ(again.status, 409);
  auto status = again.json();
  EXPECT_EQ(stringAt(status, {"reason"}), "Conflict");
  EXPECT_EQ(stringAt(status, {"message"}),
            "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to "
            "node \"n1\"");
  EXPECT_EQ(server_->bindCount(uid), 1u);
  EXPECT_EQ(client
                .send(http::verb::post, "/api/v1/namespaces/default/pods/nope/binding",
                      binding("nope", "n1", ""))
                .status,
            404);
  auto deleting = pod("going");
  deleting["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  server_->create("pods", deleting);
  auto refused = client.send(http::verb::post, "/api/v1/namespaces/default/pods/going/binding",
                             binding("going", "n1", ""));
  EXPECT_EQ(refused.status, 409);
  EXPECT_THAT(stringAt(refused.json(), {"message"}),
              HasSubstr("pod going is being deleted, cannot be assigned to a host"));
}

TEST_F(FakeApiServerTest, BindingsCollectionAndClientsLeavingWatches) {
  startServer();
  auto stored = server_->create("pods", pod("p"));
  {
    auto stream = watch("/api/v1/pods?watch=1&labelSelector=app%3Dweb&resourceVersion=0");
    ASSERT_TRUE(waitFor([&] { return server_->openWatches() == 1; }));
  }
  // The client went away: the server notices without writing anything.
  EXPECT_TRUE(waitFor([&] { return server_->openWatches() == 0; }));
  auto client = connect();
  auto ok =
      client.send(http::verb::post, "/api/v1/namespaces/default/bindings", binding("p", "n3", ""));
  ASSERT_EQ(ok.status, 201) << ok.body;
  EXPECT_EQ(stringAt(*server_->get("pods", "default", "p"), {"spec", "nodeName"}), "n3");
  EXPECT_EQ(server_->bindCounts().at(stringAt(stored, {"metadata", "uid"})), 1u);
}

TEST_F(FakeApiServerTest, ConcurrentBindsEachLandOnce) {
  FakeApiServer::Options options;
  options.plainHttp = true;
  options.recordRequests = false;
  startServer(options);
  constexpr int kPods = 400;
  std::vector<std::string> uids;
  for (int i = 0; i < kPods; ++i) {
    uids.push_back(
        stringAt(server_->create("pods", pod("p" + std::to_string(i))), {"metadata", "uid"}));
  }
  auto stream = WatchStream(server_->port(),
                            "/api/v1/pods?watch=1&resourceVersion=" + server_->resourceVersion(),
                            {"good-token", false}, true);
  std::atomic<int> created{0}, conflicts{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      Connection client(server_->port(), true, {"good-token", false});
      for (int i = 0; i < kPods; ++i) {
        auto name = "p" + std::to_string(i);
        auto result =
            client.send(http::verb::post, "/api/v1/namespaces/default/pods/" + name + "/binding",
                        binding(name, "n1", ""));
        (result.status == 201 ? created : conflicts)++;
      }
    });
  }
  for (auto& worker : workers) worker.join();
  EXPECT_EQ(created.load(), kPods);
  EXPECT_EQ(conflicts.load(), 3 * kPods);
  for (const auto& uid : uids) EXPECT_EQ(server_->bindCount(uid), 1u);
  for (int i = 0; i < kPods; ++i) {
    auto event = stream.nextEvent();
    EXPECT_EQ(stringAt(event, {"type"}), "MODIFIED");
  }
}

TEST_F(FakeApiServerTest, StrategicMergePatchMergesConditionsByTypeAndDropsNulls) {
  startServer();
  auto original = pod("p");
  original["metadata"].as_object()["labels"] = json::object{{"keep", "1"}, {"drop", "1"}};
  original["status"].as_object()["conditions"] = json::array{
      json::object{{"type", "Ready"}, {"status", "False"}},
      json::object{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
  server_->create("pods", original);
  auto client = connect();
  auto patched = client.send(
      http::verb::patch, "/api/v1/namespaces/default/pods/p/status",
      R"({"metadata":{"labels":{"drop":null}},"status":{"conditions":[{"type":"PodScheduled","message":"0/3 nodes are available"},{"type":"DisruptionTarget","status":"True"}],"nominatedNodeName":"n2"}})",
      "application/strategic-merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  auto stored = *server_->get("pods", "default", "p");
  const auto& conditions = stored.at("status").as_object().at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 3u);
  EXPECT_EQ(stringAt(conditions[0].as_object(), {"type"}), "Ready");
  EXPECT_EQ(stringAt(conditions[1].as_object(), {"reason"}), "Unschedulable");
  EXPECT_EQ(stringAt(conditions[1].as_object(), {"message"}), "0/3 nodes are available");
  EXPECT_EQ(stringAt(conditions[2].as_object(), {"type"}), "DisruptionTarget");
  EXPECT_EQ(stringAt(stored, {"status", "nominatedNodeName"}), "n2");
  // The status subresource changes nothing else.
  EXPECT_EQ(stringAt(stored, {"metadata", "labels", "drop"}), "1");
  // A merge patch on the object itself: null removes, lists replace.
  auto merged =
      client.send(http::verb::patch, "/api/v1/namespaces/default/pods/p",
                  R"({"metadata":{"labels":{"drop":null}},"status":{"nominatedNodeName":null}})",
                  "application/merge-patch+json");
  ASSERT_EQ(merged.status, 200) << merged.body;
  stored = *server_->get("pods", "default", "p");
  EXPECT_EQ(stored.at("metadata").as_object().at("labels").as_object().count("drop"), 0u);
  EXPECT_EQ(stringAt(stored, {"metadata", "labels", "keep"}), "1");
  EXPECT_EQ(stored.at("status").as_object().count("nominatedNodeName"), 0u);
  EXPECT_EQ(
      client.send(http::verb::patch, "/api/v1/namespaces/default/pods/p", "{}", "application/yaml")
          .status,
      415);
  EXPECT_EQ(client
                .send(http::verb::patch, "/api/v1/namespaces/default/pods/none/status", "{}",
                      "application/merge-patch+json")
                .status,
            404);
}

FakeApiServer::CustomResource podGroups() {
  FakeApiServer::CustomResource r;
  r.group = "scheduling.x-k8s.io";
  r.version = "v1alpha1";
  r.resource = "podgroups";
  r.kind = "PodGroup";
  return r;
}

TEST_F(FakeApiServerTest, ACustomResourceIsNotFoundUntilAddedThenListedWatchedAndWritten) {
  startServer();
  auto client = connect();
  const std::string collection = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups";
  const std::string base = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";
  // As a CRD not installed: the group is not served.
  auto missing = client.send(http::verb::get, collection + "?limit=500");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(stringAt(missing.json(), {"message"}),
            "the server could not find the requested resource");
  server_->addCustomResource(podGroups());
  auto list = client.send(http::verb::get, collection + "?limit=500");
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(stringAt(list.json(), {"kind"}), "PodGroupList");
  EXPECT_EQ(stringAt(list.json(), {"apiVersion"}), "scheduling.x-k8s.io/v1alpha1");
  auto stream = watch(collection + "?watch=1&resourceVersion=" +
                      stringAt(list.json(), {"metadata", "resourceVersion"}));
  // Another version of the group is not served.
  EXPECT_EQ(client.send(http::verb::get, "/apis/scheduling.x-k8s.io/v1/podgroups").status, 404);

  // A create cannot set the status; generation starts at 1.
  auto created = client.send(
      http::verb::post, base,
      R"({"metadata":{"name":"pg-1"},"spec":{"minMember":3},"status":{"phase":"Running"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(stringAt(created.json(), {"kind"}), "PodGroup");
  EXPECT_EQ(stringAt(created.json(), {"metadata", "namespace"}), "default");
  EXPECT_EQ(created.json().count("status"), 0u);
  EXPECT_EQ(created.json().at("metadata").at("generation"), 1);
  auto added = stream.nextEvent();
  EXPECT_EQ(stringAt(added, {"type"}), "ADDED");
  EXPECT_EQ(stringAt(added, {"object", "kind"}), "PodGroup");

  // A merge patch of the spec is a new generation.
  auto spec = client.send(http::verb::patch, base + "/pg-1", R"({"spec":{"minMember":4}})",
                          "application/merge-patch+json");
  ASSERT_EQ(spec.status, 200) << spec.body;
  EXPECT_EQ(spec.json().at("metadata").at("generation"), 2);
  EXPECT_EQ(stringAt(stream.nextEvent(), {"type"}), "MODIFIED");
  // The status subresource: a merge patch, then a JSON patch; neither touches the spec.
  auto status = client.send(http::verb::patch, base + "/pg-1/status",
                            R"({"spec":{"minMember":9},"status":{"phase":"Pending"}})",
                            "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.body;
  auto jsonPatch = client.send(http::verb::patch, base + "/pg-1/status",
                               R"([{"op":"replace","path":"/status/phase","value":"Scheduled"},)"
                               R"({"op":"add","path":"/status/scheduled","value":3}])",
                               "application/json-patch+json");
  ASSERT_EQ(jsonPatch.status, 200) << jsonPatch.body;
  auto stored = *server_->get("podgroups", "default", "pg-1");
  EXPECT_EQ(stringAt(stored, {"status", "phase"}), "Scheduled");
  EXPECT_EQ(stored.at("status").at("scheduled"), 3);
  EXPECT_EQ(stored.at("spec").at("minMember"), 4);
  EXPECT_EQ(stored.at("metadata").at("generation"), 2);
  // A JSON patch whose test fails changes nothing.
  auto failedTest = client.send(http::verb::patch, base + "/pg-1",
                                R"([{"op":"test","path":"/spec/minMember","value":5},)"
                                R"({"op":"replace","path":"/spec/minMember","value":6}])",
                                "application/json-patch+json");
  EXPECT_EQ(failedTest.status, 422) << failedTest.body;
  // No strategic merge patch for a custom resource.
  auto strategic = client.send(http::verb::patch, base + "/pg-1", R"({"spec":{}})",
                               "application/strategic-merge-patch+json");
  EXPECT_EQ(strategic.status, 415);
  EXPECT_THAT(stringAt(strategic.json(), {"message"}),
              HasSubstr("the body of the request was in an unknown format"));
  // A PUT of the object keeps the stored status.
  auto put = stored;
  put["status"] = json::object{{"phase", "Failed"}};
  put["spec"].as_object()["minMember"] = 5;
  auto updated = client.send(http::verb::put, base + "/pg-1", json::serialize(put));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(stringAt(updated.json(), {"status", "phase"}), "Scheduled");
  EXPECT_EQ(updated.json().at("metadata").at("generation"), 3);

  // The qualified name in errors, as kube-apiserver gives it.
  auto absent =
      client.send(http::verb::patch, base + "/pg-2/status", "{}", "application/merge-patch+json");
  EXPECT_EQ(absent.status, 404);
  EXPECT_EQ(stringAt(absent.json(), {"message"}),
            "podgroups.scheduling.x-k8s.io \"pg-2\" not found");
  ASSERT_EQ(client.send(http::verb::delete_, base + "/pg-1").status, 200);
  std::vector<std::string> types;
  while (types.size() < 4) types.push_back(stringAt(stream.nextEvent(), {"type"}));
  EXPECT_EQ(types, (std::vector<std::string>{"MODIFIED", "MODIFIED", "MODIFIED", "DELETED"}));
  // Discovery lists the group.
  EXPECT_THAT(client.send(http::verb::get, "/apis").body,
              HasSubstr(R"("groupVersion":"scheduling.x-k8s.io/v1alpha1")"));
}

TEST_F(FakeApiServerTest, ACustomResourceWithoutAStatusSubresourceIsWrittenWhole) {
  startServer();
  auto r = podGroups();
  r.resource = "elasticquotas";
  r.kind = "ElasticQuota";
  r.namespaced = false;
  r.statusSubresource = false;
  server_->addCustomResource(r);
  EXPECT_THROW(server_->addCustomResource(r), std::runtime_error);
  auto client = connect();
  const std::string base = "/apis/scheduling.x-k8s.io/v1alpha1/elasticquotas";
  auto created = client.send(http::verb::post, base,
                             R"({"metadata":{"name":"q","namespace":"x"},"status":{"used":1}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json().at("metadata").as_object().count("namespace"), 0u);
  EXPECT_EQ(created.json().at("status").at("used"), 1);
  EXPECT_EQ(client.send(http::verb::patch, base + "/q/status", "{}", "application/merge-patch+json")
                .status,
            404);
  // By its qualified name too.
  EXPECT_TRUE(server_->get("elasticquotas.scheduling.x-k8s.io", "", "q").has_value());
}

// The storage kinds as kube-apiserver's registry strategies have them: a claim's or a volume's
// status starts at phase Pending and only /status changes it; StorageClasses have no /status.
TEST_F(FakeApiServerTest, ClaimsAndVolumesKeepTheirStatusForTheStatusSubresource) {
  startServer();
  auto client = connect();
  const std::string claims = "/api/v1/namespaces/default/persistentvolumeclaims";
  auto created = client.send(http::verb::post, claims,
                             R"({"metadata":{"name":"c"},"spec":{"storageClassName":"zonal"},)"
                             R"("status":{"phase":"Bound"}})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(stringAt(created.json(), {"kind"}), "PersistentVolumeClaim");
  EXPECT_EQ(stringAt(created.json(), {"status", "phase"}), "Pending");
  // A PUT of the claim takes its metadata and spec, not its status.
  auto claim = created.json();
  claim["metadata"].as_object()["annotations"] =
      json::object{{"volume.kubernetes.io/selected-node", "n1"}};
  claim["status"] = json::object{{"phase", "Bound"}};
  auto updated = client.send(http::verb::put, claims + "/c", json::serialize(claim));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(
      stringAt(updated.json(), {"metadata", "annotations", "volume.kubernetes.io/selected-node"}),
      "n1");
  EXPECT_EQ(stringAt(updated.json(), {"status", "phase"}), "Pending");
  // /status takes only the status.
  auto next = updated.json();
  next["spec"].as_object()["volumeName"] = "v";
  next["status"] = json::object{{"phase", "Bound"}};
  auto bound = client.send(http::verb::put, claims + "/c/status", json::serialize(next));
  ASSERT_EQ(bound.status, 200) << bound.body;
  EXPECT_EQ(stringAt(bound.json(), {"status", "phase"}), "Bound");
  EXPECT_EQ(stringAt(bound.json(), {"spec", "volumeName"}), "");
  // So do the server's own methods; a merge patch of the main resource keeps the status too.
  claim["status"] = json::object{{"phase", "Lost"}};
  server_->update("persistentvolumeclaims", claim);
  EXPECT_EQ(stringAt(*server_->get("persistentvolumeclaims", "default", "c"), {"status", "phase"}),
            "Bound");
  auto patched = client.send(http::verb::patch, claims + "/c",
                             R"({"metadata":{"labels":{"a":"1"}},"status":{"phase":"Lost"}})",
                             "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(stringAt(patched.json(), {"status", "phase"}), "Bound");
  auto volume = server_->create(
      "persistentvolumes",
      json::object{{"metadata", {{"name", "v"}}}, {"status", {{"phase", "Available"}}}});
  EXPECT_EQ(stringAt(volume, {"status", "phase"}), "Pending");
  auto volumes = client.send(http::verb::get, "/api/v1/persistentvolumes").json();
  EXPECT_EQ(stringAt(volumes, {"kind"}), "PersistentVolumeList");
  EXPECT_EQ(volumes.at("items").as_array().size(), 1u);
  volume["status"] = json::object{{"phase", "Available"}};
  EXPECT_EQ(stringAt(server_->updateStatus("persistentvolumes", volume), {"status", "phase"}),
            "Available");
  // storage.k8s.io: StorageClasses are written whole and have no status subresource.
  const std::string classes = "/apis/storage.k8s.io/v1/storageclasses";
  auto cls = client.send(http::verb::post, classes,
                         R"({"metadata":{"name":"zonal"},"provisioner":"ebs.csi.aws.com",)"
                         R"("volumeBindingMode":"WaitForFirstConsumer"})");
  ASSERT_EQ(cls.status, 201) << cls.body;
  EXPECT_EQ(stringAt(cls.json(), {"apiVersion"}), "storage.k8s.io/v1");
  EXPECT_EQ(client.send(http::verb::get, classes + "/zonal").status, 200);
  const std::string mergePatch = "application/merge-patch+json";
  EXPECT_EQ(client.send(http::verb::patch, classes + "/zonal/status", "{}", mergePatch).status,
            404);
  EXPECT_THAT(client.send(http::verb::get, "/apis").body,
              HasSubstr(R"("groupVersion":"storage.k8s.io/v1")"));
}

TEST_F(FakeApiServerTest, DeleteChecksPreconditionsAndSendsDeleted) {
  startServer();
  auto stored = server_->create("pods", pod("p"));
  auto stream = watch("/api/v1/pods?watch=1&resourceVersion=" + rvOf(stored));
  auto client = connect();
  auto mismatch = client.send(http::verb::delete_, "/api/v1/namespaces/default/pods/p",
                              R"({"preconditions":{"uid":"someone-else"}})");
  EXPECT_EQ(mismatch.status, 409);
  EXPECT_THAT(stringAt(mismatch.json(), {"message"}),
              HasSubstr("Precondition failed: UID in precondition: someone-else"));
  auto ok = client.send(
      http::verb::delete_, "/api/v1/namespaces/default/pods/p",
      R"({"preconditions":{"uid":")" + stringAt(stored, {"metadata", "uid"}) + R"("}})");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(nameOf(ok.json()), "p");
  EXPECT_FALSE(server_->get("pods", "default", "p").has_value());
  auto event = stream.nextEvent();
  EXPECT_EQ(stringAt(event, {"type"}), "DELETED");
  EXPECT_EQ(client.send(http::verb::delete_, "/api/v1/namespaces/default/pods/p").status, 404);
}

TEST_F(FakeApiServerTest, LeasesUseOptimisticConcurrency) {
  startServer();
  auto client = connect();
  const std::string base = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
  auto missing = client.send(http::verb::get, base + "/sched");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(stringAt(missing.json(), {"message"}),
            "leases.coordination.k8s.io \"sched\" not found");
  std::string lease =
      R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"sched","namespace":"kube-system"},"spec":{"holderIdentity":"a","leaseDurationSeconds":15}})";
  auto created = client.send(http::verb::post, base, lease);
  ASSERT_EQ(created.status, 201) << created.body;
  auto exists = client.send(http::verb::post, base, lease);
  EXPECT_EQ(exists.status, 409);
  EXPECT_EQ(stringAt(exists.json(), {"reason"}), "AlreadyExists");
  auto current = client.send(http::verb::get, base + "/sched").json();
  auto renewed = current;
  renewed["spec"].as_object()["holderIdentity"] = "b";
  auto ok = client.send(http::verb::put, base + "/sched", json::serialize(renewed));
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(stringAt(ok.json(), {"spec", "holderIdentity"}), "b");
  EXPECT_NE(rvOf(ok.json()), rvOf(current));
  // The same stale resourceVersion again: the object has moved on.
  auto stale = client.send(http::verb::put, base + "/sched", json::serialize(renewed));
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stringAt(stale.json(), {"message"}),
            "Operation cannot be fulfilled on leases.coordination.k8s.io \"sched\": the object "
            "has been modified; please apply your changes to the latest version and try again");
}

// The API server stops answering Lease requests (it reads them and never answers) while every
// other request still works. The leader's renew used to wait the transport's request timeout
// (30 s) and lead meanwhile, past the point where another replica may take the Lease. Each try
// now runs under the renew deadline, and leadership ends at the deadline itself: lost within
// renewDeadline and a margin, long before the Lease could expire for anyone else.
TEST_F(FakeApiServerTest, ALeaderWhoseLeaseRequestsGetNoAnswerLosesWithinTheRenewDeadline) {
  using namespace std::chrono_literals;
  startServer();
  kube::HttpsTransport::Options to;
  to.config.server = server_->url();
  to.config.caPem = material().caCert;
  to.config.token = "good-token";
  to.qps = 0;
  std::string error;
  std::unique_ptr<kube::HttpsTransport> transport = kube::HttpsTransport::create(to, error);
  ASSERT_TRUE(transport) << error;
  kube::LeaderElector::Options eo;
  eo.identity = "replica-a";
  eo.leaseDuration = 60s;  // another replica could take the Lease only this long after a renew
  eo.renewDeadline = 2s;
  eo.retryPeriod = 500ms;
  kube::LeaderElector elector(*transport, eo);
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::atomic<std::chrono::steady_clock::rep> stoppedAt{0};
  std::atomic<bool> returned{false};
  kube::LeaderElector::Callbacks callbacks;
  callbacks.onStartedLeading = [&] { ++started; };
  callbacks.onStoppedLeading = [&] {
    stoppedAt = std::chrono::steady_clock::now().time_since_epoch().count();
    ++stopped;
  };
  std::jthread runner([&](std::stop_token stop) {
    elector.run(stop, callbacks);
    returned = true;
  });
  const auto waitLong = [](const std::function<bool()>& done) {
    const auto until = std::chrono::steady_clock::now() + 40s;
    while (!done() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(5ms);
    }
    return done();
  };
  ASSERT_TRUE(waitLong([&] { return started == 1; }));
  ASSERT_TRUE(waitLong([&] {
    auto lease = server_->get("leases", "kube-system", "schedhost");
    return lease && stringAt(*lease, {"spec", "holderIdentity"}) == "replica-a";
  }));

  server_->stall("GET /apis/coordination.k8s.io/");
  server_->stall("PUT /apis/coordination.k8s.io/");
  const auto stalled = std::chrono::steady_clock::now();
  // Everything else is still answered.
  EXPECT_EQ(transport->get("/api/v1/namespaces/default/pods").status, 200);
  ASSERT_TRUE(waitLong([&] { return stopped == 1; }));
  const auto lostAfter =
      std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(stoppedAt.load())) -
      stalled;
  // renewDeadline (2 s) after the last renew, which came before the stall, and a generous margin
  // for a loaded machine: far below the 30 s the renew used to wait, and the lease duration.
  EXPECT_LT(lostAfter, 12s);
  EXPECT_FALSE(elector.isLeader());
  EXPECT_EQ(started, 1);
  // run() returns by itself: the renew that got no answer ended with its try's deadline.
  ASSERT_TRUE(waitLong([&] { return returned.load(); }));
  EXPECT_EQ(stopped, 1);
  // The Lease is as the last renew left it: held, not released (release needs the server).
  auto lease = server_->get("leases", "kube-system", "schedhost");
  ASSERT_TRUE(lease);
  EXPECT_EQ(stringAt(*lease, {"spec", "holderIdentity"}), "replica-a");
}

TEST_F(FakeApiServerTest, EventsAreCreatedAndPatched) {
  startServer();
  auto client = connect();
  const std::string base = "/apis/events.k8s.io/v1/namespaces/default/events";
  auto created = client.send(
      http::verb::post, base,
      R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"p.1","namespace":"default"},"reason":"Scheduled","note":"bound","series":null})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto patched = client.send(http::verb::patch, base + "/p.1",
                             R"({"series":{"count":2,"lastObservedTime":"2026-01-01T00:00:00Z"}})",
                             "application/strategic-merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json().at("series").as_object().at("count").as_int64(), 2);
  EXPECT_EQ(client.send(http::verb::patch, base + "/missing", "{}", "application/merge-patch+json")
                .status,
            404);
  EXPECT_EQ(server_->list("events").size(), 1u);
}

TEST_F(FakeApiServerTest, AuthenticatesTokensAndClientCertificates) {
  startServer();
  auto anonymous = connect({"", false}).send(http::verb::get, "/api");
  EXPECT_EQ(anonymous.status, 401);
  auto status = anonymous.json();
  EXPECT_EQ(stringAt(status, {"message"}), "Unauthorized");
  EXPECT_EQ(stringAt(status, {"reason"}), "Unauthorized");
  EXPECT_EQ(connect({"wrong", false}).send(http::verb::get, "/api").status, 401);
  EXPECT_EQ(connect({"good-token", false}).send(http::verb::get, "/api").status, 200);
  EXPECT_EQ(connect({"", true}).send(http::verb::get, "/version").status, 200);
  server_->setTokens({"new-token"});
  EXPECT_EQ(connect({"good-token", false}).send(http::verb::get, "/api").status, 401);
  EXPECT_EQ(connect({"new-token", false}).send(http::verb::get, "/api").status, 200);
  std::vector<std::string> users;
  for (const auto& request : server_->requests()) {
    if (request.status == 200) users.push_back(request.user);
  }
  EXPECT_THAT(users, ::testing::ElementsAre("good-token", "cert-user", "new-token"));
}

TEST_F(FakeApiServerTest, FailNextInjectsErrorsThenRecovers) {
  startServer();
  server_->create("pods", pod("p"));
  server_->failNext("POST /api/v1/namespaces/", 429, 2, 3);
  server_->failNext("GET /api/v1/pods", 503, 1);
  auto client = connect();
  const std::string path = "/api/v1/namespaces/default/pods/p/binding";
  for (int i = 0; i < 2; ++i) {
    auto limited = client.send(http::verb::post, path, binding("p", "n1", ""));
    EXPECT_EQ(limited.status, 429);
    EXPECT_EQ(limited.retryAfter, "3");
    EXPECT_EQ(stringAt(limited.json(), {"reason"}), "TooManyRequests");
  }
  EXPECT_EQ(client.send(http::verb::post, path, binding("p", "n1", "")).status, 201);
  EXPECT_EQ(client.send(http::verb::get, "/api/v1/pods?limit=5").status, 503);
  EXPECT_EQ(client.send(http::verb::get, "/api/v1/pods?limit=5").status, 200);
}

TEST_F(FakeApiServerTest, RecordsEveryRequest) {
  startServer();
  server_->create("pods", pod("p"));
  auto client = connect();
  client.send(http::verb::get, "/api/v1/pods?limit=10&fieldSelector=spec.nodeName%3D");
  client.send(http::verb::post, "/api/v1/namespaces/default/pods/p/binding", binding("p", "n", ""));
  client.send(http::verb::patch, "/api/v1/namespaces/default/pods/p/status", R"({"status":{}})",
              "application/merge-patch+json");
  client.send(http::verb::get, "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l");
  client.send(http::verb::get, "/no/such/thing");
  { auto stream = watch("/api/v1/nodes?watch=1&resourceVersion=0"); }
  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 6u);
  EXPECT_EQ(requests[0].verb, "list");
  EXPECT_EQ(requests[0].resource, "pods");
  EXPECT_EQ(requests[0].path, "/api/v1/pods");
  EXPECT_EQ(requests[0].query, "limit=10&fieldSelector=spec.nodeName%3D");
  EXPECT_EQ(requests[0].user, "good-token");
  EXPECT_EQ(requests[1].verb, "create");
  EXPECT_EQ(requests[1].resource, "pods/binding");
  EXPECT_EQ(requests[1].status, 201);
  EXPECT_THAT(requests[1].body, HasSubstr("\"Binding\""));
  EXPECT_EQ(requests[2].verb, "patch");
  EXPECT_EQ(requests[2].resource, "pods/status");
  EXPECT_EQ(requests[2].contentType, "application/merge-patch+json");
  EXPECT_EQ(requests[3].apiGroup, "coordination.k8s.io");
  EXPECT_EQ(requests[3].resource, "leases");
  EXPECT_EQ(requests[3].status, 404);
  EXPECT_EQ(requests[4].status, 404);
  EXPECT_EQ(requests[5].verb, "watch");
  EXPECT_EQ(requests[5].resource, "nodes");
  server_->clearRequests();
  EXPECT_TRUE(server_->requests().empty());
}

TEST_F(FakeApiServerTest, ServesVersionAndStatusBodiesForUnknownPaths) {
  startServer();
  auto client = connect();
  auto version = client.send(http::verb::get, "/version");
  ASSERT_EQ(version.status, 200);
  EXPECT_EQ(stringAt(version.json(), {"major"}), "1");
  auto unknown = client.send(http::verb::get, "/apis/unknown.io/v1/things");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(stringAt(unknown.json(), {"kind"}), "Status");
  EXPECT_EQ(stringAt(unknown.json(), {"reason"}), "NotFound");
  auto create = client.send(http::verb::post, "/apis/apps/v1/namespaces/default/replicasets",
                            R"({"metadata":{"name":"rs"},"spec":{"replicas":1}})");
  ASSERT_EQ(create.status, 201) << create.body;
  EXPECT_EQ(stringAt(create.json(), {"apiVersion"}), "apps/v1");
  EXPECT_EQ(stringAt(create.json(), {"metadata", "namespace"}), "default");
  auto list = client.send(http::verb::get, "/apis/apps/v1/replicasets").json();
  EXPECT_EQ(stringAt(list, {"kind"}), "ReplicaSetList");
  EXPECT_EQ(list.at("items").as_array().size(), 1u);
  auto bad = client.send(http::verb::post, "/api/v1/nodes", "not json");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(stringAt(bad.json(), {"kind"}), "Status");
}

TEST_F(FakeApiServerTest, ServesHundredsOfKeepAliveConnectionsAndStopClosesThem) {
  startServer();
  server_->create("nodes", json::object{{"metadata", {{"name", "n1"}}}});
  std::vector<std::unique_ptr<Connection>> clients;
  for (int i = 0; i < 200; ++i) {
    clients.push_back(
        std::make_unique<Connection>(server_->port(), false, Credentials{"good-token", false}));
  }
  for (int round = 0; round < 2; ++round) {
    for (auto& client : clients) {
      ASSERT_EQ(client->send(http::verb::get, "/api/v1/nodes/n1").status, 200);
    }
  }
  auto stream = watch("/api/v1/nodes?watch=1&resourceVersion=0");
  EXPECT_EQ(stringAt(stream.nextEvent(), {"type"}), "ADDED");
  auto start = std::chrono::steady_clock::now();
  server_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_FALSE(stream.next().has_value());
  EXPECT_FALSE(stream.cleanEnd);
  EXPECT_THROW(clients.front()->send(http::verb::get, "/api/v1/nodes/n1"), std::exception);
}

TEST(FakeApiServerJson, LabelSelectors) {
  json::object object{{"metadata", {{"labels", {{"app", "web"}, {"tier", "front"}}}}}};
  EXPECT_TRUE(Selector::parseLabels("app=web,tier").matches(object));
  EXPECT_TRUE(Selector::parseLabels("app in (db, web),!missing").matches(object));
  EXPECT_FALSE(Selector::parseLabels("app notin (web)").matches(object));
  EXPECT_FALSE(Selector::parseLabels("tier!=front").matches(object));
  EXPECT_TRUE(Selector::parseLabels("").matches(object));
  EXPECT_THROW(Selector::parseLabels("app in (web"), std::invalid_argument);
}

}  // namespace
}  // namespace sh::kubetest::fake_apiserver_test

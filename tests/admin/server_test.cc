#include "host/admin/server.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "host/admin/client.h"
#include "tests/admin/fake_handler.h"

namespace sh::admin::server_test {
namespace {

using namespace std::chrono_literals;
using testing::FakeHandler;
using testing::RawSocket;
using testing::TempDir;

ServerOptions tcpOptions() {
  ServerOptions options;
  options.address = "127.0.0.1:0";
  return options;
}

Endpoint tcpEndpoint(const Server& server) {
  return Endpoint{"127.0.0.1:" + std::to_string(server.tcpPort()), ""};
}

// Polls `done` until it holds or `limit` passes: a wait, never an assertion on time.
template <class Predicate>
bool waitFor(Predicate done, std::chrono::milliseconds limit = 20s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

void expectProbesAnswer(const Endpoint& endpoint) {
  for (const char* path : {"/healthz", "/livez", "/readyz"}) {
    auto response = request(endpoint, "GET", path, 5s);
    ASSERT_TRUE(response.ok()) << path << ": " << response.error;
    EXPECT_EQ(response.status, 200) << path;
    EXPECT_EQ(response.body, "ok\n") << path;
  }
}

void expectRoutes(const Endpoint& endpoint) {
  auto health = request(endpoint, "GET", "/healthz", 5s);
  ASSERT_TRUE(health.ok()) << health.error;
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.contentType, "text/plain; charset=utf-8");
  EXPECT_EQ(health.body, "ok\n");

  auto live = request(endpoint, "GET", "/livez", 5s);
  EXPECT_EQ(live.status, 200);
  EXPECT_EQ(live.body, "ok\n");

  auto ready = request(endpoint, "GET", "/readyz", 5s);
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, "ok\n");

  auto config = request(endpoint, "GET", "/configz", 5s);
  EXPECT_EQ(config.status, 200);
  EXPECT_EQ(config.contentType, "application/json");
  EXPECT_EQ(config.body, R"({"parallelism":16})");

  auto metrics = request(endpoint, "GET", "/metrics", 5s);
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.contentType, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(metrics.body, "# TYPE schedhost_up gauge\nschedhost_up 1\n");

  auto status = request(endpoint, "GET", "/status?verbose=1", 5s);
  EXPECT_EQ(status.status, 200);
  EXPECT_EQ(status.contentType, "application/json");
  EXPECT_EQ(status.body, R"({"generation":1,"ready":true})");

  // A handler that keeps no attempt: /debug/pods answers 404, and only to GET and HEAD.
  auto pod = request(endpoint, "GET", "/debug/pods/ns/web", 5s);
  EXPECT_EQ(pod.status, 404);
  EXPECT_EQ(request(endpoint, "POST", "/debug/pods/ns/web", 5s).status, 405);

  auto reload = request(endpoint, "POST", "/reload", 5s);
  EXPECT_EQ(reload.status, 200);
  EXPECT_EQ(reload.contentType, "application/json");
  EXPECT_NE(reload.body.find(R"("result":"Applied")"), std::string::npos);

  auto missing = request(endpoint, "GET", "/nope", 5s);
  EXPECT_EQ(missing.status, 404);
  auto wrongMethod = request(endpoint, "POST", "/status", 5s);
  EXPECT_EQ(wrongMethod.status, 405);
  auto getReload = request(endpoint, "GET", "/reload", 5s);
  EXPECT_EQ(getReload.status, 405);
  auto head = request(endpoint, "HEAD", "/healthz", 5s);
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

TEST(AdminServer, RoutesOverTcp) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  ASSERT_NE(server.tcpPort(), 0);
  expectRoutes(tcpEndpoint(server));
}

TEST(AdminServer, RoutesOverUnixSocket) {
  TempDir dir;
  FakeHandler handler;
  ServerOptions options;
  options.socket = (dir.path() / "admin.sock").string();
  Server server(options, handler);
  Status started = server.start();
  ASSERT_TRUE(started.ok()) << started.message();
  EXPECT_EQ(server.tcpPort(), 0);
  struct stat st {};
  ASSERT_EQ(::lstat(options.socket.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660);
  expectRoutes(Endpoint{"", options.socket});
  server.stop();
  EXPECT_FALSE(std::filesystem::exists(options.socket)) << "the socket is removed on stop()";
}

TEST(AdminServer, BothListenersAtOnce) {
  TempDir dir;
  FakeHandler handler;
  ServerOptions options = tcpOptions();
  options.socket = (dir.path() / "admin.sock").string();
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  EXPECT_EQ(request(tcpEndpoint(server), "GET", "/healthz", 5s).status, 200);
  EXPECT_EQ(request(Endpoint{"", options.socket}, "GET", "/healthz", 5s).status, 200);
}

TEST(AdminServer, ProbesNotOk) {
  FakeHandler handler;
  handler.healthProbe = Probe{false, "connector lost"};
  handler.readyProbe = Probe{false, "initial cluster state not loaded"};
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto endpoint = tcpEndpoint(server);
  auto health = request(endpoint, "GET", "/healthz", 5s);
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.body, "connector lost\n");
  auto ready = request(endpoint, "GET", "/readyz", 5s);
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.contentType, "text/plain; charset=utf-8");
  EXPECT_EQ(ready.body, "not ready: initial cluster state not loaded\n");
}

TEST(AdminServer, ReloadRejectedIs422) {
  FakeHandler handler;
  handler.reloadOutcome = {false, R"({"kind":"Reload","generation":1,"result":"Rejected",)"
                                  R"("changed":[],"error":"bad profile"})"};
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto reload = request(tcpEndpoint(server), "POST", "/reload", 5s);
  EXPECT_EQ(reload.status, 422);
  EXPECT_EQ(reload.contentType, "application/json");
  EXPECT_NE(reload.body.find("bad profile"), std::string::npos);
}

TEST(AdminServer, HandlerExceptionIs500) {
  FakeHandler handler;
  handler.statusThrows = true;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto status = request(tcpEndpoint(server), "GET", "/status", 5s);
  EXPECT_EQ(status.status, 500);
  EXPECT_NE(status.body.find("status exploded"), std::string::npos);
  EXPECT_EQ(request(tcpEndpoint(server), "GET", "/healthz", 5s).status, 200);
}

TEST(AdminServer, MethodNotAllowedNamesAllow) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto socket = RawSocket::tcp(server.tcpPort());
  ASSERT_TRUE(socket.connected());
  socket.send("DELETE /reload HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string answer = socket.readAll(5s);
  EXPECT_NE(answer.find("HTTP/1.1 405"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Allow: POST\r\n"), std::string::npos) << answer;
  auto socket2 = RawSocket::tcp(server.tcpPort());
  socket2.send("PUT /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  answer = socket2.readAll(5s);
  EXPECT_NE(answer.find("Allow: GET, HEAD\r\n"), std::string::npos) << answer;
}

TEST(AdminServer, KeepAliveServesSeveralRequests) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto socket = RawSocket::tcp(server.tcpPort());
  socket.send(
      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /livez HTTP/1.1\r\nHost: x\r\n"
      "Connection: close\r\n\r\n");
  bool eof = false;
  std::string answer = socket.readAll(5s, &eof);
  EXPECT_TRUE(eof);
  auto first = answer.find("HTTP/1.1 200");
  ASSERT_NE(first, std::string::npos) << answer;
  EXPECT_NE(answer.find("HTTP/1.1 200", first + 1), std::string::npos) << answer;
}

TEST(AdminServerHostile, GarbageIs400AndClosed) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto socket = RawSocket::tcp(server.tcpPort());
  socket.send(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 garbage\r\n\r\n", 21));
  bool eof = false;
  std::string answer = socket.readAll(5s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 400", 0), 0u) << answer;
  EXPECT_TRUE(eof) << "the connection is closed after a 400";
  auto socket2 = RawSocket::tcp(server.tcpPort());
  socket2.send("HELLO WORLD\r\n\r\n");
  EXPECT_EQ(socket2.readAll(5s).rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_EQ(request(tcpEndpoint(server), "GET", "/healthz", 5s).status, 200);
}

TEST(AdminServerHostile, OversizedHeadersAre431) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto socket = RawSocket::tcp(server.tcpPort());
  std::string huge =
      "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(16 * 1024, 'a') + "\r\n\r\n";
  socket.send(huge);
  bool eof = false;
  std::string answer = socket.readAll(5s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431", 0), 0u) << answer.substr(0, 100);
  EXPECT_TRUE(eof);
}

TEST(AdminServerHostile, OversizedBodyIs413) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto socket = RawSocket::tcp(server.tcpPort());
  socket.send("POST /reload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  bool eof = false;
  std::string answer = socket.readAll(5s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 413", 0), 0u) << answer;
  EXPECT_TRUE(eof);
  EXPECT_EQ(handler.reloadsStarted.load(), 0);

  // A body sent whole and over the limit: the answer still arrives.
  auto socket2 = RawSocket::tcp(server.tcpPort());
  socket2.send("POST /reload HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n" +
               std::string(70000, 'x'));
  EXPECT_EQ(socket2.readAll(5s).rfind("HTTP/1.1 413", 0), 0u);
}

TEST(AdminServerHostile, SilentClientIsDroppedOthersServed) {
  FakeHandler handler;
  ServerOptions options = tcpOptions();
  options.readTimeout = 300ms;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  auto silent = RawSocket::tcp(server.tcpPort());
  ASSERT_TRUE(silent.connected());
  auto slow = RawSocket::tcp(server.tcpPort());
  slow.send("GET /healthz HTTP/1.1\r\n");  // and never the rest
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(request(tcpEndpoint(server), "GET", "/healthz", 5s).status, 200);
  }
  bool eof = false;
  std::string answer = silent.readAll(5s, &eof);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(eof) << "the silent client is disconnected";
  EXPECT_EQ(answer, "");
  EXPECT_LT(elapsed, 3s);
  slow.readAll(5s, &eof);
  EXPECT_TRUE(eof) << "the slow client is disconnected";
  EXPECT_EQ(request(tcpEndpoint(server), "GET", "/healthz", 5s).status, 200);
}

TEST(AdminServerHostile, ConnectionCap) {
  FakeHandler handler;
  ServerOptions options = tcpOptions();
  options.maxConnections = 2;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  std::vector<RawSocket> held;
  held.push_back(RawSocket::tcp(server.tcpPort()));
  held.push_back(RawSocket::tcp(server.tcpPort()));
  for (int i = 0; i < 100 && server.connectionCount() < 2; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(server.connectionCount(), 2u);
  auto extra = RawSocket::tcp(server.tcpPort());
  bool eof = false;
  std::string answer = extra.readAll(5s, &eof);
  EXPECT_TRUE(eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  held.clear();
  // Once the held connections go, new ones are served again.
  int status = 0;
  for (int i = 0; i < 100 && status != 200; ++i) {
    status = request(tcpEndpoint(server), "GET", "/healthz", 5s).status;
    if (status != 200) std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(status, 200);
}

TEST(AdminServerStop, PromptWithSilentClient) {
  FakeHandler handler;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto silent = RawSocket::tcp(server.tcpPort());
  auto partial = RawSocket::tcp(server.tcpPort());
  partial.send("GET /status HTTP/1.1\r\nHo");
  for (int i = 0; i < 100 && server.connectionCount() < 2; ++i) std::this_thread::sleep_for(10ms);
  auto start = std::chrono::steady_clock::now();
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
  bool eof = false;
  silent.readAll(2s, &eof);
  EXPECT_TRUE(eof);
  server.stop();  // idempotent
}

TEST(AdminServerStop, PromptDuringReload) {
  FakeHandler handler;
  handler.blockReload = true;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto endpoint = tcpEndpoint(server);
  ClientResponse reload;
  std::thread client([&] { reload = request(endpoint, "POST", "/reload", 10s); });
  for (int i = 0; i < 200 && handler.reloadsStarted.load() == 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(handler.reloadsStarted.load(), 1);
  // A reload in progress holds up no other endpoint.
  auto health = request(endpoint, "GET", "/healthz", 5s);
  EXPECT_EQ(health.status, 200);
  auto start = std::chrono::steady_clock::now();
  server.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
  client.join();
  EXPECT_FALSE(reload.ok()) << "the reload's connection was closed, not answered";
}

TEST(AdminServerStop, ReloadFinishesWhenReleased) {
  FakeHandler handler;
  handler.blockReload = true;
  Server server(tcpOptions(), handler);
  ASSERT_TRUE(server.start().ok());
  auto endpoint = tcpEndpoint(server);
  ClientResponse reload;
  std::thread client([&] { reload = request(endpoint, "POST", "/reload", 10s); });
  for (int i = 0; i < 200 && handler.reloadsStarted.load() == 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  handler.releaseReload();
  client.join();
  EXPECT_EQ(reload.status, 200);
}

TEST(AdminServerSocket, StaleSocketIsReplaced) {
  TempDir dir;
  std::string path = (dir.path() / "admin.sock").string();
  {
    // A socket left behind: bound, then closed without unlinking.
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  ASSERT_TRUE(std::filesystem::is_socket(path));
  FakeHandler handler;
  ServerOptions options;
  options.socket = path;
  Server server(options, handler);
  Status started = server.start();
  ASSERT_TRUE(started.ok()) << started.message();
  EXPECT_EQ(request(Endpoint{"", path}, "GET", "/healthz", 5s).status, 200);
}

TEST(AdminServerSocket, NotASocketIsRefused) {
  TempDir dir;
  std::string path = (dir.path() / "admin.sock").string();
  std::ofstream(path) << "precious";
  FakeHandler handler;
  ServerOptions options;
  options.socket = path;
  Server server(options, handler);
  Status started = server.start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.message().find(path), std::string::npos) << started.message();
  EXPECT_NE(started.message().find("not a socket"), std::string::npos) << started.message();
  std::ifstream in(path);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST(AdminServerSocket, MissingDirectoryNamesPathAndCause) {
  FakeHandler handler;
  ServerOptions options;
  options.socket = "/nonexistent-dir-for-schedhost/admin.sock";
  Server server(options, handler);
  Status started = server.start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.message().find(options.socket), std::string::npos) << started.message();
  EXPECT_NE(started.message().find("No such file or directory"), std::string::npos)
      << started.message();
}

TEST(AdminServerAddress, PortInUse) {
  FakeHandler handler;
  Server first(tcpOptions(), handler);
  ASSERT_TRUE(first.start().ok());
  ServerOptions options;
  options.address = "127.0.0.1:" + std::to_string(first.tcpPort());
  Server second(options, handler);
  Status started = second.start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.message().find(options.address), std::string::npos) << started.message();
  EXPECT_NE(started.message().find("in use"), std::string::npos) << started.message();
}

TEST(AdminServerAddress, BadAddress) {
  FakeHandler handler;
  for (std::string address : {"127.0.0.1:http", "127.0.0.1:70000", "::1:80", "[::1"}) {
    ServerOptions options;
    options.address = address;
    Server server(options, handler);
    Status started = server.start();
    ASSERT_FALSE(started.ok()) << address;
    EXPECT_NE(started.message().find(address), std::string::npos) << started.message();
  }
}

TEST(AdminServerAddress, DefaultHost) {
  TcpAddress parsed;
  ASSERT_TRUE(parseTcpAddress(":10259", parsed).ok());
  EXPECT_EQ(parsed.host, "127.0.0.1");
  EXPECT_EQ(parsed.port, 10259);
  ASSERT_TRUE(parseTcpAddress("10259", parsed).ok());
  EXPECT_EQ(parsed.host, "127.0.0.1");
  ASSERT_TRUE(parseTcpAddress("[::1]:8080", parsed).ok());
  EXPECT_EQ(parsed.host, "::1");
  EXPECT_EQ(parsed.port, 8080);
  FakeHandler handler;
  ServerOptions options;
  options.address = ":0";
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  EXPECT_EQ(
      request(Endpoint{":" + std::to_string(server.tcpPort()), ""}, "GET", "/livez", 5s).status,
      200);
}

// Idle connections beyond the cap used to fill it, and /healthz then got 503 "too many
// connections" (the kubelet killed the pod). Eight peers hold 10 idle connections each: the
// 64 the cap serves and 16 more in the probe lane. Probes still answer, from a peer already
// holding connections and from a new one; anything else gets 503 naming the limit.
TEST(AdminServerHostile, IdleConnectionsBeyondTheCapLeaveProbesAnswering) {
  FakeHandler handler;
  ServerOptions options = tcpOptions();
  options.idleTimeout = 60s;  // the idle connections stay for the whole test
  options.readTimeout = 60s;
  options.probeLaneTimeout = 60s;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  ASSERT_EQ(options.maxConnections, 64u);
  std::vector<RawSocket> idle;
  for (int peer = 1; peer <= 8; ++peer) {
    std::string source = "127.0.0." + std::to_string(peer);
    for (int i = 0; i < 10; ++i) {
      idle.push_back(RawSocket::tcpFrom(server.tcpPort(), source.c_str()));
      ASSERT_TRUE(idle.back().connected()) << source;
    }
  }
  ASSERT_TRUE(waitFor([&] { return server.connectionCount() == 80; })) << server.connectionCount();
  expectProbesAnswer(tcpEndpoint(server));
  auto fresh = RawSocket::tcpFrom(server.tcpPort(), "127.0.0.9");
  fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  bool eof = false;
  std::string answer = fresh.readAll(10s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << answer;
  EXPECT_TRUE(eof) << "a probe beyond the cap is answered and closed";
  auto status = request(tcpEndpoint(server), "GET", "/status", 5s);
  EXPECT_EQ(status.status, 503);
  EXPECT_EQ(status.body,
            "too many connections: 64 connections are open (at most 64); only /healthz, /livez "
            "and /readyz are answered beyond that\n");
  // Lane connections that were closed for newer arrivals, and the served ones, are intact in
  // number: the cap still holds.
  EXPECT_LE(server.connectionCount(), 80u);
}

// The same over the Unix socket, where every connection comes from this one process: past the
// per-peer limit (16) and the probe lane (16), probes still answer.
TEST(AdminServerHostile, IdleUnixConnectionsLeaveProbesAnswering) {
  TempDir dir;
  FakeHandler handler;
  ServerOptions options;
  options.socket = (dir.path() / "admin.sock").string();
  options.idleTimeout = 60s;
  options.readTimeout = 60s;
  options.probeLaneTimeout = 60s;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  std::vector<RawSocket> idle;
  for (int i = 0; i < 64 + 16; ++i) {
    idle.push_back(RawSocket::local(options.socket));
    ASSERT_TRUE(idle.back().connected());
  }
  ASSERT_TRUE(waitFor([&] { return server.connectionCount() == 32; })) << server.connectionCount();
  expectProbesAnswer(Endpoint{"", options.socket});
  auto status = request(Endpoint{"", options.socket}, "GET", "/status", 5s);
  EXPECT_EQ(status.status, 503);
  EXPECT_EQ(status.body, "too many connections: 16 connections from pid " +
                             std::to_string(::getpid()) +
                             " are open (at most 16 per peer); only /healthz, /livez and /readyz "
                             "are answered beyond that\n");
}

// One peer past its limit gets only probes; other peers are served in full.
TEST(AdminServerHostile, PerPeerLimit) {
  FakeHandler handler;
  ServerOptions options = tcpOptions();
  options.maxConnectionsPerPeer = 2;
  options.idleTimeout = 60s;
  options.readTimeout = 60s;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  std::vector<RawSocket> held;
  held.push_back(RawSocket::tcpFrom(server.tcpPort(), "127.0.0.2"));
  held.push_back(RawSocket::tcpFrom(server.tcpPort(), "127.0.0.2"));
  ASSERT_TRUE(waitFor([&] { return server.connectionCount() == 2; }));
  auto status = request(tcpEndpoint(server), "GET", "/status", 5s);
  EXPECT_EQ(status.status, 200) << "another peer is served in full";
  EXPECT_EQ(status.body, R"({"generation":1,"ready":true})");

  auto third = RawSocket::tcpFrom(server.tcpPort(), "127.0.0.2");
  third.send("GET /status HTTP/1.1\r\nHost: x\r\n\r\n");
  bool eof = false;
  std::string answer = third.readAll(10s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  EXPECT_NE(answer.find("\r\n\r\ntoo many connections: 2 connections from 127.0.0.2 are open "
                        "(at most 2 per peer); only /healthz, /livez and /readyz are answered "
                        "beyond that\n"),
            std::string::npos)
      << answer;
  EXPECT_TRUE(eof);

  auto probe = RawSocket::tcpFrom(server.tcpPort(), "127.0.0.2");
  probe.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n");
  answer = probe.readAll(10s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << answer;
  EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
  EXPECT_TRUE(eof);
}

// A connection that sends nothing is closed after the idle timeout, long before the read
// timeout; one that started its request may finish it within the read timeout.
TEST(AdminServerHostile, IdleTimeout) {
  FakeHandler handler;
  ServerOptions options = tcpOptions();
  options.idleTimeout = 1s;
  options.readTimeout = 60s;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  auto silent = RawSocket::tcp(server.tcpPort());
  auto started = RawSocket::tcp(server.tcpPort());
  started.send("GET /healthz HTTP/1.1\r\n");
  bool eof = false;
  EXPECT_EQ(silent.readAll(30s, &eof), "");
  EXPECT_TRUE(eof) << "the silent connection is closed by the idle timeout";
  started.send("Host: x\r\nConnection: close\r\n\r\n");
  std::string answer = started.readAll(30s, &eof);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << answer;
}

// A non-loopback address needs the opt-in, and the message names the address and the opt-in.
TEST(AdminServerRemote, NonLoopbackRefusedWithoutOptIn) {
  FakeHandler handler;
  for (std::string address : {"0.0.0.0:0", "0.0.0.0:10251"}) {
    ServerOptions options;
    options.address = address;
    Server server(options, handler);
    Status started = server.start();
    ASSERT_FALSE(started.ok()) << address;
    EXPECT_EQ(started.message(),
              "cannot listen on admin address " + address +
                  ": not a loopback address, and the admin endpoints have no authentication; set "
                  "remoteHealthAndMetrics = true in [admin] to serve only /healthz, /livez, "
                  "/readyz and /metrics there, or listen on 127.0.0.1 or the admin socket");
    EXPECT_EQ(server.tcpPort(), 0);
  }
  // Loopback needs nothing.
  for (std::string address : {"127.0.0.1:0", "127.0.0.2:0", ":0"}) {
    ServerOptions options;
    options.address = address;
    Server server(options, handler);
    Status started = server.start();
    EXPECT_TRUE(started.ok()) << address << ": " << started.message();
  }
}

// With the opt-in, a non-loopback listener serves health, readiness and metrics only, to
// whoever connects; the Unix socket keeps every endpoint.
TEST(AdminServerRemote, OptInServesHealthAndMetricsOnly) {
  TempDir dir;
  FakeHandler handler;
  ServerOptions options;
  options.address = "0.0.0.0:0";
  options.socket = (dir.path() / "admin.sock").string();
  options.remoteHealthAndMetrics = true;
  Server server(options, handler);
  Status started = server.start();
  ASSERT_TRUE(started.ok()) << started.message();
  Endpoint remote = tcpEndpoint(server);
  expectProbesAnswer(remote);
  auto metrics = request(remote, "GET", "/metrics", 5s);
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.body, "# TYPE schedhost_up gauge\nschedhost_up 1\n");
  EXPECT_EQ(request(remote, "HEAD", "/healthz", 5s).status, 200);
  struct Refused {
    const char* method;
    const char* path;
  };
  for (Refused r :
       {Refused{"POST", "/reload"}, Refused{"GET", "/configz"}, Refused{"GET", "/status?x=1"},
        Refused{"GET", "/nope"}, Refused{"POST", "/healthz"}, Refused{"GET", "/reload"},
        Refused{"GET", "/debug/pods/ns/web?format=html"}}) {
    auto response = request(remote, r.method, r.path, 5s);
    ASSERT_TRUE(response.ok()) << response.error;
    EXPECT_EQ(response.status, 403) << r.method << " " << r.path;
    std::string path(r.path);
    path = path.substr(0, path.find('?'));
    EXPECT_EQ(response.body,
              "forbidden: " + path +
                  " is not served on admin address 0.0.0.0:0, which is not a loopback address: "
                  "the admin endpoints have no authentication, so it serves only GET /healthz, "
                  "/livez, /readyz and /metrics; use a loopback address or the admin socket\n");
  }
  EXPECT_EQ(handler.reloadsStarted.load(), 0);
  expectRoutes(Endpoint{"", options.socket});
  EXPECT_EQ(handler.reloadsStarted.load(), 1);
}

// A second server given the socket of a live one refuses to start and leaves it alone; the
// first one, stopped, removes it.
TEST(AdminServerSocket, LiveSocketIsNotTaken) {
  TempDir dir;
  std::string path = (dir.path() / "admin.sock").string();
  FakeHandler handler;
  ServerOptions options;
  options.socket = path;
  Server first(options, handler);
  ASSERT_TRUE(first.start().ok());
  struct stat before {};
  ASSERT_EQ(::lstat(path.c_str(), &before), 0);
  {
    Server second(options, handler);
    Status started = second.start();
    ASSERT_FALSE(started.ok());
    EXPECT_EQ(started.message(), "admin socket " + path + " is in use by another process");
  }
  struct stat after {};
  ASSERT_EQ(::lstat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "the live socket was not replaced";
  EXPECT_EQ(request(Endpoint{"", path}, "GET", "/healthz", 5s).status, 200);
  first.stop();
  EXPECT_FALSE(std::filesystem::exists(path));
}

// A server removes only the socket it bound: a path replaced meanwhile by another process's
// socket stays.
TEST(AdminServerSocket, StopLeavesAReplacedSocket) {
  TempDir dir;
  std::string path = (dir.path() / "admin.sock").string();
  FakeHandler handler;
  ServerOptions options;
  options.socket = path;
  Server server(options, handler);
  ASSERT_TRUE(server.start().ok());
  ASSERT_EQ(::unlink(path.c_str()), 0);
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 4), 0);
  struct stat theirs {};
  ASSERT_EQ(::lstat(path.c_str(), &theirs), 0);
  server.stop();
  struct stat after {};
  EXPECT_EQ(::lstat(path.c_str(), &after), 0) << "the other process's socket was removed";
  EXPECT_EQ(after.st_ino, theirs.st_ino);
  auto client = RawSocket::local(path);
  EXPECT_TRUE(client.connected());
  ::close(fd);
}

}  // namespace
}  // namespace sh::admin::server_test

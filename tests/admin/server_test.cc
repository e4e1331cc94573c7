#include "host/admin/server.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "host/admin/client.h"
#include "tests/admin/fake_handler.h"

namespace sh::admin {
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

}  // namespace
}  // namespace sh::admin

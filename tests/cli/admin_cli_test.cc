// schedhost status and schedhost reload, run as a user runs them, against an admin server with
// canned answers started by the test.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "host/admin/server.h"
#include "tests/admin/fake_handler.h"

namespace sh::admin::admin_cli_test {
namespace {

using testing::FakeHandler;
using testing::TempDir;

constexpr const char* kStatus = R"({"generation":3,"ready":true,"unknownField":{"x":1},
  "profiles":[{"schedulerName":"default-scheduler","plugins":{
    "QueueSort":["PrioritySort"],"Filter":["NodeResourcesFit","TaintToleration"],
    "Score":[{"name":"NodeResourcesFit","weight":1},{"name":"TaintToleration","weight":3}]}}],
  "queue":{"active":0,"backoff":0,"unschedulable":2,"gated":0},
  "bindingsInFlight":0,
  "podsWithoutProfile":[{"pod":"ns/name","schedulerName":"x"}],
  "retiredGenerationsInUse":[{"generation":2,"ageSeconds":1.5}],
  "lastReload":{"kind":"Reload","generation":3,"result":"Applied","changed":["default-scheduler"],"error":""}})";

struct CliRun {
  int exitCode = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class AdminCli : public ::testing::Test {
 protected:
  void SetUp() override {
    socket_ = (dir_.path() / "admin.sock").string();
    handler_.status = kStatus;
    ServerOptions options;
    options.address = "127.0.0.1:0";
    options.socket = socket_;
    server_ = std::make_unique<Server>(options, handler_);
    Status started = server_->start();
    ASSERT_TRUE(started.ok()) << started.message();
    address_ = "127.0.0.1:" + std::to_string(server_->tcpPort());
  }

  CliRun run(const std::string& args) {
    auto out = dir_.path() / "out";
    auto err = dir_.path() / "err";
    std::string command =
        std::string(SCHEDHOST_BIN) + " " + args + " >" + out.string() + " 2>" + err.string();
    int raw = std::system(command.c_str());
    CliRun result;
    result.exitCode = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
  }

  TempDir dir_;
  FakeHandler handler_;
  std::unique_ptr<Server> server_;
  std::string socket_;
  std::string address_;
};

TEST_F(AdminCli, StatusForPeople) {
  CliRun result = run("status --admin-address " + address_);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(result.out,
            "generation 3 (ready)\n"
            "profile default-scheduler\n"
            "  QueueSort: PrioritySort\n"
            "  Filter: NodeResourcesFit, TaintToleration\n"
            "  Score: NodeResourcesFit (weight 1), TaintToleration (weight 3)\n"
            "queue: active 0, backoff 0, unschedulable 2, gated 0\n"
            "bindings in flight: 0\n"
            "pods without a profile:\n"
            "  ns/name (schedulerName \"x\")\n"
            "generations draining:\n"
            "  generation 2, in use for 1.5 s\n"
            "last reload: applied: generation 3 (changed: default-scheduler)\n");
}

TEST_F(AdminCli, StatusToleratesMissingFields) {
  handler_.set([](FakeHandler& h) { h.status = R"({"generation":1,"ready":false})"; });
  CliRun result = run("status --admin-socket " + socket_);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out,
            "generation 1 (not ready)\n"
            "pods without a profile: none\n"
            "generations draining: none\n"
            "last reload: none\n");
}

TEST_F(AdminCli, StatusJson) {
  CliRun result = run("status --json --admin-socket " + socket_);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out, std::string(kStatus) + "\n");
}

TEST_F(AdminCli, StatusThroughConfig) {
  auto config = dir_.path() / "schedhost.toml";
  std::ofstream(config) << "[admin]\nsocket = \"" << socket_ << "\"\n";
  CliRun result = run("status --config " + config.string());
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out.rfind("generation 3 (ready)\n", 0), 0u) << result.out;
}

TEST_F(AdminCli, BadConfigPrintsDiagnostics) {
  auto config = dir_.path() / "schedhost.toml";
  std::ofstream(config) << "[admin]\nsocket = 3\n";
  CliRun result = run("status --config " + config.string());
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("schedhost.toml:2"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
}

TEST_F(AdminCli, ConfigWithoutAdmin) {
  auto config = dir_.path() / "schedhost.toml";
  std::ofstream(config) << "parallelism = 4\n";
  CliRun result = run("reload --config " + config.string());
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("schedhost reload: "), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("enables no admin endpoint"), std::string::npos) << result.err;
}

TEST_F(AdminCli, UsageErrors) {
  CliRun none = run("status");
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_NE(none.err.find("schedhost status: no admin endpoint"), std::string::npos) << none.err;
  CliRun both = run("reload --admin-address " + address_ + " --admin-socket " + socket_);
  EXPECT_EQ(both.exitCode, 2);
  EXPECT_NE(both.err.find("schedhost reload: give only one of"), std::string::npos) << both.err;
  CliRun bad = run("status --admin-address 127.0.0.1:notaport");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("bad admin address"), std::string::npos) << bad.err;
}

TEST_F(AdminCli, ReloadApplied) {
  handler_.set([](FakeHandler& h) {
    h.reloadOutcome = {true, R"({"kind":"Reload","generation":4,"result":"Applied",)"
                             R"("changed":["default-scheduler","batch"],"error":""})"};
  });
  CliRun result = run("reload --admin-address " + address_);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.out, "reload applied: generation 4 (changed: default-scheduler, batch)\n");
}

TEST_F(AdminCli, ReloadRejected) {
  handler_.set([](FakeHandler& h) {
    h.reloadOutcome = {false, R"({"kind":"Reload","generation":3,"result":"Rejected",)"
                              R"("changed":[],"error":"a.toml:4:3: bad weight\nb.toml:1:1: )"
                              R"(unknown plugin"})"};
  });
  CliRun result = run("reload --admin-socket " + socket_);
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_EQ(result.out, "reload rejected: a.toml:4:3: bad weight\nb.toml:1:1: unknown plugin\n");
}

TEST_F(AdminCli, ReloadUnexpectedAnswer) {
  handler_.set([](FakeHandler& h) { h.reloadOutcome = {true, "not json"}; });
  CliRun result = run("reload --admin-address " + address_);
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("schedhost reload: unexpected answer from " + address_ +
                            ": HTTP 200: not json"),
            std::string::npos)
      << result.err;
}

TEST_F(AdminCli, ReloadTimesOut) {
  handler_.set([](FakeHandler& h) { h.blockReload = true; });
  CliRun result = run("reload --timeout 0.3 --admin-address " + address_);
  handler_.releaseReload();
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("schedhost reload: no answer from " + address_ + " within 300 ms"),
            std::string::npos)
      << result.err;
}

TEST_F(AdminCli, Unreachable) {
  std::string address = address_;
  server_->stop();
  CliRun reload = run("reload --admin-address " + address);
  EXPECT_EQ(reload.exitCode, 2);
  EXPECT_EQ(reload.err,
            "schedhost reload: cannot connect to " + address + ": Connection refused\n");
  CliRun status = run("status --admin-socket " + socket_);
  EXPECT_EQ(status.exitCode, 2);
  EXPECT_EQ(status.err,
            "schedhost status: cannot connect to " + socket_ + ": No such file or directory\n");
}

TEST_F(AdminCli, StatusErrorAnswer) {
  handler_.set([](FakeHandler& h) { h.statusThrows = true; });
  CliRun result = run("status --admin-address " + address_);
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("schedhost status: " + address_ + " answered HTTP 500"),
            std::string::npos)
      << result.err;
}

// `schedhost run` as a second scheduler, its admin endpoints against what already runs. A
// cluster of one node and no pods: a run that gets past its start ends at once.
class AdminRun : public AdminCli {
 protected:
  std::string cluster() {
    auto path = dir_.path() / "cluster.json";
    std::ofstream(path) << R"({"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1",)"
                        << R"("kind":"Node","metadata":{"name":"node-0","uid":"u0"},"status":)"
                        << R"({"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}]})";
    return path.string();
  }
};

// A second scheduler given the socket of a running one used to unlink it and take the path:
// the first one's `schedhost status` then reached the second, or nothing once it ended.
TEST_F(AdminRun, LiveSocketIsNotTaken) {
  struct stat before {};
  ASSERT_EQ(::lstat(socket_.c_str(), &before), 0);
  CliRun second = run("run --cluster " + cluster() + " --admin-socket " + socket_);
  EXPECT_EQ(second.exitCode, 1) << second.err;
  EXPECT_NE(second.err.find("schedhost run: admin endpoints: admin socket " + socket_ +
                            " is in use by another process\n"),
            std::string::npos)
      << second.err;
  struct stat after {};
  ASSERT_EQ(::lstat(socket_.c_str(), &after), 0) << "the running scheduler's socket is gone";
  EXPECT_EQ(after.st_ino, before.st_ino);
  CliRun status = run("status --admin-socket " + socket_);
  EXPECT_EQ(status.exitCode, 0) << status.err;
  EXPECT_EQ(status.out.rfind("generation 3 (ready)\n", 0), 0u) << status.out;
}

// A stale socket (nothing answers on it) is replaced, and removed again when the run ends.
TEST_F(AdminRun, StaleSocketIsReplaced) {
  std::string stale = (dir_.path() / "stale.sock").string();
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, stale.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ::close(fd);
  CliRun result = run("run --cluster " + cluster() + " --admin-socket " + stale);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_FALSE(std::filesystem::exists(stale)) << "the run removes the socket it bound";
}

// A non-loopback address without the opt-in: refused at start, naming the address and the
// opt-in.
TEST_F(AdminRun, NonLoopbackAddressNeedsTheOptIn) {
  CliRun result = run("run --cluster " + cluster() + " --admin-address 0.0.0.0:0");
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("schedhost run: admin endpoints: cannot listen on admin address "
                            "0.0.0.0:0: not a loopback address, and the admin endpoints have no "
                            "authentication; set remoteHealthAndMetrics = true in [admin] to "
                            "serve only /healthz, /livez, /readyz and /metrics there, or listen "
                            "on 127.0.0.1 or the admin socket\n"),
            std::string::npos)
      << result.err;
}

// With [admin] remoteHealthAndMetrics = true the same address starts (what it serves there is
// in tests/admin/server_test.cc, AdminServerRemote).
TEST_F(AdminRun, NonLoopbackAddressWithTheOptIn) {
  auto config = dir_.path() / "schedhost.toml";
  std::ofstream(config) << "[admin]\naddress = \"0.0.0.0:0\"\nremoteHealthAndMetrics = true\n";
  CliRun result = run("run --cluster " + cluster() + " --config " + config.string());
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("schedhost run: admin endpoints on 0.0.0.0:0 (port "),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace sh::admin::admin_cli_test

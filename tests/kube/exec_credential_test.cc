// ExecCredentialSource and parseExecCredential: client-go's exec credential plugin protocol
// (plugin/pkg/client/auth/exec/exec.go), with upstream's messages (exec_test.go's cases), run
// against small shell-script plugins.
#include "host/connectors/kube/exec_credential.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sh::kube::exec_credential_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kV1 = kExecApiVersionV1;

std::string parseError(std::string_view json, std::string_view apiVersion = kV1) {
  ExecCredential credential;
  std::string error;
  EXPECT_FALSE(parseExecCredential(json, apiVersion, credential, error)) << json;
  return error;
}

TEST(ExecCredentialTest, ReadsTokensCertificatesAndExpiry) {
  ExecCredential credential;
  std::string error;
  ASSERT_TRUE(parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"token":"abc","expirationTimestamp":"2026-12-05T10:00:00Z"}})",
      kV1, credential, error))
      << error;
  EXPECT_EQ(credential.token, "abc");
  ASSERT_TRUE(credential.expiry.has_value());
  EXPECT_EQ(formatTime(*credential.expiry), "2026-12-05T10:00:00Z");

  ASSERT_TRUE(parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",
          "status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}})",
      kExecApiVersionV1Beta1, credential, error))
      << error;
  EXPECT_EQ(credential.token, "");
  EXPECT_EQ(credential.clientCertPem, "CERT");
  EXPECT_EQ(credential.clientKeyPem, "KEY");
  EXPECT_FALSE(credential.expiry.has_value());
}

// Upstream's messages (exec.go refreshCredsLocked), and ours for what it would decode away.
TEST(ExecCredentialTest, EachMistakeHasItsMessage) {
  EXPECT_EQ(
      parseError(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})"),
      "exec plugin didn't return a status field");
  EXPECT_EQ(parseError(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                           "status":{}})"),
            "exec plugin didn't return a token or cert/key pair");
  EXPECT_EQ(parseError(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                           "status":{"clientCertificateData":"CERT"}})"),
            "exec plugin returned only certificate or key, not both");
  EXPECT_EQ(parseError(R"({"apiVersion":"client.authentication.k8s.io/v1beta1",
                           "kind":"ExecCredential","status":{"token":"t"}})"),
            "exec plugin is configured to use API version client.authentication.k8s.io/v1, "
            "plugin returned version client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(
      parseError(R"({"apiVersion":"client.authentication.k8s.io/v1","status":{"token":"t"}})"),
      "decoding stdout: Object 'Kind' is missing");
  EXPECT_THAT(parseError("token: abc"), StartsWith("decoding stdout: not JSON"));
  EXPECT_EQ(parseError(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                           "status":{"token":"t","expirationTimestamp":"tomorrow"}})"),
            "decoding stdout: status.expirationTimestamp: not an RFC 3339 time");
  // A token that would end the Authorization header.
  EXPECT_THAT(parseError(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                             "status":{"token":"a\r\nX-Injected: 1"}})"),
              StartsWith("exec plugin returned an unusable token: the token holds a control "
                         "character (CR at offset 1"));
}

TEST(ExecCredentialTest, ExecInfoCarriesTheClusterOnlyWhenAskedTo) {
  ExecConfig config;
  config.apiVersion = kV1;
  EXPECT_EQ(boost::json::parse(execInfo(config, false)),
            boost::json::parse(R"({"kind":"ExecCredential",
                                   "apiVersion":"client.authentication.k8s.io/v1",
                                   "spec":{"interactive":false}})"));
  config.clusterJson = R"({"server":"https://10.0.0.1:6443"})";
  EXPECT_EQ(boost::json::parse(execInfo(config, true)),
            boost::json::parse(R"({"kind":"ExecCredential",
                                   "apiVersion":"client.authentication.k8s.io/v1",
                                   "spec":{"interactive":true,
                                           "cluster":{"server":"https://10.0.0.1:6443"}}})"));
}

// A clock the test moves.
class TestClock final : public Clock {
 public:
  TimePoint now() override { return now_; }
  bool sleepFor(std::chrono::nanoseconds, std::stop_token) override { return true; }
  void advance(std::chrono::seconds by) { now_ += by; }

 private:
  TimePoint now_ = std::chrono::system_clock::now();
};

class ExecPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("exec-plugin-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A plugin running `body` (sh), which counts its runs in dir/runs.
  std::string plugin(const std::string& body) {
    const fs::path path = dir_ / "plugin";
    std::ofstream(path) << "#!/bin/sh\necho run >> '" << (dir_ / "runs").string() << "'\n" << body;
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }

  // A plugin printing a v1 credential with `status` (JSON members).
  std::string printing(const std::string& status) {
    return plugin(
        "cat <<'EOF'\n{\"apiVersion\":\"client.authentication.k8s.io/v1\","
        "\"kind\":\"ExecCredential\",\"status\":{" +
        status + "}}\nEOF\n");
  }

  ExecConfig config(const std::string& command) {
    ExecConfig c;
    c.command = command;
    c.apiVersion = kV1;
    c.interactiveMode = ExecInteractiveMode::kNever;
    return c;
  }

  std::string read(const std::string& name) {
    std::ifstream in(dir_ / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(ExecPluginTest, ArgsEnvAndExecInfoReachThePlugin) {
  ExecConfig c = config(plugin(
      "printf '%s|' \"$@\" > \"$(dirname \"$0\")/args\"\n"
      "printf '%s|%s' \"$REGION\" \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/env\"\n"
      "ls /proc/self/fd > \"$(dirname \"$0\")/fds\"\n"
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"tok\"}}'\n"));
  c.args = {"eks", "get-token", "--cluster-name", "a b"};
  c.env = {{"REGION", "ignored"}, {"REGION", "eu-west-1"}};  // the last wins
  ExecCredentialSource source(c, {});
  std::string error;
  auto credential = source.get(error);
  ASSERT_NE(credential, nullptr) << error;
  EXPECT_EQ(credential->token, "tok");
  EXPECT_EQ(read("args"), "eks|get-token|--cluster-name|a b|");
  EXPECT_EQ(read("env"),
            "eu-west-1|{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/"
            "v1\",\"spec\":{\"interactive\":false}}");
  // stdin, stdout, stderr, and the descriptor `ls` opened for /proc/self/fd: nothing of ours.
  std::istringstream fds(read("fds"));
  std::vector<int> open;
  for (int fd = 0; fds >> fd;) open.push_back(fd);
  EXPECT_LE(open.size(), 4u) << read("fds");
}

TEST_F(ExecPluginTest, TheCredentialIsCachedUntilItExpires) {
  TestClock clock;
  const std::string expiry = formatTime(clock.now() + std::chrono::minutes(10));
  ExecCredentialSource::Options options;
  options.clock = &clock;
  ExecCredentialSource source(
      config(printing("\"token\":\"t\",\"expirationTimestamp\":\"" + expiry + "\"")), options);
  std::string error;
  auto first = source.get(error);
  ASSERT_NE(first, nullptr) << error;
  EXPECT_EQ(source.get(error), first);
  clock.advance(std::chrono::seconds(9 * 60));
  EXPECT_EQ(source.get(error), first);
  EXPECT_EQ(source.runs(), 1u);
  clock.advance(std::chrono::seconds(2 * 60));  // past the expiry
  auto second = source.get(error);
  ASSERT_NE(second, nullptr) << error;
  EXPECT_NE(second, first);
  EXPECT_EQ(source.runs(), 2u);
}

TEST_F(ExecPluginTest, A401RunsThePluginOnceForEveryRequestThatMetIt) {
  ExecCredentialSource source(config(printing("\"token\":\"t\"")), {});
  std::string error;
  auto used = source.get(error);
  ASSERT_NE(used, nullptr) << error;
  EXPECT_EQ(source.get(error), used);  // no expiry: kept
  auto fresh = source.refreshAfterUnauthorized(used, error);
  ASSERT_NE(fresh, nullptr) << error;
  EXPECT_NE(fresh, used);
  // Another request that carried the old credential: the new one, no run.
  EXPECT_EQ(source.refreshAfterUnauthorized(used, error), fresh);
  EXPECT_EQ(source.runs(), 2u);
  EXPECT_EQ(read("runs"), "run\nrun\n");
}

TEST_F(ExecPluginTest, AMissingCommandNamesItWithUpstreamsHelpAndTheInstallHint) {
  ExecConfig c = config("schedhost-no-such-credential-plugin");
  c.installHint = "Install it with: apt-get install example-auth";
  ExecCredentialSource source(c, {});
  std::string error;
  EXPECT_EQ(source.get(error), nullptr);
  EXPECT_THAT(error, StartsWith("exec: executable schedhost-no-such-credential-plugin not found\n\n"
                                "It looks like you are trying to use a client-go credential "
                                "plugin that is not installed."));
  EXPECT_THAT(error, HasSubstr("\n\nInstall it with: apt-get install example-auth"));
}

TEST_F(ExecPluginTest, AFailingPluginGivesItsExitCodeAndLastStderrLine) {
  ExecCredentialSource source(
      config(plugin("echo 'starting' >&2\necho 'error: no SSO session' >&2\nexit 3\n")), {});
  std::string error;
  EXPECT_EQ(source.get(error), nullptr);
  EXPECT_EQ(error, "exec: executable " + (dir_ / "plugin").string() +
                       " failed with exit code 3: error: no SSO session");
}

TEST_F(ExecPluginTest, APluginThatHangsIsKilledAtItsTimeout) {
  ExecCredentialSource::Options options;
  options.timeout = std::chrono::milliseconds(300);
  // The plugin's child keeps the pipe open too: the whole group is killed.
  ExecCredentialSource source(config(plugin("sleep 30 &\nsleep 30\n")), options);
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(source.get(error), nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(error, "exec: executable " + (dir_ / "plugin").string() +
                       " did not finish within 0.3 s and was killed");
}

TEST_F(ExecPluginTest, OutputBeyondTheLimitIsRefused) {
  ExecCredentialSource source(config(plugin("head -c 2000000 /dev/zero\n")), {});
  std::string error;
  EXPECT_EQ(source.get(error), nullptr);
  EXPECT_EQ(error, "exec: executable " + (dir_ / "plugin").string() +
                       " wrote more than 1024 KiB to stdout and was killed");
}

TEST_F(ExecPluginTest, InteractiveModes) {
  const std::string command = plugin(
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/info\"\n"
      "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"t\"}}'\n");
  ExecConfig c = config(command);
  ExecCredentialSource::Options noTerminal;
  noTerminal.stdinIsTerminal = [] { return false; };
  std::string error;
  c.interactiveMode = ExecInteractiveMode::kAlways;
  EXPECT_EQ(ExecCredentialSource(c, noTerminal).get(error), nullptr);
  EXPECT_EQ(error, "exec plugin cannot support interactive mode: standard input is not a terminal");
  c.interactiveMode = ExecInteractiveMode::kIfAvailable;
  ASSERT_NE(ExecCredentialSource(c, noTerminal).get(error), nullptr) << error;
  EXPECT_THAT(read("info"), HasSubstr("\"interactive\":false"));
  ExecCredentialSource::Options terminal;
  terminal.stdinIsTerminal = [] { return true; };
  ASSERT_NE(ExecCredentialSource(c, terminal).get(error), nullptr) << error;
  EXPECT_THAT(read("info"), HasSubstr("\"interactive\":true"));
  c.interactiveMode = ExecInteractiveMode::kNever;
  ASSERT_NE(ExecCredentialSource(c, terminal).get(error), nullptr) << error;
  EXPECT_THAT(read("info"), HasSubstr("\"interactive\":false"));
}

}  // namespace
}  // namespace sh::kube::exec_credential_test

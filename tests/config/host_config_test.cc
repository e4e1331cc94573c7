#include "host/config/host_config.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "host/config/profile_config.h"

namespace sh::config::host_config_test {
namespace {

HostConfig parse(std::string_view text, Diagnostics& diags) {
  return parseHostConfig(text, "schedhost.toml", diags);
}

// A fresh directory under the test temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::path(::testing::TempDir()) /
            ("config_test_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::filesystem::path write(const std::string& name, std::string_view text) const {
    const std::filesystem::path file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << text;
    return file;
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

TEST(HostConfigTest, EmptyFileGivesUpstreamDefaults) {
  Diagnostics diags;
  const HostConfig config = parse("", diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(config.parallelism, 16);
  EXPECT_EQ(config.percentageOfNodesToScore, 0);
  EXPECT_EQ(config.podInitialBackoffSeconds, 1);
  EXPECT_EQ(config.podMaxBackoffSeconds, 10);
  ASSERT_EQ(config.profiles.size(), 1u);
  EXPECT_EQ(config.profiles[0].schedulerName, "default-scheduler");
}

TEST(HostConfigTest, ReadsEveryField) {
  Diagnostics diags;
  const HostConfig config = parse(R"(
parallelism = 0
percentageOfNodesToScore = 40
podInitialBackoffSeconds = 2
podMaxBackoffSeconds = 20
pluginDirs = ["/usr/lib/schedhost/plugins", "rel/plugins"]

[[profiles]]
schedulerName = "a"
percentageOfNodesToScore = 30
[[profiles.libraries]]
path = "/opt/acme/lib/libacme.so"
sha256 = "9F2C000000000000000000000000000000000000000000000000000000000000"
[[profiles]]
schedulerName = "b"
)",
                                  diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(config.parallelism, 0);
  EXPECT_EQ(config.percentageOfNodesToScore, 40);
  EXPECT_EQ(config.podInitialBackoffSeconds, 2);
  EXPECT_EQ(config.podMaxBackoffSeconds, 20);
  ASSERT_EQ(config.pluginDirs.size(), 2u);
  EXPECT_EQ(config.pluginDirs[0], "/usr/lib/schedhost/plugins");
  EXPECT_EQ(config.pluginDirs[1], "rel/plugins");  // the file name has no directory
  ASSERT_EQ(config.profiles.size(), 2u);
  EXPECT_EQ(config.profiles[0].schedulerName, "a");
  EXPECT_EQ(config.profiles[0].key, "profiles[0]");
  EXPECT_EQ(config.profiles[0].percentageOfNodesToScore, 30);
  ASSERT_EQ(config.profiles[0].libraries.size(), 1u);
  EXPECT_EQ(config.profiles[0].libraries[0].sha256,
            "9f2c000000000000000000000000000000000000000000000000000000000000");
  EXPECT_EQ(config.profiles[1].schedulerName, "b");
}

TEST(HostConfigTest, ReportsEveryRangeProblem) {
  Diagnostics diags;
  parse(R"(parallelism = -1
percentageOfNodesToScore = 101
podInitialBackoffSeconds = 5
podMaxBackoffSeconds = 4
[[profiles]]
percentageOfNodesToScore = -5
)",
        diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:1:15: parallelism: must be 0 (one worker per core) or more, got -1\n"
            "schedhost.toml:2:28: percentageOfNodesToScore: must be in the range [0, 100], got "
            "101\n"
            "schedhost.toml:4:24: podMaxBackoffSeconds: must be greater than or equal to "
            "podInitialBackoffSeconds (5), got 4\n"
            "schedhost.toml:6:28: profiles[0].percentageOfNodesToScore: must be in the range "
            "[0, 100], got -5\n");
}

TEST(HostConfigTest, BindingTable) {
  Diagnostics diags;
  EXPECT_EQ(parse("", diags).binding.maxConcurrent, 1024);
  EXPECT_EQ(parse("[binding]\nmaxConcurrent = 8\n", diags).binding.maxConcurrent, 8);
  EXPECT_TRUE(diags.empty()) << diags.str();
  const HostConfig bad = parse("[binding]\nmaxConcurrent = 0\ncap = 3\n", diags);
  EXPECT_EQ(bad.binding.maxConcurrent, 1024);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:2:17: binding.maxConcurrent: must be in the range [1, 65536], got 0\n"
            "schedhost.toml:3:7: binding.cap: unknown field \"cap\"\n");
}

TEST(HostConfigTest, PluginsCallWarningSeconds) {
  Diagnostics diags;
  EXPECT_EQ(parse("", diags).plugins.callWarningSeconds, 60);
  EXPECT_EQ(parse("[plugins]\ncallWarningSeconds = 0.25\n", diags).plugins.callWarningSeconds,
            0.25);
  EXPECT_EQ(parse("[plugins]\ncallWarningSeconds = 0\n", diags).plugins.callWarningSeconds, 0);
  EXPECT_TRUE(diags.empty()) << diags.str();
  const HostConfig bad = parse("[plugins]\ncallWarningSeconds = -1\n", diags);
  EXPECT_EQ(bad.plugins.callWarningSeconds, 60);
  parse("[plugins]\ncallWarningSeconds = \"1m\"\n", diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:2:22: plugins.callWarningSeconds: must be in the range [0, 86400], "
            "got -1\n"
            "schedhost.toml:2:22: plugins.callWarningSeconds: expected a number, got a string\n");
}

TEST(HostConfigTest, InitialBackoffAboveDefaultMax) {
  Diagnostics diags;
  parse("podInitialBackoffSeconds = 11\n", diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:1:28: podInitialBackoffSeconds: must be less than or equal to "
            "podMaxBackoffSeconds (10), got 11\n");
  Diagnostics zero;
  parse("podInitialBackoffSeconds = 0\n", zero);
  EXPECT_EQ(zero.str(),
            "schedhost.toml:1:28: podInitialBackoffSeconds: must be greater than 0, got 0\n");
}

TEST(HostConfigTest, UnknownFieldsAndWrongTypesEverywhere) {
  Diagnostics diags;
  parse(R"(parallelism = "16"
pluginDirs = ["/a", 3]
colour = "blue"
[[profiles]]
schedulerName = 7
[profiles.plugins]
scroe = {}
[profiles.plugins.filter]
enabled = [ { name = "NodeName", wieght = 1 }, "NodePorts" ]
[[profiles.pluginConfig]]
name = "NodeResourcesFit"
args = 5
)",
        diags);
  // Positions are those of the values (toml11 does not keep where keys are).
  EXPECT_EQ(diags.str(),
            "schedhost.toml:1:15: parallelism: expected an integer, got a string\n"
            "schedhost.toml:2:21: pluginDirs[1]: expected a string, got an integer\n"
            "schedhost.toml:3:10: colour: unknown field \"colour\"\n"
            "schedhost.toml:5:17: profiles[0].schedulerName: expected a string, got an integer\n"
            "schedhost.toml:7:9: profiles[0].plugins.scroe: unknown field \"scroe\"\n"
            "schedhost.toml:9:43: profiles[0].plugins.filter.enabled[0].wieght: unknown field "
            "\"wieght\"\n"
            "schedhost.toml:9:48: profiles[0].plugins.filter.enabled[1]: expected a table "
            "{ name = \"...\", weight = N }, got a string\n"
            "schedhost.toml:12:8: profiles[0].pluginConfig[0].args: expected a table, got an "
            "integer\n");
}

TEST(HostConfigTest, ProfileNames) {
  Diagnostics diags;
  parse(R"([[profiles]]
schedulerName = "a"
[[profiles]]
percentageOfNodesToScore = 5
[[profiles]]
schedulerName = "a"
[[profiles]]
schedulerName = ""
)",
        diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:3:1: profiles[1].schedulerName: required field \"schedulerName\" is "
            "missing; it is required when more than one profile is configured\n"
            "schedhost.toml:6:17: profiles[2].schedulerName: duplicate schedulerName \"a\" "
            "(first defined at schedhost.toml:2:17)\n"
            "schedhost.toml:8:17: profiles[3].schedulerName: schedulerName must not be empty\n");
}

TEST(HostConfigTest, LoneUnnamedProfileIsDefaultScheduler) {
  Diagnostics diags;
  const HostConfig config = parse("[[profiles]]\npercentageOfNodesToScore = 5\n", diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  ASSERT_EQ(config.profiles.size(), 1u);
  EXPECT_EQ(config.profiles[0].schedulerName, "default-scheduler");
}

TEST(HostConfigTest, ProfileDirsReadInSortedOrderAfterInlineProfiles) {
  TempDir dir;
  dir.write("profiles.d/20-b.toml", "schedulerName = \"b\"\n");
  dir.write("profiles.d/10-a.toml", "schedulerName = \"a\"\n");
  dir.write("profiles.d/notes.txt", "ignored\n");
  dir.write("more/c.toml", "schedulerName = \"c\"\n");
  const std::filesystem::path configFile = dir.write("schedhost.toml", R"(
profileDirs = ["profiles.d", "more"]
[[profiles]]
schedulerName = "inline"
)");
  Diagnostics diags;
  const HostConfig config = loadHostConfig(configFile, diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  ASSERT_EQ(config.profiles.size(), 4u);
  EXPECT_EQ(config.profiles[0].schedulerName, "inline");
  EXPECT_EQ(config.profiles[1].schedulerName, "a");
  EXPECT_EQ(config.profiles[2].schedulerName, "b");
  EXPECT_EQ(config.profiles[3].schedulerName, "c");
  EXPECT_EQ(config.profiles[1].where.file, (dir.path() / "profiles.d" / "10-a.toml").string());
  EXPECT_EQ(config.profiles[1].key, "");
  EXPECT_EQ(config.profileDirs[0], dir.path() / "profiles.d");
}

TEST(HostConfigTest, DuplicateNameAcrossFilesNamesBothPlaces) {
  TempDir dir;
  dir.write("p/a.toml", "schedulerName = \"x\"\n");
  dir.write("p/b.toml", "# second\nschedulerName = \"x\"\n");
  const std::filesystem::path configFile = dir.write("schedhost.toml", "profileDirs = [\"p\"]\n");
  Diagnostics diags;
  loadHostConfig(configFile, diags);
  const std::string a = (dir.path() / "p" / "a.toml").string();
  const std::string b = (dir.path() / "p" / "b.toml").string();
  EXPECT_EQ(diags.str(), b + ":2:17: schedulerName: duplicate schedulerName \"x\" " +
                             "(first defined at " + a + ":1:17)\n");
}

TEST(HostConfigTest, MissingProfileDir) {
  Diagnostics diags;
  parse("profileDirs = [\"/nonexistent/profiles.d\"]\n", diags);
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.items()[0].key, "profileDirs[0]");
  EXPECT_NE(diags.items()[0].message.find("cannot read profile directory"), std::string::npos);
}

TEST(HostConfigTest, ClientConnectionAndLeaderElectionDefaults) {
  Diagnostics diags;
  const HostConfig config = parse("", diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(config.clientConnection.kubeconfig, "");
  EXPECT_EQ(config.clientConnection.qps, 50.0);
  EXPECT_EQ(config.clientConnection.burst, 100);
  const HostConfig::LeaderElection& le = config.leaderElection;
  EXPECT_TRUE(le.leaderElect);
  EXPECT_EQ(le.leaseDuration, std::chrono::seconds(15));
  EXPECT_EQ(le.renewDeadline, std::chrono::seconds(10));
  EXPECT_EQ(le.retryPeriod, std::chrono::seconds(2));
  EXPECT_EQ(le.resourceLock, "leases");
  EXPECT_EQ(le.resourceName, "schedhost");
  EXPECT_EQ(le.resourceNamespace, "kube-system");
}

TEST(HostConfigTest, ClientConnectionAndLeaderElectionValues) {
  TempDir dir;
  const std::filesystem::path configFile = dir.write("etc/schedhost.toml", R"(
[clientConnection]
kubeconfig = "kube/config"
qps = 20.5
burst = 40
[leaderElection]
leaderElect = false
leaseDuration = "1m30s"
renewDeadline = "1m"
retryPeriod = "2.5s"
resourceLock = "leases"
resourceName = "batch-scheduler"
resourceNamespace = "scheduling"
)");
  Diagnostics diags;
  const HostConfig config = loadHostConfig(configFile, diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(config.clientConnection.kubeconfig, (dir.path() / "etc" / "kube" / "config").string());
  EXPECT_EQ(config.clientConnection.qps, 20.5);
  EXPECT_EQ(config.clientConnection.burst, 40);
  const HostConfig::LeaderElection& le = config.leaderElection;
  EXPECT_FALSE(le.leaderElect);
  EXPECT_EQ(le.leaseDuration, std::chrono::seconds(90));
  EXPECT_EQ(le.renewDeadline, std::chrono::seconds(60));
  EXPECT_EQ(le.retryPeriod, std::chrono::milliseconds(2500));
  EXPECT_EQ(le.resourceName, "batch-scheduler");
  EXPECT_EQ(le.resourceNamespace, "scheduling");

  // An absolute kubeconfig is kept; qps 0 (no limit) may go with any burst; an integer qps.
  const HostConfig other = parse(
      "[clientConnection]\nkubeconfig = \"/etc/kubernetes/scheduler.conf\"\nqps = 0\n"
      "burst = 0\n",
      diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(other.clientConnection.kubeconfig, "/etc/kubernetes/scheduler.conf");
  EXPECT_EQ(other.clientConnection.qps, 0.0);
  EXPECT_EQ(other.clientConnection.burst, 0);
  EXPECT_EQ(parse("[clientConnection]\nqps = 7\n", diags).clientConnection.qps, 7.0);
  EXPECT_TRUE(diags.empty()) << diags.str();
}

TEST(HostConfigTest, ClientConnectionProblems) {
  Diagnostics diags;
  const HostConfig config = parse(R"([clientConnection]
kubeconfig = 3
qps = -1.5
burst = 0
timeout = "5s"
)",
                                  diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:2:14: clientConnection.kubeconfig: expected a string, got an "
            "integer\n"
            "schedhost.toml:3:7: clientConnection.qps: must be 0 (no client-side limit) or more, "
            "got -1.5\n"
            "schedhost.toml:4:9: clientConnection.burst: must be 1 or more when qps is above 0, "
            "got 0\n"
            "schedhost.toml:5:11: clientConnection.timeout: unknown field \"timeout\"\n");
  EXPECT_EQ(config.clientConnection.qps, 50.0);
  EXPECT_EQ(config.clientConnection.burst, 100);

  Diagnostics more;
  parse("[clientConnection]\nqps = \"fast\"\n[[clientConnection.x]]\n", more);
  parse("[clientConnection]\nqps = nan\nburst = 3000000000\n", more);
  EXPECT_EQ(more.str(),
            "schedhost.toml:2:7: clientConnection.qps: expected a number, got a string\n"
            "schedhost.toml:2:7: clientConnection.qps: must be 0 (no client-side limit) or more, "
            "got nan\n"
            "schedhost.toml:3:1: clientConnection.x: unknown field \"x\"\n"
            "schedhost.toml:3:9: clientConnection.burst: must be 1 or more when qps is above 0, "
            "got 3000000000\n");
}

TEST(HostConfigTest, LeaderElectionProblems) {
  Diagnostics diags;
  const HostConfig config = parse(R"([leaderElection]
leaderElect = "yes"
leaseDuration = "15"
renewDeadline = "10 s"
retryPeriod = 2
resourceLock = "endpointsleases"
resourceName = ""
resourceNamespace = 4
)",
                                  diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:2:15: leaderElection.leaderElect: expected a boolean, got a string\n"
            "schedhost.toml:3:17: leaderElection.leaseDuration: invalid duration \"15\": missing "
            "unit (ns, us, ms, s, m or h)\n"
            "schedhost.toml:4:17: leaderElection.renewDeadline: invalid duration \"10 s\": "
            "unknown unit \" s\" (ns, us, ms, s, m or h)\n"
            "schedhost.toml:5:15: leaderElection.retryPeriod: expected a string, got an "
            "integer\n"
            "schedhost.toml:6:16: leaderElection.resourceLock: only \"leases\" is supported, got "
            "\"endpointsleases\"\n"
            "schedhost.toml:7:16: leaderElection.resourceName: must not be empty\n"
            "schedhost.toml:8:21: leaderElection.resourceNamespace: expected a string, got an "
            "integer\n");
  EXPECT_EQ(config.leaderElection.leaseDuration, std::chrono::seconds(15));
  EXPECT_EQ(config.leaderElection.resourceName, "schedhost");
}

TEST(HostConfigTest, LeaderElectionDurationRelations) {
  const auto check = [](const std::string& table, const std::string& expected) {
    Diagnostics diags;
    parseHostConfig("[leaderElection]\n" + table, "schedhost.toml", diags);
    EXPECT_EQ(diags.str(), expected) << table;
  };
  check("leaseDuration = \"10s\"\n",
        "schedhost.toml:2:17: leaderElection.leaseDuration: must be greater than renewDeadline "
        "(10s), got 10s\n");
  check("renewDeadline = \"20s\"\n",
        "schedhost.toml:2:17: leaderElection.renewDeadline: must be less than leaseDuration "
        "(15s), got 20s\n");
  check("renewDeadline = \"2400ms\"\n",
        "schedhost.toml:2:17: leaderElection.renewDeadline: must be greater than 1.2 × "
        "retryPeriod (2s), got 2.4s\n");
  check("retryPeriod = \"9s\"\n",
        "schedhost.toml:2:15: leaderElection.retryPeriod: must be less than renewDeadline (10s) "
        "/ 1.2, got 9s\n");
  check("retryPeriod = \"0s\"\n",
        "schedhost.toml:2:15: leaderElection.retryPeriod: must be greater than 0 (at least 1ms), "
        "got \"0s\"\n");
  check("leaseDuration = \"-15s\"\n",
        "schedhost.toml:2:17: leaderElection.leaseDuration: must be greater than 0 (at least "
        "1ms), got \"-15s\"\n");
  check("renewDeadline = \"2401ms\"\nleaseDuration = \"1h\"\n", "");
  // Off: the relations are not checked (upstream validates them only with leaderElect).
  check("leaderElect = false\nleaseDuration = \"1s\"\n", "");
}

TEST(HostConfigTest, GoDurations) {
  const auto ms = [](std::string_view text) {
    std::string error;
    const auto d = parseGoDuration(text, error);
    EXPECT_TRUE(d.has_value()) << text << ": " << error;
    return d ? std::chrono::duration_cast<std::chrono::milliseconds>(*d).count() : -999;
  };
  EXPECT_EQ(ms("15s"), 15'000);
  EXPECT_EQ(ms("1m30s"), 90'000);
  EXPECT_EQ(ms("500ms"), 500);
  EXPECT_EQ(ms("2h"), 7'200'000);
  EXPECT_EQ(ms("1.5s"), 1'500);
  EXPECT_EQ(ms(".5m"), 30'000);
  EXPECT_EQ(ms("1h2m3s4ms"), 3'723'004);
  EXPECT_EQ(ms("0"), 0);
  EXPECT_EQ(ms("+3s"), 3'000);
  EXPECT_EQ(ms("-2s"), -2'000);
  std::string error;
  EXPECT_EQ(parseGoDuration("1500us", error), std::chrono::microseconds(1500));
  EXPECT_EQ(parseGoDuration("7\u00b5s", error), std::chrono::microseconds(7));
  EXPECT_EQ(parseGoDuration("3ns", error), std::chrono::nanoseconds(3));

  const auto fails = [](std::string_view text) {
    std::string message;
    EXPECT_FALSE(parseGoDuration(text, message).has_value()) << text;
    return message;
  };
  EXPECT_EQ(fails(""), "invalid duration \"\": expected a number and a unit, as \"15s\"");
  EXPECT_EQ(fails("-"), "invalid duration \"-\": expected a number and a unit, as \"15s\"");
  EXPECT_EQ(fails("s"), "invalid duration \"s\": expected a number at \"s\"");
  EXPECT_EQ(fails("1m.s"), "invalid duration \"1m.s\": expected a number at \".s\"");
  EXPECT_EQ(fails("15"), "invalid duration \"15\": missing unit (ns, us, ms, s, m or h)");
  EXPECT_EQ(fails("1d"), "invalid duration \"1d\": unknown unit \"d\" (ns, us, ms, s, m or h)");
  EXPECT_EQ(fails("3000000h"),
            "invalid duration \"3000000h\": out of range (at most about 2562047h)");

  EXPECT_EQ(formatGoDuration(std::chrono::milliseconds(0)), "0s");
  EXPECT_EQ(formatGoDuration(std::chrono::milliseconds(500)), "500ms");
  EXPECT_EQ(formatGoDuration(std::chrono::milliseconds(2400)), "2.4s");
  EXPECT_EQ(formatGoDuration(std::chrono::milliseconds(90'000)), "1m30s");
  EXPECT_EQ(formatGoDuration(std::chrono::hours(2)), "2h0m0s");
  EXPECT_EQ(formatGoDuration(std::chrono::milliseconds(-1500)), "-1.5s");
}

TEST(ProfileConfigTest, ReadsPluginSetsAndPluginConfig) {
  Diagnostics diags;
  const std::optional<ProfileConfig> profile = parseProfileText(R"(schedulerName = "batch"
[plugins.multiPoint]
enabled = [ { name = "AcmeBinpack", weight = 3 } ]
disabled = [ { name = "ImageLocality" } ]
[plugins.score]
disabled = [ { name = "*" } ]
enabled  = [ { name = "NodeResourcesFit", weight = 2 } ]
[[pluginConfig]]
name = "NodeResourcesFit"
[pluginConfig.args.scoringStrategy]
type = "MostAllocated"
)",
                                                                "batch.toml", diags);
  ASSERT_TRUE(profile.has_value());
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(profile->schedulerName, "batch");
  ASSERT_EQ(profile->plugins.multiPoint.enabled.size(), 1u);
  EXPECT_EQ(profile->plugins.multiPoint.enabled[0].weight, 3);
  EXPECT_EQ(profile->plugins.multiPoint.enabled[0].key, "plugins.multiPoint.enabled[0]");
  EXPECT_EQ(profile->plugins.multiPoint.enabled[0].where.str(), "batch.toml:3:13");
  EXPECT_EQ(profile->plugins.at(ExtensionPoint::kScore).disabled[0].name, "*");
  ASSERT_EQ(profile->pluginConfig.size(), 1u);
  EXPECT_EQ(profile->pluginConfig[0].args->get("scoringStrategy")->get("type")->path(),
            "pluginConfig[0].args.scoringStrategy.type");
}

TEST(ProfileConfigTest, EntryProblems) {
  Diagnostics diags;
  parseProfileText(R"([plugins.score]
enabled = [ { weight = 2 }, { name = "", weight = -1 }, { name = "A", weight = 1.5 } ]
[[libraries]]
path = "relative/lib.so"
sha256 = "abc"
[[libraries]]
sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
[[pluginConfig]]
name = "A"
[[pluginConfig]]
args = {}
[[pluginConfig]]
name = "A"
)",
                   "p.toml", diags);
  EXPECT_EQ(diags.str(),
            "p.toml:2:13: plugins.score.enabled[0].name: required field \"name\" is missing\n"
            "p.toml:2:38: plugins.score.enabled[1].name: plugin name must not be empty\n"
            "p.toml:2:51: plugins.score.enabled[1].weight: weight must not be negative, got -1\n"
            "p.toml:2:80: plugins.score.enabled[2].weight: expected an integer, got a float\n"
            "p.toml:4:8: libraries[0].path: library path \"relative/lib.so\" must be absolute\n"
            "p.toml:5:10: libraries[0].sha256: sha256 \"abc\" must be 64 hexadecimal digits\n"
            "p.toml:6:1: libraries[1].path: required field \"path\" is missing\n"
            "p.toml:10:1: pluginConfig[1].name: required field \"name\" is missing\n"
            "p.toml:13:8: pluginConfig[2].name: duplicate pluginConfig for plugin \"A\" (first "
            "at p.toml:9:8)\n");
}

// Backoffs and leader-election periods are bounded at one day: past about 292 years their
// nanoseconds overflow, and a pod's next attempt would wrap into the past (a retry storm).
TEST(HostConfigTest, BackoffAndPeriodsBeyondADayAreRefused) {
  Diagnostics diags;
  const HostConfig config = parse(R"(podInitialBackoffSeconds = 10000000000
podMaxBackoffSeconds = 86401
[leaderElection]
leaseDuration = "2562047h"
)",
                                  diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:1:28: podInitialBackoffSeconds: must be at most 86400 (one day), got "
            "10000000000\n"
            "schedhost.toml:2:24: podMaxBackoffSeconds: must be at most 86400 (one day), got "
            "86401\n"
            "schedhost.toml:4:17: leaderElection.leaseDuration: must be at most 24h, got "
            "\"2562047h\"\n");
  EXPECT_EQ(config.podInitialBackoffSeconds, 1);
  EXPECT_EQ(config.podMaxBackoffSeconds, 10);
  Diagnostics atBound;
  const HostConfig day =
      parse("podInitialBackoffSeconds = 86400\npodMaxBackoffSeconds = 86400\n", atBound);
  EXPECT_TRUE(atBound.empty()) << atBound.str();
  EXPECT_EQ(day.podInitialBackoffSeconds, 86400);
}

std::string nested(std::size_t depth, std::string_view open, std::string_view close) {
  std::string text;
  for (std::size_t i = 0; i < depth; ++i) {
    text += open;
  }
  for (std::size_t i = 0; i < depth; ++i) {
    text += close;
  }
  return text;
}

// toml11 parses arrays and inline tables recursively: 10,000 levels used to overflow the stack
// of `profile check` and `run`. The text is measured before it is parsed.
TEST(HostConfigTest, DeepNestingIsRefusedBeforeParsing) {
  const std::string message = "invalid TOML: nested deeper than the limit of 128 levels";
  {
    Diagnostics diags;
    const HostConfig config = parse("# deep\nx = " + nested(10'000, "[", "]") + "\n", diags);
    EXPECT_FALSE(config.parsed);
    EXPECT_EQ(diags.str(), "schedhost.toml:2:133: " + message + "\n");
  }
  {
    Diagnostics diags;
    parse("x = " + nested(10'000, "{a = ", "}") + "\n", diags);
    EXPECT_EQ(diags.str(), "schedhost.toml:1:645: " + message + "\n");
  }
  {
    // Dotted keys open a table per part, at the top level and in headers.
    std::string key = "a";
    for (int i = 0; i < 10'000; ++i) {
      key += ".a";
    }
    Diagnostics top;
    parse(key + " = 1\n", top);
    EXPECT_EQ(top.str(), "schedhost.toml:1:258: " + message + "\n");
    Diagnostics header;
    parse("[" + key + "]\n", header);
    EXPECT_EQ(header.str(), "schedhost.toml:1:20003: " + message + "\n");
  }
  {
    Diagnostics diags;
    const std::optional<ProfileConfig> profile =
        parseProfileText("[plugins]\nscore = " + nested(5'000, "[", "]"), "deep.toml", diags);
    EXPECT_FALSE(profile.has_value());
    EXPECT_EQ(diags.str(), "deep.toml:2:136: " + message + "\n");
  }
}

// Brackets inside strings and comments are not nesting; nesting up to the limit parses.
TEST(HostConfigTest, NestingWithinTheLimitParses) {
  Diagnostics diags;
  const std::string brackets(500, '[');
  parse("# " + brackets + "\n[admin]\naddress = \"" + brackets + "\"\nsocket = '''\n" + brackets +
            "'''\n[[profiles]]\nschedulerName = \"a\"\n[profiles.plugins.score]\nenabled = "
            "[{ name = \"x\", weight = 1 }]\n",
        diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  Diagnostics deep;
  parse("[[profiles]]\n[[profiles.pluginConfig]]\nname = \"x\"\nargs = { a = " +
            nested(120, "[", "]") + " }\n",
        deep);
  EXPECT_TRUE(deep.empty()) << deep.str();
}

// A FIFO named *.toml in a profile directory used to block the host in open().
TEST(HostConfigTest, NonRegularFileInProfileDirIsRefused) {
  TempDir dir;
  dir.write("p/a.toml", "schedulerName = \"a\"\n");
  const std::filesystem::path fifo = dir.path() / "p" / "b.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_symlink(fifo, dir.path() / "p" / "c.toml");
  const std::filesystem::path configFile = dir.write("schedhost.toml", "profileDirs = [\"p\"]\n");
  Diagnostics diags;
  const HostConfig config = loadHostConfig(configFile, diags);
  const std::string why =
      ": not a regular file; a profile directory holds only regular files (or links to them)\n";
  EXPECT_EQ(diags.str(), fifo.string() + why + (dir.path() / "p" / "c.toml").string() + why);
  ASSERT_EQ(config.profiles.size(), 1u);
  EXPECT_EQ(config.profiles[0].schedulerName, "a");
}

// The host file's profiles are checked when it is read, and again with the --profile files
// added: a problem is reported once.
TEST(HostConfigTest, FinalizingAgainReportsEachProblemOnce) {
  Diagnostics diags;
  HostConfig config = parse(R"([[profiles]]
schedulerName = "a"
[[profiles]]
schedulerName = "a"
)",
                            diags);
  ASSERT_EQ(diags.errorCount(), 1u) << diags.str();
  config.profiles.push_back(*parseProfileText("schedulerName = \"a\"\n", "extra.toml", diags));
  config.profiles.push_back(*parseProfileText("# no name\n", "unnamed.toml", diags));
  finalizeProfiles(config.profiles, SourceLocation{"schedhost.toml", 0, 0}, diags);
  EXPECT_EQ(diags.str(),
            "schedhost.toml:4:17: profiles[1].schedulerName: duplicate schedulerName \"a\" "
            "(first defined at schedhost.toml:2:17)\n"
            "extra.toml:1:17: schedulerName: duplicate schedulerName \"a\" (first defined at "
            "schedhost.toml:2:17)\n"
            "unnamed.toml:1:1: schedulerName: required field \"schedulerName\" is missing; it is "
            "required when more than one profile is configured\n");
}

// [admin] remoteHealthAndMetrics: the opt-in for a non-loopback admin address; off by default,
// a boolean only.
TEST(HostConfigTest, AdminRemoteHealthAndMetrics) {
  Diagnostics diags;
  EXPECT_FALSE(parse("", diags).admin.remoteHealthAndMetrics);
  const HostConfig config = parse(
      "[admin]\naddress = \"0.0.0.0:10259\"\nsocket = \"/run/schedhost/admin.sock\"\n"
      "remoteHealthAndMetrics = true\n",
      diags);
  EXPECT_TRUE(diags.empty()) << diags.str();
  EXPECT_EQ(config.admin.address, "0.0.0.0:10259");
  EXPECT_EQ(config.admin.socket, "/run/schedhost/admin.sock");
  EXPECT_TRUE(config.admin.remoteHealthAndMetrics);
  Diagnostics wrong;
  const HostConfig bad = parse("[admin]\nremoteHealthAndMetrics = \"yes\"\n", wrong);
  EXPECT_FALSE(bad.admin.remoteHealthAndMetrics);
  EXPECT_EQ(wrong.str(),
            "schedhost.toml:2:26: admin.remoteHealthAndMetrics: expected a boolean, got a "
            "string\n");
}

}  // namespace
}  // namespace sh::config::host_config_test

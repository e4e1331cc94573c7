// kube-scheduler's configuration files and command line, given to the schedhost binary as an
// operator gives them: upstream's documented example configurations give upstream's effective
// profiles, invalid ones fail with upstream's field paths, `config convert` goes both ways,
// kube-scheduler's flags are taken (or refused by name), logs can be klog's JSON lines, and
// a binary finds its plugins by where it is, not by where it was built.
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace sh::upstream_config_test {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

struct CliRun {
  int exitCode = -1;
  std::string out, err;
};

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

class UpstreamConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("upstream_config_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Runs `binary` with `args` (each quoted), `env` prefixed ("NAME=value" or "-u NAME").
  CliRun run(const std::vector<std::string>& args, const std::string& env = "",
             const std::string& binary = SCHEDHOST_BIN) {
    std::string command = "env " + (env.empty() ? std::string() : env + " ") + quote(binary);
    for (const std::string& a : args) {
      command += " " + quote(a);
    }
    command += " > " + quote((dir_ / "out").string()) + " 2> " + quote((dir_ / "err").string());
    const int status = std::system(command.c_str());
    CliRun r;
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir_ / "out");
    r.err = slurp(dir_ / "err");
    return r;
  }

  // `profile check --json --expanded FILE`: the effective profiles, each point's run order.
  json::array effective(const std::string& file) {
    const CliRun r = run({"profile", "check", "--json", "--expanded", file}, kPluginEnv);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    boost::system::error_code ec;
    json::value v = json::parse(r.out, ec);
    EXPECT_FALSE(ec) << r.out;
    return v.is_array() ? v.as_array() : json::array{};
  }

  static std::vector<std::string> names(const json::value& profile, const char* point) {
    std::vector<std::string> out;
    for (const json::value& p : profile.at("plugins").at(point).as_array()) {
      out.emplace_back(p.at("name").as_string());
    }
    return out;
  }

  static inline const std::string kPluginEnv = "SCHEDHOST_PLUGIN_DIRS=" SCHEDHOST_PLUGIN_DIR;
  const std::string upstream_ = SCHEDHOST_UPSTREAM_DIR;
  fs::path dir_;
};

TEST_F(UpstreamConfigTest, TwoProfilesOneScoringNothing) {
  const json::array profiles = effective(upstream_ + "/no-scoring.yaml");
  ASSERT_EQ(profiles.size(), 2u);
  // The first profile is upstream's default set: the shipped default profile's, name aside.
  json::array shipped = effective(SCHEDHOST_DEFAULT_PROFILE);
  ASSERT_EQ(shipped.size(), 1u);
  EXPECT_EQ(profiles[0].at("plugins"), shipped[0].at("plugins"));
  EXPECT_EQ(profiles[0].at("pluginConfig"), shipped[0].at("pluginConfig"));
  EXPECT_EQ(profiles[1].at("schedulerName"), "no-scoring-scheduler");
  EXPECT_TRUE(names(profiles[1], "score").empty());
  EXPECT_TRUE(names(profiles[1], "preScore").empty());
  EXPECT_EQ(names(profiles[1], "filter"), names(profiles[0], "filter"));
}

TEST_F(UpstreamConfigTest, MostAllocatedArgsAreTheProfiles) {
  const json::array profiles = effective(upstream_ + "/most-allocated.yaml");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].at("schedulerName"), "default-scheduler");
  const json::value* fit = nullptr;
  for (const json::value& c : profiles[0].at("pluginConfig").as_array()) {
    if (c.at("name") == "NodeResourcesFit") {
      fit = &c;
    }
  }
  ASSERT_NE(fit, nullptr);
  const json::value& strategy = fit->at("args").at("scoringStrategy");
  EXPECT_EQ(strategy.at("type"), "MostAllocated");
  ASSERT_EQ(strategy.at("resources").as_array().size(), 4u);
  EXPECT_EQ(strategy.at("resources").at(2).at("name"), "intel.com/foo");
  EXPECT_EQ(strategy.at("resources").at(2).at("weight"), 3);
}

// `profile check --json`: upstream's defaulted profile, as kube-scheduler reports it. The
// written pluginConfig entry comes first, filled in; the default args of the other plugins in
// use follow, sorted by name, each typed.
TEST_F(UpstreamConfigTest, TheJsonIsUpstreamsDefaultedProfile) {
  const CliRun r =
      run({"profile", "check", "--json", upstream_ + "/most-allocated.yaml"}, kPluginEnv);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json::value profiles = json::parse(r.out);
  ASSERT_EQ(profiles.as_array().size(), 1u);
  const json::value& profile = profiles.at(0);
  EXPECT_EQ(profile.at("plugins").at("score"), json::object());
  const json::array& multiPoint = profile.at("plugins").at("multiPoint").at("enabled").as_array();
  ASSERT_GE(multiPoint.size(), 2u);
  EXPECT_EQ(multiPoint.at(0), json::parse(R"({"name": "SchedulingGates"})"));
  EXPECT_EQ(multiPoint.at(4), json::parse(R"({"name": "TaintToleration", "weight": 3})"));
  std::vector<std::string> kinds;
  for (const json::value& c : profile.at("pluginConfig").as_array()) {
    EXPECT_EQ(c.at("args").at("apiVersion"), "kubescheduler.config.k8s.io/v1");
    kinds.emplace_back(c.at("args").at("kind").as_string());
  }
  ASSERT_FALSE(kinds.empty());
  EXPECT_EQ(kinds.front(), "NodeResourcesFitArgs");
  EXPECT_TRUE(std::is_sorted(kinds.begin() + 1, kinds.end())) << r.out;
  EXPECT_EQ(profile.at("pluginConfig").at(0).at("args").at("scoringStrategy").at("type"),
            "MostAllocated");
}

TEST_F(UpstreamConfigTest, MultiPointInJson) {
  const json::array profiles = effective(upstream_ + "/multipoint.json");
  ASSERT_EQ(profiles.size(), 1u);
  EXPECT_EQ(profiles[0].at("schedulerName"), "multipoint-scheduler");
  const std::vector<std::string> score = names(profiles[0], "score");
  EXPECT_EQ(std::count(score.begin(), score.end(), "NodeResourcesBalancedAllocation"), 0);
  for (const json::value& p : profiles[0].at("plugins").at("score").as_array()) {
    if (p.at("name") == "ImageLocality") {
      EXPECT_EQ(p.at("weight"), 7);  // multiPoint's weight over the default 1
    }
  }
}

TEST_F(UpstreamConfigTest, InvalidArgsFailWithUpstreamFieldPaths) {
  const CliRun r = run({"profile", "check", upstream_ + "/invalid-args.yaml"}, kPluginEnv);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("invalid-args.yaml:9:34: profiles[0].pluginConfig[0].args."
                       "hardPodAffinityWeight: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("profiles[0].pluginConfig[1].args.scoringStrategy.resources[0].weight"),
            std::string::npos)
      << r.err;
}

TEST_F(UpstreamConfigTest, ConvertBothWays) {
  const CliRun toToml = run({"config", "convert", upstream_ + "/no-scoring.yaml"});
  ASSERT_EQ(toToml.exitCode, 0) << toToml.err;
  std::ofstream(dir_ / "converted.toml") << toToml.out;
  EXPECT_EQ(effective((dir_ / "converted.toml").string()),
            effective(upstream_ + "/no-scoring.yaml"));
  // upstream's Lease name, written out: schedhost's own default is "schedhost".
  EXPECT_NE(toToml.out.find("resourceName = \"kube-scheduler\""), std::string::npos) << toToml.out;

  const CliRun toYaml = run({"config", "convert", (dir_ / "converted.toml").string()});
  ASSERT_EQ(toYaml.exitCode, 0) << toYaml.err;
  EXPECT_EQ(toYaml.out.rfind("apiVersion: kubescheduler.config.k8s.io/v1\n"
                             "kind: KubeSchedulerConfiguration\n",
                             0),
            0u)
      << toYaml.out;
  std::ofstream(dir_ / "again.yaml") << toYaml.out;
  EXPECT_EQ(effective((dir_ / "again.yaml").string()), effective(upstream_ + "/no-scoring.yaml"));

  const CliRun same = run({"config", "convert", "--to", "yaml", upstream_ + "/no-scoring.yaml"});
  EXPECT_EQ(same.exitCode, 2);
  const CliRun own = run({"config", "convert", SCHEDHOST_DEFAULT_PROFILE});
  EXPECT_EQ(own.exitCode, 0) << own.err;
}

// kube-scheduler's command line: no command, pflag's -v=N, klog's JSON lines on stderr.
TEST_F(UpstreamConfigTest, UpstreamCommandLineAndJsonLogs) {
  const CliRun r = run({"--cluster", SCHEDHOST_EXAMPLE_CLUSTER, "-v=5", "--logging-format=json",
                        "--feature-gates=NodeDeclaredFeatures=true,SchedulerAsyncAPICalls=false"},
                       kPluginEnv);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\"kind\":\"Summary\",\"scheduled\":27,"), std::string::npos) << r.out;
  std::istringstream lines(r.err);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    boost::system::error_code ec;
    const json::value v = json::parse(line, ec);
    ASSERT_FALSE(ec) << "not a JSON line: " << line;
    const json::object& o = v.as_object();
    EXPECT_TRUE(o.contains("ts") && o.at("ts").is_double()) << line;
    EXPECT_TRUE(o.contains("msg") && o.at("msg").is_string()) << line;
    ++count;
  }
  EXPECT_GT(count, 0) << "trace logs something";
}

// profile check takes --feature-gates as run does: the profiles it prints are the ones run
// would build with the same gates.
TEST_F(UpstreamConfigTest, ProfileCheckHonoursFeatureGates) {
  auto multiPoint = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"profile", "check", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(upstream_ + "/no-scoring.yaml");
    const CliRun r = run(args, kPluginEnv);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::vector<std::string> names;
    const json::value profiles = json::parse(r.out);
    for (const json::value& p :
         profiles.at(0).at("plugins").at("multiPoint").at("enabled").as_array()) {
      names.emplace_back(p.at("name").as_string());
    }
    return names;
  };
  const std::vector<std::string> on = multiPoint({});
  ASSERT_FALSE(on.empty());
  EXPECT_EQ(on.back(), "NodeDeclaredFeatures");
  std::vector<std::string> off = multiPoint({"--feature-gates=NodeDeclaredFeatures=false"});
  EXPECT_EQ(off, std::vector<std::string>(on.begin(), on.end() - 1));
  const CliRun unknown =
      run({"profile", "check", "--feature-gates=NoSuchGate=true", upstream_ + "/no-scoring.yaml"},
          kPluginEnv);
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("schedhost profile check: --feature-gates: unrecognized feature "
                             "gate: NoSuchGate"),
            std::string::npos)
      << unknown.err;
}

TEST_F(UpstreamConfigTest, RemovedFlagsAndUnhonouredGatesAreRefusedByName) {
  const CliRun removed = run({"--config=x.yaml", "--logtostderr=true"}, kPluginEnv);
  EXPECT_EQ(removed.exitCode, 1);
  EXPECT_EQ(removed.err,
            "schedhost: --logtostderr: kube-scheduler v1.36 has no such flag; drop it: logs "
            "always go to stderr (removed in v1.26)\n");
  const CliRun gate =
      run({"--cluster", SCHEDHOST_EXAMPLE_CLUSTER, "--feature-gates=NoSuchGate=true"}, kPluginEnv);
  EXPECT_EQ(gate.exitCode, 1);
  EXPECT_NE(gate.err.find("--feature-gates: unrecognized feature gate: NoSuchGate"),
            std::string::npos)
      << gate.err;
  const CliRun unhonoured = run(
      {"--cluster", SCHEDHOST_EXAMPLE_CLUSTER, "--feature-gates=SchedulerPopFromBackoffQ=false"},
      kPluginEnv);
  EXPECT_EQ(unhonoured.exitCode, 1);
  EXPECT_NE(unhonoured.err.find("SchedulerPopFromBackoffQ=false: schedhost implements"),
            std::string::npos)
      << unhonoured.err;
  const CliRun verbosity = run({"--cluster", SCHEDHOST_EXAMPLE_CLUSTER, "--v=-1"}, kPluginEnv);
  EXPECT_EQ(verbosity.exitCode, 1);
  EXPECT_NE(verbosity.err.find("-v -1: must be 0 or more"), std::string::npos) << verbosity.err;
}

// The default profile with no configuration file: what it reports is named as the built-in
// defaults (it used to say "<unknown>").
TEST_F(UpstreamConfigTest, BuiltInDefaultsAreNamed) {
  const CliRun r = run({"run", "--cluster", SCHEDHOST_EXAMPLE_CLUSTER},
                       "SCHEDHOST_PLUGIN_DIRS=" + (dir_ / "empty").string());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("built-in defaults: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("<unknown>"), std::string::npos) << r.err;
}

// A binary in its build tree loads the plugins built beside it; the same binary anywhere else
// (installed) looks only in the installed plugin directory.
TEST_F(UpstreamConfigTest, PluginsAreFoundByWhereTheBinaryIs) {
  const CliRun inTree = run({"plugin", "list"}, "-u SCHEDHOST_PLUGIN_DIRS");
  EXPECT_EQ(inTree.exitCode, 0) << inTree.err;
  EXPECT_NE(inTree.out.find(std::string(SCHEDHOST_PLUGIN_DIR) + "/libplugin_noderesourcesfit.so"),
            std::string::npos)
      << inTree.out;

  const fs::path copy = dir_ / "bin" / "schedhost";
  fs::create_directories(copy.parent_path());
  fs::copy_file(SCHEDHOST_BIN, copy);
  const CliRun elsewhere = run({"plugin", "list"}, "-u SCHEDHOST_PLUGIN_DIRS", copy.string());
  EXPECT_EQ(elsewhere.out.find(SCHEDHOST_PLUGIN_DIR), std::string::npos) << elsewhere.out;
  EXPECT_NE((elsewhere.out + elsewhere.err).find(SCHEDHOST_INSTALL_PLUGIN_DIR), std::string::npos)
      << elsewhere.out << elsewhere.err;
}

}  // namespace
}  // namespace sh::upstream_config_test

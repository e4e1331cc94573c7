// `schedhost rbac` run as an operator runs it: with the default profile its output is
// packaging/kubernetes/rbac.yaml to the byte; the kinds enabled plugins declare (fixtures of
// rbac_kinds_plugin.c) add one rule per group and resource after the host's; the Lease's Role
// follows [leaderElection] and its flags; the secure port's reader of the cluster's
// authentication configuration is always there; a configuration `run` would refuse prints nothing
// on stdout, its errors on stderr, and exits 1. The manifests are read back with yaml-cpp.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace sh::rbac_command_test {
namespace {

namespace fs = std::filesystem;

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

// One rule as the manifest spells it, fields in order, for comparing whole rule lists.
struct Rule {
  std::vector<std::string> apiGroups, resources, resourceNames, verbs;
  bool operator==(const Rule&) const = default;
};

std::string listText(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "\"" : ", \"") + items[i] + "\"";
  }
  return out + "]";
}

// How gtest prints a rule that differs.
std::ostream& operator<<(std::ostream& out, const Rule& r) {
  out << "{apiGroups: " << listText(r.apiGroups) << ", resources: " << listText(r.resources);
  if (!r.resourceNames.empty()) {
    out << ", resourceNames: " << listText(r.resourceNames);
  }
  return out << ", verbs: " << listText(r.verbs) << "}";
}

std::vector<std::string> strings(const YAML::Node& node) {
  std::vector<std::string> out;
  for (const YAML::Node& n : node) {
    out.push_back(n.as<std::string>());
  }
  return out;
}

// The documents of a manifest stream, by kind (the tests' manifests have one of each).
class Manifests {
 public:
  explicit Manifests(const std::string& text) : docs_(YAML::LoadAll(text)) {}

  YAML::Node doc(const std::string& kind) const {
    for (const YAML::Node& d : docs_) {
      if (d["kind"].as<std::string>() == kind) {
        return d;
      }
    }
    return YAML::Node();
  }
  YAML::Node named(const std::string& kind, const std::string& name) const {
    for (const YAML::Node& d : docs_) {
      if (d["kind"].as<std::string>() == kind && d["metadata"]["name"].as<std::string>() == name) {
        return d;
      }
    }
    return YAML::Node();
  }
  std::vector<std::string> kinds() const {
    std::vector<std::string> out;
    for (const YAML::Node& d : docs_) {
      out.push_back(d["kind"].as<std::string>());
    }
    return out;
  }
  std::vector<Rule> rules(const std::string& kind) const {
    std::vector<Rule> out;
    for (const YAML::Node& r : doc(kind)["rules"]) {
      Rule rule;
      rule.apiGroups = strings(r["apiGroups"]);
      rule.resources = strings(r["resources"]);
      if (r["resourceNames"]) {
        rule.resourceNames = strings(r["resourceNames"]);
      }
      rule.verbs = strings(r["verbs"]);
      out.push_back(rule);
    }
    return out;
  }

 private:
  std::vector<YAML::Node> docs_;
};

// The host's own ClusterRole rules, as the checked-in manifest has them (tests/kube/rbac_test.cc
// replays a recorded run against that file).
std::vector<Rule> checkedInHostRules() {
  return Manifests(slurp(SCHEDHOST_RBAC_YAML)).rules("ClusterRole");
}

class RbacCommandTest : public ::testing::Test {
 protected:
  // Under the build tree, as the fixture plugins are.
  void SetUp() override {
    dir_ = fs::path(SCHEDHOST_SCRATCH_DIR) /
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A schedhost.toml whose plugins come from the default and the fixture directories.
  std::string config(const std::string& rest) {
    fs::path path = dir_ / "schedhost.toml";
    std::ofstream(path) << "pluginDirs = [\"" << SCHEDHOST_PLUGIN_DIR << "\", \""
                        << SCHEDHOST_RBAC_FIXTURE_DIR << "\"]\n"
                        << rest;
    return path.string();
  }

  CliRun rbac(const std::string& args) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    std::string command = std::string(SCHEDHOST_BIN) + " rbac --plugin-dir " +
                          SCHEDHOST_PLUGIN_DIR + " " + args + " >" + out.string() + " 2>" +
                          err.string();
    int raw = std::system(command.c_str());
    CliRun result;
    result.exitCode = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = slurp(out);
    result.err = slurp(err);
    return result;
  }

  fs::path dir_;
};

// The manifest the Deployment uses is the command's output for the default profile (the
// ConfigMap's profile is upstream's default plugin set, as the default profile is).
// Regenerate with `schedhost rbac > packaging/kubernetes/rbac.yaml`.
TEST_F(RbacCommandTest, DefaultProfileOutputIsTheCheckedInManifest) {
  CliRun r = rbac("");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, slurp(SCHEDHOST_RBAC_YAML));
  Manifests m(r.out);
  EXPECT_EQ(m.kinds(),
            (std::vector<std::string>{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
                                      "RoleBinding", "Role", "RoleBinding"}));
  // The secure port's read of the cluster's authentication configuration, by name, in
  // kube-system, bound to the ServiceAccount.
  const YAML::Node reader = m.named("Role", "schedhost-authentication-reader");
  ASSERT_TRUE(reader) << r.out;
  EXPECT_EQ(reader["metadata"]["namespace"].as<std::string>(), "kube-system");
  ASSERT_EQ(reader["rules"].size(), 1u);
  EXPECT_EQ(strings(reader["rules"][0]["resources"]), std::vector<std::string>{"configmaps"});
  EXPECT_EQ(strings(reader["rules"][0]["resourceNames"]),
            std::vector<std::string>{"extension-apiserver-authentication"});
  EXPECT_EQ(strings(reader["rules"][0]["verbs"]), std::vector<std::string>{"get"});
  const YAML::Node readerBinding = m.named("RoleBinding", "schedhost-authentication-reader");
  ASSERT_TRUE(readerBinding) << r.out;
  EXPECT_EQ(readerBinding["metadata"]["namespace"].as<std::string>(), "kube-system");
  EXPECT_EQ(readerBinding["subjects"][0]["name"].as<std::string>(), "schedhost");
  EXPECT_EQ(m.doc("ClusterRole")["metadata"]["name"].as<std::string>(), "schedhost");
  // The host's ten rules, then the storage kinds the volume plugins declare.
  const std::vector<Rule> rules = m.rules("ClusterRole");
  ASSERT_GT(rules.size(), 10u);
  EXPECT_EQ(rules[8], (Rule{{"authentication.k8s.io"}, {"tokenreviews"}, {}, {"create"}}));
  EXPECT_EQ(rules[10], (Rule{{""}, {"persistentvolumeclaims"}, {}, {"list", "watch", "update"}}));
}

// Plugins in the plugin directories that no profile enables add nothing.
TEST_F(RbacCommandTest, PluginsNoProfileEnablesAddNoRules) {
  CliRun r = rbac("--config " + config("[[profiles]]\nschedulerName = \"default-scheduler\"\n"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(Manifests(r.out).rules("ClusterRole"), checkedInHostRules());
}

// RbacKindsA in one profile, A and B in another: one rule per group and resource, with the
// union of the verbs, after the host's rules, sorted by group ("" first) and resource; A is
// named once though two profiles enable it. The profiles leave the default plugins (and their
// storage kinds) out.
TEST_F(RbacCommandTest, DeclaredKindsAddMergedRules) {
  CliRun r = rbac("--config " + config(R"([[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
disabled = [ { name = "*" } ]
enabled = [ { name = "PrioritySort" }, { name = "DefaultBinder" } ]
[profiles.plugins.filter]
enabled = [ { name = "RbacKindsA" } ]

[[profiles]]
schedulerName = "gangs"
[profiles.plugins.multiPoint]
disabled = [ { name = "*" } ]
enabled = [ { name = "PrioritySort" }, { name = "DefaultBinder" } ]
[profiles.plugins.filter]
enabled = [ { name = "RbacKindsB" }, { name = "RbacKindsA" } ]
)"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::vector<Rule> expected = checkedInHostRules();
  ASSERT_GT(expected.size(), 10u);
  expected.resize(10);  // the host's rules, without the default plugins' kinds
  // SH_VERB_PATCH
  expected.push_back({{""}, {"persistentvolumeclaims"}, {}, {"list", "watch", "patch"}});
  // A reads; B (a selector of its own: another watch, the same rule) creates and deletes.
  expected.push_back(
      {{"scheduling.x-k8s.io"}, {"podgroups"}, {}, {"list", "watch", "create", "delete"}});
  // A's SH_VERB_UPDATE_STATUS: PUT, or PATCH with a patch type, of the status subresource.
  expected.push_back({{"scheduling.x-k8s.io"}, {"podgroups/status"}, {}, {"update", "patch"}});
  // Read only.
  expected.push_back({{"storage.k8s.io"}, {"storageclasses"}, {}, {"list", "watch"}});
  Manifests m(r.out);
  EXPECT_EQ(m.rules("ClusterRole"), expected);
  EXPECT_NE(r.out.find("  # PersistentVolumeClaim, declared by RbacKindsA.\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  # PodGroup, declared by RbacKindsA, RbacKindsB.\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  # PodGroup status, written by RbacKindsA.\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  # StorageClass, declared by RbacKindsB.\n"), std::string::npos) << r.out;
  // The Lease's Role does not change with the plugins.
  EXPECT_EQ(m.rules("Role"), Manifests(slurp(SCHEDHOST_RBAC_YAML)).rules("Role"));
}

TEST_F(RbacCommandTest, LeaseRoleFollowsLeaderElection) {
  const std::string file = config(
      "[leaderElection]\nresourceName = \"gang-lease\"\nresourceNamespace = \"scheduling\"\n");
  CliRun r = rbac("--config " + file);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  Manifests m(r.out);
  EXPECT_EQ(m.rules("Role"),
            (std::vector<Rule>{
                {{"coordination.k8s.io"}, {"leases"}, {}, {"create"}},
                {{"coordination.k8s.io"}, {"leases"}, {"gang-lease"}, {"get", "update"}}}));
  EXPECT_EQ(m.doc("Role")["metadata"]["namespace"].as<std::string>(), "scheduling");
  const YAML::Node binding = m.doc("RoleBinding");
  EXPECT_EQ(binding["metadata"]["namespace"].as<std::string>(), "scheduling");
  EXPECT_EQ(binding["roleRef"]["name"].as<std::string>(), "schedhost-leader-election");
  // The ServiceAccount stays where the Deployment runs.
  EXPECT_EQ(binding["subjects"][0]["namespace"].as<std::string>(), "kube-system");

  // run's flags override the configuration, here as there.
  r = rbac("--config " + file + " --leader-elect-resource-name other");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(Manifests(r.out).rules("Role").at(1).resourceNames, std::vector<std::string>{"other"});

  // A name YAML would read as a boolean is quoted, so that kubectl reads a string.
  r = rbac("--config " + file + " --leader-elect-resource-name true");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("    resourceNames: [\"true\"]\n"), std::string::npos) << r.out;

  // Without leader election no Lease is touched, so no Lease Role is printed: only the
  // secure port's reader.
  const std::vector<std::string> withoutLease = {"ServiceAccount", "ClusterRole",
                                                 "ClusterRoleBinding", "Role", "RoleBinding"};
  r = rbac("--config " + file + " --leader-elect=false");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(Manifests(r.out).kinds(), withoutLease);
  EXPECT_EQ(Manifests(r.out).doc("Role")["metadata"]["name"].as<std::string>(),
            "schedhost-authentication-reader");
  r = rbac("--config " + config("[leaderElection]\nleaderElect = false\n"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(Manifests(r.out).kinds(), withoutLease);
}

TEST_F(RbacCommandTest, UnknownPluginIsRefused) {
  CliRun r = rbac("--config " + config(R"([[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.filter]
enabled = [ { name = "NoSuchPlugin" } ]
)"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("plugin \"NoSuchPlugin\" does not exist"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("schedhost rbac: 1 configuration error(s)\n"), std::string::npos) << r.err;
}

TEST_F(RbacCommandTest, MalformedConfigurationIsRefused) {
  const fs::path path = dir_ / "broken.toml";
  std::ofstream(path) << "parallelism = 4\nprofileDirs = [\n";
  CliRun r = rbac("--config " + path.string());
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(path.string() + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("schedhost rbac: "), std::string::npos) << r.err;
}

// The host refuses a declared kind whose group is not a DNS subdomain, naming the plugin, the
// kind and the cause; no manifest grants it anything.
TEST_F(RbacCommandTest, PluginWithAnInvalidKindIsRefused) {
  CliRun r = rbac("--config " + config(R"([[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.filter]
enabled = [ { name = "RbacKindsBad" } ]
)"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("plugin \"RbacKindsBad\" declares kind 0 Widget (widgets.v1.Bad_Group): "
                       "group \"Bad_Group\": not a DNS subdomain"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace sh::rbac_command_test

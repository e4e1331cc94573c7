// profile::load: from a schedhost.toml to one immutable Framework per schedulerName, with the
// default plugins this build produced.
#include "host/profile/profile_set.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "host/profile/generation.h"

namespace sh::profile::profile_set_test {
namespace {

// Profile loading never binds or waits; a host that refuses everything is enough.
class NoServices : public HostServices {
 public:
  Status bindPod(const sh_pod&, std::string_view) override { return Status::error("no binding"); }
  bool allowWaitingPod(std::string_view, std::string_view) override { return false; }
  bool rejectWaitingPod(std::string_view, std::string_view, std::string_view) override {
    return false;
  }
};

class ProfileSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("profile_set_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProfileSet load(const std::string& profiles, bool createPlugins = true) {
    std::string file = (dir_ / "schedhost.toml").string();
    std::ofstream(file) << "pluginDirs = [\"" << SCHEDHOST_TEST_PLUGIN_DIR << "\"]\n" << profiles;
    LoadRequest req;
    req.hostConfigFile = file;
    req.createPlugins = createPlugins;
    return profile::load(req, &services_, diags_);
  }

  std::vector<std::string> scorePlugins(const Framework& fw) {
    std::vector<std::string> names;
    for (const PluginPtr& p : fw.plugins(ExtensionPoint::kScore)) {
      names.push_back(p->name());
    }
    return names;
  }

  std::filesystem::path dir_;
  NoServices services_;
  config::Diagnostics diags_;
};

constexpr const char* kTwoProfiles = R"(
[[profiles]]
schedulerName = "default-scheduler"

[[profiles]]
schedulerName = "binpack-scheduler"
[profiles.plugins.score]
disabled = [ { name = "*" } ]
enabled = [ { name = "NodeResourcesFit", weight = 2 } ]
)";

TEST_F(ProfileSetTest, OneFrameworkPerSchedulerName) {
  ProfileSet set = load(kTwoProfiles);
  ASSERT_FALSE(diags_.hasErrors()) << diags_.str();
  ASSERT_EQ(set.frameworks.size(), 2u);
  const Framework* binpack = set.find("binpack-scheduler");
  ASSERT_NE(binpack, nullptr);
  EXPECT_EQ(binpack->profileName(), "binpack-scheduler");
  EXPECT_EQ(scorePlugins(*binpack), std::vector<std::string>{"NodeResourcesFit"});
  EXPECT_EQ(binpack->scoreWeights(), std::vector<int64_t>{2});
  // A pod asking for another scheduler is not ours.
  EXPECT_EQ(set.find("volcano"), nullptr);

  const Framework* defaults = set.find("default-scheduler");
  ASSERT_NE(defaults, nullptr);
  EXPECT_GT(scorePlugins(*defaults).size(), 1u);
  EXPECT_EQ(defaults->plugins(ExtensionPoint::kQueueSort).size(), 1u);
  EXPECT_EQ(defaults->plugins(ExtensionPoint::kBind).size(), 1u);
}

TEST_F(ProfileSetTest, ResolvesWithoutCreatingWhenAsked) {
  ProfileSet set = load(kTwoProfiles, /*createPlugins=*/false);
  ASSERT_FALSE(diags_.hasErrors()) << diags_.str();
  EXPECT_EQ(set.resolved.size(), 2u);
  EXPECT_TRUE(set.frameworks.empty());
}

TEST_F(ProfileSetTest, AnUnknownPluginBuildsNothing) {
  ProfileSet set = load(R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.filter]
enabled = [ { name = "NoSuchPlugin" } ]
)");
  EXPECT_TRUE(diags_.hasErrors());
  EXPECT_NE(diags_.str().find("NoSuchPlugin"), std::string::npos) << diags_.str();
  EXPECT_TRUE(set.frameworks.empty());
}

// The host file's profiles are checked when it is read and again with every profile loaded;
// the duplicate used to be printed by both.
TEST_F(ProfileSetTest, ADuplicateSchedulerNameIsReportedOnce) {
  const ProfileSet set = load(R"(
[[profiles]]
schedulerName = "batch"
[[profiles]]
schedulerName = "batch"
)",
                              false);
  const std::string file = (dir_ / "schedhost.toml").string();
  EXPECT_EQ(diags_.str(), file +
                              ":6:17: profiles[1].schedulerName: duplicate schedulerName "
                              "\"batch\" (first defined at " +
                              file + ":4:17)\n");
}

// At startup and at each reload, a profile that runs without some of upstream's default
// plugins is named in one warning line, each plugin with why: disabled by the profile, or no
// installed file (DynamicResources, which schedhost does not provide yet).
TEST_F(ProfileSetTest, AProfileLackingDefaultPluginsIsNamedWithEach) {
  ProfileSet set = load(R"(
[[profiles]]
schedulerName = "default-scheduler"
[profiles.plugins.multiPoint]
disabled = [{name = "NodePorts"}]
)");
  ASSERT_FALSE(diags_.hasErrors()) << diags_.str();
  ASSERT_EQ(set.resolved.size(), 1u);
  const std::string line = lackingDefaults(set.resolved[0]);
  EXPECT_EQ(line.rfind("profile \"default-scheduler\" lacks default plugins of kube-scheduler "
                       "v1.36: ",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("NodePorts (disabled)"), std::string::npos) << line;
  EXPECT_NE(line.find("DynamicResources (no installed file provides it)"), std::string::npos)
      << line;
  EXPECT_EQ(line.find("NodeResourcesFit"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);  // one line
}

}  // namespace
}  // namespace sh::profile::profile_set_test

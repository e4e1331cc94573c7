// Reloader: generations built from files on disk through the real profile path — applied when
// valid, rejected with the precise diagnostics otherwise (the running generation stays), and
// requests serialised.
#include "host/reload/reloader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "host/framework/host_services.h"

namespace sh::reload::reloader_test {
namespace {

namespace fs = std::filesystem;

class ReloaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("schedhost-reloader-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    reloader_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string configPath() const { return (dir_ / "schedhost.toml").string(); }

  // Writes schedhost.toml (by rename, as an operator should) with these plugin directories
  // and `rest`.
  void writeConfig(const std::string& rest,
                   const std::vector<std::string>& pluginDirs = {SCHEDHOST_TEST_PLUGIN_DIR}) {
    std::string text = "pluginDirs = [";
    for (std::size_t i = 0; i < pluginDirs.size(); ++i) {
      text += (i == 0 ? "\"" : ", \"") + pluginDirs[i] + "\"";
    }
    text += "]\n" + rest;
    const fs::path tmp = dir_ / "schedhost.toml.tmp";
    std::ofstream(tmp) << text;
    fs::rename(tmp, configPath());
  }

  // Builds generation 1 from the current file and starts a reloader on it.
  void start() {
    request_.hostConfigFile = configPath();
    config::Diagnostics diags;
    profile::GenerationPtr first = profile::buildGeneration(request_, 1, &services_, diags);
    ASSERT_NE(first, nullptr) << diags.str();
    Reloader::Options options;
    options.request = request_;
    options.services = &services_;
    options.install = [this](const profile::GenerationPtr& g) {
      std::lock_guard<std::mutex> lock(mu_);
      installed_.push_back(g->number);
      for (const auto& [name, fw] : g->set.frameworks) {
        EXPECT_EQ(fw->generation(), g->number) << name;
      }
    };
    options.report = [this](const ReloadResult& r, const profile::GenerationPtr&) {
      std::lock_guard<std::mutex> lock(mu_);
      reports_.push_back(r);
    };
    reloader_ = std::make_unique<Reloader>(options, first);
    reloader_->start();
  }

  ReloadResult reload() {
    auto r = reloader_->reloadAndWait("test", std::chrono::seconds(60));
    EXPECT_TRUE(r.has_value());
    return r.value_or(ReloadResult{});
  }

  std::vector<uint64_t> installed() {
    std::lock_guard<std::mutex> lock(mu_);
    return installed_;
  }

  fs::path dir_;
  NullHostServices services_;
  profile::LoadRequest request_;
  std::unique_ptr<Reloader> reloader_;
  std::mutex mu_;
  std::vector<uint64_t> installed_;
  std::vector<ReloadResult> reports_;
};

constexpr char kDefault[] = "[[profiles]]\nschedulerName = \"default-scheduler\"\n";

TEST_F(ReloaderTest, AppliesAValidChangeAsTheNextGeneration) {
  writeConfig(kDefault);
  ASSERT_NO_FATAL_FAILURE(start());
  writeConfig(std::string(kDefault) +
              "[profiles.plugins.score]\n"
              "disabled = [{name = \"ImageLocality\"}]\n"
              "enabled = [{name = \"NodeResourcesFit\", weight = 4}]\n"
              "[[profiles]]\nschedulerName = \"batch\"\n");
  ReloadResult r = reload();
  EXPECT_TRUE(r.applied) << r.error;
  EXPECT_EQ(r.generation, 2u);
  EXPECT_EQ(r.changed, (std::vector<std::string>{"batch", "default-scheduler/ImageLocality",
                                                 "default-scheduler/NodeResourcesFit"}));
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(installed(), (std::vector<uint64_t>{2}));
  ASSERT_NE(reloader_->current(), nullptr);
  EXPECT_EQ(reloader_->current()->number, 2u);
  EXPECT_EQ(reloader_->current()->set.frameworks.size(), 2u);

  // The same files again: a new generation with nothing changed.
  r = reload();
  EXPECT_TRUE(r.applied);
  EXPECT_EQ(r.generation, 3u);
  EXPECT_TRUE(r.changed.empty());
  EXPECT_EQ(reloader_->appliedCount(), 2u);
}

TEST_F(ReloaderTest, TheApiConnectionAndTheLeaseWaitForARestart) {
  writeConfig(kDefault);
  ASSERT_NO_FATAL_FAILURE(start());
  writeConfig(std::string(kDefault) +
              "[clientConnection]\nqps = 10\n[leaderElection]\nresourceName = \"other\"\n");
  ReloadResult r = reload();
  EXPECT_TRUE(r.applied) << r.error;
  EXPECT_NE(r.warnings.find("clientConnection changed; it takes effect when the scheduler "
                            "restarts"),
            std::string::npos)
      << r.warnings;
  EXPECT_NE(r.warnings.find("leaderElection changed"), std::string::npos) << r.warnings;
}

struct RejectCase {
  std::string name;
  std::string config;
  std::string expected;  // a piece of the error
};

TEST_F(ReloaderTest, RejectedReloadsKeepTheRunningGeneration) {
  writeConfig(kDefault, {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_QUEUE_PLUGIN_DIR});
  ASSERT_NO_FATAL_FAILURE(start());
  const fs::path notAPlugin = dir_ / "libnot-a-plugin.so";
  std::ofstream(notAPlugin) << "just text\n";
  const std::vector<RejectCase> cases = {
      {"bad TOML", std::string(kDefault) + "parallelism = \n", "schedhost.toml:4:15: invalid TOML"},
      {"unknown plugin",
       std::string(kDefault) + "[profiles.plugins.filter]\nenabled = [{name = \"NoSuchPlugin\"}]\n",
       "schedhost.toml:5:12: profiles[0].plugins.filter.enabled[0].name: plugin \"NoSuchPlugin\" "
       "does not exist"},
      {"bad args",
       std::string(kDefault) + "[[profiles.pluginConfig]]\nname = \"NodeResourcesFit\"\n"
                               "[profiles.pluginConfig.args.scoringStrategy]\ntype = \"Nope\"\n",
       "scoringStrategy.type"},
      {"a library that fails to load",
       std::string(kDefault) + "[[profiles.libraries]]\npath = \"" + notAPlugin.string() + "\"\n",
       notAPlugin.string()},
      {"QueueSort mismatch",
       std::string(kDefault) +
           "[[profiles]]\nschedulerName = \"by-name\"\n"
           "[profiles.plugins.queueSort]\n"
           "disabled = [{name = \"*\"}]\nenabled = [{name = \"QueueByName\"}]\n",
       "queueSort plugin \"QueueByName\" of profile \"by-name\" differs from \"PrioritySort\" of "
       "profile \"default-scheduler\"; all profiles must use the same queueSort plugin"},
  };
  for (const RejectCase& c : cases) {
    SCOPED_TRACE(c.name);
    writeConfig(c.config, {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_QUEUE_PLUGIN_DIR});
    ReloadResult r = reload();
    EXPECT_FALSE(r.applied);
    EXPECT_EQ(r.generation, 1u);
    EXPECT_NE(r.error.find(c.expected), std::string::npos) << r.error;
    // One cause, not a cascade: a file that does not parse is not resolved further.
    EXPECT_EQ(r.error.find("is required for profile"), std::string::npos) << r.error;
    EXPECT_TRUE(r.changed.empty());
    EXPECT_EQ(reloader_->current()->number, 1u);
  }
  EXPECT_TRUE(installed().empty());
  EXPECT_EQ(reloader_->rejectedCount(), cases.size());
  EXPECT_EQ(reloader_->pluginLoadFailures(), 1u);  // the text file

  // And a valid file afterwards is generation 2.
  writeConfig(kDefault, {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_QUEUE_PLUGIN_DIR});
  ReloadResult r = reload();
  EXPECT_TRUE(r.applied) << r.error;
  EXPECT_EQ(r.generation, 2u);
}

TEST_F(ReloaderTest, RequestsDuringAReloadFoldIntoOneMoreRun) {
  writeConfig(kDefault);
  request_.hostConfigFile = configPath();
  config::Diagnostics diags;
  profile::GenerationPtr first = profile::buildGeneration(request_, 1, &services_, diags);
  ASSERT_NE(first, nullptr) << diags.str();

  std::mutex gateMu;
  std::condition_variable gateCv;
  bool open = false;
  std::atomic<int> runs{0};
  std::atomic<int> concurrent{0};
  std::atomic<int> maxConcurrent{0};
  Reloader::Options options;
  options.request = request_;
  options.services = &services_;
  options.install = [&](const profile::GenerationPtr&) {
    const int now = ++concurrent;
    maxConcurrent.store(std::max(maxConcurrent.load(), now));
    if (++runs == 1) {
      std::unique_lock<std::mutex> lock(gateMu);
      gateCv.wait(lock, [&] { return open; });
    }
    --concurrent;
  };
  Reloader reloader(options, first);
  reloader.start();
  const uint64_t firstTicket = reloader.request("first");
  // Wait until the first run is inside install (blocked on the gate).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (runs.load() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(runs.load(), 1);
  std::vector<uint64_t> tickets;
  for (int i = 0; i < 5; ++i) {
    tickets.push_back(reloader.request("more"));
  }
  {
    std::lock_guard<std::mutex> lock(gateMu);
    open = true;
  }
  gateCv.notify_all();
  auto r1 = reloader.wait(firstTicket, std::chrono::seconds(60));
  ASSERT_TRUE(r1.has_value());
  EXPECT_EQ(r1->generation, 2u);
  for (uint64_t t : tickets) {
    auto r = reloader.wait(t, std::chrono::seconds(60));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->generation, 3u) << "the five requests share one run after the first";
  }
  EXPECT_EQ(runs.load(), 2);
  EXPECT_EQ(maxConcurrent.load(), 1);
  reloader.stop();
}

TEST_F(ReloaderTest, SwitchingPluginBuildsKeepsBothResident) {
  const std::string probe =
      std::string(kDefault) +
      "[profiles.plugins.score]\nenabled = [{name = \"SwapProbe\", weight = 50}]\n";
  writeConfig(probe, {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_SWAP_PROBE_V1_DIR});
  ASSERT_NO_FATAL_FAILURE(start());
  auto versionOf = [](const profile::Generation& g) {
    auto lib = g.set.registry->find("SwapProbe");
    return lib == nullptr ? std::string() : lib->version;
  };
  EXPECT_EQ(versionOf(*reloader_->current()), "1.0.0");
  const std::string v1Sha = reloader_->current()->set.registry->find("SwapProbe")->sha256;

  writeConfig(probe, {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_SWAP_PROBE_V2_DIR});
  ReloadResult r = reload();
  ASSERT_TRUE(r.applied) << r.error;
  EXPECT_EQ(r.changed, (std::vector<std::string>{"default-scheduler/SwapProbe"}));
  EXPECT_EQ(versionOf(*reloader_->current()), "2.0.0");
  EXPECT_NE(reloader_->current()->set.registry->find("SwapProbe")->sha256, v1Sha);
  const std::string configz = profile::configzJson(*reloader_->current());
  EXPECT_NE(configz.find("swap-v2"), std::string::npos) << configz;

  // Back and forth: the resident count stops growing once both builds are loaded.
  writeConfig(probe, {SCHEDHOST_TEST_PLUGIN_DIR, SCHEDHOST_SWAP_PROBE_V1_DIR});
  ASSERT_TRUE(reload().applied);
  const std::size_t resident = plugin::residentLibraryCount();
  for (int i = 0; i < 6; ++i) {
    writeConfig(probe, {SCHEDHOST_TEST_PLUGIN_DIR,
                        i % 2 == 0 ? SCHEDHOST_SWAP_PROBE_V2_DIR : SCHEDHOST_SWAP_PROBE_V1_DIR});
    ASSERT_TRUE(reload().applied);
  }
  EXPECT_EQ(plugin::residentLibraryCount(), resident);
}

// A copy of the default plugins' directory, to delete files from. Under the build tree: the
// trust rules judge every directory above a plugin.
fs::path copyOfThePluginDir(const std::string& name) {
  const fs::path dir = fs::path(SCHEDHOST_RELOAD_SCRATCH_DIR) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const fs::directory_entry& entry : fs::directory_iterator(SCHEDHOST_TEST_PLUGIN_DIR)) {
    if (entry.path().extension() == ".so") {
      fs::copy_file(entry.path(), dir / entry.path().filename());
    }
  }
  return dir;
}

// Deleting a default plugin's file used to apply the next reload without that plugin: a
// profile silently lost its TaintToleration filter and pods landed on tainted nodes. Now the
// reload is rejected, naming the plugin, the profile and the file; dropping the plugin on
// purpose (disabled in the profile) still applies.
TEST_F(ReloaderTest, AReloadThatWouldLoseAPluginInUseIsRejected) {
  const fs::path plugins = copyOfThePluginDir(std::to_string(::getpid()) + "-lost");
  writeConfig(kDefault, {plugins.string()});
  ASSERT_NO_FATAL_FAILURE(start());
  auto taint = reloader_->current()->set.registry->candidate("TaintToleration");
  ASSERT_TRUE(taint.has_value());
  ASSERT_TRUE(fs::remove(taint->path));

  ReloadResult r = reload();
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(r.generation, 1u);
  EXPECT_EQ(r.error,
            "error: profile \"default-scheduler\": plugin \"TaintToleration\" is in use but no "
            "installed file provides it any more (loaded from [" +
                taint->path +
                "]); the reload would run the profile without it. Restore the plugin's file, or "
                "disable the plugin in the profile to drop it on purpose\n");
  EXPECT_EQ(reloader_->current()->number, 1u);
  EXPECT_NE(reloader_->current()->set.resolved.at(0).plugin("TaintToleration"), nullptr);

  // On purpose: disabled in the profile, the reload applies and says what changed.
  writeConfig(std::string(kDefault) +
                  "[profiles.plugins.multiPoint]\ndisabled = [{name = \"TaintToleration\"}]\n",
              {plugins.string()});
  r = reload();
  EXPECT_TRUE(r.applied) << r.error;
  EXPECT_EQ(r.changed, (std::vector<std::string>{"default-scheduler/TaintToleration"}));
  EXPECT_EQ(reloader_->current()->set.resolved.at(0).plugin("TaintToleration"), nullptr);

  // A profile that no longer runs it loses nothing when the configuration enables it again
  // while the file is still gone: the plugin was not in use.
  writeConfig(kDefault, {plugins.string()});
  r = reload();
  EXPECT_TRUE(r.applied) << r.error;
  fs::remove_all(plugins);
}

}  // namespace
}  // namespace sh::reload::reloader_test

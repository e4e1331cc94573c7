// FileWatcher on real temporary directories. Waits poll against generous deadlines; a test
// that expects no callback waits a quiet period of several debounces and then proves the
// watcher was live with a change that must be seen.
#include "host/reload/file_watcher.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using sh::reload::FileWatcher;
using std::chrono::milliseconds;

constexpr milliseconds kDebounce{200};
constexpr milliseconds kDeadline{10'000};
// Long enough for a change to be read and its debounce to expire on a busy machine.
constexpr milliseconds kQuiet{kDebounce * 6};

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "schedhost-reload-XXXXXX").string();
    char* made = mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

bool waitFor(const std::function<bool()>& done, milliseconds deadline = kDeadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) {
      return false;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

// A watcher that counts its callbacks and collects its thread's warnings.
struct Counted {
  explicit Counted(milliseconds debounce = kDebounce)
      : watcher(
            debounce, [this] { calls.fetch_add(1); }, {".toml", ".so"},
            [this](const std::string& w) {
              std::lock_guard<std::mutex> lock(mu);
              warnings.push_back(w);
            }) {}

  std::vector<std::string> threadWarnings() {
    std::lock_guard<std::mutex> lock(mu);
    return warnings;
  }
  // Waits for the count to reach `n`, then a quiet period, and returns the count.
  int settle(int n) {
    waitFor([&] { return calls.load() >= n; });
    std::this_thread::sleep_for(kQuiet);
    return calls.load();
  }

  std::atomic<int> calls{0};
  std::mutex mu;
  std::vector<std::string> warnings;
  FileWatcher watcher;
};

TEST(FileWatcher, WritingAWatchedFileCallsOnce) {
  TempDir dir;
  fs::path config = dir.path() / "config.toml";
  writeFile(config, "a = 1\n");
  Counted c;
  EXPECT_TRUE(c.watcher.setTargets({config}, {}).empty());
  ASSERT_TRUE(c.watcher.start().ok());

  writeFile(config, "a = 2\n");
  EXPECT_EQ(c.settle(1), 1);

  writeFile(config, "a = 3\n");
  EXPECT_EQ(c.settle(2), 2);
}

TEST(FileWatcher, EditorWriteRenameChmodIsOneCallback) {
  TempDir dir;
  fs::path config = dir.path() / "config.toml";
  writeFile(config, "a = 1\n");
  Counted c;
  c.watcher.setTargets({config}, {});
  ASSERT_TRUE(c.watcher.start().ok());

  fs::path temp = dir.path() / ".config.toml.swp";
  writeFile(temp, "a = 2\n");
  fs::rename(temp, config);
  ASSERT_EQ(chmod(config.c_str(), 0600), 0);
  EXPECT_EQ(c.settle(1), 1);
}

TEST(FileWatcher, OtherFilesInTheSameDirectoryAreIgnored) {
  TempDir dir;
  fs::path config = dir.path() / "config.toml";
  writeFile(config, "a = 1\n");
  Counted c;
  c.watcher.setTargets({config}, {});
  ASSERT_TRUE(c.watcher.start().ok());

  writeFile(dir.path() / "other.toml", "b = 1\n");
  writeFile(dir.path() / "config.toml.bak", "b = 1\n");
  std::this_thread::sleep_for(kQuiet);
  EXPECT_EQ(c.calls.load(), 0);

  writeFile(config, "a = 2\n");  // still watching
  EXPECT_EQ(c.settle(1), 1);
}

TEST(FileWatcher, NewTomlInAWatchedDirectoryCallsOnce) {
  TempDir dir;
  Counted c;
  EXPECT_TRUE(c.watcher.setTargets({}, {dir.path()}).empty());
  ASSERT_TRUE(c.watcher.start().ok());

  writeFile(dir.path() / "extra.toml", "x = 1\n");
  EXPECT_EQ(c.settle(1), 1);
}

TEST(FileWatcher, OtherExtensionsInAWatchedDirectoryAreIgnored) {
  TempDir dir;
  Counted c;
  c.watcher.setTargets({}, {dir.path()});
  ASSERT_TRUE(c.watcher.start().ok());

  writeFile(dir.path() / "notes.txt", "hello\n");
  writeFile(dir.path() / "a.toml.tmp", "x = 1\n");
  std::this_thread::sleep_for(kQuiet);
  EXPECT_EQ(c.calls.load(), 0);

  writeFile(dir.path() / "libplugin.so", "not really\n");  // still watching
  EXPECT_EQ(c.settle(1), 1);
}

TEST(FileWatcher, ExtensionsAreAParameter) {
  TempDir dir;
  std::atomic<int> calls{0};
  FileWatcher watcher(kDebounce, [&] { calls.fetch_add(1); }, {".json"});
  watcher.setTargets({}, {dir.path()});
  ASSERT_TRUE(watcher.start().ok());

  writeFile(dir.path() / "a.toml", "x = 1\n");
  std::this_thread::sleep_for(kQuiet);
  EXPECT_EQ(calls.load(), 0);
  writeFile(dir.path() / "a.json", "{}\n");
  EXPECT_TRUE(waitFor([&] { return calls.load() == 1; }));
}

// The layout kubelet gives a ConfigMap volume: config.toml -> ..data/config.toml,
// ..data -> ..<timestamp>; an update writes a new timestamped directory and renames a new
// ..data symlink over the old one.
TEST(FileWatcher, ConfigMapDataSwapCallsOnce) {
  TempDir dir;
  fs::create_directory(dir.path() / "..2024_01_01_00_00_00.1");
  writeFile(dir.path() / "..2024_01_01_00_00_00.1" / "config.toml", "a = 1\n");
  fs::create_directory_symlink("..2024_01_01_00_00_00.1", dir.path() / "..data");
  fs::create_symlink("..data/config.toml", dir.path() / "config.toml");

  Counted c;
  c.watcher.setTargets({dir.path() / "config.toml"}, {});
  ASSERT_TRUE(c.watcher.start().ok());

  fs::create_directory(dir.path() / "..2024_01_01_00_01_00.2");
  writeFile(dir.path() / "..2024_01_01_00_01_00.2" / "config.toml", "a = 2\n");
  fs::create_directory_symlink("..2024_01_01_00_01_00.2", dir.path() / "..data_tmp");
  fs::rename(dir.path() / "..data_tmp", dir.path() / "..data");
  fs::remove_all(dir.path() / "..2024_01_01_00_00_00.1");
  EXPECT_EQ(c.settle(1), 1);

  std::ifstream in(dir.path() / "config.toml");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "a = 2");
}

// profileDirs mounted from a ConfigMap: the swap of `..data` in a watched directory is one
// change, though no entry ending in .toml changes its name.
TEST(FileWatcher, ConfigMapDataSwapInAWatchedDirectoryCallsOnce) {
  TempDir dir;
  fs::create_directory(dir.path() / "..2024_01_01_00_00_00.1");
  writeFile(dir.path() / "..2024_01_01_00_00_00.1" / "batch.toml", "a = 1\n");
  fs::create_directory_symlink("..2024_01_01_00_00_00.1", dir.path() / "..data");

  Counted c;
  c.watcher.setTargets({}, {dir.path()});
  ASSERT_TRUE(c.watcher.start().ok());

  fs::create_directory(dir.path() / "..2024_01_01_00_01_00.2");
  writeFile(dir.path() / "..2024_01_01_00_01_00.2" / "batch.toml", "a = 2\n");
  fs::create_directory_symlink("..2024_01_01_00_01_00.2", dir.path() / "..data_tmp");
  fs::rename(dir.path() / "..data_tmp", dir.path() / "..data");
  EXPECT_EQ(c.settle(1), 1);
}

TEST(FileWatcher, MissingDirectoryIsReportedOnceAndSkipped) {
  TempDir dir;
  fs::path missing = dir.path() / "plugins.d";
  fs::path present = dir.path() / "conf.d";
  fs::create_directory(present);
  Counted c;
  c.watcher.setRetryInterval(milliseconds(100));
  ASSERT_TRUE(c.watcher.start().ok());

  std::vector<std::string> warnings = c.watcher.setTargets({}, {missing, present});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(missing.string()), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("does not exist"), std::string::npos) << warnings[0];
  // The same targets again: already reported.
  EXPECT_TRUE(c.watcher.setTargets({}, {missing, present}).empty());

  writeFile(present / "a.toml", "x = 1\n");
  EXPECT_EQ(c.settle(1), 1);

  // The directory appears: it is watched from then on (its appearance is a change).
  fs::create_directory(missing);
  EXPECT_EQ(c.settle(2), 2);
  writeFile(missing / "b.toml", "x = 1\n");
  EXPECT_EQ(c.settle(3), 3);
  EXPECT_TRUE(c.threadWarnings().empty());
}

TEST(FileWatcher, MissingDirectoryBeforeStartIsReportedOnce) {
  TempDir dir;
  fs::path missing = dir.path() / "nowhere";
  Counted c;
  EXPECT_EQ(c.watcher.setTargets({missing / "config.toml"}, {}).size(), 1u);
  ASSERT_TRUE(c.watcher.start().ok());
  EXPECT_TRUE(c.threadWarnings().empty());
}

TEST(FileWatcher, RemovedDirectoryIsWatchedAgainWhenItReturns) {
  TempDir dir;
  fs::path plugins = dir.path() / "plugins";
  fs::create_directory(plugins);
  Counted c;
  c.watcher.setRetryInterval(milliseconds(100));
  c.watcher.setTargets({}, {plugins});
  ASSERT_TRUE(c.watcher.start().ok());

  fs::remove_all(plugins);
  EXPECT_EQ(c.settle(1), 1);
  ASSERT_TRUE(waitFor([&] { return !c.threadWarnings().empty(); }));
  EXPECT_NE(c.threadWarnings()[0].find(plugins.string()), std::string::npos);

  fs::create_directory(plugins);
  EXPECT_EQ(c.settle(2), 2);
  writeFile(plugins / "libx.so", "x\n");
  EXPECT_EQ(c.settle(3), 3);
  EXPECT_EQ(c.threadWarnings().size(), 1u);
}

TEST(FileWatcher, CallbackMayReplaceTheTargets) {
  TempDir a;
  TempDir b;
  std::atomic<int> calls{0};
  std::vector<std::string> fromCallback;
  std::unique_ptr<FileWatcher> watcher;
  watcher = std::make_unique<FileWatcher>(kDebounce, [&] {
    if (calls.load() == 0) {
      fromCallback = watcher->setTargets({}, {b.path(), a.path() / "gone"});
    }
    calls.fetch_add(1);
  });
  watcher->setTargets({}, {a.path()});
  ASSERT_TRUE(watcher->start().ok());

  writeFile(a.path() / "first.toml", "x = 1\n");
  ASSERT_TRUE(waitFor([&] { return calls.load() == 1; }));
  ASSERT_EQ(fromCallback.size(), 1u);  // read after the callback's increment

  writeFile(a.path() / "second.toml", "x = 1\n");  // no longer watched
  std::this_thread::sleep_for(kQuiet);
  EXPECT_EQ(calls.load(), 1);

  writeFile(b.path() / "third.toml", "x = 1\n");
  EXPECT_TRUE(waitFor([&] { return calls.load() == 2; }));
  watcher->stop();
}

TEST(FileWatcher, StopIsPromptWithAPendingDebounce) {
  TempDir dir;
  Counted c(milliseconds(60'000));
  c.watcher.setTargets({}, {dir.path()});
  ASSERT_TRUE(c.watcher.start().ok());
  writeFile(dir.path() / "a.toml", "x = 1\n");
  std::this_thread::sleep_for(milliseconds(200));  // lets the thread read the event

  auto before = std::chrono::steady_clock::now();
  c.watcher.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  EXPECT_FALSE(c.watcher.running());
  EXPECT_EQ(c.calls.load(), 0);
  c.watcher.stop();  // idempotent
}

TEST(FileWatcher, StartTwiceFailsAndRestartWorks) {
  TempDir dir;
  Counted c;
  c.watcher.setTargets({}, {dir.path()});
  ASSERT_TRUE(c.watcher.start().ok());
  sh::Status again = c.watcher.start();
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("already running"), std::string::npos);

  c.watcher.stop();
  ASSERT_TRUE(c.watcher.start().ok());
  writeFile(dir.path() / "a.toml", "x = 1\n");
  EXPECT_EQ(c.settle(1), 1);
}

}  // namespace

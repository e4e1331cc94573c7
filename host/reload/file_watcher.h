// FileWatcher: debounced inotify watching of configuration files and plugin directories.
//
// Targets are of two kinds:
//
//   files        each watched through its parent directory, filtered on the file's name:
//                editors and kubectl-mounted ConfigMaps replace a file by rename, which a
//                watch on the file itself would lose. A change of the `..data` entry in the
//                file's directory also counts: that is how a ConfigMap volume swaps its
//                content (a new timestamped directory, then `..data` renamed over).
//   directories  any entry whose name ends in one of the extensions (".toml", ".so" by
//                default), and `..data` (a ConfigMap-mounted directory).
//
// Relevant events: IN_CLOSE_WRITE, IN_MOVED_TO, IN_MOVED_FROM, IN_CREATE, IN_DELETE and
// IN_ATTRIB on a matching name, and IN_Q_OVERFLOW (events were lost, so anything may have
// changed). A watched directory that is deleted or moved away (IN_DELETE_SELF, IN_MOVE_SELF,
// IN_IGNORED) counts as a change too; it is reported once and added again as soon as the path
// names a directory again, which counts as a change as well.
//
// Debounce: `onChange` runs once, `debounce` after the last relevant event of a burst, so an
// editor's write-temp + rename + chmod is one call. It runs on the watcher's own thread and
// may call setTargets() (a reload may name other directories), but not stop().
//
// A directory that does not exist (or cannot be watched: permissions, the inotify watch
// limit) is reported once and skipped; it never stops the watcher. Errors are returned as a
// Status or a message, never thrown. Linux only.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host/common/status.h"

namespace sh::reload {

class FileWatcher {
 public:
  using ChangeCallback = std::function<void()>;
  using WarningCallback = std::function<void(const std::string& message)>;

  // How often a directory that is missing (or could not be watched) is tried again.
  static constexpr std::chrono::milliseconds kDefaultRetryInterval{500};

  // `extensions` are matched against the end of an entry's name in watched directories
  // (".toml" matches "a.toml", not "a.toml.swp"). `onWarning` receives what the watcher's
  // thread finds (a directory that vanished or cannot be watched again, a callback that threw);
  // warnings found by setTargets() are returned by it instead.
  FileWatcher(std::chrono::milliseconds debounce, ChangeCallback onChange,
              std::vector<std::string> extensions = {".toml", ".so"},
              WarningCallback onWarning = {});
  ~FileWatcher();

  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  // Replaces every target. Relative paths are taken against the current directory. Returns
  // one message per directory that does not exist or cannot be watched and has not been
  // reported before; such a directory is skipped now and tried again later. Thread-safe,
  // callable before start(), while running and from onChange.
  std::vector<std::string> setTargets(const std::vector<std::filesystem::path>& files,
                                      const std::vector<std::filesystem::path>& directories);

  // Creates the inotify instance, watches the targets set so far and starts the thread.
  // Fails (without throwing) when already running or when inotify or eventfd cannot be
  // created. Warnings for targets that cannot be watched go to onWarning.
  Status start();

  // Wakes the thread and joins it; a pending debounced change is dropped. Idempotent. Not to
  // be called from onChange.
  void stop();

  bool running() const { return thread_.joinable(); }

  void setRetryInterval(std::chrono::milliseconds interval) { retryInterval_ = interval; }

 private:
  // One watched directory: a target directory itself, the parent of target files, or both.
  struct Dir {
    int wd = -1;                  // -1: not watched (missing, vanished or not started)
    bool whole = false;           // a target directory: match by extension
    std::set<std::string> names;  // target files in it: match by name (and "..data")
    bool reported = false;        // its failure to be watched has been reported
  };

  void run();
  // Tries to watch `path`; on failure returns a message once (while `dir.reported` is false).
  bool tryWatch(const std::string& path, Dir& dir, std::vector<std::string>& warnings);
  // Drains the inotify descriptor; true when a relevant event was read.
  bool readEvents(std::vector<std::string>& warnings);
  // Watches the directories that are not watched; true when one came (back).
  bool retryMissing(std::vector<std::string>& warnings);
  bool matches(const Dir& dir, const std::string& name) const;
  void closeDescriptors();
  // Wakes the thread's poll. Called with mu_ held.
  void wake();

  const std::chrono::milliseconds debounce_;
  const ChangeCallback onChange_;
  const std::vector<std::string> extensions_;
  const WarningCallback onWarning_;
  std::atomic<std::chrono::milliseconds> retryInterval_{kDefaultRetryInterval};

  std::mutex mu_;                    // guards dirs_ and inotifyFd_
  std::map<std::string, Dir> dirs_;  // by absolute, normalised path
  int inotifyFd_ = -1;
  int wakeFd_ = -1;  // eventfd: stop() and setTargets() wake the thread
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace sh::reload

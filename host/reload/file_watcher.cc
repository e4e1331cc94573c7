#include "host/reload/file_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <system_error>
#include <utility>

namespace sh::reload {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kEntryEvents =
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB;
constexpr uint32_t kSelfEvents = IN_DELETE_SELF | IN_MOVE_SELF;
constexpr uint32_t kWatchMask = kEntryEvents | kSelfEvents | IN_ONLYDIR;
// The name a ConfigMap volume renames over to swap its content.
constexpr const char* kConfigMapData = "..data";

// Absolute and lexically normal, without a trailing separator.
std::filesystem::path normalised(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (ec) {
    abs = path;
  }
  abs = abs.lexically_normal();
  if (!abs.has_filename() && abs.has_parent_path() && abs != abs.root_path()) {
    abs = abs.parent_path();
  }
  return abs;
}

std::string watchError(const std::string& path, int err) {
  switch (err) {
    case ENOENT:
      return "directory " + path + " does not exist; skipped until it appears";
    case ENOTDIR:
      return path + " is not a directory; skipped until it is one";
    case EACCES:
      return "directory " + path + " cannot be read (permission denied); skipped";
    case ENOSPC:
      return "cannot watch " + path +
             ": the inotify watch limit is reached (fs.inotify.max_user_watches); skipped";
    default:
      return "cannot watch " + path + ": " + std::strerror(err) + "; skipped";
  }
}

}  // namespace

FileWatcher::FileWatcher(std::chrono::milliseconds debounce, ChangeCallback onChange,
                         std::vector<std::string> extensions, WarningCallback onWarning)
    : debounce_(debounce),
      onChange_(std::move(onChange)),
      extensions_(std::move(extensions)),
      onWarning_(std::move(onWarning)) {}

FileWatcher::~FileWatcher() { stop(); }

std::vector<std::string> FileWatcher::setTargets(
    const std::vector<std::filesystem::path>& files,
    const std::vector<std::filesystem::path>& directories) {
  std::map<std::string, Dir> next;
  std::vector<std::string> warnings;
  for (const std::filesystem::path& file : files) {
    std::filesystem::path abs = normalised(file);
    if (!abs.has_filename() || !abs.has_parent_path() || abs == abs.root_path()) {
      warnings.push_back(file.string() + " does not name a file; skipped");
      continue;
    }
    next[abs.parent_path().string()].names.insert(abs.filename().string());
  }
  for (const std::filesystem::path& directory : directories) {
    next[normalised(directory).string()].whole = true;
  }

  std::lock_guard<std::mutex> lock(mu_);
  // Keep the watches (and what was reported) of directories that stay.
  std::set<int> kept;
  for (auto& [path, dir] : next) {
    auto it = dirs_.find(path);
    if (it != dirs_.end()) {
      dir.wd = it->second.wd;
      dir.reported = it->second.reported;
      if (dir.wd >= 0) {
        kept.insert(dir.wd);
      }
    }
  }
  for (const auto& [path, dir] : dirs_) {
    if (dir.wd >= 0 && !kept.contains(dir.wd) && inotifyFd_ >= 0) {
      inotify_rm_watch(inotifyFd_, dir.wd);
      kept.insert(dir.wd);  // two paths may share one watch: remove it once
    }
  }
  dirs_ = std::move(next);
  bool missing = false;
  for (auto& [path, dir] : dirs_) {
    if (dir.wd < 0 && !tryWatch(path, dir, warnings)) {
      missing = true;
    }
  }
  if (missing && wakeFd_ >= 0) {
    wake();  // so the thread starts retrying the missing directories
  }
  return warnings;
}

void FileWatcher::wake() {
  uint64_t one = 1;
  ssize_t written = write(wakeFd_, &one, sizeof(one));
  (void)written;  // a full counter still wakes the poll
}

bool FileWatcher::tryWatch(const std::string& path, Dir& dir, std::vector<std::string>& warnings) {
  int err = 0;
  if (inotifyFd_ >= 0) {
    int wd = inotify_add_watch(inotifyFd_, path.c_str(), kWatchMask);
    if (wd >= 0) {
      dir.wd = wd;
      dir.reported = false;
      return true;
    }
    err = errno;
  } else {
    // Not started: only check that the directory is there, so it is reported now.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      return false;
    }
    err = std::filesystem::exists(path, ec) ? ENOTDIR : ENOENT;
  }
  if (!dir.reported) {
    dir.reported = true;
    warnings.push_back(watchError(path, err));
  }
  return false;
}

Status FileWatcher::start() {
  if (thread_.joinable()) {
    return Status::error("file watcher: already running");
  }
  int inotifyFd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotifyFd < 0) {
    return Status::error(std::string("file watcher: inotify_init1: ") + std::strerror(errno));
  }
  int wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakeFd < 0) {
    int err = errno;
    close(inotifyFd);
    return Status::error(std::string("file watcher: eventfd: ") + std::strerror(err));
  }
  std::vector<std::string> warnings;
  {
    std::lock_guard<std::mutex> lock(mu_);
    inotifyFd_ = inotifyFd;
    wakeFd_ = wakeFd;
    for (auto& [path, dir] : dirs_) {
      dir.wd = -1;
      tryWatch(path, dir, warnings);
    }
  }
  if (onWarning_) {
    for (const std::string& w : warnings) {
      onWarning_(w);
    }
  }
  stopping_ = false;
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error& e) {
    closeDescriptors();
    return Status::error(std::string("file watcher: cannot start its thread: ") + e.what());
  }
  return Status::success();
}

void FileWatcher::stop() {
  if (!thread_.joinable()) {
    return;
  }
  stopping_ = true;
  if (thread_.get_id() == std::this_thread::get_id()) {
    return;  // from onChange: the thread ends after it; the owner's stop() joins
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake();
  }
  thread_.join();
  closeDescriptors();
}

void FileWatcher::closeDescriptors() {
  std::lock_guard<std::mutex> lock(mu_);
  if (inotifyFd_ >= 0) {
    close(inotifyFd_);
    inotifyFd_ = -1;
  }
  if (wakeFd_ >= 0) {
    close(wakeFd_);
    wakeFd_ = -1;
  }
  for (auto& [path, dir] : dirs_) {
    dir.wd = -1;
  }
}

bool FileWatcher::matches(const Dir& dir, const std::string& name) const {
  if (dir.names.contains(name)) {
    return true;
  }
  // A ConfigMap volume swaps its content by renaming `..data`, in a watched file's directory
  // as in a whole watched directory (profileDirs mounted from a ConfigMap).
  if ((!dir.names.empty() || dir.whole) && name == kConfigMapData) {
    return true;
  }
  if (dir.whole) {
    for (const std::string& ext : extensions_) {
      if (name.size() >= ext.size() &&
          name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
        return true;
      }
    }
  }
  return false;
}

bool FileWatcher::readEvents(std::vector<std::string>& warnings) {
  alignas(struct inotify_event) char buffer[16 * 1024];
  bool relevant = false;
  for (;;) {
    ssize_t n = read(inotifyFd_, buffer, sizeof(buffer));
    if (n <= 0) {
      if (n < 0 && errno == EINTR) {
        continue;
      }
      return relevant;  // EAGAIN: drained
    }
    std::lock_guard<std::mutex> lock(mu_);
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const struct inotify_event*>(buffer + off);
      off += static_cast<ssize_t>(sizeof(struct inotify_event) + ev->len);
      if ((ev->mask & IN_Q_OVERFLOW) != 0) {
        relevant = true;
        continue;
      }
      std::string name = ev->len > 0 ? std::string(ev->name) : std::string();
      for (auto& [path, dir] : dirs_) {
        if (dir.wd != ev->wd) {
          continue;
        }
        if ((ev->mask & (kSelfEvents | IN_IGNORED)) != 0) {
          if ((ev->mask & IN_MOVE_SELF) != 0) {
            // The watch follows the directory to its new name; drop it and wait for the
            // path to name a directory again.
            inotify_rm_watch(inotifyFd_, dir.wd);
          }
          dir.wd = -1;
          relevant = true;
          if (!dir.reported) {
            dir.reported = true;
            warnings.push_back("directory " + path +
                               " was removed or moved away; watching for it to return");
          }
        } else if (!name.empty() && (ev->mask & kEntryEvents) != 0 && matches(dir, name)) {
          relevant = true;
        }
      }
    }
  }
}

bool FileWatcher::retryMissing(std::vector<std::string>& warnings) {
  std::lock_guard<std::mutex> lock(mu_);
  bool added = false;
  for (auto& [path, dir] : dirs_) {
    if (dir.wd < 0 && tryWatch(path, dir, warnings)) {
      added = true;
    }
  }
  return added;
}

void FileWatcher::run() {
  std::optional<Clock::time_point> deadline;  // when the debounced change is due
  Clock::time_point nextRetry = Clock::now() + retryInterval_.load();
  while (!stopping_) {
    bool missing = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [path, dir] : dirs_) {
        missing = missing || dir.wd < 0;
      }
    }
    Clock::time_point now = Clock::now();
    int timeoutMs = -1;
    auto until = [&](Clock::time_point t) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(t - now).count();
      int bounded = static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(ms, 60'000)));
      timeoutMs = timeoutMs < 0 ? bounded : std::min(timeoutMs, bounded);
    };
    if (deadline) {
      until(*deadline);
    }
    if (missing) {
      until(nextRetry);
    }

    struct pollfd fds[2] = {{wakeFd_, POLLIN, 0}, {inotifyFd_, POLLIN, 0}};
    int ready = poll(fds, 2, timeoutMs);
    if (stopping_) {
      break;
    }
    if (ready > 0 && (fds[0].revents & POLLIN) != 0) {
      uint64_t count = 0;
      ssize_t got = read(wakeFd_, &count, sizeof(count));
      (void)got;  // woken by setTargets: look at the targets again
    }
    std::vector<std::string> warnings;
    bool relevant = false;
    if (ready > 0 && (fds[1].revents & POLLIN) != 0) {
      relevant = readEvents(warnings);
    }
    now = Clock::now();
    if (missing && now >= nextRetry) {
      relevant = retryMissing(warnings) || relevant;
      nextRetry = now + retryInterval_.load();
    }
    if (relevant) {
      deadline = now + debounce_;
    }
    if (onWarning_) {
      for (const std::string& w : warnings) {
        onWarning_(w);
      }
    }
    if (deadline && Clock::now() >= *deadline && !stopping_) {
      deadline.reset();
      try {
        onChange_();
      } catch (const std::exception& e) {
        if (onWarning_) {
          onWarning_(std::string("file watcher: the change callback threw: ") + e.what());
        }
      } catch (...) {
        if (onWarning_) {
          onWarning_("file watcher: the change callback threw");
        }
      }
    }
  }
}

}  // namespace sh::reload

#include "host/plugin/plugin_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <tuple>
#include <utility>

#include "host/common/regular_file.h"
#include "host/plugin/sha256.h"

namespace sh::plugin {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw PluginFileError("[" + path + "]: " + what);
}

// Digests already computed, by the identity of the file's contents: device, inode, size,
// modification and status-change times. Any write to the file moves its ctime (which no
// user can set back), and a file replaced by rename is another inode, so an unchanged key
// means unchanged bytes: a reload re-reads its plugin files but does not hash them again.
// The kernel stamps ctime from a coarse clock, so two writes a few milliseconds apart can
// leave the same ctime: a file changed in the last kRecentNanos is always hashed and never
// remembered (git's "racily clean" rule).
struct ContentKey {
  dev_t dev;
  ino_t ino;
  off_t size;
  std::int64_t mtimeNanos;
  std::int64_t ctimeNanos;
  bool operator<(const ContentKey& o) const {
    return std::tie(dev, ino, size, mtimeNanos, ctimeNanos) <
           std::tie(o.dev, o.ino, o.size, o.mtimeNanos, o.ctimeNanos);
  }
};

ContentKey contentKey(const struct stat& st) {
  auto nanos = [](const timespec& t) {
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  };
  return {st.st_dev, st.st_ino, st.st_size, nanos(st.st_mtim), nanos(st.st_ctim)};
}

constexpr std::size_t kDigestsKept = 4096;
constexpr std::int64_t kRecentNanos = 2'000'000'000;
std::mutex digestsMu;
std::map<ContentKey, std::string>& digests() {
  static auto* map = new std::map<ContentKey, std::string>();  // never destroyed
  return *map;
}

}  // namespace

std::string canonicalPluginPath(const std::string& path) {
  if (path.empty()) {
    throw PluginFileError("[]: empty path");
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) {
    fail(path, "cannot make the path absolute: " + ec.message());
  }
  std::filesystem::path canonical = std::filesystem::canonical(absolute, ec);
  if (ec) {
    std::string shown = absolute.lexically_normal().string();
    if (ec == std::errc::no_such_file_or_directory) {
      fail(shown, "no such file");
    }
    fail(shown, "cannot resolve the path: " + ec.message());
  }
  return canonical.string();
}

PluginFile PluginFile::open(const std::string& path) {
  PluginFile file;
  file.path_ = canonicalPluginPath(path);
  // O_NOFOLLOW: the canonical path has no symlink left; one appearing now is an attack.
  // O_NONBLOCK: opening a FIFO or a device must not wait for a writer or the hardware; the
  // fstat below refuses anything but a regular file, which reads ignore the flag on.
  file.fd_ = ::open(file.path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (file.fd_ < 0) {
    int err = errno;
    fail(file.path_, err == ENOENT ? std::string("no such file")
                                   : "cannot open: " + std::string(std::strerror(err)));
  }
  if (::fstat(file.fd_, &file.status_) != 0) {
    fail(file.path_, "cannot stat: " + std::string(std::strerror(errno)));
  }
  if (!S_ISREG(file.status_.st_mode)) {
    fail(file.path_, "not a regular file (" + fileKindName(file.status_.st_mode) + ")");
  }
  auto size = static_cast<std::uint64_t>(file.status_.st_size);
  if (size > kMaxSize) {
    fail(file.path_, "too large for a plugin (" + std::to_string(size) + " bytes)");
  }
  file.bytes_.resize(size);
  std::uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(file.fd_, file.bytes_.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      fail(file.path_, "read error: " + std::string(std::strerror(errno)));
    }
    if (n == 0) {
      fail(file.path_, "file shrank while being read");
    }
    done += static_cast<std::uint64_t>(n);
  }
  // The key read before the bytes must still hold after them, or the file changed while it
  // was read: then it is hashed and not remembered.
  const ContentKey key = contentKey(file.status_);
  struct stat after {};
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const bool stable = ::fstat(file.fd_, &after) == 0 && !(key < contentKey(after)) &&
                      !(contentKey(after) < key) && key.ctimeNanos < now - kRecentNanos &&
                      key.mtimeNanos < now - kRecentNanos;
  if (stable) {
    std::lock_guard<std::mutex> lock(digestsMu);
    if (auto it = digests().find(key); it != digests().end()) {
      file.sha256_ = it->second;
      return file;
    }
  }
  file.sha256_ = sha256Hex(file.bytes_.data(), file.bytes_.size());
  if (stable) {
    std::lock_guard<std::mutex> lock(digestsMu);
    if (digests().size() >= kDigestsKept) {
      digests().clear();
    }
    digests().emplace(key, file.sha256_);
  }
  return file;
}

PluginFile::PluginFile(PluginFile&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      status_(other.status_),
      bytes_(std::move(other.bytes_)),
      sha256_(std::move(other.sha256_)) {}

PluginFile& PluginFile::operator=(PluginFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) {
      ::close(fd_);
    }
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    status_ = other.status_;
    bytes_ = std::move(other.bytes_);
    sha256_ = std::move(other.sha256_);
  }
  return *this;
}

PluginFile::~PluginFile() {
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

}  // namespace sh::plugin

#include "host/plugin/plugin_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "host/plugin/sha256.h"

namespace sh::plugin {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw PluginFileError("[" + path + "]: " + what);
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
  file.fd_ = ::open(file.path_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (file.fd_ < 0) {
    int err = errno;
    fail(file.path_, err == ENOENT ? std::string("no such file")
                                   : "cannot open: " + std::string(std::strerror(err)));
  }
  if (::fstat(file.fd_, &file.status_) != 0) {
    fail(file.path_, "cannot stat: " + std::string(std::strerror(errno)));
  }
  if (!S_ISREG(file.status_.st_mode)) {
    fail(file.path_, "not a regular file");
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
  Sha256 hash;
  hash.update(file.bytes_.data(), file.bytes_.size());
  file.sha256_ = hash.hexDigest();
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

std::string PluginFile::procPath() const { return "/proc/self/fd/" + std::to_string(fd_); }

int PluginFile::releaseFd() { return std::exchange(fd_, -1); }

}  // namespace sh::plugin

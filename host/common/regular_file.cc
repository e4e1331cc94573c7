#include "host/common/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

namespace sh {

std::string fileKindName(mode_t mode) {
  if (S_ISDIR(mode)) {
    return "a directory";
  }
  if (S_ISFIFO(mode)) {
    return "a FIFO";
  }
  if (S_ISSOCK(mode)) {
    return "a socket";
  }
  if (S_ISCHR(mode)) {
    return "a character device";
  }
  if (S_ISBLK(mode)) {
    return "a block device";
  }
  if (S_ISLNK(mode)) {
    return "a symbolic link";
  }
  if (S_ISREG(mode)) {
    return "a regular file";
  }
  return "file type " + std::to_string(mode & S_IFMT);
}

std::string byteSizeText(std::size_t bytes) {
  constexpr std::size_t kKiB = 1024;
  if (bytes >= kKiB * kKiB * kKiB && bytes % (kKiB * kKiB * kKiB) == 0) {
    return std::to_string(bytes / (kKiB * kKiB * kKiB)) + " GiB";
  }
  if (bytes >= kKiB * kKiB && bytes % (kKiB * kKiB) == 0) {
    return std::to_string(bytes / (kKiB * kKiB)) + " MiB";
  }
  if (bytes >= kKiB && bytes % kKiB == 0) {
    return std::to_string(bytes / kKiB) + " KiB";
  }
  return std::to_string(bytes) + " bytes";
}

std::optional<std::string> readRegularFd(int fd, const std::string& path, std::size_t maxBytes,
                                         std::string& error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = path + ": cannot stat: " + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = path + ": not a regular file (" + fileKindName(st.st_mode) + ")";
    return std::nullopt;
  }
  if (st.st_size < 0 || static_cast<unsigned long long>(st.st_size) > maxBytes) {
    error = path + ": larger than the limit of " + byteSizeText(maxBytes) + " (" +
            std::to_string(static_cast<long long>(st.st_size)) + " bytes)";
    return std::nullopt;
  }
  try {
    std::string text;
    text.reserve(static_cast<std::size_t>(st.st_size));
    char chunk[64 * 1024];
    for (;;) {
      const std::size_t want = std::min(sizeof chunk, maxBytes + 1 - text.size());
      const ssize_t n = ::read(fd, chunk, want);
      if (n == 0) {
        return text;
      }
      if (n < 0) {
        if (errno == EINTR) {
          continue;
        }
        error = path + ": read error: " + std::strerror(errno);
        return std::nullopt;
      }
      text.append(chunk, static_cast<std::size_t>(n));
      if (text.size() > maxBytes) {
        error = path + ": larger than the limit of " + byteSizeText(maxBytes) +
                " (it grew while it was read)";
        return std::nullopt;
      }
    }
  } catch (const std::bad_alloc&) {
    error = path + ": out of memory reading it";
    return std::nullopt;
  }
}

std::optional<std::string> readRegularFile(const std::string& path, std::size_t maxBytes,
                                           std::string& error) {
  if (path.empty()) {
    error = "empty file name";
    return std::nullopt;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    error = path + ": " + std::strerror(err);
    return std::nullopt;
  }
  std::optional<std::string> text = readRegularFd(fd, path, maxBytes, error);
  ::close(fd);
  return text;
}

}  // namespace sh

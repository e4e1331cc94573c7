#include "host/connectors/embedded/line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "host/common/limits.h"

namespace sh::connectors {

namespace {

// How long one poll() on a pipe or terminal waits before checking whether to stop.
constexpr int kPollMillis = 50;
constexpr std::size_t kChunk = 64 * 1024;

}  // namespace

std::unique_ptr<LineReader> LineReader::open(const std::string& path, std::string& error) {
  return open(path, limits::kMaxLineBytes, error);
}

std::unique_ptr<LineReader> LineReader::open(const std::string& path, std::size_t maxLine,
                                             std::string& error) {
  // Opened non-blocking, so a FIFO without a writer does not hold up open(); reads block
  // again (a pipe is polled, see fill()), and the stream waits for its writer as stdin does.
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    error = "cannot read [" + path + "]: " + std::strerror(errno);
    return nullptr;
  }
  if (path != "-") {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) {
      ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    }
  }
  struct stat st {};
  const bool known = ::fstat(fd, &st) == 0;
  if (path != "-" && known && S_ISDIR(st.st_mode)) {
    ::close(fd);
    error = "cannot read [" + path + "]: is a directory";
    return nullptr;
  }
  bool regular = known && S_ISREG(st.st_mode);
  return std::unique_ptr<LineReader>(
      new LineReader(fd, path != "-", regular, path == "-" ? "<stdin>" : path, maxLine));
}

LineReader::LineReader(int fd, bool ownsFd, bool regular, std::string name, std::size_t maxLine)
    : fd_(fd), ownsFd_(ownsFd), regular_(regular), name_(std::move(name)), maxLine_(maxLine) {}

LineReader::~LineReader() {
  if (ownsFd_) {
    ::close(fd_);
  }
}

long LineReader::fill(const Idle& idle) {
  if (!regular_) {
    // Pipes and terminals: wait for data in short polls so a stop is noticed.
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      int n = ::poll(&p, 1, kPollMillis);
      if (n > 0) {
        break;
      }
      if (n < 0 && errno != EINTR) {
        error_ = std::string("read error: ") + std::strerror(errno);
        return -1;
      }
      if (!idle(std::chrono::milliseconds(0))) {
        return -1;
      }
    }
  }
  char chunk[kChunk];
  for (;;) {
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n >= 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
      peak_ = std::max(peak_, pendingBytes());
      return static_cast<long>(n);
    }
    if (errno != EINTR) {
      error_ = std::string("read error: ") + std::strerror(errno);
      return -1;
    }
  }
}

std::string LineReader::takeLine(std::size_t end) {
  std::string line;
  tooLong_ = 0;
  const std::size_t length = dropped_ + (end - begin_);
  if (length > maxLine_) {
    tooLong_ = length;
  } else {
    line = buffer_.substr(begin_, end - begin_);
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
  }
  dropped_ = 0;
  begin_ = end == buffer_.size() ? end : end + 1;
  scan_ = begin_;
  // Drop the consumed prefix once it is the larger part, so each byte moves O(1) times.
  if (begin_ * 2 >= buffer_.size()) {
    buffer_.erase(0, begin_);
    scan_ -= begin_;
    begin_ = 0;
  }
  ++lineNumber_;
  return line;
}

std::optional<std::string> LineReader::next(bool follow, std::chrono::milliseconds pollInterval,
                                            const Idle& idle) {
  for (;;) {
    const std::size_t nl = buffer_.find('\n', scan_);
    scanned_ += (nl == std::string::npos ? buffer_.size() : nl + 1) - scan_;
    if (nl != std::string::npos) {
      return takeLine(nl);
    }
    scan_ = buffer_.size();
    if (pendingBytes() > maxLine_) {
      // Over the limit already: keep only the count until the line ends.
      dropped_ += pendingBytes();
      buffer_.clear();
      begin_ = 0;
      scan_ = 0;
    }
    if (eof_) {
      if (pendingBytes() == 0 && dropped_ == 0) {
        return std::nullopt;
      }
      return takeLine(buffer_.size());
    }
    if (!idle(std::chrono::milliseconds(0))) {
      return std::nullopt;
    }
    long n = fill(idle);
    if (n < 0) {
      return std::nullopt;
    }
    if (n == 0) {
      if (!follow || !regular_) {
        eof_ = true;
      } else if (!idle(pollInterval)) {
        return std::nullopt;
      }
    }
  }
}

}  // namespace sh::connectors

#include "host/connectors/kube/watch_lines.h"

#include <cstring>

namespace sh::kube {

bool WatchLines::append(std::string_view piece, const LineSink& sink) {
  buffer_.append(piece.data(), piece.size());
  while (scan_ < buffer_.size()) {
    const void* found = std::memchr(buffer_.data() + scan_, '\n', buffer_.size() - scan_);
    if (found == nullptr) {
      scanned_ += buffer_.size() - scan_;
      scan_ = buffer_.size();
      break;
    }
    const std::size_t end =
        static_cast<std::size_t>(static_cast<const char*>(found) - buffer_.data());
    scanned_ += end + 1 - scan_;
    std::string_view line(buffer_.data() + begin_, end - begin_);
    begin_ = end + 1;
    scan_ = begin_;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.size() > maxLine_) {
      error_ = "watch event longer than " + std::to_string(maxLine_) + " bytes";
      return false;
    }
    if (!line.empty() && !sink(line)) {
      return false;
    }
  }
  if (buffer_.size() - begin_ > maxLine_) {
    error_ = "watch event longer than " + std::to_string(maxLine_) + " bytes";
    return false;
  }
  // Drop the consumed prefix once it is the larger part, so each byte moves O(1) times.
  if (begin_ > 0 && begin_ * 2 >= buffer_.size()) {
    buffer_.erase(0, begin_);
    scan_ -= begin_;
    begin_ = 0;
  }
  return true;
}

}  // namespace sh::kube

#include "host/connectors/kube/proto/watch_frames.h"

#include <cstdint>

namespace sh::kube::proto {

bool WatchFrames::append(std::string_view piece, const FrameSink& sink) {
  if (!error_.empty()) {
    return false;
  }
  buffer_.append(piece);
  while (buffer_.size() - begin_ >= 4) {
    uint32_t length = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      length = (length << 8) | static_cast<uint8_t>(buffer_[begin_ + i]);
    }
    if (length > maxFrame_) {
      error_ = "watch event longer than " + std::to_string(maxFrame_) + " bytes (a frame of " +
               std::to_string(length) + ")";
      return false;
    }
    if (buffer_.size() - begin_ - 4 < length) {
      break;
    }
    const std::string_view frame(buffer_.data() + begin_ + 4, length);
    begin_ += 4 + length;
    if (!sink(frame)) {
      return false;
    }
  }
  // The consumed prefix goes once it is more than half of the buffer: each byte moves O(1)
  // times on average.
  if (begin_ > 0 && begin_ * 2 >= buffer_.size()) {
    buffer_.erase(0, begin_);
    begin_ = 0;
  }
  return true;
}

}  // namespace sh::kube::proto

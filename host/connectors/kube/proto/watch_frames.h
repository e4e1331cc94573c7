// WatchFrames: a protobuf watch body (Content-Type "application/vnd.kubernetes.protobuf;
// stream=watch"), which arrives in pieces cut anywhere, turned back into the frames the API
// server wrote: each a 4-byte big-endian length and that many bytes (k8s.io/apimachinery
// util/framer's length-delimited framing). The protobuf counterpart of WatchLines: a frame
// longer than the limit is an error, so a hostile length never grows the buffer.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "host/common/limits.h"

namespace sh::kube::proto {

class WatchFrames {
 public:
  // Receives each complete frame without its length; returns false to stop.
  using FrameSink = std::function<bool(std::string_view frame)>;

  explicit WatchFrames(std::size_t maxFrame = limits::kMaxLineBytes) : maxFrame_(maxFrame) {}

  // Appends `piece` and hands every frame it completes to `sink`, in order. False when `sink`
  // said stop or a frame's length exceeded the limit (see error()).
  bool append(std::string_view piece, const FrameSink& sink);
  std::size_t pendingBytes() const { return buffer_.size() - begin_; }
  // "watch event longer than 16842752 bytes (a frame of 4294967295)"; empty otherwise.
  const std::string& error() const { return error_; }

 private:
  std::size_t maxFrame_;
  std::string buffer_;
  std::size_t begin_ = 0;  // start of the next frame's length in buffer_
  std::string error_;
};

}  // namespace sh::kube::proto

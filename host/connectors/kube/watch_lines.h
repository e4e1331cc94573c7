// WatchLines: a watch body, which arrives in pieces cut anywhere (HTTP chunks have nothing to
// do with events), turned back into the newline-separated JSON events the API server wrote.
//
// Each byte is scanned once: a piece is appended, the scan resumes where the last one stopped,
// and the consumed prefix is dropped only when it is more than half of the buffer, so a long
// line split over many pieces costs linear time. A line longer than the limit is an error (the
// stream is then abandoned and the reflector re-watches): the API server caps an object at a
// few MiB, and a line without end must not grow the buffer without bound
// (limits::kMaxLineBytes).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "host/common/limits.h"

namespace sh::kube {

class WatchLines {
 public:
  // Receives each complete line without its "\n" (and "\r"); returns false to stop.
  using LineSink = std::function<bool(std::string_view line)>;

  static constexpr std::size_t kDefaultMaxLine = limits::kMaxLineBytes;

  explicit WatchLines(std::size_t maxLine = kDefaultMaxLine) : maxLine_(maxLine) {}

  // Appends `piece` and hands every line it completes to `sink`, in order. Empty lines are
  // skipped. False when `sink` said stop or a line exceeded the limit (see error()).
  bool append(std::string_view piece, const LineSink& sink);
  // Bytes held that are not a complete line yet.
  std::size_t pendingBytes() const { return buffer_.size() - begin_; }
  // Bytes examined in the search for line ends, for the test that each is examined once.
  std::size_t scannedBytes() const { return scanned_; }
  // "watch event longer than 16842752 bytes" after a failed append(); empty otherwise.
  const std::string& error() const { return error_; }

 private:
  std::size_t maxLine_;
  std::string buffer_;
  std::size_t begin_ = 0;  // start of the current (incomplete) line in buffer_
  std::size_t scan_ = 0;   // where to look for the next "\n"
  std::size_t scanned_ = 0;
  std::string error_;
};

}  // namespace sh::kube

// Lines from a file or standard input, read on the caller's thread (the embedded cluster's
// reader thread).
//
// Without follow the end of the input is the end. With follow a regular file is read like
// `tail -f`: at EOF the reader waits for the file to grow, checking every poll interval, until
// the idle callback says stop. A line is returned only once its "\n" has arrived, so a writer
// caught mid-line is never read half; at the real end (no follow) a last line without "\n" is
// returned as it is. Standard input and pipes end at EOF even with follow.
//
// Each byte is scanned once: the search for "\n" resumes where it stopped, and the consumed
// prefix of the buffer is dropped only once it is the larger part. A line longer than the limit
// (limits::kMaxLineBytes) is not kept: its bytes are dropped as they arrive, next() returns it
// as an empty line and tooLong() says how long it was, so the buffer never holds more than the
// limit and one read.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace sh::connectors {

class LineReader {
 public:
  // Waits up to the given time (zero: only checks); returns false when reading should stop.
  using Idle = std::function<bool(std::chrono::milliseconds)>;

  // Opens `path` ("-": standard input, which is not closed afterwards). nullptr with `error`
  // set when it cannot be opened.
  static std::unique_ptr<LineReader> open(const std::string& path, std::string& error);
  // The same with another line limit (tests).
  static std::unique_ptr<LineReader> open(const std::string& path, std::size_t maxLine,
                                          std::string& error);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without "\n" or "\r\n"; nullopt at the end: EOF (without follow), a read
  // error (see error()) or `idle` returning false.
  std::optional<std::string> next(bool follow, std::chrono::milliseconds pollInterval,
                                  const Idle& idle);
  // The 1-based number of the line next() returned last.
  std::size_t lineNumber() const { return lineNumber_; }
  // The length of the line next() returned last when it was over the limit (and returned
  // empty); 0 otherwise.
  std::size_t tooLong() const { return tooLong_; }
  std::size_t maxLine() const { return maxLine_; }
  // Bytes held for the line being read, and the most ever held.
  std::size_t pendingBytes() const { return buffer_.size() - begin_; }
  std::size_t peakPendingBytes() const { return peak_; }
  // Bytes examined in the search for line ends, for the test that each is examined once.
  std::size_t scannedBytes() const { return scanned_; }
  // "<stdin>" or the path, for messages.
  const std::string& name() const { return name_; }
  // Why reading ended early ("read error: ..."); empty otherwise.
  const std::string& error() const { return error_; }

 private:
  LineReader(int fd, bool ownsFd, bool regular, std::string name, std::size_t maxLine);

  // Reads what is available into buffer_: > 0 bytes read, 0 at EOF, -1 on error or stop.
  long fill(const Idle& idle);
  // The line from begin_ to `end` (an offset in buffer_), consumed with its "\n".
  std::string takeLine(std::size_t end);

  int fd_;
  bool ownsFd_;
  bool regular_;
  std::string name_;
  std::size_t maxLine_;
  std::string buffer_;
  std::size_t begin_ = 0;    // start of the line being read in buffer_
  std::size_t scan_ = 0;     // where the search for "\n" resumes
  std::size_t dropped_ = 0;  // bytes of the current line already dropped (over the limit)
  std::size_t scanned_ = 0;
  std::size_t peak_ = 0;
  std::size_t tooLong_ = 0;
  std::size_t lineNumber_ = 0;
  bool eof_ = false;
  std::string error_;
};

}  // namespace sh::connectors

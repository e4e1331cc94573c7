// LineReader: lines of a file, a line over the limit skipped in bounded memory, each byte
// examined once.
#include "host/connectors/embedded/line_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/connectors/test_support.h"

namespace sh::connectors::line_reader_test {
namespace {

using testing::TempDir;

bool keepReading(std::chrono::milliseconds) { return true; }

TEST(LineReaderTest, ALineOverTheLimitIsSkippedAndTheRestIsRead) {
  TempDir dir;
  const std::size_t limit = 64 * 1024;
  const std::string text =
      "a\n" + std::string(300'000, 'x') + "\nb\r\n" + std::string(limit, 'y') + "\n" +
      std::string(limit + 1, 'z');  // the last line has no newline, and is over too
  const std::string path = dir.write("changes.jsonl", text);
  std::string error;
  std::unique_ptr<LineReader> reader = LineReader::open(path, limit, error);
  ASSERT_NE(reader, nullptr) << error;
  const auto next = [&] { return reader->next(false, std::chrono::milliseconds(1), keepReading); };
  std::size_t peak = 0;
  const auto expectLine = [&](const std::string& line, std::size_t tooLong, std::size_t number) {
    std::optional<std::string> got = next();
    peak = std::max(peak, reader->peakPendingBytes());
    ASSERT_TRUE(got.has_value()) << number;
    EXPECT_EQ(*got, line) << number;
    EXPECT_EQ(reader->tooLong(), tooLong) << number;
    EXPECT_EQ(reader->lineNumber(), number);
  };
  expectLine("a", 0, 1);
  expectLine("", 300'000, 2);
  expectLine("b", 0, 3);
  expectLine(std::string(limit, 'y'), 0, 4);
  expectLine("", limit + 1, 5);
  EXPECT_FALSE(next().has_value());
  EXPECT_TRUE(reader->error().empty()) << reader->error();
  // At most the limit and one read (64 KiB) held at once, however long the line.
  EXPECT_LE(peak, limit + 64 * 1024);
  // Each byte examined once: the search resumes where it stopped.
  EXPECT_EQ(reader->scannedBytes(), text.size());
}

TEST(LineReaderTest, ManyShortLinesAreScannedOnce) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 20'000; ++i) {
    text += "line " + std::to_string(i) + "\n";
  }
  const std::string path = dir.write("changes.jsonl", text);
  std::string error;
  std::unique_ptr<LineReader> reader = LineReader::open(path, error);
  ASSERT_NE(reader, nullptr) << error;
  int count = 0;
  while (std::optional<std::string> line =
             reader->next(false, std::chrono::milliseconds(1), keepReading)) {
    ASSERT_EQ(*line, "line " + std::to_string(count));
    ++count;
  }
  EXPECT_EQ(count, 20'000);
  EXPECT_EQ(reader->scannedBytes(), text.size());
}

}  // namespace
}  // namespace sh::connectors::line_reader_test

#include "host/connectors/kube/watch_lines.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace sh::kube::watch_lines_test {
namespace {

std::vector<std::string> feed(WatchLines& lines, const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (const std::string& p : pieces) {
    EXPECT_TRUE(lines.append(p, [&](std::string_view l) {
      out.emplace_back(l);
      return true;
    }));
  }
  return out;
}

TEST(WatchLinesTest, LinesSplitAnywhereComeOutWhole) {
  const std::string body =
      "{\"type\":\"ADDED\",\"object\":{\"a\":1}}\n{\"type\":\"MODIFIED\"}\r\n\n{\"x\":\"y\"}\n";
  // Every way of cutting the body in two, and one byte at a time.
  for (std::size_t cut = 0; cut <= body.size(); ++cut) {
    WatchLines lines;
    auto out = feed(lines, {body.substr(0, cut), body.substr(cut)});
    ASSERT_EQ(out.size(), 3u) << "cut at " << cut;
    EXPECT_EQ(out[0], "{\"type\":\"ADDED\",\"object\":{\"a\":1}}");
    EXPECT_EQ(out[1], "{\"type\":\"MODIFIED\"}");  // "\r" dropped, the empty line skipped
    EXPECT_EQ(out[2], "{\"x\":\"y\"}");
    EXPECT_EQ(lines.pendingBytes(), 0u);
  }
  WatchLines bytes;
  std::vector<std::string> single;
  for (char c : body) {
    single.emplace_back(1, c);
  }
  EXPECT_EQ(feed(bytes, single).size(), 3u);
}

TEST(WatchLinesTest, RandomPiecesGiveTheSameLines) {
  std::mt19937 random(7);
  std::string body;
  std::vector<std::string> expected;
  for (int i = 0; i < 500; ++i) {
    std::string line =
        "{\"n\":" + std::to_string(i) + ",\"pad\":\"" + std::string(random() % 300, 'x') + "\"}";
    expected.push_back(line);
    body += line + "\n";
  }
  WatchLines lines;
  std::vector<std::string> pieces;
  for (std::size_t at = 0; at < body.size();) {
    const std::size_t n = 1 + random() % 97;
    pieces.push_back(body.substr(at, n));
    at += n;
  }
  EXPECT_EQ(feed(lines, pieces), expected);
}

TEST(WatchLinesTest, AnUnfinishedLineIsHeldUntilItsNewline) {
  WatchLines lines;
  EXPECT_TRUE(feed(lines, {"{\"a\":"}).empty());
  EXPECT_EQ(lines.pendingBytes(), 5u);
  auto out = feed(lines, {"1}\n{\"b"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], "{\"a\":1}");
  EXPECT_EQ(lines.pendingBytes(), 3u);
}

TEST(WatchLinesTest, ALineOverTheLimitIsAnError) {
  WatchLines lines(16);
  EXPECT_TRUE(lines.append("0123456789", [](std::string_view) { return true; }));
  EXPECT_FALSE(lines.append("0123456789", [](std::string_view) { return true; }));
  EXPECT_EQ(lines.error(), "watch event longer than 16 bytes");
  WatchLines complete(4);
  EXPECT_FALSE(complete.append("12345\n", [](std::string_view) { return true; }));
}

TEST(WatchLinesTest, TheSinkCanStopTheStream) {
  WatchLines lines;
  int seen = 0;
  EXPECT_FALSE(lines.append("a\nb\nc\n", [&](std::string_view) { return ++seen < 2; }));
  EXPECT_EQ(seen, 2);
}

// A long line in many small pieces: each byte is scanned once, so 8 MiB in 4 KiB pieces
// finishes at once (the quadratic rescan took minutes for this).
TEST(WatchLinesTest, ALongLineInSmallPiecesIsLinear) {
  WatchLines lines;
  const std::string piece(4096, 'x');
  for (int i = 0; i < 2048; ++i) {
    ASSERT_TRUE(lines.append(piece, [](std::string_view) { return true; }));
  }
  std::size_t length = 0;
  ASSERT_TRUE(lines.append("\n", [&](std::string_view l) {
    length = l.size();
    return true;
  }));
  EXPECT_EQ(length, 2048u * 4096u);
}

// A line longer than the cap, fed in small pieces, is refused once it passes the cap: the
// buffer never holds more than the cap and one piece, and each byte is examined once (counted,
// not timed: the old reader rescanned from the start on every piece, 200 MB of one line took
// 14 s and 418 MB).
TEST(WatchLinesTest, ALineOverTheCapInSmallPiecesIsRefusedInBoundedMemory) {
  const std::size_t cap = 1u << 20;
  WatchLines lines(cap);
  const std::string piece(512, 'x');
  std::size_t fed = 0;
  std::size_t peak = 0;
  bool refused = false;
  while (fed < 4 * cap) {
    fed += piece.size();
    if (!lines.append(piece, [](std::string_view) { return true; })) {
      refused = true;
      break;
    }
    peak = std::max(peak, lines.pendingBytes());
  }
  ASSERT_TRUE(refused);
  EXPECT_EQ(fed, cap + piece.size());  // refused by the first piece that passes the cap
  EXPECT_LE(peak, cap);
  EXPECT_EQ(lines.error(), "watch event longer than 1048576 bytes");
  EXPECT_EQ(lines.scannedBytes(), fed);
}

TEST(WatchLinesTest, EachByteIsScannedOnce) {
  WatchLines lines;
  std::string body;
  for (int i = 0; i < 200; ++i) {
    body += std::string(static_cast<std::size_t>(i) * 97 % 5000, 'y') + "\n";
  }
  std::size_t count = 0;
  for (std::size_t at = 0; at < body.size(); at += 7) {
    ASSERT_TRUE(lines.append(std::string_view(body).substr(at, 7), [&](std::string_view) {
      ++count;
      return true;
    }));
  }
  EXPECT_EQ(count, 199u);  // the first line is empty
  EXPECT_EQ(lines.scannedBytes(), body.size());
}

}  // namespace
}  // namespace sh::kube::watch_lines_test

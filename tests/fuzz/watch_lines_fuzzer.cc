// The framing of watch bodies (kube/watch_lines.cc): a body cut into pieces anywhere, turned
// back into its lines. The first byte sets the line limit (1 to 64 bytes, so the limit is
// reached often), the second the piece sizes; the rest is the body. Without an error, the lines
// handed out are exactly the body's non-empty lines (a final "\r" dropped) and what is left
// pending is the unfinished last line; with one, the lines handed out are the first of those,
// and some line of the body is longer than the limit.
#include <string>
#include <vector>

#include "host/connectors/kube/watch_lines.h"
#include "tests/fuzz/fuzz_support.h"

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) {
    return 0;
  }
  const std::size_t maxLine = 1 + data[0] % 64;
  const std::size_t pieceSeed = data[1];
  const std::string_view body = sh::fuzz::asText(data + 2, size - 2);

  // The lines as the API server wrote them.
  std::vector<std::string_view> expected;
  bool tooLong = false;
  std::size_t start = 0;
  for (std::size_t end = body.find('\n'); end != std::string_view::npos;
       end = body.find('\n', start)) {
    std::string_view line = body.substr(start, end - start);
    tooLong |= line.size() > maxLine;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (!line.empty()) {
      expected.push_back(line);
    }
    start = end + 1;
  }
  const std::size_t unfinished = body.size() - start;
  tooLong |= unfinished > maxLine;

  sh::kube::WatchLines lines(maxLine);
  std::vector<std::string> got;
  bool ok = true;
  std::size_t offset = 0;
  for (std::size_t i = 0; ok && offset < body.size(); ++i) {
    const std::size_t piece = std::min(body.size() - offset, 1 + (pieceSeed * (i + 7)) % 23);
    ok = lines.append(body.substr(offset, piece), [&](std::string_view line) {
      got.emplace_back(line);
      return true;
    });
    offset += piece;
  }
  sh::fuzz::check(got.size() <= expected.size(), "no more lines than the body has");
  for (std::size_t i = 0; i < got.size(); ++i) {
    sh::fuzz::check(got[i] == expected[i], "each line as the body has it, in order");
  }
  if (ok) {
    sh::fuzz::check(lines.error().empty(), "no error without a failed append");
    sh::fuzz::check(got.size() == expected.size(), "every complete line handed out");
    sh::fuzz::check(lines.pendingBytes() == unfinished, "the unfinished line is pending");
  } else {
    sh::fuzz::check(
        lines.error() == "watch event longer than " + std::to_string(maxLine) + " bytes",
        "the error names the limit");
    sh::fuzz::check(tooLong, "only a line over the limit is an error");
  }
  return 0;
}

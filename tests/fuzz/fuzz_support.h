// What the fuzz harnesses share: the input as text, JSON parsed as the host's readers parse it,
// invariant checks that abort with a message (a crash to libFuzzer and to the replay runner
// alike), and quiet logs (a parser's warnings on every input would drown the fuzzer's output).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <spdlog/spdlog.h>

#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>

// libFuzzer's entry point; the replay runner (replay_main.cc) calls it too.
// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace sh::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Turns logging off once per process.
inline void quietLogs() {
  static const bool kQuiet = [] {
    spdlog::set_level(spdlog::level::off);
    return true;
  }();
  (void)kQuiet;
}

// An invariant of the parser under test: aborts with `what` when it does not hold.
inline void check(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}

// Keeps reads of a parsed view from being optimised away, so the sanitizers check them.
inline void keep(std::size_t value) { __asm__ volatile("" : : "r"(value) : "memory"); }

// JSON text as the command line reads files (host/cli/json_file.cc: depth limit 256); nullopt
// when it does not parse.
inline std::optional<boost::json::value> parseJson(std::string_view text) {
  boost::json::parse_options options;
  options.max_depth = 256;
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec, {}, options);
  if (ec) {
    return std::nullopt;
  }
  return value;
}

}  // namespace sh::fuzz

// Deeply nested TOML arrays and inline tables overflow the stack in the parser: a known fault
// that a depth limit in the configuration reader addresses. Until then the TOML harnesses
// skip such inputs, so a run goes on to find other faults.
// tests/fuzz/crashes/toml-deep-nesting.toml is an input that shows the fault.
#pragma once

#include <cstddef>
#include <string_view>

namespace sh::fuzz {

inline constexpr std::size_t kMaxTomlNesting = 64;

// Whether `text` opens more than kMaxTomlNesting brackets or braces at once, quotes ignored:
// an over-estimate of the nesting the parser recurses through.
inline bool nestsDeeperThanTomlLimit(std::string_view text) {
  std::size_t depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > kMaxTomlNesting) {
        return true;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace sh::fuzz

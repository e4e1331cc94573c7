// Text without the characters `chars` at either end, as a view into `text`.
#pragma once

#include <string_view>

namespace sh {

// ASCII white space: space, tab, CR and LF.
inline constexpr std::string_view kAsciiSpace = " \t\r\n";

constexpr std::string_view trimmed(std::string_view text, std::string_view chars = kAsciiSpace) {
  const auto begin = text.find_first_not_of(chars);
  if (begin == std::string_view::npos) {
    return {};
  }
  return text.substr(begin, text.find_last_not_of(chars) - begin + 1);
}

}  // namespace sh

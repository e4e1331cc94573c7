// Character classes and prefix tests the name-syntax helpers share. Internal to the SDK: not
// part of its interface, and may change in any release.
#ifndef SCHEDHOST_DETAIL_TEXT_HPP
#define SCHEDHOST_DETAIL_TEXT_HPP

#include <string_view>

namespace schedhost::detail {

inline bool startsWith(std::string_view s, std::string_view prefix) noexcept {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

inline bool isAlnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

inline bool isLowerAlnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

}  // namespace schedhost::detail

#endif  // SCHEDHOST_DETAIL_TEXT_HPP

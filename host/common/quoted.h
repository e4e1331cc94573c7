// `s` in double quotes, as messages name a plugin, a node or a pod: "NodeResourcesFit".
// Nothing inside is escaped.
#pragma once

#include <string>
#include <string_view>

namespace sh {

inline std::string quoted(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out.append(s);
  out += '"';
  return out;
}

}  // namespace sh

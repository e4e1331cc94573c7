// An sh_str of a view read as a std::string_view, for the model tests' comparisons.
#pragma once

#include <schedhost/plugin.h>

#include <string_view>

namespace sh::model::testing {

inline std::string_view sv(sh_str s) { return {s.ptr, s.len}; }

}  // namespace sh::model::testing

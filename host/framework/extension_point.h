// The extension points, as the framework names them. One enum serves the configuration
// and the runtime: sh::Point is config::ExtensionPoint.
#pragma once

#include <array>
#include <cstddef>

#include "host/config/extension_point.h"

namespace sh {

using Point = config::ExtensionPoint;
inline constexpr std::size_t kPointCount = config::kExtensionPointCount;

// "PreFilter", "Score", ... as upstream names the points.
inline std::string_view pointName(Point p) { return config::typeName(p); }

template <typename T>
using PerPoint = std::array<T, kPointCount>;

}  // namespace sh

// The extension points a profile configures, in pipeline order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <schedhost/plugin.h>

namespace sh {

enum class Point : std::size_t {
  kPreEnqueue,
  kQueueSort,
  kPreFilter,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kReserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
};
inline constexpr std::size_t kPointCount = 12;

// "PreFilter", "Score", ... as upstream names the points.
std::string_view pointName(Point p);
// The SH_POINT_* bit of a point.
uint32_t pointBit(Point p);

template <typename T>
using PerPoint = std::array<T, kPointCount>;

}  // namespace sh

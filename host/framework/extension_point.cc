#include "host/framework/extension_point.h"

namespace sh {

std::string_view pointName(Point p) {
  static constexpr std::string_view kNames[kPointCount] = {
      "PreEnqueue", "QueueSort", "PreFilter", "Filter",  "PostFilter", "PreScore",
      "Score",      "Reserve",   "Permit",    "PreBind", "Bind",       "PostBind"};
  return kNames[static_cast<std::size_t>(p)];
}

uint32_t pointBit(Point p) { return 1u << static_cast<uint32_t>(p); }

}  // namespace sh

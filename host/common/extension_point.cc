#include "host/common/extension_point.h"

#include <schedhost/plugin.h>

namespace sh {

namespace {

struct PointInfo {
  std::string_view key;
  std::string_view type;
  uint32_t bit;
};

constexpr std::array<PointInfo, kExtensionPointCount> kPoints = {{
    {"preEnqueue", "PreEnqueue", SH_POINT_PRE_ENQUEUE},
    {"queueSort", "QueueSort", SH_POINT_QUEUE_SORT},
    {"preFilter", "PreFilter", SH_POINT_PRE_FILTER},
    {"filter", "Filter", SH_POINT_FILTER},
    {"postFilter", "PostFilter", SH_POINT_POST_FILTER},
    {"preScore", "PreScore", SH_POINT_PRE_SCORE},
    {"score", "Score", SH_POINT_SCORE},
    {"reserve", "Reserve", SH_POINT_RESERVE},
    {"permit", "Permit", SH_POINT_PERMIT},
    {"preBind", "PreBind", SH_POINT_PRE_BIND},
    {"bind", "Bind", SH_POINT_BIND},
    {"postBind", "PostBind", SH_POINT_POST_BIND},
}};

}  // namespace

std::string_view configKey(ExtensionPoint point) { return kPoints[indexOf(point)].key; }

std::string_view typeName(ExtensionPoint point) { return kPoints[indexOf(point)].type; }

uint32_t pointBit(ExtensionPoint point) { return kPoints[indexOf(point)].bit; }

std::optional<ExtensionPoint> pointFromConfigKey(std::string_view key) {
  for (ExtensionPoint point : kAllExtensionPoints) {
    if (configKey(point) == key) {
      return point;
    }
  }
  return std::nullopt;
}

}  // namespace sh

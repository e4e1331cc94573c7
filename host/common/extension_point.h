// The extension points a profile configures, with their TOML keys, upstream type names and
// the SH_POINT_* bits of the plugin ABI.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sh {

// The twelve extension points, in the order the scheduler runs them (and upstream's
// getExtensionPoints order).
enum class ExtensionPoint {
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

inline constexpr std::size_t kExtensionPointCount = 12;

inline constexpr std::array<ExtensionPoint, kExtensionPointCount> kAllExtensionPoints = {
    ExtensionPoint::kPreEnqueue, ExtensionPoint::kQueueSort,  ExtensionPoint::kPreFilter,
    ExtensionPoint::kFilter,     ExtensionPoint::kPostFilter, ExtensionPoint::kPreScore,
    ExtensionPoint::kScore,      ExtensionPoint::kReserve,    ExtensionPoint::kPermit,
    ExtensionPoint::kPreBind,    ExtensionPoint::kBind,       ExtensionPoint::kPostBind,
};

inline constexpr std::size_t indexOf(ExtensionPoint point) {
  return static_cast<std::size_t>(point);
}

// "preFilter": the key under [plugins] in TOML.
std::string_view configKey(ExtensionPoint point);
// "PreFilter": upstream's name, used in messages as "<Name>Plugin".
std::string_view typeName(ExtensionPoint point);
// SH_POINT_PRE_FILTER etc.
uint32_t pointBit(ExtensionPoint point);
// The point whose config_key is `key`; nullopt for anything else (including "multiPoint").
std::optional<ExtensionPoint> pointFromConfigKey(std::string_view key);

// The key of the MultiPoint plugin set under [plugins].
inline constexpr std::string_view kMultiPointKey = "multiPoint";

// One T per extension point, indexed by indexOf().
template <typename T>
using PerPoint = std::array<T, kExtensionPointCount>;

}  // namespace sh

#include "host/plugin/points.h"

#include <array>
#include <cstddef>
#include <string_view>

#include "host/common/extension_point.h"

namespace sh::plugin {
namespace {

struct NamedBit {
  std::uint32_t bit;
  std::string_view name;
};

// The points in enum order, named from the one table (host/common/extension_point.h).
std::array<NamedBit, kExtensionPointCount> pointTable() {
  std::array<NamedBit, kExtensionPointCount> out{};
  for (ExtensionPoint point : kAllExtensionPoints) {
    out[indexOf(point)] = NamedBit{pointBit(point), typeName(point)};
  }
  return out;
}

constexpr std::array<NamedBit, 1> kFlags = {{
    {SH_PLUGIN_SERIALIZE, "Serialize"},
}};

template <std::size_t N>
std::vector<std::string> names(std::uint32_t bits, const std::array<NamedBit, N>& table) {
  std::vector<std::string> out;
  std::uint32_t known = 0;
  for (const NamedBit& entry : table) {
    known |= entry.bit;
    if ((bits & entry.bit) != 0) {
      out.emplace_back(entry.name);
    }
  }
  for (int i = 0; i < 32; ++i) {
    std::uint32_t bit = std::uint32_t{1} << i;
    if ((bits & bit) != 0 && (known & bit) == 0) {
      out.push_back("bit" + std::to_string(i));
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) {
      out += ',';
    }
    out += part;
  }
  return out;
}

}  // namespace

std::uint32_t pointsFromVtable(const sh_plugin_vtable& v) {
  std::uint32_t points = 0;
  auto add = [&](bool present, std::uint32_t bit) {
    if (present) {
      points |= bit;
    }
  };
  add(slotSet(v, &sh_plugin_vtable::pre_enqueue), SH_POINT_PRE_ENQUEUE);
  add(slotSet(v, &sh_plugin_vtable::queue_sort_less), SH_POINT_QUEUE_SORT);
  add(slotSet(v, &sh_plugin_vtable::pre_filter), SH_POINT_PRE_FILTER);
  add(slotSet(v, &sh_plugin_vtable::filter), SH_POINT_FILTER);
  add(slotSet(v, &sh_plugin_vtable::post_filter), SH_POINT_POST_FILTER);
  add(slotSet(v, &sh_plugin_vtable::pre_score), SH_POINT_PRE_SCORE);
  add(slotSet(v, &sh_plugin_vtable::score), SH_POINT_SCORE);
  add(slotSet(v, &sh_plugin_vtable::reserve), SH_POINT_RESERVE);
  add(slotSet(v, &sh_plugin_vtable::permit), SH_POINT_PERMIT);
  add(slotSet(v, &sh_plugin_vtable::pre_bind), SH_POINT_PRE_BIND);
  add(slotSet(v, &sh_plugin_vtable::bind), SH_POINT_BIND);
  add(slotSet(v, &sh_plugin_vtable::post_bind), SH_POINT_POST_BIND);
  return points;
}

std::vector<std::string> pointNames(std::uint32_t points) { return names(points, pointTable()); }

std::string pointsToString(std::uint32_t points) { return join(pointNames(points)); }

std::vector<std::string> flagNames(std::uint32_t flags) { return names(flags, kFlags); }

std::string flagsToString(std::uint32_t flags) { return join(flagNames(flags)); }

}  // namespace sh::plugin

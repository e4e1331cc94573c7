// Extension points (SH_POINT_* bits) and descriptor flags (SH_PLUGIN_*), as the host
// derives, prints and compares them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <schedhost/plugin.h>

namespace sh::plugin {

// Whether the plugin set `member` of its vtable: the slot lies within the vtable's
// struct_size (which the host never reads past) and is not NULL.
template <typename Slot>
bool slotSet(const sh_plugin_vtable& vtable, Slot sh_plugin_vtable::*member) {
  // Taking the member's address reads nothing; the slot is read only once known to exist.
  auto offset = static_cast<std::size_t>(reinterpret_cast<const char*>(&(vtable.*member)) -
                                         reinterpret_cast<const char*>(&vtable));
  return offset + sizeof(Slot) <= vtable.struct_size && vtable.*member != nullptr;
}

// The SH_POINT_* bits a vtable implements: one per non-NULL extension-point slot.
// Reserve counts `reserve`; PreFilterExtensions, NormalizeScore and EnqueueExtensions are
// parts of another point and add no bit. Reads only within vtable.struct_size.
std::uint32_t pointsFromVtable(const sh_plugin_vtable& vtable);

// kube-scheduler names in bit order, e.g. {"PreFilter", "Filter", "Score"}. Unknown bits
// appear as "bit20".
std::vector<std::string> pointNames(std::uint32_t points);
// "PreFilter,Filter,Score"; "" when no bit is set.
std::string pointsToString(std::uint32_t points);

// {"Serialize"}; unknown bits appear as "bit5".
std::vector<std::string> flagNames(std::uint32_t flags);
// "Serialize"; "" when no flag is set.
std::string flagsToString(std::uint32_t flags);

}  // namespace sh::plugin

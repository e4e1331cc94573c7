// The plugin's .shmeta record and the declaration of its entry point, for SCHEDHOST_PLUGIN.
// Internal to the SDK (plugin.hpp includes it); may change in any release.
#ifndef SCHEDHOST_DETAIL_METADATA_HPP
#define SCHEDHOST_DETAIL_METADATA_HPP

#include <schedhost/plugin.h>

#include <cstddef>
#include <cstdint>

namespace schedhost::detail {

// The .shmeta record, built at compile time from any constant string (a literal or a
// `constexpr const char* kName`), so a plugin can declare its name once. A name or version
// that does not fit makes the constant evaluation, and so the build, fail.
constexpr sh_plugin_metadata makeMetadata(const char* name, const char* version, uint32_t points,
                                          uint32_t flags) {
  sh_plugin_metadata m{};
  const char magic[] = SH_META_MAGIC;
  for (std::size_t i = 0; i < sizeof(m.magic); ++i) {
    m.magic[i] = magic[i];
  }
  m.struct_size = sizeof(sh_plugin_metadata);
  m.abi_major = SH_ABI_MAJOR;
  m.abi_minor = SH_ABI_MINOR;
  m.points = points;
  m.flags = flags;
  for (std::size_t i = 0; name[i] != '\0'; ++i) {
    if (i + 1 >= sizeof(m.name)) {
      throw "plugin name longer than 63 characters";
    }
    m.name[i] = name[i];
  }
  for (std::size_t i = 0; version[i] != '\0'; ++i) {
    if (i + 1 >= sizeof(m.version)) {
      throw "plugin version longer than 31 characters";
    }
    m.version[i] = version[i];
  }
  return m;
}

}  // namespace schedhost::detail

// The entry point: schedhost_plugin_v1, exported; or, when SCHEDHOST_PLUGIN_STATIC_ENTRY names a
// function, that function, not exported (a plugin linked statically into a test or benchmark).
#if defined(SCHEDHOST_PLUGIN_STATIC_ENTRY)
#define SCHEDHOST_DETAIL_ENTRY_DECL \
  extern "C" const sh_plugin_descriptor* SCHEDHOST_PLUGIN_STATIC_ENTRY(void)
#else
#define SCHEDHOST_DETAIL_ENTRY_DECL \
  extern "C" SH_EXPORT const sh_plugin_descriptor* schedhost_plugin_v1(void)
#endif

#endif  // SCHEDHOST_DETAIL_METADATA_HPP

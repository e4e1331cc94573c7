// `schedhost plugin new`: writes a plugin skeleton that builds against the installed SDK.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sh::cli {

// One file of a skeleton: sdk/templates/<lang>/<path>, its bytes embedded at build time by
// host/cli/embed_templates.cmake (plugin_templates.cc). `path` and the bytes may hold the
// placeholders @NAME@, @SNAKE@, @KEBAB@ and @SDK_VERSION@.
struct TemplateFile {
  const char* lang;
  const char* path;
  const unsigned char* data;
  size_t size;
};
// Every embedded file, then an entry of nulls.
extern const TemplateFile kPluginTemplates[];
extern const size_t kPluginTemplateCount;

struct PluginNewArgs {
  std::string name;          // MyFilter: ^[A-Z][A-Za-z0-9]*$
  std::string lang = "cpp";  // cpp, c or rust
  std::string dir;           // empty: ./<kebab-name>
};
int runPluginNew(const PluginNewArgs& args);

// An empty string when `name` can name a plugin, else why not.
std::string checkPluginName(std::string_view name);
// MyFilter -> my_filter, HTTPProbe -> http_probe, Gpu2Pack -> gpu2_pack.
std::string snakeCase(std::string_view name);
// MyFilter -> my-filter.
std::string kebabCase(std::string_view name);

}  // namespace sh::cli

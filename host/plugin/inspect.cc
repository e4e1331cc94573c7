#include "host/plugin/inspect.h"

#include <algorithm>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "host/plugin/elf_reader.h"
#include "host/plugin/permissions.h"
#include "host/plugin/plugin_file.h"
#include "host/plugin/points.h"

namespace sh::plugin {
namespace {

// At most this many symbol names are spelled out in one warning.
constexpr std::size_t kNamesShown = 8;

std::string bracketList(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < kNamesShown; ++i) {
    out += (i == 0 ? "[" : ", [") + names[i] + "]";
  }
  if (names.size() > kNamesShown) {
    out += " and " + std::to_string(names.size() - kNamesShown) + " more";
  }
  return out;
}

void addMetadata(const ElfImage& image, InspectReport& report) {
  if (!image.metadata) {
    report.errors.push_back("no .shmeta section (not built with the schedhost SDK)");
    return;
  }
  const sh_plugin_metadata& meta = *image.metadata;
  report.hasMetadata = true;
  report.name = meta.name;
  report.version = meta.version;
  report.abiMajor = meta.abi_major;
  report.abiMinor = meta.abi_minor;
  report.points = meta.points;
  report.flags = meta.flags;
  if (report.name.empty()) {
    report.errors.push_back(".shmeta name is empty");
  }
  if (meta.abi_major != SH_ABI_MAJOR) {
    report.errors.push_back("built for ABI " + std::to_string(meta.abi_major) + "; host supports " +
                            std::to_string(SH_ABI_MAJOR));
  } else if (meta.abi_minor > SH_ABI_MINOR) {
    report.errors.push_back("built for ABI " + std::to_string(meta.abi_major) + "." +
                            std::to_string(meta.abi_minor) + "; host supports up to " +
                            std::to_string(SH_ABI_MAJOR) + "." + std::to_string(SH_ABI_MINOR));
  }
}

void addSymbols(const ElfImage& image, InspectReport& report) {
  std::vector<std::string> extra;
  std::vector<std::string> unique;
  bool hasEntry = false;
  for (const ElfSymbol& symbol : image.dynamicSymbols) {
    if (symbol.binding == SymbolBinding::kGnuUnique && symbol.defined) {
      unique.push_back(symbol.name);
    }
    if (!symbol.exported()) {
      continue;
    }
    report.exports.push_back(symbol.name);
    if (symbol.name == SH_ENTRY_SYMBOL) {
      hasEntry = true;
      if (!symbol.isFunction()) {
        report.errors.push_back("entry point [" SH_ENTRY_SYMBOL
                                "] is not a function (symbol type " +
                                symbolTypeName(symbol.type) + ")");
      }
    } else {
      extra.push_back(symbol.name);
    }
  }
  std::sort(report.exports.begin(), report.exports.end());
  std::sort(extra.begin(), extra.end());
  std::sort(unique.begin(), unique.end());
  if (!hasEntry) {
    report.errors.push_back("no entry point [" SH_ENTRY_SYMBOL "]");
  }
  if (!extra.empty()) {
    report.warnings.push_back("exports " + std::to_string(extra.size()) +
                              " symbol(s) besides the entry point: " + bracketList(extra) +
                              " (build with hidden visibility and the SDK's version script)");
  }
  if (!unique.empty()) {
    report.warnings.push_back(
        "has STB_GNU_UNIQUE symbol(s), which keep the library from ever unloading: " +
        bracketList(unique) + " (build with -fno-gnu-unique)");
  }
}

}  // namespace

InspectReport inspect(const std::string& path) {
  InspectReport report;
  try {
    PluginFile file = PluginFile::open(path);
    ElfImage image = parseElf(file.path(), file.bytes());
    report.path = file.path();
    report.size = file.bytes().size();
    report.sha256 = file.sha256();
    report.machine = machineName(image.machine);
    report.soname = image.soname;
    report.needed = image.needed;
    report.hasTls = image.hasTls;
    report.noDelete = image.noDelete;
    addMetadata(image, report);
    addSymbols(image, report);
    if (image.hasTls) {
      report.warnings.push_back(
          "has thread-local storage (PT_TLS): thread_local destructors can keep the library "
          "loaded");
    }
    if (image.noDelete) {
      report.warnings.push_back("is marked DF_1_NODELETE: the library can never be unloaded");
    }
    // A warning, not an error: the service user and the plugin directory a run uses are not
    // known here. The default service user is assumed.
    if (std::string problem = ownerModeRefusal(file.path(), file.status(), kDefaultServiceUser);
        !problem.empty()) {
      report.warnings.push_back("loading would be " + problem);
    }
  } catch (const PluginFileError& e) {
    throw InspectError(e.what());
  } catch (const ElfError& e) {
    throw InspectError(e.what());
  }
  return report;
}

std::string toText(const InspectReport& r) {
  std::string out;
  auto line = [&out](const char* key, const std::string& value) {
    std::string padded = key;
    padded.resize(10, ' ');
    out += padded + (value.empty() ? "(none)" : value) + "\n";
  };
  auto joined = [](const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& item : items) {
      s += (s.empty() ? "" : ", ") + item;
    }
    return s;
  };
  line("plugin", r.path);
  if (r.hasMetadata) {
    line("name", r.name);
    line("version", r.version);
    line("abi", std::to_string(r.abiMajor) + "." + std::to_string(r.abiMinor));
    line("points", pointsToString(r.points));
    line("flags", flagsToString(r.flags));
  } else {
    line("name", "(no .shmeta)");
  }
  line("machine", r.machine);
  line("size", std::to_string(r.size) + " bytes");
  line("sha256", r.sha256);
  if (!r.soname.empty()) {
    line("soname", r.soname);
  }
  line("needed", joined(r.needed));
  line("exports", joined(r.exports));
  line("tls", r.hasTls ? "yes" : "no");
  line("loadable", r.loadable() ? "yes" : "no");
  for (const std::string& warning : r.warnings) {
    out += "warning: " + warning + "\n";
  }
  for (const std::string& error : r.errors) {
    out += "error: " + error + "\n";
  }
  return out;
}

boost::json::value toJson(const InspectReport& r) {
  auto strings = [](const std::vector<std::string>& items) {
    boost::json::array out;
    for (const std::string& item : items) {
      out.emplace_back(item);
    }
    return out;
  };
  boost::json::object out;
  out["path"] = r.path;
  out["size"] = r.size;
  out["sha256"] = r.sha256;
  out["machine"] = r.machine;
  if (r.hasMetadata) {
    boost::json::object meta;
    meta["name"] = r.name;
    meta["version"] = r.version;
    meta["abiMajor"] = r.abiMajor;
    meta["abiMinor"] = r.abiMinor;
    meta["points"] = strings(pointNames(r.points));
    meta["flags"] = strings(flagNames(r.flags));
    out["metadata"] = std::move(meta);
  } else {
    out["metadata"] = nullptr;
  }
  out["soname"] = r.soname;
  out["needed"] = strings(r.needed);
  out["exports"] = strings(r.exports);
  out["tls"] = r.hasTls;
  out["noDelete"] = r.noDelete;
  out["loadable"] = r.loadable();
  out["warnings"] = strings(r.warnings);
  out["errors"] = strings(r.errors);
  return out;
}

}  // namespace sh::plugin

#include "host/plugin/loader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/dll/shared_library.hpp>
#include <boost/version.hpp>

#include "host/plugin/elf_reader.h"
#include "host/plugin/permissions.h"
#include "host/plugin/plugin_file.h"
#include "host/plugin/points.h"

// The headers and the compiled Boost libraries must be one version (Debian bookworm mixes
// 1.74 and 1.81); CMake asks for 1.81 exactly and this keeps the headers honest.
static_assert(BOOST_VERSION == 108100, "schedhost is built against Boost 1.81 exactly");

namespace sh::plugin {
namespace {

static_assert(kDescriptorV1Size == 64, "sh_plugin_descriptor v1 layout changed");
static_assert(kVtableV1Size == 152, "sh_plugin_vtable v1 layout changed");

using EntryFunction = std::remove_pointer_t<sh_plugin_entry_fn>;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw LoadError(path, "plugin [" + path + "]: " + what);
}

// "built for ABI 2; host supports 1" or "built for ABI 1.99; host supports up to 1.0".
void checkAbi(const std::string& path, unsigned major, unsigned minor, unsigned hostMinor) {
  if (major != SH_ABI_MAJOR) {
    refuse(path, "built for ABI " + std::to_string(major) + "; host supports " +
                     std::to_string(SH_ABI_MAJOR));
  }
  if (minor > hostMinor) {
    refuse(path, "built for ABI " + std::to_string(major) + "." + std::to_string(minor) +
                     "; host supports up to " + std::to_string(SH_ABI_MAJOR) + "." +
                     std::to_string(hostMinor));
  }
}

std::string abiString(unsigned major, unsigned minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

// The pinned digest in lowercase, or a refusal when it is not 64 hex digits.
std::string normalizeSha256(const std::string& path, const std::string& expected) {
  bool hex = expected.size() == 64 && std::all_of(expected.begin(), expected.end(), [](char c) {
               return std::isxdigit(static_cast<unsigned char>(c)) != 0;
             });
  if (!hex) {
    refuse(path, "expected sha256 [" + expected + "] is not 64 hex digits");
  }
  std::string out = expected;
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  });
  return out;
}

// The dlerror() text inside Boost.DLL's exception message, with the /proc/self/fd name the
// library was opened by replaced by its real path.
std::string dlopenMessage(const std::exception& e, const std::string& procPath,
                          const std::string& path) {
  std::string text = e.what();
  static constexpr std::string_view kMarker = "(dlerror system message: ";
  if (auto start = text.find(kMarker); start != std::string::npos) {
    auto end = text.rfind(')');
    start += kMarker.size();
    text = text.substr(start,
                       end != std::string::npos && end > start ? end - start : std::string::npos);
  }
  for (auto at = text.find(procPath); at != std::string::npos;
       at = text.find(procPath, at + path.size())) {
    text.replace(at, procPath.size(), path);
  }
  return text;
}

// A dlopened library. It stays loaded for the life of the process.
struct ResidentLibrary {
  boost::dll::shared_library library;
  // The library was opened as /proc/self/fd/<fd>. glibc finds already-loaded objects by that
  // name, so the descriptor stays open: its number must never name another file.
  int fd = -1;
  std::string path;
  std::string sha256;
};

// Every library ever loaded, by (device, inode). Entries are never removed: unloading is
// never forced (docs/plugin-loading.md).
class ResidentLibraries {
 public:
  // Deliberately never destroyed, so nothing is dlclosed while the process exits.
  static ResidentLibraries& instance() {
    static auto* libraries = new ResidentLibraries();
    return *libraries;
  }

  // The library of `file`, loading it on first use. Throws LoadError.
  std::shared_ptr<ResidentLibrary> open(PluginFile& file) {
    std::lock_guard<std::mutex> lock(mutex_);
    const struct stat& before = file.status();
    auto key = std::make_pair(before.st_dev, before.st_ino);
    if (auto it = byInode_.find(key); it != byInode_.end()) {
      if (it->second->sha256 != file.sha256()) {
        refuse(file.path(), "file changed in place since it was loaded from [" + it->second->path +
                                "] (sha256 was " + it->second->sha256 + ", now " + file.sha256() +
                                "); replace plugin files by rename, never in place");
      }
      return it->second;
    }
    auto resident = std::make_shared<ResidentLibrary>();
    try {
      resident->library.load(file.procPath(), boost::dll::load_mode::rtld_now);
    } catch (const std::exception& e) {
      refuse(file.path(), "dlopen failed: " + dlopenMessage(e, file.procPath(), file.path()));
    }
    resident->path = file.path();
    resident->sha256 = file.sha256();
    struct stat after {};
    bool changed = ::fstat(file.fd(), &after) != 0 || after.st_size != before.st_size ||
                   after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
                   after.st_mtim.tv_nsec != before.st_mtim.tv_nsec;
    resident->fd = file.releaseFd();
    if (changed) {
      // What was loaded may not be what was hashed: keep it resident, but never use it.
      quarantined_.push_back(std::move(resident));
      refuse(file.path(), "file changed while it was being loaded");
    }
    byInode_.emplace(key, resident);
    return resident;
  }

  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return byInode_.size() + quarantined_.size();
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<dev_t, ino_t>, std::shared_ptr<ResidentLibrary>> byInode_;
  std::vector<std::shared_ptr<ResidentLibrary>> quarantined_;
};

// Slots that only make sense together: "vtable sets [normalize_score] without [score]".
void checkVtableCoherence(const std::string& path, const sh_plugin_vtable& v) {
  struct Rule {
    bool set;
    const char* slot;
    bool needed;
    const char* neededSlot;
  };
  const Rule rules[] = {
      {slotSet(v, &sh_plugin_vtable::pre_filter_add_pod), "pre_filter_add_pod",
       slotSet(v, &sh_plugin_vtable::pre_filter), "pre_filter"},
      {slotSet(v, &sh_plugin_vtable::pre_filter_remove_pod), "pre_filter_remove_pod",
       slotSet(v, &sh_plugin_vtable::pre_filter), "pre_filter"},
      {slotSet(v, &sh_plugin_vtable::pre_filter_add_pod), "pre_filter_add_pod",
       slotSet(v, &sh_plugin_vtable::pre_filter_remove_pod), "pre_filter_remove_pod"},
      {slotSet(v, &sh_plugin_vtable::pre_filter_remove_pod), "pre_filter_remove_pod",
       slotSet(v, &sh_plugin_vtable::pre_filter_add_pod), "pre_filter_add_pod"},
      {slotSet(v, &sh_plugin_vtable::normalize_score), "normalize_score",
       slotSet(v, &sh_plugin_vtable::score), "score"},
      {slotSet(v, &sh_plugin_vtable::unreserve), "unreserve",
       slotSet(v, &sh_plugin_vtable::reserve), "reserve"},
      {slotSet(v, &sh_plugin_vtable::queueing_hint), "queueing_hint",
       slotSet(v, &sh_plugin_vtable::events_to_register), "events_to_register"},
  };
  for (const Rule& rule : rules) {
    if (rule.set && !rule.needed) {
      refuse(path,
             std::string("vtable sets [") + rule.slot + "] without [" + rule.neededSlot + "]");
    }
  }
}

// What .shmeta and the descriptor disagree on, besides the name (which is refused).
std::vector<std::string> metadataWarnings(const sh_plugin_metadata& meta, const LoadedPlugin& p) {
  std::vector<std::string> out;
  if (meta.abi_major != p.abiMajor || meta.abi_minor != p.abiMinor) {
    out.push_back(".shmeta says ABI " + abiString(meta.abi_major, meta.abi_minor) +
                  " but the descriptor says " + abiString(p.abiMajor, p.abiMinor));
  }
  if (p.version != meta.version) {
    out.push_back(".shmeta version \"" + std::string(meta.version) +
                  "\" differs from the descriptor version \"" + p.version + "\"");
  }
  if (meta.points != p.points) {
    out.push_back(".shmeta declares points [" + pointsToString(meta.points) +
                  "] but the vtable implements [" + pointsToString(p.points) + "]");
  }
  if (meta.flags != p.flags) {
    out.push_back(".shmeta declares flags [" + flagsToString(meta.flags) +
                  "] but the descriptor has [" + flagsToString(p.flags) + "]");
  }
  return out;
}

// Steps 1-3: the file, read once, checked without running any of its code.
PluginFile openAndCheck(const std::string& requested, const LoadOptions& opts, ElfImage& image) {
  std::string path;
  try {
    path = canonicalPluginPath(requested);
  } catch (const PluginFileError& e) {
    std::error_code ec;
    auto shown = std::filesystem::absolute(requested, ec).lexically_normal().string();
    throw LoadError(ec ? requested : shown, "plugin " + std::string(e.what()));
  }
  std::optional<PluginFile> file;
  try {
    file.emplace(PluginFile::open(path));
  } catch (const PluginFileError& e) {
    throw LoadError(path, "plugin " + std::string(e.what()));
  }
  if (opts.requireSafePermissions) {
    std::error_code ec;
    std::string asGiven = std::filesystem::absolute(requested, ec).lexically_normal().string();
    if (std::string link = linkRefusal(ec ? requested : asGiven, path, opts.trust.pluginRoot);
        !link.empty()) {
      refuse(ec ? requested : asGiven, link);  // named as given: the rule is about that name
    }
    if (std::string problem = ownerModeRefusal(path, file->status(), opts.trust.serviceUser);
        !problem.empty()) {
      refuse(path, problem);
    }
  }
  if (!opts.expectedSha256.empty()) {
    std::string expected = normalizeSha256(path, opts.expectedSha256);
    if (expected != file->sha256()) {
      refuse(path, "refused: sha256 mismatch: the profile pins " + expected + ", the file has " +
                       file->sha256() +
                       "; install the build the pin names, or, if this build is the one "
                       "its vendor published, pin its digest in the profile's [[libraries]] "
                       "sha256");
    }
  }
  try {
    image = parseElf(path, file->bytes());
    const sh_plugin_metadata& meta = image.requireMetadata();
    checkAbi(path, meta.abi_major, meta.abi_minor, opts.hostAbiMinor);
  } catch (const ElfError& e) {
    throw LoadError(path, "plugin " + std::string(e.what()));
  }
  const ElfSymbol* entry = image.findExport(SH_ENTRY_SYMBOL);
  if (entry == nullptr) {
    refuse(path, "no entry point [" SH_ENTRY_SYMBOL "]");
  }
  if (!entry->isFunction()) {
    refuse(path, "entry point [" SH_ENTRY_SYMBOL "] is not a function (symbol type " +
                     symbolTypeName(entry->type) + ")");
  }
  return std::move(*file);
}

// Step 5: the descriptor the entry point returns.
void checkDescriptor(const std::string& path, const sh_plugin_descriptor* d,
                     const sh_plugin_metadata& meta, unsigned hostMinor) {
  if (d == nullptr) {
    refuse(path, "entry point [" SH_ENTRY_SYMBOL "] returned NULL");
  }
  if (d->struct_size < kDescriptorV1Size) {
    refuse(path, "descriptor too small: " + std::to_string(d->struct_size) +
                     " bytes, expected at least " + std::to_string(kDescriptorV1Size));
  }
  checkAbi(path, d->abi_major, d->abi_minor, hostMinor);
  if (d->name == nullptr) {
    refuse(path, "descriptor has no name");
  }
  if (d->name[0] == '\0') {
    refuse(path, "descriptor name is empty");
  }
  if (d->name != std::string_view(meta.name)) {
    refuse(path, "descriptor name \"" + std::string(d->name) +
                     "\" differs from the .shmeta name \"" + meta.name + "\"");
  }
  if (d->create == nullptr) {
    refuse(path, "descriptor has no create function");
  }
  if (d->destroy == nullptr) {
    refuse(path, "descriptor has no destroy function");
  }
  if (d->vtable == nullptr) {
    refuse(path, "descriptor has no vtable");
  }
  if (d->vtable->struct_size < kVtableV1Size) {
    refuse(path, "vtable too small: " + std::to_string(d->vtable->struct_size) +
                     " bytes, expected at least " + std::to_string(kVtableV1Size));
  }
  checkVtableCoherence(path, *d->vtable);
}

}  // namespace

PluginCandidate checkPlugin(const std::string& path, const LoadOptions& opts) {
  ElfImage image;
  PluginFile file = openAndCheck(path, opts, image);
  const sh_plugin_metadata& meta = *image.metadata;
  if (meta.name[0] == '\0') {
    refuse(file.path(), ".shmeta name is empty");
  }
  PluginCandidate out;
  out.path = file.path();
  out.name = meta.name;
  out.version = meta.version;
  out.abiMajor = meta.abi_major;
  out.abiMinor = meta.abi_minor;
  out.points = meta.points;
  out.flags = meta.flags;
  out.sha256 = file.sha256();
  out.device = file.status().st_dev;
  out.inode = file.status().st_ino;
  return out;
}

std::shared_ptr<const LoadedPlugin> loadPlugin(const std::string& path, const LoadOptions& opts) {
  ElfImage image;
  PluginFile file = openAndCheck(path, opts, image);
  const sh_plugin_metadata& meta = *image.metadata;
  std::shared_ptr<ResidentLibrary> resident = ResidentLibraries::instance().open(file);

  // Step 4 passed: from here on the plugin's own code runs.
  if (!resident->library.has(SH_ENTRY_SYMBOL)) {
    refuse(file.path(), "no entry point [" SH_ENTRY_SYMBOL "]");
  }
  EntryFunction& entry = resident->library.get<EntryFunction>(SH_ENTRY_SYMBOL);
  const sh_plugin_descriptor* descriptor = entry();
  checkDescriptor(file.path(), descriptor, meta, opts.hostAbiMinor);

  auto plugin = std::make_shared<LoadedPlugin>();
  plugin->path = file.path();
  plugin->name = descriptor->name;
  plugin->version = descriptor->version != nullptr ? descriptor->version : "";
  plugin->abiMajor = descriptor->abi_major;
  plugin->abiMinor = descriptor->abi_minor;
  plugin->flags = descriptor->flags;
  plugin->descriptor = descriptor;
  plugin->vtable = descriptor->vtable;
  plugin->points = pointsFromVtable(*descriptor->vtable);
  plugin->sha256 = file.sha256();
  plugin->library = resident;
  plugin->warnings = metadataWarnings(meta, *plugin);
  for (const std::string& warning : plugin->warnings) {
    spdlog::warn("plugin [{}]: {}", plugin->path, warning);
  }
  spdlog::debug("loaded plugin \"{}\" {} from [{}] (ABI {}, points {}, sha256 {})", plugin->name,
                plugin->version, plugin->path, abiString(plugin->abiMajor, plugin->abiMinor),
                pointsToString(plugin->points), plugin->sha256);
  return plugin;
}

std::size_t residentLibraryCount() { return ResidentLibraries::instance().count(); }

}  // namespace sh::plugin

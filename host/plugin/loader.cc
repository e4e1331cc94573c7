#include "host/plugin/loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
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
  // The sealed copy the library was opened from, as /proc/self/fd/<fd>. glibc finds
  // already-loaded objects by that name, so the descriptor stays open: its number must never
  // name another file.
  int fd = -1;
  std::string path;
  std::string sha256;
};

// Linux 6.3's memfd flags, absent from older headers: MFD_EXEC asks for an executable memfd
// where vm.memfd_noexec makes them non-executable by default; older kernels refuse the flag
// (EINVAL) and are asked again without it.
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

// A sealed in-memory copy of the bytes that were checked: written once, then sealed against
// every write, shrink and grow (and against further sealing), so nothing done to the plugin's
// file afterwards — `cp` onto it, truncation, a partial write — can reach the pages the
// library is mapped from. Returns the descriptor, or refuses.
constexpr int kSealAttempts = 8;  // about 360 ms of waits in all

int sealedCopy(const PluginFile& file) {
  const std::string name = "schedhost-plugin:" + file.path().substr(file.path().rfind('/') + 1);
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) {
    fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  }
  if (fd < 0) {
    refuse(file.path(), "cannot make a sealed copy to load (memfd_create: " +
                            std::string(std::strerror(errno)) + ")");
  }
  const std::vector<std::uint8_t>& bytes = file.bytes();
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      refuse(file.path(),
             "cannot make a sealed copy to load (write: " + std::string(std::strerror(err)) + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  // F_SEAL_WRITE fails with EBUSY while the kernel still holds a transient reference to a page
  // just written (its per-CPU LRU batches, on a busy machine): asked again after a short wait.
  int sealed = -1;
  for (int attempt = 0; attempt < kSealAttempts; ++attempt) {
    sealed = ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    if (sealed == 0 || errno != EBUSY) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10 * (attempt + 1)));
  }
  if (sealed != 0) {
    const int err = errno;
    ::close(fd);
    refuse(file.path(),
           "cannot seal the copy to load (F_ADD_SEALS: " + std::string(std::strerror(err)) + ")");
  }
  return fd;
}

// Every library ever loaded, by the SHA-256 of its bytes. Entries are never removed:
// unloading is never forced (docs/plugin-loading.md).
class ResidentLibraries {
 public:
  // Deliberately never destroyed, so nothing is dlclosed while the process exits.
  static ResidentLibraries& instance() {
    static auto* libraries = new ResidentLibraries();
    return *libraries;
  }

  // The library of `file`'s bytes, loading a sealed copy of them on first use. Throws
  // LoadError.
  std::shared_ptr<ResidentLibrary> open(const PluginFile& file) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = byDigest_.find(file.sha256()); it != byDigest_.end()) {
      return it->second;
    }
    auto resident = std::make_shared<ResidentLibrary>();
    const int fd = sealedCopy(file);
    const std::string procPath = "/proc/self/fd/" + std::to_string(fd);
    try {
      resident->library.load(procPath, boost::dll::load_mode::rtld_now);
    } catch (const std::exception& e) {
      ::close(fd);  // nothing was mapped from it: glibc does not know the name
      refuse(file.path(), "dlopen failed: " + dlopenMessage(e, procPath, file.path()));
    }
    resident->fd = fd;
    resident->path = file.path();
    resident->sha256 = file.sha256();
    byDigest_.emplace(file.sha256(), resident);
    return resident;
  }

  std::size_t count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return byDigest_.size();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<ResidentLibrary>> byDigest_;
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

// Step 5, ABI 1.2: the declared kinds, copied out of the descriptor with every pointer
// checked, so that nothing later reads the plugin's data again.
std::vector<DeclaredKind> declaredKinds(const std::string& path, const sh_plugin_descriptor& d) {
  std::vector<DeclaredKind> out;
  if (d.abi_minor < 2 || d.struct_size < offsetof(sh_plugin_descriptor, reserved2_)) {
    return out;
  }
  if (d.kind_count == 0) {
    return out;
  }
  if (d.kind_count > SH_MAX_DECLARED_KINDS) {
    refuse(path, "descriptor declares " + std::to_string(d.kind_count) + " kinds (at most " +
                     std::to_string(SH_MAX_DECLARED_KINDS) + ")");
  }
  if (d.kinds == nullptr) {
    refuse(path,
           "descriptor declares " + std::to_string(d.kind_count) + " kinds with a NULL kinds");
  }
  auto text = [&](const char* s, std::size_t i, const char* field) -> std::string {
    if (s == nullptr) {
      refuse(path, "kinds[" + std::to_string(i) + "]." + field + " is NULL");
    }
    std::string_view v(s, strnlen(s, 1024));
    if (v.size() == 1024) {
      refuse(path, "kinds[" + std::to_string(i) + "]." + field + " is longer than 1023 bytes");
    }
    return std::string(v);
  };
  for (uint32_t i = 0; i < d.kind_count; ++i) {
    const sh_object_kind& k = d.kinds[i];
    if (k.struct_size < sizeof(sh_object_kind)) {
      refuse(path, "kinds[" + std::to_string(i) + "].struct_size is " +
                       std::to_string(k.struct_size) + ", expected at least " +
                       std::to_string(sizeof(sh_object_kind)));
    }
    DeclaredKind dk;
    dk.group = text(k.group, i, "group");
    dk.version = text(k.version, i, "version");
    dk.resource = text(k.resource, i, "resource");
    dk.kind = text(k.kind, i, "kind");
    dk.namespaced = k.namespaced != 0;
    if ((k.verbs & ~SH_VERB_ALL) != 0) {
      refuse(path, "kinds[" + std::to_string(i) + "].verbs has unknown bits " +
                       std::to_string(k.verbs & ~SH_VERB_ALL));
    }
    dk.verbs = k.verbs;
    dk.labelSelector =
        k.label_selector != nullptr ? text(k.label_selector, i, "label_selector") : "";
    dk.fieldSelector =
        k.field_selector != nullptr ? text(k.field_selector, i, "field_selector") : "";
    for (const DeclaredKind& other : out) {
      if (other.group == dk.group && other.version == dk.version && other.resource == dk.resource &&
          other.labelSelector == dk.labelSelector && other.fieldSelector == dk.fieldSelector) {
        refuse(path, "kinds[" + std::to_string(i) + "] (" + dk.resource + "." + dk.version +
                         (dk.group.empty() ? "" : "." + dk.group) + ") is declared twice");
      }
    }
    out.push_back(std::move(dk));
  }
  return out;
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
  plugin->kinds = declaredKinds(file.path(), *descriptor);
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

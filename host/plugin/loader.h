// Loading one plugin shared object, refusing anything that does not keep the ABI contract.
//
// loadPlugin() goes through these steps and stops at the first failure with a LoadError
// whose message names the file, the item and what was expected versus found:
//
//   1. path      made absolute and canonical; never searched in system folders, never
//                decorated ("x" does not become "libx.so").
//   2. file      opened once (O_RDONLY|O_CLOEXEC|O_NOFOLLOW), fstat'ed, read whole and hashed
//                (SHA-256, libcrypto) through that descriptor; the trust rules of
//                permissions.h (owner, mode, symlinks out of the plugin directory); optional
//                sha256 pin.
//   3. ELF       read by our own parser, without running anything: an ET_DYN for the host's
//                machine, a valid .shmeta record of ABI major 1 and a minor the host knows
//                (LoadOptions::hostAbiMinor), and an exported schedhost_plugin_v1.
//   4. dlopen    of a sealed in-memory copy of exactly the bytes steps 2 and 3 checked (a
//                memfd written once and sealed against write, shrink and grow), through
//                /proc/self/fd/N, with RTLD_NOW | RTLD_LOCAL, through Boost.DLL's throwing
//                overload so dlerror's text survives. Never the path: nothing written to the
//                file afterwards (`cp` onto it, truncation, a partial write) reaches the pages
//                the process runs. Never RTLD_GLOBAL or RTLD_DEEPBIND.
//   5. entry     schedhost_plugin_v1() must return a descriptor of at least the v1 size, of
//                ABI major 1 and a minor <= the host's, with a name equal to the .shmeta
//                name, create, destroy and a vtable of at least the v1 size whose slots are
//                coherent.
//
// Residency: a library, once dlopened, stays loaded for the life of the process (the
// "keep resident" policy of docs/plugin-loading.md), whether or not it passed step 5.
// Libraries are keyed by the SHA-256 of their bytes: loading the same bytes again, from any
// path, reuses the resident library; a file whose content changed (in place or by rename) is
// other bytes, checked and loaded as a library of its own, beside the one still running.
// Every LoadedPlugin also holds its library, so a later unload policy can never pull code
// from under a live plugin.
//
// Each resident library keeps the descriptor of its sealed copy: glibc knows it by the name
// /proc/self/fd/N, and would hand the old library back for a later dlopen of that name if N
// were ever reused. So a process that loads plugins must not close descriptors it did not
// open (no closefrom() sweeps after startup).
//
// Thread-safe: loadPlugin may be called from several threads.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <schedhost/plugin.h>

#include "host/plugin/permissions.h"

namespace sh::plugin {

// Sizes of the ABI 1.0 structs. A plugin's struct_size is at least this; later minors only
// append fields, so these never change within major 1.
inline constexpr std::uint32_t kDescriptorV1Size =
    offsetof(sh_plugin_descriptor, vtable) + sizeof(sh_plugin_descriptor::vtable);
inline constexpr std::uint32_t kVtableV1Size =
    offsetof(sh_plugin_vtable, queueing_hint) + sizeof(sh_plugin_vtable::queueing_hint);

// Shared and immutable once loaded.
// A kind of object the plugin declares it reads (sh_object_kind, ABI 1.2), copied out of the
// descriptor. The loader checks only its shape; the framework checks the names when it
// registers the kind (connectors::checkKind).
struct DeclaredKind {
  std::string group, version, resource, kind;
  bool namespaced = false;
  uint32_t verbs = 0;  // SH_VERB_*
  std::string labelSelector, fieldSelector;
};

struct LoadedPlugin {
  std::string path;  // absolute, canonical
  std::string name, version;
  std::uint16_t abiMajor = 0, abiMinor = 0;
  std::uint32_t points = 0;  // SH_POINT_* derived from the non-NULL vtable slots
  std::uint32_t flags = 0;   // SH_PLUGIN_*
  // Both valid while `library` is alive. Never read a field past their struct_size.
  const sh_plugin_descriptor* descriptor = nullptr;
  const sh_plugin_vtable* vtable = nullptr;
  std::string sha256;             // hex digest of the file loaded
  std::shared_ptr<void> library;  // keeps the boost::dll::shared_library alive (type-erased)
  // Disagreements between .shmeta and the descriptor that do not prevent loading.
  std::vector<std::string> warnings;
  // The kinds of its descriptor (ABI >= 1.2; none before), in descriptor order: kind i of the
  // ABI's object services is kinds[i].
  std::vector<DeclaredKind> kinds;
};

struct LoadOptions {
  // 64 hex digits (either case) the file's SHA-256 must equal; "" means not pinned.
  std::string expectedSha256;
  // Refuse a file that the trust rules (permissions.h) find replaceable by others. On in every
  // command; only --insecure-plugin-permissions (disableTrustChecks) turns the checks off.
  // Tests of other things may set it false.
  bool requireSafePermissions = true;
  // The trust rules' plugin directory (canonical) and service user; see permissions.h.
  TrustRules trust;
  // The ABI minor the host claims: plugins built for a newer minor are refused. Always
  // SH_ABI_MINOR in the host; tests lower it to act as an older host.
  unsigned hostAbiMinor = SH_ABI_MINOR;
};

// What steps 1-3 tell about a plugin file: read from the file alone, nothing of it run.
struct PluginCandidate {
  std::string path;  // absolute, canonical
  // From .shmeta, which the loader later requires the descriptor's name to equal.
  std::string name, version;
  std::uint16_t abiMajor = 0, abiMinor = 0;
  std::uint32_t points = 0;  // SH_POINT_* the metadata declares
  std::uint32_t flags = 0;   // SH_PLUGIN_*
  std::string sha256;
  // The file's identity: the same file reached by two paths is one candidate.
  dev_t device = 0;
  ino_t inode = 0;
};

class LoadError : public std::runtime_error {
 public:
  LoadError(std::string path, const std::string& message)
      : std::runtime_error(message), path_(std::move(path)) {}

  // The plugin file, absolute (canonical when it exists).
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The libraries this process has dlopened (each stays resident; see above).
std::size_t residentLibraryCount();

// Steps 1-3 only: the checks that need no plugin code, nothing dlopened. Throws LoadError with
// the message loadPlugin would give.
PluginCandidate checkPlugin(const std::string& path, const LoadOptions& opts = {});

// Loads and checks the plugin at `path`; see the steps above. Throws LoadError.
std::shared_ptr<const LoadedPlugin> loadPlugin(const std::string& path,
                                               const LoadOptions& opts = {});

}  // namespace sh::plugin

// A minimal ELF64 little-endian reader for plugin files: it never loads or runs them.
//
// It answers what the loader must know before dlopen and what `schedhost plugin inspect`
// shows: that the file is a shared object (ET_DYN) for the host's machine, the plugin's
// .shmeta record (sh_plugin_metadata), its dynamic symbols, DT_NEEDED libraries, and the
// features that keep a library from ever being unloaded (PT_TLS, STB_GNU_UNIQUE symbols,
// DF_1_NODELETE).
//
// The input is untrusted: every offset and size is bounds-checked before it is read, and
// a malformed file gives an ElfError, never a crash. Messages quote the file:
//
//   [/path/x.so] is not an ELF file
//   [/path/x.so]: section headers out of bounds
//   [/path/x.so]: no .shmeta section (not built with the schedhost SDK)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <schedhost/plugin.h>

namespace sh::plugin {

class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The size of sh_plugin_metadata in ABI 1.0. Records may be larger (later minors append
// fields), never smaller.
inline constexpr std::uint32_t kMetadataV1Size =
    offsetof(sh_plugin_metadata, version) + sizeof(sh_plugin_metadata::version);

enum class SymbolBinding : std::uint8_t { kLocal, kGlobal, kWeak, kGnuUnique, kOther };
enum class SymbolVisibility : std::uint8_t { kDefault, kInternal, kHidden, kProtected };

struct ElfSymbol {
  std::string name;
  SymbolBinding binding = SymbolBinding::kOther;
  SymbolVisibility visibility = SymbolVisibility::kDefault;
  std::uint8_t type = 0;  // STT_*
  bool defined = false;   // false: an import (st_shndx == SHN_UNDEF)

  // Defined here and visible to other objects: what dlsym can find in this file.
  bool exported() const;
  // Code that can be called: STT_FUNC, or STT_GNU_IFUNC (resolved to a function at load).
  bool isFunction() const;
};

// "STT_OBJECT", "STT_FUNC", ..., or "type N".
std::string symbolTypeName(std::uint8_t type);

struct ElfImage {
  std::string path;  // only used in messages
  std::uint16_t machine = 0;
  std::optional<sh_plugin_metadata> metadata;  // validated; nullopt when there is no .shmeta
  std::vector<ElfSymbol> dynamicSymbols;       // .dynsym without the null symbol 0
  std::vector<std::string> needed;             // DT_NEEDED, in file order
  std::string soname;                          // DT_SONAME, "" when absent
  bool hasTls = false;                         // a PT_TLS segment
  bool noDelete = false;                       // DF_1_NODELETE

  // The metadata, or ElfError "[path]: no .shmeta section (not built with the schedhost SDK)".
  const sh_plugin_metadata& requireMetadata() const;
  // The defined, exported dynamic symbol `name`, or nullptr.
  const ElfSymbol* findExport(const std::string& name) const;
};

// Parses an in-memory copy of the file. `path` only names it in messages.
ElfImage parseElf(const std::string& path, std::span<const std::uint8_t> bytes);
// Reads and parses the file at `path`.
ElfImage readElf(const std::string& path);

// "x86_64", "aarch64", or "machine N".
std::string machineName(std::uint16_t machine);
// The e_machine of the running host.
std::uint16_t hostMachine();

}  // namespace sh::plugin

#include "host/plugin/elf_reader.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <optional>
#include <string_view>

#include "host/common/regular_file.h"

namespace sh::plugin {
namespace {

#if defined(__x86_64__)
constexpr std::uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr std::uint16_t kHostMachine = EM_AARCH64;
#else
#error "schedhost plugins are supported on x86_64 and aarch64 only"
#endif

static_assert(kMetadataV1Size == 120, "sh_plugin_metadata v1 layout changed");

constexpr std::string_view kMetaSection = SH_META_SECTION;
constexpr std::string_view kMetaMagic = SH_META_MAGIC;

// The file's bytes, with bounds-checked access. Nothing is read before contains() said yes.
class Input {
 public:
  Input(const std::string& path, std::span<const std::uint8_t> bytes)
      : path_(path), bytes_(bytes) {}

  std::uint64_t size() const { return bytes_.size(); }

  bool contains(std::uint64_t offset, std::uint64_t length) const {
    return offset <= bytes_.size() && length <= bytes_.size() - offset;
  }
  // `count` entries of `entrySize` bytes from `offset`, without overflowing.
  bool containsArray(std::uint64_t offset, std::uint64_t count, std::uint64_t entrySize) const {
    if (!contains(offset, 0)) {
      return false;
    }
    return entrySize == 0 || count <= (bytes_.size() - offset) / entrySize;
  }

  template <typename T>
  T read(std::uint64_t offset) const {
    // Invariant: callers check contains(offset, sizeof(T)) first.
    T out;
    std::memcpy(&out, bytes_.data() + offset, sizeof(T));
    return out;
  }

  std::span<const std::uint8_t> slice(std::uint64_t offset, std::uint64_t length) const {
    return bytes_.subspan(offset, length);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw ElfError("[" + path_ + "]: " + what);
  }

 private:
  const std::string& path_;
  std::span<const std::uint8_t> bytes_;
};

// The NUL-terminated string at `offset` of a string table, or nullopt when it runs off the end.
std::optional<std::string> stringAt(std::span<const std::uint8_t> table, std::uint64_t offset) {
  if (offset >= table.size()) {
    return std::nullopt;
  }
  const auto* begin = table.data() + offset;
  const void* nul = std::memchr(begin, '\0', table.size() - offset);
  if (nul == nullptr) {
    return std::nullopt;
  }
  auto length = static_cast<std::size_t>(static_cast<const std::uint8_t*>(nul) - begin);
  return std::string(reinterpret_cast<const char*>(begin), length);
}

class Parser {
 public:
  Parser(const std::string& path, std::span<const std::uint8_t> bytes) : in_(path, bytes) {
    image_.path = path;
  }

  ElfImage run() {
    readHeader();
    readSectionHeaders();
    readProgramHeaders();
    readMetadata();
    readDynamicSymbols();
    readDynamicSection();
    return std::move(image_);
  }

 private:
  void readHeader() {
    static constexpr std::uint8_t kMagic[4] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3};
    if (!in_.contains(0, sizeof(kMagic)) ||
        std::memcmp(in_.slice(0, sizeof(kMagic)).data(), kMagic, sizeof(kMagic)) != 0) {
      throw ElfError("[" + image_.path + "] is not an ELF file");
    }
    if (!in_.contains(0, EI_NIDENT)) {
      in_.fail("truncated ELF header");
    }
    auto ident = in_.slice(0, EI_NIDENT);
    if (ident[EI_CLASS] != ELFCLASS64) {
      in_.fail("not a 64-bit ELF file (class " + std::to_string(ident[EI_CLASS]) + ")");
    }
    if (ident[EI_DATA] != ELFDATA2LSB) {
      in_.fail("not a little-endian ELF file");
    }
    if (!in_.contains(0, sizeof(Elf64_Ehdr))) {
      in_.fail("truncated ELF header");
    }
    header_ = in_.read<Elf64_Ehdr>(0);
    if (header_.e_type != ET_DYN) {
      in_.fail("not a shared object (ELF type " + std::to_string(header_.e_type) + ", expected " +
               std::to_string(ET_DYN) + ")");
    }
    image_.machine = header_.e_machine;
    if (header_.e_machine != kHostMachine) {
      in_.fail("built for machine " + machineName(header_.e_machine) + "; host is " +
               machineName(kHostMachine));
    }
  }

  void readSectionHeaders() {
    if (header_.e_shoff == 0) {
      return;  // no section headers at all: nothing below can be found
    }
    if (header_.e_shentsize != sizeof(Elf64_Shdr)) {
      in_.fail("unexpected section header size " + std::to_string(header_.e_shentsize));
    }
    if (!in_.contains(header_.e_shoff, sizeof(Elf64_Shdr))) {
      in_.fail("section headers out of bounds");
    }
    // With 0xff00 or more sections the real count and string table index live in section 0.
    auto first = in_.read<Elf64_Shdr>(header_.e_shoff);
    std::uint64_t count = header_.e_shnum != 0 ? header_.e_shnum : first.sh_size;
    std::uint64_t nameIndex = header_.e_shstrndx != SHN_XINDEX ? header_.e_shstrndx : first.sh_link;
    if (!in_.containsArray(header_.e_shoff, count, sizeof(Elf64_Shdr))) {
      in_.fail("section headers out of bounds");
    }
    sections_.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      sections_.push_back(in_.read<Elf64_Shdr>(header_.e_shoff + i * sizeof(Elf64_Shdr)));
    }
    if (nameIndex == SHN_UNDEF) {
      return;  // no section names: sections can still be found by type
    }
    if (nameIndex >= sections_.size()) {
      in_.fail("section name table index " + std::to_string(nameIndex) + " out of bounds");
    }
    sectionNames_ = contents(sections_[nameIndex], "section name table");
  }

  void readProgramHeaders() {
    std::uint64_t count = header_.e_phnum;
    if (count == PN_XNUM && !sections_.empty()) {
      count = sections_[0].sh_info;
    }
    if (count == 0) {
      return;
    }
    if (header_.e_phentsize != sizeof(Elf64_Phdr)) {
      in_.fail("unexpected program header size " + std::to_string(header_.e_phentsize));
    }
    if (!in_.containsArray(header_.e_phoff, count, sizeof(Elf64_Phdr))) {
      in_.fail("program headers out of bounds");
    }
    for (std::uint64_t i = 0; i < count; ++i) {
      auto segment = in_.read<Elf64_Phdr>(header_.e_phoff + i * sizeof(Elf64_Phdr));
      if (segment.p_type == PT_TLS) {
        image_.hasTls = true;
      }
    }
  }

  void readMetadata() {
    const Elf64_Shdr* found = nullptr;
    for (const Elf64_Shdr& section : sections_) {
      if (sectionName(section) != kMetaSection) {
        continue;
      }
      if (found != nullptr) {
        in_.fail("more than one .shmeta section");
      }
      found = &section;
    }
    if (found == nullptr) {
      return;
    }
    if (found->sh_type == SHT_NOBITS) {
      in_.fail(".shmeta section has no contents");
    }
    auto bytes = contents(*found, ".shmeta section");
    constexpr std::size_t kPrefix =
        offsetof(sh_plugin_metadata, struct_size) + sizeof(std::uint32_t);
    if (bytes.size() < kPrefix) {
      in_.fail(".shmeta section too small: " + std::to_string(bytes.size()) +
               " bytes, expected at least " + std::to_string(kMetadataV1Size));
    }
    if (std::memcmp(bytes.data(), kMetaMagic.data(), kMetaMagic.size()) != 0) {
      in_.fail(".shmeta has a bad magic (expected \"" + std::string(kMetaMagic) + "\")");
    }
    std::uint32_t recordSize = 0;
    std::memcpy(&recordSize, bytes.data() + offsetof(sh_plugin_metadata, struct_size),
                sizeof(recordSize));
    if (recordSize < kMetadataV1Size) {
      in_.fail(".shmeta record too small: " + std::to_string(recordSize) +
               " bytes, expected at least " + std::to_string(kMetadataV1Size));
    }
    if (recordSize > bytes.size()) {
      in_.fail(".shmeta record claims " + std::to_string(recordSize) +
               " bytes but the section holds " + std::to_string(bytes.size()));
    }
    if (bytes.size() / recordSize >= 2) {
      in_.fail(".shmeta holds more than one record (SH_PLUGIN_METADATA used twice?)");
    }
    sh_plugin_metadata meta{};
    std::memcpy(&meta, bytes.data(), std::min<std::size_t>(recordSize, sizeof(meta)));
    if (std::memchr(meta.name, '\0', sizeof(meta.name)) == nullptr) {
      in_.fail(".shmeta name is not NUL-terminated");
    }
    if (std::memchr(meta.version, '\0', sizeof(meta.version)) == nullptr) {
      in_.fail(".shmeta version is not NUL-terminated");
    }
    image_.metadata = meta;
  }

  void readDynamicSymbols() {
    for (const Elf64_Shdr& section : sections_) {
      if (section.sh_type != SHT_DYNSYM) {
        continue;
      }
      if (section.sh_entsize != sizeof(Elf64_Sym)) {
        in_.fail("unexpected .dynsym entry size " + std::to_string(section.sh_entsize));
      }
      auto table = contents(section, ".dynsym");
      auto names = linkedStrings(section, ".dynsym");
      std::size_t count = table.size() / sizeof(Elf64_Sym);
      for (std::size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
        Elf64_Sym sym;
        std::memcpy(&sym, table.data() + i * sizeof(Elf64_Sym), sizeof(sym));
        auto name = stringAt(names, sym.st_name);
        if (!name) {
          in_.fail("dynamic symbol " + std::to_string(i) + " has its name out of bounds");
        }
        image_.dynamicSymbols.push_back(toSymbol(std::move(*name), sym));
      }
      return;  // there is at most one .dynsym
    }
  }

  void readDynamicSection() {
    for (const Elf64_Shdr& section : sections_) {
      if (section.sh_type != SHT_DYNAMIC) {
        continue;
      }
      auto table = contents(section, ".dynamic");
      auto names = linkedStrings(section, ".dynamic");
      std::size_t count = table.size() / sizeof(Elf64_Dyn);
      for (std::size_t i = 0; i < count; ++i) {
        Elf64_Dyn entry;
        std::memcpy(&entry, table.data() + i * sizeof(Elf64_Dyn), sizeof(entry));
        if (entry.d_tag == DT_NULL) {
          break;
        }
        if (entry.d_tag == DT_NEEDED || entry.d_tag == DT_SONAME) {
          auto name = stringAt(names, entry.d_un.d_val);
          if (!name) {
            in_.fail(".dynamic entry " + std::to_string(i) + " has its name out of bounds");
          }
          if (entry.d_tag == DT_NEEDED) {
            image_.needed.push_back(std::move(*name));
          } else {
            image_.soname = std::move(*name);
          }
        } else if (entry.d_tag == DT_FLAGS_1 && (entry.d_un.d_val & DF_1_NODELETE) != 0) {
          image_.noDelete = true;
        }
      }
      return;
    }
  }

  static ElfSymbol toSymbol(std::string name, const Elf64_Sym& sym) {
    ElfSymbol out;
    out.name = std::move(name);
    switch (ELF64_ST_BIND(sym.st_info)) {
      case STB_LOCAL:
        out.binding = SymbolBinding::kLocal;
        break;
      case STB_GLOBAL:
        out.binding = SymbolBinding::kGlobal;
        break;
      case STB_WEAK:
        out.binding = SymbolBinding::kWeak;
        break;
      case STB_GNU_UNIQUE:
        out.binding = SymbolBinding::kGnuUnique;
        break;
      default:
        out.binding = SymbolBinding::kOther;
        break;
    }
    switch (ELF64_ST_VISIBILITY(sym.st_other)) {
      case STV_INTERNAL:
        out.visibility = SymbolVisibility::kInternal;
        break;
      case STV_HIDDEN:
        out.visibility = SymbolVisibility::kHidden;
        break;
      case STV_PROTECTED:
        out.visibility = SymbolVisibility::kProtected;
        break;
      default:
        out.visibility = SymbolVisibility::kDefault;
        break;
    }
    out.type = ELF64_ST_TYPE(sym.st_info);
    out.defined = sym.st_shndx != SHN_UNDEF;
    return out;
  }

  // The bytes of a section, checked to lie inside the file. SHT_NOBITS has none.
  std::span<const std::uint8_t> contents(const Elf64_Shdr& section, const std::string& what) const {
    if (section.sh_type == SHT_NOBITS) {
      return {};
    }
    if (!in_.contains(section.sh_offset, section.sh_size)) {
      in_.fail(what + " out of bounds");
    }
    return in_.slice(section.sh_offset, section.sh_size);
  }

  // The string table a symbol or dynamic section names in its sh_link.
  std::span<const std::uint8_t> linkedStrings(const Elf64_Shdr& section,
                                              const std::string& what) const {
    if (section.sh_link >= sections_.size()) {
      in_.fail(what + " names string table " + std::to_string(section.sh_link) +
               ", which does not exist");
    }
    return contents(sections_[section.sh_link], what + " string table");
  }

  std::string_view sectionName(const Elf64_Shdr& section) const {
    if (section.sh_name >= sectionNames_.size()) {
      return {};
    }
    const auto* begin = reinterpret_cast<const char*>(sectionNames_.data()) + section.sh_name;
    std::size_t room = sectionNames_.size() - section.sh_name;
    const void* nul = std::memchr(begin, '\0', room);
    if (nul == nullptr) {
      return {};
    }
    return std::string_view(begin, static_cast<const char*>(nul) - begin);
  }

  Input in_;
  ElfImage image_;
  Elf64_Ehdr header_{};
  std::vector<Elf64_Shdr> sections_;
  std::span<const std::uint8_t> sectionNames_;
};

}  // namespace

bool ElfSymbol::exported() const {
  bool global = binding == SymbolBinding::kGlobal || binding == SymbolBinding::kWeak ||
                binding == SymbolBinding::kGnuUnique;
  bool visible =
      visibility == SymbolVisibility::kDefault || visibility == SymbolVisibility::kProtected;
  return defined && global && visible;
}

bool ElfSymbol::isFunction() const { return type == STT_FUNC || type == STT_GNU_IFUNC; }

std::string symbolTypeName(std::uint8_t type) {
  switch (type) {
    case STT_NOTYPE:
      return "STT_NOTYPE";
    case STT_OBJECT:
      return "STT_OBJECT";
    case STT_FUNC:
      return "STT_FUNC";
    case STT_SECTION:
      return "STT_SECTION";
    case STT_FILE:
      return "STT_FILE";
    case STT_COMMON:
      return "STT_COMMON";
    case STT_TLS:
      return "STT_TLS";
    case STT_GNU_IFUNC:
      return "STT_GNU_IFUNC";
    default:
      return "type " + std::to_string(type);
  }
}

const sh_plugin_metadata& ElfImage::requireMetadata() const {
  if (!metadata) {
    throw ElfError("[" + path + "]: no .shmeta section (not built with the schedhost SDK)");
  }
  return *metadata;
}

const ElfSymbol* ElfImage::findExport(const std::string& name) const {
  auto it = std::find_if(dynamicSymbols.begin(), dynamicSymbols.end(),
                         [&](const ElfSymbol& s) { return s.exported() && s.name == name; });
  return it == dynamicSymbols.end() ? nullptr : &*it;
}

ElfImage parseElf(const std::string& path, std::span<const std::uint8_t> bytes) {
  return Parser(path, bytes).run();
}

ElfImage readElf(const std::string& path) {
  std::string error;
  std::optional<std::string> text = readRegularFile(path, std::size_t{1} << 30, error);
  if (!text) {
    throw ElfError("[" + path + "]: " + error.substr(std::min(error.size(), path.size() + 2)));
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(text->data());
  return parseElf(path, std::span<const std::uint8_t>(data, text->size()));
}

std::string machineName(std::uint16_t machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86_64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "i386";
    case EM_ARM:
      return "arm";
    case EM_RISCV:
      return "riscv";
    case EM_PPC64:
      return "ppc64";
    case EM_S390:
      return "s390";
    default:
      return "machine " + std::to_string(machine);
  }
}

std::uint16_t hostMachine() { return kHostMachine; }

}  // namespace sh::plugin

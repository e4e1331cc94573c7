#include "host/plugin/elf_reader.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/plugin/test_support.h"

namespace sh::plugin::elf_reader_test {
namespace {

using ::sh::plugin::testing::fixture;
using ::sh::plugin::testing::readBytes;
using ::testing::HasSubstr;

// The name in-memory images are parsed under; it only appears in messages.
constexpr const char* kName = "/mem/x.so";

std::string parseError(const std::vector<std::uint8_t>& bytes) {
  try {
    parseElf(kName, bytes);
  } catch (const ElfError& e) {
    return e.what();
  }
  return "(parsed)";
}

template <typename T>
T get(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  T out;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return out;
}

template <typename T>
void put(std::vector<std::uint8_t>& bytes, std::size_t offset, const T& value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

// The file offset of the section header named `name` in a well-formed image.
std::size_t sectionHeaderOffset(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  auto ehdr = get<Elf64_Ehdr>(bytes, 0);
  auto names = get<Elf64_Shdr>(bytes, ehdr.e_shoff + ehdr.e_shstrndx * sizeof(Elf64_Shdr));
  for (std::size_t i = 0; i < ehdr.e_shnum; ++i) {
    std::size_t at = ehdr.e_shoff + i * sizeof(Elf64_Shdr);
    auto section = get<Elf64_Shdr>(bytes, at);
    const char* sectionName =
        reinterpret_cast<const char*>(bytes.data() + names.sh_offset + section.sh_name);
    if (name == sectionName) {
      return at;
    }
  }
  ADD_FAILURE() << "no section " << name;
  return 0;
}

std::size_t metadataOffset(const std::vector<std::uint8_t>& bytes) {
  return get<Elf64_Shdr>(bytes, sectionHeaderOffset(bytes, ".shmeta")).sh_offset;
}

class ElfReaderTest : public ::testing::Test {
 protected:
  std::vector<std::uint8_t> good_ = readBytes(fixture("libgood.so"));
};

TEST_F(ElfReaderTest, ReadsAPlugin) {
  ElfImage image = readElf(fixture("libgood.so"));
  EXPECT_EQ(image.machine, hostMachine());
  ASSERT_TRUE(image.metadata.has_value());
  const sh_plugin_metadata& meta = image.requireMetadata();
  EXPECT_STREQ(meta.name, "LoaderGood");
  EXPECT_STREQ(meta.version, "1.2.3");
  EXPECT_EQ(meta.struct_size, sizeof(sh_plugin_metadata));
  EXPECT_EQ(meta.abi_major, SH_ABI_MAJOR);
  EXPECT_EQ(meta.abi_minor, SH_ABI_MINOR);
  EXPECT_EQ(meta.points, SH_POINT_PRE_FILTER | SH_POINT_FILTER | SH_POINT_SCORE);
  EXPECT_EQ(meta.flags, 0u);
  EXPECT_FALSE(image.hasTls);
  EXPECT_FALSE(image.noDelete);

  const ElfSymbol* entry = image.findExport(SH_ENTRY_SYMBOL);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->type, STT_FUNC);
  EXPECT_EQ(entry->binding, SymbolBinding::kGlobal);
  std::vector<std::string> exports;
  for (const ElfSymbol& s : image.dynamicSymbols) {
    if (s.exported()) {
      exports.push_back(s.name);
    }
  }
  EXPECT_EQ(exports, std::vector<std::string>{SH_ENTRY_SYMBOL});
}

TEST_F(ElfReaderTest, SeesExportsUniqueSymbolsAndTls) {
  ElfImage image = readElf(fixture("libleaky.so"));
  EXPECT_TRUE(image.hasTls);
  EXPECT_NE(image.findExport("leaky_helper"), nullptr);
  auto unique =
      std::find_if(image.dynamicSymbols.begin(), image.dynamicSymbols.end(),
                   [](const ElfSymbol& s) { return s.binding == SymbolBinding::kGnuUnique; });
  ASSERT_NE(unique, image.dynamicSymbols.end());
  EXPECT_EQ(unique->name, "_ZZ12leakyCountervE7counter");
  EXPECT_TRUE(unique->defined);
}

TEST_F(ElfReaderTest, ListsNeededLibrariesAndImports) {
  // libstdc++ is a real, stripped system library: it needs libc and libm, and has no .shmeta.
  std::ifstream maps("/proc/self/maps");
  std::string line, libstdcxx;
  while (std::getline(maps, line)) {
    if (auto at = line.find('/');
        at != std::string::npos && line.find("libstdc++.so") != std::string::npos) {
      libstdcxx = line.substr(at);
      break;
    }
  }
  ASSERT_FALSE(libstdcxx.empty());
  ElfImage image = readElf(libstdcxx);
  EXPECT_THAT(image.needed, ::testing::Contains("libc.so.6"));
  EXPECT_THAT(image.soname, HasSubstr("libstdc++.so"));
  EXPECT_FALSE(image.metadata.has_value());
  EXPECT_TRUE(std::any_of(image.dynamicSymbols.begin(), image.dynamicSymbols.end(),
                          [](const ElfSymbol& s) { return !s.defined && s.name == "malloc"; }));
}

TEST_F(ElfReaderTest, ReportsMissingMetadata) {
  ElfImage image = readElf(fixture("libno_metadata.so"));
  EXPECT_FALSE(image.metadata.has_value());
  try {
    image.requireMetadata();
    FAIL() << "expected ElfError";
  } catch (const ElfError& e) {
    EXPECT_EQ(std::string(e.what()),
              "[" + fixture("libno_metadata.so") +
                  "]: no .shmeta section (not built with the schedhost SDK)");
  }
}

TEST_F(ElfReaderTest, RejectsATextFile) {
  try {
    readElf(fixture("not_elf.so"));
    FAIL() << "expected ElfError";
  } catch (const ElfError& e) {
    EXPECT_EQ(std::string(e.what()), "[" + fixture("not_elf.so") + "] is not an ELF file");
  }
}

TEST_F(ElfReaderTest, RejectsRandomBytes) {
  std::mt19937 rng(20240601);
  for (std::size_t size : {0u, 1u, 3u, 4u, 16u, 63u, 64u, 65u, 1000u, 70000u}) {
    std::vector<std::uint8_t> bytes(size);
    for (auto& b : bytes) {
      b = static_cast<std::uint8_t>(rng());
    }
    EXPECT_EQ(parseError(bytes), std::string("[") + kName + "] is not an ELF file");
    // The same garbage behind a valid ELF magic: refused, never read out of bounds.
    if (size >= 4) {
      std::memcpy(bytes.data(), ELFMAG, SELFMAG);
      EXPECT_NE(parseError(bytes), "(parsed)");
    }
  }
}

TEST_F(ElfReaderTest, RejectsEveryTruncation) {
  ASSERT_GT(good_.size(), sizeof(Elf64_Ehdr));
  EXPECT_EQ(parseError(good_), "(parsed)");
  for (std::size_t length = 0; length < good_.size(); ++length) {
    std::vector<std::uint8_t> cut(good_.begin(), good_.begin() + length);
    std::string error = parseError(cut);
    ASSERT_NE(error, "(parsed)") << "length " << length;
    if (length < 4) {
      ASSERT_EQ(error, std::string("[") + kName + "] is not an ELF file");
    } else if (length < sizeof(Elf64_Ehdr)) {
      ASSERT_EQ(error, std::string("[") + kName + "]: truncated ELF header");
    }
  }
  std::vector<std::uint8_t> cut(good_.begin(), good_.begin() + good_.size() - 1);
  EXPECT_EQ(parseError(cut), std::string("[") + kName + "]: section headers out of bounds");
}

TEST_F(ElfReaderTest, SurvivesRandomCorruption) {
  // Flip bytes in the headers and anywhere else; every outcome is a parse or an ElfError.
  auto header = get<Elf64_Ehdr>(good_, 0);
  std::mt19937 rng(7);
  int parsed = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<std::uint8_t> bytes = good_;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) {
      std::size_t at;
      switch (rng() % 3) {
        case 0:
          at = rng() % sizeof(Elf64_Ehdr);
          break;
        case 1:
          at = header.e_shoff + rng() % (header.e_shnum * sizeof(Elf64_Shdr));
          break;
        default:
          at = rng() % bytes.size();
          break;
      }
      bytes[at] = static_cast<std::uint8_t>(rng());
    }
    parsed += parseError(bytes) == "(parsed)" ? 1 : 0;
  }
  EXPECT_GT(parsed, 0);  // most flips land in bytes the reader does not need
}

TEST_F(ElfReaderTest, RejectsWrongKindsOfElf) {
  auto patched = [&](auto change) {
    std::vector<std::uint8_t> bytes = good_;
    auto ehdr = get<Elf64_Ehdr>(bytes, 0);
    change(ehdr);
    put(bytes, 0, ehdr);
    return parseError(bytes);
  };
  const std::string prefix = std::string("[") + kName + "]: ";
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_type = ET_REL; }),
            prefix + "not a shared object (ELF type 1, expected 3)");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_type = ET_EXEC; }),
            prefix + "not a shared object (ELF type 2, expected 3)");
  std::uint16_t other = hostMachine() == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
  EXPECT_EQ(patched([&](Elf64_Ehdr& h) { h.e_machine = other; }),
            prefix + "built for machine " + machineName(other) + "; host is " +
                machineName(hostMachine()));
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_ident[EI_CLASS] = ELFCLASS32; }),
            prefix + "not a 64-bit ELF file (class 1)");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_ident[EI_DATA] = ELFDATA2MSB; }),
            prefix + "not a little-endian ELF file");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_shoff = ~std::uint64_t{0} - 8; }),
            prefix + "section headers out of bounds");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_shnum = 0xfff0; }),
            prefix + "section headers out of bounds");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_shentsize = 32; }),
            prefix + "unexpected section header size 32");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_shstrndx = 0xfeff; }),
            prefix + "section name table index 65279 out of bounds");
  EXPECT_EQ(patched([](Elf64_Ehdr& h) { h.e_phoff = ~std::uint64_t{0} - 8; }),
            prefix + "program headers out of bounds");
}

TEST_F(ElfReaderTest, RejectsBadMetadata) {
  const std::string prefix = std::string("[") + kName + "]: ";
  const std::size_t meta = metadataOffset(good_);
  auto patched = [&](auto change) {
    std::vector<std::uint8_t> bytes = good_;
    change(bytes);
    return parseError(bytes);
  };
  EXPECT_EQ(patched([&](auto& b) { b[meta + 7] = '2'; }),
            prefix + ".shmeta has a bad magic (expected \"SHMETA01\")");
  EXPECT_EQ(patched([&](auto& b) {
              put<std::uint32_t>(b, meta + offsetof(sh_plugin_metadata, struct_size), 8);
            }),
            prefix + ".shmeta record too small: 8 bytes, expected at least 120");
  EXPECT_EQ(patched([&](auto& b) {
              put<std::uint32_t>(b, meta + offsetof(sh_plugin_metadata, struct_size), 4096);
            }),
            prefix + ".shmeta record claims 4096 bytes but the section holds 120");
  EXPECT_EQ(patched([&](auto& b) {
              std::memset(b.data() + meta + offsetof(sh_plugin_metadata, name), 'A', 64);
            }),
            prefix + ".shmeta name is not NUL-terminated");
  EXPECT_EQ(patched([&](auto& b) {
              std::memset(b.data() + meta + offsetof(sh_plugin_metadata, version), 'A', 32);
            }),
            prefix + ".shmeta version is not NUL-terminated");

  const std::size_t header = sectionHeaderOffset(good_, ".shmeta");
  auto section = get<Elf64_Shdr>(good_, header);
  EXPECT_EQ(patched([&](auto& b) {
              Elf64_Shdr s = section;
              s.sh_size = 240;
              put(b, header, s);
            }),
            prefix + ".shmeta holds more than one record (SH_PLUGIN_METADATA used twice?)");
  EXPECT_EQ(patched([&](auto& b) {
              Elf64_Shdr s = section;
              s.sh_size = 10;
              put(b, header, s);
            }),
            prefix + ".shmeta section too small: 10 bytes, expected at least 120");
  EXPECT_EQ(patched([&](auto& b) {
              Elf64_Shdr s = section;
              s.sh_offset = b.size() - 16;
              put(b, header, s);
            }),
            prefix + ".shmeta section out of bounds");
  EXPECT_EQ(patched([&](auto& b) {
              Elf64_Shdr s = section;
              s.sh_type = SHT_NOBITS;
              put(b, header, s);
            }),
            prefix + ".shmeta section has no contents");
}

TEST_F(ElfReaderTest, RejectsBadSymbolTables) {
  const std::string prefix = std::string("[") + kName + "]: ";
  const std::size_t header = sectionHeaderOffset(good_, ".dynsym");
  const auto dynsym = get<Elf64_Shdr>(good_, header);
  {
    std::vector<std::uint8_t> bytes = good_;
    Elf64_Shdr s = dynsym;
    s.sh_link = 999;
    put(bytes, header, s);
    EXPECT_EQ(parseError(bytes), prefix + ".dynsym names string table 999, which does not exist");
  }
  {
    std::vector<std::uint8_t> bytes = good_;
    std::size_t symbol1 = dynsym.sh_offset + sizeof(Elf64_Sym);
    auto sym = get<Elf64_Sym>(bytes, symbol1);
    sym.st_name = 0xfffffff0;
    put(bytes, symbol1, sym);
    EXPECT_EQ(parseError(bytes), prefix + "dynamic symbol 1 has its name out of bounds");
  }
  {
    std::vector<std::uint8_t> bytes = good_;
    Elf64_Shdr s = dynsym;
    s.sh_entsize = 7;
    put(bytes, header, s);
    EXPECT_EQ(parseError(bytes), prefix + "unexpected .dynsym entry size 7");
  }
  {
    std::vector<std::uint8_t> bytes = good_;
    Elf64_Shdr s = dynsym;
    s.sh_size = ~std::uint64_t{0} - 100;
    put(bytes, header, s);
    EXPECT_EQ(parseError(bytes), prefix + ".dynsym out of bounds");
  }
}

}  // namespace
}  // namespace sh::plugin::elf_reader_test

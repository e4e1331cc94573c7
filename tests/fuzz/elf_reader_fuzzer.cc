// The ELF reader behind the plugin loader's checks and `plugin inspect` (plugin/elf_reader.cc):
// any bytes as a plugin file. A malformed file is an ElfError naming the file, never a crash;
// a file read without one has every symbol, library and the metadata readable.
#include <string>

#include "host/plugin/elf_reader.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

constexpr char kPath[] = "/fuzz/plugin.so";

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::plugin::ElfImage image;
  try {
    image = sh::plugin::parseElf(kPath, std::span<const std::uint8_t>(data, size));
  } catch (const sh::plugin::ElfError& e) {
    sh::fuzz::check(std::string(e.what()).find(kPath) != std::string::npos,
                    "an ELF error names the file");
    return 0;
  }
  std::size_t sum = image.soname.size() + sh::plugin::machineName(image.machine).size();
  for (const sh::plugin::ElfSymbol& symbol : image.dynamicSymbols) {
    sum += symbol.name.size() + static_cast<std::size_t>(symbol.exported());
  }
  for (const std::string& library : image.needed) {
    sum += library.size();
  }
  if (image.metadata) {
    sum += image.requireMetadata().struct_size;
  }
  if (const sh::plugin::ElfSymbol* entry = image.findExport(SH_ENTRY_SYMBOL); entry != nullptr) {
    sh::fuzz::check(entry->defined && entry->exported(), "a found export is defined and exported");
  }
  sh::fuzz::keep(sum);
  return 0;
}

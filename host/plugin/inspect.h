// `schedhost plugin inspect`: what a plugin file is and whether the host would load it,
// read from the file alone. Nothing is dlopened and none of the plugin's code runs.
//
// A report carries the .shmeta metadata, the file's size and sha256, its DT_NEEDED
// libraries and exports, and two lists of lowercase sentences:
//   errors    why loadPlugin would refuse the file, as far as the file tells (no .shmeta,
//             ABI mismatch, no entry point); the descriptor checks need the code to run.
//   warnings  what does not stop loading but should be fixed: exports besides the entry
//             point, STB_GNU_UNIQUE symbols, thread-local storage, DF_1_NODELETE (all of
//             which keep a library from unloading), and the owner or mode rule of
//             permissions.h the file or a directory above it breaks, which the loader refuses
//             ("loading would be refused: the file is world-writable (mode 0666); ...").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

namespace sh::plugin {

class InspectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InspectReport {
  std::string path;  // absolute, canonical
  std::uint64_t size = 0;
  std::string sha256;
  std::string machine;

  bool hasMetadata = false;  // the fields below come from .shmeta
  std::string name, version;
  std::uint16_t abiMajor = 0, abiMinor = 0;
  std::uint32_t points = 0;  // SH_POINT_*
  std::uint32_t flags = 0;   // SH_PLUGIN_*

  std::string soname;
  std::vector<std::string> needed;   // DT_NEEDED, in file order
  std::vector<std::string> exports;  // defined, exported dynamic symbols, sorted
  bool hasTls = false;
  bool noDelete = false;

  std::vector<std::string> warnings;
  std::vector<std::string> errors;

  bool loadable() const { return errors.empty(); }
};

// Throws InspectError when the file cannot be read or is not an ELF shared object for this
// host, e.g. "[/path/x.so] is not an ELF file".
InspectReport inspect(const std::string& path);

// A human-readable block, one "key  value" per line, then "warning: " and "error: " lines.
std::string toText(const InspectReport& report);
// {"path", "size", "sha256", "machine", "metadata": {...} or null, "soname", "needed",
//  "exports", "tls", "noDelete", "loadable", "warnings", "errors"}
boost::json::value toJson(const InspectReport& report);

}  // namespace sh::plugin

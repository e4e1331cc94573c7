// Runs a fuzz harness once over every file it is given (files, or directories read one level
// deep in name order), without libFuzzer: the GCC builds register each harness this way over
// its corpus, so every input that once crashed stays a regression test.
//
//   <harness>_replay CORPUS_DIR_OR_FILE...
//
// Exits 0 after the last input; a crash or a broken invariant aborts the process. No input at
// all is an error, so a test pointed at a wrong directory cannot pass.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_support.h"

namespace {

std::vector<std::filesystem::path> inputsOf(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(arg)) {
    for (const auto& entry : std::filesystem::directory_iterator(arg)) {
      if (entry.is_regular_file()) {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
  } else {
    files.push_back(arg);
  }
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    for (const std::filesystem::path& file : inputsOf(argv[i])) {
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "replay: cannot read " << file << "\n";
        return 1;
      }
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>()};
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++runs;
    }
  }
  if (runs == 0) {
    std::cerr << "replay: no inputs\n";
    return 1;
  }
  std::cout << "replay: " << runs << " inputs\n";
  return 0;
}

// kubeconfig files (kube/rest_config.cc, through yaml-cpp), given as --kubeconfig. The input is
// written to a file of its own in a fresh directory; the environment is empty, so nothing
// else is read but files the kubeconfig names next to it. A refused file has a message
// naming it; an accepted one has a server URL with a scheme and no trailing slash. The same
// bytes also go through the base64 decoder that reads the *-data fields.
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include <stdlib.h>  // mkdtemp

#include "host/connectors/kube/rest_config.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

// A directory of this process's own, removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    const char* tmp = ::getenv("TMPDIR");
    dir_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") +
           "/schedhost-kubeconfig-fuzz-XXXXXX";
    sh::fuzz::check(::mkdtemp(dir_.data()) != nullptr, "a scratch directory");
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const char* name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

const std::string& kubeconfigPath() {
  static const ScratchDir kDir;
  static const std::string kPath = kDir.file("config");
  return kPath;
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = sh::fuzz::asText(data, size);
  std::string decoded;
  (void)sh::kube::decodeBase64(text, decoded);

  const std::string& path = kubeconfigPath();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  sh::kube::RestConfigOptions options;
  options.kubeconfig = path;
  options.getenv = [](const char*) -> const char* { return nullptr; };
  options.home = "/nonexistent";
  options.serviceAccountDir = "/nonexistent";
  std::string error;
  const std::optional<sh::kube::RestConfig> config = sh::kube::loadRestConfig(options, error);
  if (!config) {
    sh::fuzz::check(error.find(path) != std::string::npos, "a refusal names the kubeconfig");
    return 0;
  }
  sh::fuzz::check(config->server.starts_with("https://") || config->server.starts_with("http://"),
                  "the server has a scheme");
  sh::fuzz::check(!config->server.ends_with('/'), "the server has no trailing slash");
  return 0;
}

#include "host/cli/plugin_new.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <vector>

namespace sh::cli {
namespace {

namespace fs = std::filesystem;

// The plugin name turns into a label key's name part in the skeletons (example.com/<kebab>),
// which Kubernetes caps at 63 characters.
constexpr size_t kMaxNameLength = 63;

bool isUpper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }
bool isLower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Splits CamelCase into lower-case words joined by `sep`: a word starts at an upper-case
// letter that follows a lower-case letter or digit, or that ends a run of capitals
// (HTTPProbe: HTTP, Probe).
std::string joinWords(std::string_view name, char sep) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (i > 0 && isUpper(c)) {
      char prev = name[i - 1];
      bool nextLower = i + 1 < name.size() && isLower(name[i + 1]);
      if (isLower(prev) || isDigit(prev) || (isUpper(prev) && nextLower)) {
        out += sep;
      }
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
    text.replace(at, from.size(), to);
    at += to.size();
  }
  return text;
}

struct Placeholders {
  std::string name, snake, kebab, sdkVersion;
  std::string apply(std::string text) const {
    text = replaceAll(std::move(text), "@NAME@", name);
    text = replaceAll(std::move(text), "@SNAKE@", snake);
    text = replaceAll(std::move(text), "@KEBAB@", kebab);
    return replaceAll(std::move(text), "@SDK_VERSION@", sdkVersion);
  }
};

std::vector<const TemplateFile*> templatesOf(std::string_view lang) {
  std::vector<const TemplateFile*> out;
  for (size_t i = 0; i < kPluginTemplateCount; ++i) {
    if (lang == kPluginTemplates[i].lang) {
      out.push_back(&kPluginTemplates[i]);
    }
  }
  return out;
}

// How to build and test the skeleton just written, per language.
// The scenario also needs the default plugins (PrioritySort, DefaultBinder): the host's plugin
// directory goes beside the skeleton's.
std::string nextSteps(std::string_view lang, const fs::path& dir) {
  const std::string defaults =
      " --plugin-dir \"$(pkg-config --variable=pluginsdir schedhost-sdk)\"\n";
  std::string out = "  cd " + dir.string() + "\n";
  if (lang == "cpp") {
    return out +
           "  cmake -S . -B build && cmake --build build\n  schedhost test test/ --plugin-dir "
           "build" +
           defaults;
  }
  if (lang == "c") {
    return out + "  make\n  schedhost test test/ --plugin-dir ." + defaults;
  }
  return out + "  cargo build --release\n  schedhost test test/ --plugin-dir target/release" +
         defaults;
}

}  // namespace

std::string checkPluginName(std::string_view name) {
  if (name.empty()) {
    return "is empty";
  }
  if (!isUpper(name.front())) {
    return "must start with an upper-case letter (e.g. MyFilter)";
  }
  for (char c : name) {
    if (!isUpper(c) && !isLower(c) && !isDigit(c)) {
      return std::string("holds '") + c + "': only letters and digits, CamelCase (e.g. MyFilter)";
    }
  }
  if (name.size() > kMaxNameLength) {
    return "is longer than " + std::to_string(kMaxNameLength) + " characters";
  }
  return {};
}

std::string snakeCase(std::string_view name) { return joinWords(name, '_'); }

std::string kebabCase(std::string_view name) { return joinWords(name, '-'); }

int runPluginNew(const PluginNewArgs& args) {
  const std::string prog = "schedhost plugin new";
  if (std::string why = checkPluginName(args.name); !why.empty()) {
    std::cerr << prog << ": plugin name \"" << args.name << "\" " << why << "\n";
    return 1;
  }
  std::vector<const TemplateFile*> files = templatesOf(args.lang);
  if (files.empty()) {
    std::cerr << prog << ": --lang " << args.lang << " is unavailable: this schedhost was built "
              << "without a " << args.lang << " skeleton (sdk/templates/" << args.lang << "/)\n";
    return 1;
  }
  Placeholders ph{args.name, snakeCase(args.name), kebabCase(args.name), SCHEDHOST_SDK_VERSION};
  fs::path dir = args.dir.empty() ? fs::path(ph.kebab) : fs::path(args.dir);

  std::error_code ec;
  fs::file_status st = fs::status(dir, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) {
      std::cerr << prog << ": " << dir.string() << " exists and is not a directory\n";
      return 1;
    }
    if (!fs::is_empty(dir, ec) || ec) {
      std::cerr << prog << ": " << dir.string()
                << " exists and is not empty; choose a new or empty directory with --dir\n";
      return 1;
    }
  }

  std::vector<std::string> written;
  for (const TemplateFile* file : files) {
    fs::path out = dir / ph.apply(file->path);
    std::string text = ph.apply(std::string(reinterpret_cast<const char*>(file->data), file->size));
    fs::create_directories(out.parent_path(), ec);
    if (ec) {
      std::cerr << prog << ": " << out.parent_path().string()
                << ": cannot create directory: " << ec.message() << "\n";
      return 2;
    }
    std::ofstream stream(out, std::ios::binary | std::ios::trunc);
    stream.write(text.data(), static_cast<std::streamsize>(text.size()));
    stream.close();
    if (!stream) {
      std::cerr << prog << ": " << out.string() << ": cannot write\n";
      return 2;
    }
    written.push_back(out.string());
  }
  std::cout << "Wrote plugin " << ph.name << " (" << args.lang << ") in " << dir.string() << ":\n";
  for (const std::string& w : written) {
    std::cout << "  " << w << "\n";
  }
  std::cout << "Next:\n" << nextSteps(args.lang, dir);
  return 0;
}

}  // namespace sh::cli

// schedhost test: runs scenario files that carry an "expect" object and reports, file by
// file, where the output disagrees (docs/scenario-format.md, "Expectations").
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <boost/json.hpp>

#include "host/cli/commands.h"
#include "host/cli/json_file.h"
#include "host/cli/json_print.h"
#include "host/common/regular_file.h"
#include "host/evaluate/evaluate.h"
#include "host/evaluate/expectations.h"
#include "host/plugin/registry.h"

namespace sh::cli {
namespace {

namespace fs = std::filesystem;

// The outcome of one scenario file (or of a path that yielded none).
struct FileOutcome {
  std::string file;
  std::string error;  // the file could not be checked at all
  evaluate::ExpectationCheck check;

  bool passed() const { return error.empty() && check.passed(); }
};

// The scenario files named by `paths`: files as given, directories searched recursively for
// *.json, each directory's files sorted. A path that is neither, or a directory without any
// scenario, is reported as an error rather than silently testing nothing.
std::vector<std::string> collectFiles(const std::vector<std::string>& paths,
                                      std::vector<FileOutcome>& problems) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (path == "-" || fs::is_regular_file(path, ec)) {
      files.push_back(path);
      continue;
    }
    if (!fs::is_directory(path, ec)) {
      struct stat st {};
      if (::stat(path.c_str(), &st) == 0) {
        // A FIFO, a device, a socket: never read (a FIFO would block, a device never end).
        problems.push_back({path, "not a regular file (" + fileKindName(st.st_mode) + ")", {}});
      } else {
        problems.push_back({path, "no such file or directory", {}});
      }
      continue;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec) && it->path().extension() == ".json") {
        found.push_back(it->path().string());
      }
    }
    if (ec) {
      problems.push_back({path, "cannot read the directory: " + ec.message(), {}});
      continue;
    }
    if (found.empty()) {
      problems.push_back({path, "no *.json scenario files in this directory", {}});
      continue;
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

FileOutcome runFile(const std::string& file, plugin::PluginRegistry& registry, uint64_t seed) {
  FileOutcome outcome{file, "", {}};
  std::string error;
  auto doc = readJsonFile(file, error);
  if (!doc) {
    outcome.error = error;  // already "FILE:LINE:COLUMN: invalid JSON: ..."
    return outcome;
  }
  const boost::json::value* expect =
      doc->is_object() ? doc->get_object().if_contains("expect") : nullptr;
  if (expect == nullptr) {
    outcome.error = file +
                    ": no \"expect\" object: nothing to check (add one; an explanation without "
                    "expectations is `schedhost evaluate`'s job)";
    return outcome;
  }
  auto scenario = evaluate::parseScenario(*doc, error);
  if (!scenario) {
    outcome.error = file + ": " + error;
    return outcome;
  }
  evaluate::Options options;
  options.seed = seed;
  options.registry = &registry;
  try {
    boost::json::value output = evaluate::toJson(evaluate::run(*scenario, options));
    outcome.check = evaluate::checkExpectations(*expect, output);
  } catch (const std::exception& e) {
    outcome.error = file + ": " + e.what();
    // Configuration diagnostics end with a newline; the report keeps one line per error.
    while (!outcome.error.empty() && outcome.error.back() == '\n') {
      outcome.error.pop_back();
    }
  }
  return outcome;
}

void printText(const FileOutcome& outcome) {
  if (!outcome.error.empty()) {
    // Errors that come from the JSON reader already begin with the file name.
    const std::string& e = outcome.error;
    bool named = e.rfind(outcome.file, 0) == 0;
    std::cout << "ERROR " << (named ? e : outcome.file + ": " + e) << "\n";
    return;
  }
  if (outcome.check.passed()) {
    std::cout << "ok " << outcome.file << "\n";
    return;
  }
  std::cout << "FAIL " << outcome.file << "\n";
  for (const std::string& e : outcome.check.errors) {
    std::cout << "  " << e << "\n";
  }
  for (const evaluate::Mismatch& m : outcome.check.mismatches) {
    std::cout << "  " << evaluate::describe(m) << "\n";
  }
}

boost::json::object toJson(const FileOutcome& outcome) {
  boost::json::object o;
  o["file"] = outcome.file;
  o["result"] = !outcome.error.empty() ? "error" : outcome.check.passed() ? "ok" : "fail";
  if (!outcome.error.empty()) {
    o["error"] = outcome.error;
  }
  boost::json::array errors;
  for (const std::string& e : outcome.check.errors) {
    errors.emplace_back(e);
  }
  o["expectErrors"] = std::move(errors);
  boost::json::array mismatches;
  for (const evaluate::Mismatch& m : outcome.check.mismatches) {
    boost::json::object j;
    j["path"] = m.path;
    j["expected"] = m.expected;
    j["actual"] = m.actual ? *m.actual : nullptr;
    j["present"] = m.actual.has_value();
    if (!m.note.empty()) {
      j["note"] = m.note;
    }
    mismatches.push_back(std::move(j));
  }
  o["mismatches"] = std::move(mismatches);
  return o;
}

}  // namespace

int runTest(const TestArgs& args) {
  std::vector<FileOutcome> outcomes;
  std::vector<std::string> files = collectFiles(args.paths, outcomes);

  // Plugins are indexed once for every scenario, and each is loaded (dlopened) the first
  // time a scenario uses it: a plugin no scenario uses never runs.
  plugin::PluginRegistry registry;
  std::vector<plugin::ScanError> loadErrors;
  registry.indexDirs(args.pluginDirs, loadErrors);
  // A plugin that failed to index shows up later as "does not exist"; say why now.
  for (const plugin::ScanError& e : loadErrors) {
    std::cerr << "schedhost test: " << e.message << "\n";
  }
  for (const std::string& file : files) {
    outcomes.push_back(runFile(file, registry, args.seed));
  }

  std::size_t passed = 0;
  for (const FileOutcome& o : outcomes) {
    passed += o.passed() ? 1 : 0;
  }
  std::size_t failed = outcomes.size() - passed;
  if (args.json) {
    boost::json::array results;
    for (const FileOutcome& o : outcomes) {
      results.push_back(toJson(o));
    }
    boost::json::object out{
        {"results", std::move(results)}, {"passed", passed}, {"failed", failed}};
    printPretty(std::cout, out);
    std::cout << "\n";
  } else {
    for (const FileOutcome& o : outcomes) {
      printText(o);
    }
    std::cout << passed << " passed, " << failed << " failed\n";
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace sh::cli

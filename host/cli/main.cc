// schedhost: a Kubernetes-compatible pod scheduler whose plugins are shared objects.
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "host/cli/commands.h"
#include "host/cli/plugin_dirs.h"

int main(int argc, char** argv) {
  CLI::App app{"schedhost: a Kubernetes-compatible pod scheduler with binary plugins"};
  app.require_subcommand(1);
  std::string logLevel = "warn";
  app.add_option("--log-level", logLevel, "trace, debug, info, warn, error")->capture_default_str();

  sh::cli::EvaluateArgs ev;
  auto* evaluate = app.add_subcommand("evaluate", "explain one scheduling decision (scenario file)");
  evaluate->add_option("--scenario", ev.scenario, "scenario JSON file ('-' for stdin)")->required();
  evaluate->add_option("--plugin-dir", ev.pluginDirs, "where plugin .so files are found");
  evaluate->add_option("--seed", ev.seed, "seed for tie-breaking")->capture_default_str();
  evaluate->add_flag("--compact", ev.compact, "one-line JSON");

  auto* plugin = app.add_subcommand("plugin", "inspect and list plugins");
  plugin->require_subcommand(1);
  std::string inspectFile;
  bool inspectJson = false;
  auto* inspect = plugin->add_subcommand("inspect", "print a plugin's metadata without running it");
  inspect->add_option("FILE", inspectFile, "plugin .so")->required();
  inspect->add_flag("--json", inspectJson, "JSON output");
  std::vector<std::string> listDirs;
  bool listJson = false;
  auto* list = plugin->add_subcommand("list", "list the plugins found in the plugin dirs");
  list->add_option("--plugin-dir", listDirs, "where plugin .so files are found");
  list->add_flag("--json", listJson, "JSON output");

  sh::cli::ProfileCheckArgs pc;
  auto* profile = app.add_subcommand("profile", "validate profiles");
  profile->require_subcommand(1);
  auto* check = profile->add_subcommand(
      "check", "validate configuration or profile files and print the effective plugins");
  check->add_option("FILE", pc.files, "schedhost.toml or profile .toml files")->required();
  check->add_option("--plugin-dir", pc.pluginDirs, "where plugin .so files are found");
  check->add_flag("--json", pc.json, "JSON output");

  CLI11_PARSE(app, argc, argv);
  // Logs go to stderr so that JSON on stdout stays clean.
  spdlog::set_default_logger(spdlog::stderr_color_mt("schedhost"));
  spdlog::set_level(spdlog::level::from_str(logLevel));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");

  auto dirsOr = [](std::vector<std::string> dirs) {
    return dirs.empty() ? sh::cli::defaultPluginDirs() : dirs;
  };
  if (evaluate->parsed()) {
    ev.pluginDirs = dirsOr(ev.pluginDirs);
    return sh::cli::runEvaluate(ev);
  }
  if (inspect->parsed()) {
    return sh::cli::runPluginInspect(inspectFile, inspectJson);
  }
  if (list->parsed()) {
    return sh::cli::runPluginList(dirsOr(listDirs), listJson);
  }
  if (check->parsed()) {
    pc.pluginDirs = dirsOr(pc.pluginDirs);
    return sh::cli::runProfileCheck(pc);
  }
  return 1;
}

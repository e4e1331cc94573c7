#include "host/cli/upstream_flags.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace sh::cli {

namespace {

struct RemovedFlag {
  std::string_view name;
  std::string_view instead;
};

// Flags kube-scheduler once had and v1.36 refuses, with what an operator writes instead.
constexpr std::array kRemovedFlags = {
    // klog's flags, removed in Kubernetes v1.26: output always goes to stderr.
    RemovedFlag{"add-dir-header", "drop it: klog's flags were removed in Kubernetes v1.26"},
    RemovedFlag{"alsologtostderr", "drop it: logs always go to stderr (removed in v1.26)"},
    RemovedFlag{"log-backtrace-at", "drop it: klog's flags were removed in Kubernetes v1.26"},
    RemovedFlag{"log-dir", "redirect stderr instead: logs always go there (removed in v1.26)"},
    RemovedFlag{"log-file", "redirect stderr instead: logs always go there (removed in v1.26)"},
    RemovedFlag{"log-file-max-size", "drop it: klog's flags were removed in Kubernetes v1.26"},
    RemovedFlag{"logtostderr", "drop it: logs always go to stderr (removed in v1.26)"},
    RemovedFlag{"one-output", "drop it: klog's flags were removed in Kubernetes v1.26"},
    RemovedFlag{"skip-headers", "drop it: klog's flags were removed in Kubernetes v1.26"},
    RemovedFlag{"skip-log-headers", "drop it: klog's flags were removed in Kubernetes v1.26"},
    RemovedFlag{"stderrthreshold", "drop it: klog's flags were removed in Kubernetes v1.26"},
    // The insecure port and the scheduler policy, long gone from kube-scheduler.
    RemovedFlag{"port",
                "the insecure port was removed: health and metrics are served on "
                "--secure-port (and schedhost's --admin-address)"},
    RemovedFlag{"address", "the insecure port was removed: use --bind-address"},
    RemovedFlag{"policy-config-file",
                "scheduler policies were removed: write profiles in "
                "the --config file"},
    RemovedFlag{"policy-configmap",
                "scheduler policies were removed: write profiles in the "
                "--config file"},
    RemovedFlag{"policy-configmap-namespace",
                "scheduler policies were removed: write "
                "profiles in the --config file"},
    RemovedFlag{"use-legacy-policy-config",
                "scheduler policies were removed: write profiles "
                "in the --config file"},
    RemovedFlag{"algorithm-provider",
                "algorithm providers were removed: write profiles in "
                "the --config file"},
    RemovedFlag{"scheduler-name", "write profiles[].schedulerName in the --config file"},
    RemovedFlag{"hard-pod-affinity-symmetric-weight",
                "write InterPodAffinityArgs.hardPodAffinityWeight in the --config file"},
    RemovedFlag{"lock-object-name", "use --leader-elect-resource-name"},
    RemovedFlag{"lock-object-namespace", "use --leader-elect-resource-namespace"},
};

std::string_view flagName(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') {
    return {};
  }
  arg.remove_prefix(arg[1] == '-' ? 2 : 1);
  return arg.substr(0, arg.find('='));
}

}  // namespace

AdaptedCommandLine adaptUpstreamCommandLine(std::vector<std::string> args,
                                            const std::vector<std::string>& commands) {
  AdaptedCommandLine out;
  const bool namesCommand = std::any_of(args.begin(), args.end(), [&](const std::string& a) {
    return std::find(commands.begin(), commands.end(), a) != commands.end();
  });
  const bool help = !args.empty() && (args[0] == "-h" || args[0] == "--help");
  const bool upstream = !args.empty() && !namesCommand && !help && args[0].rfind('-', 0) == 0;
  if (upstream) {
    args.insert(args.begin(), "run");
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      break;
    }
    const std::string_view name = flagName(arg);
    if (name.empty()) {
      continue;
    }
    for (const RemovedFlag& removed : kRemovedFlags) {
      if (arg.rfind("--", 0) == 0 && name == removed.name) {
        out.error = "--" + std::string(name) + ": kube-scheduler v1.36 has no such flag; " +
                    std::string(removed.instead);
        return out;
      }
    }
    // pflag's -v=2 and --v=2 (and --v 2): klog's verbosity.
    if (name == "v") {
      const std::size_t eq = arg.find('=');
      std::vector<std::string> replacement{"--verbosity"};
      if (eq != std::string::npos) {
        replacement.push_back(arg.substr(eq + 1));
      }
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(i), replacement.begin(),
                  replacement.end());
      i += replacement.size() - 1;
    }
  }
  out.args = std::move(args);
  return out;
}

}  // namespace sh::cli

// kube-scheduler's command line, taken as it is written in an operator's manifest.
//
//   kube-scheduler --config=/etc/kubernetes/scheduler.yaml --kubeconfig=... -v=2
//   schedhost      --config=/etc/kubernetes/scheduler.yaml --kubeconfig=... -v=2
//
// schedhost's own command line has commands (run, profile, ...); kube-scheduler's has none.
// A command line that names no command and starts with a flag is `run`'s. The flag forms pflag
// accepts and the parser does not (-v=2, --v=2) are rewritten, and a flag kube-scheduler has
// dropped gets a message saying so and what replaces it, rather than a usage text.
#pragma once

#include <string>
#include <vector>

namespace sh::cli {

struct AdaptedCommandLine {
  std::vector<std::string> args;  // without the program name
  std::string error;              // a removed flag: the message; the process exits 1
};

// `args` without the program name; `commands` the names of the top-level commands.
AdaptedCommandLine adaptUpstreamCommandLine(std::vector<std::string> args,
                                            const std::vector<std::string>& commands);

}  // namespace sh::cli

// ExecCredentialSource: a kubeconfig user's `exec` credential plugin (the way EKS, GKE and AKS
// hand out credentials), run as client-go runs it (plugin/pkg/client/auth/exec/exec.go
// `Authenticator`), API versions client.authentication.k8s.io/v1 and v1beta1.
//
//   Run          the command (a bare name is looked up in $PATH; a path holding a '/' was made
//                relative to the kubeconfig's directory by loadRestConfig, as clientcmd's
//                ResolveLocalPaths does) with its args, in this process's environment plus the
//                entry's env (which wins) plus KUBERNETES_EXEC_INFO: an ExecCredential of the
//                configured apiVersion, {"spec": {"interactive": ..., "cluster": {...}}}
//                (cluster only with provideClusterInfo).
//   Interactive  interactiveMode Never: the plugin's stdin is /dev/null. IfAvailable: it gets
//                this process's stdin when that is a terminal, /dev/null otherwise. Always: an
//                error unless stdin is a terminal ("exec plugin cannot support interactive
//                mode: standard input is not a terminal"). A scheduler run as a service has no
//                terminal: Never and IfAvailable are what its kubeconfig should say.
//   Output       stdout is an ExecCredential of the same apiVersion, with status.token, or
//                status.clientCertificateData and clientKeyData (both), or all three, and an
//                optional status.expirationTimestamp. Each mistake gets upstream's message.
//   Cache        the credential is kept until its expirationTimestamp (without one, until a
//                401). A request that met a 401 with the cached credential asks for a new one
//                (refreshAfterUnauthorized); many such requests run the plugin once.
//   Bounds       one run at a time (callers wait for it); the plugin must end within `timeout`
//                (its process group is killed otherwise); stdout is read up to
//                kMaxExecOutputBytes, stderr up to 64 KiB, each stderr line logged as a
//                warning naming the plugin (never printed raw: the log may be JSON lines).
//                The plugin gets no descriptor of this process but its stdin (when
//                interactive), its stdout and stderr pipes.
//   Errors       messages begin "exec: " or "exec plugin" as upstream's: "exec: executable
//                aws not found" with upstream's help text and the entry's installHint;
//                "exec: executable aws failed with exit code 1" with the last line it wrote
//                to stderr.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/connectors/kube/kube_time.h"

namespace sh::kube {

inline constexpr std::string_view kExecApiVersionV1 = "client.authentication.k8s.io/v1";
inline constexpr std::string_view kExecApiVersionV1Beta1 = "client.authentication.k8s.io/v1beta1";
// The largest ExecCredential a plugin may write.
inline constexpr std::size_t kMaxExecOutputBytes = std::size_t{1} << 20;

enum class ExecInteractiveMode { kNever, kIfAvailable, kAlways };

// A kubeconfig user's `exec` entry (clientcmd's api.ExecConfig), checked by loadRestConfig.
struct ExecConfig {
  std::string command;  // a name looked up in $PATH, or a path
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // name, value; added to the environment
  std::string apiVersion;                                // kExecApiVersionV1 or ...V1Beta1
  std::string installHint;                               // shown when the command is not found
  ExecInteractiveMode interactiveMode = ExecInteractiveMode::kIfAvailable;
  // spec.cluster of KUBERNETES_EXEC_INFO, a JSON object (provideClusterInfo: true); "" when not
  // provided.
  std::string clusterJson;
};

// What a plugin returned.
struct ExecCredential {
  std::string token;  // a bearer token; "" when the plugin returned a certificate only
  std::string clientCertPem, clientKeyPem;  // both or neither
  std::optional<TimePoint> expiry;          // status.expirationTimestamp
};

// Reads a plugin's stdout: an ExecCredential of `apiVersion`. False with upstream's message.
bool parseExecCredential(std::string_view json, std::string_view apiVersion, ExecCredential& out,
                         std::string& error);

// KUBERNETES_EXEC_INFO's value for `config`.
std::string execInfo(const ExecConfig& config, bool interactive);

class ExecCredentialSource {
 public:
  struct Options {
    std::chrono::milliseconds timeout{60000};  // one run of the plugin
    Clock* clock = nullptr;                    // default systemClock(); the expiry is read on it
    std::function<bool()> stdinIsTerminal;     // default isatty(0)
  };

  ExecCredentialSource(ExecConfig config, Options options);

  // The cached credential unless it expired, else the plugin runs now (other callers wait for
  // that run). Null with `error` set when the plugin fails.
  std::shared_ptr<const ExecCredential> get(std::string& error);

  // A request carrying `used` met a 401: the plugin runs again now, unless a newer credential
  // than `used` is already cached. The credential to repeat the request with, or null (with
  // `error`) when the plugin failed.
  std::shared_ptr<const ExecCredential> refreshAfterUnauthorized(
      const std::shared_ptr<const ExecCredential>& used, std::string& error);

  // Times the plugin was started.
  std::uint64_t runs() const;
  const ExecConfig& config() const { return config_; }

 private:
  std::shared_ptr<const ExecCredential> runLocked(std::string& error);

  const ExecConfig config_;
  const Options options_;
  mutable std::mutex mutex_;
  std::shared_ptr<const ExecCredential> cached_;
  std::uint64_t runs_ = 0;
  // Upstream's `sometimes`: the long help text of a missing command, 10 times an hour.
  std::size_t notFoundHints_ = 0;
  std::chrono::steady_clock::time_point hintWindow_{};
};

}  // namespace sh::kube

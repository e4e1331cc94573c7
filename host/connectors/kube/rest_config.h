// RestConfig: where the API server is and how to authenticate to it, loaded with the rules of
// kubectl and client-go's clientcmd (`tools/clientcmd/loader.go` `ClientConfigLoadingRules`,
// `client_config.go` `DirectClientConfig.ClientConfig`, `rest/config.go` `InClusterConfig`):
//
//   1. an explicit --kubeconfig file (no merging; it must exist);
//   2. else $KUBECONFIG, a colon-separated list merged in order: clusters, users and contexts
//      by name come from the first file that defines them, current-context from the first file
//      that sets it; files of the list that do not exist are skipped;
//   3. else ~/.kube/config when it exists;
//   4. else the in-cluster configuration when KUBERNETES_SERVICE_HOST and
//      KUBERNETES_SERVICE_PORT are set (the service account's token, CA and namespace files);
//   5. else an error naming where it looked.
//
// --context overrides current-context. File paths in a kubeconfig (certificate-authority,
// client-certificate, client-key, tokenFile) are relative to the directory of the file that
// named them; certificates and keys are read at load time, so RestConfig holds PEM text.
// Unsupported: exec credential plugins and auth-provider users (an error says so).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "host/connectors/kube/exec_credential.h"

namespace sh::kube {

struct RestConfig {
  std::string server;         // "https://host:port" (or http://), no trailing slash
  std::string context;        // the kubeconfig context used, or "in-cluster"
  std::string source;         // the kubeconfig path(s) read, or "in-cluster"
  std::string namespaceName;  // the context's namespace, or the in-cluster one; "default"
  std::string caPem;          // empty: the system trust store
  std::string clientCertPem, clientKeyPem;
  std::string token;      // a bearer token (the tokenFile's content when that is set)
  std::string tokenFile;  // re-read periodically by the transport; wins over token when readable
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName;  // the name to verify the server certificate against
  // The user's exec credential plugin: set only when the user has no token and no client
  // certificate of its own.
  std::optional<ExecConfig> exec;
};

// Why `token` cannot be sent as a bearer token ("" when it can): a control character (CR, LF,
// NUL, DEL, ...) would end the Authorization header and write what follows as headers of its
// own. The message names the character and its offset, never the token.
std::string bearerTokenProblem(std::string_view token);

struct RestConfigOptions {
  std::string kubeconfig;                          // --kubeconfig; "" = not given
  std::string context;                             // --context; "" = current-context
  std::function<const char*(const char*)> getenv;  // default ::getenv
  std::string home;                                // default $HOME
  std::string serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// The configuration, or nullopt with `error` set to a one-line message naming the file, the
// field and the cause ("kubeconfig /home/u/.kube/config: context \"prod\" not found").
std::optional<RestConfig> loadRestConfig(const RestConfigOptions& options, std::string& error);

// Standard base64 (padding optional, whitespace ignored); false when `text` is not base64.
bool decodeBase64(std::string_view text, std::string& out);
// Standard base64 with padding.
std::string encodeBase64(std::string_view bytes);

}  // namespace sh::kube

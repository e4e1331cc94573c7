// From kube-scheduler's secure serving flags to what the secure port runs with, as
// k8s.io/apiserver's pkg/server/options turn them into a server: SecureServingOptions (the
// serving certificate), DelegatingAuthenticationOptions and RequestHeaderAuthenticationOptions
// (the cache TTL, the client CA, the front proxy, the lookup of the cluster's authentication
// configuration) and DelegatingAuthorizationOptions (the cache TTLs, the always-allowed
// paths). docs/deploy.md, "Security notes", says what an operator sees.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/cli/commands.h"
#include "host/cli/secure_serving.h"
#include "host/connectors/kube/transport.h"

namespace sh::cli {

// What the flags say without a file or a connection, checked as pflag and the options'
// Validate check them: the cache TTLs (Go durations, not negative; 0 caches nothing), the
// always-allowed paths, and the front proxy's header names (an empty one is an error). The
// CAs are left for applyClientAuthentication. Nullopt with `error` naming the flag.
std::optional<DelegatedAuth::Options> delegatedAuthOptions(const ServingFlags& flags,
                                                           std::string& error);

// The file names kube-scheduler gives its self-signed pair in --cert-dir (its PairName).
inline constexpr const char* kCertDirPairName = "kube-scheduler";

// The serving certificate chain and key (PEM), as MaybeDefaultWithSelfSignedCerts("localhost",
// nil, [127.0.0.1]) makes them:
//   --tls-cert-file and --tls-private-key-file   read (one without the other is an error);
//   else with --cert-dir DIR                     DIR/kube-scheduler.crt and .key, read when
//                                                both can be (one without the other is an
//                                                error), else made as below and written there
//                                                (DIR created 0755, the certificate 0644, the
//                                                key 0600), so the next start serves the same;
//   else                                         made at startup and kept in memory.
// A made certificate (admin::selfSignedCertificate) is for localhost and 127.0.0.1, and for
// --bind-address when it is an address other than 0.0.0.0 or ::. False with `error`.
bool servingCertificate(const ServingFlags& flags, std::string& certificatePem,
                        std::string& privateKeyPem, std::string& error);

// The ConfigMap kube-system/extension-apiserver-authentication, which kube-apiserver keeps for
// the servers it delegates to: the CA its clients' certificates come from, and its front
// proxy's CA and headers. Missing keys are empty; the lists are JSON arrays of strings.
struct ClusterAuthentication {
  std::string clientCa;                          // client-ca-file
  std::string requestHeaderCa;                   // requestheader-client-ca-file
  std::vector<std::string> allowedNames;         // requestheader-allowed-names
  std::vector<std::string> usernameHeaders;      // requestheader-username-headers
  std::vector<std::string> groupHeaders;         // requestheader-group-headers
  std::vector<std::string> extraHeaderPrefixes;  // requestheader-extra-headers-prefix
};

inline constexpr const char* kAuthenticationConfigMap =
    "kube-system/extension-apiserver-authentication";

// One GET of the ConfigMap through `transport`. A ConfigMap that does not exist is an empty
// configuration, as upstream's RunOnce has it. Nullopt with `error` when it cannot be read
// (403 adds how to grant it), a list is not a JSON array of strings, or a CA does not parse.
std::optional<ClusterAuthentication> lookUpClusterAuthentication(kube::Transport& transport,
                                                                 std::string& error);

// The client CA and the front proxy's settings into `options` (DelegatingAuthenticationOptions
// .ApplyTo): --client-ca-file, and --requestheader-client-ca-file with the --requestheader-*
// flags; each one not given is taken from the cluster's ConfigMap (its own lists then, not the
// flags' defaults) through `lookup`, unless --authentication-skip-lookup. A lookup that fails
// is an error with --authentication-tolerate-lookup-failure=false, and otherwise a warning
// (what it would have given stays off). Read once, at startup. `clientCasPem` gets every CA a
// client certificate may come from, for the TLS handshake. False with `error` naming the flag
// or the ConfigMap.
bool applyClientAuthentication(const ServingFlags& flags, kube::Transport* lookup,
                               DelegatedAuth::Options& options, std::string& clientCasPem,
                               std::string& error);

}  // namespace sh::cli

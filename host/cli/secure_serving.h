// kube-scheduler's secure serving for `schedhost run --kubeconfig`: HTTPS on --secure-port
// (10259) and --bind-address, with --tls-cert-file/--tls-private-key-file or a self-signed
// certificate made at startup, and delegated authentication and authorization against the API
// server (k8s.io/apiserver pkg/server/options: DelegatingAuthenticationOptions,
// DelegatingAuthorizationOptions), as docs/deploy.md describes.
//
// DelegatedAuth is the admin server's Gate:
//   authentication  a client certificate that verifies against the client CA (CN the user,
//                   O the groups); else a bearer token, asked of the API server with a
//                   TokenReview (an invalid one is 401 Unauthorized, a failed review too);
//                   else anonymous (system:anonymous, group system:unauthenticated).
//                   Authenticated users are in system:authenticated too.
//   authorization   a path in --authorization-always-allow-paths (default /healthz, /readyz,
//                   /livez; "PREFIX*" matches a prefix) or a member of system:masters is let
//                   in; else a SubjectAccessReview of the non-resource path and verb decides
//                   (403 Forbidden with upstream's message and the review's reason; 500 when
//                   the review fails). Without a connection for reviews, only those.
// Token reviews are cached for tokenCacheTtl, access reviews for authorizedTtl and
// unauthorizedTtl (10 s each by default, upstream's); a failed review is not cached.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "host/admin/server.h"
#include "host/connectors/kube/transport.h"

namespace sh::cli {

class DelegatedAuth : public admin::Gate {
 public:
  struct Options {
    std::vector<std::string> alwaysAllowPaths = {"/healthz", "/readyz", "/livez"};
    std::vector<std::string> alwaysAllowGroups = {"system:masters"};
    std::chrono::milliseconds tokenCacheTtl{10'000};
    std::chrono::milliseconds authorizedTtl{10'000};
    std::chrono::milliseconds unauthorizedTtl{10'000};
  };

  // `authentication`, `authorization`: where TokenReviews and SubjectAccessReviews go; null
  // when there is none (no tokens are accepted; only the always-allowed are let in). They
  // must outlive this object.
  DelegatedAuth(kube::Transport* authentication, kube::Transport* authorization, Options options);

  admin::Admission admit(std::string_view verb, std::string_view path, const admin::Caller& caller,
                         std::stop_token stop) override;

  // Reviews sent to the API server (the caches' misses).
  std::uint64_t tokenReviews() const;
  std::uint64_t accessReviews() const;

  struct User {
    std::string name;
    std::string uid;
    std::vector<std::string> groups;
    std::map<std::string, std::vector<std::string>> extra;
  };

 private:
  enum class Outcome { kAuthenticated, kAnonymous, kUnauthorized };
  Outcome authenticate(const admin::Caller& caller, User& user, std::stop_token stop);
  // nullopt: the review failed (`error` says why).
  std::optional<bool> review(const User& user, std::string_view verb, std::string_view path,
                             std::string& reason, std::string& error, std::stop_token stop);

  struct TokenEntry {
    std::chrono::steady_clock::time_point expires;
    bool authenticated = false;
    User user;
  };
  struct AccessEntry {
    std::chrono::steady_clock::time_point expires;
    bool allowed = false;
    std::string reason;
  };

  kube::Transport* authentication_;
  kube::Transport* authorization_;
  Options options_;
  mutable std::mutex mu_;
  std::map<std::string, TokenEntry> tokens_;
  std::map<std::string, AccessEntry> access_;
  std::uint64_t tokenReviews_ = 0;
  std::uint64_t accessReviews_ = 0;
};

// The 401 and 403 bodies, as k8s.io/apiserver's responsewriters write them.
std::string unauthorizedStatus();
std::string forbiddenStatus(const std::string& user, std::string_view verb, std::string_view path,
                            const std::string& reason);

}  // namespace sh::cli

// kube-scheduler's secure serving for `schedhost run --kubeconfig`: HTTPS on --secure-port
// (10259) and --bind-address, with --tls-cert-file/--tls-private-key-file or a self-signed
// certificate (secure_serving_options.h), and delegated authentication and authorization
// against the API server (k8s.io/apiserver pkg/server/options: DelegatingAuthenticationOptions,
// DelegatingAuthorizationOptions), as docs/deploy.md describes.
//
// DelegatedAuth is the admin server's Gate:
//   authentication  upstream's union of authenticators, in its order, the first that
//                   authenticates winning:
//                     request header  a client certificate that verifies against the front
//                                     proxy's CA (requestHeader.ca) and, when allowedNames is
//                                     not empty, whose CN is one of them, vouches for the user
//                                     its request names: the first username header with a
//                                     value, every value of the group headers, and the
//                                     headers under an extra prefix (key lowercased and
//                                     %-unescaped); without a username, the next one is asked;
//                     client cert     a client certificate that verifies against the client
//                                     CA: CN the user, O the groups;
//                     token           a bearer token, asked of the API server with a
//                                     TokenReview.
//                   A certificate that does not verify, a CN not allowed, a token the review
//                   does not accept or a failed review is an error: 401 Unauthorized unless a
//                   later authenticator authenticates. Nothing at all: anonymous
//                   (system:anonymous, group system:unauthenticated). An authenticated user
//                   is in system:authenticated too (unless anonymous or already in it or in
//                   system:unauthenticated: AuthenticatedGroupAdder).
//   authorization   a path in --authorization-always-allow-paths (default /healthz, /readyz,
//                   /livez; "PREFIX*" matches a prefix) or a member of system:masters is let
//                   in; else a SubjectAccessReview of the non-resource path and verb decides
//                   (403 Forbidden with upstream's message and the review's reason; 500 when
//                   the review fails). Without a connection for reviews, only those.
// Token reviews are cached for tokenCacheTtl, access reviews for authorizedTtl and
// unauthorizedTtl (10 s each by default, upstream's; 0: not cached); a failed review is not
// cached.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "host/admin/server.h"
#include "host/admin/tls.h"
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
    // Client certificates are verified against this bundle; null: none is.
    std::shared_ptr<const admin::CaBundle> clientCa;
    // Front-proxy authentication (above), off while `ca` is null. The names' defaults are
    // upstream's flags'.
    struct RequestHeader {
      std::shared_ptr<const admin::CaBundle> ca;
      std::vector<std::string> allowedNames;  // empty: any certificate of `ca`
      std::vector<std::string> usernameHeaders = {"X-Remote-User"};
      std::vector<std::string> groupHeaders = {"X-Remote-Group"};
      std::vector<std::string> extraHeaderPrefixes = {"X-Remote-Extra-"};
    };
    RequestHeader requestHeader;
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
  // One authenticator of the union: who, nobody, or an error (the next is asked all the same).
  enum class Result { kUser, kNone, kError };
  Result requestHeaderUser(const admin::Caller& caller, User& user) const;
  Result certificateUser(const admin::Caller& caller, User& user) const;
  Result tokenUser(const admin::Caller& caller, User& user, std::stop_token stop);
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

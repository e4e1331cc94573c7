// The secure port's gate (host/cli/secure_serving.h) against the test API server's TokenReview
// and SubjectAccessReview: who is let in (front proxy, client certificate, token, anonymous,
// in upstream's order), what each refusal says, and what is cached for how long; then the
// same gate behind a real HTTPS listener.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/admin/server.h"
#include "host/admin/tls.h"
#include "host/cli/secure_serving.h"
#include "host/connectors/kube/https_transport.h"
#include "tests/admin/fake_handler.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/https_client.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::delegated_auth_test {
namespace {

namespace json = boost::json;
using cli::DelegatedAuth;
using Headers = std::vector<std::pair<std::string, std::string>>;
using namespace std::chrono_literals;

std::shared_ptr<const admin::CaBundle> bundle(const std::string& pem) {
  std::string error;
  auto out = admin::CaBundle::fromPem(pem, error);
  EXPECT_NE(out, nullptr) << error;
  return out;
}

class DelegatedAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial();
    // The front proxy's own CA; its client certificate is CN front-proxy-client, O
    // system:masters (which must count for nothing: the proxy speaks for someone else).
    proxy_ = makeTlsMaterial("front-proxy-client");
    FakeApiServer::Options so;
    so.tls = tls_;
    so.reviewTokens = {{"good", {"alice", {"ops"}}}, {"plain", {"bob", {}}}};
    so.allowedAccess = {"alice get /metrics", "system:anonymous get /public"};
    server_ = std::make_unique<FakeApiServer>(so);
    server_->start();
    kube::HttpsTransport::Options to;
    to.config.server = server_->url();
    to.config.caPem = tls_.caCert;
    to.config.clientCertPem = tls_.clientCert;
    to.config.clientKeyPem = tls_.clientKey;
    std::string error;
    transport_ = kube::HttpsTransport::create(to, error);
    ASSERT_NE(transport_, nullptr) << error;
  }

  // Client certificates of the test CA, and a front proxy of the proxy CA named
  // front-proxy-client.
  DelegatedAuth::Options withCertificates() {
    DelegatedAuth::Options o;
    o.clientCa = bundle(tls_.caCert);
    o.requestHeader.ca = bundle(proxy_.caCert);
    o.requestHeader.allowedNames = {"front-proxy-client"};
    return o;
  }

  admin::Admission admit(DelegatedAuth& auth, const std::string& path,
                         const std::string& token = "", std::vector<std::string> chain = {},
                         Headers headers = {}) {
    admin::Caller caller;
    caller.headers = std::move(headers);
    if (!token.empty()) caller.headers.emplace_back("Authorization", "Bearer " + token);
    caller.certificates = std::move(chain);
    return auth.admit("get", path, caller, {});
  }

  std::size_t reviews(const std::string& resource) {
    std::size_t n = 0;
    for (const auto& r : server_->requests()) n += r.resource == resource ? 1 : 0;
    return n;
  }

  // The spec of the last SubjectAccessReview sent.
  json::object lastAccessReview() {
    json::object spec;
    for (const auto& r : server_->requests()) {
      if (r.resource == "subjectaccessreviews") {
        spec = json::parse(r.body).as_object()["spec"].as_object();
      }
    }
    return spec;
  }

  TlsMaterial tls_;
  TlsMaterial proxy_;
  std::unique_ptr<FakeApiServer> server_;
  std::unique_ptr<kube::HttpsTransport> transport_;
};

TEST_F(DelegatedAuthTest, TokensAreReviewedAndAccessIsReviewedAndBothAreCached) {
  DelegatedAuth auth(transport_.get(), transport_.get(), {});
  EXPECT_TRUE(admit(auth, "/metrics", "good").allowed);
  EXPECT_TRUE(admit(auth, "/metrics", "good").allowed);
  EXPECT_EQ(auth.tokenReviews(), 1u);  // the second from the cache
  EXPECT_EQ(auth.accessReviews(), 1u);
  EXPECT_EQ(reviews("tokenreviews"), 1u);
  EXPECT_EQ(reviews("subjectaccessreviews"), 1u);
  // The review carried the user as the TokenReview gave it, system:authenticated added.
  for (const auto& r : server_->requests()) {
    if (r.resource != "subjectaccessreviews") continue;
    EXPECT_NE(r.body.find("\"user\":\"alice\""), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("\"groups\":[\"ops\",\"system:authenticated\"]"), std::string::npos)
        << r.body;
    EXPECT_NE(r.body.find("\"nonResourceAttributes\":{\"path\":\"/metrics\",\"verb\":\"get\"}"),
              std::string::npos)
        << r.body;
  }
  // Denied: 403 with upstream's message and the review's reason; cached too.
  admin::Admission denied = admit(auth, "/configz", "good");
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"forbidden: User \\\"alice\\\" cannot get path \\\"/configz\\\": no "
            "RBAC policy matched\",\"reason\":\"Forbidden\",\"details\":{},\"code\":403}\n");
  EXPECT_EQ(admit(auth, "/configz", "good").status, 403);
  EXPECT_EQ(auth.accessReviews(), 2u);
}

TEST_F(DelegatedAuthTest, AnUnknownTokenIsUnauthorizedAndNoTokenIsAnonymous) {
  DelegatedAuth auth(transport_.get(), transport_.get(), {});
  admin::Admission a = admit(auth, "/healthz", "forged");
  EXPECT_EQ(a.status, 401);  // before authorization: even an always-allowed path
  EXPECT_EQ(a.body,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}\n");
  EXPECT_TRUE(admit(auth, "/healthz").allowed);  // anonymous, always allowed, no review
  EXPECT_EQ(auth.accessReviews(), 0u);
  EXPECT_TRUE(admit(auth, "/public").allowed);             // anonymous, reviewed
  EXPECT_EQ(admit(auth, "/readyz/shutdown").status, 403);  // exact paths only
  // Not a bearer token: anonymous. The header's name in any case.
  EXPECT_TRUE(
      admit(auth, "/public", "", {}, {{"authorization", "Basic YWxpY2U6cGFzcw=="}}).allowed);
  EXPECT_EQ(admit(auth, "/public", "", {}, {{"AUTHORIZATION", "bearer forged"}}).status, 401);
}

TEST_F(DelegatedAuthTest, CertificatesMastersAndPrefixesNeedNoReview) {
  DelegatedAuth::Options o = withCertificates();
  o.alwaysAllowPaths = {"/healthz", "/debug/*"};
  DelegatedAuth auth(transport_.get(), transport_.get(), o);
  EXPECT_TRUE(admit(auth, "/debug/pods/ns/p").allowed);
  EXPECT_FALSE(admit(auth, "/debugger").allowed);
  EXPECT_FALSE(admit(auth, "/readyz").allowed);  // no longer among the always-allowed
  // The client certificate: CN schedhost, O system:masters.
  EXPECT_TRUE(admit(auth, "/configz", "", {tls_.clientCert}).allowed);
  EXPECT_EQ(auth.tokenReviews(), 0u);
  const std::size_t before = auth.accessReviews();
  std::string carolCert;
  std::string carolKey;
  signClient(tls_, "carol", carolCert, carolKey);
  EXPECT_EQ(admit(auth, "/configz", "", {carolCert}).status, 403);  // reviewed: denied
  EXPECT_EQ(auth.accessReviews(), before + 1);
  EXPECT_EQ(lastAccessReview()["user"], "carol");
  // A certificate of another CA, whatever it claims: 401.
  const TlsMaterial other = makeTlsMaterial("admin");
  EXPECT_EQ(admit(auth, "/configz", "", {other.clientCert}).status, 401);
  // ... unless a later authenticator vouches for the caller (the union goes on after an
  // error).
  EXPECT_TRUE(admit(auth, "/metrics", "good", {other.clientCert}).allowed);
  // A certificate of the CA that is not for client authentication (serverAuth only): 401.
  EXPECT_EQ(admit(auth, "/configz", "", {tls_.serverCert}).status, 401);
}

TEST_F(DelegatedAuthTest, AFailedReviewIsAnErrorAndNotCached) {
  DelegatedAuth auth(transport_.get(), transport_.get(), {});
  server_->failNext("POST /apis/authorization.k8s.io", 500, 1);
  admin::Admission a = admit(auth, "/metrics", "good");
  EXPECT_EQ(a.status, 500);
  EXPECT_NE(a.body.find("Internal Server Error: \"/metrics\": "), std::string::npos) << a.body;
  EXPECT_TRUE(admit(auth, "/metrics", "good").allowed);  // asked again
  server_->failNext("POST /apis/authentication.k8s.io", 503, 1);
  EXPECT_EQ(admit(auth, "/metrics", "plain").status, 401);  // a failed TokenReview
  // Without connections for reviews: tokens are refused, only the always-allowed pass.
  DelegatedAuth none(nullptr, nullptr, {});
  EXPECT_EQ(admit(none, "/metrics", "good").status, 401);
  EXPECT_EQ(admit(none, "/metrics").status, 403);
  EXPECT_TRUE(admit(none, "/livez").allowed);
}

TEST_F(DelegatedAuthTest, CacheEntriesExpire) {
  DelegatedAuth::Options o;
  o.tokenCacheTtl = 50ms;
  o.authorizedTtl = 50ms;
  DelegatedAuth auth(transport_.get(), transport_.get(), o);
  EXPECT_TRUE(admit(auth, "/metrics", "good").allowed);
  std::this_thread::sleep_for(120ms);
  EXPECT_TRUE(admit(auth, "/metrics", "good").allowed);
  EXPECT_EQ(auth.tokenReviews(), 2u);
  EXPECT_EQ(auth.accessReviews(), 2u);
}

// Each TTL governs its own answers (--authentication-token-webhook-cache-ttl,
// --authorization-webhook-cache-authorized-ttl, --authorization-webhook-cache-unauthorized-ttl):
// 0 caches nothing, an hour keeps the answer.
TEST_F(DelegatedAuthTest, EachCacheHasItsOwnTtl) {
  DelegatedAuth::Options o;
  o.tokenCacheTtl = 0ms;
  o.authorizedTtl = 1h;
  o.unauthorizedTtl = 0ms;
  DelegatedAuth auth(transport_.get(), transport_.get(), o);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(admit(auth, "/metrics", "good").allowed);
    EXPECT_EQ(admit(auth, "/configz", "good").status, 403);
  }
  EXPECT_EQ(auth.tokenReviews(), 6u);   // never cached
  EXPECT_EQ(auth.accessReviews(), 4u);  // /metrics once, /configz each time

  o.tokenCacheTtl = 1h;
  o.authorizedTtl = 0ms;
  o.unauthorizedTtl = 1h;
  DelegatedAuth reversed(transport_.get(), transport_.get(), o);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(admit(reversed, "/metrics", "good").allowed);
    EXPECT_EQ(admit(reversed, "/configz", "good").status, 403);
    EXPECT_EQ(admit(reversed, "/metrics", "forged").status, 401);  // a refusal is kept too
  }
  EXPECT_EQ(reversed.tokenReviews(), 2u);   // good and forged, once each
  EXPECT_EQ(reversed.accessReviews(), 4u);  // /metrics each time, /configz once
}

// A client certificate of the front proxy's CA vouches for the user its request headers
// name: that user is reviewed, with the groups and extra of the headers, and the proxy's own
// certificate (O system:masters) counts for nothing.
TEST_F(DelegatedAuthTest, AFrontProxyNamesTheUserInItsHeaders) {
  DelegatedAuth auth(transport_.get(), transport_.get(), withCertificates());
  const std::vector<std::string> proxyChain = {proxy_.clientCert};
  admin::Admission a =
      admit(auth, "/metrics", "", proxyChain,
            {{"X-Remote-User", "alice"},
             {"X-Remote-User", "mallory"},  // the first value of the header
             {"X-Remote-Group", "ops"},
             {"x-remote-group", ""},  // empty values are left out
             {"X-REMOTE-GROUP", "dev"},
             {"X-Remote-Extra-Scopes", "read"},
             {"x-remote-extra-scopes", "write"},
             {"X-Remote-Extra-Acme.com%2fProject", "p1"},
             {"X-Remote-Extra-Bad%zz", "kept"},
             {"Authorization", "Bearer forged"}});  // never asked: the proxy came first
  EXPECT_TRUE(a.allowed) << a.body;
  EXPECT_EQ(auth.tokenReviews(), 0u);
  ASSERT_EQ(auth.accessReviews(), 1u);
  json::object spec = lastAccessReview();
  EXPECT_EQ(spec["user"], "alice");
  EXPECT_EQ(spec["groups"], (json::array{"ops", "dev", "system:authenticated"}));
  EXPECT_EQ(spec["extra"], (json::object{{"scopes", json::array{"read", "write"}},
                                         {"acme.com/project", json::array{"p1"}},
                                         {"bad%zz", json::array{"kept"}}}))
      << json::serialize(spec);

  // The username headers in their order, the first with a value winning.
  DelegatedAuth::Options o = withCertificates();
  o.requestHeader.usernameHeaders = {"X-Remote-User", "X-Proxy-User"};
  o.requestHeader.groupHeaders = {"X-Proxy-Group"};
  o.requestHeader.extraHeaderPrefixes = {};
  DelegatedAuth two(transport_.get(), transport_.get(), o);
  EXPECT_EQ(admit(two, "/configz", "", proxyChain,
                  {{"X-Remote-User", ""},
                   {"X-Proxy-User", "dave"},
                   {"X-Remote-Group", "ignored"},
                   {"X-Proxy-Group", "g"},
                   {"X-Remote-Extra-Scopes", "ignored"}})
                .status,
            403);
  spec = lastAccessReview();
  EXPECT_EQ(spec["user"], "dave");
  EXPECT_EQ(spec["groups"], (json::array{"g", "system:authenticated"}));
  EXPECT_FALSE(spec.contains("extra"));
  // A user the proxy names system:anonymous stays out of system:authenticated.
  EXPECT_EQ(admit(two, "/configz", "", proxyChain, {{"X-Proxy-User", "system:anonymous"}}).status,
            403);
  EXPECT_EQ(lastAccessReview()["groups"], json::array{});
}

// What the front proxy's certificate does not vouch for goes on to the next authenticator.
TEST_F(DelegatedAuthTest, OnlyTheFrontProxysCertificateIsHeard) {
  DelegatedAuth auth(transport_.get(), transport_.get(), withCertificates());
  const Headers claim = {{"X-Remote-User", "alice"}, {"X-Remote-Group", "system:masters"}};
  // No certificate: the headers are anyone's words; anonymous.
  EXPECT_EQ(admit(auth, "/configz", "", {}, claim).status, 403);
  EXPECT_EQ(lastAccessReview()["user"], "system:anonymous");
  // A client certificate of the client CA: its own user (carol), not the headers'.
  std::string carolCert;
  std::string carolKey;
  signClient(tls_, "carol", carolCert, carolKey);
  EXPECT_EQ(admit(auth, "/configz", "", {carolCert}, claim).status, 403);
  EXPECT_EQ(lastAccessReview()["user"], "carol");
  // The proxy's CA, a name that is not allowed: an error, and the certificate is no client
  // of the client CA either: 401.
  std::string intruderCert;
  std::string intruderKey;
  signClient(proxy_, "intruder", intruderCert, intruderKey);
  EXPECT_EQ(admit(auth, "/metrics", "", {intruderCert}, claim).status, 401);
  // The proxy without a username header: it vouches for nobody, and is no client certificate
  // of the client CA: 401; with a token beside it, the token's user.
  EXPECT_EQ(admit(auth, "/metrics", "", {proxy_.clientCert}).status, 401);
  EXPECT_TRUE(admit(auth, "/metrics", "good", {proxy_.clientCert}).allowed);
  EXPECT_EQ(lastAccessReview()["user"], "alice");
  // Any certificate of the proxy's CA when no names are given.
  DelegatedAuth::Options o = withCertificates();
  o.requestHeader.allowedNames.clear();
  DelegatedAuth anyName(transport_.get(), transport_.get(), o);
  EXPECT_TRUE(admit(anyName, "/metrics", "", {intruderCert}, claim).allowed);
  EXPECT_EQ(lastAccessReview()["user"], "alice");
  // One CA for both: the front proxy is asked first, so its certificate speaks for alice, not
  // for itself (front-proxy-client of system:masters, which would need no review).
  o.clientCa = bundle(proxy_.caCert);
  DelegatedAuth sharedCa(transport_.get(), transport_.get(), o);
  EXPECT_TRUE(
      admit(sharedCa, "/metrics", "", {proxy_.clientCert}, {{"X-Remote-User", "alice"}}).allowed);
  EXPECT_EQ(sharedCa.accessReviews(), 1u);
  EXPECT_EQ(lastAccessReview()["user"], "alice");
  // ... and without a username header it is the client certificate it is.
  EXPECT_TRUE(admit(sharedCa, "/configz", "", {proxy_.clientCert}).allowed);
  EXPECT_EQ(sharedCa.accessReviews(), 1u);
  // Without a front proxy, the proxy's certificate is only a certificate of an unknown CA.
  o.clientCa = bundle(tls_.caCert);
  o.requestHeader.ca = nullptr;
  DelegatedAuth noProxy(transport_.get(), transport_.get(), o);
  EXPECT_EQ(admit(noProxy, "/metrics", "", {proxy_.clientCert}, claim).status, 401);
}

// The gate behind a real HTTPS listener: the admin server hands it the headers and the chain
// the client presented, and asks for client certificates of both CAs.
TEST_F(DelegatedAuthTest, OverHttpsTheServerPassesHeadersAndChainsToTheGate) {
  admin::testing::FakeHandler handler;
  admin::ServerOptions so;
  so.address = "127.0.0.1:0";
  so.tls = admin::ServerOptions::Tls{tls_.serverCert, tls_.serverKey, tls_.caCert + proxy_.caCert};
  DelegatedAuth gate(transport_.get(), transport_.get(), withCertificates());
  so.gate = &gate;
  admin::Server server(so, handler);
  ASSERT_TRUE(server.start().ok());
  HttpsCall call;
  call.port = server.tcpPort();
  call.caPem = tls_.caCert;
  call.path = "/metrics";
  call.headers = {{"X-Remote-User", "alice"}, {"X-Remote-Group", "ops"}};
  // The headers alone: anonymous, denied.
  HttpsAnswer r = httpsGet(call);
  EXPECT_EQ(r.status, 403) << r.error << r.body;
  EXPECT_NE(r.body.find("system:anonymous"), std::string::npos) << r.body;
  // Through the front proxy: alice, allowed /metrics.
  call.certificatePem = proxy_.clientCert;
  call.keyPem = proxy_.clientKey;
  r = httpsGet(call);
  EXPECT_EQ(r.status, 200) << r.error << r.body;
  EXPECT_EQ(r.body, "# TYPE schedhost_up gauge\nschedhost_up 1\n");
  EXPECT_EQ(lastAccessReview()["user"], "alice");
  EXPECT_EQ(lastAccessReview()["groups"], (json::array{"ops", "system:authenticated"}));
  // The client certificate (system:masters): /configz without a review.
  const std::size_t before = gate.accessReviews();
  call.certificatePem = tls_.clientCert;
  call.keyPem = tls_.clientKey;
  call.path = "/configz";
  r = httpsGet(call);
  EXPECT_EQ(r.status, 200) << r.error << r.body;
  EXPECT_EQ(gate.accessReviews(), before);
  // A certificate of neither CA: 401, the handshake went through all the same.
  const TlsMaterial other = makeTlsMaterial("admin");
  call.certificatePem = other.clientCert;
  call.keyPem = other.clientKey;
  r = httpsGet(call);
  EXPECT_EQ(r.status, 401) << r.error << r.body;
  server.stop();
}

}  // namespace
}  // namespace sh::kubetest::delegated_auth_test

// The secure port's gate (host/cli/secure_serving.h) against the test API server's TokenReview
// and SubjectAccessReview: who is let in, what each refusal says, and what is cached.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "host/cli/secure_serving.h"
#include "host/connectors/kube/https_transport.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::delegated_auth_test {
namespace {

using cli::DelegatedAuth;
using namespace std::chrono_literals;

class DelegatedAuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial();
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

  admin::Admission admit(DelegatedAuth& auth, const std::string& path,
                         const std::string& token = "", const std::string& user = "",
                         std::vector<std::string> groups = {}) {
    admin::Caller caller;
    if (!token.empty()) caller.authorization = "Bearer " + token;
    if (!user.empty()) {
      caller.certificate = true;
      caller.certificateUser = user;
      caller.certificateGroups = std::move(groups);
    }
    return auth.admit("get", path, caller, {});
  }

  std::size_t reviews(const std::string& resource) {
    std::size_t n = 0;
    for (const auto& r : server_->requests()) n += r.resource == resource ? 1 : 0;
    return n;
  }

  TlsMaterial tls_;
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
  // Not a bearer token: anonymous.
  admin::Caller basic;
  basic.authorization = "Basic YWxpY2U6cGFzcw==";
  EXPECT_TRUE(auth.admit("get", "/public", basic, {}).allowed);
}

TEST_F(DelegatedAuthTest, CertificatesMastersAndPrefixesNeedNoReview) {
  DelegatedAuth::Options o;
  o.alwaysAllowPaths = {"/healthz", "/debug/*"};
  DelegatedAuth auth(transport_.get(), transport_.get(), o);
  EXPECT_TRUE(admit(auth, "/debug/pods/ns/p").allowed);
  EXPECT_FALSE(admit(auth, "/debugger").allowed);
  EXPECT_FALSE(admit(auth, "/readyz").allowed);  // no longer among the always-allowed
  EXPECT_TRUE(admit(auth, "/configz", "", "admin", {"system:masters"}).allowed);
  EXPECT_EQ(auth.tokenReviews(), 0u);
  const std::size_t before = auth.accessReviews();
  EXPECT_EQ(admit(auth, "/configz", "", "carol", {"dev"}).status, 403);  // reviewed: denied
  EXPECT_EQ(auth.accessReviews(), before + 1);
  // A certificate that does not verify: 401, whatever it claims.
  admin::Caller forged;
  forged.certificate = true;
  forged.certificateError = "unable to get local issuer certificate";
  forged.certificateUser = "admin";
  forged.certificateGroups = {"system:masters"};
  EXPECT_EQ(auth.admit("get", "/configz", forged, {}).status, 401);
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

}  // namespace
}  // namespace sh::kubetest::delegated_auth_test

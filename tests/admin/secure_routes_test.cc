// The secure port's answers (host/admin/secure_routes.h) and its TLS pieces (tls.h), without a
// socket: the gate before everything, upstream healthz's shapes, the self-signed certificate.
#include "host/admin/secure_routes.h"

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <vector>

#include "host/admin/tls.h"
#include "tests/admin/fake_handler.h"

namespace sh::admin::secure_routes_test {
namespace {

// Lets in whatever `allow` says, and records what it was asked.
class RecordingGate : public Gate {
 public:
  bool allow = true;
  std::vector<std::string> asked;
  Admission admit(std::string_view verb, std::string_view path, const Caller&,
                  std::stop_token) override {
    asked.push_back(std::string(verb) + " " + std::string(path));
    Admission a;
    a.allowed = allow;
    if (!allow) {
      a.status = 403;
      a.body = "{\"kind\":\"Status\"}";
    }
    return a;
  }
};

// A handler whose checks are given.
class CheckedHandler : public testing::FakeHandler {
 public:
  std::vector<CheckResult> healthz = {{"ping", ""}};
  std::vector<CheckResult> readyz = {{"shutdown", ""}, {"sched-handler-sync", ""}};
  std::vector<CheckResult> checks(HealthPath path, std::stop_token) override {
    return path == HealthPath::kReadyz ? readyz : healthz;
  }
};

SecureAnswer get(Handler& handler, Gate& gate, std::string_view target) {
  return serveSecure(handler, gate, "get", target, Caller{}, {});
}

TEST(SecureRoutesTest, TheGateDecidesBeforeThePathIsLookedAt) {
  CheckedHandler handler;
  RecordingGate gate;
  gate.allow = false;
  const SecureAnswer refused = get(handler, gate, "/no/such/path?x=1");
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body, "{\"kind\":\"Status\"}");
  EXPECT_EQ(gate.asked, std::vector<std::string>{"get /no/such/path"});  // the query left out
  gate.allow = true;
  EXPECT_EQ(get(handler, gate, "/no/such/path").status, 404);
  EXPECT_EQ(get(handler, gate, "/no/such/path").body, "404 page not found\n");
  EXPECT_EQ(get(handler, gate, "/status").status, 404);  // the admin socket's, not served here
  EXPECT_EQ(serveSecure(handler, gate, "post", "/metrics", Caller{}, {}).status, 405);
}

TEST(SecureRoutesTest, HealthPathsAnswerAsUpstreamsHealthz) {
  CheckedHandler handler;
  RecordingGate gate;
  SecureAnswer a = get(handler, gate, "/healthz");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "ok");
  EXPECT_EQ(a.contentType, "text/plain; charset=utf-8");
  EXPECT_EQ(get(handler, gate, "/readyz?verbose").body,
            "[+]shutdown ok\n[+]sched-handler-sync ok\nreadyz check passed\n");
  EXPECT_EQ(get(handler, gate, "/readyz?verbose=1&exclude=shutdown&exclude=nope").body,
            "[+]shutdown excluded: ok\n[+]sched-handler-sync ok\n"
            "warn: some health checks cannot be excluded: no matches for \"nope\"\n"
            "readyz check passed\n");
  handler.readyz[1].error = "waiting for handlers to sync";
  a = get(handler, gate, "/readyz");
  EXPECT_EQ(a.status, 500);  // failed: always verbose, the reason withheld
  EXPECT_EQ(a.body,
            "[+]shutdown ok\n[-]sched-handler-sync failed: reason withheld\nreadyz check failed\n");
  a = get(handler, gate, "/readyz/sched-handler-sync");
  EXPECT_EQ(a.status, 500);
  EXPECT_EQ(a.body, "internal server error: waiting for handlers to sync\n");
  EXPECT_EQ(get(handler, gate, "/readyz?exclude=sched-handler-sync").status, 200);
  EXPECT_EQ(get(handler, gate, "/readyz/shutdown").body, "ok");
  EXPECT_EQ(get(handler, gate, "/readyz/ping").status, 404);  // not one of /readyz's
  EXPECT_EQ(get(handler, gate, "/livez/ping").body, "ok");
  EXPECT_EQ(get(handler, gate, "/healthzz").status, 404);
  EXPECT_TRUE(isHealthTarget("/livez?verbose"));
  EXPECT_TRUE(isHealthTarget("/healthz/leaderElection"));
  EXPECT_FALSE(isHealthTarget("/metrics"));
}

TEST(SecureRoutesTest, MetricsAndConfigzKeepTheirTypes) {
  CheckedHandler handler;
  RecordingGate gate;
  SecureAnswer a = get(handler, gate, "/metrics");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.contentType, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(a.body, "# TYPE schedhost_up gauge\nschedhost_up 1\n");
  a = get(handler, gate, "/configz");
  EXPECT_EQ(a.contentType, "application/json");
  EXPECT_EQ(a.body, R"({"parallelism":16})");
}

TEST(SecureRoutesTest, TheSelfSignedCertificateIsForLocalhostAndLoads) {
  std::string cert;
  std::string key;
  std::string error;
  ASSERT_TRUE(selfSignedCertificate("localhost", cert, key, error)) << error;
  ServerOptions::Tls tls{cert, key, ""};
  EXPECT_TRUE(makeTlsContext(tls, error).has_value()) << error;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(cert.data(), int(cert.size())),
                                                BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> x(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(X509_check_host(x.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(x.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_host(x.get(), "example.com", 0, 0, nullptr), 0);
  char cn[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(x.get()), NID_commonName, cn, sizeof cn);
  EXPECT_EQ(std::string(cn).rfind("localhost@", 0), 0u) << cn;
  // A year, from an hour ago: not after is 365 days and 1 hour after not before.
  int days = 0;
  int seconds = 0;
  ASSERT_EQ(
      ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(x.get()), X509_get0_notAfter(x.get())),
      1);
  EXPECT_EQ(days, 365);
  EXPECT_EQ(seconds, 3600);
}

TEST(SecureRoutesTest, ABadCertificateOrKeyIsNamed) {
  std::string cert;
  std::string key;
  std::string otherCert;
  std::string otherKey;
  std::string error;
  ASSERT_TRUE(selfSignedCertificate("localhost", cert, key, error));
  ASSERT_TRUE(selfSignedCertificate("localhost", otherCert, otherKey, error));
  EXPECT_FALSE(makeTlsContext({"not a certificate", key, ""}, error).has_value());
  EXPECT_NE(error.find("the certificate does not load"), std::string::npos) << error;
  EXPECT_FALSE(makeTlsContext({cert, "not a key", ""}, error).has_value());
  EXPECT_NE(error.find("the private key does not load"), std::string::npos) << error;
  EXPECT_FALSE(makeTlsContext({cert, otherKey, ""}, error).has_value());
  EXPECT_NE(error.find("key values mismatch"), std::string::npos) << error;
  EXPECT_FALSE(makeTlsContext({cert, key, "garbage"}, error).has_value());
  EXPECT_NE(error.find("the client CA does not load"), std::string::npos) << error;
}

}  // namespace
}  // namespace sh::admin::secure_routes_test

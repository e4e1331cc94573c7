// The secure port's answers (host/admin/secure_routes.h) and its TLS pieces (tls.h), without a
// socket: the gate before everything, upstream healthz's shapes, the self-signed certificate
// and its CA, the CA bundles.
#include "host/admin/secure_routes.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
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

// /debug/pods/NAMESPACE/NAME: through the gate as /metrics is, the names checked before the
// handler hears of them, the format one of three.
class PodsHandler : public CheckedHandler {
 public:
  std::vector<std::string> asked;
  DebugAnswer debugPod(std::string_view ns, std::string_view name, std::string_view format,
                       std::stop_token) override {
    asked.push_back(std::string(ns) + "/" + std::string(name) + " " + std::string(format));
    if (name == "gone") return {404, std::string(kContentTypeText), "no attempt kept\n"};
    if (format == "html") return {200, std::string(kContentTypeHtml), "<!DOCTYPE html>"};
    return {200, std::string(kContentTypeJson), "{}"};
  }
};

TEST(SecureRoutesTest, DebugPodsIsGatedAndNamesAreChecked) {
  PodsHandler handler;
  RecordingGate gate;
  gate.allow = false;
  EXPECT_EQ(get(handler, gate, "/debug/pods/ns/web?format=html").status, 403);
  EXPECT_EQ(gate.asked, std::vector<std::string>{"get /debug/pods/ns/web"});
  EXPECT_TRUE(handler.asked.empty());
  gate.allow = true;
  SecureAnswer a = get(handler, gate, "/debug/pods/ns/web?format=html");
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.contentType, "text/html; charset=utf-8");
  EXPECT_EQ(get(handler, gate, "/debug/pods/ns/web").contentType, "application/json");
  EXPECT_EQ(get(handler, gate, "/debug/pods/ns/gone?format=text").status, 404);
  EXPECT_EQ(handler.asked,
            (std::vector<std::string>{"ns/web html", "ns/web json", "ns/gone text"}));
  // Not object names, or not NAMESPACE/NAME: the handler is not asked.
  for (const char* bad : {"/debug/pods/ns", "/debug/pods/ns/", "/debug/pods/ns/a/b",
                          "/debug/pods/NS/web", "/debug/pods/ns/we%2Fb", "/debug/pods//web"}) {
    EXPECT_EQ(get(handler, gate, bad).status, 404) << bad;
  }
  EXPECT_EQ(get(handler, gate, "/debug/pods/ns/web?format=yaml").status, 400);
  EXPECT_EQ(handler.asked.size(), 3u);
  // A handler that keeps nothing answers 404.
  CheckedHandler plain;
  EXPECT_EQ(get(plain, gate, "/debug/pods/ns/web").status, 404);
}

// Every certificate of a PEM text, in order.
std::vector<std::unique_ptr<X509, decltype(&X509_free)>> certificatesIn(const std::string& pem) {
  std::vector<std::unique_ptr<X509, decltype(&X509_free)>> out;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                                BIO_free);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    out.emplace_back(x, X509_free);
  }
  ERR_clear_error();
  return out;
}

std::string commonNameOf(X509* x) {
  char cn[256] = {};
  X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn, sizeof cn);
  return cn;
}

// certutil.GenerateSelfSignedCertKeyWithFixtures' shape: a serving certificate, then the CA
// made for it, which is the only one the serving certificate verifies against.
TEST(SecureRoutesTest, TheSelfSignedCertificateComesWithItsOwnCa) {
  std::string cert;
  std::string key;
  std::string error;
  ASSERT_TRUE(selfSignedCertificate("localhost", {"127.0.0.1", "10.1.2.3"}, {"localhost"}, cert,
                                    key, error))
      << error;
  ServerOptions::Tls tls{cert, key, ""};
  EXPECT_TRUE(makeTlsContext(tls, error).has_value()) << error;
  EXPECT_EQ(key.rfind("-----BEGIN RSA PRIVATE KEY-----\n", 0), 0u) << key;  // PKCS #1, as Go's
  auto chain = certificatesIn(cert);
  ASSERT_EQ(chain.size(), 2u) << cert;
  X509* serving = chain[0].get();
  X509* ca = chain[1].get();
  const std::string servingName = commonNameOf(serving);
  const std::string caName = commonNameOf(ca);
  ASSERT_EQ(servingName.rfind("localhost@", 0), 0u) << servingName;
  EXPECT_EQ(caName, "localhost-ca@" + servingName.substr(10));  // the same unix time
  EXPECT_EQ(X509_check_ca(ca), 1);
  EXPECT_EQ(X509_check_ca(serving), 0);
  EXPECT_EQ(X509_check_issued(ca, ca), X509_V_OK);  // self-signed
  EXPECT_EQ(X509_check_issued(ca, serving), X509_V_OK);
  EXPECT_NE(X509_check_issued(serving, serving), X509_V_OK);
  // The serving certificate verifies for serverAuth against the CA of the file alone.
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), X509_STORE_free);
  X509_STORE_add_cert(store.get(), ca);
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> context(X509_STORE_CTX_new(),
                                                                          X509_STORE_CTX_free);
  ASSERT_EQ(X509_STORE_CTX_init(context.get(), store.get(), serving, nullptr), 1);
  X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_SERVER);
  EXPECT_EQ(X509_verify_cert(context.get()), 1)
      << X509_verify_cert_error_string(X509_STORE_CTX_get_error(context.get()));
  // Another run's CA does not vouch for it.
  std::string otherCert;
  std::string otherKey;
  ASSERT_TRUE(selfSignedCertificate("localhost", {"127.0.0.1"}, {}, otherCert, otherKey, error));
  auto other = certificatesIn(otherCert);
  ASSERT_EQ(other.size(), 2u);
  EXPECT_NE(X509_check_issued(other[1].get(), serving), X509_V_OK);
  // Its names: the host, the addresses, once each.
  EXPECT_EQ(X509_check_host(serving, "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(serving, "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(serving, "10.1.2.3", 0), 1);
  EXPECT_EQ(X509_check_host(serving, "example.com", 0, 0, nullptr), 0);
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(serving, NID_subject_alt_name, nullptr, nullptr));
  ASSERT_NE(names, nullptr);
  EXPECT_EQ(sk_GENERAL_NAME_num(names), 3);  // DNS:localhost, IP:127.0.0.1, IP:10.1.2.3
  GENERAL_NAMES_free(names);
  // A year from an hour ago, for both.
  for (X509* x : {serving, ca}) {
    int days = 0;
    int seconds = 0;
    ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(x), X509_get0_notAfter(x)), 1);
    EXPECT_EQ(days, 365);
    EXPECT_EQ(seconds, 0);
    ASSERT_EQ(ASN1_TIME_diff(&days, &seconds, X509_get0_notBefore(x), nullptr), 1);
    EXPECT_EQ(days, 0);
    EXPECT_GE(seconds, 3600 - 60);
    EXPECT_LE(seconds, 3600 + 60);
  }
}

TEST(SecureRoutesTest, ABadCertificateOrKeyIsNamed) {
  std::string cert;
  std::string key;
  std::string otherCert;
  std::string otherKey;
  std::string error;
  ASSERT_TRUE(selfSignedCertificate("localhost", {"127.0.0.1"}, {}, cert, key, error));
  ASSERT_TRUE(selfSignedCertificate("localhost", {"127.0.0.1"}, {}, otherCert, otherKey, error));
  EXPECT_FALSE(makeTlsContext({"not a certificate", key, ""}, error).has_value());
  EXPECT_NE(error.find("the certificate does not load"), std::string::npos) << error;
  EXPECT_FALSE(makeTlsContext({cert, "not a key", ""}, error).has_value());
  EXPECT_NE(error.find("the private key does not load"), std::string::npos) << error;
  EXPECT_FALSE(makeTlsContext({cert, otherKey, ""}, error).has_value());
  EXPECT_NE(error.find("key values mismatch"), std::string::npos) << error;
  EXPECT_FALSE(makeTlsContext({cert, key, "garbage"}, error).has_value());
  EXPECT_NE(error.find("the client CA does not load: no certificate in it"), std::string::npos)
      << error;
  // A bundle of CAs loads, and so does the CA bundle the gate verifies with.
  EXPECT_TRUE(makeTlsContext({cert, key, cert + otherCert}, error).has_value()) << error;
  EXPECT_NE(CaBundle::fromPem(cert + otherCert, error), nullptr) << error;
  EXPECT_EQ(CaBundle::fromPem("garbage", error), nullptr);
  EXPECT_EQ(error, "no certificate in it");
  std::string broken = cert;
  broken.replace(broken.find("MII") + 10, 8, "!!!!!!!!");
  EXPECT_EQ(CaBundle::fromPem(broken, error), nullptr);
  EXPECT_NE(error.find("a certificate does not parse"), std::string::npos) << error;
}

}  // namespace
}  // namespace sh::admin::secure_routes_test

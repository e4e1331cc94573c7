// From the secure serving flags to the secure port (host/cli/secure_serving_options.h): the
// cache TTLs and header names as pflag and the options' Validate take them, the serving
// certificate kept in --cert-dir, and the client CA and front proxy read from the cluster's
// ConfigMap kube-system/extension-apiserver-authentication (the test API server's) or the
// flags.
#include "host/cli/secure_serving_options.h"

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "host/connectors/kube/https_transport.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::secure_serving_options_test {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using cli::ServingFlags;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::unique_ptr<X509, decltype(&X509_free)>> certificatesIn(const std::string& pem) {
  std::vector<std::unique_ptr<X509, decltype(&X509_free)>> out;
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                                BIO_free);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    out.emplace_back(x, X509_free);
  }
  return out;
}

mode_t modeOf(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST(SecureServingOptionsTest, TtlsAreGoDurationsNamedByTheirFlags) {
  std::string error;
  ServingFlags flags;
  std::optional<cli::DelegatedAuth::Options> o = cli::delegatedAuthOptions(flags, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->tokenCacheTtl, 10s);  // upstream's defaults
  EXPECT_EQ(o->authorizedTtl, 10s);
  EXPECT_EQ(o->unauthorizedTtl, 10s);
  EXPECT_EQ(o->requestHeader.usernameHeaders, std::vector<std::string>{"X-Remote-User"});
  EXPECT_EQ(o->requestHeader.groupHeaders, std::vector<std::string>{"X-Remote-Group"});
  EXPECT_EQ(o->requestHeader.extraHeaderPrefixes, std::vector<std::string>{"X-Remote-Extra-"});
  EXPECT_TRUE(o->requestHeader.allowedNames.empty());
  flags.tokenCacheTtl = "1m30s";
  flags.authorizedCacheTtl = "0";
  flags.unauthorizedCacheTtl = "250ms";
  o = cli::delegatedAuthOptions(flags, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->tokenCacheTtl, 90s);
  EXPECT_EQ(o->authorizedTtl, 0ms);
  EXPECT_EQ(o->unauthorizedTtl, 250ms);

  struct Bad {
    std::string ServingFlags::*field;
    std::string value;
    std::string message;
  };
  for (const Bad& bad :
       {Bad{&ServingFlags::tokenCacheTtl, "10",
            "--authentication-token-webhook-cache-ttl \"10\": "},
        Bad{&ServingFlags::authorizedCacheTtl, "ten seconds",
            "--authorization-webhook-cache-authorized-ttl \"ten seconds\": "},
        Bad{&ServingFlags::unauthorizedCacheTtl, "-1s",
            "--authorization-webhook-cache-unauthorized-ttl \"-1s\": must not be negative"}}) {
    ServingFlags f;
    f.*bad.field = bad.value;
    EXPECT_FALSE(cli::delegatedAuthOptions(f, error));
    EXPECT_EQ(error.rfind(bad.message, 0), 0u) << error;
  }
}

TEST(SecureServingOptionsTest, HeaderFlagsAreStringSlices) {
  std::string error;
  ServingFlags flags;
  flags.requestheaderUsernameHeaders = std::vector<std::string>{"X-User,X-Login", "X-Name"};
  flags.requestheaderGroupHeaders = std::vector<std::string>{""};  // given empty: none
  flags.requestheaderAllowedNames = std::vector<std::string>{"front-proxy-client,aggregator"};
  flags.alwaysAllowPaths = "/healthz,,/debug/*";
  std::optional<cli::DelegatedAuth::Options> o = cli::delegatedAuthOptions(flags, error);
  ASSERT_TRUE(o) << error;
  EXPECT_EQ(o->requestHeader.usernameHeaders,
            (std::vector<std::string>{"X-User", "X-Login", "X-Name"}));
  EXPECT_TRUE(o->requestHeader.groupHeaders.empty());
  EXPECT_EQ(o->requestHeader.extraHeaderPrefixes, std::vector<std::string>{"X-Remote-Extra-"});
  EXPECT_EQ(o->requestHeader.allowedNames,
            (std::vector<std::string>{"front-proxy-client", "aggregator"}));
  EXPECT_EQ(o->alwaysAllowPaths, (std::vector<std::string>{"/healthz", "/debug/*"}));
  // checkForWhiteSpaceOnly: an empty header name is refused.
  flags.requestheaderExtraHeadersPrefix = std::vector<std::string>{"X-Extra-, "};
  EXPECT_FALSE(cli::delegatedAuthOptions(flags, error));
  EXPECT_EQ(error, "--requestheader-extra-headers-prefix \"X-Extra-, \": empty value");
}

// MaybeDefaultWithSelfSignedCerts with a certificate directory: the pair is made once, written
// as kube-scheduler.crt and .key, and read back on the next start.
TEST(SecureServingOptionsTest, TheCertDirKeepsTheSelfSignedPair) {
  TempDir dir;
  ServingFlags flags;
  flags.certDir = (dir.path() / "certs" / "serving").string();
  flags.bindAddress = "10.1.2.3";
  std::string cert;
  std::string key;
  std::string error;
  ASSERT_TRUE(cli::servingCertificate(flags, cert, key, error)) << error;
  const fs::path crtFile = dir.path() / "certs" / "serving" / "kube-scheduler.crt";
  const fs::path keyFile = dir.path() / "certs" / "serving" / "kube-scheduler.key";
  EXPECT_EQ(slurp(crtFile), cert);
  EXPECT_EQ(slurp(keyFile), key);
  EXPECT_EQ(modeOf(keyFile) & 077, 0u);  // 0600, less the umask
  EXPECT_EQ(modeOf(crtFile) & 0133, 0u);
  // The serving certificate, for the bind address too, then the CA that signed it.
  auto chain = certificatesIn(cert);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(X509_check_issued(chain[1].get(), chain[0].get()), X509_V_OK);
  EXPECT_EQ(X509_check_ip_asc(chain[0].get(), "10.1.2.3", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(chain[0].get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_host(chain[0].get(), "localhost", 0, 0, nullptr), 1);

  // The next start serves the same pair.
  std::string again;
  std::string againKey;
  ASSERT_TRUE(cli::servingCertificate(flags, again, againKey, error)) << error;
  EXPECT_EQ(again, cert);
  EXPECT_EQ(againKey, key);
  // One without the other is an error, naming the missing one.
  fs::remove(keyFile);
  EXPECT_FALSE(cli::servingCertificate(flags, again, againKey, error));
  EXPECT_EQ(error, "--cert-dir: error reading " + keyFile.string() +
                       ", certificate and key must be supplied as a pair");
  // --tls-cert-file and --tls-private-key-file win: the directory is not touched.
  std::ofstream(dir.path() / "given.crt") << "CERT";
  std::ofstream(dir.path() / "given.key") << "KEY";
  flags.tlsCertFile = (dir.path() / "given.crt").string();
  flags.tlsPrivateKeyFile = (dir.path() / "given.key").string();
  ASSERT_TRUE(cli::servingCertificate(flags, again, againKey, error)) << error;
  EXPECT_EQ(again, "CERT");
  EXPECT_EQ(againKey, "KEY");
  EXPECT_FALSE(fs::exists(keyFile));
  flags.tlsPrivateKeyFile.clear();
  EXPECT_FALSE(cli::servingCertificate(flags, again, againKey, error));
  EXPECT_EQ(error, "--tls-cert-file and --tls-private-key-file go together");

  // Without --cert-dir: made in memory, each start its own, for localhost when the bind
  // address is unspecified.
  ServingFlags memory;
  memory.bindAddress = "::";
  ASSERT_TRUE(cli::servingCertificate(memory, cert, key, error)) << error;
  ASSERT_TRUE(cli::servingCertificate(memory, again, againKey, error)) << error;
  EXPECT_NE(again, cert);
  chain = certificatesIn(cert);
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(X509_check_host(chain[0].get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_NE(X509_check_ip_asc(chain[0].get(), "::", 0), 1);
}

class ClusterAuthenticationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tls_ = makeTlsMaterial();
    proxy_ = makeTlsMaterial("front-proxy-client");
    FakeApiServer::Options so;
    so.tls = tls_;
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

  // The ConfigMap as kube-apiserver publishes it.
  void publish(json::object data) {
    server_->create("configmaps", json::object{{"apiVersion", "v1"},
                                               {"kind", "ConfigMap"},
                                               {"metadata",
                                                {{"name", "extension-apiserver-authentication"},
                                                 {"namespace", "kube-system"}}},
                                               {"data", std::move(data)}});
  }

  json::object fullData() {
    return {{"client-ca-file", tls_.caCert},
            {"requestheader-client-ca-file", proxy_.caCert},
            {"requestheader-allowed-names", "[\"front-proxy-client\"]"},
            {"requestheader-username-headers", "[\"X-Remote-User\"]"},
            {"requestheader-group-headers", "[\"X-Remote-Group\"]"},
            {"requestheader-extra-headers-prefix", "[\"X-Remote-Extra-\",\"X-Other-\"]"}};
  }

  std::size_t lookups() {
    std::size_t n = 0;
    for (const auto& r : server_->requests()) n += r.resource == "configmaps" ? 1 : 0;
    return n;
  }

  TlsMaterial tls_;
  TlsMaterial proxy_;
  std::unique_ptr<FakeApiServer> server_;
  std::unique_ptr<kube::HttpsTransport> transport_;
};

TEST_F(ClusterAuthenticationTest, TheConfigMapIsReadOnceAndParsed) {
  std::string error;
  // None yet: nothing to take, and no error (RunOnce ignores NotFound).
  std::optional<cli::ClusterAuthentication> found =
      cli::lookUpClusterAuthentication(*transport_, error);
  ASSERT_TRUE(found) << error;
  EXPECT_TRUE(found->clientCa.empty());
  EXPECT_TRUE(found->requestHeaderCa.empty());
  const auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].path,
            "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");

  publish(fullData());
  found = cli::lookUpClusterAuthentication(*transport_, error);
  ASSERT_TRUE(found) << error;
  EXPECT_EQ(found->clientCa, tls_.caCert);
  EXPECT_EQ(found->requestHeaderCa, proxy_.caCert);
  EXPECT_EQ(found->allowedNames, std::vector<std::string>{"front-proxy-client"});
  EXPECT_EQ(found->usernameHeaders, std::vector<std::string>{"X-Remote-User"});
  EXPECT_EQ(found->groupHeaders, std::vector<std::string>{"X-Remote-Group"});
  EXPECT_EQ(found->extraHeaderPrefixes, (std::vector<std::string>{"X-Remote-Extra-", "X-Other-"}));
}

TEST_F(ClusterAuthenticationTest, WhatCannotBeReadIsAnError) {
  std::string error;
  // Forbidden: says how to grant it.
  server_->failNext("GET /api/v1/namespaces/kube-system/configmaps", 403, 1);
  EXPECT_FALSE(cli::lookUpClusterAuthentication(*transport_, error));
  EXPECT_EQ(error.rfind("403 Forbidden", 0), 0u) << error;
  EXPECT_NE(error.find("--role=extension-apiserver-authentication-reader"), std::string::npos)
      << error;
  // A list that is not a JSON array of strings.
  json::object data = fullData();
  data["requestheader-group-headers"] = "X-Remote-Group";
  publish(data);
  EXPECT_FALSE(cli::lookUpClusterAuthentication(*transport_, error));
  EXPECT_EQ(error, "requestheader-group-headers: not a JSON array of strings: X-Remote-Group");
  // A CA that does not parse.
  server_->remove("configmaps", "kube-system", "extension-apiserver-authentication");
  data = fullData();
  data["client-ca-file"] = "not a certificate";
  publish(data);
  EXPECT_FALSE(cli::lookUpClusterAuthentication(*transport_, error));
  EXPECT_EQ(error, "client-ca-file: no certificate in it");
}

// DelegatingAuthenticationOptions.ApplyTo: each CA the flags do not give comes from the
// cluster, with the cluster's lists; the flags' lists go with the flag's CA.
TEST_F(ClusterAuthenticationTest, FlagsFirstThenTheCluster) {
  TempDir dir;
  publish(fullData());
  std::string error;
  std::string cas;
  // Nothing given: both from the ConfigMap.
  ServingFlags flags;
  cli::DelegatedAuth::Options o = *cli::delegatedAuthOptions(flags, error);
  ASSERT_TRUE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error)) << error;
  EXPECT_NE(o.clientCa, nullptr);
  EXPECT_NE(o.requestHeader.ca, nullptr);
  EXPECT_EQ(o.requestHeader.extraHeaderPrefixes,
            (std::vector<std::string>{"X-Remote-Extra-", "X-Other-"}));
  EXPECT_EQ(cas, tls_.caCert + proxy_.caCert);  // the handshake asks for either
  std::string verifyError;
  EXPECT_TRUE(o.clientCa->verify({tls_.clientCert}, verifyError)) << verifyError;
  EXPECT_FALSE(o.clientCa->verify({proxy_.clientCert}, verifyError));
  EXPECT_TRUE(o.requestHeader.ca->verify({proxy_.clientCert}, verifyError)) << verifyError;
  EXPECT_EQ(lookups(), 1u);

  // The front proxy from its flags (their defaults, X-Remote-Extra- alone), the client CA
  // still from the cluster.
  fs::path proxyCa = dir.path() / "front-proxy-ca.crt";
  std::ofstream(proxyCa) << proxy_.caCert;
  flags.requestheaderClientCaFile = proxyCa.string();
  o = *cli::delegatedAuthOptions(flags, error);
  ASSERT_TRUE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error)) << error;
  EXPECT_NE(o.clientCa, nullptr);
  EXPECT_EQ(o.requestHeader.extraHeaderPrefixes, std::vector<std::string>{"X-Remote-Extra-"});
  EXPECT_TRUE(o.requestHeader.allowedNames.empty());
  EXPECT_EQ(lookups(), 2u);

  // Both given: no lookup.
  fs::path clientCa = dir.path() / "client-ca.crt";
  std::ofstream(clientCa) << proxy_.caCert;  // another CA than the cluster's
  flags.clientCaFile = clientCa.string();
  o = *cli::delegatedAuthOptions(flags, error);
  ASSERT_TRUE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error)) << error;
  EXPECT_TRUE(o.clientCa->verify({proxy_.clientCert}, verifyError)) << verifyError;
  EXPECT_EQ(lookups(), 2u);

  // --authentication-skip-lookup: no lookup, nothing from the cluster.
  ServingFlags skip;
  skip.authenticationSkipLookup = true;
  o = *cli::delegatedAuthOptions(skip, error);
  ASSERT_TRUE(cli::applyClientAuthentication(skip, transport_.get(), o, cas, error)) << error;
  EXPECT_EQ(o.clientCa, nullptr);
  EXPECT_EQ(o.requestHeader.ca, nullptr);
  EXPECT_TRUE(cas.empty());
  EXPECT_EQ(lookups(), 2u);

  // A CA file that is not one names its flag.
  std::ofstream(clientCa, std::ios::trunc) << "garbage";
  o = *cli::delegatedAuthOptions(flags, error);
  EXPECT_FALSE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error));
  EXPECT_EQ(error, "--client-ca-file: no certificate in it");
}

TEST_F(ClusterAuthenticationTest, AFailedLookupIsAnErrorOnlyWhenNotTolerated) {
  publish(fullData());
  std::string error;
  std::string cas;
  ServingFlags flags;  // kube-scheduler's default: tolerated
  cli::DelegatedAuth::Options o = *cli::delegatedAuthOptions(flags, error);
  server_->failNext("GET /api/v1/namespaces/kube-system/configmaps", 403, 1);
  ASSERT_TRUE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error)) << error;
  EXPECT_EQ(o.clientCa, nullptr);  // what the lookup would have given stays off
  EXPECT_EQ(o.requestHeader.ca, nullptr);
  EXPECT_TRUE(cas.empty());

  flags.authenticationTolerateLookupFailure = false;
  server_->failNext("GET /api/v1/namespaces/kube-system/configmaps", 500, 1);
  EXPECT_FALSE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error));
  EXPECT_EQ(error.rfind("unable to load configmap kube-system/extension-apiserver-authentication: "
                        "500 ",
                        0),
            0u)
      << error;
  // Not tolerated, and it works: as before.
  ASSERT_TRUE(cli::applyClientAuthentication(flags, transport_.get(), o, cas, error)) << error;
  EXPECT_NE(o.clientCa, nullptr);
}

}  // namespace
}  // namespace sh::kubetest::secure_serving_options_test

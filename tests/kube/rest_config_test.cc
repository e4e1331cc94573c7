// loadRestConfig: every kubeconfig field, paths relative to their file, $KUBECONFIG merging,
// --context, ~/.kube/config, the in-cluster configuration, and every error message.
#include "host/connectors/kube/rest_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace sh::kube::rest_config_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "rest-config-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string path() const { return path_; }
  // Writes `contents` to `name` (subdirectories made); returns the full path.
  std::string write(const std::string& name, const std::string& contents) const {
    fs::path file = fs::path(path_) / name;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << contents;
    return file.string();
  }

 private:
  std::string path_;
};

class RestConfigTest : public ::testing::Test {
 protected:
  RestConfigOptions options() {
    RestConfigOptions options;
    options.getenv = [this](const char* name) -> const char* {
      auto it = env_.find(name);
      return it == env_.end() ? nullptr : it->second.c_str();
    };
    options.home = home_.path();
    options.serviceAccountDir = dir_.path() + "/sa";
    return options;
  }
  std::optional<RestConfig> load(const RestConfigOptions& options) {
    error_.clear();
    return loadRestConfig(options, error_);
  }
  std::string loadError(const RestConfigOptions& options) {
    auto config = load(options);
    EXPECT_FALSE(config.has_value());
    return error_;
  }

  TempDir dir_;
  TempDir home_;
  std::map<std::string, std::string> env_;
  std::string error_;
};

constexpr const char* kFull = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev-cluster
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority-data: CADATA
    tls-server-name: api.internal
users:
- name: dev-user
  user:
    client-certificate-data: CERTDATA
    client-key-data: KEYDATA
    token: sekret
contexts:
- name: dev
  context:
    cluster: dev-cluster
    user: dev-user
    namespace: team-a
- name: other
  context:
    cluster: dev-cluster
)";

std::string fullConfig() {
  std::string text = kFull;
  auto replace = [&](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("CADATA", encodeBase64("-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n"));
  replace("CERTDATA", encodeBase64("client cert pem"));
  replace("KEYDATA", encodeBase64("client key pem!"));
  return text;
}

TEST_F(RestConfigTest, ExplicitKubeconfigEveryField) {
  auto opts = options();
  opts.kubeconfig = dir_.write("config", fullConfig());
  auto config = load(opts);
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
  EXPECT_EQ(config->context, "dev");
  EXPECT_EQ(config->source, opts.kubeconfig);
  EXPECT_EQ(config->namespaceName, "team-a");
  EXPECT_EQ(config->caPem, "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(config->clientCertPem, "client cert pem");
  EXPECT_EQ(config->clientKeyPem, "client key pem!");
  EXPECT_EQ(config->token, "sekret");
  EXPECT_EQ(config->tokenFile, "");
  EXPECT_FALSE(config->insecureSkipTlsVerify);
  EXPECT_EQ(config->tlsServerName, "api.internal");
}

TEST_F(RestConfigTest, ContextFlagOverridesCurrentContext) {
  auto opts = options();
  opts.kubeconfig = dir_.write("config", fullConfig());
  opts.context = "other";
  auto config = load(opts);
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->context, "other");
  EXPECT_EQ(config->namespaceName, "default");  // the context sets none
  EXPECT_EQ(config->token, "");                 // and no user
  EXPECT_EQ(config->clientCertPem, "");
}

TEST_F(RestConfigTest, FilePathsAreRelativeToTheirKubeconfig) {
  dir_.write("k/ca.crt", "-----BEGIN CERTIFICATE-----\nCA FILE\n-----END CERTIFICATE-----\n");
  dir_.write("k/certs/admin.crt", "CERT FILE");
  dir_.write("admin.key", "KEY FILE");
  dir_.write("k/token", "  file-token\n");
  const std::string path = dir_.write("k/config", R"(
current-context: c
clusters:
- name: c
  cluster: {server: "https://h:1", certificate-authority: ca.crt}
users:
- name: u
  user: {client-certificate: certs/admin.crt, client-key: ../admin.key, tokenFile: token}
contexts:
- name: c
  context: {cluster: c, user: u}
)");
  auto opts = options();
  opts.kubeconfig = path;
  auto config = load(opts);
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->caPem, "-----BEGIN CERTIFICATE-----\nCA FILE\n-----END CERTIFICATE-----\n");
  EXPECT_EQ(config->clientCertPem, "CERT FILE");
  EXPECT_EQ(config->clientKeyPem, "KEY FILE");
  EXPECT_EQ(config->tokenFile, dir_.path() + "/k/token");
  EXPECT_EQ(config->token, "file-token");
}

TEST_F(RestConfigTest, AbsolutePathsAndInsecureAndPlainHttp) {
  const std::string cert = dir_.write("abs/admin.crt", "ABS CERT");
  const std::string key = dir_.write("abs/admin.key", "ABS KEY");
  const std::string path = dir_.write("config", R"(
current-context: c
clusters:
- name: c
  cluster: {server: "http://127.0.0.1:8080", insecure-skip-tls-verify: true}
users:
- name: u
  user: {client-certificate: )" + cert +
                                                    ", client-key: " + key + R"(}
contexts:
- name: c
  context: {cluster: c, user: u, namespace: ns1}
)");
  auto opts = options();
  opts.kubeconfig = path;
  auto config = load(opts);
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->server, "http://127.0.0.1:8080");
  EXPECT_TRUE(config->insecureSkipTlsVerify);
  EXPECT_EQ(config->clientCertPem, "ABS CERT");
  EXPECT_EQ(config->clientKeyPem, "ABS KEY");
  EXPECT_EQ(config->namespaceName, "ns1");
}

TEST_F(RestConfigTest, KubeconfigListMergesFirstFileWins) {
  // a: cluster c (server A), context x, no current-context.
  const std::string a = dir_.write("a/config", R"(
clusters:
- name: c
  cluster: {server: "https://a:1"}
contexts:
- name: x
  context: {cluster: c, user: u}
)");
  // b: cluster c again (server B, ignored), user u with a relative tokenFile, context y, and
  // the current-context; c: another current-context, ignored as b sets one first.
  dir_.write("b/token", "b-token");
  const std::string b = dir_.write("b/config", R"(
current-context: x
clusters:
- name: c
  cluster: {server: "https://b:2"}
- name: d
  cluster: {server: "https://d:4"}
users:
- name: u
  user: {tokenFile: token}
contexts:
- name: x
  context: {cluster: d}
- name: y
  context: {cluster: d, namespace: from-b}
)");
  const std::string c = dir_.write("c/config", "current-context: y\n");
  env_["KUBECONFIG"] = a + ":" + dir_.path() + "/missing:" + b + ":" + c;
  auto config = load(options());
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->context, "x");
  EXPECT_EQ(config->server, "https://a:1");
  EXPECT_EQ(config->tokenFile, dir_.path() + "/b/token");
  EXPECT_EQ(config->token, "b-token");
  EXPECT_EQ(config->source, a + ":" + b + ":" + c);

  auto opts = options();
  opts.context = "y";
  config = load(opts);
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->server, "https://d:4");
  EXPECT_EQ(config->namespaceName, "from-b");
}

TEST_F(RestConfigTest, ExplicitKubeconfigIsNotMergedAndWinsOverEnvironment) {
  const std::string a = dir_.write("a", R"(
current-context: x
contexts: [{name: x, context: {cluster: c}}]
)");
  const std::string b = dir_.write("b", R"(
clusters: [{name: c, cluster: {server: "https://b:2"}}]
)");
  env_["KUBECONFIG"] = b;
  auto opts = options();
  opts.kubeconfig = a;
  EXPECT_EQ(loadError(opts), "kubeconfig " + a + ": contexts[x]: cluster \"c\" not found");
}

TEST_F(RestConfigTest, HomeKubeConfigWhenNoEnvironment) {
  home_.write(".kube/config", R"(
current-context: x
clusters: [{name: c, cluster: {server: "https://home:443"}}]
contexts: [{name: x, context: {cluster: c}}]
)");
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";  // a kubeconfig wins over in-cluster
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  auto config = load(options());
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->server, "https://home:443");
  EXPECT_EQ(config->source, home_.path() + "/.kube/config");
}

constexpr const char* kClusterCa =
    "-----BEGIN CERTIFICATE-----\nCLUSTER CA\n-----END CERTIFICATE-----\n";

TEST_F(RestConfigTest, InClusterConfig) {
  dir_.write("sa/token", "sa-token\n");
  dir_.write("sa/ca.crt", kClusterCa);
  dir_.write("sa/namespace", "kube-system\n");
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  auto config = load(options());
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->server, "https://10.96.0.1:443");
  EXPECT_EQ(config->context, "in-cluster");
  EXPECT_EQ(config->source, "in-cluster");
  EXPECT_EQ(config->token, "sa-token");
  EXPECT_EQ(config->tokenFile, dir_.path() + "/sa/token");
  EXPECT_EQ(config->caPem, kClusterCa);
  EXPECT_EQ(config->namespaceName, "kube-system");
}

TEST_F(RestConfigTest, InClusterIpv6HostAndDefaultNamespace) {
  dir_.write("sa/token", "t");
  env_["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  env_["KUBERNETES_SERVICE_PORT"] = "6443";
  auto config = load(options());
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->server, "https://[fd00::1]:6443");
  EXPECT_EQ(config->namespaceName, "default");
  EXPECT_EQ(config->caPem, "");
}

TEST_F(RestConfigTest, InClusterWithoutTokenIsAnError) {
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  EXPECT_EQ(loadError(options()), "in-cluster config: cannot read " + dir_.path() +
                                      "/sa/token: No such file or directory");
}

TEST_F(RestConfigTest, EmptyKubeconfigListFallsBackToInCluster) {
  dir_.write("sa/token", "t");
  env_["KUBECONFIG"] = dir_.path() + "/none1:" + dir_.path() + "/none2";
  env_["KUBERNETES_SERVICE_HOST"] = "10.0.0.9";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  auto config = load(options());
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->context, "in-cluster");
}

TEST_F(RestConfigTest, NothingFoundSaysWhereItLooked) {
  const std::string error = loadError(options());
  EXPECT_THAT(error, HasSubstr("no Kubernetes configuration found"));
  EXPECT_THAT(error, HasSubstr(home_.path() + "/.kube/config"));
  EXPECT_THAT(error, HasSubstr("KUBERNETES_SERVICE_HOST"));

  env_["KUBECONFIG"] = "/nonexistent/a";
  EXPECT_THAT(loadError(options()), HasSubstr("$KUBECONFIG (/nonexistent/a)"));
}

struct ErrorCase {
  const char* name;
  std::string yaml;
  std::string expected;  // with FILE for the kubeconfig path and DIR for its directory
};

TEST_F(RestConfigTest, ErrorMessages) {
  const std::string users = R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users:
- name: u
  user: )";
  const std::vector<ErrorCase> cases = {
      {"context", "current-context: prod\n", "kubeconfig FILE: context \"prod\" not found"},
      {"no current", "clusters: []\n",
       "kubeconfig FILE: no current-context is set and no --context was given"},
      {"cluster", "current-context: c\ncontexts: [{name: c, context: {cluster: nope}}]\n",
       "kubeconfig FILE: contexts[c]: cluster \"nope\" not found"},
      {"no cluster", "current-context: c\ncontexts: [{name: c, context: {user: u}}]\n",
       "kubeconfig FILE: contexts[c].cluster: not set"},
      {"user",
       "current-context: c\nclusters: [{name: c, cluster: {server: 'https://h'}}]\n"
       "contexts: [{name: c, context: {cluster: c, user: nobody}}]\n",
       "kubeconfig FILE: contexts[c]: user \"nobody\" not found"},
      {"server",
       "current-context: c\nclusters: [{name: c, cluster: {}}]\n"
       "contexts: [{name: c, context: {cluster: c}}]\n",
       "kubeconfig FILE: clusters[c].server: not set"},
      {"scheme",
       "current-context: c\nclusters: [{name: c, cluster: {server: 'ftp://h'}}]\n"
       "contexts: [{name: c, context: {cluster: c}}]\n",
       "kubeconfig FILE: clusters[c].server: \"ftp://h\" is not an https:// or http:// URL"},
      {"ca base64",
       "current-context: c\nclusters: [{name: c, cluster: {server: 'https://h', "
       "certificate-authority-data: 'not*base64'}}]\ncontexts: [{name: c, context: {cluster: "
       "c}}]\n",
       "kubeconfig FILE: clusters[c].certificate-authority-data: not valid base64"},
      {"ca file",
       "current-context: c\nclusters: [{name: c, cluster: {server: 'https://h', "
       "certificate-authority: ca.pem}}]\ncontexts: [{name: c, context: {cluster: c}}]\n",
       "kubeconfig FILE: clusters[c].certificate-authority: cannot read DIR/ca.pem: No such "
       "file or directory"},
      {"insecure with ca",
       "current-context: c\nclusters: [{name: c, cluster: {server: 'https://h', "
       "certificate-authority-data: Q0E=, insecure-skip-tls-verify: true}}]\n"
       "contexts: [{name: c, context: {cluster: c}}]\n",
       "kubeconfig FILE: clusters[c]: specifying a root certificates file with the insecure "
       "flag is not allowed"},
      {"insecure not bool",
       "current-context: c\nclusters: [{name: c, cluster: {server: 'https://h', "
       "insecure-skip-tls-verify: maybe}}]\ncontexts: [{name: c, context: {cluster: c}}]\n",
       "kubeconfig FILE: clusters[c].insecure-skip-tls-verify: not a boolean"},
      {"client cert", users + "{client-certificate: admin.crt, client-key: admin.key}\n",
       "kubeconfig FILE: users[u].client-certificate: cannot read DIR/admin.crt: No such file "
       "or directory"},
      {"client key data", users + "{client-certificate-data: Q0E=, client-key-data: '@@'}\n",
       "kubeconfig FILE: users[u].client-key-data: not valid base64"},
      {"cert without key", users + "{client-certificate-data: Q0E=}\n",
       "kubeconfig FILE: users[u]: client-certificate given without client-key"},
      {"key without cert", users + "{client-key-data: Q0E=}\n",
       "kubeconfig FILE: users[u]: client-key given without client-certificate"},
      {"token file", users + "{tokenFile: /nonexistent/token}\n",
       "kubeconfig FILE: users[u].tokenFile: cannot read /nonexistent/token: No such file or "
       "directory"},
      // clientcmd's validateAuthInfo messages for an exec entry.
      {"exec mode", users + "{exec: {command: aws, apiVersion: client.authentication.k8s.io/v1}}\n",
       "kubeconfig FILE: users[u].exec: interactiveMode must be specified for u to use exec "
       "authentication plugin"},
      {"exec bad mode",
       users + "{exec: {command: aws, apiVersion: client.authentication.k8s.io/v1, "
               "interactiveMode: Sometimes}}\n",
       "kubeconfig FILE: users[u].exec: invalid interactiveMode for u: \"Sometimes\""},
      {"exec command", users + "{exec: {apiVersion: client.authentication.k8s.io/v1}}\n",
       "kubeconfig FILE: users[u].exec: command must be specified for u to use exec "
       "authentication plugin"},
      {"exec version", users + "{exec: {command: aws}}\n",
       "kubeconfig FILE: users[u].exec: apiVersion must be specified for u to use exec "
       "authentication plugin"},
      {"exec v1alpha1",
       users + "{exec: {command: aws, apiVersion: client.authentication.k8s.io/v1alpha1}}\n",
       "kubeconfig FILE: users[u].exec.apiVersion: exec plugin: invalid apiVersion "
       "\"client.authentication.k8s.io/v1alpha1\" (supported: client.authentication.k8s.io/v1, "
       "client.authentication.k8s.io/v1beta1)"},
      {"exec env",
       users + "{exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1, "
               "env: [{value: x}]}}\n",
       "kubeconfig FILE: users[u].exec.env[0]: env variable name must be specified for u to use "
       "exec authentication plugin"},
      {"exec args",
       users + "{exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1, "
               "args: get-token}}\n",
       "kubeconfig FILE: users[u].exec.args: not a list"},
      {"exec and provider",
       users + "{exec: {command: aws, apiVersion: client.authentication.k8s.io/v1beta1}, "
               "auth-provider: {name: gcp}}\n",
       "kubeconfig FILE: users[u]: authProvider cannot be provided in combination with an exec "
       "plugin for u"},
      {"auth provider", users + "{auth-provider: {name: gcp}}\n",
       "kubeconfig FILE: users[u].auth-provider: auth provider \"gcp\" is not supported"},
      {"yaml", "clusters: [\n  {name: c\n", "kubeconfig FILE: line "},
      {"not a map", "- a\n- b\n", "kubeconfig FILE: not a YAML map"},
      {"not a list", "clusters: {a: b}\n", "kubeconfig FILE: clusters: not a list"},
  };
  int index = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string dir = dir_.path() + "/case" + std::to_string(index++);
    const std::string file = dir_.write("case" + std::to_string(index - 1) + "/config", c.yaml);
    std::string expected = c.expected;
    for (auto at = expected.find("FILE"); at != std::string::npos; at = expected.find("FILE")) {
      expected.replace(at, 4, file);
    }
    for (auto at = expected.find("DIR"); at != std::string::npos; at = expected.find("DIR")) {
      expected.replace(at, 3, dir);
    }
    auto opts = options();
    opts.kubeconfig = file;
    const std::string error = loadError(opts);
    if (std::string(c.name) == "yaml") {
      EXPECT_THAT(error, ::testing::StartsWith(expected));
    } else {
      EXPECT_EQ(error, expected);
    }
  }
}

// Every file a kubeconfig names is read without blocking, regular files only, bounded; a
// certificate-authority file that cannot serve as one is an error naming it, never a silent
// fallback to the system trust store.
TEST_F(RestConfigTest, ACertificateAuthorityFileThatCannotServeIsAnErrorNamingIt) {
  const std::string config = dir_.write("ca/config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://h:1", certificate-authority: ca.pem}}]
contexts: [{name: c, context: {cluster: c}}]
)");
  const std::string ca = dir_.path() + "/ca/ca.pem";
  const std::string prefix = "kubeconfig " + config + ": clusters[c].certificate-authority: ";
  auto opts = options();
  opts.kubeconfig = config;

  dir_.write("ca/ca.pem", "");
  EXPECT_EQ(loadError(opts), prefix + ca + " is empty");
  dir_.write("ca/ca.pem", "  \n");
  EXPECT_EQ(loadError(opts), prefix + ca + " is empty");
  dir_.write("ca/ca.pem", "not a certificate\n");
  EXPECT_EQ(loadError(opts), prefix + ca +
                                 " holds no certificate (no PEM \"-----BEGIN CERTIFICATE-----\" "
                                 "block)");
  fs::remove(ca);
  fs::create_directory(ca);
  EXPECT_EQ(loadError(opts), prefix + "cannot read " + ca + ": not a regular file (a directory)");
  fs::remove(ca);
  ASSERT_EQ(::mkfifo(ca.c_str(), 0600), 0);  // no writer: opening it must not wait
  EXPECT_EQ(loadError(opts), prefix + "cannot read " + ca + ": not a regular file (a FIFO)");
  fs::remove(ca);
  {
    std::ofstream(ca) << "x";
    fs::resize_file(ca, (std::size_t{4} << 20) + 1);  // sparse: costs nothing
  }
  EXPECT_EQ(loadError(opts),
            prefix + "cannot read " + ca + ": larger than the limit of 4 MiB (4194305 bytes)");
  fs::remove(ca);
  if (::geteuid() != 0) {  // root reads every file
    dir_.write("ca/ca.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
    fs::permissions(ca, fs::perms::none);
    EXPECT_EQ(loadError(opts), prefix + "cannot read " + ca + ": Permission denied");
  }
}

TEST_F(RestConfigTest, AnInClusterCaFileThatCannotServeIsAnErrorNamingIt) {
  dir_.write("sa/token", "t");
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  const std::string ca = dir_.path() + "/sa/ca.crt";
  dir_.write("sa/ca.crt", "");
  EXPECT_EQ(loadError(options()), "in-cluster config: " + ca + " is empty");
  dir_.write("sa/ca.crt", "garbage");
  EXPECT_EQ(loadError(options()),
            "in-cluster config: " + ca +
                " holds no certificate (no PEM \"-----BEGIN CERTIFICATE-----\" block)");
  fs::remove(ca);
  ASSERT_EQ(::mkfifo(ca.c_str(), 0600), 0);
  EXPECT_EQ(loadError(options()),
            "in-cluster config: cannot read " + ca + ": not a regular file (a FIFO)");
  fs::remove(ca);
  fs::create_directory(ca);
  EXPECT_EQ(loadError(options()),
            "in-cluster config: cannot read " + ca + ": not a regular file (a directory)");
}

// A token with a control character would end the Authorization header and inject what follows
// as headers of its own: refused at load, naming where it came from, never echoing it.
TEST_F(RestConfigTest, ATokenWithAControlCharacterIsRefused) {
  const std::string base = R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://h:1", insecure-skip-tls-verify: true}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users:
- name: u
  user: )";
  auto opts = options();
  opts.kubeconfig = dir_.write("t/config", base + R"({token: "abc\r\nX-Injected: yes"})" + "\n");
  EXPECT_EQ(loadError(opts), "kubeconfig " + opts.kubeconfig +
                                 ": users[u].token: the token holds a control character (CR at "
                                 "offset 3); refused: it would end the Authorization header and "
                                 "inject what follows");
  const std::string tokenFile = dir_.write("t/token", "abc\nX-Injected: yes\n");
  opts.kubeconfig = dir_.write("t/config", base + "{tokenFile: token}\n");
  EXPECT_EQ(loadError(opts), "kubeconfig " + opts.kubeconfig +
                                 ": users[u].tokenFile: " + tokenFile +
                                 ": the token holds a control character (LF at offset 3); "
                                 "refused: it would end the Authorization header and inject what "
                                 "follows");
  EXPECT_EQ(error_.find("Injected"), std::string::npos);

  dir_.write("sa/token", std::string("sa\0token", 8));
  env_["KUBERNETES_SERVICE_HOST"] = "10.96.0.1";
  env_["KUBERNETES_SERVICE_PORT"] = "443";
  EXPECT_EQ(loadError(options()), "in-cluster config: " + dir_.path() +
                                      "/sa/token: the token holds a control character (byte "
                                      "0x00 at offset 2); refused: it would end the "
                                      "Authorization header and inject what follows");
}

// User information in the server URL is refused before anything is resolved or sent, and the
// message never echoes it.
TEST_F(RestConfigTest, UserInformationInTheServerUrlIsRefused) {
  auto opts = options();
  opts.kubeconfig = dir_.write("u/config", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://admin:s3cret@h:6443/"}}]
contexts: [{name: c, context: {cluster: c}}]
)");
  EXPECT_EQ(loadError(opts), "kubeconfig " + opts.kubeconfig +
                                 ": clusters[c].server: the URL holds user information "
                                 "(user:password@host): not supported; credentials belong in the "
                                 "user entry (token, tokenFile, client-certificate)");
  EXPECT_EQ(error_.find("s3cret"), std::string::npos);
}

TEST_F(RestConfigTest, AKubeconfigThatIsNotARegularFileOrTooLargeIsRefused) {
  auto opts = options();
  opts.kubeconfig = dir_.path() + "/fifo";
  ASSERT_EQ(::mkfifo(opts.kubeconfig.c_str(), 0600), 0);
  EXPECT_EQ(loadError(opts),
            "kubeconfig " + opts.kubeconfig + ": cannot read: not a regular file (a FIFO)");
  opts.kubeconfig = dir_.write("big", "x");
  fs::resize_file(opts.kubeconfig, (std::size_t{16} << 20) + 1);
  EXPECT_EQ(loadError(opts), "kubeconfig " + opts.kubeconfig +
                                 ": cannot read: larger than the limit of 16 MiB (16777217 "
                                 "bytes)");
}

TEST_F(RestConfigTest, ExplicitKubeconfigMissing) {
  auto opts = options();
  opts.kubeconfig = dir_.path() + "/nope";
  EXPECT_EQ(loadError(opts),
            "kubeconfig " + opts.kubeconfig + ": cannot read: No such file or directory");
}

// An exec entry as EKS writes it: v1beta1 defaults interactiveMode to IfAvailable; a command
// holding a '/' is relative to the kubeconfig, a bare name is left for $PATH;
// provideClusterInfo hands the plugin the cluster (client-go's rest.ConfigToExecCluster).
TEST_F(RestConfigTest, ExecCredentialPlugins) {
  const std::string ca = "-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n";
  auto opts = options();
  opts.kubeconfig = dir_.write("kube/config", R"(
current-context: eks
clusters:
- name: eks
  cluster:
    server: https://abc.eks.amazonaws.com
    certificate-authority-data: )" + encodeBase64(ca) +
                                                  R"(
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: sts, retries: 3, quoted: "3"}
contexts: [{name: eks, context: {cluster: eks, user: eks}}]
users:
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ../bin/aws
      args: [eks, get-token, --cluster-name, prod]
      env: [{name: AWS_PROFILE, value: ops}]
      installHint: install the AWS CLI
      provideClusterInfo: true
)");
  auto config = load(opts);
  ASSERT_TRUE(config) << error_;
  ASSERT_TRUE(config->exec.has_value());
  const ExecConfig& exec = *config->exec;
  EXPECT_EQ(exec.command, dir_.path() + "/bin/aws");
  EXPECT_EQ(exec.args, (std::vector<std::string>{"eks", "get-token", "--cluster-name", "prod"}));
  ASSERT_EQ(exec.env.size(), 1u);
  EXPECT_EQ(exec.env[0], (std::pair<std::string, std::string>{"AWS_PROFILE", "ops"}));
  EXPECT_EQ(exec.apiVersion, "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(exec.installHint, "install the AWS CLI");
  EXPECT_EQ(exec.interactiveMode, ExecInteractiveMode::kIfAvailable);
  EXPECT_EQ(exec.clusterJson, R"({"server":"https://abc.eks.amazonaws.com",)"
                              R"("certificate-authority-data":")" +
                                  encodeBase64(ca) +
                                  R"(","config":{"audience":"sts","retries":3,"quoted":"3"}})");

  // A bare name is looked up in $PATH when it runs; v1 says its mode; no cluster unless asked.
  opts.kubeconfig = dir_.write("kube/config2", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-gcloud-auth-plugin,
           interactiveMode: Never}
)");
  config = load(opts);
  ASSERT_TRUE(config) << error_;
  ASSERT_TRUE(config->exec.has_value());
  EXPECT_EQ(config->exec->command, "gke-gcloud-auth-plugin");
  EXPECT_EQ(config->exec->interactiveMode, ExecInteractiveMode::kNever);
  EXPECT_EQ(config->exec->clusterJson, "");

  // A token of the user's own wins, as in client-go: the plugin is not run.
  opts.kubeconfig = dir_.write("kube/config3", R"(
current-context: c
clusters: [{name: c, cluster: {server: "https://h:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users:
- name: u
  user:
    token: static
    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, interactiveMode: Never}
)");
  config = load(opts);
  ASSERT_TRUE(config) << error_;
  EXPECT_EQ(config->token, "static");
  EXPECT_FALSE(config->exec.has_value());
}

TEST(Base64Test, EncodesWithPadding) {
  // RFC 4648's test vectors.
  EXPECT_EQ(encodeBase64(""), "");
  EXPECT_EQ(encodeBase64("f"), "Zg==");
  EXPECT_EQ(encodeBase64("fo"), "Zm8=");
  EXPECT_EQ(encodeBase64("foo"), "Zm9v");
  EXPECT_EQ(encodeBase64("foob"), "Zm9vYg==");
  EXPECT_EQ(encodeBase64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(encodeBase64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(encodeBase64(std::string("\xff\x00\xfe", 3)), "/wD+");
}

TEST(Base64Test, DecodesAndRejects) {
  std::string out;
  EXPECT_TRUE(decodeBase64("aGVsbG8=", out));
  EXPECT_EQ(out, "hello");
  EXPECT_TRUE(decodeBase64("aGVs\nbG8h", out));
  EXPECT_EQ(out, "hello!");
  EXPECT_TRUE(decodeBase64("aGk", out));  // padding optional
  EXPECT_EQ(out, "hi");
  EXPECT_FALSE(decodeBase64("a", out));
  EXPECT_FALSE(decodeBase64("aGk=x", out));
  EXPECT_FALSE(decodeBase64("a*b=", out));
}

}  // namespace
}  // namespace sh::kube::rest_config_test

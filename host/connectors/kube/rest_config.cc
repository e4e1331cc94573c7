#include "host/connectors/kube/rest_config.h"

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "host/common/limits.h"
#include "host/common/regular_file.h"
#include "host/common/trim.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace sh::kube {
namespace {

namespace fs = std::filesystem;

// One kubeconfig file as read.
struct KubeconfigFile {
  std::string path;
  YAML::Node root;
};

// A named entry (cluster, user or context) and the file it came from.
struct Entry {
  const KubeconfigFile* file = nullptr;
  YAML::Node body;  // the "cluster" / "user" / "context" map
};

// A file the configuration names, read whole: a regular file, opened without blocking, of at
// most `maxBytes` (host/common/regular_file.h).
bool readFile(const std::string& path, std::string& contents, std::string& error,
              std::size_t maxBytes = limits::kMaxCredentialFileBytes) {
  std::string why;
  std::optional<std::string> text = readRegularFile(path, maxBytes, why);
  if (!text) {
    error = "cannot read " + why;
    return false;
  }
  contents = std::move(*text);
  return true;
}

bool fileExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// `path` relative to the directory of the kubeconfig file `base`.
std::string resolvePath(const std::string& base, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return (fs::path(base).parent_path() / path).lexically_normal().string();
}

// A scalar field as a string; false (with error) when present but not a scalar.
bool scalarField(const YAML::Node& map, const char* key, std::string& out, std::string& error) {
  const YAML::Node node = map[key];
  if (!node || node.IsNull()) return true;
  if (!node.IsScalar()) {
    error = std::string(key) + ": not a string";
    return false;
  }
  out = node.Scalar();
  return true;
}

bool boolField(const YAML::Node& map, const char* key, bool& out, std::string& error) {
  const YAML::Node node = map[key];
  if (!node || node.IsNull()) return true;
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    error = std::string(key) + ": not a boolean";
    return false;
  }
  out = value;
  return true;
}

bool loadFile(const std::string& path, KubeconfigFile& file, std::string& error) {
  std::string text;
  std::string readError;
  if (std::optional<std::string> read =
          readRegularFile(path, limits::kMaxKubeconfigBytes, readError)) {
    text = std::move(*read);
  } else {
    // readRegularFile says "PATH: cause".
    error = "kubeconfig " + path + ": cannot read: " + readError.substr(path.size() + 2);
    return false;
  }
  file.path = path;
  try {
    file.root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    error = "kubeconfig " + path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg;
    return false;
  }
  if (file.root.IsNull()) file.root = YAML::Node(YAML::NodeType::Map);
  if (!file.root.IsMap()) {
    error = "kubeconfig " + path + ": not a YAML map";
    return false;
  }
  for (const char* list : {"clusters", "users", "contexts"}) {
    const YAML::Node node = file.root[list];
    if (node && !node.IsNull() && !node.IsSequence()) {
      error = "kubeconfig " + path + ": " + list + ": not a list";
      return false;
    }
  }
  return true;
}

// Finds `name` in the list `list` ("clusters") under `key` ("cluster"), first file first.
bool findEntry(const std::vector<KubeconfigFile>& files, const char* list, const char* key,
               const std::string& name, Entry& entry, std::string& error) {
  for (const auto& file : files) {
    const YAML::Node items = file.root[list];
    if (!items || !items.IsSequence()) continue;
    for (const auto& item : items) {
      if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) continue;
      if (item["name"].Scalar() != name) continue;
      const YAML::Node body = item[key];
      if (body && !body.IsNull() && !body.IsMap()) {
        error = "kubeconfig " + file.path + ": " + list + "[" + name + "]." + key + ": not a map";
        return false;
      }
      entry.file = &file;
      entry.body = body ? body : YAML::Node(YAML::NodeType::Map);
      if (entry.body.IsNull()) entry.body = YAML::Node(YAML::NodeType::Map);
      return true;
    }
  }
  entry.file = nullptr;
  return true;
}

constexpr const char* kNoCertificate = "no PEM \"-----BEGIN CERTIFICATE-----\" block";

// A certificate-authority file must hold a certificate: one that does not is an error, never
// "no CA" and the system trust store.
bool holdsCertificate(const std::string& pem) {
  return pem.find("-----BEGIN CERTIFICATE-----") != std::string::npos;
}

// Reads PEM text from `<field>-data` (base64) or `<field>` (a file path); data wins.
bool pemField(const Entry& entry, const std::string& where, const char* field, std::string& out,
              std::string& error) {
  const std::string prefix = "kubeconfig " + entry.file->path + ": " + where + ".";
  std::string data;
  std::string path;
  std::string fieldError;
  const std::string dataKey = std::string(field) + "-data";
  if (!scalarField(entry.body, dataKey.c_str(), data, fieldError) ||
      !scalarField(entry.body, field, path, fieldError)) {
    error = prefix + fieldError;
    return false;
  }
  if (!data.empty()) {
    if (!decodeBase64(data, out)) {
      error = prefix + dataKey + ": not valid base64";
      return false;
    }
    return true;
  }
  if (!path.empty()) {
    const std::string file = resolvePath(entry.file->path, path);
    std::string readError;
    if (!readFile(file, out, readError)) {
      error = prefix + field + ": " + readError;
      return false;
    }
    // A file that is named must hold what it is named for: an empty CA file must never
    // become "no CA", the system trust store.
    if (trimmed(out).empty()) {
      error = prefix + field + ": " + file + " is empty";
      return false;
    }
    if (std::string_view(field) == "certificate-authority" && !holdsCertificate(out)) {
      error = prefix + field + ": " + file + " holds no certificate (" + kNoCertificate + ")";
      return false;
    }
  }
  return true;
}

std::string joinHostPort(const std::string& host, const std::string& port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + port;
  return host + ":" + port;
}

std::optional<RestConfig> inClusterConfig(const RestConfigOptions& options, const char* host,
                                          const char* port, std::string& error) {
  RestConfig config;
  config.server = "https://" + joinHostPort(host, port);
  config.context = "in-cluster";
  config.source = "in-cluster";
  const std::string dir = options.serviceAccountDir;
  config.tokenFile = dir + "/token";
  std::string token;
  std::string readError;
  if (!readFile(config.tokenFile, token, readError)) {
    error = "in-cluster config: " + readError;
    return std::nullopt;
  }
  config.token = std::string(trimmed(token));
  if (std::string why = bearerTokenProblem(config.token); !why.empty()) {
    error = "in-cluster config: " + config.tokenFile + ": " + why;
    return std::nullopt;
  }
  std::string ca;
  const std::string caFile = dir + "/ca.crt";
  if (!fileExists(caFile)) {
    // As rest.InClusterConfig: no CA file, the system trust store.
    spdlog::warn("in-cluster config: {} does not exist; using the system trust store", caFile);
  } else if (!readFile(caFile, ca, readError)) {
    // There but unusable: never a silent fallback to the system trust store.
    error = "in-cluster config: " + readError;
    return std::nullopt;
  } else if (trimmed(ca).empty()) {
    error = "in-cluster config: " + caFile + " is empty";
    return std::nullopt;
  } else if (!holdsCertificate(ca)) {
    error = "in-cluster config: " + caFile + " holds no certificate (" + kNoCertificate + ")";
    return std::nullopt;
  } else {
    config.caPem = ca;
  }
  config.namespaceName = "default";
  const char* podNamespace = options.getenv ? options.getenv("POD_NAMESPACE") : nullptr;
  std::string ns;
  if (podNamespace != nullptr && *podNamespace != '\0') {
    config.namespaceName = podNamespace;
  } else if (readFile(dir + "/namespace", ns, readError) && !trimmed(ns).empty()) {
    config.namespaceName = std::string(trimmed(ns));
  }
  return config;
}

// `node` as JSON text (maps, sequences and scalars; a scalar that reads as a number or a
// boolean is written as one).
void yamlToJson(const YAML::Node& node, std::string& out) {
  auto quote = [&out](const std::string& text) {
    out += '"';
    for (const char c : text) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[(c >> 4) & 15];
        out += kHex[c & 15];
      } else {
        out += c;
      }
    }
    out += '"';
  };
  if (node.IsMap()) {
    out += '{';
    bool first = true;
    for (const auto& item : node) {
      if (!first) out += ',';
      first = false;
      quote(item.first.as<std::string>(""));
      out += ':';
      yamlToJson(item.second, out);
    }
    out += '}';
  } else if (node.IsSequence()) {
    out += '[';
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (i > 0) out += ',';
      yamlToJson(node[i], out);
    }
    out += ']';
  } else if (node.IsScalar()) {
    // A plain scalar that reads as a boolean or a number is one; anything else (a quoted
    // scalar, tag "!") is a string.
    const std::string& text = node.Scalar();
    double number = 0;
    const bool plain = node.Tag() == "?";
    if (plain && (text == "true" || text == "false")) {
      out += text;
    } else if (plain && YAML::convert<double>::decode(node, number) &&
               text.find_first_not_of("0123456789.-+eE") == std::string::npos) {
      out += text;
    } else {
      quote(text);
    }
  } else {
    out += "null";
  }
}

// A user's `exec` entry (clientcmd's api.ExecConfig), checked as validateAuthInfo does, with
// v1's defaulting (SetDefaults_ExecConfig: interactiveMode IfAvailable for v1beta1).
bool execField(const Entry& user, const std::string& userName, const std::string& userPrefix,
               const Entry& cluster, const RestConfig& config, ExecConfig& exec,
               std::string& error) {
  const std::string prefix = userPrefix + ".exec";
  const YAML::Node node = user.body["exec"];
  if (!node.IsMap()) {
    error = prefix + ": not a map";
    return false;
  }
  std::string fieldError;
  std::string mode;
  bool provideClusterInfo = false;
  if (!scalarField(node, "command", exec.command, fieldError) ||
      !scalarField(node, "apiVersion", exec.apiVersion, fieldError) ||
      !scalarField(node, "installHint", exec.installHint, fieldError) ||
      !scalarField(node, "interactiveMode", mode, fieldError) ||
      !boolField(node, "provideClusterInfo", provideClusterInfo, fieldError)) {
    error = prefix + "." + fieldError;
    return false;
  }
  if (const YAML::Node args = node["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) {
      error = prefix + ".args: not a list";
      return false;
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!args[i].IsScalar()) {
        error = prefix + ".args[" + std::to_string(i) + "]: not a string";
        return false;
      }
      exec.args.push_back(args[i].Scalar());
    }
  }
  if (const YAML::Node env = node["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) {
      error = prefix + ".env: not a list";
      return false;
    }
    for (std::size_t i = 0; i < env.size(); ++i) {
      std::string name;
      std::string value;
      if (!env[i].IsMap() || !scalarField(env[i], "name", name, fieldError) ||
          !scalarField(env[i], "value", value, fieldError)) {
        error = prefix + ".env[" + std::to_string(i) +
                "]: " + (env[i].IsMap() ? fieldError : std::string("not a map"));
        return false;
      }
      if (name.empty()) {
        error = prefix + ".env[" + std::to_string(i) +
                "]: env variable name must be specified for " + userName +
                " to use exec authentication plugin";
        return false;
      }
      exec.env.emplace_back(std::move(name), std::move(value));
    }
  }
  if (exec.command.empty()) {
    error = prefix + ": command must be specified for " + userName +
            " to use exec authentication plugin";
    return false;
  }
  if (exec.apiVersion.empty()) {
    error = prefix + ": apiVersion must be specified for " + userName +
            " to use exec authentication plugin";
    return false;
  }
  if (exec.apiVersion != kExecApiVersionV1 && exec.apiVersion != kExecApiVersionV1Beta1) {
    // client-go's newAuthenticator (v1alpha1 was removed in Kubernetes 1.24).
    error = prefix + ".apiVersion: exec plugin: invalid apiVersion \"" + exec.apiVersion +
            "\" (supported: " + std::string(kExecApiVersionV1) + ", " +
            std::string(kExecApiVersionV1Beta1) + ")";
    return false;
  }
  if (mode.empty() && exec.apiVersion == kExecApiVersionV1Beta1) mode = "IfAvailable";
  if (mode == "Never") {
    exec.interactiveMode = ExecInteractiveMode::kNever;
  } else if (mode == "IfAvailable") {
    exec.interactiveMode = ExecInteractiveMode::kIfAvailable;
  } else if (mode == "Always") {
    exec.interactiveMode = ExecInteractiveMode::kAlways;
  } else if (mode.empty()) {
    error = prefix + ": interactiveMode must be specified for " + userName +
            " to use exec authentication plugin";
    return false;
  } else {
    error = prefix + ": invalid interactiveMode for " + userName + ": \"" + mode + "\"";
    return false;
  }
  // clientcmd's ResolveLocalPaths: a command holding a '/' is a path, relative to the file.
  if (exec.command.find('/') != std::string::npos) {
    exec.command = resolvePath(user.file->path, exec.command);
  }
  if (provideClusterInfo) {
    // clientauthentication's Cluster, as client-go's rest.ConfigToExecCluster fills it.
    std::string json = "{\"server\":";
    yamlToJson(YAML::Node(config.server), json);
    if (!config.tlsServerName.empty()) {
      json += ",\"tls-server-name\":";
      yamlToJson(YAML::Node(config.tlsServerName), json);
    }
    if (config.insecureSkipTlsVerify) json += ",\"insecure-skip-tls-verify\":true";
    if (!config.caPem.empty()) {
      json += ",\"certificate-authority-data\":\"" + encodeBase64(config.caPem) + "\"";
    }
    if (const YAML::Node extensions = cluster.body["extensions"];
        extensions && extensions.IsSequence()) {
      for (const auto& extension : extensions) {
        if (extension.IsMap() && extension["name"] && extension["name"].IsScalar() &&
            extension["name"].Scalar() == "client.authentication.k8s.io/exec" &&
            extension["extension"]) {
          json += ",\"config\":";
          yamlToJson(extension["extension"], json);
        }
      }
    }
    json += '}';
    exec.clusterJson = std::move(json);
  }
  return true;
}

bool validServer(std::string& server) {
  while (!server.empty() && server.back() == '/') server.pop_back();
  if (server.rfind("https://", 0) == 0) return server.size() > 8;
  if (server.rfind("http://", 0) == 0) return server.size() > 7;
  if (server.find("://") != std::string::npos) return false;
  server = "https://" + server;  // as client-go: a bare host:port is https
  return true;
}

std::optional<RestConfig> fromFiles(const std::vector<KubeconfigFile>& files,
                                    const std::string& source, const std::string& contextFlag,
                                    std::string& error) {
  const std::string top = "kubeconfig " + source + ": ";
  std::string contextName = contextFlag;
  if (contextName.empty()) {
    for (const auto& file : files) {
      std::string current;
      std::string fieldError;
      if (!scalarField(file.root, "current-context", current, fieldError)) {
        error = "kubeconfig " + file.path + ": " + fieldError;
        return std::nullopt;
      }
      if (!current.empty()) {
        contextName = current;
        break;
      }
    }
  }
  if (contextName.empty()) {
    error = top + "no current-context is set and no --context was given";
    return std::nullopt;
  }
  Entry context;
  if (!findEntry(files, "contexts", "context", contextName, context, error)) return std::nullopt;
  if (context.file == nullptr) {
    error = top + "context \"" + contextName + "\" not found";
    return std::nullopt;
  }
  const std::string contextWhere = "contexts[" + contextName + "]";
  const std::string contextPrefix = "kubeconfig " + context.file->path + ": " + contextWhere;
  std::string clusterName;
  std::string userName;
  std::string ns;
  std::string fieldError;
  if (!scalarField(context.body, "cluster", clusterName, fieldError) ||
      !scalarField(context.body, "user", userName, fieldError) ||
      !scalarField(context.body, "namespace", ns, fieldError)) {
    error = contextPrefix + "." + fieldError;
    return std::nullopt;
  }
  if (clusterName.empty()) {
    error = contextPrefix + ".cluster: not set";
    return std::nullopt;
  }

  RestConfig config;
  config.context = contextName;
  config.source = source;
  config.namespaceName = ns.empty() ? "default" : ns;

  Entry cluster;
  if (!findEntry(files, "clusters", "cluster", clusterName, cluster, error)) return std::nullopt;
  if (cluster.file == nullptr) {
    error = contextPrefix + ": cluster \"" + clusterName + "\" not found";
    return std::nullopt;
  }
  const std::string clusterWhere = "clusters[" + clusterName + "]";
  const std::string clusterPrefix = "kubeconfig " + cluster.file->path + ": " + clusterWhere;
  if (!scalarField(cluster.body, "server", config.server, fieldError) ||
      !scalarField(cluster.body, "tls-server-name", config.tlsServerName, fieldError) ||
      !boolField(cluster.body, "insecure-skip-tls-verify", config.insecureSkipTlsVerify,
                 fieldError)) {
    error = clusterPrefix + "." + fieldError;
    return std::nullopt;
  }
  if (config.server.empty()) {
    error = clusterPrefix + ".server: not set";
    return std::nullopt;
  }
  if (!validServer(config.server)) {
    error = clusterPrefix + ".server: \"" + config.server + "\" is not an https:// or http:// URL";
    return std::nullopt;
  }
  if (const auto scheme = config.server.find("://"),
      authorityEnd = config.server.find('/', scheme + 3);
      config.server
          .substr(scheme + 3,
                  authorityEnd == std::string::npos ? std::string::npos : authorityEnd - scheme - 3)
          .find('@') != std::string::npos) {
    // Never sent to a resolver, never echoed: it may hold a password.
    error = clusterPrefix +
            ".server: the URL holds user information (user:password@host): not supported; "
            "credentials belong in the user entry (token, tokenFile, client-certificate)";
    return std::nullopt;
  }
  if (!pemField(cluster, clusterWhere, "certificate-authority", config.caPem, error)) {
    return std::nullopt;
  }
  if (config.insecureSkipTlsVerify && !config.caPem.empty()) {
    // clientcmd's validateClusterInfo.
    error = clusterPrefix +
            ": specifying a root certificates file with the insecure flag is not allowed";
    return std::nullopt;
  }

  if (!userName.empty()) {
    Entry user;
    if (!findEntry(files, "users", "user", userName, user, error)) return std::nullopt;
    if (user.file == nullptr) {
      error = contextPrefix + ": user \"" + userName + "\" not found";
      return std::nullopt;
    }
    const std::string userWhere = "users[" + userName + "]";
    const std::string userPrefix = "kubeconfig " + user.file->path + ": " + userWhere;
    const bool hasExec = user.body["exec"] && !user.body["exec"].IsNull();
    if (user.body["auth-provider"] && !user.body["auth-provider"].IsNull()) {
      if (hasExec) {
        // clientcmd's validateAuthInfo.
        error = userPrefix + ": authProvider cannot be provided in combination with an exec " +
                "plugin for " + userName;
        return std::nullopt;
      }
      std::string provider;
      if (user.body["auth-provider"].IsMap()) {
        scalarField(user.body["auth-provider"], "name", provider, fieldError);
      }
      error = userPrefix + ".auth-provider: auth provider" +
              (provider.empty() ? std::string() : " \"" + provider + "\"") + " is not supported";
      return std::nullopt;
    }
    if (!pemField(user, userWhere, "client-certificate", config.clientCertPem, error) ||
        !pemField(user, userWhere, "client-key", config.clientKeyPem, error)) {
      return std::nullopt;
    }
    if (config.clientCertPem.empty() != config.clientKeyPem.empty()) {
      error = userPrefix + ": " +
              (config.clientCertPem.empty() ? "client-key given without client-certificate"
                                            : "client-certificate given without client-key");
      return std::nullopt;
    }
    std::string tokenFile;
    if (!scalarField(user.body, "token", config.token, fieldError) ||
        !scalarField(user.body, "tokenFile", tokenFile, fieldError)) {
      error = userPrefix + "." + fieldError;
      return std::nullopt;
    }
    if (std::string why = bearerTokenProblem(config.token); !why.empty()) {
      error = userPrefix + ".token: " + why;
      return std::nullopt;
    }
    if (!tokenFile.empty()) {
      config.tokenFile = resolvePath(user.file->path, tokenFile);
      if (config.token.empty()) {
        std::string token;
        std::string readError;
        if (!readFile(config.tokenFile, token, readError)) {
          error = userPrefix + ".tokenFile: " + readError;
          return std::nullopt;
        }
        config.token = std::string(trimmed(token));
        if (std::string why = bearerTokenProblem(config.token); !why.empty()) {
          error = userPrefix + ".tokenFile: " + config.tokenFile + ": " + why;
          return std::nullopt;
        }
      }
    }
    if (hasExec) {
      ExecConfig exec;
      if (!execField(user, userName, userPrefix, cluster, config, exec, error)) {
        return std::nullopt;
      }
      if (!config.token.empty() || !config.tokenFile.empty() || !config.clientCertPem.empty()) {
        // client-go's Authenticator.UpdateTransportConfig: credentials of the user's own win.
        spdlog::warn("{}.exec: not run: the user has a {} of its own, which is used", userPrefix,
                     config.clientCertPem.empty() ? "token" : "client certificate");
      } else {
        config.exec = std::move(exec);
      }
    }
  }
  return config;
}

std::vector<std::string> splitList(const std::string& list) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (start <= list.size()) {
    auto end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) parts.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace

std::string bearerTokenProblem(std::string_view token) {
  for (std::size_t i = 0; i < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      const std::string name = c == '\r'   ? "CR"
                               : c == '\n' ? "LF"
                               : c == '\t' ? "TAB"
                                           : std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
      return "the token holds a control character (" + name + " at offset " + std::to_string(i) +
             "); refused: it would end the Authorization header and inject what follows";
    }
  }
  return "";
}

bool decodeBase64(std::string_view text, std::string& out) {
  out.clear();
  unsigned int bits = 0;
  int count = 0;
  int padding = 0;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    int value = -1;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    if (c >= '0' && c <= '9') value = c - '0' + 52;
    if (c == '+') value = 62;
    if (c == '/') value = 63;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (value < 0 || padding > 0) return false;
    bits = (bits << 6) | static_cast<unsigned int>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xff));
    }
  }
  // Leftover bits: 0 (complete), 2 or 4 (one or two chars of padding); 6 is impossible.
  if (count >= 6 || padding > 2) return false;
  return true;
}

std::string encodeBase64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16) |
                   (static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                   static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (const std::size_t left = bytes.size() - i; left > 0) {
    auto n = static_cast<unsigned>(static_cast<unsigned char>(bytes[i])) << 16;
    if (left == 2) n |= static_cast<unsigned>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += left == 2 ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<RestConfig> loadRestConfig(const RestConfigOptions& options, std::string& error) {
  auto getenv = options.getenv ? options.getenv
                               : [](const char* name) -> const char* { return ::getenv(name); };
  std::string home = options.home;
  if (home.empty()) {
    const char* env = getenv("HOME");
    if (env != nullptr) home = env;
  }

  std::vector<KubeconfigFile> files;
  std::string source;
  std::vector<std::string> looked;
  if (!options.kubeconfig.empty()) {
    KubeconfigFile file;
    if (!loadFile(options.kubeconfig, file, error)) return std::nullopt;
    files.push_back(std::move(file));
    source = options.kubeconfig;
  } else if (const char* list = getenv("KUBECONFIG"); list != nullptr && *list != '\0') {
    looked.push_back(std::string("$KUBECONFIG (") + list + ")");
    for (const auto& path : splitList(list)) {
      if (!fileExists(path)) continue;
      KubeconfigFile file;
      if (!loadFile(path, file, error)) return std::nullopt;
      source += (source.empty() ? "" : ":") + path;
      files.push_back(std::move(file));
    }
  } else if (!home.empty()) {
    const std::string path = home + "/.kube/config";
    looked.push_back(path);
    if (fileExists(path)) {
      KubeconfigFile file;
      if (!loadFile(path, file, error)) return std::nullopt;
      files.push_back(std::move(file));
      source = path;
    }
  } else {
    looked.push_back("~/.kube/config ($HOME not set)");
  }
  if (!files.empty()) return fromFiles(files, source, options.context, error);

  const char* host = getenv("KUBERNETES_SERVICE_HOST");
  const char* port = getenv("KUBERNETES_SERVICE_PORT");
  if (host != nullptr && *host != '\0' && port != nullptr && *port != '\0') {
    if (!options.context.empty()) {
      error = "--context \"" + options.context + "\" given but no kubeconfig was found";
      return std::nullopt;
    }
    return inClusterConfig(options, host, port, error);
  }
  looked.push_back("in-cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT not set)");
  error = "no Kubernetes configuration found: looked at";
  for (std::size_t i = 0; i < looked.size(); ++i) error += (i == 0 ? " " : ", ") + looked[i];
  error += "; give --kubeconfig";
  return std::nullopt;
}

}  // namespace sh::kube

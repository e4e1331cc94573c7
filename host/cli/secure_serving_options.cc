#include "host/cli/secure_serving_options.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <utility>

#include <spdlog/spdlog.h>

#include "host/admin/tls.h"
#include "host/common/regular_file.h"
#include "host/config/host_config.h"

namespace sh::cli {
namespace {

namespace json = boost::json;

constexpr std::size_t kCertificateFileLimit = 1 << 20;
constexpr std::size_t kCaFileLimit = 4 << 20;

// A pflag StringSlice: each occurrence split at its commas, the occurrences appended; an
// empty occurrence is an empty list.
std::vector<std::string> sliceOf(const std::vector<std::string>& occurrences) {
  std::vector<std::string> out;
  for (const std::string& occurrence : occurrences) {
    if (occurrence.empty()) continue;
    std::size_t from = 0;
    for (;;) {
      const std::size_t comma = occurrence.find(',', from);
      out.push_back(occurrence.substr(from, comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& occurrences) {
  std::string out;
  for (const std::string& o : occurrences) out += (out.empty() ? "" : ",") + o;
  return out;
}

// os.Open succeeds (certutil.CanReadCertAndKey's canReadFile).
bool canOpen(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

// os.MkdirAll(dir, 0755), then os.WriteFile(path, text, mode).
bool writeFileIn(const std::string& path, const std::string& text, mode_t mode,
                 std::string& error) {
  std::filesystem::path prefix;
  for (const auto& part : std::filesystem::path(path).parent_path()) {
    prefix /= part;
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      error = prefix.string() + ": " + std::strerror(errno);
      return false;
    }
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = path + ": " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

// An address other than 0.0.0.0 and ::, as an IP; empty when unspecified or not an address.
std::string specifiedAddress(const std::string& bindAddress) {
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, bindAddress.c_str(), &v4) == 1) {
    return v4.s_addr == htonl(INADDR_ANY) ? std::string() : bindAddress;
  }
  if (inet_pton(AF_INET6, bindAddress.c_str(), &v6) == 1) {
    return IN6_IS_ADDR_UNSPECIFIED(&v6) ? std::string() : bindAddress;
  }
  return {};
}

// deserializeStrings: "" is an empty list, else a JSON array of strings (null: empty).
bool stringsOf(const json::object& data, const char* key, std::vector<std::string>& out,
               std::string& error) {
  out.clear();
  const json::value* v = data.if_contains(key);
  if (v == nullptr || !v->is_string() || v->get_string().empty()) return true;
  json::error_code ec;
  const json::value list = json::parse(v->get_string(), ec);
  if (!ec && list.is_null()) return true;
  bool ok = !ec && list.is_array();
  if (ok) {
    for (const json::value& item : list.get_array()) {
      ok = ok && item.is_string();
      if (ok) out.emplace_back(item.get_string());
    }
  }
  if (!ok) {
    error = std::string(key) + ": not a JSON array of strings: " + std::string(v->get_string());
    out.clear();
  }
  return ok;
}

std::string textOf(const json::object& data, const char* key) {
  const json::value* v = data.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

std::optional<DelegatedAuth::Options> delegatedAuthOptions(const ServingFlags& flags,
                                                           std::string& error) {
  DelegatedAuth::Options out;
  struct Ttl {
    const std::string& text;
    const char* flag;
    std::chrono::milliseconds& into;
  };
  for (const Ttl& t :
       {Ttl{flags.tokenCacheTtl, "--authentication-token-webhook-cache-ttl", out.tokenCacheTtl},
        Ttl{flags.authorizedCacheTtl, "--authorization-webhook-cache-authorized-ttl",
            out.authorizedTtl},
        Ttl{flags.unauthorizedCacheTtl, "--authorization-webhook-cache-unauthorized-ttl",
            out.unauthorizedTtl}}) {
    if (t.text.empty()) continue;
    std::string why;
    const std::optional<std::chrono::nanoseconds> d = config::parseGoDuration(t.text, why);
    if (!d || d->count() < 0) {
      error = std::string(t.flag) + " \"" + t.text + "\": " + (d ? "must not be negative" : why);
      return std::nullopt;
    }
    t.into = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
  }
  if (flags.alwaysAllowPaths) {
    out.alwaysAllowPaths.clear();
    for (std::string& path : sliceOf({*flags.alwaysAllowPaths})) {
      if (!path.empty()) out.alwaysAllowPaths.push_back(std::move(path));
    }
  }
  DelegatedAuth::Options::RequestHeader& proxy = out.requestHeader;
  if (flags.requestheaderAllowedNames)
    proxy.allowedNames = sliceOf(*flags.requestheaderAllowedNames);
  struct Headers {
    const std::optional<std::vector<std::string>>& given;
    const char* flag;
    std::vector<std::string>& into;
  };
  for (const Headers& h :
       {Headers{flags.requestheaderUsernameHeaders, "--requestheader-username-headers",
                proxy.usernameHeaders},
        Headers{flags.requestheaderGroupHeaders, "--requestheader-group-headers",
                proxy.groupHeaders},
        Headers{flags.requestheaderExtraHeadersPrefix, "--requestheader-extra-headers-prefix",
                proxy.extraHeaderPrefixes}}) {
    if (!h.given) continue;
    h.into = sliceOf(*h.given);
    for (const std::string& name : h.into) {
      // checkForWhiteSpaceOnly.
      if (name.find_first_not_of(" \t\r\n") == std::string::npos) {
        error = std::string(h.flag) + " \"" + joined(*h.given) + "\": empty value";
        return std::nullopt;
      }
    }
  }
  return out;
}

bool servingCertificate(const ServingFlags& flags, std::string& certificatePem,
                        std::string& privateKeyPem, std::string& error) {
  std::string certFile = flags.tlsCertFile;
  std::string keyFile = flags.tlsPrivateKeyFile;
  if (certFile.empty() != keyFile.empty()) {
    error = "--tls-cert-file and --tls-private-key-file go together";
    return false;
  }
  bool read = !certFile.empty();
  if (!read && !flags.certDir.empty()) {
    const std::filesystem::path dir(flags.certDir);
    certFile = (dir / (std::string(kCertDirPairName) + ".crt")).string();
    keyFile = (dir / (std::string(kCertDirPairName) + ".key")).string();
    const bool cert = canOpen(certFile);
    const bool key = canOpen(keyFile);
    if (cert != key) {
      error = "--cert-dir: error reading " + (cert ? keyFile : certFile) +
              ", certificate and key must be supplied as a pair";
      return false;
    }
    read = cert;
  }
  if (read) {
    for (const auto& [path, out] :
         {std::pair{&certFile, &certificatePem}, std::pair{&keyFile, &privateKeyPem}}) {
      std::optional<std::string> text = readRegularFile(*path, kCertificateFileLimit, error);
      if (!text) return false;
      *out = std::move(*text);
    }
    return true;
  }
  // The bind address, or localhost when it is unspecified, beside localhost and 127.0.0.1.
  const std::string address = specifiedAddress(flags.bindAddress);
  std::vector<std::string> ips = {"127.0.0.1"};
  std::vector<std::string> dns;
  if (address.empty()) {
    dns.emplace_back("localhost");
  } else {
    ips.push_back(address);
  }
  if (!admin::selfSignedCertificate("localhost", ips, dns, certificatePem, privateKeyPem, error)) {
    error = "unable to generate self signed cert: " + error;
    return false;
  }
  if (certFile.empty()) {
    spdlog::info("Generated self-signed cert in-memory");
    return true;
  }
  if (!writeFileIn(certFile, certificatePem, 0644, error) ||
      !writeFileIn(keyFile, privateKeyPem, 0600, error)) {
    error = "--cert-dir: " + error;
    return false;
  }
  spdlog::info("Generated self-signed cert ({}, {})", certFile, keyFile);
  return true;
}

std::optional<ClusterAuthentication> lookUpClusterAuthentication(kube::Transport& transport,
                                                                 std::string& error) {
  kube::Request request;
  request.path = "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication";
  request.timeout = std::chrono::seconds(10);
  const kube::Response response = transport.send(request);
  ClusterAuthentication out;
  if (response.status == 404) return out;  // no such ConfigMap: nothing to take
  if (!response.ok()) {
    error = kube::describeFailure(response);
    if (response.status == 403) {
      error +=
          " (usually fixed by 'kubectl create rolebinding -n kube-system ROLEBINDING_NAME "
          "--role=extension-apiserver-authentication-reader --serviceaccount=YOUR_NS:YOUR_SA'; "
          "`schedhost rbac` prints a Role for it)";
    }
    return std::nullopt;
  }
  json::value answer;
  if (!kube::parseBody(response, answer, error)) return std::nullopt;
  json::object none;
  const json::value* data = answer.is_object() ? answer.get_object().if_contains("data") : nullptr;
  const json::object& d = data != nullptr && data->is_object() ? data->get_object() : none;
  out.clientCa = textOf(d, "client-ca-file");
  out.requestHeaderCa = textOf(d, "requestheader-client-ca-file");
  for (const auto& [key, list] :
       {std::pair{"requestheader-allowed-names", &out.allowedNames},
        std::pair{"requestheader-username-headers", &out.usernameHeaders},
        std::pair{"requestheader-group-headers", &out.groupHeaders},
        std::pair{"requestheader-extra-headers-prefix", &out.extraHeaderPrefixes}}) {
    if (!stringsOf(d, key, *list, error)) return std::nullopt;
  }
  for (const auto& [key, pem] : {std::pair{"client-ca-file", &out.clientCa},
                                 std::pair{"requestheader-client-ca-file", &out.requestHeaderCa}}) {
    std::string why;
    if (!pem->empty() && admin::CaBundle::fromPem(*pem, why) == nullptr) {
      error = std::string(key) + ": " + why;
      return std::nullopt;
    }
  }
  return out;
}

bool applyClientAuthentication(const ServingFlags& flags, kube::Transport* lookup,
                               DelegatedAuth::Options& options, std::string& clientCasPem,
                               std::string& error) {
  std::string clientCa;
  std::string proxyCa;
  struct CaFile {
    const std::string& path;
    const char* flag;
    std::string& into;
  };
  for (const CaFile& f :
       {CaFile{flags.clientCaFile, "--client-ca-file", clientCa},
        CaFile{flags.requestheaderClientCaFile, "--requestheader-client-ca-file", proxyCa}}) {
    if (f.path.empty()) continue;
    std::string why;
    std::optional<std::string> text = readRegularFile(f.path, kCaFileLimit, why);
    if (!text) {
      error = std::string(f.flag) + ": " + why;
      return false;
    }
    f.into = std::move(*text);
  }
  const bool clientFromCluster = flags.clientCaFile.empty();
  const bool proxyFromCluster = flags.requestheaderClientCaFile.empty();
  if (proxyFromCluster) {
    for (const auto& [flag, given] :
         {std::pair{"--requestheader-allowed-names", flags.requestheaderAllowedNames.has_value()},
          std::pair{"--requestheader-username-headers",
                    flags.requestheaderUsernameHeaders.has_value()},
          std::pair{"--requestheader-group-headers", flags.requestheaderGroupHeaders.has_value()},
          std::pair{"--requestheader-extra-headers-prefix",
                    flags.requestheaderExtraHeadersPrefix.has_value()}}) {
      if (given) {
        spdlog::warn(
            "{}: without --requestheader-client-ca-file there is no front proxy of the flags; "
            "its settings come from configmap {}",
            flag, kAuthenticationConfigMap);
      }
    }
  }
  if ((clientFromCluster || proxyFromCluster) && !flags.authenticationSkipLookup &&
      lookup != nullptr) {
    std::string why;
    std::optional<ClusterAuthentication> found = lookUpClusterAuthentication(*lookup, why);
    if (!found && !flags.authenticationTolerateLookupFailure) {
      error = "unable to load configmap " + std::string(kAuthenticationConfigMap) + ": " + why;
      return false;
    }
    if (!found) {
      spdlog::warn(
          "Error looking up in-cluster authentication configuration (configmap {}): {}. "
          "Continuing without it: {}this may treat all requests as anonymous. To require the "
          "lookup to succeed, set --authentication-tolerate-lookup-failure=false",
          kAuthenticationConfigMap, why,
          clientFromCluster ? "no client certificate is accepted, and " : "");
    } else {
      if (clientFromCluster) clientCa = std::move(found->clientCa);
      if (proxyFromCluster) {
        proxyCa = std::move(found->requestHeaderCa);
        DelegatedAuth::Options::RequestHeader& proxy = options.requestHeader;
        proxy.allowedNames = std::move(found->allowedNames);
        proxy.usernameHeaders = std::move(found->usernameHeaders);
        proxy.groupHeaders = std::move(found->groupHeaders);
        proxy.extraHeaderPrefixes = std::move(found->extraHeaderPrefixes);
      }
      std::string taken;
      if (clientFromCluster) taken = clientCa.empty() ? "no client CA" : "the client CA";
      if (proxyFromCluster) {
        taken += std::string(taken.empty() ? "" : ", ") +
                 (proxyCa.empty() ? "no front proxy" : "the front proxy");
      }
      spdlog::info("secure serving: from configmap {}: {}", kAuthenticationConfigMap, taken);
    }
  }
  struct Bundle {
    const std::string& pem;
    const char* source;
    std::shared_ptr<const admin::CaBundle>& into;
  };
  for (const Bundle& b :
       {Bundle{clientCa, clientFromCluster ? "client-ca-file" : "--client-ca-file",
               options.clientCa},
        Bundle{proxyCa,
               proxyFromCluster ? "requestheader-client-ca-file" : "--requestheader-client-ca-file",
               options.requestHeader.ca}}) {
    if (b.pem.empty()) continue;
    std::string why;
    b.into = admin::CaBundle::fromPem(b.pem, why);
    if (b.into == nullptr) {
      error = std::string(b.source) + ": " + why;
      return false;
    }
  }
  clientCasPem = clientCa;
  if (!clientCasPem.empty() && clientCasPem.back() != '\n') clientCasPem += '\n';
  clientCasPem += proxyCa;
  return true;
}

}  // namespace sh::cli

#include "host/extender/http_extender.h"

#include <spdlog/spdlog.h>
#include <boost/json/value.hpp>

#include "host/common/regular_file.h"
#include "host/extender/extender_messages.h"

namespace sh::extender {
namespace {

constexpr std::size_t kMaxPemBytes = 1 << 20;

// A PEM from a file or from base64 data (upstream's []byte fields); "" when neither is set.
bool pem(const std::string& file, const std::string& data, const std::string& field,
         std::string& out, std::string& error) {
  if (!data.empty()) {
    if (!kube::decodeBase64(data, out)) {
      error = "tlsConfig." + field + "Data: not base64";
      return false;
    }
    return true;
  }
  if (file.empty()) {
    return true;
  }
  std::string why;
  auto text = readRegularFile(file, kMaxPemBytes, why);
  if (!text) {
    error = "tlsConfig." + field + "File: " + why;
    return false;
  }
  out = std::move(*text);
  return true;
}

bool requestsManaged(const boost::json::value* containers,
                     const std::unordered_set<std::string>& managed) {
  if (containers == nullptr || !containers->is_array()) {
    return false;
  }
  for (const boost::json::value& c : containers->as_array()) {
    const boost::json::value* resources =
        c.is_object() ? c.as_object().if_contains("resources") : nullptr;
    if (resources == nullptr || !resources->is_object()) {
      continue;
    }
    for (const char* list : {"requests", "limits"}) {
      const boost::json::value* names = resources->as_object().if_contains(list);
      if (names == nullptr || !names->is_object()) {
        continue;
      }
      for (const auto& kv : names->as_object()) {
        if (managed.count(std::string(kv.key())) != 0) {
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace

std::shared_ptr<HttpExtender> HttpExtender::create(const config::ExtenderConfig& config,
                                                   std::string& error) {
  const std::string& url = config.urlPrefix;
  const std::size_t scheme = url.find("://");
  if (scheme == std::string::npos ||
      (url.compare(0, scheme, "http") != 0 && url.compare(0, scheme, "https") != 0)) {
    error = "urlPrefix \"" + url + "\" is not an http:// or https:// URL";
    return nullptr;
  }
  const std::size_t pathStart = url.find('/', scheme + 3);
  std::string server = url.substr(0, pathStart);
  std::string path = pathStart == std::string::npos ? std::string() : url.substr(pathStart);
  while (!path.empty() && path.back() == '/') {
    path.pop_back();  // upstream: strings.TrimRight(urlPrefix, "/") + "/" + verb
  }
  if (server.size() <= scheme + 3 || path.find_first_of("?# ") != std::string::npos) {
    error = "urlPrefix \"" + url + "\" is not a URL of a host and a path";
    return nullptr;
  }
  kube::HttpsTransport::Options options;
  options.config.server = std::move(server);
  const config::ExtenderConfig::Tls& tls = config.tls;
  if (!pem(tls.caFile, tls.caData, "ca", options.config.caPem, error) ||
      !pem(tls.certFile, tls.certData, "cert", options.config.clientCertPem, error) ||
      !pem(tls.keyFile, tls.keyData, "key", options.config.clientKeyPem, error)) {
    return nullptr;
  }
  options.config.tlsServerName = tls.serverName;
  options.config.insecureSkipTlsVerify =
      tls.insecure || (config.enableHttps && options.config.caPem.empty());
  options.qps = 0;  // upstream's extender client has no rate limiter
  options.connectTimeout = config.httpTimeout;
  options.requestTimeout = config.httpTimeout;
  options.userAgent = "schedhost-extender-client";
  std::string why;
  std::unique_ptr<kube::HttpsTransport> transport = kube::HttpsTransport::create(options, why);
  if (transport == nullptr) {
    error = why;
    return nullptr;
  }
  return std::shared_ptr<HttpExtender>(
      new HttpExtender(config, std::move(transport), std::move(path)));
}

HttpExtender::HttpExtender(config::ExtenderConfig config,
                           std::unique_ptr<kube::HttpsTransport> transport, std::string pathPrefix)
    : config_(std::move(config)),
      transport_(std::move(transport)),
      pathPrefix_(std::move(pathPrefix)) {
  for (const config::ExtenderConfig::ManagedResource& r : config_.managedResources) {
    managed_.insert(r.name);
  }
}

bool HttpExtender::isInterested(const model::Pod& pod) const {
  if (managed_.empty()) {
    return true;
  }
  const boost::json::value& manifest = pod.manifest();
  const boost::json::value* spec =
      manifest.is_object() ? manifest.as_object().if_contains("spec") : nullptr;
  if (spec == nullptr || !spec->is_object()) {
    return false;
  }
  return requestsManaged(spec->as_object().if_contains("containers"), managed_) ||
         requestsManaged(spec->as_object().if_contains("initContainers"), managed_);
}

Status HttpExtender::failure(const std::string& verb, const std::string& why) const {
  return Status(SH_ERROR, "extender " + config_.urlPrefix + ": " + verb + ": " + why);
}

Status HttpExtender::send(const std::string& verb, std::string body, std::string& answer) const {
  kube::Request request;
  request.method = kube::Method::kPost;
  request.path = pathPrefix_ + "/" + verb;
  request.body = std::move(body);
  request.timeout = config_.httpTimeout;
  kube::Response response = transport_->send(request);
  if (response.status == 0) {
    return failure(verb, response.error);
  }
  if (response.status != 200) {
    // upstream: "failed %v with extender at URL %v, code %v", the URL it posted to:
    // strings.TrimRight(urlPrefix, "/") + "/" + verb.
    std::string_view url = config_.urlPrefix;
    while (!url.empty() && url.back() == '/') {
      url.remove_suffix(1);
    }
    return Status(SH_ERROR, "failed " + verb + " with extender at URL " + std::string(url) + "/" +
                                verb + ", code " + std::to_string(response.status));
  }
  answer = std::move(response.body);
  return Status();
}

Status HttpExtender::filter(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                            cycle::ExtenderFilterResult& out) const {
  if (!isFilter()) {
    for (const model::Node* n : nodes) {
      out.nodes.emplace_back(n->name());
    }
    return Status();
  }
  std::string answer;
  Status s = send(config_.filterVerb, encodeArgs(pod, nodes, config_.nodeCacheCapable), answer);
  if (!s.ok()) {
    return s;
  }
  std::string extenderError;
  std::string problem;
  if (!decodeFilterResult(answer, config_.nodeCacheCapable, out, extenderError, problem)) {
    return failure(config_.filterVerb, problem);
  }
  if (!extenderError.empty()) {
    return Status(SH_ERROR, extenderError);
  }
  std::unordered_set<std::string_view> given;
  for (const model::Node* n : nodes) {
    given.insert(n->name());
  }
  for (const std::string& name : out.nodes) {
    if (given.count(name) == 0) {
      return Status(SH_ERROR, "extender \"" + config_.urlPrefix + "\" claims a filtered node \"" +
                                  name + "\" which is not found in the input node list");
    }
  }
  return Status();
}

Status HttpExtender::prioritize(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                                std::vector<cycle::HostPriority>& out) const {
  if (!isPrioritizer()) {
    for (const model::Node* n : nodes) {
      out.push_back({std::string(n->name()), 0});
    }
    return Status();
  }
  std::string answer;
  Status s = send(config_.prioritizeVerb, encodeArgs(pod, nodes, config_.nodeCacheCapable), answer);
  if (!s.ok()) {
    return s;
  }
  std::string problem;
  if (!decodeHostPriorityList(answer, out, problem)) {
    out.clear();
    return failure(config_.prioritizeVerb, problem);
  }
  return Status();
}

Status HttpExtender::bind(const model::Pod& pod, const std::string& node) const {
  if (!isBinder()) {
    return Status(SH_ERROR, "unexpected empty bindVerb in extender");
  }
  std::string answer;
  Status s = send(config_.bindVerb, encodeBindingArgs(pod, node), answer);
  if (!s.ok()) {
    return s;
  }
  std::string extenderError;
  std::string problem;
  if (!decodeBindingResult(answer, extenderError, problem)) {
    return failure(config_.bindVerb, problem);
  }
  if (!extenderError.empty()) {
    return Status(SH_ERROR, extenderError);
  }
  return Status();
}

Status HttpExtender::processPreemption(const model::Pod& pod, const cycle::NodeVictims& victims,
                                       const cycle::PodOnNode& podOnNode,
                                       cycle::NodeVictims& out) const {
  if (!supportsPreemption()) {
    return Status(SH_ERROR, "preempt verb is not defined for extender " + config_.urlPrefix +
                                " but run into ProcessPreemption");
  }
  std::string answer;
  Status s = send(config_.preemptVerb, encodePreemptionArgs(pod, victims, config_.nodeCacheCapable),
                  answer);
  if (!s.ok()) {
    return s;
  }
  std::map<std::string, MetaVictims> meta;
  std::string problem;
  if (!decodePreemptionResult(answer, meta, problem)) {
    return failure(config_.preemptVerb, problem);
  }
  for (auto& [node, v] : meta) {
    cycle::ExtenderVictims& converted = out[node];
    converted.numPdbViolations = v.numPdbViolations;
    for (const std::string& uid : v.uids) {
      const model::Pod* p = podOnNode(node, uid);
      if (p == nullptr) {
        return Status(SH_ERROR, "extender: " + config_.urlPrefix +
                                    " claims to preempt pod (UID: " + uid + ") on node: " + node +
                                    ", but the pod is not found on that node");
      }
      converted.pods.push_back(p);
    }
  }
  return Status();
}

}  // namespace sh::extender

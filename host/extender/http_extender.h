// HttpExtender: an extender of the host configuration reached over HTTP(S) (upstream
// pkg/scheduler/extender.go: HTTPExtender). Each call is a POST of JSON to
// <urlPrefix>/<verb> (extender_messages.h) within httpTimeout; an answer other than 200, one
// that does not decode, an Error member, or a node the extender was not given is an Error
// status naming the extender and the verb.
//
// TLS as upstream's makeTransport: tlsConfig's CA, client certificate and server name; with
// enableHTTPS and no CA the server is not verified (upstream sets Insecure); an https://
// urlPrefix without enableHTTPS is verified against the system's trust store.
#pragma once

#include <memory>
#include <string>
#include <unordered_set>

#include "host/config/extender_config.h"
#include "host/connectors/kube/https_transport.h"
#include "host/cycle/extender.h"

namespace sh::extender {

class HttpExtender final : public cycle::Extender {
 public:
  // Null with `error` set when the URL or the TLS material is unusable.
  static std::shared_ptr<HttpExtender> create(const config::ExtenderConfig& config,
                                              std::string& error);

  const std::string& name() const override { return config_.urlPrefix; }
  bool isFilter() const override { return !config_.filterVerb.empty(); }
  bool isPrioritizer() const override { return !config_.prioritizeVerb.empty(); }
  bool isBinder() const override { return !config_.bindVerb.empty(); }
  bool supportsPreemption() const override { return !config_.preemptVerb.empty(); }
  bool isIgnorable() const override { return config_.ignorable; }
  int64_t weight() const override { return config_.weight; }
  bool isInterested(const model::Pod& pod) const override;

  Status filter(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                cycle::ExtenderFilterResult& out) const override;
  Status prioritize(const model::Pod& pod, const std::vector<const model::Node*>& nodes,
                    std::vector<cycle::HostPriority>& out) const override;
  Status bind(const model::Pod& pod, const std::string& node) const override;
  Status processPreemption(const model::Pod& pod, const cycle::NodeVictims& victims,
                           const cycle::PodOnNode& podOnNode,
                           cycle::NodeVictims& out) const override;

 private:
  HttpExtender(config::ExtenderConfig config, std::unique_ptr<kube::HttpsTransport> transport,
               std::string pathPrefix);
  // POSTs `body` to <urlPrefix>/<verb>; the answer's body, or an Error status.
  Status send(const std::string& verb, std::string body, std::string& answer) const;
  Status failure(const std::string& verb, const std::string& why) const;

  config::ExtenderConfig config_;
  std::unique_ptr<kube::HttpsTransport> transport_;
  std::string pathPrefix_;  // the URL's path, without a trailing '/'
  std::unordered_set<std::string> managed_;
};

}  // namespace sh::extender

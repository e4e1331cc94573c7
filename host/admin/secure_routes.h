// What a secure server (ServerOptions::gate) answers, as kube-scheduler's secure port: the
// gate first (authentication, then authorization), then upstream's routes, with the health
// paths in the shape of k8s.io/apiserver/pkg/server/healthz (handleRootHealth,
// adaptCheckToHandler). Internal to the admin server; runs on a request's own thread.
#pragma once

#include <stop_token>
#include <string>
#include <string_view>

#include "host/admin/server.h"

namespace sh::admin {

struct SecureAnswer {
  int status = 200;
  std::string contentType;
  std::string body;
};

// /healthz, /livez, /readyz or one of their checks: what the probe lane may serve.
bool isHealthTarget(std::string_view target);

// /debug/pods/NAMESPACE/NAME[?format=...], on either kind of server.
bool isDebugPodTarget(std::string_view target);
// The handler's debugPod() answer to such a target (404 when the names are not object names,
// 400 for an unknown format); never throws.
SecureAnswer serveDebugPod(Handler& handler, std::string_view target, std::stop_token stop);

// The answer to one request; never throws.
SecureAnswer serveSecure(Handler& handler, Gate& gate, std::string_view verb,
                         std::string_view target, const Caller& caller, std::stop_token stop);

}  // namespace sh::admin

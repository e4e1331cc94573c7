// What the API connector's end-to-end tests build a cluster from and check it with: Node and Pod
// manifests, a kubeconfig for the test API server, and the invariants every run must keep
// (each pod bound at most once, no node given more than it has).
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest {

// A ready node with `cpu` (e.g. "4") and `memory` ("8Gi") allocatable, 110 pods.
boost::json::object nodeJson(const std::string& name, const std::string& cpu,
                             const std::string& memory = "16Gi");
// A pending pod asking for `cpu` (e.g. "500m") in one container.
boost::json::object podJson(const std::string& ns, const std::string& name, const std::string& cpu,
                            const std::string& schedulerName = "default-scheduler",
                            int priority = 0);

// How a kubeconfig authenticates.
struct KubeconfigAuth {
  bool clientCert = true;  // the client certificate and key, as files beside the kubeconfig
  std::string token;       // a bearer token, inline
  std::string tokenFile;   // or a file holding it (relative to the kubeconfig's directory)
  bool wrongCa = false;    // trust an unrelated CA instead of the server's
  // An exec credential plugin (client.authentication.k8s.io/v1, interactiveMode Never): the
  // command, relative to the kubeconfig's directory when it holds a '/'.
  std::string execCommand;
};

// A loopback port free now, for a listener that cannot be given port 0 (`--secure-port 0`
// turns the secure port off).
int freePort();

// Writes `dir`/kubeconfig (and the PEM files it names, by paths relative to it) for `server`,
// context "test". Returns the kubeconfig's path.
std::filesystem::path writeKubeconfig(const std::filesystem::path& dir, const std::string& server,
                                      const TlsMaterial& tls, const KubeconfigAuth& auth = {});

// The string at `path` in `o` ({"spec", "nodeName"}); "" when absent or not a string.
std::string stringAt(const boost::json::object& o, std::initializer_list<const char*> path);

// Pods with spec.nodeName set.
std::size_t boundPods(const FakeApiServer& server);
// Everything wrong with the cluster now: a pod bound more than once, a node whose bound pods
// ask for more cpu than it has, a bound pod on a node that does not exist. Empty when sound.
std::vector<std::string> invariantViolations(const FakeApiServer& server);

// A fresh directory under the temporary directory, removed with its content on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace sh::kubetest

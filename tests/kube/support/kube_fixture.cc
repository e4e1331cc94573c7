#include "tests/kube/support/kube_fixture.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <map>

#include <boost/asio/ip/tcp.hpp>
#include <boost/json/array.hpp>

#include "host/model/quantity.h"

namespace sh::kubetest {

namespace json = boost::json;

json::object nodeJson(const std::string& name, const std::string& cpu, const std::string& memory) {
  json::object resources{{"cpu", cpu}, {"memory", memory}, {"pods", "110"}};
  json::object status{
      {"capacity", resources},
      {"allocatable", resources},
      {"conditions", json::array{json::object{{"type", "Ready"}, {"status", "True"}}}}};
  json::object node{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       json::object{{"name", name}, {"labels", json::object{{"kubernetes.io/hostname", name}}}}},
      {"spec", json::object{}},
      {"status", std::move(status)}};
  return node;
}

json::object podJson(const std::string& ns, const std::string& name, const std::string& cpu,
                     const std::string& schedulerName, int priority) {
  json::object container{
      {"name", "app"},
      {"image", "registry.k8s.io/pause:3.10"},
      {"resources", json::object{{"requests", json::object{{"cpu", cpu}, {"memory", "64Mi"}}}}}};
  json::object pod{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", json::object{{"name", name}, {"namespace", ns}}},
                   {"spec", json::object{{"schedulerName", schedulerName},
                                         {"priority", priority},
                                         {"containers", json::array{std::move(container)}}}},
                   {"status", json::object{{"phase", "Pending"}}}};
  return pod;
}

namespace {

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

// Millicores from a quantity string, 0 when it does not parse.
int64_t milliCpu(const std::string& text) {
  std::optional<model::Quantity> q = model::parseQuantity(text);
  return q ? q->milliValue() : 0;
}

}  // namespace

std::string stringAt(const json::object& o, std::initializer_list<const char*> path) {
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (const char* key : path) {
    v = cur != nullptr ? cur->if_contains(key) : nullptr;
    if (v == nullptr) {
      return {};
    }
    cur = v->if_object();
  }
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::filesystem::path writeKubeconfig(const std::filesystem::path& dir, const std::string& server,
                                      const TlsMaterial& tls, const KubeconfigAuth& auth) {
  std::filesystem::create_directories(dir / "pki");
  writeFile(dir / "pki/ca.crt", auth.wrongCa ? tls.otherCaCert : tls.caCert);
  std::string user;
  if (auth.clientCert) {
    writeFile(dir / "pki/client.crt", tls.clientCert);
    writeFile(dir / "pki/client.key", tls.clientKey);
    user += "    client-certificate: pki/client.crt\n    client-key: pki/client.key\n";
  }
  if (!auth.token.empty()) {
    user += "    token: " + auth.token + "\n";
  }
  if (!auth.tokenFile.empty()) {
    user += "    tokenFile: " + auth.tokenFile + "\n";
  }
  if (!auth.execCommand.empty()) {
    user +=
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
        "      interactiveMode: Never\n      command: " +
        auth.execCommand + "\n";
  }
  if (user.empty()) {
    user = "    {}\n";
  }
  const std::string text =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n"
      "    server: " +
      server +
      "\n    certificate-authority: pki/ca.crt\n"
      "users:\n- name: test\n  user:\n" +
      user +
      "contexts:\n- name: test\n  context:\n    cluster: test\n"
      "    user: test\ncurrent-context: test\n";
  writeFile(dir / "kubeconfig", text);
  return dir / "kubeconfig";
}

std::size_t boundPods(const FakeApiServer& server) {
  std::size_t n = 0;
  for (const json::object& pod : server.list("pods")) {
    n += stringAt(pod, {"spec", "nodeName"}).empty() ? 0 : 1;
  }
  return n;
}

std::vector<std::string> invariantViolations(const FakeApiServer& server) {
  std::vector<std::string> out;
  for (const auto& [uid, count] : server.bindCounts()) {
    if (count > 1) {
      out.push_back("pod " + uid + " bound " + std::to_string(count) + " times");
    }
  }
  std::map<std::string, int64_t> capacity;
  for (const json::object& node : server.list("nodes")) {
    capacity[stringAt(node, {"metadata", "name"})] =
        milliCpu(stringAt(node, {"status", "allocatable", "cpu"}));
  }
  std::map<std::string, int64_t> used;
  for (const json::object& pod : server.list("pods")) {
    const std::string node = stringAt(pod, {"spec", "nodeName"});
    if (node.empty()) {
      continue;
    }
    const json::value* containers = pod.at("spec").as_object().if_contains("containers");
    if (containers != nullptr && containers->is_array()) {
      for (const json::value& c : containers->as_array()) {
        used[node] += milliCpu(stringAt(c.as_object(), {"resources", "requests", "cpu"}));
      }
    }
  }
  for (const auto& [node, milli] : used) {
    auto it = capacity.find(node);
    if (it == capacity.end()) {
      continue;  // its node was deleted after the bind: the kubelet's business, not ours
    }
    if (milli > it->second) {
      out.push_back("node " + node + " holds " + std::to_string(milli) + "m cpu of " +
                    std::to_string(it->second) + "m");
    }
  }
  return out;
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("schedhost-kube-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

int freePort() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor acceptor(
      io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

}  // namespace sh::kubetest

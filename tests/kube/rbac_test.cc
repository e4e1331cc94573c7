// packaging/kubernetes/rbac.yaml against what schedhost really asks: a run that touches every
// kind of request (informers, binds, status patches, preemption, events and their series, the
// Lease, VolumeBinding's writes of claims and volumes) is recorded by the test API server, and
// each request must be allowed by a rule of the ClusterRole or the Role, and each rule must
// allow some request. The manifests are read with yaml-cpp.
#include <signal.h>

#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>
#include <boost/json.hpp>

#include "host/connectors/kube/https_transport.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/schedhost_process.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest::rbac_test {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

struct Rule {
  std::set<std::string> groups, resources, verbs, names;
  std::string namespaceName;  // empty: cluster-wide (ClusterRole)
  std::string describe() const {
    std::string out;
    for (const auto& r : resources) out += r + " ";
    for (const auto& v : verbs) out += v + " ";
    return out;
  }
};

std::set<std::string> strings(const YAML::Node& node) {
  std::set<std::string> out;
  for (const auto& n : node) out.insert(n.as<std::string>());
  return out;
}

std::vector<Rule> readRules(const std::string& file) {
  std::vector<Rule> rules;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(file)) {
    const std::string kind = doc["kind"].as<std::string>();
    if (kind != "ClusterRole" && kind != "Role") continue;
    for (const YAML::Node& r : doc["rules"]) {
      Rule rule;
      rule.groups = strings(r["apiGroups"]);
      rule.resources = strings(r["resources"]);
      rule.verbs = strings(r["verbs"]);
      if (r["resourceNames"]) rule.names = strings(r["resourceNames"]);
      if (kind == "Role") rule.namespaceName = doc["metadata"]["namespace"].as<std::string>();
      rules.push_back(rule);
    }
  }
  return rules;
}

// The namespace and name a request path addresses: .../namespaces/<ns>/<resource>/<name>.
std::pair<std::string, std::string> target(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t at = 1;
  while (at <= path.size()) {
    std::size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  std::string ns, name;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] == "namespaces") {
      ns = parts[i + 1];
      if (i + 3 < parts.size()) name = parts[i + 3];
    }
  }
  return {ns, name};
}

bool allows(const Rule& rule, const FakeApiServer::Recorded& r) {
  if (rule.groups.count(r.apiGroup) == 0 || rule.resources.count(r.resource) == 0 ||
      rule.verbs.count(r.verb) == 0) {
    return false;
  }
  const auto [ns, name] = target(r.path);
  if (!rule.namespaceName.empty() && ns != rule.namespaceName) return false;
  return rule.names.empty() || rule.names.count(name) > 0;
}

TEST(RbacTest, TheManifestsAllowExactlyWhatSchedhostAsks) {
  TempDir dir;
  TlsMaterial tls = makeTlsMaterial("schedhost");
  FakeApiServer::Options o;
  o.tls = tls;
  FakeApiServer server(o);
  server.start();
  {
    std::ofstream out(dir.path() / "schedhost.toml");
    out << "parallelism = 2\npodInitialBackoffSeconds = 1\npodMaxBackoffSeconds = 1\n"
           "[reload]\nwatch = false\n[[profiles]]\nschedulerName = \"default-scheduler\"\n";
  }
  server.create("nodes", nodeJson("n1", "1"));
  server.create("pods", podJson("default", "low", "1"));
  auto kubeconfig = writeKubeconfig(dir.path(), server.url(), tls);
  const int securePort = freePort();
  SchedhostProcess run(SCHEDHOST_BIN,
                       {"run", "--config", (dir.path() / "schedhost.toml").string(), "--kubeconfig",
                        kubeconfig.string(), "--plugin-dir", SCHEDHOST_PLUGIN_DIR,
                        "--leader-elect-retry-period=500ms", "--leader-elect-renew-deadline=1s",
                        "--leader-elect-lease-duration=2s", "--bind-address=127.0.0.1",
                        "--secure-port=" + std::to_string(securePort)},
                       dir.path(), "schedhost");
  auto nodeOf = [&](const char* name) {
    auto pod = server.get("pods", "default", name);
    const json::value* spec = pod ? pod->if_contains("spec") : nullptr;
    const json::value* node = spec ? spec->as_object().if_contains("nodeName") : nullptr;
    return node != nullptr && node->is_string() ? std::string(node->as_string()) : std::string();
  };
  ASSERT_TRUE(eventually([&] { return nodeOf("low") == "n1"; }, 60s)) << run.err();
  // A scrape of the secure port, with a token and without: a TokenReview and a
  // SubjectAccessReview.
  for (const std::string token : {"some-token", ""}) {
    kube::HttpsTransport::Options to;
    to.config.server = "https://127.0.0.1:" + std::to_string(securePort);
    to.config.insecureSkipTlsVerify = true;
    to.config.token = token;
    std::string error;
    auto scrape = kube::HttpsTransport::create(to, error);
    ASSERT_NE(scrape, nullptr) << error;
    EXPECT_EQ(scrape->get("/metrics").status, token.empty() ? 403 : 401);
  }
  // A higher-priority pod preempts `low`; a pod too big for any node fails again after each
  // scale-down of its request (an event that retries it), so its FailedScheduling event
  // becomes a series.
  server.create("pods", podJson("default", "high", "1", "default-scheduler", 1000));
  ASSERT_TRUE(eventually([&] { return nodeOf("high") == "n1"; }, 60s)) << run.err();
  server.create("pods", podJson("default", "huge", "100"));
  auto eventPatched = [&] {
    for (const auto& r : server.requests()) {
      if (r.resource == "events" && r.verb == "patch") return true;
    }
    return false;
  };
  for (int i = 1; i < 20 && !eventPatched(); ++i) {
    eventually(eventPatched, 2s);
    auto huge = *server.get("pods", "default", "huge");
    huge["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] =
        json::object{{"requests", json::object{{"cpu", std::to_string(100 - i)}}}};
    server.update("pods", huge);
  }
  ASSERT_TRUE(eventPatched()) << run.err();

  // VolumeBinding's writes, on a second node: a claim of a WaitForFirstConsumer class gets its
  // selected node (update persistentvolumeclaims), and an available local volume is reserved
  // for a claim (update persistentvolumes). No PV controller runs here, so both PreBinds wait
  // until the stop cancels them.
  server.create("nodes", nodeJson("n2", "1"));
  for (const auto& [name, provisioner] :
       {std::pair<std::string, std::string>{"dynamic", "ebs.csi.aws.com"},
        {"local", "kubernetes.io/no-provisioner"}}) {
    server.create("storageclasses", json::object{{"apiVersion", "storage.k8s.io/v1"},
                                                 {"kind", "StorageClass"},
                                                 {"metadata", {{"name", name}}},
                                                 {"provisioner", provisioner},
                                                 {"volumeBindingMode", "WaitForFirstConsumer"}});
    server.create("persistentvolumeclaims",
                  json::object{{"apiVersion", "v1"},
                               {"kind", "PersistentVolumeClaim"},
                               {"metadata", {{"name", name}, {"namespace", "default"}}},
                               {"spec",
                                {{"storageClassName", name},
                                 {"accessModes", json::array{"ReadWriteOnce"}},
                                 {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}});
  }
  json::object volume = server.create(
      "persistentvolumes",
      json::parse(R"({"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"local-n2"},
        "spec":{"capacity":{"storage":"10Gi"},"accessModes":["ReadWriteOnce"],
          "storageClassName":"local","local":{"path":"/mnt/disk"},
          "nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[
            {"key":"kubernetes.io/hostname","operator":"In","values":["n2"]}]}]}}}})")
          .as_object());
  volume["status"] = json::object{{"phase", "Available"}};
  server.updateStatus("persistentvolumes", volume);
  for (const char* claim : {"dynamic", "local"}) {
    json::object pod = podJson("default", std::string("with-") + claim, "100m");
    pod["spec"].as_object()["volumes"] = json::array{
        json::object{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claim}}}}};
    server.create("pods", pod);
  }
  auto updated = [&](const char* resource) {
    for (const auto& r : server.requests()) {
      if (r.resource == resource && r.verb == "update" && r.status == 200) return true;
    }
    return false;
  };
  ASSERT_TRUE(eventually(
      [&] { return updated("persistentvolumeclaims") && updated("persistentvolumes"); }, 60s))
      << run.err();
  run.signal(SIGTERM);  // releases the Lease: an update
  ASSERT_EQ(run.waitExit(30s), 0) << run.err();

  const std::vector<Rule> rules = readRules(SCHEDHOST_RBAC_YAML);
  ASSERT_FALSE(rules.empty());
  std::vector<bool> used(rules.size(), false);
  std::set<std::tuple<std::string, std::string, std::string>> asked;
  for (const auto& r : server.requests()) {
    // /api and /version: discovery, which every authenticated user may read.
    if (r.verb.empty() || r.resource.empty()) continue;
    bool allowed = false;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      if (allows(rules[i], r)) {
        allowed = true;
        used[i] = true;
      }
    }
    EXPECT_TRUE(allowed) << r.method << " " << r.path << " (" << r.verb << " " << r.apiGroup << "/"
                         << r.resource << ") is not allowed by rbac.yaml";
    asked.insert({r.apiGroup, r.resource, r.verb});
  }
  for (std::size_t i = 0; i < rules.size(); ++i) {
    // Each verb of each rule: some request needed it.
    for (const std::string& verb : rules[i].verbs) {
      for (const std::string& resource : rules[i].resources) {
        bool needed = false;
        for (const std::string& group : rules[i].groups) {
          needed = needed || asked.count({group, resource, verb}) > 0;
        }
        EXPECT_TRUE(needed) << "rbac.yaml allows " << verb << " " << resource
                            << ", which schedhost never asked for";
      }
    }
  }
}

}  // namespace
}  // namespace sh::kubetest::rbac_test

// kube_bench: what the Kubernetes API connector sustains against the test API server on
// loopback, client and server in one process (so on the same cores). Figures, not a test;
// BENCHMARKS.md records them.
//
//   ingest   watch events per second through the real path: HttpsTransport stream ->
//            Reflector (WatchLines framing, JSON parse) -> KubeCluster store (model parse) ->
//            the change queue -> a consumer thread taking batches with nextBatch(), as the
//            scheduler's event loop does. The pods are created on the server while the client
//            has listed (an empty list, at resourceVersion R) but its pod watch is held back;
//            the clock starts when the watch from R is let go and stops when the consumer has
//            taken every change. So the figure is the watch alone: no list, no object
//            creation, the server replaying prepared lines from its history.
//   bind     binds per second through KubeCluster::bind() -> HttpsTransport (its keep-alive
//            pool) -> the server, from `threads` threads, the client rate limiter lifted; the
//            watch meanwhile brings every bound pod back into the store, as in a scheduler.
//   limited  the same with the default limiter (qps 50, burst 100): the first `burst` binds
//            go at once, the rest at qps.
//
//   decode   the client's share of ingest alone, one thread, no server: the same pods' watch
//            events, prepared as the API server writes them, cut into 64 KiB reads, framed,
//            decoded and parsed into the model (parsePod), in JSON (WatchLines, the object's
//            text parsed alone and kept as the manifest, as the Reflector does) and in
//            protobuf (WatchFrames, proto::decodeWatchEvent).
//
// ingest, bind and limited over HTTPS (client certificate) and plain HTTP
// (FakeApiServer::Options::plainHttp).
//
//   kube_bench [--events N] [--binds N] [--threads N] [--limited-binds N]
//              [--only ingest|bind|limited|decode] [--scheme https|http] [--json]
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include <boost/json/monotonic_resource.hpp>

#include "host/connectors/kube/https_transport.h"
#include "host/connectors/kube/kube_cluster.h"
#include "host/connectors/kube/proto/transcode.h"
#include "host/connectors/kube/proto/watch_frames.h"
#include "host/connectors/kube/watch_lines.h"
#include "host/model/pod.h"
#include "tests/kube/support/fake_apiserver.h"
#include "tests/kube/support/kube_fixture.h"
#include "tests/kube/support/test_certs.h"

namespace sh::kubetest {
namespace {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;

struct Args {
  std::size_t events = 100000;
  std::size_t binds = 20000;
  int threads = 64;
  std::size_t limitedBinds = 400;
  std::string only;    // "" = all
  std::string scheme;  // "" = both
  bool json = false;
};

struct Figure {
  std::string name;    // "ingest", "bind", "limited", "decode"
  std::string scheme;  // "https", "http"; "json", "proto" for decode
  std::size_t count = 0;
  double seconds = 0;
  double perSecond = 0;
  double cpuSeconds = 0;  // the process's (client and server), during the measurement
  std::string note;
};

double cpuNow() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A pod as a ReplicaSet's controller and the admission chain leave it (about 1.5 KB once the
// server adds uid, resourceVersion and creationTimestamp): labels, an owner reference, one
// container with requests and limits, the default tolerations, the service account volume.
json::object benchPod(const std::string& ns, std::size_t i) {
  const std::string rs = "web-" + std::to_string(i / 1000) + "-7d4b9c6f5d";
  const std::string name = rs + "-" + std::to_string(i);
  json::object labels{{"app", "web"},
                      {"pod-template-hash", "7d4b9c6f5d"},
                      {"tier", "frontend"},
                      {"app.kubernetes.io/name", "web"},
                      {"app.kubernetes.io/part-of", "shop"}};
  json::object owner{{"apiVersion", "apps/v1"},
                     {"kind", "ReplicaSet"},
                     {"name", rs},
                     {"uid", "5f0c3d1e-8a4b-4c2d-9e6f-" + std::to_string(100000000000 + i / 1000)},
                     {"controller", true},
                     {"blockOwnerDeletion", true}};
  json::object container{
      {"name", "app"},
      {"image", "registry.k8s.io/pause:3.10"},
      {"imagePullPolicy", "IfNotPresent"},
      {"ports",
       json::array{json::object{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}}}},
      {"env", json::array{json::object{
                  {"name", "POD_NAME"},
                  {"valueFrom",
                   json::object{{"fieldRef", json::object{{"apiVersion", "v1"},
                                                          {"fieldPath", "metadata.name"}}}}}}}},
      {"resources", json::object{{"requests", json::object{{"cpu", "100m"}, {"memory", "128Mi"}}},
                                 {"limits", json::object{{"cpu", "500m"}, {"memory", "256Mi"}}}}},
      {"volumeMounts",
       json::array{json::object{{"name", "kube-api-access-x2v7k"},
                                {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                                {"readOnly", true}}}},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"}};
  json::array tolerations;
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    tolerations.push_back(json::object{
        {"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
  }
  json::object volume{
      {"name", "kube-api-access-x2v7k"},
      {"projected",
       json::object{
           {"defaultMode", 420},
           {"sources",
            json::array{
                json::object{{"serviceAccountToken",
                              json::object{{"expirationSeconds", 3607}, {"path", "token"}}}},
                json::object{{"configMap", json::object{{"name", "kube-root-ca.crt"},
                                                        {"items", json::array{json::object{
                                                                      {"key", "ca.crt"},
                                                                      {"path", "ca.crt"}}}}}}}}}}}};
  json::object spec{{"schedulerName", "default-scheduler"},
                    {"priority", 0},
                    {"preemptionPolicy", "PreemptLowerPriority"},
                    {"restartPolicy", "Always"},
                    {"terminationGracePeriodSeconds", 30},
                    {"dnsPolicy", "ClusterFirst"},
                    {"serviceAccountName", "default"},
                    {"enableServiceLinks", true},
                    {"securityContext", json::object{}},
                    {"containers", json::array{std::move(container)}},
                    {"tolerations", std::move(tolerations)},
                    {"volumes", json::array{std::move(volume)}}};
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", json::object{{"name", name},
                                {"generateName", rs + "-"},
                                {"namespace", ns},
                                {"labels", std::move(labels)},
                                {"ownerReferences", json::array{std::move(owner)}}}},
      {"spec", std::move(spec)},
      {"status", json::object{{"phase", "Pending"}, {"qosClass", "Burstable"}}}};
}

// Forwards to the real transport, but holds the pod watch until open() (the benchmark fills
// the server's history meanwhile), and notes when it let it go.
class GatedTransport final : public kube::Transport {
 public:
  explicit GatedTransport(kube::Transport& inner) : inner_(inner) {}

  kube::Response send(const kube::Request& request) override { return inner_.send(request); }

  kube::Response stream(const kube::Request& request, const kube::BodySink& sink,
                        std::stop_token stop) override {
    if (request.path.starts_with("/api/v1/pods?") &&
        request.path.find("watch=1") != std::string::npos) {
      std::unique_lock<std::mutex> lock(mu_);
      ++podWatches_;
      changed_.notify_all();
      changed_.wait(lock, stop, [this] { return open_; });
    }
    return inner_.stream(request, sink, stop);
  }

  std::string server() const override { return inner_.server(); }

  // Waits until the reflector is holding at the gate.
  void waitForPodWatch() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this] { return podWatches_ > 0; });
  }

  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  kube::Transport& inner_;
  std::mutex mu_;
  std::condition_variable_any changed_;
  int podWatches_ = 0;
  bool open_ = false;
};

struct Setup {
  TlsMaterial tls;
  std::unique_ptr<FakeApiServer> server;
  std::unique_ptr<kube::HttpsTransport> transport;
};

Setup makeSetup(const std::string& scheme, std::size_t historyLimit, double qps, int burst) {
  Setup s;
  s.tls = makeTlsMaterial("schedhost");
  FakeApiServer::Options o;
  o.tls = s.tls;
  o.plainHttp = scheme == "http";
  o.tokens = {"bench-token"};
  o.recordRequests = false;
  o.historyLimit = historyLimit;
  s.server = std::make_unique<FakeApiServer>(o);
  s.server->start();
  kube::HttpsTransport::Options t;
  t.config.server = s.server->url();
  t.config.caPem = s.tls.caCert;
  if (scheme == "https") {
    t.config.clientCertPem = s.tls.clientCert;
    t.config.clientKeyPem = s.tls.clientKey;
  } else {
    t.config.token = "bench-token";
  }
  t.qps = qps;
  t.burst = burst;
  std::string error;
  s.transport = kube::HttpsTransport::create(t, error);
  if (!s.transport) {
    throw std::runtime_error("kube_bench: transport to " + s.server->url() + ": " + error);
  }
  return s;
}

kube::KubeCluster::Options clusterOptions(std::atomic<uint64_t>& warnings) {
  kube::KubeCluster::Options o;
  auto count = [&warnings](const std::string& message) {
    if (warnings.fetch_add(1) < 5) {
      std::cerr << "warning: " << message << "\n";
    }
  };
  o.warn = count;
  o.reflector.warn = count;
  return o;
}

void mustSync(kube::KubeCluster& cluster, const std::string& what) {
  if (!cluster.waitForSync(std::chrono::minutes(5))) {
    throw std::runtime_error("kube_bench: " + what + ": no sync: " + cluster.syncProblems());
  }
}

Figure ingest(const Args& args, const std::string& scheme) {
  const std::size_t n = args.events;
  Setup s = makeSetup(scheme, n + 1000, 0, 100);
  GatedTransport gate(*s.transport);
  std::atomic<uint64_t> warnings{0};
  kube::KubeCluster cluster(gate, clusterOptions(warnings));
  cluster.start();
  mustSync(cluster, "ingest");
  cluster.activate();
  gate.waitForPodWatch();

  // The history the watch will replay: n ADDED events after the list's resourceVersion.
  std::size_t lineBytes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    json::object stored = s.server->create("pods", benchPod("bench", i));
    if (i == 0) {
      lineBytes = json::serialize(json::object{{"type", "ADDED"}, {"object", stored}}).size() + 1;
    }
  }

  std::atomic<std::size_t> taken{0};
  std::size_t batches = 0;
  Clock::time_point end;
  std::thread consumer([&] {
    std::vector<connectors::ClusterChange> batch;
    std::size_t pods = 0;
    while (pods < n) {
      batch.clear();
      if (cluster.nextBatch(batch, std::chrono::milliseconds(100)) == 0) {
        if (cluster.exhausted()) {
          break;
        }
        continue;
      }
      ++batches;
      for (const connectors::ClusterChange& c : batch) {
        pods += c.kind == connectors::ClusterChange::Kind::kPod && c.curPod != nullptr ? 1 : 0;
      }
      taken.store(pods);
    }
    end = Clock::now();  // also when the cluster stopped early: the count says so
  });
  const double cpu0 = cpuNow();
  const Clock::time_point start = Clock::now();
  gate.open();
  consumer.join();
  const double cpu = cpuNow() - cpu0;
  Figure f;
  f.name = "ingest";
  f.scheme = scheme;
  f.count = taken.load();
  f.seconds = std::chrono::duration<double>(end - start).count();
  f.perSecond = static_cast<double>(f.count) / f.seconds;
  f.cpuSeconds = cpu;
  const kube::KubeCluster::Stats stats = cluster.stats();
  f.note = std::to_string(lineBytes) + " B per event line, " + std::to_string(batches) +
           " batches, " + std::to_string(stats.rejected) + " rejected, " +
           std::to_string(warnings.load()) + " warnings";
  cluster.stop();
  return f;
}

// n pods (and nodes for them) on the server, listed by a cluster with the given limiter, bound
// from `threads` threads. Fills the figure; `perBind` gets each bind's completion time.
Figure bindRun(const std::string& name, const std::string& scheme, std::size_t n, int threads,
               double qps, int burst, std::vector<double>* perBind) {
  Setup s = makeSetup(scheme, 2 * n + 1000, qps, burst);
  const std::size_t nodes = std::max<std::size_t>(1, n / 100);
  for (std::size_t i = 0; i < nodes; ++i) {
    s.server->create("nodes", nodeJson("node-" + std::to_string(i), "110"));
  }
  for (std::size_t i = 0; i < n; ++i) {
    s.server->create("pods", benchPod("bench", i));
  }
  std::atomic<uint64_t> warnings{0};
  kube::KubeCluster cluster(*s.transport, clusterOptions(warnings));
  cluster.start();
  mustSync(cluster, name);
  std::vector<std::shared_ptr<const model::Pod>> pods;
  pods.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string rs = "web-" + std::to_string(i / 1000) + "-7d4b9c6f5d";
    auto pod = cluster.pod("bench", rs + "-" + std::to_string(i));
    if (pod == nullptr) {
      throw std::runtime_error("kube_bench: pod " + std::to_string(i) + " not in the store");
    }
    pods.push_back(std::move(pod));
  }
  if (qps > 0) {
    // The lists and watches took tokens: start with a full bucket, as an idle client would.
    std::this_thread::sleep_for(std::chrono::duration<double>(burst / qps));
  }

  std::atomic<std::size_t> nextPod{0};
  std::atomic<std::size_t> failures{0};
  std::mutex timesMu;
  if (perBind != nullptr) {
    perBind->clear();
  }
  const double cpu0 = cpuNow();
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> binders;
  for (int t = 0; t < threads; ++t) {
    binders.emplace_back([&] {
      for (std::size_t i = nextPod.fetch_add(1); i < n; i = nextPod.fetch_add(1)) {
        Status st = cluster.bind(*pods[i], "node-" + std::to_string(i % nodes));
        if (!st.ok()) {
          if (failures.fetch_add(1) < 5) {
            std::cerr << "bind: " << st.message() << "\n";
          }
        }
        if (perBind != nullptr) {
          std::lock_guard<std::mutex> lock(timesMu);
          perBind->push_back(secondsSince(start));
        }
      }
    });
  }
  for (std::thread& b : binders) {
    b.join();
  }
  Figure f;
  f.name = name;
  f.scheme = scheme;
  f.seconds = secondsSince(start);
  f.cpuSeconds = cpuNow() - cpu0;
  f.count = n;
  f.perSecond = static_cast<double>(n) / f.seconds;
  const std::size_t bound = s.server->bindCounts().size();
  f.note = std::to_string(threads) + " threads, " + std::to_string(failures.load()) + " failed, " +
           std::to_string(bound) + " pods bound on the server, " +
           std::to_string(s.transport->openConnections()) + " connections";
  if (bound != n || failures.load() != 0) {
    throw std::runtime_error("kube_bench: " + name + ": " + f.note);
  }
  cluster.stop();
  return f;
}

Figure limited(const Args& args, const std::string& scheme) {
  std::vector<double> times;
  Figure f = bindRun("limited", scheme, args.limitedBinds, 8, 50, 100, &times);
  std::sort(times.begin(), times.end());
  // The rate once the burst is spent: the second half of the binds.
  const std::size_t half = times.size() / 2;
  if (half > 0 && times.back() > times[half - 1]) {
    const double steady =
        static_cast<double>(times.size() - half) / (times.back() - times[half - 1]);
    char text[96];
    std::snprintf(text, sizeof text, "qps 50 burst 100; second half %.1f/s, ", steady);
    f.note = text + f.note;
  }
  return f;
}

Figure decode(const Args& args, bool protobuf) {
  const std::size_t n = args.events;
  std::string stream;
  for (std::size_t i = 0; i < n; ++i) {
    json::object pod = benchPod("bench", i);
    json::object& meta = pod["metadata"].as_object();
    meta["uid"] = "6a1f0c2e-3b4d-4e5f-8a9b-" + std::to_string(100000000000 + i);
    meta["resourceVersion"] = std::to_string(1000 + i);
    meta["creationTimestamp"] = "2026-11-25T10:00:00Z";
    if (protobuf) {
      std::string body;
      std::string error;
      if (!kube::proto::encodeObject(pod, "v1", "Pod", body, error)) {
        throw std::runtime_error("encode: " + error);
      }
      stream += kube::proto::encodeWatchFrame("ADDED", body);
    } else {
      stream += "{\"type\":\"ADDED\",\"object\":" + json::serialize(pod) + "}\n";
    }
  }
  std::size_t parsed = 0;
  std::string error;
  std::vector<unsigned char> arenaBuffer(64 * 1024);
  auto keep = [&](const json::value& object, std::string_view text) {
    if (model::parsePod(object, error, text) != nullptr) {
      ++parsed;
    }
  };
  kube::WatchLines lines;
  kube::proto::WatchFrames frames;
  const double cpu0 = cpuNow();
  const auto start = Clock::now();
  constexpr std::size_t kRead = 64 * 1024;
  for (std::size_t at = 0; at < stream.size(); at += kRead) {
    const std::string_view piece = std::string_view(stream).substr(at, kRead);
    if (protobuf) {
      frames.append(piece, [&](std::string_view frame) {
        boost::json::monotonic_resource arena(arenaBuffer.data(), arenaBuffer.size());
        const json::storage_ptr storage(&arena);
        json::value object(storage);
        std::string type;
        if (kube::proto::decodeWatchEvent(frame, type, object, error, storage)) {
          keep(object, {});
        }
        return true;
      });
    } else {
      lines.append(piece, [&](std::string_view line) {
        // {"type":"ADDED","object":<object>}: the object's text, as the Reflector splits it.
        constexpr std::string_view kPrefix = "{\"type\":\"ADDED\",\"object\":";
        const std::string_view text = line.substr(kPrefix.size(), line.size() - kPrefix.size() - 1);
        boost::json::monotonic_resource arena(arenaBuffer.data(), arenaBuffer.size());
        const json::storage_ptr storage(&arena);
        boost::system::error_code ec;
        const json::value object = json::parse(text, ec, storage);
        if (!ec) {
          keep(object, text);
        }
        return true;
      });
    }
  }
  Figure f;
  f.name = "decode";
  f.scheme = protobuf ? "proto" : "json";
  f.count = parsed;
  f.seconds = secondsSince(start);
  f.perSecond = static_cast<double>(parsed) / f.seconds;
  f.cpuSeconds = cpuNow() - cpu0;
  f.note = std::to_string(stream.size() / std::max<std::size_t>(n, 1)) + " bytes per event";
  if (parsed != n) {
    throw std::runtime_error("decode: " + std::to_string(parsed) + " of " + std::to_string(n) +
                             " pods parsed: " + error);
  }
  return f;
}

bool parseArgs(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    auto number = [&](auto& out) {
      const char* v = value();
      if (v == nullptr || std::atol(v) <= 0) {
        std::cerr << "kube_bench: " << a << " needs a positive number\n";
        return false;
      }
      out = static_cast<std::remove_reference_t<decltype(out)>>(std::atol(v));
      return true;
    };
    if (a == "--json") {
      args.json = true;
    } else if (a == "--events") {
      if (!number(args.events)) return false;
    } else if (a == "--binds") {
      if (!number(args.binds)) return false;
    } else if (a == "--threads") {
      if (!number(args.threads)) return false;
    } else if (a == "--limited-binds") {
      if (!number(args.limitedBinds)) return false;
    } else if (a == "--only" || a == "--scheme") {
      const char* v = value();
      if (v == nullptr) {
        std::cerr << "kube_bench: " << a << " needs a value\n";
        return false;
      }
      (a == "--only" ? args.only : args.scheme) = v;
    } else {
      std::cerr << "usage: kube_bench [--events N] [--binds N] [--threads N] [--limited-binds N]"
                   " [--only ingest|bind|limited|decode] [--scheme https|http] [--json]\n";
      return false;
    }
  }
  return true;
}

int run(int argc, char** argv) {
  Args args;
  if (!parseArgs(argc, argv, args)) {
    return 2;
  }
  std::vector<std::string> schemes = {"https", "http"};
  if (!args.scheme.empty()) {
    schemes = {args.scheme};
  }
  std::vector<Figure> figures;
  auto want = [&](const char* what) { return args.only.empty() || args.only == what; };
  if (want("decode")) {
    figures.push_back(decode(args, false));
    figures.push_back(decode(args, true));
  }
  for (const std::string& scheme : schemes) {
    if (args.only == "decode") {
      break;
    }
    if (want("ingest")) {
      figures.push_back(ingest(args, scheme));
    }
    if (want("bind")) {
      figures.push_back(bindRun("bind", scheme, args.binds, args.threads, 0, 100, nullptr));
    }
    if (want("limited")) {
      figures.push_back(limited(args, scheme));
    }
  }
  if (args.json) {
    json::array out;
    for (const Figure& f : figures) {
      out.push_back(json::object{{"name", f.name},
                                 {"scheme", f.scheme},
                                 {"count", f.count},
                                 {"seconds", f.seconds},
                                 {"perSecond", f.perSecond},
                                 {"cpuSeconds", f.cpuSeconds},
                                 {"note", f.note}});
    }
    std::cout << json::serialize(json::object{{"figures", std::move(out)}}) << "\n";
    return 0;
  }
  std::printf("%-8s %-6s %8s %9s %12s %8s  %s\n", "what", "scheme", "count", "seconds",
              "per second", "cpu s", "note");
  for (const Figure& f : figures) {
    std::printf("%-8s %-6s %8zu %9.3f %12.0f %8.2f  %s\n", f.name.c_str(), f.scheme.c_str(),
                f.count, f.seconds, f.perSecond, f.cpuSeconds, f.note.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace sh::kubetest

int main(int argc, char** argv) {
  try {
    return sh::kubetest::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}

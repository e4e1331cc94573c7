// Micro-benchmark: Filter + Score over 5000 nodes, the same plugin code called through
// its .so (dlopen'ed, through the C ABI) and linked into this binary (the same C ABI,
// no dlopen). Prints ns per node for each and the difference.
//
//   build/release/bench/plugin_boundary_bench [--nodes N] [--rounds R]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "host/cache/snapshot.h"
#include "host/config/args_tree.h"
#include "host/framework/framework.h"
#include "host/model/testing/wrappers.h"
#include "host/plugin/points.h"
#include "host/plugin/registry.h"

// The plugins' entry points, renamed by SCHEDHOST_PLUGIN_STATIC_ENTRY (bench/CMakeLists.txt); C
// names, like schedhost_plugin_v1.
// NOLINTBEGIN(readability-identifier-naming)
extern "C" const sh_plugin_descriptor* bench_fit_entry(void);
extern "C" const sh_plugin_descriptor* bench_taint_entry(void);
// NOLINTEND(readability-identifier-naming)

namespace {

using sh::model::testing::makeNode;
using sh::model::testing::makePod;

std::shared_ptr<const sh::plugin::LoadedPlugin> linkedIn(const sh_plugin_descriptor* d) {
  auto p = std::make_shared<sh::plugin::LoadedPlugin>();
  p->path = "(linked in)";
  p->name = d->name;
  p->version = d->version;
  p->abiMajor = d->abi_major;
  p->abiMinor = d->abi_minor;
  p->descriptor = d;
  p->vtable = d->vtable;
  p->points = sh::plugin::pointsFromVtable(*d->vtable);
  return p;
}

std::shared_ptr<sh::Framework> frameworkOf(
    const std::vector<std::shared_ptr<const sh::plugin::LoadedPlugin>>& libs,
    sh::HostServices* services) {
  sh::Framework::Config fc;
  fc.profileName = "bench";
  sh::config::Diagnostics diags;
  static std::vector<std::shared_ptr<sh::config::ArgNode>> keep;
  for (const auto& lib : libs) {
    auto args = sh::config::ArgNode::fromJsonText(
        lib->descriptor->default_args_json ? lib->descriptor->default_args_json : "{}");
    keep.push_back(std::make_shared<sh::config::ArgNode>(std::move(*args)));
    auto inst = sh::PluginInstance::create(lib, *keep.back(), services, diags);
    if (inst == nullptr) {
      std::fprintf(stderr, "%s", diags.str().c_str());
      std::exit(1);
    }
    for (sh::ExtensionPoint p : sh::kAllExtensionPoints) {
      if ((inst->points() & sh::pointBit(p)) != 0) {
        fc.plugins[sh::indexOf(p)].push_back(inst);
        if (p == sh::ExtensionPoint::kScore) {
          fc.scoreWeights.push_back(1);
        }
      }
    }
  }
  return std::make_shared<sh::Framework>(std::move(fc));
}

// Runs PreFilter, Filter on every node, PreScore and Score on every node, `rounds` times.
double nsPerNode(const sh::Framework& fw, const sh::cache::Snapshot& snap, const sh_pod& pod,
                 int rounds, int64_t& checksum) {
  auto serial = [](std::size_t n, const std::function<void(std::size_t)>& fn) {
    for (std::size_t i = 0; i < n; ++i) {
      fn(i);
    }
  };
  auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r) {
    sh::CycleState cycle;
    cycle.snapshot = &snap;
    sh::PreFilterOutcome pre;
    fw.runPreFilter(cycle, pod, pre);
    std::vector<const sh_node_info*> feasible;
    feasible.reserve(snap.views.size());
    for (const sh_node_info* ni : snap.views) {
      if (fw.runFilter(cycle, pod, *ni).ok()) {
        feasible.push_back(ni);
      }
    }
    fw.runPreScore(cycle, pod, feasible);
    std::vector<sh::NodeScore> scores;
    fw.runScore(cycle, pod, feasible, scores, nullptr, serial);
    for (const auto& s : scores) {
      checksum += s.total;
    }
  }
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  return ns / (static_cast<double>(rounds) * static_cast<double>(snap.views.size()));
}

}  // namespace

int main(int argc, char** argv) {
  int numNodes = 5000;
  int rounds = 40;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--nodes") == 0) {
      numNodes = std::atoi(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--rounds") == 0) {
      rounds = std::atoi(argv[i + 1]);
    }
  }
  std::vector<std::shared_ptr<const sh::model::Node>> nodes;
  std::vector<std::shared_ptr<const sh::model::Pod>> pods;
  for (int i = 0; i < numNodes; ++i) {
    std::string name = "node-" + std::to_string(i);
    auto b = makeNode().name(name).capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}});
    if (i % 10 == 0) {
      b.taint("dedicated", "infra", "NoSchedule");
    }
    nodes.push_back(b.obj());
    for (int j = 0; j < 2; ++j) {
      pods.push_back(makePod()
                         .name(name + "-p" + std::to_string(j))
                         .uid(name + "-p" + std::to_string(j))
                         .node(name)
                         .req({{"cpu", "100m"}, {"memory", "500Mi"}})
                         .obj());
    }
  }
  auto snap = sh::cache::buildSnapshot(nodes, pods);
  auto pod = makePod().name("bench").uid("bench").req({{"cpu", "100m"}, {"memory", "500Mi"}}).obj();

  sh::NullHostServices services;
  sh::plugin::PluginRegistry registry;
  auto fitSo =
      registry.add(std::string(SCHEDHOST_BENCH_PLUGIN_DIR) + "/libplugin_noderesourcesfit.so");
  auto taintSo =
      registry.add(std::string(SCHEDHOST_BENCH_PLUGIN_DIR) + "/libplugin_tainttoleration.so");
  auto viaSo = frameworkOf({fitSo, taintSo}, &services);
  auto linked =
      frameworkOf({linkedIn(bench_fit_entry()), linkedIn(bench_taint_entry())}, &services);

  int64_t sumSo = 0;
  int64_t sumLinked = 0;
  // Warm up both, then alternate so neither gets a warmer cache.
  nsPerNode(*viaSo, *snap, pod->view(), 2, sumSo);
  nsPerNode(*linked, *snap, pod->view(), 2, sumLinked);
  double so = 0;
  double li = 0;
  for (int i = 0; i < 3; ++i) {
    so += nsPerNode(*viaSo, *snap, pod->view(), rounds, sumSo);
    li += nsPerNode(*linked, *snap, pod->view(), rounds, sumLinked);
  }
  so /= 3;
  li /= 3;
  std::printf("plugins: NodeResourcesFit + TaintToleration (PreFilter, Filter, PreScore, Score)\n");
  std::printf("nodes: %d, rounds: %d x 3\n", numNodes, rounds);
  std::printf("through .so (dlopen, C ABI): %8.1f ns/node\n", so);
  std::printf("linked in   (same C ABI):    %8.1f ns/node\n", li);
  std::printf("difference:                  %+8.1f ns/node (%+.1f%%)\n", so - li,
              100.0 * (so - li) / li);
  std::printf("checksums equal: %s\n", sumSo == sumLinked ? "yes" : "NO");
  return sumSo == sumLinked ? 0 : 1;
}

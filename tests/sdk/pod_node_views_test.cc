// The C++ layer of what ABI 1.3 added for pods and nodes, against hand-built views and host
// tables: a pod's volumes and resource claims, a node's declared features, the manifests
// (Host::podManifest, nodeManifest) and the PVCs in use (Snapshot::pvcInUse); and what each
// answers on a 1.2 host, whose views and table end before them. The same additions through the
// real host are tested with the C plugin of views_plugin/.
#include <schedhost/plugin.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace {

sh_str shStr(std::string_view s) { return sh_str{s.data(), s.size()}; }

// The size of a 1.2 host's views and table: each ended where 1.3 appended.
constexpr std::size_t kPodOf12 = offsetof(sh_pod, volumes);
constexpr std::size_t kNodeOf12 = offsetof(sh_node, declared_features);
constexpr std::size_t kTableOf12 = offsetof(sh_host_api, snapshot_pvc_in_use);

// An address where nothing may be read: what lies past the end of an older host's view.
template <typename T>
const T* nowhere() {
  static const char kNothing = 0;
  return reinterpret_cast<const T*>(&kNothing);
}

sh_volume volume(sh_volume_source source, std::string_view name) {
  sh_volume v{};
  v.struct_size = sizeof(sh_volume);
  v.source = source;
  v.name = shStr(name);
  return v;
}

// Pod ns/p with a volume of each kind of field, and two resource claims.
struct PodWithVolumes {
  std::vector<sh_str> monitors = {shStr("10.0.0.1:6789"), shStr("10.0.0.2:6789")};
  std::vector<sh_volume> volumes;
  sh_pod pod{};
  PodWithVolumes() {
    sh_volume data = volume(SH_VOLUME_PVC, "data");
    data.claim = shStr("shared");
    data.read_only = 1;
    sh_volume scratch = volume(SH_VOLUME_EPHEMERAL, "scratch");
    scratch.claim = shStr("p-scratch");
    sh_volume csi = volume(SH_VOLUME_CSI, "inline");
    csi.driver = shStr("csi.example.com");
    sh_volume rbd = volume(SH_VOLUME_RBD, "ceph");
    rbd.handle = shStr("image-1");
    rbd.pool = shStr("rbd");
    rbd.monitors = monitors.data();
    rbd.monitor_count = 2;
    sh_volume iscsi = volume(SH_VOLUME_ISCSI, "lun");
    iscsi.handle = shStr("iqn.2001-04.com.example:storage");
    iscsi.lun = 3;
    sh_volume newer = volume(SH_VOLUME_OTHER, "from-a-newer-host");
    newer.source = 99;  // a source this header does not know
    volumes = {data, scratch, csi, rbd, iscsi, volume(SH_VOLUME_OTHER, "cache"), newer};
    pod.struct_size = sizeof(sh_pod);
    pod.name = shStr("p");
    pod.namespace_ = shStr("ns");
    pod.volumes = volumes.data();
    pod.volume_count = static_cast<uint32_t>(volumes.size());
    pod.resource_claim_count = 2;
  }
};

TEST(PodVolumesTest, AVolumeGivesTheFieldsOfItsSource) {
  PodWithVolumes p;
  schedhost::Volumes volumes = schedhost::volumes(p.pod);
  ASSERT_EQ(volumes.size(), 7u);
  std::vector<std::string> rows;
  for (schedhost::Volume v : volumes) {
    rows.push_back(std::string(v.name()) + ":" + std::to_string(v.source()) + ":" +
                   (v.usesClaim() ? "claim" : "-"));
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"data:1:claim", "scratch:2:claim", "inline:3:-",
                                            "ceph:6:-", "lun:7:-", "cache:0:-",
                                            // unknown: one the plugin has nothing to do with
                                            "from-a-newer-host:0:-"}));
  EXPECT_EQ(volumes[0].claim(), "shared");
  EXPECT_TRUE(volumes[0].readOnly());
  EXPECT_EQ(volumes[0].handle(), "");
  EXPECT_TRUE(volumes[0].monitors().empty());
  EXPECT_EQ(volumes[1].claim(), "p-scratch");
  EXPECT_FALSE(volumes[1].readOnly());
  EXPECT_EQ(volumes[2].driver(), "csi.example.com");
  EXPECT_EQ(volumes[3].handle(), "image-1");
  EXPECT_EQ(volumes[3].pool(), "rbd");
  std::vector<std::string_view> monitors(volumes[3].monitors().begin(),
                                         volumes[3].monitors().end());
  EXPECT_EQ(monitors, (std::vector<std::string_view>{"10.0.0.1:6789", "10.0.0.2:6789"}));
  EXPECT_EQ(volumes[4].handle(), "iqn.2001-04.com.example:storage");
  EXPECT_EQ(volumes[4].lun(), 3);
  EXPECT_EQ(&volumes[4].raw(), &p.volumes[4]);
  EXPECT_EQ(schedhost::resourceClaimCount(p.pod), 2u);
}

TEST(PodVolumesTest, SpecFieldsAreReadWhereTheViewHasThem) {
  PodWithVolumes p;
  p.pod.spec_fields = SH_POD_FIELD_HOST_USERS | SH_POD_FIELD_RESTART_POLICY_RULES;
  EXPECT_EQ(schedhost::specFields(p.pod), 3u);
  // A view that ends at resource_claim_count has volumes but no spec_fields: none flagged,
  // whatever lies past its end.
  p.pod.struct_size = offsetof(sh_pod, resource_claim_count) + sizeof(uint32_t);
  EXPECT_EQ(schedhost::resourceClaimCount(p.pod), 2u);
  EXPECT_EQ(schedhost::specFields(p.pod), 0u);
}

TEST(PodVolumesTest, AnOlderHostsPodHasNone) {
  PodWithVolumes p;
  p.pod.struct_size = kPodOf12;
  p.pod.volumes = nowhere<sh_volume>();
  p.pod.volume_count = 7;
  p.pod.resource_claim_count = 7;
  EXPECT_TRUE(schedhost::volumes(p.pod).empty());
  EXPECT_EQ(schedhost::volumes(p.pod).begin(), schedhost::volumes(p.pod).end());
  EXPECT_EQ(schedhost::resourceClaimCount(p.pod), 0u);
  // A 1.3 pod without volumes: empty too, whatever its pointer.
  PodWithVolumes none;
  none.pod.volume_count = 0;
  none.pod.volumes = nowhere<sh_volume>();
  EXPECT_TRUE(schedhost::volumes(none.pod).empty());
}

// Node n1 with `features`, sorted as the host sorts them (by their bytes).
struct NodeWithFeatures {
  std::vector<sh_str> features;
  sh_node node{};
  explicit NodeWithFeatures(const std::vector<std::string_view>& names) {
    for (std::string_view n : names) {
      features.push_back(shStr(n));
    }
    node.struct_size = sizeof(sh_node);
    node.name = shStr("n1");
    node.declared_features = features.empty() ? nullptr : features.data();
    node.declared_feature_count = static_cast<uint32_t>(features.size());
  }
};

TEST(DeclaredFeaturesTest, AreSortedAndFoundByTheirBytes) {
  // "Zeta" < "a..." < "gpu" < "gpu.example.com/v2" by bytes.
  NodeWithFeatures n({"Zeta", "a.example.com/x", "gpu", "gpu.example.com/v2"});
  schedhost::Strings features = schedhost::declaredFeatures(n.node);
  EXPECT_EQ(
      std::vector<std::string_view>(features.begin(), features.end()),
      (std::vector<std::string_view>{"Zeta", "a.example.com/x", "gpu", "gpu.example.com/v2"}));
  for (std::string_view present : {"Zeta", "a.example.com/x", "gpu", "gpu.example.com/v2"}) {
    EXPECT_TRUE(schedhost::hasDeclaredFeature(n.node, present)) << present;
  }
  for (std::string_view absent : {"", "zeta", "gp", "gpu.example.com", "gpu.example.com/v3", "~"}) {
    EXPECT_FALSE(schedhost::hasDeclaredFeature(n.node, absent)) << absent;
  }
  NodeWithFeatures bare({});
  EXPECT_TRUE(schedhost::declaredFeatures(bare.node).empty());
  EXPECT_FALSE(schedhost::hasDeclaredFeature(bare.node, "gpu"));
}

TEST(DeclaredFeaturesTest, AnOlderHostsNodeHasNone) {
  NodeWithFeatures n({"gpu"});
  n.node.struct_size = kNodeOf12;
  n.node.declared_features = nowhere<sh_str>();
  EXPECT_TRUE(schedhost::declaredFeatures(n.node).empty());
  EXPECT_FALSE(schedhost::hasDeclaredFeature(n.node, "gpu"));
}

// --- a fake host: manifests are JSON trees of FakeJson, PVCs in use a list of names ----------
struct FakeJson {
  int type = SH_ARGS_NULL;
  int64_t i = 0;
  std::string s;
  std::vector<std::string> keys;
  std::vector<FakeJson> items;
};
const FakeJson* fake(const sh_json* n) { return reinterpret_cast<const FakeJson*>(n); }
const sh_json* handle(const FakeJson* n) { return reinterpret_cast<const sh_json*>(n); }

FakeJson object(std::vector<std::string> keys, std::vector<FakeJson> items) {
  FakeJson j;
  j.type = SH_ARGS_OBJECT;
  j.keys = std::move(keys);
  j.items = std::move(items);
  return j;
}
FakeJson number(int64_t v) {
  FakeJson j;
  j.type = SH_ARGS_INT;
  j.i = v;
  return j;
}
FakeJson text(std::string v) {
  FakeJson j;
  j.type = SH_ARGS_STRING;
  j.s = std::move(v);
  return j;
}

const sh_json* fakeGet(const sh_json* node, const char* key, size_t len) {
  const FakeJson* n = fake(node);
  for (std::size_t i = 0; i < n->keys.size(); ++i) {
    if (n->keys[i] == std::string_view(key, len)) {
      return handle(&n->items[i]);
    }
  }
  return nullptr;
}
const sh_json* fakePath(const sh_json* node, const char* path, size_t len) {
  std::string_view rest(path, len);
  const sh_json* at = node;
  while (at != nullptr && !rest.empty()) {
    std::size_t dot = rest.find('.');
    std::string_view step = rest.substr(0, dot);
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    at = fakeGet(at, step.data(), step.size());
  }
  return at;
}

struct World {
  std::vector<std::string> calls;
  const sh_pod* manifestPod = nullptr;
  FakeJson podManifest =
      object({"spec"}, {object({"securityContext"}, {object({"runAsUser"}, {number(1000)})})});
  const sh_node* manifestNode = nullptr;
  FakeJson nodeManifest =
      object({"metadata"}, {object({"annotations"}, {object({"probe/zone"}, {text("z1")})})});
  std::vector<std::string> pvcsInUse = {"ns/shared", "other/own"};
};
World* gWorld = nullptr;

int gHostObject = 0;
sh_host* const kHost = reinterpret_cast<sh_host*>(&gHostObject);
int gSnapshotObject = 0;
const sh_snapshot* const kSnapshot = reinterpret_cast<const sh_snapshot*>(&gSnapshotObject);

sh_host_api fakeHost(uint16_t minor, std::size_t size) {
  sh_host_api api{};
  api.struct_size = static_cast<uint32_t>(size);
  api.abi_major = SH_ABI_MAJOR;
  api.abi_minor = minor;
  api.json_type = [](const sh_json* n) { return fake(n)->type; };
  api.json_get = &fakeGet;
  api.json_path = &fakePath;
  api.json_int = [](const sh_json* n) { return fake(n)->i; };
  api.json_string = [](const sh_json* n) { return shStr(fake(n)->s); };
  api.snapshot_pvc_in_use = [](const sh_snapshot* snap, const char* ns, size_t nsLen,
                               const char* name, size_t nameLen) -> int {
    EXPECT_EQ(snap, kSnapshot);
    std::string key = std::string(ns, nsLen) + "/" + std::string(name, nameLen);
    gWorld->calls.push_back("pvc_in_use " + key);
    for (const std::string& used : gWorld->pvcsInUse) {
      if (used == key) {
        return 1;
      }
    }
    return 0;
  };
  api.pod_manifest = [](sh_host* host, const sh_pod* pod) -> const sh_json* {
    EXPECT_EQ(host, kHost);
    gWorld->calls.push_back("pod_manifest " + std::string(pod->name.ptr, pod->name.len));
    return pod == gWorld->manifestPod ? handle(&gWorld->podManifest) : nullptr;
  };
  api.node_manifest = [](sh_host* host, const sh_node* node) -> const sh_json* {
    EXPECT_EQ(host, kHost);
    gWorld->calls.push_back("node_manifest " + std::string(node->name.ptr, node->name.len));
    return node == gWorld->manifestNode ? handle(&gWorld->nodeManifest) : nullptr;
  };
  return api;
}

class ClaimsAndManifestsTest : public ::testing::Test {
 protected:
  void SetUp() override { gWorld = &world_; }
  void TearDown() override { gWorld = nullptr; }
  World world_;
};

TEST_F(ClaimsAndManifestsTest, ManifestsAreTheHostsJsonTreesOfThePodAndTheNode) {
  const sh_host_api api = fakeHost(SH_ABI_MINOR, sizeof(sh_host_api));
  schedhost::Host host(&api, kHost);
  EXPECT_TRUE(host.servesClaimsAndManifests());
  PodWithVolumes p;
  NodeWithFeatures n({"gpu"});
  world_.manifestPod = &p.pod;
  world_.manifestNode = &n.node;

  schedhost::Json pod = host.podManifest(p.pod);
  EXPECT_TRUE(pod.isObject());
  EXPECT_EQ(pod.path("spec.securityContext.runAsUser").asInt(), 1000);
  EXPECT_EQ(host.nodeManifest(n.node)["metadata"]["annotations"]["probe/zone"].asString(), "z1");
  // A view the host has no manifest for: the null tree, whose lookups stay null.
  PodWithVolumes stranger;
  EXPECT_FALSE(host.podManifest(stranger.pod).present());
  EXPECT_FALSE(host.podManifest(stranger.pod).path("spec.securityContext").present());
  EXPECT_EQ(world_.calls, (std::vector<std::string>{"pod_manifest p", "node_manifest n1",
                                                    "pod_manifest p", "pod_manifest p"}));
}

TEST_F(ClaimsAndManifestsTest, PvcInUseAsksTheSnapshotAboutTheClaim) {
  const sh_host_api api = fakeHost(SH_ABI_MINOR, sizeof(sh_host_api));
  schedhost::Snapshot snapshot(&api, kSnapshot);
  EXPECT_TRUE(snapshot.pvcInUse("ns", "shared"));
  EXPECT_FALSE(snapshot.pvcInUse("ns", "own"));  // in use in another namespace only
  EXPECT_TRUE(snapshot.pvcInUse("other", "own"));
  EXPECT_EQ(world_.calls, (std::vector<std::string>{"pvc_in_use ns/shared", "pvc_in_use ns/own",
                                                    "pvc_in_use other/own"}));
}

TEST_F(ClaimsAndManifestsTest, AnOlderHostHasNoManifestsAndNoClaimInUse) {
  PodWithVolumes p;
  NodeWithFeatures n({"gpu"});
  world_.manifestPod = &p.pod;
  world_.manifestNode = &n.node;
  // A 1.2 host's table ends before the slots; the memory past it holds them here, so that
  // calling them would show.
  const sh_host_api older = fakeHost(2, kTableOf12);
  // The minor alone, or the size alone, is not enough.
  const sh_host_api olderMinor = fakeHost(2, sizeof(sh_host_api));
  const sh_host_api tooShort = fakeHost(
      SH_ABI_MINOR, offsetof(sh_host_api, node_manifest) + sizeof(sh_host_api::node_manifest) - 1);
  for (const sh_host_api* api : {&older, &olderMinor, &tooShort}) {
    schedhost::Host host(api, kHost);
    EXPECT_FALSE(host.servesClaimsAndManifests());
    EXPECT_FALSE(host.podManifest(p.pod).present());
    EXPECT_EQ(host.podManifest(p.pod).type(), SH_ARGS_NULL);
    EXPECT_FALSE(host.nodeManifest(n.node).present());
    EXPECT_FALSE(schedhost::Snapshot(api, kSnapshot).pvcInUse("ns", "shared"));
  }
  EXPECT_TRUE(world_.calls.empty());
}

TEST_F(ClaimsAndManifestsTest, KindVersionsAreAskedOnlyOfAHostThatServesThem) {
  sh_host_api api = fakeHost(SH_ABI_MINOR, sizeof(sh_host_api));
  api.object_kind_version = [](sh_host* host, sh_cycle* cycle, uint32_t kind) -> uint64_t {
    EXPECT_EQ(host, kHost);
    gWorld->calls.push_back("object_kind_version " + std::to_string(kind) +
                            (cycle == nullptr ? " now" : " in the cycle"));
    return 40 + kind;
  };
  schedhost::Host host(&api, kHost);
  EXPECT_EQ(host.objectKindVersion(2), 42u);
  sh_cycle* const kCycle = reinterpret_cast<sh_cycle*>(0x5eed);
  schedhost::Cycle cycle(&api, kCycle);
  EXPECT_EQ(host.objectKindVersion(cycle, 1), 41u);
  EXPECT_EQ(world_.calls, (std::vector<std::string>{"object_kind_version 2 now",
                                                    "object_kind_version 1 in the cycle"}));

  // A table that ends before the slot, or without the function: 0, nothing called.
  world_.calls.clear();
  sh_host_api shorter = api;
  shorter.struct_size = offsetof(sh_host_api, object_kind_version);
  sh_host_api without = api;
  without.object_kind_version = nullptr;
  for (const sh_host_api* older : {&shorter, &without}) {
    schedhost::Host h(older, kHost);
    EXPECT_EQ(h.objectKindVersion(2), 0u);
    EXPECT_EQ(h.objectKindVersion(schedhost::Cycle(older, kCycle), 2), 0u);
  }
  EXPECT_TRUE(world_.calls.empty());
}

}  // namespace

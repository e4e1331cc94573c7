// VolumeBinding's binding side through the framework, against an object store whose writes act
// as the API server's: Reserve assumes (upstream TestAssumePodVolumes, TestFindAssumeVolumes),
// Unreserve restores (TestRevertAssumedPodVolumes), PreBind writes and waits for the PV
// controller (TestBindAPIUpdate, TestCheckBindings, TestBindPodVolumes): bound after a while,
// provisioning failed, claimRef reset, node affinity, timeout, a failed write.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/plugins/volumebinding/volume_binding_test_util.h"

namespace schedhost::testing::volumebinding::binding_cycle_test {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kClaims = BindingHarness::kClaims;
constexpr std::size_t kVolumes = BindingHarness::kVolumes;

// A local class (static volumes only) and a provisioning one, node-a and node-b, volume local-a
// on node-a.
Storage cluster() {
  Storage s;
  s.classes = {storageClass("local", "WaitForFirstConsumer", "kubernetes.io/no-provisioner"),
               storageClass("standard", "WaitForFirstConsumer", "example.com/disk")};
  s.pvs = {PVBuilder("local-a", "local")
               .capacity("10Gi")
               .phase("Available")
               .nodeAffinity({{kHostname, {"node-a"}}})
               .json()};
  return s;
}

std::vector<Json> nodes() { return {NodeBuilder("node-a").json(), NodeBuilder("node-b").json()}; }

// The PV controller binding claim ns/name to `pv` (spec.volumeName, bind-completed).
void bindClaim(ApiServices& api, const std::string& name, const std::string& pv) {
  api.update(0, "default", name, [&](Json& pvc) {
    spec(pvc)["volumeName"] = pv;
    annotations(pvc)["pv.kubernetes.io/bind-completed"] = "yes";
    pvc.as_object()["status"] = {{"phase", "Bound"}};
  });
}

// Runs `fn` on a thread after `ms` milliseconds: the controllers acting while PreBind waits.
class Later {
 public:
  template <typename Fn>
  Later(int ms, Fn fn)
      : thread_([ms, fn] {
          std::this_thread::sleep_for(std::chrono::milliseconds(ms));
          fn();
        }) {}
  ~Later() { thread_.join(); }

 private:
  std::thread thread_;
};

TEST(VolumeBindingCycleTest, ReserveAssumesAndUnreserveRestores) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data-0", "local").request("1Gi").uid("uid-0").json(),
            PVCBuilder("data-1", "standard").request("1Gi").uid("uid-1").json()};
  BindingHarness h(s, podJson("pod", {"data-0", "data-1"}), nodes());
  auto filter = h.schedule();
  EXPECT_EQ(filter["node-a"], "Success");
  EXPECT_EQ(filter["node-b"], std::string("UnschedulableAndUnresolvable: ") + kBindConflict);

  ASSERT_TRUE(h.reserve("node-a").ok());
  // GetBindVolumeToClaim: the claimRef and bound-by-controller, assumed.
  EXPECT_TRUE(h.assumed(kVolumes, "", "local-a"));
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"spec", "claimRef", "name"}), "data-0");
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"spec", "claimRef", "uid"}), "uid-0");
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"spec", "claimRef", "kind"}),
            "PersistentVolumeClaim");
  EXPECT_EQ(h.field(kVolumes, "", "local-a",
                    {"metadata", "annotations", "pv.kubernetes.io/bound-by-controller"}),
            "yes");
  // The claim to provision gets the selected node, assumed.
  EXPECT_TRUE(h.assumed(kClaims, "default", "data-1"));
  EXPECT_EQ(h.field(kClaims, "default", "data-1",
                    {"metadata", "annotations", "volume.kubernetes.io/selected-node"}),
            "node-a");
  EXPECT_FALSE(h.assumed(kClaims, "default", "data-0"));

  h.unreserve("node-a");
  EXPECT_FALSE(h.assumed(kVolumes, "", "local-a"));
  EXPECT_FALSE(h.assumed(kClaims, "default", "data-1"));
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"spec", "claimRef"}), "");
  EXPECT_EQ(h.field(kClaims, "default", "data-1",
                    {"metadata", "annotations", "volume.kubernetes.io/selected-node"}),
            "");
  h.unreserve("node-a");  // idempotent
  EXPECT_TRUE(h.services.takeWrites().empty());
}

// TestFindAssumeVolumes: once a volume is assumed for the claim, finding volumes again picks it
// (pre-bound to the claim) over an equal one.
TEST(VolumeBindingCycleTest, AnAssumedVolumeIsFoundAgain) {
  Storage s = cluster();
  s.pvs.push_back(PVBuilder("local-a2", "local")
                      .capacity("10Gi")
                      .phase("Available")
                      .nodeAffinity({{kHostname, {"node-a"}}})
                      .json());
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  const std::string chosen = h.assumed(kVolumes, "", "local-a") ? "local-a" : "local-a2";
  for (int i = 0; i < 5; ++i) {
    h.schedule();
    ASSERT_TRUE(h.reserve("node-a").ok());
    EXPECT_TRUE(h.assumed(kVolumes, "", chosen));
    EXPECT_FALSE(h.assumed(kVolumes, "", chosen == "local-a" ? "local-a2" : "local-a"));
  }
}

// A volume changed between the cycle's read and Reserve cannot be assumed (assume cache: out of
// sync).
TEST(VolumeBindingCycleTest, ReserveRefusesAVolumeChangedSinceTheCycleBegan) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  h.schedule();
  h.services.update(kVolumes, "", "local-a", [](Json& pv) {
    metadata(pv)["labels"] = {{"touched", "yes"}};
  });
  sh::Status st = h.reserve("node-a");
  EXPECT_EQ(st.code(), SH_ERROR);
  EXPECT_TRUE(contains(st.message(), "\"local-a\" is out of sync (stored: 2, assume: 1)"));
  EXPECT_FALSE(h.assumed(kVolumes, "", "local-a"));
}

// Every claim bound: nothing assumed, PreBind returns at once without writing.
TEST(VolumeBindingCycleTest, AllBoundNeedsNoBinding) {
  Storage s = cluster();
  s.pvs = {PVBuilder("local-a", "local")
               .capacity("10Gi")
               .phase("Bound")
               .claimRef("default", "data", "pvc-uid")
               .nodeAffinity({{kHostname, {"node-a"}}})
               .json()};
  s.pvcs = {PVCBuilder("data", "local").boundTo("local-a").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  auto filter = h.schedule();
  EXPECT_EQ(filter["node-a"], "Success");
  EXPECT_EQ(filter["node-b"], std::string("UnschedulableAndUnresolvable: ") + kNodeConflict);
  ASSERT_TRUE(h.reserve("node-a").ok());
  Clock::time_point start = Clock::now();
  EXPECT_TRUE(h.preBind("node-a").ok());
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(500));
  EXPECT_TRUE(h.services.takeWrites().empty());
}

// A pod without claims: PreFilter skips; Reserve and PreBind have nothing to do.
TEST(VolumeBindingCycleTest, PodWithoutClaims) {
  BindingHarness h(cluster(), podJson("pod", {}), nodes());
  h.schedule();
  EXPECT_EQ(h.preFilter, "Success");  // the framework reports the plugin's Skip as success
  EXPECT_TRUE(h.reserve("node-a").ok());
  EXPECT_TRUE(h.preBind("node-a").ok());
}

TEST(VolumeBindingCycleTest, StaticBindingCompletesWhenThePVControllerBindsTheClaim) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  Clock::time_point start = Clock::now();
  sh::Status st;
  {
    Later controller(1500, [&] { bindClaim(h.services, "data", "local-a"); });
    st = h.preBind("node-a");
  }
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(1500));
  std::vector<std::string> writes = h.services.takeWrites();
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(contains(writes[0], "update persistentvolumes local-a: "));
  // The write landed: the stored version is the API's, no longer an assumption.
  EXPECT_FALSE(h.assumed(kVolumes, "", "local-a"));
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"spec", "claimRef", "name"}), "data");
  h.unreserve("node-a");  // nothing written is restored
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"spec", "claimRef", "name"}), "data");
}

TEST(VolumeBindingCycleTest, DynamicProvisioningCompletesWhenTheClaimIsBound) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "standard").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  auto filter = h.schedule();
  EXPECT_EQ(filter["node-b"], "Success");
  ASSERT_TRUE(h.reserve("node-b").ok());
  sh::Status st;
  {
    Later provisioner(1200, [&] {
      h.services.apply(typed(PVBuilder("pvc-1234", "standard")
                                 .capacity("1Gi")
                                 .phase("Bound")
                                 .claimRef("default", "data", "pvc-uid")
                                 .nodeAffinity({{kHostname, {"node-b"}}})
                                 .json(),
                             "v1", "PersistentVolume"));
      bindClaim(h.services, "data", "pvc-1234");
    });
    st = h.preBind("node-b");
  }
  EXPECT_TRUE(st.ok()) << st.message();
  std::vector<std::string> writes = h.services.takeWrites();
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(contains(writes[0], "update persistentvolumeclaims default/data: "));
  EXPECT_TRUE(contains(writes[0], "\"volume.kubernetes.io/selected-node\":\"node-b\""));
  EXPECT_EQ(h.field(kClaims, "default", "data",
                    {"metadata", "annotations", "volume.kubernetes.io/selected-node"}),
            "node-b");
}

// A volume the PV controller already bound to the claim (its claimRef has the claim's uid) is
// written unchanged, which the API keeps at its version: the wait goes on to the claim.
TEST(VolumeBindingCycleTest, VolumeAlreadyBoundToTheClaimCompletesWithTheClaim) {
  Storage s = cluster();
  s.pvs = {PVBuilder("local-a", "local")
               .capacity("10Gi")
               .phase("Bound")
               .claimRef("default", "data", "pvc-uid")
               .nodeAffinity({{kHostname, {"node-a"}}})
               .json()};
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  auto filter = h.schedule();
  EXPECT_EQ(filter["node-a"], "Success");
  ASSERT_TRUE(h.reserve("node-a").ok());
  EXPECT_FALSE(h.assumed(kVolumes, "", "local-a"));  // nothing to change, nothing assumed
  sh::Status st;
  {
    Later controller(1200, [&] { bindClaim(h.services, "data", "local-a"); });
    st = h.preBind("node-a");
  }
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(h.field(kVolumes, "", "local-a", {"metadata", "resourceVersion"}), "1");
  EXPECT_EQ(h.services.takeWrites().size(), 1u);
}

// The provisioner gives up by removing the selected-node annotation: the pod is rescheduled.
TEST(VolumeBindingCycleTest, ProvisioningFailureEndsTheWait) {
  for (bool dropAll : {false, true}) {
    SCOPED_TRACE(dropAll ? "annotations removed" : "selected-node removed");
    Storage s = cluster();
    s.pvcs = {PVCBuilder("data", "standard").request("1Gi").json()};
    BindingHarness h(s, podJson("pod", {"data"}), nodes());
    h.schedule();
    ASSERT_TRUE(h.reserve("node-a").ok());
    sh::Status st;
    {
      Later provisioner(1200, [&] {
        h.services.update(kClaims, "default", "data", [&](Json& pvc) {
          if (dropAll) {
            metadata(pvc).erase("annotations");
          } else {
            annotations(pvc).erase("volume.kubernetes.io/selected-node");
          }
        });
      });
      st = h.preBind("node-a");
    }
    EXPECT_EQ(st.code(), SH_ERROR);
    EXPECT_TRUE(contains(st.message(),
                         dropAll ? "binding volumes: selectedNode annotation reset for PVC \"data\""
                                 : "binding volumes: provisioning failed for PVC \"data\""));
  }
}

// The provisioned volume must be reachable from the node.
TEST(VolumeBindingCycleTest, ProvisionedVolumeOutOfReachFails) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "standard").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  sh::Status st;
  {
    Later provisioner(1200, [&] {
      h.services.apply(typed(PVBuilder("pvc-1234", "standard")
                                 .capacity("1Gi")
                                 .nodeAffinity({{kHostname, {"node-b"}}})
                                 .json(),
                             "v1", "PersistentVolume"));
      bindClaim(h.services, "data", "pvc-1234");
    });
    st = h.preBind("node-a");
  }
  EXPECT_EQ(st.code(), SH_ERROR);
  EXPECT_TRUE(contains(st.message(),
                       "binding volumes: pv \"pvc-1234\" node affinity doesn't match "
                       "node \"node-a\": no matching NodeSelectorTerms"));
}

// The PV controller drops the claimRef (the volume was unbound): reschedule.
TEST(VolumeBindingCycleTest, ClaimRefResetFails) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  sh::Status st;
  {
    Later controller(1200, [&] {
      h.services.update(kVolumes, "", "local-a", [](Json& pv) { spec(pv).erase("claimRef"); });
    });
    st = h.preBind("node-a");
  }
  EXPECT_EQ(st.code(), SH_ERROR);
  // Checked a second after the write, the volume is already unbound, or it is at the next check.
  EXPECT_TRUE(contains(st.message(), "binding volumes: ClaimRef got reset for pv \"local-a\""));
}

TEST(VolumeBindingCycleTest, BindingTimesOut) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes(), R"({"bindTimeoutSeconds":2})");
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  Clock::time_point start = Clock::now();
  sh::Status st = h.preBind("node-a");
  EXPECT_EQ(st.code(), SH_ERROR);
  EXPECT_TRUE(contains(st.message(), "binding volumes: context deadline exceeded"));
  EXPECT_GE(Clock::now() - start, std::chrono::seconds(2));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(4));
}

// A write the API refuses ends PreBind with the API's error; what was not written is restored.
TEST(VolumeBindingCycleTest, FailedWriteRestoresTheAssumptions) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data-0", "local").request("1Gi").json(),
            PVCBuilder("data-1", "standard").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data-0", "data-1"}), nodes());
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  h.services.failWrites = "persistentvolumes \"local-a\" is forbidden";
  sh::Status st = h.preBind("node-a");
  EXPECT_EQ(st.code(), SH_ERROR);
  EXPECT_TRUE(contains(st.message(), "persistentvolumes \"local-a\" is forbidden"));
  EXPECT_FALSE(h.assumed(kVolumes, "", "local-a"));
  EXPECT_FALSE(h.assumed(kClaims, "default", "data-1"));
  EXPECT_EQ(h.services.takeWrites().size(), 1u);  // the first write, refused; no other tried
}

// An update against a version the API no longer has is a conflict (TestBindPodVolumes:
// bound-by-pv-controller-before-bind).
TEST(VolumeBindingCycleTest, ConflictingWriteFails) {
  Storage s = cluster();
  s.pvcs = {PVCBuilder("data", "local").request("1Gi").json()};
  BindingHarness h(s, podJson("pod", {"data"}), nodes());
  h.schedule();
  ASSERT_TRUE(h.reserve("node-a").ok());
  // The PV controller binds the volume to the claim first.
  h.services.update(kVolumes, "", "local-a", [](Json& pv) {
    spec(pv)["claimRef"] = {{"namespace", "default"}, {"name", "data"}, {"uid", "pvc-uid"}};
  });
  sh::Status st = h.preBind("node-a");
  EXPECT_EQ(st.code(), SH_ERROR);
  EXPECT_TRUE(contains(st.message(),
                       "Operation cannot be fulfilled on persistentvolumes "
                       "\"local-a\": the object has been modified"));
}

}  // namespace
}  // namespace schedhost::testing::volumebinding::binding_cycle_test

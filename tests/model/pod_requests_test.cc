// Effective pod requests, end to end through the parser. Cases follow component-helpers'
// resource/helpers_test.go (TestPodRequestsAndLimits, TestPodResourceRequests) and the
// scheduler's PodInfo.CalculateResource; the arithmetic is in the comments.
#include "host/model/pod_requests.h"

#include <gtest/gtest.h>

#include "host/model/interner.h"
#include "host/model/testing/wrappers.h"

namespace sh::model {
namespace {

using testing::MakePod;
using testing::PodWrapper;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

struct Expect {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t non_zero_cpu = 0;
  int64_t non_zero_mem = 0;
};

void check(const PodWrapper& w, const Expect& e) {
  auto pod = w.Obj();
  const sh_pod& v = pod->view();
  EXPECT_EQ(v.requests.milli_cpu, e.milli_cpu);
  EXPECT_EQ(v.requests.memory, e.memory);
  EXPECT_EQ(v.requests.allowed_pod_number, 0);
  EXPECT_EQ(v.non_zero_milli_cpu, e.non_zero_cpu);
  EXPECT_EQ(v.non_zero_memory, e.non_zero_mem);
}

TEST(PodRequestsTest, SumOfContainers) {
  // cpu 1+4 = 5, memory 5+12 = 17 (helpers_test "two container no overhead").
  check(MakePod()
            .Name("p")
            .ReqLim({{"cpu", "1"}, {"memory", "5"}}, {{"cpu", "2"}})
            .ReqLim({{"cpu", "4"}, {"memory", "12"}}, {{"cpu", "8"}}),
        {5000, 17, 5000, 17});
}

TEST(PodRequestsTest, JustOverhead) {
  // No containers: overhead only; non-zero adds it too and has no container to default.
  check(MakePod().Name("p").Overhead({{"cpu", "5"}, {"memory", "5"}}), {5000, 5, 5000, 5});
}

TEST(PodRequestsTest, RequestsAndOverhead) {
  // cpu 1 + 5 = 6, memory 10 + 5 = 15 ("req-and-overhead").
  check(MakePod()
            .Name("p")
            .Req({{"cpu", "1"}, {"memory", "10"}})
            .Overhead({{"cpu", "5"}, {"memory", "5"}}),
        {6000, 15, 6000, 15});
}

TEST(PodRequestsTest, LimitsDefaultRequests) {
  // "just-limit-no-overhead" asks PodRequests of an undefaulted pod and gets {}; the API
  // server would have copied the limit in first (SetDefaults_Pod), so a raw manifest gives 9.
  // Non-zero: cpu from the request; memory missing -> 200Mi.
  check(MakePod().Name("p").Lim({{"cpu", "9"}}), {9000, 0, 9000, 200 * kMi});
}

TEST(PodRequestsTest, LargerInitContainer) {
  // max(Σ containers = 1, init = 4) = 4 ("nil options, larger init container").
  check(MakePod().Name("p").InitReq({{"cpu", "4"}}).Req({{"cpu", "1"}}),
        // non-zero memory: max(200Mi for the container, 200Mi for the init container)
        {4000, 0, 4000, 200 * kMi});
}

TEST(PodRequestsTest, LargerContainers) {
  // max(Σ containers = 2+3, init = 2) = 5.
  check(MakePod().Name("p").InitReq({{"cpu", "2"}}).Req({{"cpu", "2"}}).Req({{"cpu", "3"}}),
        // non-zero memory: 200Mi + 200Mi for the two containers
        {5000, 0, 5000, 400 * kMi});
}

TEST(PodRequestsTest, MassiveInitWithOverhead) {
  // containers: cpu 1+4 = 5, memory 5+12 = 17; init: max(1, 40) = 40 cpu, max(5, 120) = 120;
  // max -> 40 / 120; + overhead 3 / 8 -> 43 / 128.
  check(MakePod()
            .Name("p")
            .Overhead({{"cpu", "3"}, {"memory", "8"}})
            .Req({{"cpu", "1"}, {"memory", "5"}})
            .Req({{"cpu", "4"}, {"memory", "12"}})
            .InitReq({{"cpu", "1"}, {"memory", "5"}})
            .InitReq({{"cpu", "40"}, {"memory", "120"}}),
        {43000, 128, 43000, 128});
}

TEST(PodRequestsTest, OverheadIncluded) {
  // max(2+3, 2) = 5 cpu, + overhead 1 = 6; memory 0 + 1Gi overhead.
  // Non-zero memory: max(200Mi+200Mi, 200Mi) + 1Gi.
  check(MakePod()
            .Name("p")
            .Overhead({{"cpu", "1"}, {"memory", "1Gi"}})
            .InitReq({{"cpu", "2"}})
            .Req({{"cpu", "2"}})
            .Req({{"cpu", "3"}}),
        {6000, kGi, 6000, kGi + 400 * kMi});
}

TEST(PodRequestsTest, RestartableInitContainer) {
  // sidecar 1 + container 1 = 2 ("restartable init container").
  check(MakePod().Name("p").SidecarReq({{"cpu", "1"}}).Req({{"cpu", "1"}}),
        {2000, 0, 2000, 400 * kMi});
}

TEST(PodRequestsTest, MultipleRestartableInitContainers) {
  // max(init-1 = 5, sidecars 1+2+3 + regular 1 = 7) = 7.
  check(MakePod()
            .Name("p")
            .InitReq({{"cpu", "5"}})
            .SidecarReq({{"cpu", "1"}})
            .SidecarReq({{"cpu", "2"}})
            .SidecarReq({{"cpu", "3"}})
            .Req({{"cpu", "1"}}),
        {7000, 0, 7000, 4 * 200 * kMi});
}

TEST(PodRequestsTest, RestartableAndRegularInitContainers) {
  // init-2 needs 5 + the sidecars started before it (1+2) = 8; the sidecar after it does not
  // count; Σ = 1+2+3 + 1 = 7; max = 8.
  check(MakePod()
            .Name("p")
            .InitReq({{"cpu", "5"}})
            .SidecarReq({{"cpu", "1"}})
            .SidecarReq({{"cpu", "2"}})
            .InitReq({{"cpu", "5"}})
            .SidecarReq({{"cpu", "3"}})
            .Req({{"cpu", "1"}}),
        // non-zero memory: Σ = 3 sidecars + 1 container = 800Mi; init-2: 200Mi + 2 x 200Mi
        {8000, 0, 8000, 800 * kMi});
}

TEST(PodRequestsTest, SidecarThenBigInit) {
  // sidecar 10 + init 200 = 210 > Σ 10 + 100 = 110 ("restartable-init, init and regular").
  check(MakePod()
            .Name("p")
            .SidecarReq({{"cpu", "10"}})
            .InitReq({{"cpu", "200"}})
            .Req({{"cpu", "100"}}),
        {210000, 0, 210000, 400 * kMi});
}

TEST(PodRequestsTest, NonZeroDefaultsPerContainer) {
  // Container 1 asks only cpu 500m, container 2 nothing:
  // non-zero cpu = 500m + 100m, memory = 200Mi + 200Mi.
  check(MakePod().Name("p").Req({{"cpu", "500m"}}).Container("nginx"), {500, 0, 600, 400 * kMi});
  // An explicit zero is a request: no default.
  check(MakePod().Name("p").Req({{"cpu", "0"}, {"memory", "0"}}), {0, 0, 0, 0});
  // No containers at all: nothing to default.
  check(MakePod().Name("p"), {0, 0, 0, 0});
}

TEST(PodRequestsTest, PodLevelRequestsReplaceAggregate) {
  // Pod-level cpu 2 and memory 1Gi replace Σ containers (500m + 250m, 100Mi).
  // Non-zero: both set at pod level -> no defaults, same values.
  check(MakePod()
            .Name("p")
            .PodRequests({{"cpu", "2"}, {"memory", "1Gi"}})
            .Req({{"cpu", "500m"}, {"memory", "100Mi"}})
            .Req({{"cpu", "250m"}}),
        {2000, kGi, 2000, kGi});
}

TEST(PodRequestsTest, PodLevelCpuOnlyKeepsContainerMemory) {
  // Pod-level cpu 2; memory from containers 100Mi. Non-zero memory is set by a container ->
  // no default applied.
  check(MakePod().Name("p").PodRequests({{"cpu", "2"}}).Req({{"memory", "100Mi"}}).Req({}),
        {2000, 100 * kMi, 2000, 100 * kMi});
  // Memory missing everywhere -> the 200Mi default applies per container (2 x 200Mi).
  check(MakePod().Name("p").PodRequests({{"cpu", "2"}}).Req({{"cpu", "1"}}).Container("x"),
        {2000, 0, 2000, 400 * kMi});
}

TEST(PodRequestsTest, PodLevelLimitsDefaultPodRequests) {
  // defaultPodRequests: pod limits {cpu 4, memory 2Gi}, containers request cpu 1 only:
  // pod cpu request <- aggregated container requests (1); memory <- pod limit (2Gi).
  check(MakePod().Name("p").PodLimits({{"cpu", "4"}, {"memory", "2Gi"}}).Req({{"cpu", "1"}}),
        {1000, 2 * kGi, 1000, 2 * kGi});
}

TEST(PodRequestsTest, PodLevelPlusOverhead) {
  // Pod level cpu 1 replaces Σ (3), then overhead 250m is added.
  check(MakePod()
            .Name("p")
            .PodRequests({{"cpu", "1"}})
            .Req({{"cpu", "3"}, {"memory", "1"}})
            .Overhead({{"cpu", "250m"}}),
        {1250, 1, 1250, 1});
}

TEST(PodRequestsTest, ExactSumsBeforeRounding) {
  // Quantities are summed exactly, then rounded: 3 x 0.5 bytes = 1.5 -> 2 bytes (summing
  // rounded values would give 3).
  check(MakePod()
            .Name("p")
            .Req({{"memory", "500m"}})
            .Req({{"memory", "500m"}})
            .Req({{"memory", "500m"}}),
        {0, 2, 300, 2});
}

TEST(PodRequestsTest, ScalarsHugepagesAndUnknownNames) {
  auto pod = MakePod()
                 .Name("p")
                 .Req({{"nvidia.com/gpu", "2"},
                       {"hugepages-2Mi", "4Mi"},
                       {"foo", "5"},
                       {"ephemeral-storage", "1Gi"}})
                 .Req({{"nvidia.com/gpu", "1"}})
                 .Obj();
  const sh_resources& r = pod->view().requests;
  EXPECT_EQ(r.ephemeral_storage, kGi);
  ASSERT_EQ(r.scalar_count, 2u);  // "foo" is not a scalar resource name: dropped
  for (uint32_t i = 0; i < r.scalar_count; ++i) {
    std::string_view name = interner().view(r.scalars[i].name);
    if (name == "nvidia.com/gpu") {
      EXPECT_EQ(r.scalars[i].value, 3);
    } else {
      EXPECT_EQ(name, "hugepages-2Mi");
      EXPECT_EQ(r.scalars[i].value, 4 * kMi);
    }
  }
  EXPECT_LT(r.scalars[0].name, r.scalars[1].name);
}

TEST(PodRequestsTest, InPlaceResizeTakesMaxOfSpecAndStatus) {
  // Spec 1 cpu, allocated 2, actuated 3 -> max = 3 ("resized: per-resource 3-way maximum").
  boost::json::value status = boost::json::parse(R"({
    "containerStatuses": [{"name": "con0", "allocatedResources": {"cpu": "2"},
                           "resources": {"requests": {"cpu": "3"}}}]})");
  check(MakePod().Name("p").Req({{"cpu", "1"}}).Set({"status"}, status),
        {3000, 0, 3000, 200 * kMi});
}

TEST(PodRequestsTest, InfeasibleResizeIgnoresSpec) {
  // Infeasible resize: max(actuated 2, allocated) where allocated falls back to nothing.
  boost::json::value status = boost::json::parse(R"({
    "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
    "containerStatuses": [{"name": "con0", "resources": {"requests": {"cpu": "2"}}}]})");
  check(MakePod().Name("p").Req({{"cpu", "4"}}).Set({"status"}, status),
        {2000, 0, 2000, 200 * kMi});
}

TEST(PodRequestsTest, ApplyPodLevelDefaultsHugepages) {
  // Container hugepage limits default the pod-level limit, which defaults the pod request.
  PodResourcesInput in;
  in.has_pod_resources = true;
  sh_id huge = intern("hugepages-2Mi");
  in.pod_requests.set(SH_ID_CPU, 1000);
  ContainerResources c;
  c.limits.set(huge, int128_t{4 * kMi} * 1000);
  c.requests = c.limits;
  in.containers.push_back(c);
  apply_pod_level_defaults(in);
  ASSERT_NE(in.pod_limits.find(huge), nullptr);
  ASSERT_NE(in.pod_requests.find(huge), nullptr);
  EXPECT_EQ(*in.pod_requests.find(huge), int128_t{4 * kMi} * 1000);
}

}  // namespace
}  // namespace sh::model

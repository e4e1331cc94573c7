// Effective pod requests, end to end through the parser. Cases follow component-helpers'
// resource/helpers_test.go (TestPodRequestsAndLimits, TestPodResourceRequests) and the
// scheduler's PodInfo.CalculateResource; the arithmetic is in the comments.
#include "host/model/pod_requests.h"

#include <gtest/gtest.h>

#include "host/model/interner.h"
#include "host/model/testing/wrappers.h"

namespace sh::model::pod_requests_test {
namespace {

using testing::makePod;
using testing::PodWrapper;

constexpr int64_t kMi = 1024 * 1024;
constexpr int64_t kGi = 1024 * kMi;

struct Expect {
  int64_t milliCpu = 0;
  int64_t memory = 0;
  int64_t nonZeroCpu = 0;
  int64_t nonZeroMem = 0;
};

void check(const PodWrapper& w, const Expect& e) {
  auto pod = w.obj();
  const sh_pod& v = pod->view();
  EXPECT_EQ(v.requests.milli_cpu, e.milliCpu);
  EXPECT_EQ(v.requests.memory, e.memory);
  EXPECT_EQ(v.requests.allowed_pod_number, 0);
  EXPECT_EQ(v.non_zero_milli_cpu, e.nonZeroCpu);
  EXPECT_EQ(v.non_zero_memory, e.nonZeroMem);
}

TEST(PodRequestsTest, SumOfContainers) {
  // cpu 1+4 = 5, memory 5+12 = 17 (helpers_test "two container no overhead").
  check(makePod()
            .name("p")
            .reqLim({{"cpu", "1"}, {"memory", "5"}}, {{"cpu", "2"}})
            .reqLim({{"cpu", "4"}, {"memory", "12"}}, {{"cpu", "8"}}),
        {5000, 17, 5000, 17});
}

TEST(PodRequestsTest, JustOverhead) {
  // No containers: overhead only; non-zero adds it too and has no container to default.
  check(makePod().name("p").overhead({{"cpu", "5"}, {"memory", "5"}}), {5000, 5, 5000, 5});
}

TEST(PodRequestsTest, RequestsAndOverhead) {
  // cpu 1 + 5 = 6, memory 10 + 5 = 15 ("req-and-overhead").
  check(makePod()
            .name("p")
            .req({{"cpu", "1"}, {"memory", "10"}})
            .overhead({{"cpu", "5"}, {"memory", "5"}}),
        {6000, 15, 6000, 15});
}

TEST(PodRequestsTest, LimitsDefaultRequests) {
  // "just-limit-no-overhead" asks PodRequests of an undefaulted pod and gets {}; the API
  // server would have copied the limit in first (SetDefaults_Pod), so a raw manifest gives 9.
  // Non-zero: cpu from the request; memory missing -> 200Mi.
  check(makePod().name("p").lim({{"cpu", "9"}}), {9000, 0, 9000, 200 * kMi});
}

TEST(PodRequestsTest, LargerInitContainer) {
  // max(Σ containers = 1, init = 4) = 4 ("nil options, larger init container").
  check(makePod().name("p").initReq({{"cpu", "4"}}).req({{"cpu", "1"}}),
        // non-zero memory: max(200Mi for the container, 200Mi for the init container)
        {4000, 0, 4000, 200 * kMi});
}

TEST(PodRequestsTest, LargerContainers) {
  // max(Σ containers = 2+3, init = 2) = 5.
  check(makePod().name("p").initReq({{"cpu", "2"}}).req({{"cpu", "2"}}).req({{"cpu", "3"}}),
        // non-zero memory: 200Mi + 200Mi for the two containers
        {5000, 0, 5000, 400 * kMi});
}

TEST(PodRequestsTest, MassiveInitWithOverhead) {
  // containers: cpu 1+4 = 5, memory 5+12 = 17; init: max(1, 40) = 40 cpu, max(5, 120) = 120;
  // max -> 40 / 120; + overhead 3 / 8 -> 43 / 128.
  check(makePod()
            .name("p")
            .overhead({{"cpu", "3"}, {"memory", "8"}})
            .req({{"cpu", "1"}, {"memory", "5"}})
            .req({{"cpu", "4"}, {"memory", "12"}})
            .initReq({{"cpu", "1"}, {"memory", "5"}})
            .initReq({{"cpu", "40"}, {"memory", "120"}}),
        {43000, 128, 43000, 128});
}

TEST(PodRequestsTest, OverheadIncluded) {
  // max(2+3, 2) = 5 cpu, + overhead 1 = 6; memory 0 + 1Gi overhead.
  // Non-zero memory: max(200Mi+200Mi, 200Mi) + 1Gi.
  check(makePod()
            .name("p")
            .overhead({{"cpu", "1"}, {"memory", "1Gi"}})
            .initReq({{"cpu", "2"}})
            .req({{"cpu", "2"}})
            .req({{"cpu", "3"}}),
        {6000, kGi, 6000, kGi + 400 * kMi});
}

TEST(PodRequestsTest, RestartableInitContainer) {
  // sidecar 1 + container 1 = 2 ("restartable init container").
  check(makePod().name("p").sidecarReq({{"cpu", "1"}}).req({{"cpu", "1"}}),
        {2000, 0, 2000, 400 * kMi});
}

TEST(PodRequestsTest, MultipleRestartableInitContainers) {
  // max(init-1 = 5, sidecars 1+2+3 + regular 1 = 7) = 7.
  check(makePod()
            .name("p")
            .initReq({{"cpu", "5"}})
            .sidecarReq({{"cpu", "1"}})
            .sidecarReq({{"cpu", "2"}})
            .sidecarReq({{"cpu", "3"}})
            .req({{"cpu", "1"}}),
        {7000, 0, 7000, 4 * 200 * kMi});
}

TEST(PodRequestsTest, RestartableAndRegularInitContainers) {
  // init-2 needs 5 + the sidecars started before it (1+2) = 8; the sidecar after it does not
  // count; Σ = 1+2+3 + 1 = 7; max = 8.
  check(makePod()
            .name("p")
            .initReq({{"cpu", "5"}})
            .sidecarReq({{"cpu", "1"}})
            .sidecarReq({{"cpu", "2"}})
            .initReq({{"cpu", "5"}})
            .sidecarReq({{"cpu", "3"}})
            .req({{"cpu", "1"}}),
        // non-zero memory: Σ = 3 sidecars + 1 container = 800Mi; init-2: 200Mi + 2 x 200Mi
        {8000, 0, 8000, 800 * kMi});
}

TEST(PodRequestsTest, SidecarThenBigInit) {
  // sidecar 10 + init 200 = 210 > Σ 10 + 100 = 110 ("restartable-init, init and regular").
  check(makePod()
            .name("p")
            .sidecarReq({{"cpu", "10"}})
            .initReq({{"cpu", "200"}})
            .req({{"cpu", "100"}}),
        {210000, 0, 210000, 400 * kMi});
}

TEST(PodRequestsTest, NonZeroDefaultsPerContainer) {
  // Container 1 asks only cpu 500m, container 2 nothing:
  // non-zero cpu = 500m + 100m, memory = 200Mi + 200Mi.
  check(makePod().name("p").req({{"cpu", "500m"}}).container("nginx"), {500, 0, 600, 400 * kMi});
  // An explicit zero is a request: no default.
  check(makePod().name("p").req({{"cpu", "0"}, {"memory", "0"}}), {0, 0, 0, 0});
  // No containers at all: nothing to default.
  check(makePod().name("p"), {0, 0, 0, 0});
}

TEST(PodRequestsTest, PodLevelRequestsReplaceAggregate) {
  // Pod-level cpu 2 and memory 1Gi replace Σ containers (500m + 250m, 100Mi).
  // Non-zero: both set at pod level -> no defaults, same values.
  check(makePod()
            .name("p")
            .podRequests({{"cpu", "2"}, {"memory", "1Gi"}})
            .req({{"cpu", "500m"}, {"memory", "100Mi"}})
            .req({{"cpu", "250m"}}),
        {2000, kGi, 2000, kGi});
}

TEST(PodRequestsTest, PodLevelCpuOnlyKeepsContainerMemory) {
  // Pod-level cpu 2; memory from containers 100Mi. Non-zero memory is set by a container ->
  // no default applied.
  check(makePod().name("p").podRequests({{"cpu", "2"}}).req({{"memory", "100Mi"}}).req({}),
        {2000, 100 * kMi, 2000, 100 * kMi});
  // Memory missing everywhere -> the 200Mi default applies per container (2 x 200Mi).
  check(makePod().name("p").podRequests({{"cpu", "2"}}).req({{"cpu", "1"}}).container("x"),
        {2000, 0, 2000, 400 * kMi});
}

TEST(PodRequestsTest, PodLevelLimitsDefaultPodRequests) {
  // defaultPodRequests: pod limits {cpu 4, memory 2Gi}, containers request cpu 1 only:
  // pod cpu request <- aggregated container requests (1); memory <- pod limit (2Gi).
  check(makePod().name("p").podLimits({{"cpu", "4"}, {"memory", "2Gi"}}).req({{"cpu", "1"}}),
        {1000, 2 * kGi, 1000, 2 * kGi});
}

TEST(PodRequestsTest, PodLevelPlusOverhead) {
  // Pod level cpu 1 replaces Σ (3), then overhead 250m is added.
  check(makePod()
            .name("p")
            .podRequests({{"cpu", "1"}})
            .req({{"cpu", "3"}, {"memory", "1"}})
            .overhead({{"cpu", "250m"}}),
        {1250, 1, 1250, 1});
}

TEST(PodRequestsTest, ExactSumsBeforeRounding) {
  // Quantities are summed exactly, then rounded: 3 x 0.5 bytes = 1.5 -> 2 bytes (summing
  // rounded values would give 3).
  check(makePod()
            .name("p")
            .req({{"memory", "500m"}})
            .req({{"memory", "500m"}})
            .req({{"memory", "500m"}}),
        {0, 2, 300, 2});
}

TEST(PodRequestsTest, ScalarsHugepagesAndUnknownNames) {
  auto pod = makePod()
                 .name("p")
                 .req({{"nvidia.com/gpu", "2"},
                       {"hugepages-2Mi", "4Mi"},
                       {"foo", "5"},
                       {"ephemeral-storage", "1Gi"}})
                 .req({{"nvidia.com/gpu", "1"}})
                 .obj();
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
  check(makePod().name("p").req({{"cpu", "1"}}).set({"status"}, status),
        {3000, 0, 3000, 200 * kMi});
}

TEST(PodRequestsTest, InfeasibleResizeIgnoresSpec) {
  // Infeasible resize: max(actuated 2, allocated) where allocated falls back to nothing.
  boost::json::value status = boost::json::parse(R"({
    "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}],
    "containerStatuses": [{"name": "con0", "resources": {"requests": {"cpu": "2"}}}]})");
  check(makePod().name("p").req({{"cpu", "4"}}).set({"status"}, status),
        {2000, 0, 2000, 200 * kMi});
}

TEST(PodRequestsTest, ApplyPodLevelDefaultsHugepages) {
  // Container hugepage limits default the pod-level limit, which defaults the pod request.
  PodResourcesInput in;
  in.hasPodResources = true;
  sh_id huge = intern("hugepages-2Mi");
  in.podRequests.set(SH_ID_CPU, 1000);
  ContainerResources c;
  c.limits.set(huge, int128_t{4 * kMi} * 1000);
  c.requests = c.limits;
  in.containers.push_back(c);
  applyPodLevelDefaults(in);
  ASSERT_NE(in.podLimits.find(huge), nullptr);
  ASSERT_NE(in.podRequests.find(huge), nullptr);
  EXPECT_EQ(*in.podRequests.find(huge), int128_t{4 * kMi} * 1000);
}

}  // namespace
}  // namespace sh::model::pod_requests_test

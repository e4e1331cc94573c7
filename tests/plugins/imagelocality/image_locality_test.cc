// ImageLocality: prefers nodes holding the pod's images, scaled by how many nodes have them.
// Cases after upstream image_locality_test.go, our numbers. MiB = 1048576; the sum is clamped
// to [23 MiB, 1000 MiB × containers] and scored 100·(sum − 23 MiB)/(max − 23 MiB). Two nodes,
// so every spread (1/2 or 2/2) is exact in float64.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "tests/plugins/score_test_util.h"

namespace schedhost::testing::image_locality_test {
namespace {

constexpr char kImage[] = "ImageLocality";
constexpr int64_t kMiB = 1024 * 1024;

TEST(ImageLocalityTest, Score) {
  // gcr.io/300 is on both nodes; the others on one.
  std::vector<NodePtr> nodes = {makeNode()
                                    .name("n1")
                                    .images({{"gcr.io/40:latest", 40 * kMiB},
                                             {"gcr.io/300:latest", 300 * kMiB},
                                             {"gcr.io/2000:latest", 2000 * kMiB}})
                                    .obj(),
                                makeNode()
                                    .name("n2")
                                    .images({{"gcr.io/250:latest", 250 * kMiB},
                                             {"gcr.io/10:latest", 10 * kMiB},
                                             {"gcr.io/300:latest", 300 * kMiB}})
                                    .obj()};
  auto pod = [] { return makePod().name("p").uid("p"); };
  runScoreCases(
      kImage,
      {
          // 2 containers → max 2000 MiB.
          // n1: 40 MiB · 1/2 = 20 MiB < 23 MiB → 0
          // n2: 250 MiB · 1/2 = 125 MiB → 100·(125 − 23)/(2000 − 23) = 10200/1977 = 5
          {"two images, each on one node",
           "",
           nodes,
           {},
           pod().container("gcr.io/40").container("gcr.io/250").obj(),
           {{"n1", 0}, {"n2", 5}}},
          // n1: 300 MiB · 2/2 + 2000 MiB · 1/2 = 1300 MiB → 100·(1300 − 23)/1977 = 64
          // n2: 300 MiB · 2/2 = 300 MiB → 100·(300 − 23)/1977 = 14
          {"an image on every node counts in full",
           "",
           nodes,
           {},
           pod().container("gcr.io/300").container("gcr.io/2000").obj(),
           {{"n1", 64}, {"n2", 14}}},
          // 1 container → max 1000 MiB. n1: 2000 MiB · 1/2 = 1000 MiB → 100; n2: 0
          {"the sum is clamped to the maximum",
           "",
           nodes,
           {},
           pod().container("gcr.io/2000").obj(),
           {{"n1", 100}, {"n2", 0}}},
          // Init container gcr.io/300, container gcr.io/40, image volume gcr.io/250; the maximum
          // counts init containers and containers: 2 → 2000 MiB.
          // n1: 300 + 40/2 = 320 MiB → 100·(320 − 23)/1977 = 15
          // n2: 300 + 250/2 = 425 MiB → 100·(425 − 23)/1977 = 20
          {"init containers and image volumes",
           "",
           nodes,
           {},
           pod()
               .initContainerImage("gcr.io/300")
               .container("gcr.io/40")
               .imageVolume("gcr.io/250")
               .obj(),
           {{"n1", 15}, {"n2", 20}}},
          // A name without a tag means :latest; another tag is another image.
          // n1: 2000 MiB · 1/2 = 1000 MiB (gcr.io/300:v1 is nowhere) → 100·(1000 − 23)/1977 = 49
          {"tags",
           "",
           nodes,
           {},
           pod().container("gcr.io/2000:latest").container("gcr.io/300:v1").obj(),
           {{"n1", 49}, {"n2", 0}}},
          {"no image on any node",
           "",
           nodes,
           {},
           pod().container("gcr.io/none").obj(),
           {{"n1", 0}, {"n2", 0}}},
      });
}

}  // namespace
}  // namespace schedhost::testing::image_locality_test

// ImageLocality: prefers nodes that already hold the pod's images, weighting each image by
// its size and by how widely it has spread (to avoid piling pods onto one node).
//
// Extension points: Score.
// Upstream: pkg/scheduler/framework/plugins/imagelocality/image_locality.go (v1.36).
#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

namespace schedhost::plugins::imagelocality {

constexpr const char* kName = "ImageLocality";

// The bounds of the image score range: 90% of images on Docker Hub fall between them.
constexpr int64_t kMiB = 1024 * 1024;
constexpr int64_t kMinThreshold = 23 * kMiB;
constexpr int64_t kMaxContainerThreshold = 1000 * kMiB;

class ImageLocality : public ScorePlugin {
 public:
  Status score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo, int64_t& score);
};

namespace {

const sh_image_state* findImage(const sh_node_info& nodeInfo, sh_id name) noexcept {
  return findById(nodeInfo.image_states, nodeInfo.image_state_count, &sh_image_state::name, name);
}

// The image size scaled by the fraction of snapshot nodes that have it, in float64 as upstream.
int64_t scaledImageScore(const sh_image_state& image, std::size_t totalNumNodes) noexcept {
  double spread = static_cast<double>(image.num_nodes) / static_cast<double>(totalNumNodes);
  return static_cast<int64_t>(static_cast<double>(image.size_bytes) * spread);
}

// Clamps the sum to [23 MiB, 1000 MiB * containers] and maps it linearly onto [0, 100].
int64_t calculatePriority(int64_t sumScores, uint32_t numContainers) noexcept {
  int64_t maxThreshold = kMaxContainerThreshold * static_cast<int64_t>(numContainers);
  if (sumScores < kMinThreshold) {
    sumScores = kMinThreshold;
  } else if (sumScores > maxThreshold) {
    sumScores = maxThreshold;
  }
  return SH_MAX_NODE_SCORE * (sumScores - kMinThreshold) / (maxThreshold - kMinThreshold);
}

}  // namespace

Status ImageLocality::score(Cycle& cycle, const sh_pod& pod, const sh_node_info& nodeInfo,
                            int64_t& score) {
  std::size_t totalNumNodes = cycle.snapshot().size();
  int64_t sum = 0;
  for (uint32_t i = 0; i < pod.image_count && totalNumNodes > 0; ++i) {
    const sh_image_state* image = findImage(nodeInfo, pod.images[i]);
    if (image != nullptr) {
      sum += scaledImageScore(*image, totalNumNodes);
    }
  }
  score = calculatePriority(sum, pod.container_count);
  return Status::success();
}

}  // namespace schedhost::plugins::imagelocality

SCHEDHOST_PLUGIN(schedhost::plugins::imagelocality::ImageLocality,
                 schedhost::plugins::imagelocality::kName, "1.36.0")

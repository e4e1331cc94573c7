// Image names and ImageLocality's per-node image states.
//
// kube-scheduler's cache keeps, per image name, the size first reported for it and the set of
// nodes reporting it; a snapshot gives every NodeInfo, for each image name on its node,
// {size, number of nodes with the image}. compute_image_states() does the same over the
// snapshot's node list.
#ifndef SCHEDHOST_HOST_MODEL_IMAGE_STATES_H
#define SCHEDHOST_HOST_MODEL_IMAGE_STATES_H

#include <schedhost/plugin.h>

#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sh::model {

class NodeInfo;

// ImageLocality's normalizedImageName: appends ":latest" unless the name has a tag, i.e. a
// ':' after the last '/'. Digests ("name@sha256:...") have one and are left alone.
std::string normalizedImageName(std::string_view name);

struct ImageSummary {
  int64_t sizeBytes = 0;  // as reported by the first node seen with the image
  uint32_t numNodes = 0;  // nodes reporting the image, each counted once
};
using ImageSummaries = std::unordered_map<sh_id, ImageSummary>;

// For each image name on any of `nodes`, its size and how many of them report it.
ImageSummaries summarizeImages(std::span<const sh_node* const> nodes);

// The image states of one node: one per distinct image name on it, sorted by name id.
std::vector<sh_image_state> imageStatesFor(const sh_node& node, const ImageSummaries& all);

// Summarises the images of the infos' nodes and sets every info's image states. Infos
// without a node are skipped.
void computeImageStates(std::span<NodeInfo* const> infos);

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_IMAGE_STATES_H

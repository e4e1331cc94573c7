#include "host/model/image_states.h"

#include <algorithm>

#include "host/model/node.h"
#include "host/model/node_info.h"

namespace sh::model {

std::string normalizedImageName(std::string_view name) {
  std::string out(name);
  std::size_t colon = name.rfind(':');
  std::size_t slash = name.rfind('/');
  // strings.LastIndex gives -1 when absent: "no ':'" always gets the tag.
  if (colon == std::string_view::npos || (slash != std::string_view::npos && colon <= slash)) {
    out += ":latest";
  }
  return out;
}

ImageSummaries summarizeImages(std::span<const sh_node* const> nodes) {
  ImageSummaries out;
  std::vector<sh_id> seen;
  for (const sh_node* node : nodes) {
    if (node == nullptr) {
      continue;
    }
    seen.clear();
    for (uint32_t i = 0; i < node->image_count; ++i) {
      const sh_image& image = node->images[i];
      if (std::find(seen.begin(), seen.end(), image.name) != seen.end()) {
        continue;  // a node lists a name twice: it still counts once
      }
      seen.push_back(image.name);
      auto [it, inserted] = out.try_emplace(image.name, ImageSummary{image.size_bytes, 0});
      ++it->second.numNodes;
    }
  }
  return out;
}

std::vector<sh_image_state> imageStatesFor(const sh_node& node, const ImageSummaries& all) {
  std::vector<sh_image_state> out;
  out.reserve(node.image_count);
  for (uint32_t i = 0; i < node.image_count; ++i) {
    auto it = all.find(node.images[i].name);
    if (it != all.end()) {
      out.push_back(sh_image_state{it->first, it->second.numNodes, it->second.sizeBytes});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const sh_image_state& a, const sh_image_state& b) { return a.name < b.name; });
  out.erase(std::unique(
                out.begin(), out.end(),
                [](const sh_image_state& a, const sh_image_state& b) { return a.name == b.name; }),
            out.end());
  return out;
}

void computeImageStates(std::span<NodeInfo* const> infos) {
  std::vector<const sh_node*> nodes;
  nodes.reserve(infos.size());
  for (const NodeInfo* info : infos) {
    if (info != nullptr && info->node() != nullptr) {
      nodes.push_back(&info->node()->view());
    }
  }
  ImageSummaries all = summarizeImages(nodes);
  for (NodeInfo* info : infos) {
    if (info != nullptr && info->node() != nullptr) {
      info->setImageStates(imageStatesFor(info->node()->view(), all));
    }
  }
}

}  // namespace sh::model

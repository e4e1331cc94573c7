#include "host/cache/image_index.h"

#include <algorithm>
#include <utility>

#include "host/model/node_info.h"

namespace sh::cache {
namespace {

struct NodeImage {
  sh_id name;
  int64_t sizeBytes;
};

// The distinct image names of a node, sorted by id; a name listed twice keeps the size of
// its first entry, as upstream's addNodeImageStates.
std::vector<NodeImage> distinctImages(const sh_node* node) {
  std::vector<NodeImage> out;
  if (node == nullptr) {
    return out;
  }
  out.reserve(node->image_count);
  for (uint32_t i = 0; i < node->image_count; ++i) {
    out.push_back(NodeImage{node->images[i].name, node->images[i].size_bytes});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const NodeImage& a, const NodeImage& b) { return a.name < b.name; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const NodeImage& a, const NodeImage& b) { return a.name == b.name; }),
            out.end());
  return out;
}

}  // namespace

void ImageIndex::stamp(Entry& e) {
  e.generation = model::nextGeneration();
  epoch_ = e.generation;
  recent_.splice(recent_.begin(), recent_, e.recent);
}

bool ImageIndex::replace(CachedNode* holder, const sh_node* oldNode, const sh_node* newNode) {
  const std::vector<NodeImage> before = distinctImages(oldNode);
  const std::vector<NodeImage> after = distinctImages(newNode);
  bool changed = false;
  auto drop = [&](sh_id name) {
    auto it = images_.find(name);
    if (it == images_.end()) {
      return;
    }
    Entry& e = it->second;
    e.nodes.erase(holder);
    changed = true;
    if (!e.nodes.empty()) {
      stamp(e);
      return;
    }
    recent_.erase(e.recent);
    images_.erase(it);
    epoch_ = model::nextGeneration();
  };
  auto add = [&](const NodeImage& image) {
    auto [it, inserted] = images_.try_emplace(image.name);
    Entry& e = it->second;
    if (inserted) {
      e.name = image.name;
      e.sizeBytes = image.sizeBytes;
      recent_.push_front(&e);
      e.recent = recent_.begin();
    }
    if (e.nodes.insert(holder).second) {
      changed = true;
      stamp(e);
    }
  };
  auto keep = [&](const NodeImage& image) {
    auto it = images_.find(image.name);
    if (it == images_.end()) {
      add(image);  // the index lost track of it; re-register
      return;
    }
    Entry& e = it->second;
    // The only holder: upstream deletes the entry and creates it again with the new size.
    if (e.nodes.size() == 1 && e.nodes.count(holder) == 1 && e.sizeBytes != image.sizeBytes) {
      e.sizeBytes = image.sizeBytes;
      changed = true;
      stamp(e);
    }
  };

  auto b = before.begin();
  auto a = after.begin();
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && b->name < a->name)) {
      drop((b++)->name);
    } else if (b == before.end() || a->name < b->name) {
      add(*a++);
    } else {
      keep(*a);
      ++a;
      ++b;
    }
  }
  return changed;
}

std::vector<sh_image_state> ImageIndex::statesFor(const sh_node& node,
                                                  std::vector<const Entry*>& entries) const {
  std::vector<const Entry*> found;
  found.reserve(node.image_count);
  for (uint32_t i = 0; i < node.image_count; ++i) {
    auto it = images_.find(node.images[i].name);
    if (it != images_.end()) {
      found.push_back(&it->second);
    }
  }
  std::sort(found.begin(), found.end(),
            [](const Entry* x, const Entry* y) { return x->name < y->name; });
  found.erase(std::unique(found.begin(), found.end()), found.end());
  std::vector<sh_image_state> states(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    states[i].name = found[i]->name;
  }
  refresh(found, states);
  entries = std::move(found);
  return states;
}

void ImageIndex::refresh(const std::vector<const Entry*>& entries,
                         std::vector<sh_image_state>& states) {
  for (std::size_t i = 0; i < entries.size(); ++i) {
    states[i].num_nodes = static_cast<uint32_t>(entries[i]->nodes.size());
    states[i].size_bytes = entries[i]->sizeBytes;
  }
}

std::optional<ImageIndex::Summary> ImageIndex::find(sh_id name) const {
  auto it = images_.find(name);
  if (it == images_.end()) {
    return std::nullopt;
  }
  return Summary{it->second.sizeBytes, static_cast<uint32_t>(it->second.nodes.size())};
}

}  // namespace sh::cache

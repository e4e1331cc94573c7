// A node as the host models it: an immutable object that owns every byte its sh_node view
// points at. Built once by parse_node(), shared as shared_ptr<const Node>, never moved.
#ifndef SCHEDHOST_HOST_MODEL_NODE_H
#define SCHEDHOST_HOST_MODEL_NODE_H

#include <schedhost/plugin.h>

#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "host/model/arena.h"
#include "host/model/lazy_manifest.h"

namespace sh::model {

class Node {
  struct Key {
    explicit Key() = default;
  };

 public:
  explicit Node(Key) { block_.owner = this; }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // The ABI view; every pointer in it points into this Node or the interner.
  const sh_node& view() const { return block_.view; }

  // The Node that owns a view handed out by view() (plugins pass views back to the host).
  // `v` must come from a Node's view(); nullptr gives nullptr.
  static const Node* fromView(const sh_node* v) {
    return v == nullptr ? nullptr : reinterpret_cast<const ViewBlock*>(v)->owner;
  }

  std::string_view name() const { return {block_.view.name.ptr, block_.view.name.len}; }
  std::string_view uid() const { return {uid_.ptr, uid_.len}; }
  // The manifest this node was parsed from, serialised.
  const std::string& json() const { return json_; }
  // json() as a JSON tree, parsed on first use and kept (the node_manifest service).
  const boost::json::value& manifest() const {
    return manifest_.get([this]() -> const std::string& { return json_; });
  }

 private:
  friend class NodeParser;

  Arena arena_;
  // The view comes first in a standard-layout block, so a view pointer converts back to its
  // block and from there to its owner.
  struct ViewBlock {
    sh_node view{};
    const Node* owner = nullptr;
  };
  ViewBlock block_;
  sh_str uid_{"", 0};
  std::string json_;
  LazyManifest manifest_;
};

// Parses a v1.Node. On malformed input returns nullptr and sets `error` to every problem
// found, each prefixed by its JSON path. Never throws.
std::shared_ptr<const Node> parseNode(const boost::json::value& json, std::string& error);
// Same, from JSON text; malformed JSON gives "invalid JSON: <reason>".
std::shared_ptr<const Node> parseNodeJson(std::string_view jsonText, std::string& error);
// JSON text goes to parse_node_json; a literal here would parse as a JSON string.
std::shared_ptr<const Node> parseNode(const char* jsonText, std::string& error) = delete;

}  // namespace sh::model

#endif  // SCHEDHOST_HOST_MODEL_NODE_H

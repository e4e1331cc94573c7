// parse_node: v1.Node JSON -> Node: name, labels, unschedulable, taints, allocatable
// (capacity when allocatable is absent, as SetDefaults_NodeStatus), images and declared
// features.
#include <algorithm>
#include <boost/json/serialize.hpp>
#include <exception>

#include "host/common/limits.h"
#include "host/model/field_parsers.h"
#include "host/model/interner.h"
#include "host/model/node.h"

namespace sh::model {

class NodeParser {
 public:
  static std::shared_ptr<const Node> run(const boost::json::value& json, std::string& error) {
    try {
      auto node = std::make_shared<Node>(Node::Key{});
      ParseContext ctx;
      NodeParser(*node).parse(Cursor(ctx, &json));
      if (!ctx.ok()) {
        error = ctx.message();
        return nullptr;
      }
      // One parse, one verdict, as for pods (pod_parser.cc).
      if (std::string path; findNonFinite(json, path)) {
        error = nonFiniteMessage(path, "node");
        return nullptr;
      }
      node->json_ = boost::json::serialize(json);
      return node;
    } catch (const std::exception& e) {
      // Only allocation failure can get here; nothing escapes the parser.
      error = std::string("parsing node: ") + e.what();
      return nullptr;
    }
  }

 private:
  explicit NodeParser(Node& node) : node_(node), arena_(node.arena_), v_(node.block_.view) {}

  void parse(const Cursor& root) {
    v_.struct_size = sizeof(sh_node);
    if (!root.object()) {
      if (!root.present()) {
        root.fail("expected object, got null");
      }
      return;
    }
    Cursor meta = root["metadata"];
    std::string_view name = meta["name"].requiredString();
    v_.name = arena_.str(name);
    v_.name_id = intern(name);
    node_.uid_ = arena_.str(meta["uid"].stringOr(""));
    meta["annotations"].atMost(limits::kMaxAnnotationsPerObject);
    Cursor labelMap = meta["labels"];
    std::vector<sh_label> labels;
    if (labelMap.atMost(limits::kMaxLabelsPerObject)) {
      labels = parseStringMap(labelMap);
    }
    v_.labels = arena_.array(labels);
    v_.label_count = static_cast<uint32_t>(labels.size());

    Cursor spec = root["spec"];
    v_.unschedulable = spec["unschedulable"].boolean().value_or(false) ? 1 : 0;
    std::vector<sh_taint> taints;
    spec["taints"].eachObject([&](const Cursor& item) {
      sh_taint t{};
      t.key = intern(item["key"].requiredString());
      t.value = intern(item["value"].stringOr(""));
      t.effect = parseTaintEffect(item["effect"], false);
      taints.push_back(t);
    });
    v_.taints = arena_.array(taints);
    v_.taint_count = static_cast<uint32_t>(taints.size());

    Cursor status = root["status"];
    Cursor allocatable = status["allocatable"];
    ResourceList list = parseResourceList(allocatable.present() ? allocatable : status["capacity"]);
    ResourceValues values = toResourceValues(list, true);
    v_.allocatable.milli_cpu = values.milliCpu;
    v_.allocatable.memory = values.memory;
    v_.allocatable.ephemeral_storage = values.ephemeralStorage;
    v_.allocatable.allowed_pod_number = values.allowedPodNumber;
    v_.allocatable.scalars = arena_.array(values.scalars);
    v_.allocatable.scalar_count = static_cast<uint32_t>(values.scalars.size());

    std::vector<sh_image> images;
    status["images"].eachObject([&](const Cursor& item) {
      int64_t size = item["sizeBytes"].integer().value_or(0);
      for (sh_id nameId : parseInternedList(item["names"])) {
        images.push_back(sh_image{nameId, 0, size});
      }
    });
    v_.images = arena_.array(images);
    v_.image_count = static_cast<uint32_t>(images.size());

    // status.declaredFeatures, sorted so that a plugin can binary-search them.
    std::vector<sh_str> features = parseStringList(status["declaredFeatures"], arena_);
    std::sort(features.begin(), features.end(), [](const sh_str& a, const sh_str& b) {
      return std::string_view(a.ptr, a.len) < std::string_view(b.ptr, b.len);
    });
    v_.declared_features = arena_.array(features);
    v_.declared_feature_count = static_cast<uint32_t>(features.size());
  }

  Node& node_;
  Arena& arena_;
  sh_node& v_;
};

std::shared_ptr<const Node> parseNode(const boost::json::value& json, std::string& error) {
  return NodeParser::run(json, error);
}

}  // namespace sh::model

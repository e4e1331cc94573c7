#include "host/connectors/kube/proto/schema.h"

#include <string>
#include <unordered_map>

namespace sh::kube::proto {

namespace {

#include "host/connectors/kube/proto/schema_1_36.inc"

// "v1/PodList" -> its message.
const std::unordered_map<std::string, const ProtoMessage*>& kindIndex() {
  static const std::unordered_map<std::string, const ProtoMessage*> kIndex = [] {
    std::unordered_map<std::string, const ProtoMessage*> out;
    for (const ProtoMessage& message : kMessages) {
      out.emplace(std::string(message.apiVersion) + "/" + std::string(message.name), &message);
    }
    return out;
  }();
  return kIndex;
}

}  // namespace

std::span<const ProtoField> fields() { return kFields; }
std::span<const ProtoMessage> messages() { return kMessages; }

std::span<const ProtoField> fieldsOf(const ProtoMessage& message) {
  return std::span<const ProtoField>(kFields).subspan(message.first, message.count);
}

const ProtoMessage* findKind(std::string_view apiVersion, std::string_view kind) {
  const auto& index = kindIndex();
  std::string key;
  key.reserve(apiVersion.size() + 1 + kind.size());
  key.append(apiVersion).append("/").append(kind);
  if (auto it = index.find(key); it != index.end()) {
    return it->second;
  }
  if (kind == "Status" || kind == "WatchEvent") {
    if (auto it = index.find("/" + std::string(kind)); it != index.end()) {
      return it->second;
    }
  }
  return nullptr;
}

bool speaksProtobuf(std::string_view apiVersion, std::string_view kind) {
  return findKind(apiVersion, kind) != nullptr &&
         findKind(apiVersion, std::string(kind) + "List") != nullptr;
}

}  // namespace sh::kube::proto

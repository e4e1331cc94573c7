// The protobuf schema of the Kubernetes API types the connector speaks protobuf for: for each
// Go struct of k8s.io/api (core, apps, policy, scheduling, storage, coordination, events, all
// v1) and k8s.io/apimachinery's meta/v1, its fields' numbers, JSON names and JSON forms.
//
// The rows are generated (scripts/gen-kube-proto-schema.py, schema_1_36.inc) from the Go
// struct tags go-to-protobuf reads, `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`,
// so the wire form and the JSON form of every field come from one place. Fields of each
// message are sorted by number. Kinds outside these groups (custom resources, which the API
// server serves only as JSON, and the other built-in groups) have no schema: the connector
// asks for JSON for them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace sh::kube::proto {

// How a field's value reads in JSON.
enum class FieldKind : uint8_t {
  kString,       // string; a Go string or a named string type
  kBool,         // bool
  kInt32,        // int32: a varint, negative values sign-extended to 64 bits
  kInt64,        // int64, int
  kUint64,       // uint32, uint64
  kDouble,       // float64: fixed64
  kBytes,        // []byte: base64 in JSON
  kMessage,      // a nested message (ProtoField::message)
  kTime,         // metav1.Time {seconds, nanos}: "2026-11-25T10:00:00Z"
  kMicroTime,    // metav1.MicroTime {seconds, nanos}: "2026-11-25T10:00:00.123456Z"
  kQuantity,     // resource.Quantity {string}: "100m"
  kIntOrString,  // intstr.IntOrString {type, intVal, strVal}: 8080 or "http"
  kRawJson,      // runtime.RawExtension, metav1.FieldsV1 {raw}: JSON held as bytes
};

// ProtoField::flags.
inline constexpr uint8_t kRepeated = 1;    // a Go slice: one wire field per element
inline constexpr uint8_t kMap = 2;         // map[string]V: entries {1: key, 2: value}
inline constexpr uint8_t kPointer = 4;     // a Go pointer: present means set, even to zero
inline constexpr uint8_t kInline = 8;      // `json:",inline"`: its fields are the parent's
inline constexpr uint8_t kOmitEmpty = 16;  // `json:",omitempty"`: a zero value is not written

struct ProtoField {
  uint32_t number;
  std::string_view json;  // empty for an inline field
  FieldKind kind;
  uint8_t flags;
  int16_t message;  // index into messages() for kMessage (also a map's message value); else -1
};

struct ProtoMessage {
  std::string_view package;     // "core/v1", "meta/v1"
  std::string_view apiVersion;  // "v1", "storage.k8s.io/v1"; "" for meta/v1
  std::string_view name;        // the Go type: "Pod", "PodList", "ObjectMeta"
  uint16_t first;               // its fields: fields()[first, first + count)
  uint16_t count;
};

std::span<const ProtoField> fields();
std::span<const ProtoMessage> messages();

// The fields of `message`, sorted by number.
std::span<const ProtoField> fieldsOf(const ProtoMessage& message);
// The message of a kMessage field (or of an inline one, or of a map's message values).
inline const ProtoMessage& messageOf(const ProtoField& field) {
  return messages()[static_cast<std::size_t>(field.message)];
}

// The top-level type of an object or list: ("v1", "PodList") -> core/v1 PodList. meta/v1's
// kinds (Status) are found under any apiVersion, as the API server sends a Status with the
// group version of the request. Null when the kind has no schema.
const ProtoMessage* findKind(std::string_view apiVersion, std::string_view kind);

// Whether objects of `apiVersion` and `kind` (and their lists) can be read and written in
// protobuf here.
bool speaksProtobuf(std::string_view apiVersion, std::string_view kind);

}  // namespace sh::kube::proto

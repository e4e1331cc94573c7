// Kubernetes objects between protobuf and JSON: what the connector reads in protobuf becomes
// the same JSON tree the API server would have sent, so everything after the transport (the
// reflectors, the model's parsers, the plugins' objects) sees one form.
//
// The API server's protobuf body (k8s.io/apimachinery runtime/serializer/protobuf): the four
// bytes "k8s\0", then a runtime.Unknown {1: typeMeta {1: apiVersion, 2: kind}, 2: raw, 3:
// contentEncoding, 4: contentType} whose raw is the object's own message. A watch in protobuf
// (Content-Type "...;stream=watch") is a sequence of frames, each a 4-byte big-endian length
// and a metav1.WatchEvent {1: type, 2: object {1: raw}}, raw being such a body again.
//
// JSON forms follow encoding/json over the Go types: a field tagged omitempty is left out when
// zero unless it is a pointer; Time and MicroTime are RFC 3339 in UTC (a zero Time is left
// out), Quantity a string, IntOrString a number or a string, []byte base64, RawExtension its
// JSON. Fields the schema does not know (a newer server's) are skipped, as the JSON decoder
// skips the names it does not know.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>

namespace sh::kube::proto {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// "application/vnd.kubernetes.protobuf" with or without parameters (";stream=watch").
bool isProtobuf(std::string_view contentType);

// A protobuf body into a JSON object with its apiVersion and kind. False with `error` set
// ("not a Kubernetes protobuf body: no \"k8s\\0\" prefix", "v1 PodList: field 2 (items): ...
// truncated") when the body is malformed or its kind has no schema. Nesting deeper than 100
// messages is malformed.
bool decodeObject(std::string_view body, boost::json::value& out, std::string& error,
                  const boost::json::storage_ptr& storage = {});

// A JSON object into a protobuf body, as `apiVersion` `kind` (the object's own apiVersion and
// kind are not needed: list items carry none). False with `error` naming the field when a
// value does not have its field's JSON form ("spec.priority: not a 32-bit integer") or a
// member has no field in the type ("spec.newField: no such field in the Kubernetes v1.36
// type PodSpec"): protobuf would drop it where JSON carries it, so the caller sends JSON.
bool encodeObject(const boost::json::object& object, std::string_view apiVersion,
                  std::string_view kind, std::string& out, std::string& error);

// One watch frame's WatchEvent (without its length prefix): its type and its object as JSON.
bool decodeWatchEvent(std::string_view frame, std::string& type, boost::json::value& object,
                      std::string& error, const boost::json::storage_ptr& storage = {});
// A WatchEvent frame, with its 4-byte length prefix, around an encoded object body.
std::string encodeWatchFrame(std::string_view type, std::string_view objectBody);

}  // namespace sh::kube::proto

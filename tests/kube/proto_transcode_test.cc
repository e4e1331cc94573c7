// Kubernetes objects between protobuf and JSON (host/connectors/kube/proto). The bodies here
// are written byte by byte with the field numbers of upstream's k8s.io/api core/v1 and
// k8s.io/apimachinery meta/v1 generated.proto, not with the connector's own writer, so the
// decoder is checked against the wire format itself, and the generated schema against the
// numbers upstream publishes.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/connectors/kube/proto/schema.h"
#include "host/connectors/kube/proto/transcode.h"
#include "host/connectors/kube/proto/watch_frames.h"

namespace sh::kube::proto_transcode_test {
namespace {

namespace json = boost::json;
using proto::decodeObject;
using proto::encodeObject;

// The wire format, spelled out.
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string field(uint32_t number, std::string_view bytes) {  // wire type 2
  return varint(uint64_t{number} << 3 | 2) + varint(bytes.size()) + std::string(bytes);
}
std::string intField(uint32_t number, uint64_t value) {  // wire type 0
  return varint(uint64_t{number} << 3) + varint(value);
}
std::string mapEntry(uint32_t number, std::string_view key, std::string_view value) {
  return field(number, field(1, key) + field(2, value));
}
// "k8s\0" + runtime.Unknown{typeMeta{apiVersion, kind}, raw}.
std::string envelope(std::string_view apiVersion, std::string_view kind, std::string_view raw) {
  return std::string("k8s\0", 4) + field(1, field(1, apiVersion) + field(2, kind)) + field(2, raw);
}

json::value decoded(std::string_view body) {
  json::value out;
  std::string error;
  EXPECT_TRUE(decodeObject(body, out, error)) << error;
  return out;
}

// A pod as kube-apiserver writes it: gogo-protobuf writes every non-pointer field, zero or
// not (nodeName "", hostPort 0), and a pointer only when set (priority 0).
std::string podBytes() {
  const std::string metadata = field(1, "web-0") + field(3, "prod") + field(5, "uid-1") +
                               field(6, "42") +
                               field(8, intField(1, 1764064800)) +  // 2025-11-25T10:00:00Z
                               mapEntry(11, "app", "web");
  const std::string resources = mapEntry(1, "cpu", field(1, "500m")) +    // limits
                                mapEntry(2, "memory", field(1, "64Mi"));  // requests
  const std::string port = field(1, "") + intField(2, 0) + intField(3, 8080) + field(4, "TCP");
  const std::string container =
      field(1, "app") + field(2, "nginx") + field(6, port) + field(8, resources);
  const std::string toleration = field(1, "node.kubernetes.io/not-ready") + field(2, "Exists") +
                                 field(4, "NoExecute") +
                                 intField(5, 300);  // tolerationSeconds, a pointer
  const std::string spec = field(2, container) + field(10, "") + field(19, "default-scheduler") +
                           field(22, toleration) + intField(25, 0);  // priority 0, a pointer
  const std::string status = field(1, "Pending");
  return envelope("v1", "Pod", field(1, metadata) + field(2, spec) + field(3, status));
}

TEST(ProtoTranscodeTest, APodReadsAsTheJsonTheApiServerWouldSend) {
  const json::value pod = decoded(podBytes());
  const json::value expected = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "prod", "uid": "uid-1", "resourceVersion": "42",
                 "creationTimestamp": "2025-11-25T10:00:00Z", "labels": {"app": "web"}},
    "spec": {
      "containers": [{"name": "app", "image": "nginx",
                      "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                      "resources": {"limits": {"cpu": "500m"}, "requests": {"memory": "64Mi"}}}],
      "schedulerName": "default-scheduler",
      "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                       "effect": "NoExecute", "tolerationSeconds": 300}],
      "priority": 0},
    "status": {"phase": "Pending"}})");
  EXPECT_EQ(pod, expected) << json::serialize(pod);
}

TEST(ProtoTranscodeTest, FieldsTheSchemaDoesNotKnowAreSkippedAsJsonSkipsUnknownNames) {
  // A newer server's field 99 of PodSpec (a varint) and 98 (bytes) of Pod.
  const std::string spec = field(19, "s") + intField(99, 7);
  const std::string pod = field(2, spec) + field(98, "new");
  EXPECT_EQ(decoded(envelope("v1", "Pod", pod)),
            json::parse(R"({"apiVersion":"v1","kind":"Pod","spec":{"schedulerName":"s"}})"));
}

TEST(ProtoTranscodeTest, NegativeInt32IsTenBytesSignExtended) {
  // priority -5: int32 varints are sign-extended to 64 bits on the wire.
  const std::string spec = intField(25, static_cast<uint64_t>(int64_t{-5}));
  EXPECT_EQ(varint(static_cast<uint64_t>(int64_t{-5})).size(), 10U);
  const json::value pod = decoded(envelope("v1", "Pod", field(2, spec)));
  EXPECT_EQ(pod.at("spec").at("priority"), -5);
}

TEST(ProtoTranscodeTest, PackedRepeatedIntegersAreRead) {
  // supplementalGroups (repeated int64, PodSecurityContext 4), packed: [1000, 2000].
  const std::string security = field(4, varint(1000) + varint(2000));
  const json::value pod = decoded(envelope("v1", "Pod", field(2, field(14, security))));
  EXPECT_EQ(pod.at("spec").at("securityContext").at("supplementalGroups"),
            json::parse("[1000, 2000]"));
}

TEST(ProtoTranscodeTest, AnEmptyPackedListLeavesTheFieldAbsent) {
  // supplementalGroups packed with no values: gogo's Unmarshal leaves the slice nil, which
  // JSON omits, and which encodes to nothing; so the decoded object has no member for it.
  const std::string security = field(4, "");
  const json::value pod = decoded(envelope("v1", "Pod", field(2, field(14, security))));
  EXPECT_EQ(pod.at("spec").at("securityContext"), json::object());
}

TEST(ProtoTranscodeTest, TimesFormatAsMetav1TimeOutsideTheClocksRange) {
  // 1969-12-31T23:59:59Z is -1; year 1 (Go's zero time, written as nothing) is
  // -62135596800; 9999-12-31T23:59:59Z is 253402300799.
  for (const auto& [seconds, text] :
       std::vector<std::pair<int64_t, std::string>>{{-1, "1969-12-31T23:59:59Z"},
                                                    {-62135596800, "0001-01-01T00:00:00Z"},
                                                    {253402300799, "9999-12-31T23:59:59Z"},
                                                    {951782400, "2000-02-29T00:00:00Z"}}) {
    const std::string metadata = field(8, intField(1, static_cast<uint64_t>(seconds)));
    EXPECT_EQ(
        decoded(envelope("v1", "Pod", field(1, metadata))).at("metadata").at("creationTimestamp"),
        json::value(text))
        << seconds;
  }
  // The zero Time is an empty message (metav1 time_proto.go MarshalTo): no field at all.
  const json::value pod = decoded(envelope("v1", "Pod", field(1, field(8, ""))));
  EXPECT_EQ(pod.at("metadata"), json::object());
}

TEST(ProtoTranscodeTest, AMicroTimeKeepsItsMicroseconds) {
  // Lease.spec.renewTime (MicroTime, LeaseSpec 4): {seconds, nanos 123456789}.
  const std::string renew = intField(1, 1764064800) + intField(2, 123456789);
  const json::value lease =
      decoded(envelope("coordination.k8s.io/v1", "Lease", field(2, field(4, renew))));
  EXPECT_EQ(lease.at("spec").at("renewTime"), json::value("2025-11-25T10:00:00.123456Z"));
}

TEST(ProtoTranscodeTest, IntOrStringIsANumberOrAString) {
  // A Service's ports[].targetPort (ServicePort 4): {type 0, intVal 8080} and {type 1,
  // strVal "http"}.
  const std::string byNumber = field(1, "a") + field(4, intField(1, 0) + intField(2, 8080));
  const std::string byName = field(1, "b") + field(4, intField(1, 1) + field(3, "http"));
  const std::string spec = field(1, byNumber) + field(1, byName);
  const json::value service = decoded(envelope("v1", "Service", field(2, spec)));
  EXPECT_EQ(service.at("spec").at("ports"),
            json::parse(R"([{"name":"a","targetPort":8080},{"name":"b","targetPort":"http"}])"));
}

TEST(ProtoTranscodeTest, AnInlineStructsFieldsAreItsParents) {
  // Volume {name 1, volumeSource 2 (json inline)}; VolumeSource.persistentVolumeClaim 10
  // {claimName 1}.
  const std::string volume = field(1, "data") + field(2, field(10, field(1, "claim-0")));
  const json::value pod = decoded(envelope("v1", "Pod", field(2, field(1, volume))));
  EXPECT_EQ(pod.at("spec").at("volumes"),
            json::parse(R"([{"name":"data","persistentVolumeClaim":{"claimName":"claim-0"}}])"));
}

TEST(ProtoTranscodeTest, AStatusIsReadUnderAnyGroupVersion) {
  // metav1.Status {status 2, message 3, reason 4, code 6}, sent with the request's group.
  const std::string status = field(2, "Failure") + field(3, "too old resource version") +
                             field(4, "Expired") + intField(6, 410);
  const json::value value = decoded(envelope("apps/v1", "Status", status));
  EXPECT_EQ(value.at("code"), 410);
  EXPECT_EQ(value.at("reason"), json::value("Expired"));
}

TEST(ProtoTranscodeTest, AListKeepsItsMetadataAndItems) {
  // PodList {metadata 1 (ListMeta: resourceVersion 2, continue 3), items 2}.
  const std::string list = field(1, field(2, "99") + field(3, "next")) +
                           field(2, field(1, field(1, "a"))) + field(2, field(1, field(1, "b")));
  const json::value value = decoded(envelope("v1", "PodList", list));
  EXPECT_EQ(value, json::parse(R"({"apiVersion":"v1","kind":"PodList",
      "metadata":{"resourceVersion":"99","continue":"next"},
      "items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})"));
}

TEST(ProtoTranscodeTest, EveryPrefixOfABodyIsReadOrRefusedNeverOverrun) {
  // Run under AddressSanitizer in CI: no prefix may read past its bytes.
  const std::string body = podBytes();
  std::size_t refused = 0;
  for (std::size_t n = 0; n < body.size(); ++n) {
    json::value out;
    std::string error;
    if (!decodeObject(std::string_view(body).substr(0, n), out, error)) {
      ++refused;
      EXPECT_FALSE(error.empty());
    }
  }
  EXPECT_GT(refused, body.size() / 2);
}

TEST(ProtoTranscodeTest, MalformedBodiesAreRefusedWithTheCause) {
  json::value out;
  std::string error;
  EXPECT_FALSE(decodeObject(R"({"kind":"Pod"})", out, error));
  EXPECT_EQ(error, "not a Kubernetes protobuf body: no \"k8s\\0\" prefix");
  EXPECT_FALSE(decodeObject(envelope("scheduling.x-k8s.io/v1alpha1", "PodGroup", ""), out, error));
  EXPECT_EQ(error,
            "a protobuf body of kind scheduling.x-k8s.io/v1alpha1 PodGroup, which has no schema "
            "here");
  // PodSpec.priority (a varint field) sent as bytes.
  EXPECT_FALSE(decodeObject(envelope("v1", "Pod", field(2, field(25, "x"))), out, error));
  EXPECT_NE(error.find("priority"), std::string::npos) << error;
  // A varint of eleven bytes.
  EXPECT_FALSE(decodeObject(
      envelope("v1", "Pod", field(2, varint(25 << 3) + std::string(10, '\xff') + '\1')), out,
      error));
  // Time with nanos out of range.
  EXPECT_FALSE(decodeObject(
      envelope("v1", "Pod", field(1, field(8, intField(1, 1) + intField(2, 2000000000)))), out,
      error));
}

TEST(ProtoTranscodeTest, EncodingThenDecodingGivesTheObjectBack) {
  const json::value node = json::parse(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "a", "b": "c"},
                 "creationTimestamp": "2025-11-25T10:00:00Z",
                 "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "x", "uid": "u",
                                      "controller": true}]},
    "spec": {"unschedulable": true, "podCIDRs": ["10.0.0.0/24"],
             "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
               "allocatable": {"cpu": "3800m"},
               "conditions": [{"type": "Ready", "status": "True",
                               "lastHeartbeatTime": "2025-11-25T10:00:05Z"}],
               "images": [{"names": ["nginx:1"], "sizeBytes": 123456789}]}})");
  std::string body;
  std::string error;
  ASSERT_TRUE(encodeObject(node.as_object(), "v1", "Node", body, error)) << error;
  EXPECT_EQ(decoded(body), node);
  const json::value claim = json::parse(R"({
    "apiVersion": "v1", "kind": "PersistentVolumeClaim",
    "metadata": {"name": "c", "namespace": "ns"},
    "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
             "resources": {"requests": {"storage": "1Gi"}},
             "selector": {"matchExpressions": [{"key": "k", "operator": "In",
                                                "values": ["a", "b"]}]}},
    "status": {"phase": "Bound"}})");
  ASSERT_TRUE(encodeObject(claim.as_object(), "v1", "PersistentVolumeClaim", body, error));
  EXPECT_EQ(decoded(body), claim);
  // Inline structs: a Volume's source, a PersistentVolume's source.
  const json::value pod = json::parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "spec": {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "c"}},
                         {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}}],
             "containers": [{"name": "a", "livenessProbe": {"httpGet": {"port": "http"},
                                                            "periodSeconds": 5}}]}})");
  ASSERT_TRUE(encodeObject(pod.as_object(), "v1", "Pod", body, error)) << error;
  EXPECT_EQ(decoded(body), pod);
  const json::value volume = json::parse(R"({
    "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
    "spec": {"capacity": {"storage": "5Gi"}, "csi": {"driver": "d", "volumeHandle": "h"},
             "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                 {"key": "zone", "operator": "In", "values": ["a"]}]}]}}}})");
  ASSERT_TRUE(encodeObject(volume.as_object(), "v1", "PersistentVolume", body, error)) << error;
  EXPECT_EQ(decoded(body), volume);
}

TEST(ProtoTranscodeTest, AValueOfTheWrongFormIsRefusedByItsPath) {
  const json::value pod =
      json::parse(R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":"x"}]}]}})");
  std::string body;
  std::string error;
  EXPECT_FALSE(encodeObject(pod.as_object(), "v1", "Pod", body, error));
  EXPECT_EQ(error, "v1 Pod: spec.containers[0].ports[0].containerPort: not a 32-bit integer");
  const json::value big = json::parse(R"({"spec":{"priority":4294967296}})");
  EXPECT_FALSE(encodeObject(big.as_object(), "v1", "Pod", body, error));
  EXPECT_EQ(error, "v1 Pod: spec.priority: not a 32-bit integer");
  // A member v1.36 has no field for (a newer server's) would be lost in protobuf: refused, so
  // the write goes as JSON. apiVersion and kind may be anywhere (list items carry them).
  const json::value newer = json::parse(
      R"({"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","futureField":1}]}})");
  EXPECT_FALSE(encodeObject(newer.as_object(), "v1", "Pod", body, error));
  EXPECT_EQ(error,
            "v1 Pod: spec.containers[0].futureField: no such field in the Kubernetes v1.36 type "
            "Container");
}

TEST(ProtoTranscodeTest, WhichKindsHaveASchema) {
  EXPECT_TRUE(proto::speaksProtobuf("v1", "Pod"));
  EXPECT_TRUE(proto::speaksProtobuf("v1", "Node"));
  EXPECT_TRUE(proto::speaksProtobuf("storage.k8s.io/v1", "CSINode"));
  EXPECT_TRUE(proto::speaksProtobuf("policy/v1", "PodDisruptionBudget"));
  EXPECT_TRUE(proto::speaksProtobuf("coordination.k8s.io/v1", "Lease"));
  // Custom resources are JSON only; groups without a schema here are asked for in JSON.
  EXPECT_FALSE(proto::speaksProtobuf("scheduling.x-k8s.io/v1alpha1", "PodGroup"));
  EXPECT_FALSE(proto::speaksProtobuf("batch/v1", "Job"));
  EXPECT_TRUE(proto::isProtobuf("application/vnd.kubernetes.protobuf;stream=watch"));
  EXPECT_TRUE(proto::isProtobuf("application/vnd.kubernetes.protobuf"));
  EXPECT_FALSE(proto::isProtobuf("application/json"));
}

TEST(ProtoTranscodeTest, WatchFramesAreReassembledFromPiecesCutAnywhere) {
  std::string pod;
  std::string error;
  const json::value object = json::parse(R"({"metadata":{"name":"p","resourceVersion":"5"}})");
  ASSERT_TRUE(encodeObject(object.as_object(), "v1", "Pod", pod, error));
  const std::string stream =
      proto::encodeWatchFrame("ADDED", pod) + proto::encodeWatchFrame("DELETED", pod);
  // The frame's length prefix: 4 bytes, big-endian, high byte 0.
  ASSERT_EQ(stream[0], '\0');
  proto::WatchFrames frames;
  std::vector<std::string> types;
  for (char c : stream) {
    ASSERT_TRUE(frames.append(std::string_view(&c, 1), [&](std::string_view frame) {
      std::string type;
      json::value decodedObject;
      EXPECT_TRUE(proto::decodeWatchEvent(frame, type, decodedObject, error)) << error;
      EXPECT_EQ(decodedObject.at("metadata").at("resourceVersion"), json::value("5"));
      types.push_back(type);
      return true;
    }));
  }
  EXPECT_EQ(types, (std::vector<std::string>{"ADDED", "DELETED"}));
  EXPECT_EQ(frames.pendingBytes(), 0U);
}

TEST(ProtoTranscodeTest, AFrameLongerThanTheLimitEndsTheStream) {
  proto::WatchFrames frames(1024);
  const std::string header("\0\0\x04\x01", 4);  // 1025 bytes
  EXPECT_FALSE(frames.append(header, [](std::string_view) { return true; }));
  EXPECT_EQ(frames.error(), "watch event longer than 1024 bytes (a frame of 1025)");
}

}  // namespace
}  // namespace sh::kube::proto_transcode_test

// Protobuf bodies and watch streams from the API server (kube/proto): the first byte picks
// what the rest is. 0: an object body after the "k8s\0" prefix; 1: one watch frame's
// WatchEvent; 2: a watch stream cut into pieces (the second byte sets their sizes and a frame
// limit of 1 to 4096 bytes). Nothing may read past the input; a body that decodes is a JSON
// object with its apiVersion and kind, and when it encodes again, decoding that gives the
// same object (one form each way, whatever the bytes).
#include <boost/json.hpp>
#include <string>

#include "host/connectors/kube/proto/transcode.h"
#include "host/connectors/kube/proto/watch_frames.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace json = boost::json;
namespace proto = sh::kube::proto;

void checkObject(const json::value& object) {
  sh::fuzz::check(object.is_object(), "a decoded body is an object");
  const json::value* apiVersion = object.as_object().if_contains("apiVersion");
  const json::value* kind = object.as_object().if_contains("kind");
  sh::fuzz::check(
      apiVersion != nullptr && apiVersion->is_string() && kind != nullptr && kind->is_string(),
      "a decoded body has its apiVersion and kind");
  std::string body;
  std::string error;
  if (!proto::encodeObject(object.as_object(), apiVersion->as_string(), kind->as_string(), body,
                           error)) {
    return;  // a time outside years 0000-9999, which JSON cannot carry either
  }
  json::value again;
  sh::fuzz::check(proto::decodeObject(body, again, error), "an encoded object decodes");
  sh::fuzz::check(again == object, "decode(encode(x)) is x");
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) {
    return 0;
  }
  const std::string_view rest = sh::fuzz::asText(data + 1, size - 1);
  json::value object;
  std::string error;
  std::string type;
  switch (data[0] % 3) {
    case 0:
      if (proto::decodeObject(std::string("k8s\0", 4) + std::string(rest), object, error)) {
        checkObject(object);
      } else {
        sh::fuzz::check(!error.empty(), "a refusal says why");
      }
      break;
    case 1:
      if (proto::decodeWatchEvent(rest, type, object, error)) {
        checkObject(object);
      } else {
        sh::fuzz::check(!error.empty(), "a refusal says why");
      }
      break;
    default: {
      const std::size_t seed = data[1];
      const std::string_view stream = rest.substr(1);
      proto::WatchFrames frames(1 + seed * 16);
      std::size_t total = 0;
      std::size_t offset = 0;
      bool ok = true;
      for (std::size_t i = 0; ok && offset < stream.size(); ++i) {
        const std::size_t piece = std::min(stream.size() - offset, 1 + (seed * (i + 7)) % 23);
        ok = frames.append(stream.substr(offset, piece), [&](std::string_view frame) {
          sh::fuzz::check(frame.size() <= 1 + seed * 16, "no frame over the limit");
          total += 4 + frame.size();
          if (proto::decodeWatchEvent(frame, type, object, error)) {
            checkObject(object);
          }
          return true;
        });
        offset += piece;
      }
      if (ok) {
        sh::fuzz::check(total + frames.pendingBytes() == stream.size(),
                        "every byte is in a frame or pending");
      }
      break;
    }
  }
  return 0;
}

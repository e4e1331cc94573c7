// Watch events as the API server streams them (kube/reflector.cc): a Reflector over a transport
// that answers the list with nothing and the watch with the input, cut into pieces, and a sink
// that decodes each event as the Kubernetes connector does (connectors/cluster_store.cc
// prepareChange, then admission for a pod without a priority). The first byte picks the kind
// watched (kube/resources.cc), the second the piece sizes; the rest is the body. Whatever the
// body, the reflector ends its watch cleanly and a refused object has an error message.
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <string>

#include "host/connectors/cluster_store.h"
#include "host/connectors/kube/reflector.h"
#include "host/connectors/kube/resources.h"
#include "host/connectors/kube/transport.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using sh::kube::Resource;
using sh::kube::Response;

class BodyTransport final : public sh::kube::Transport {
 public:
  BodyTransport(std::string_view body, std::size_t pieceSeed)
      : body_(body), pieceSeed_(pieceSeed) {}

  Response send(const sh::kube::Request& request) override {
    (void)request;
    Response response;
    response.status = 200;
    response.body = R"({"kind":"List","metadata":{"resourceVersion":"1"},"items":[]})";
    return response;
  }

  // The first watch gets the body; later ones wait for the end of the run.
  Response stream(const sh::kube::Request& request, const sh::kube::BodySink& sink,
                  std::stop_token stop) override {
    (void)request;
    Response response;
    if (streamed_) {
      std::mutex mu;
      std::condition_variable_any idle;
      std::unique_lock lock(mu);
      idle.wait(lock, stop, [] { return false; });
      return response;
    }
    streamed_ = true;
    response.status = 200;
    std::size_t offset = 0;
    for (std::size_t i = 0; offset < body_.size(); ++i) {
      const std::size_t piece = std::min(body_.size() - offset, 1 + (pieceSeed_ * (i + 3)) % 97);
      if (!sink(body_.substr(offset, piece))) {
        break;
      }
      offset += piece;
    }
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    doneCv_.notify_all();
    return response;
  }

  std::string server() const override { return "https://fuzz.invalid"; }

  void waitDone() {
    std::unique_lock lock(mu_);
    doneCv_.wait(lock, [this] { return done_; });
  }

 private:
  std::string_view body_;
  std::size_t pieceSeed_;
  bool streamed_ = false;  // only the reflector's thread reads and writes it
  std::mutex mu_;
  std::condition_variable doneCv_;
  bool done_ = false;
};

class DecodingSink final : public sh::kube::ReflectorSink {
 public:
  void replace(const Resource& resource, std::vector<boost::json::value>&& items) override {
    (void)resource;
    sh::fuzz::check(items.empty(), "the list was empty");
  }

  void apply(const Resource& resource, sh::kube::WatchEventType type, boost::json::value&& object,
             std::string_view text) override {
    (void)resource;
    using Type = sh::connectors::ClusterChange::Type;
    const Type changeType = type == sh::kube::WatchEventType::kAdded      ? Type::kAdded
                            : type == sh::kube::WatchEventType::kModified ? Type::kModified
                                                                          : Type::kDeleted;
    std::string error;
    std::optional<sh::connectors::PreparedChange> change =
        sh::connectors::prepareChange(changeType, std::move(object), error, text);
    if (!change) {
      sh::fuzz::check(!error.empty(), "a refused object has an error message");
      return;
    }
    if (change->needsAdmission() && !sh::connectors::admitPod(*change, nullptr, nullptr, error)) {
      sh::fuzz::check(!error.empty(), "a refused pod has an error message");
    }
  }
};

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  if (size < 2) {
    return 0;
  }
  const std::span<const Resource> resources = sh::kube::watchedResources();
  const Resource& resource = resources[data[0] % resources.size()];
  BodyTransport transport(sh::fuzz::asText(data + 2, size - 2), data[1]);
  DecodingSink sink;
  sh::kube::Reflector::Options options;
  options.seed = 1;
  options.warn = [](const std::string&) {};
  sh::kube::Reflector reflector(transport, resource, sink, options);
  reflector.start();
  transport.waitDone();
  reflector.stop();
  return 0;
}

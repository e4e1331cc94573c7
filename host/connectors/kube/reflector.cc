#include "host/connectors/kube/reflector.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/string.hpp>

#include "host/connectors/kube/json_members.h"
#include "host/connectors/kube/proto/schema.h"
#include "host/connectors/kube/proto/transcode.h"
#include "host/connectors/kube/proto/watch_frames.h"
#include "host/connectors/kube/watch_lines.h"
#include "host/connectors/object_file.h"

namespace sh::kube {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::string_view resourceVersionOf(const boost::json::object& object) {
  const boost::json::object* meta = objectAt(object, "metadata");
  return meta != nullptr ? stringAt(*meta, "resourceVersion") : std::string_view();
}

// Splits a watch event written as the API server writes it, `{"type":"ADDED","object":{...}}`,
// into its type and the object's text, so the object is parsed alone and its text kept as the
// manifest (no second serialisation). False for any other layout; the caller then parses the
// whole line. A true answer is only a guess until the object text parses as one JSON value:
// then the line was exactly that event.
bool splitWatchEvent(std::string_view line, std::string_view& type, std::string_view& object) {
  constexpr std::string_view kTypeKey = R"({"type":")";
  constexpr std::string_view kObjectKey = R"(","object":)";
  if (line.size() < kTypeKey.size() + kObjectKey.size() + 3 || !line.starts_with(kTypeKey) ||
      line.back() != '}') {
    return false;
  }
  std::size_t end = kTypeKey.size();
  while (end < line.size() && line[end] >= 'A' && line[end] <= 'Z') {
    ++end;
  }
  if (line.substr(end, kObjectKey.size()) != kObjectKey) {
    return false;
  }
  type = line.substr(kTypeKey.size(), end - kTypeKey.size());
  const std::size_t begin = end + kObjectKey.size();
  object = line.substr(begin, line.size() - 1 - begin);
  return true;
}

// The plural name the API uses in paths, for messages: "/api/v1/pods" -> "pods".
std::string_view plural(const Resource& r) {
  const std::size_t slash = r.path.rfind('/');
  return slash == std::string_view::npos ? r.path : r.path.substr(slash + 1);
}

}  // namespace

Reflector::Reflector(Transport& transport, const Resource& resource, ReflectorSink& sink,
                     Options options)
    : transport_(transport),
      resource_(resource),
      sink_(sink),
      options_(std::move(options)),
      accept_(!options_.protobufAccept.empty() &&
                      proto::speaksProtobuf(resource.apiVersion, resource.kind)
                  ? options_.protobufAccept
                  : std::string("application/json")),
      random_(options_.seed != 0 ? options_.seed : std::random_device{}()) {}

Reflector::~Reflector() { stop(); }

void Reflector::start() {
  thread_ = std::jthread([this](std::stop_token stop) {
    // "watch pods", "watch nodes": what top -H and a profiler show.
    const std::string name = "watch " + std::string(plural(resource_)).substr(0, 9);
    ::pthread_setname_np(::pthread_self(), name.c_str());
    run(stop);
  });
}

void Reflector::requestStop() {
  thread_.request_stop();
  std::lock_guard<std::mutex> lock(mu_);
  wake_.notify_all();
}

void Reflector::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    {
      std::lock_guard<std::mutex> lock(mu_);
      wake_.notify_all();
    }
    thread_.join();
  }
}

std::string Reflector::lastError() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lastError_;
}

std::string Reflector::lastResourceVersion() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resourceVersion_;
}

Reflector::Stats Reflector::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

std::string Reflector::collectionPath(std::string_view query) const {
  std::string path(resource_.path);
  path += '?';
  path += query;
  if (!resource_.labelSelector.empty()) {
    path += "&labelSelector=";
    path += escapeComponent(resource_.labelSelector);
  }
  if (!resource_.fieldSelector.empty()) {
    path += "&fieldSelector=";
    path += escapeComponent(resource_.fieldSelector);
  }
  return path;
}

void Reflector::succeeded() {
  std::lock_guard<std::mutex> lock(mu_);
  lastError_.clear();
}

void Reflector::fail(std::string message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.errors;
    lastError_ = message;
  }
  if (options_.warn) {
    options_.warn(message);
  } else {
    spdlog::warn("{}", message);
  }
}

bool Reflector::backoff(std::stop_token stop) {
  const auto now = SteadyClock::now();
  if (backoff_.count() == 0 || now - lastFailure_ > options_.backoffReset) {
    backoff_ = options_.initialBackoff;
  } else {
    backoff_ = std::min(backoff_ * 2, options_.maxBackoff);
  }
  lastFailure_ = now;
  // Jitter 1.0: somewhere between the period and twice it.
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  return pause(stop, std::chrono::duration_cast<std::chrono::milliseconds>(
                         backoff_ * (1.0 + jitter(random_))));
}

bool Reflector::pause(std::stop_token stop, std::chrono::milliseconds period) {
  std::unique_lock<std::mutex> lock(mu_);
  return !wake_.wait_for(lock, stop, period, [] { return false; }) && !stop.stop_requested();
}

void Reflector::run(std::stop_token stop) {
  bool needList = true;
  while (!stop.stop_requested()) {
    if (needList) {
      const ListEnd end = list(stop);
      if (stop.stop_requested()) {
        return;
      }
      if (end == ListEnd::kExpired) {
        continue;  // at once, with a consistent read
      }
      if (end == ListEnd::kNotServed) {
        if (!pause(stop, options_.notServedRetry)) {
          return;
        }
        continue;
      }
      if (end == ListEnd::kFailed) {
        if (!backoff(stop)) {
          return;
        }
        continue;
      }
      needList = false;
    }
    switch (watch(stop)) {
      case WatchEnd::kAgain:
        break;
      case WatchEnd::kRelist:
        needList = true;
        break;
      case WatchEnd::kBackoff:
        if (!backoff(stop)) {
          return;
        }
        break;
      case WatchEnd::kBackoffRelist:
        needList = true;
        if (!backoff(stop)) {
          return;
        }
        break;
      case WatchEnd::kStopped:
        return;
    }
  }
}

Reflector::ListEnd Reflector::list(std::stop_token stop) {
  std::string requested;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requested = listedOnce_ ? resourceVersion_ : std::string("0");
  }
  std::vector<boost::json::value> items;
  std::string listVersion;
  std::string continueToken;
  const std::string what = "list " + std::string(plural(resource_));
  do {
    if (stop.stop_requested()) {
      return ListEnd::kFailed;
    }
    std::string query = "limit=" + std::to_string(options_.pageSize);
    if (!continueToken.empty()) {
      query += "&continue=" + escapeComponent(continueToken);
    } else if (!requested.empty()) {
      query += "&resourceVersion=" + escapeComponent(requested);
    }
    Request request;
    request.path = collectionPath(query);
    request.accept = accept_;
    Response response = transport_.send(request);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.pages;
    }
    if (response.status == 410) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.expired;
        // An expired continue token: the list starts over. An expired version: a consistent
        // read ("") instead.
        if (continueToken.empty()) {
          resourceVersion_.clear();
        }
      }
      spdlog::info("{}: {}; listing again", what, describeFailure(response));
      return ListEnd::kExpired;
    }
    if (response.status == 404) {
      std::string why = what + ": " + describeFailure(response);
      if (sink_.notServed(resource_, why)) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++stats_.notServed;
          lastError_ = std::move(why);
        }
        // Served or not, the kind is known now: it has no objects.
        synced_.store(true);
        return ListEnd::kNotServed;
      }
    }
    if (!response.ok()) {
      fail(what + ": " + describeFailure(response));
      return ListEnd::kFailed;
    }
    boost::json::value body;
    std::string why;
    if (!parseBody(response, body, why) || !body.is_object()) {
      fail(what + ": the answer is not " +
           (proto::isProtobuf(response.contentType) ? "a list: " + why
                                                    : std::string("a JSON object")));
      return ListEnd::kFailed;
    }
    boost::json::object& list = body.as_object();
    const boost::json::object* meta = objectAt(list, "metadata");
    if (meta != nullptr) {
      if (listVersion.empty()) {
        listVersion = std::string(stringAt(*meta, "resourceVersion"));
      }
      continueToken = std::string(stringAt(*meta, "continue"));
    } else {
      continueToken.clear();
    }
    if (boost::json::value* listItems = list.if_contains("items");
        listItems != nullptr && listItems->is_array()) {
      for (boost::json::value& item : listItems->as_array()) {
        if (!item.is_object()) {
          continue;
        }
        // List items carry no kind of their own.
        boost::json::object& o = item.as_object();
        o["kind"] = boost::json::string(resource_.kind);
        o["apiVersion"] = boost::json::string(resource_.apiVersion);
        items.push_back(std::move(item));
      }
    }
  } while (!continueToken.empty());

  sink_.replace(resource_, std::move(items));
  {
    std::lock_guard<std::mutex> lock(mu_);
    resourceVersion_ = listVersion;
    listedOnce_ = true;
    ++stats_.lists;
    lastError_.clear();
  }
  synced_.store(true);
  return ListEnd::kListed;
}

Reflector::WatchEnd Reflector::watch(std::stop_token stop) {
  std::string from;
  {
    std::lock_guard<std::mutex> lock(mu_);
    from = resourceVersion_;
    ++stats_.watches;
  }
  const auto minTimeout =
      std::chrono::duration_cast<std::chrono::seconds>(options_.minWatchTimeout);
  std::uniform_real_distribution<double> spread(1.0, 2.0);
  const auto timeoutSeconds = std::max<long long>(
      1, static_cast<long long>(static_cast<double>(minTimeout.count()) * spread(random_)));
  Request request;
  request.path =
      collectionPath("watch=1&resourceVersion=" + escapeComponent(from) +
                     "&allowWatchBookmarks=true&timeoutSeconds=" + std::to_string(timeoutSeconds));
  request.accept = accept_;
  const std::string what = "watch " + std::string(plural(resource_));

  const auto started = SteadyClock::now();
  uint64_t received = 0;
  bool expired = false;
  std::string streamError;
  WatchLines lines;
  // Each event is parsed into one arena, released before the next: a pod's JSON tree is
  // hundreds of small allocations, and the sink parses Pods and Nodes into their own models
  // at once. Objects of the other kinds, which the sink keeps as JSON, are copied out first.
  // (A fresh resource over one reused buffer per event: Boost 1.81's release() leaves the
  // resource unable to allocate again.)
  std::vector<unsigned char> arenaBuffer(64 * 1024);
  const bool keepsJson = resource_.kind != "Pod" && resource_.kind != "Node";
  // What the events of the current read changed, published with the sink's flush() once the
  // read is handled: one lock and one wake-up per read, not per event.
  std::string seenVersion;
  uint64_t seenEvents = 0;
  uint64_t seenBookmarks = 0;
  // One event: its type, its object, and the object's JSON text when the sink can keep it
  // (empty otherwise).
  auto onEvent = [&](std::string_view type, boost::json::value* object,
                     std::string_view objectText) {
    WatchEventType t{};
    if (type == "ERROR") {
      const boost::json::value* code = object->as_object().if_contains("code");
      if (code != nullptr && code->is_int64() && code->as_int64() == 410) {
        expired = true;
        spdlog::info("{}: {}; listing again", what,
                     std::string(stringAt(object->as_object(), "message")));
      } else {
        streamError = "ERROR event: " + std::string(stringAt(object->as_object(), "message"));
      }
      return false;
    }
    std::string_view version = resourceVersionOf(object->as_object());
    if (type == "ADDED") {
      t = WatchEventType::kAdded;
    } else if (type == "MODIFIED") {
      t = WatchEventType::kModified;
    } else if (type == "DELETED") {
      t = WatchEventType::kDeleted;
    } else if (type == "BOOKMARK") {
      if (!version.empty()) {
        seenVersion = version;
      }
      ++seenBookmarks;
      ++received;
      return true;
    } else {
      streamError = "a watch event of unknown type \"" + std::string(type) + "\"";
      return false;
    }
    ++received;
    if (!version.empty()) {
      seenVersion = version;
    }
    ++seenEvents;
    if (keepsJson) {
      sink_.apply(resource_, t, boost::json::value(*object, boost::json::storage_ptr()),
                  objectText);
    } else {
      sink_.apply(resource_, t, std::move(*object), objectText);
    }
    return true;
  };
  auto onLine = [&](std::string_view line) {
    boost::json::monotonic_resource arena(arenaBuffer.data(), arenaBuffer.size());
    const boost::json::storage_ptr storage(&arena);
    std::string_view type;
    std::string_view objectText;
    // In the arena too: assigning a value of another storage would copy it.
    boost::json::value event(storage);
    boost::json::value* object = nullptr;
    if (splitWatchEvent(line, type, objectText)) {
      // The API server's own layout: the object is parsed alone and its text is kept.
      boost::system::error_code ec;
      event = boost::json::parse(objectText, ec, storage, connectors::jsonParseOptions());
      if (ec || !event.is_object()) {
        objectText = {};
      } else {
        object = &event;
      }
    }
    if (object == nullptr) {
      objectText = {};
      boost::system::error_code ec;
      event = boost::json::parse(line, ec, storage, connectors::jsonParseOptions());
      if (ec || !event.is_object()) {
        streamError = "a watch event is not JSON";
        return false;
      }
      boost::json::object& e = event.as_object();
      type = stringAt(e, "type");
      object = e.if_contains("object");
      if (object == nullptr || !object->is_object()) {
        streamError = "a watch event has no object";
        return false;
      }
    }
    return onEvent(type, object, objectText);
  };
  // A protobuf watch (Content-Type "...;stream=watch"): length-prefixed WatchEvent frames.
  auto onFrame = [&](std::string_view frame) {
    boost::json::monotonic_resource arena(arenaBuffer.data(), arenaBuffer.size());
    const boost::json::storage_ptr storage(&arena);
    boost::json::value object(storage);
    std::string type;
    std::string why;
    if (!proto::decodeWatchEvent(frame, type, object, why, storage) || !object.is_object()) {
      streamError = "a protobuf watch event: " + why;
      return false;
    }
    return onEvent(type, &object, {});
  };
  // The body's framing, from its first byte: a JSON event starts with "{" (or white space), a
  // protobuf frame with the high byte of its length, which is 0 for any event under 16 MiB
  // (events are capped lower). The Content-Type says the same; the body alone is enough, so
  // the transports need not pass headers to the sink.
  enum class Framing { kUnknown, kLines, kFrames } framing = Framing::kUnknown;
  proto::WatchFrames protoFrames;
  Response response = transport_.stream(
      request,
      [&](std::string_view piece) {
        if (framing == Framing::kUnknown && !piece.empty()) {
          framing = piece.front() == '\0' ? Framing::kFrames : Framing::kLines;
        }
        const bool more = framing == Framing::kFrames ? protoFrames.append(piece, onFrame)
                                                      : lines.append(piece, onLine);
        if (seenEvents > 0) {
          sink_.flush(resource_);
        }
        if (seenEvents > 0 || seenBookmarks > 0) {
          std::lock_guard<std::mutex> lock(mu_);
          if (!seenVersion.empty()) {
            resourceVersion_ = seenVersion;
          }
          stats_.events += seenEvents;
          stats_.bookmarks += seenBookmarks;
          seenEvents = 0;
          seenBookmarks = 0;
        }
        if (!more) {
          if (streamError.empty() && !expired) {
            streamError = framing == Framing::kFrames ? protoFrames.error() : lines.error();
          }
          return false;
        }
        return true;
      },
      stop);

  if (stop.stop_requested()) {
    return WatchEnd::kStopped;
  }
  if (expired || response.status == 410) {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.expired;
    return WatchEnd::kRelist;
  }
  if (!streamError.empty()) {
    fail(what + ": " + streamError);
    return WatchEnd::kBackoffRelist;
  }
  if (response.status == 0 && received == 0) {
    fail(what + ": " + describeFailure(response));
    return WatchEnd::kBackoff;
  }
  if (response.status != 0 && !response.ok()) {
    fail(what + ": " + describeFailure(response));
    return response.status == 429 || response.status >= 500 ? WatchEnd::kBackoff
                                                            : WatchEnd::kBackoffRelist;
  }
  if (received == 0 && SteadyClock::now() - started < std::chrono::seconds(1)) {
    fail(what + ": very short watch: the server closed it within a second with no event");
    return WatchEnd::kBackoff;
  }
  if (!response.error.empty()) {
    // The connection broke mid-stream: watch again from the last version seen.
    spdlog::info("{}: the stream broke ({}); watching again", what, response.error);
  }
  succeeded();
  return WatchEnd::kAgain;
}

}  // namespace sh::kube

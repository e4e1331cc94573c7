// Reflector: one kind, listed and then watched, for as long as it runs (client-go
// tools/cache/reflector.go ListAndWatch, with tools/pager for the pages).
//
//        ┌──────────── relist (410 Gone, a watch that failed oddly) ◄────────────┐
//        ▼                                                                       │
//   list: pages of `pageSize` (limit/continue), all at the first page's          │
//         resourceVersion; an expired continue token restarts the list;          │
//         sink.replace(every item)                                               │
//        │                                                                       │
//        ▼                                                                       │
//   watch from the last resourceVersion, allowWatchBookmarks=true,               │
//         timeoutSeconds random in [minWatchTimeout, 2 × minWatchTimeout):       │
//         ADDED / MODIFIED / DELETED -> sink.apply; BOOKMARK moves the version;  │
//         ERROR with code 410 (or HTTP 410) ─────────────────────────────────────┘
//        │  the server ended the watch, or the connection dropped mid-stream:
//        └──► watch again from the last version seen, at once
//
// The first list asks for resourceVersion "0" (served from the API server's watch cache); a
// relist asks for the last version seen and, when that is gone too, for "" (a consistent
// read). Connection errors, 429 and 5xx back off exponentially with jitter (800 ms doubling
// to 30 s, reset after 2 min without trouble, as client-go's default backoff manager), then
// watch again (or list again, when the list failed). A watch that ends within a second with no
// event is treated as an error ("very short watch"), so a server that closes every watch at
// once does not get a watch loop without pause.
//
// A list answered 404 means the API server does not serve the kind (a custom resource whose
// CustomResourceDefinition is not installed). When the sink takes it so (notServed()), the
// kind counts as synced (it has no objects), nothing is warned here, and the list is tried
// again every `notServedRetry` until the kind appears; otherwise it is an error like any other.
//
// The sink is called on the reflector's own thread, in the order the server sent things.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/json/value.hpp>

#include "host/connectors/kube/resources.h"
#include "host/connectors/kube/transport.h"

namespace sh::kube {

enum class WatchEventType { kAdded, kModified, kDeleted };

class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  // A complete (re)list of `resource`: every object there is now, each with kind and
  // apiVersion set. Whatever was known before and is not among them is gone.
  virtual void replace(const Resource& resource, std::vector<boost::json::value>&& items) = 0;
  // One change from the watch. For Pods and Nodes `object` lives in an arena that is reused
  // after the call returns: parse it, do not keep it. Other kinds get a value of their own.
  // `text` is the object's JSON as the server sent it when the event had the server's layout
  // (empty otherwise); like `object`, it is valid only during the call.
  virtual void apply(const Resource& resource, WatchEventType type, boost::json::value&& object,
                     std::string_view text) = 0;
  // Called after the events of one read from a watch stream went to apply(): a sink may hold
  // them until now and publish them together.
  virtual void flush(const Resource& resource) { (void)resource; }
  // The list answered 404 (`why`: "list podgroups: 404 Not Found: ..."). True when the sink
  // takes the kind as not served (see the top of the file); false: a failed list.
  virtual bool notServed(const Resource& resource, const std::string& why) {
    (void)resource;
    (void)why;
    return false;
  }
};

class Reflector {
 public:
  struct Options {
    std::size_t pageSize = 500;  // client-go's pager default
    std::chrono::milliseconds minWatchTimeout{300000};
    std::chrono::milliseconds initialBackoff{800};
    std::chrono::milliseconds maxBackoff{30000};
    std::chrono::milliseconds backoffReset{120000};
    // How often a kind the API server does not serve is listed again.
    std::chrono::milliseconds notServedRetry{30000};
    uint64_t seed = 0;  // 0: random
    // The Accept header of lists and watches of the kinds with a protobuf schema
    // (proto::speaksProtobuf): clientConnection's acceptContentTypes, or its contentType and
    // ", */*" as client-go writes it. Empty: JSON. Other kinds are always asked for in JSON.
    std::string protobufAccept;
    // Receives each warning ("list pods: 403 Forbidden: ..."); null logs it with spdlog.
    std::function<void(const std::string&)> warn;
  };

  struct Stats {
    uint64_t lists = 0;    // complete lists delivered
    uint64_t pages = 0;    // list requests answered
    uint64_t watches = 0;  // watch requests sent
    uint64_t expired = 0;  // 410s (watch or list) that forced a relist
    uint64_t events = 0;   // ADDED / MODIFIED / DELETED applied
    uint64_t bookmarks = 0;
    uint64_t errors = 0;     // failed requests and broken streams
    uint64_t notServed = 0;  // lists answered 404 that the sink took as a kind not served
  };

  Reflector(Transport& transport, const Resource& resource, ReflectorSink& sink, Options options);
  ~Reflector();
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  // Starts the reflector's thread.
  void start();
  // Ends the thread (an open watch within about 100 ms) and joins it.
  void stop();
  // Asks the thread to end without waiting for it (stop() then joins quickly): a caller
  // stopping many reflectors asks them all first.
  void requestStop();

  // True once the first list was delivered to the sink.
  bool synced() const { return synced_.load(); }
  // The last error, for startup diagnostics ("list nodes: 401 Unauthorized"); empty when the
  // last request succeeded.
  std::string lastError() const;
  std::string lastResourceVersion() const;
  Stats stats() const;
  const Resource& resource() const { return resource_; }

 private:
  enum class WatchEnd { kAgain, kRelist, kBackoff, kBackoffRelist, kStopped };
  enum class ListEnd { kListed, kFailed, kExpired, kNotServed };

  void run(std::stop_token stop);
  // One complete list; kFailed after recording the error.
  ListEnd list(std::stop_token stop);
  WatchEnd watch(std::stop_token stop);
  // Waits the next backoff period; false when stopped meanwhile.
  bool backoff(std::stop_token stop);
  // Waits `period`; false when stopped meanwhile.
  bool pause(std::stop_token stop, std::chrono::milliseconds period);
  void succeeded();
  void fail(std::string message);
  std::string collectionPath(std::string_view query) const;

  Transport& transport_;
  const Resource& resource_;
  ReflectorSink& sink_;
  Options options_;
  std::string accept_;  // the Accept header of this kind's lists and watches

  std::mt19937_64 random_;
  std::chrono::milliseconds backoff_{0};
  std::chrono::steady_clock::time_point lastFailure_{};

  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  std::string resourceVersion_;  // the last one seen; "" when a consistent relist is needed
  bool listedOnce_ = false;
  std::string lastError_;
  Stats stats_;
  std::atomic<bool> synced_{false};
  std::jthread thread_;
};

}  // namespace sh::kube

// Test doubles for the Kubernetes API connector's unit tests: an in-memory API that serves
// Leases and Events, transports in front of it that record requests and fail on demand, and a
// clock the test moves by hand.
//
//   ScriptedApi        objects by path, each with a resourceVersion bumped on every write.
//                      Collections it knows: coordination.k8s.io/v1 leases and
//                      events.k8s.io/v1 events. POST 201 (409 AlreadyExists when the name is
//                      taken), GET 200/404, PUT 200 (404 when missing, 409 Conflict when the
//                      body's metadata.resourceVersion is not the stored one), PATCH with a
//                      JSON merge patch (RFC 7386) 200/404, DELETE 200/404.
//   ScriptedTransport  one client's view of a ScriptedApi: records every request; scripted
//                      answers (queued, or for every request) replace the API's; a hook runs
//                      before each request (to change the API meanwhile, or to block);
//                      hang() makes requests wait unanswered until their timeout or stop, as
//                      a server that accepts them and never answers.
//                      Several transports may share one API (two electors, one partitioned).
//   FakeClock          now() only moves with advance(); sleepFor() blocks until the clock
//                      passes its deadline or stop is requested. waitIdle(n) waits until n
//                      threads are asleep on deadlines still ahead: after advance(), that is
//                      the point where every woken thread has done its work.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "host/connectors/kube/kube_time.h"
#include "host/connectors/kube/transport.h"

namespace sh::kubetest {

namespace json = boost::json;

class ScriptedApi {
 public:
  kube::Response handle(const kube::Request& request) {
    std::lock_guard lock(mutex_);
    const std::string path = request.path.substr(0, request.path.find('?'));
    switch (request.method) {
      case kube::Method::kGet: {
        const auto it = objects_.find(path);
        return it == objects_.end() ? notFound(path) : ok(it->second);
      }
      case kube::Method::kPost: {
        json::value body = parse(request.body);
        if (!body.is_object()) {
          return status(400, "BadRequest", "body is not a JSON object");
        }
        json::value& metadataValue = body.as_object()["metadata"];
        if (!metadataValue.is_object()) {
          metadataValue = json::object();
        }
        json::object& metadata = metadataValue.as_object();
        const json::string* name = metadata["name"].if_string();
        const std::string objectPath = path + "/" + (name ? std::string(*name) : "");
        if (objects_.contains(objectPath)) {
          return status(409, "AlreadyExists", objectPath + " already exists");
        }
        metadata["resourceVersion"] = std::to_string(++resourceVersion_);
        metadata["uid"] = "uid-" + std::to_string(resourceVersion_);
        objects_[objectPath] = body;
        return kube::Response{201, json::serialize(body), ""};
      }
      case kube::Method::kPut: {
        const auto it = objects_.find(path);
        if (it == objects_.end()) {
          return notFound(path);
        }
        json::value body = parse(request.body);
        if (!body.is_object()) {
          return status(400, "BadRequest", "body is not a JSON object");
        }
        if (versionOf(body) != versionOf(it->second)) {
          return status(409, "Conflict",
                        "the object has been modified; please apply your changes to the latest "
                        "version and try again");
        }
        body.as_object()["metadata"].as_object()["resourceVersion"] =
            std::to_string(++resourceVersion_);
        it->second = body;
        return ok(body);
      }
      case kube::Method::kPatch: {
        const auto it = objects_.find(path);
        if (it == objects_.end()) {
          return notFound(path);
        }
        mergePatch(it->second, parse(request.body));
        it->second.as_object()["metadata"].as_object()["resourceVersion"] =
            std::to_string(++resourceVersion_);
        return ok(it->second);
      }
      case kube::Method::kDelete:
        return objects_.erase(path) == 1 ? status(200, "", "") : notFound(path);
    }
    return status(405, "MethodNotAllowed", "");
  }

  // Stores `object` at `path` as another client would (a fresh resourceVersion).
  void put(const std::string& path, json::value object) {
    std::lock_guard lock(mutex_);
    object.as_object()["metadata"].as_object()["resourceVersion"] =
        std::to_string(++resourceVersion_);
    objects_[path] = std::move(object);
  }
  std::optional<json::value> get(const std::string& path) const {
    std::lock_guard lock(mutex_);
    const auto it = objects_.find(path);
    return it == objects_.end() ? std::nullopt : std::optional<json::value>(it->second);
  }
  void remove(const std::string& path) {
    std::lock_guard lock(mutex_);
    objects_.erase(path);
  }
  // Paths of the stored objects under `prefix`.
  std::vector<std::string> paths(const std::string& prefix) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [path, object] : objects_) {
      if (path.starts_with(prefix)) {
        out.push_back(path);
      }
    }
    return out;
  }

 private:
  static json::value parse(const std::string& text) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    return ec ? json::value() : v;
  }
  static std::string versionOf(const json::value& object) {
    const json::value* metadata = object.as_object().if_contains("metadata");
    if (metadata == nullptr || !metadata->is_object()) {
      return "";
    }
    const json::value* rv = metadata->as_object().if_contains("resourceVersion");
    return rv != nullptr && rv->is_string() ? std::string(rv->get_string()) : "";
  }
  static void mergePatch(json::value& target, const json::value& patch) {
    if (!patch.is_object()) {
      target = patch;
      return;
    }
    if (!target.is_object()) {
      target = json::object();
    }
    for (const auto& [key, value] : patch.as_object()) {
      if (value.is_null()) {
        target.as_object().erase(key);
      } else {
        mergePatch(target.as_object()[key], value);
      }
    }
  }
  static kube::Response ok(const json::value& object) {
    return kube::Response{200, json::serialize(object), ""};
  }
  static kube::Response status(int code, const std::string& reason, const std::string& message) {
    json::object body{
        {"kind", "Status"},   {"apiVersion", "v1"}, {"status", code < 300 ? "Success" : "Failure"},
        {"message", message}, {"reason", reason},   {"code", code}};
    return kube::Response{code, json::serialize(body), ""};
  }
  static kube::Response notFound(const std::string& path) {
    return status(404, "NotFound", path + " not found");
  }

  mutable std::mutex mutex_;
  std::map<std::string, json::value> objects_;
  uint64_t resourceVersion_ = 100;
};

class ScriptedTransport : public kube::Transport {
 public:
  explicit ScriptedTransport(ScriptedApi& api) : api_(api) {}

  kube::Response send(const kube::Request& request) override {
    std::function<void(const kube::Request&)> hook;
    std::optional<kube::Response> scripted;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
      hook = beforeRequest_;
      if (!queued_.empty()) {
        scripted = queued_.front();
        queued_.pop_front();
      } else if (always_) {
        scripted = always_;
      }
    }
    changed_.notify_all();
    if (hook) {
      hook(request);
    }
    if (std::optional<kube::Response> ended = waitWhileHanging(request)) {
      return *ended;
    }
    return scripted ? *scripted : api_.handle(request);
  }

  // While set, requests are recorded and then get no answer: each waits, as HttpsTransport
  // does, until its Request::timeout passes (real time; 0: until hang(false)) or its
  // Request::stop is requested, and ends with status 0 and the error HttpsTransport gives.
  void hang(bool hanging) {
    {
      std::lock_guard lock(mutex_);
      hanging_ = hanging;
    }
    changed_.notify_all();
  }

  kube::Response stream(const kube::Request& /*request*/, const kube::BodySink& /*sink*/,
                        std::stop_token /*stop*/) override {
    return kube::Response{501, "", ""};
  }

  std::string server() const override { return "https://scripted.test:6443"; }

  // The next requests get these answers, in order, instead of the API's.
  void queueResponse(kube::Response response) {
    std::lock_guard lock(mutex_);
    queued_.push_back(std::move(response));
  }
  // Every request gets this answer (after the queued ones); nullopt: the API answers again.
  void answerAll(std::optional<kube::Response> response) {
    std::lock_guard lock(mutex_);
    always_ = std::move(response);
  }
  // Runs before each request is answered, outside the transport's lock.
  void setBeforeRequest(std::function<void(const kube::Request&)> hook) {
    std::lock_guard lock(mutex_);
    beforeRequest_ = std::move(hook);
  }

  // How many requests are waiting in hang() now.
  std::size_t hangingNow() const {
    std::lock_guard lock(mutex_);
    return hangingNow_;
  }

  std::vector<kube::Request> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::size_t requestCount() const {
    std::lock_guard lock(mutex_);
    return requests_.size();
  }
  // Waits until at least `count` requests have been sent.
  bool waitForRequests(std::size_t count,
                       std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
  }

 private:
  std::optional<kube::Response> waitWhileHanging(const kube::Request& request) {
    const auto until = request.timeout.count() > 0
                           ? std::chrono::steady_clock::now() + request.timeout
                           : std::chrono::steady_clock::time_point::max();
    {
      std::lock_guard lock(mutex_);
      if (!hanging_) {
        return std::nullopt;
      }
    }
    // Before the lock: a token already stopped runs the callback here, at once.
    std::stop_callback wake(request.stop, [this] {
      std::lock_guard wakeLock(mutex_);
      changed_.notify_all();
    });
    std::unique_lock lock(mutex_);
    ++hangingNow_;
    std::optional<kube::Response> ended;
    while (!ended && hanging_) {
      if (request.stop.stop_requested()) {
        ended = kube::Response{0, "", server() + ": cancelled"};
        ended->cancelled = true;
      } else if (std::chrono::steady_clock::now() >= until) {
        ended = kube::Response{
            0, "",
            server() + ": timed out after " + std::to_string(request.timeout.count()) + " ms"};
      } else if (until == std::chrono::steady_clock::time_point::max()) {
        changed_.wait(lock);
      } else {
        changed_.wait_until(lock, until);
      }
    }
    --hangingNow_;
    changed_.notify_all();
    return ended;
  }

  ScriptedApi& api_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool hanging_ = false;
  std::size_t hangingNow_ = 0;
  std::vector<kube::Request> requests_;
  std::deque<kube::Response> queued_;
  std::optional<kube::Response> always_;
  std::function<void(const kube::Request&)> beforeRequest_;
};

class FakeClock : public kube::Clock {
 public:
  explicit FakeClock(kube::TimePoint start) : now_(start) {}

  kube::TimePoint now() override {
    std::lock_guard lock(mutex_);
    return now_;
  }

  bool sleepFor(std::chrono::nanoseconds duration, std::stop_token stop) override {
    if (duration <= std::chrono::nanoseconds::zero()) {
      return !stop.stop_requested();
    }
    std::unique_lock lock(mutex_);
    const kube::TimePoint deadline =
        now_ + std::chrono::duration_cast<kube::TimePoint::duration>(duration);
    const auto entry = deadlines_.insert(deadline);
    ++sleeps_;
    changed_.notify_all();
    const bool woke = changed_.wait(lock, stop, [&] { return now_ >= deadline; });
    deadlines_.erase(entry);
    changed_.notify_all();
    return woke;
  }

  void advance(std::chrono::nanoseconds duration) {
    {
      std::lock_guard lock(mutex_);
      now_ += std::chrono::duration_cast<kube::TimePoint::duration>(duration);
    }
    changed_.notify_all();
  }

  // Threads asleep on a deadline still ahead of now().
  std::size_t idleSleepers() const {
    std::lock_guard lock(mutex_);
    return idleLocked();
  }
  // Calls of sleepFor with a positive duration so far.
  std::size_t sleeps() const {
    std::lock_guard lock(mutex_);
    return sleeps_;
  }

  // Waits until `done(idleSleepers)` holds; it is checked whenever a sleeper comes or goes,
  // and every 10 ms for conditions outside the clock (an atomic flag). False on timeout.
  bool waitUntil(const std::function<bool(std::size_t idle)>& done,
                 std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    std::unique_lock lock(mutex_);
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (!done(idleLocked())) {
      if (std::chrono::steady_clock::now() >= until) {
        return false;
      }
      changed_.wait_for(lock, std::chrono::milliseconds(10));
    }
    return true;
  }
  bool waitIdle(std::size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return waitUntil([count](std::size_t idle) { return idle >= count; }, timeout);
  }

 private:
  std::size_t idleLocked() const {
    return static_cast<std::size_t>(std::distance(deadlines_.upper_bound(now_), deadlines_.end()));
  }

  mutable std::mutex mutex_;
  std::condition_variable_any changed_;
  kube::TimePoint now_;
  std::multiset<kube::TimePoint> deadlines_;
  std::size_t sleeps_ = 0;
};

}  // namespace sh::kubetest

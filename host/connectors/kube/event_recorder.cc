#include "host/connectors/kube/event_recorder.h"

#include <boost/json.hpp>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

namespace sh::kube {
namespace {

namespace json = boost::json;

constexpr std::size_t kMaxNoteBytes = 1024;
constexpr auto kTimerPoll = std::chrono::seconds(1);

// Cuts `note` to kMaxNoteBytes without splitting a UTF-8 character.
std::string cutNote(std::string note) {
  if (note.size() <= kMaxNoteBytes) {
    return note;
  }
  std::size_t end = kMaxNoteBytes;
  while (end > 0 && (static_cast<unsigned char>(note[end]) & 0xC0) == 0x80) {
    --end;  // note[end] continues a character that starts before it
  }
  note.resize(end);
  return note;
}

json::object refJson(const ObjectRef& ref) {
  json::object out;
  const auto put = [&](std::string_view key, const std::string& value) {
    if (!value.empty()) {
      out[key] = value;
    }
  };
  put("kind", ref.kind);
  put("namespace", ref.namespaceName);
  put("name", ref.name);
  put("uid", ref.uid);
  put("apiVersion", ref.apiVersion);
  put("resourceVersion", ref.resourceVersion);
  return out;
}

void appendRef(std::string& key, const ObjectRef& ref) {
  for (const std::string* field : {&ref.kind, &ref.apiVersion, &ref.namespaceName, &ref.name,
                                   &ref.uid, &ref.resourceVersion}) {
    key += *field;
    key += '\0';
  }
}

// upstream getKey: action, reason, reportingController, regarding, related.
std::string isomorphicKey(const KubeEvent& event) {
  std::string key;
  for (const std::string* field : {&event.action, &event.reason, &event.reportingController}) {
    key += *field;
    key += '\0';
  }
  appendRef(key, event.regarding);
  key += event.related ? '\1' : '\0';
  if (event.related) {
    appendRef(key, *event.related);
  }
  return key;
}

json::object seriesJson(const EventSeries& series) {
  return json::object{{"count", series.count},
                      {"lastObservedTime", formatMicroTime(series.lastObservedTime)}};
}

std::string eventsPath(const std::string& namespaceName) {
  return "/apis/events.k8s.io/v1/namespaces/" + namespaceName + "/events";
}

std::string describe(const Response& response) {
  if (response.status == 0) {
    return response.error;
  }
  std::string body = response.body.substr(0, 200);
  return "HTTP " + std::to_string(response.status) + (body.empty() ? "" : ": " + body);
}

}  // namespace

EventRecorder::EventRecorder(Transport& transport, Options options)
    : transport_(transport),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : systemClock()),
      random_(std::random_device{}() | 1) {
  if (options_.hostname.empty()) {
    options_.hostname = hostname();
  }
  if (options_.maxTries < 1) {
    options_.maxTries = 1;
  }
  const TimePoint start = clock_.now();
  nextRefresh_ = start + options_.refreshTime;
  nextFinish_ = start + options_.finishTime;
  worker_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::record(KubeEvent event) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_ || queue_.size() >= options_.maxQueued) {
      ++counters_.dropped;
      return;
    }
    ++counters_.recorded;
    queue_.push_back(std::move(event));
  }
  wake_.notify_one();
}

bool EventRecorder::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, timeout,
                        [&] { return stopped_ || (queue_.empty() && !busy_ && !tickRequested_); });
}

void EventRecorder::tick() {
  {
    std::lock_guard lock(mutex_);
    tickRequested_ = true;
  }
  wake_.notify_one();
}

void EventRecorder::stop() {
  if (worker_.joinable()) {
    worker_.request_stop();
    worker_.join();
  }
  std::lock_guard lock(mutex_);
  stopped_ = true;
  counters_.dropped += queue_.size();
  queue_.clear();
  idle_.notify_all();
}

EventRecorder::Counters EventRecorder::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

std::size_t EventRecorder::cachedCount() const {
  std::lock_guard lock(mutex_);
  return cache_.size();
}

std::optional<EventSeries> EventRecorder::cachedSeries(const KubeEvent& event) const {
  std::lock_guard lock(mutex_);
  const auto it = cache_.find(isomorphicKey(event));
  return it == cache_.end() ? std::nullopt : it->second.series;
}

void EventRecorder::run(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    wake_.wait_for(lock, stop, kTimerPoll, [&] { return !queue_.empty() || tickRequested_; });
    if (stop.stop_requested()) {
      break;
    }
    busy_ = true;
    if (!queue_.empty()) {
      KubeEvent event = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      handle(std::move(event), stop);
      lock.lock();
    } else {
      tickRequested_ = false;
      lock.unlock();
      checkTimers(stop);
      lock.lock();
    }
    busy_ = false;
    if (queue_.empty() && !tickRequested_) {
      idle_.notify_all();
    }
  }
  busy_ = false;
  idle_.notify_all();
}

void EventRecorder::handle(KubeEvent event, std::stop_token stop) {
  const TimePoint now = clock_.now();
  event.note = cutNote(std::move(event.note));
  const std::string key = isomorphicKey(event);
  Cached toWrite;
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(key);
    if (it != cache_.end()) {
      Cached& cached = it->second;
      if (cached.series) {
        ++cached.series->count;
        cached.series->lastObservedTime = now;
        return;
      }
      cached.series = EventSeries{2, now};
      toWrite = cached;
    } else {
      Cached cached;
      const int64_t nanos =
          std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
      char hex[24];
      std::snprintf(hex, sizeof hex, "%" PRIx64, static_cast<uint64_t>(nanos));
      cached.name = event.regarding.name + "." + hex;
      cached.namespaceName =
          event.regarding.namespaceName.empty() ? "default" : event.regarding.namespaceName;
      cached.reportingInstance = options_.reportingInstance.empty()
                                     ? event.reportingController + "-" + options_.hostname
                                     : options_.reportingInstance;
      cached.eventTime = now;
      cached.event = std::move(event);
      toWrite = cached;
      cache_.emplace(key, std::move(cached));
    }
  }
  writeWithRetries(toWrite, stop);
}

EventRecorder::WriteResult EventRecorder::writeOnce(const Cached& cached) {
  Response response;
  bool create = !cached.series.has_value();
  if (cached.series) {
    Request patch;
    patch.method = Method::kPatch;
    patch.path = eventsPath(cached.namespaceName) + "/" + cached.name;
    patch.contentType = "application/merge-patch+json";
    patch.body = json::serialize(json::object{{"series", seriesJson(*cached.series)}});
    patch.rateClass = RateClass::kEvents;
    response = transport_.send(patch);
    create = response.status == 404;  // removed meanwhile (expired): write it anew
  }
  if (create) {
    json::object body{
        {"apiVersion", "events.k8s.io/v1"},
        {"kind", "Event"},
        {"metadata", json::object{{"name", cached.name}, {"namespace", cached.namespaceName}}},
        {"eventTime", formatMicroTime(cached.eventTime)},
        {"reportingController", cached.event.reportingController},
        {"reportingInstance", cached.reportingInstance},
        {"action", cached.event.action},
        {"reason", cached.event.reason},
        {"regarding", refJson(cached.event.regarding)},
        {"note", cached.event.note},
        {"type", cached.event.type}};
    if (cached.event.related) {
      body["related"] = refJson(*cached.event.related);
    }
    if (cached.series) {
      body["series"] = seriesJson(*cached.series);
    }
    Request post;
    post.method = Method::kPost;
    post.path = eventsPath(cached.namespaceName);
    post.body = json::serialize(body);
    post.rateClass = RateClass::kEvents;
    response = transport_.send(post);
  }
  if (response.ok()) {
    std::lock_guard lock(mutex_);
    ++counters_.written;
    return WriteResult::kWritten;
  }
  if (create && response.status == 409) {
    spdlog::debug("event {}/{}: already exists, not retried", cached.namespaceName, cached.name);
    return WriteResult::kDropped;
  }
  if (!response.retryable()) {
    spdlog::warn("event {}/{} ({} {}): server rejected it, not retried: {}", cached.namespaceName,
                 cached.name, cached.event.reason, cached.event.regarding.name, describe(response));
    return WriteResult::kDropped;
  }
  spdlog::debug("event {}/{}: write failed: {}", cached.namespaceName, cached.name,
                describe(response));
  return WriteResult::kRetry;
}

void EventRecorder::writeWithRetries(const Cached& cached, std::stop_token stop) {
  for (int tries = 1;; ++tries) {
    const WriteResult result = writeOnce(cached);
    if (result == WriteResult::kWritten) {
      return;
    }
    if (result == WriteResult::kDropped) {
      break;
    }
    if (tries >= options_.maxTries) {
      spdlog::warn("event {}/{} ({} {}): dropped after {} tries", cached.namespaceName, cached.name,
                   cached.event.reason, cached.event.regarding.name, tries);
      break;
    }
    // The first wait is a random fraction of retrySleep, so that clients that failed together
    // do not retry together (upstream attemptRecording).
    std::chrono::nanoseconds wait = options_.retrySleep;
    if (tries == 1) {
      random_ ^= random_ << 13;
      random_ ^= random_ >> 7;
      random_ ^= random_ << 17;
      wait = std::chrono::nanoseconds(static_cast<int64_t>(
          static_cast<double>(wait.count()) * static_cast<double>(random_ >> 11) * 0x1.0p-53));
    }
    if (!clock_.sleepFor(wait, stop)) {
      break;
    }
  }
  std::lock_guard lock(mutex_);
  ++counters_.dropped;
}

void EventRecorder::checkTimers(std::stop_token stop) {
  const TimePoint now = clock_.now();
  if (now >= nextRefresh_) {
    // upstream refreshExistingEventSeries: write every series again.
    std::vector<Cached> series;
    {
      std::lock_guard lock(mutex_);
      for (const auto& [key, cached] : cache_) {
        if (cached.series) {
          series.push_back(cached);
        }
      }
    }
    for (const Cached& cached : series) {
      if (stop.stop_requested()) {
        return;
      }
      writeOnce(cached);
    }
    nextRefresh_ = clock_.now() + options_.refreshTime;
  }
  if (now >= nextFinish_) {
    // upstream finishSeries: a series unobserved for finishTime is written a last time and
    // forgotten (unless the write is worth retrying); an old singleton is forgotten.
    const TimePoint cutoff = now - options_.finishTime;
    std::vector<std::pair<std::string, Cached>> finished;
    {
      std::lock_guard lock(mutex_);
      for (auto it = cache_.begin(); it != cache_.end();) {
        if (it->second.series) {
          if (it->second.series->lastObservedTime < cutoff) {
            finished.emplace_back(it->first, it->second);
          }
        } else if (it->second.eventTime < cutoff) {
          it = cache_.erase(it);
          continue;
        }
        ++it;
      }
    }
    for (const auto& [key, cached] : finished) {
      if (stop.stop_requested()) {
        return;
      }
      if (writeOnce(cached) != WriteResult::kRetry) {
        std::lock_guard lock(mutex_);
        const auto it = cache_.find(key);
        if (it != cache_.end() && it->second.series &&
            it->second.series->lastObservedTime == cached.series->lastObservedTime) {
          cache_.erase(it);  // not observed again while it was written
        }
      }
    }
    nextFinish_ = clock_.now() + options_.finishTime;
  }
}

}  // namespace sh::kube

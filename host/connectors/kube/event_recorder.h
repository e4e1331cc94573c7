// EventRecorder: events.k8s.io/v1 Events written through a Transport, with the rules of
// client-go's tools/events (event_broadcaster.go `recordToSink`, `attemptRecording`,
// `recordEvent`, `refreshExistingEventSeries`, `finishSeries`; event_recorder.go
// `generateEvent`), the recorder kube-scheduler uses.
//
//   record()   never blocks: the event is queued for the worker thread; past maxQueued
//              queued events, it is dropped and counted (upstream's broadcaster drops when
//              its channel is full).
//   the worker builds the Event (name "<regarding.name>.<UnixNano in hex>", namespace that of
//              the regarding object or "default", eventTime now as MicroTime, note cut to
//              1024 bytes) and aggregates isomorphic events, those with equal action, reason,
//              reportingController, regarding and related:
//                first     POST .../namespaces/<ns>/events, cached as a singleton
//                second    the cached event gets series {count: 2, lastObservedTime: now}
//                          and is written as a merge PATCH of its series
//                later     count and lastObservedTime bumped in the cache only
//              A PATCH answered 404 creates the event anew (POST). A failed write is tried
//              up to maxTries times, retrySleep apart (the first wait a random fraction of
//              it, as upstream), unless the answer is not retryable (a 4xx other than 429):
//              then it is dropped; 409 AlreadyExists on a create is dropped too.
//   timers     every refreshTime each cached series is written again (PATCH); every
//              finishTime a series not observed for finishTime gets its last PATCH and
//              leaves the cache, and a singleton older than finishTime leaves it. Timer
//              writes are single attempts: a retryable failure keeps the entry for the next
//              round. Timers read Options::clock; the worker checks them about once a second
//              and whenever tick() is called.
//
// Thread-safe. Counters: recorded (queued), written (successful POSTs and PATCHes), dropped
// (queue full, not retryable, out of tries, or still queued at stop()).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "host/connectors/kube/kube_time.h"
#include "host/connectors/kube/transport.h"

namespace sh::kube {

// core/v1 ObjectReference, as an Event's regarding and related. Empty fields are left out.
struct ObjectRef {
  std::string kind;
  std::string apiVersion;
  std::string namespaceName;  // "namespace"
  std::string name;
  std::string uid;
  std::string resourceVersion;

  bool operator==(const ObjectRef&) const = default;
};

struct KubeEvent {
  std::string type;  // "Normal" or "Warning"
  std::string reason;
  std::string action;
  std::string note;  // cut to 1024 bytes (at a UTF-8 character boundary)
  ObjectRef regarding;
  std::optional<ObjectRef> related;
  std::string reportingController;  // the profile's schedulerName
};

struct EventSeries {
  int32_t count = 0;
  TimePoint lastObservedTime;
};

class EventRecorder {
 public:
  struct Options {
    // Empty: "<reportingController>-<hostname>", built per event (upstream's rule).
    std::string reportingInstance;
    std::string hostname;    // empty: this machine's (kube::hostname())
    Clock* clock = nullptr;  // nullptr: systemClock()
    std::size_t maxQueued = 1000;
    std::chrono::minutes finishTime{6};
    std::chrono::minutes refreshTime{30};
    int maxTries = 12;
    std::chrono::milliseconds retrySleep{10000};
  };
  struct Counters {
    uint64_t recorded = 0;
    uint64_t written = 0;
    uint64_t dropped = 0;
  };

  // Starts the worker thread.
  EventRecorder(Transport& transport, Options options);
  ~EventRecorder();  // stop()
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  void record(KubeEvent event);
  // Waits until every queued event and requested tick has been handled (written, aggregated
  // or dropped); false when `timeout` passed first.
  bool flush(std::chrono::milliseconds timeout);
  // Asks the worker to check the refresh and finish timers against the clock now.
  void tick();
  // Ends the worker: a wait between tries ends at once and its event is dropped, as are the
  // events still queued. Later record() calls are dropped. Idempotent.
  void stop();

  Counters counters() const;
  // Cached events (singletons and series), for tests.
  std::size_t cachedCount() const;
  // The cached series of the event isomorphic to `event`; nullopt when none (or a singleton).
  std::optional<EventSeries> cachedSeries(const KubeEvent& event) const;

 private:
  struct Cached {
    std::string name;
    std::string namespaceName;
    std::string reportingInstance;
    TimePoint eventTime;
    KubeEvent event;
    std::optional<EventSeries> series;
  };
  enum class WriteResult { kWritten, kRetry, kDropped };

  void run(std::stop_token stop);
  void handle(KubeEvent event, std::stop_token stop);
  void checkTimers(std::stop_token stop);
  // One attempt: PATCH of the series (falling back to POST on 404) or POST.
  WriteResult writeOnce(const Cached& cached);
  // Up to maxTries attempts.
  void writeWithRetries(const Cached& cached, std::stop_token stop);

  Transport& transport_;
  Options options_;
  Clock& clock_;

  mutable std::mutex mutex_;
  std::condition_variable_any wake_;  // the worker: an event, a tick or stop
  std::condition_variable idle_;      // flush(): the worker became idle
  std::deque<KubeEvent> queue_;
  bool tickRequested_ = false;
  bool busy_ = false;
  bool stopped_ = false;
  Counters counters_;
  // Worker-owned; read under mutex_ by the test accessors, so written under it too.
  std::map<std::string, Cached> cache_;
  TimePoint nextRefresh_;
  TimePoint nextFinish_;
  uint64_t random_;  // xorshift state for the first retry wait

  std::jthread worker_;  // last: started once everything above is ready
};

}  // namespace sh::kube

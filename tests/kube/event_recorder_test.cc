// EventRecorder over a scripted API and a fake clock: the Event's fields, aggregation into
// series, the refresh and finish timers, retries and drops.
#include "host/connectors/kube/event_recorder.h"

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <latch>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/kube/scripted_transport.h"

namespace sh::kube::event_recorder_test {
namespace {

using namespace std::chrono_literals;
using kubetest::FakeClock;
using kubetest::ScriptedApi;
using kubetest::ScriptedTransport;
namespace json = boost::json;

// 2026-11-25T10:00:00.123456789Z
const TimePoint kEventTime =
    TimePoint(std::chrono::duration_cast<TimePoint::duration>(1795600800123456789ns));
constexpr auto kFlush = std::chrono::milliseconds(5000);
const std::string kEvents = "/apis/events.k8s.io/v1/namespaces/ns/events";

KubeEvent scheduled(const std::string& pod, const std::string& reason = "Scheduled") {
  KubeEvent event;
  event.type = "Normal";
  event.reason = reason;
  event.action = "Binding";
  event.note = "Successfully assigned ns/" + pod + " to node-1";
  event.regarding = ObjectRef{"Pod", "v1", "ns", pod, "uid-" + pod, ""};
  event.reportingController = "default-scheduler";
  return event;
}

std::string hexNanos(TimePoint time) {
  std::ostringstream out;
  out << std::hex
      << std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
  return out.str();
}

json::object bodyOf(const Request& request) { return json::parse(request.body).as_object(); }

TEST(KubeTimeTest, MicroTimeAndTimeRoundTrip) {
  EXPECT_EQ(formatMicroTime(kEventTime), "2026-11-25T10:00:00.123456Z");
  EXPECT_EQ(formatTime(kEventTime), "2026-11-25T10:00:00Z");
  EXPECT_EQ(formatMicroTime(TimePoint{}), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(formatMicroTime(TimePoint{} - 1us), "1969-12-31T23:59:59.999999Z");
  EXPECT_EQ(formatMicroTime(*parseTime("2024-02-29T23:59:59.5+01:00")),
            "2024-02-29T22:59:59.500000Z");
  const std::optional<TimePoint> back = parseTime(formatMicroTime(kEventTime));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, kEventTime - 789ns);  // truncated to microseconds
  EXPECT_EQ(parseTime("2026-11-25T10:00:00Z"), kEventTime - 123456789ns);
  EXPECT_FALSE(parseTime("2026-11-25 10:00:00Z").has_value());
  EXPECT_FALSE(parseTime("").has_value());
}

TEST(KubeTimeTest, SystemClockSleepsAndWakesOnStop) {
  Clock& clock = systemClock();
  const auto before = std::chrono::steady_clock::now();
  EXPECT_TRUE(clock.sleepFor(20ms, {}));
  EXPECT_GE(std::chrono::steady_clock::now() - before, 20ms);
  EXPECT_TRUE(clock.sleepFor(0ms, {}));

  std::stop_source source;
  std::jthread stopper([&] { source.request_stop(); });
  EXPECT_FALSE(clock.sleepFor(std::chrono::hours(1), source.get_token()));
  EXPECT_FALSE(clock.sleepFor(0ms, source.get_token()));
}

class EventRecorderTest : public ::testing::Test {
 protected:
  EventRecorder::Options options() {
    EventRecorder::Options options;
    options.hostname = "host-1";
    options.clock = &clock_;
    options.retrySleep = 0ms;
    return options;
  }

  ScriptedApi api_;
  ScriptedTransport transport_{api_};
  FakeClock clock_{kEventTime};
};

TEST_F(EventRecorderTest, FirstEventIsCreatedWithUpstreamFields) {
  EventRecorder recorder(transport_, options());
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto requests = transport_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, Method::kPost);
  EXPECT_EQ(requests[0].path, kEvents);
  const json::object body = bodyOf(requests[0]);
  const std::string name = "pod-a." + hexNanos(kEventTime);
  EXPECT_EQ(name.size(), std::string("pod-a.").size() + 16);
  EXPECT_EQ(body.at("apiVersion"), "events.k8s.io/v1");
  EXPECT_EQ(body.at("kind"), "Event");
  EXPECT_EQ(body.at("metadata").at("name"), json::value(name));
  EXPECT_EQ(body.at("metadata").at("namespace"), "ns");
  EXPECT_EQ(body.at("eventTime"), "2026-11-25T10:00:00.123456Z");
  EXPECT_EQ(body.at("reportingController"), "default-scheduler");
  EXPECT_EQ(body.at("reportingInstance"), "default-scheduler-host-1");
  EXPECT_EQ(body.at("action"), "Binding");
  EXPECT_EQ(body.at("reason"), "Scheduled");
  EXPECT_EQ(body.at("type"), "Normal");
  EXPECT_EQ(body.at("note"), "Successfully assigned ns/pod-a to node-1");
  EXPECT_EQ(body.at("regarding"), (json::object{{"kind", "Pod"},
                                                {"namespace", "ns"},
                                                {"name", "pod-a"},
                                                {"uid", "uid-pod-a"},
                                                {"apiVersion", "v1"}}));
  EXPECT_FALSE(body.contains("series"));
  EXPECT_FALSE(body.contains("related"));
  EXPECT_TRUE(api_.get(kEvents + "/" + name).has_value());

  const EventRecorder::Counters counters = recorder.counters();
  EXPECT_EQ(counters.recorded, 1u);
  EXPECT_EQ(counters.written, 1u);
  EXPECT_EQ(counters.dropped, 0u);
}

TEST_F(EventRecorderTest, ClusterScopedObjectGoesToDefaultAndNoteIsCut) {
  EventRecorder::Options opts = options();
  opts.reportingInstance = "fixed-instance";
  EventRecorder recorder(transport_, opts);
  KubeEvent event = scheduled("node-1", "NodeNotReady");
  event.regarding = ObjectRef{"Node", "v1", "", "node-1", "", ""};
  event.note = std::string(1023, 'a') + "\xC3\xA9";  // 1023 bytes and a two-byte character
  recorder.record(event);
  KubeEvent longer = scheduled("pod-b");
  longer.note = std::string(3000, 'x');
  recorder.record(longer);
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto requests = transport_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].path, "/apis/events.k8s.io/v1/namespaces/default/events");
  const json::object node = bodyOf(requests[0]);
  EXPECT_EQ(node.at("metadata").at("namespace"), "default");
  EXPECT_EQ(node.at("reportingInstance"), "fixed-instance");
  EXPECT_EQ(node.at("note").as_string().size(), 1023u);  // the character is not split
  EXPECT_EQ(bodyOf(requests[1]).at("note").as_string().size(), 1024u);
}

TEST_F(EventRecorderTest, IsomorphicEventsBecomeOneSeries) {
  EventRecorder recorder(transport_, options());
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));
  clock_.advance(1s);
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));
  clock_.advance(1s);
  recorder.record(scheduled("pod-a"));
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto requests = transport_.requests();
  ASSERT_EQ(requests.size(), 2u);  // the third and fourth are counted in the cache only
  const std::string name = "pod-a." + hexNanos(kEventTime);
  EXPECT_EQ(requests[1].method, Method::kPatch);
  EXPECT_EQ(requests[1].path, kEvents + "/" + name);
  EXPECT_EQ(requests[1].contentType, "application/merge-patch+json");
  EXPECT_EQ(bodyOf(requests[1]),
            (json::object{
                {"series", json::object{{"count", 2},
                                        {"lastObservedTime", "2026-11-25T10:00:01.123456Z"}}}}));
  const auto stored = api_.get(kEvents + "/" + name);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->at("series").at("count"), 2);
  EXPECT_EQ(stored->at("note"), "Successfully assigned ns/pod-a to node-1");

  const auto series = recorder.cachedSeries(scheduled("pod-a"));
  ASSERT_TRUE(series.has_value());
  EXPECT_EQ(series->count, 4);
  EXPECT_EQ(series->lastObservedTime, kEventTime + 2s);

  // Another reason, another regarding object, or a related object: not isomorphic.
  // (The clock moves between them: at the same nanosecond, two events about pod-a would have
  // the same name.)
  recorder.record(scheduled("pod-a", "FailedScheduling"));
  recorder.record(scheduled("pod-b"));
  ASSERT_TRUE(recorder.flush(kFlush));
  clock_.advance(1ns);
  KubeEvent related = scheduled("pod-a");
  related.related = ObjectRef{"Node", "v1", "", "node-1", "", ""};
  recorder.record(related);
  ASSERT_TRUE(recorder.flush(kFlush));
  const auto after = transport_.requests();
  ASSERT_EQ(after.size(), 5u);
  for (std::size_t i = 2; i < 5; ++i) {
    EXPECT_EQ(after[i].method, Method::kPost) << i;
  }
  EXPECT_EQ(bodyOf(after[4]).at("related").at("name"), "node-1");
  EXPECT_EQ(recorder.cachedCount(), 4u);
  EXPECT_EQ(recorder.counters().recorded, 7u);
  EXPECT_EQ(recorder.counters().written, 5u);
}

TEST_F(EventRecorderTest, PatchOfAVanishedEventCreatesItAnew) {
  EventRecorder recorder(transport_, options());
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));
  const std::string path = kEvents + "/pod-a." + hexNanos(kEventTime);
  api_.remove(path);  // expired on the server (the events TTL)
  clock_.advance(1s);
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));

  const auto requests = transport_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[1].method, Method::kPatch);
  EXPECT_EQ(requests[2].method, Method::kPost);
  EXPECT_EQ(requests[2].path, kEvents);
  const auto stored = api_.get(path);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->at("series").at("count"), 2);
  EXPECT_EQ(stored->at("eventTime"), "2026-11-25T10:00:00.123456Z");
  EXPECT_EQ(recorder.counters().written, 2u);
}

TEST_F(EventRecorderTest, SeriesAreRefreshedAndFinished) {
  EventRecorder::Options opts = options();
  opts.finishTime = 6min;
  opts.refreshTime = 10min;
  EventRecorder recorder(transport_, opts);
  recorder.record(scheduled("pod-a"));  // singleton
  recorder.record(scheduled("pod-b"));
  ASSERT_TRUE(recorder.flush(kFlush));
  clock_.advance(5min);
  recorder.record(scheduled("pod-b"));  // series of 2, observed at 5 min
  recorder.record(scheduled("pod-b"));  // 3
  ASSERT_TRUE(recorder.flush(kFlush));
  ASSERT_EQ(transport_.requestCount(), 3u);

  // 6 min: the finish timer. pod-a's singleton is 6 min old, not older: kept; pod-b's series
  // is recent: kept, nothing written.
  clock_.advance(1min);
  recorder.tick();
  ASSERT_TRUE(recorder.flush(kFlush));
  EXPECT_EQ(transport_.requestCount(), 3u);
  EXPECT_EQ(recorder.cachedCount(), 2u);

  // 10 min: the refresh timer writes pod-b's series again, with its count of 3.
  clock_.advance(4min);
  recorder.tick();
  ASSERT_TRUE(recorder.flush(kFlush));
  auto requests = transport_.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[3].method, Method::kPatch);
  EXPECT_EQ(bodyOf(requests[3]).at("series").at("count"), 3);
  EXPECT_EQ(api_.get(requests[3].path)->at("series").at("count"), 3);

  // 12 min: the finish timer again. The singleton (12 min) leaves the cache without a request;
  // the series, last observed 7 min ago, gets its last PATCH and leaves too.
  clock_.advance(2min);
  recorder.tick();
  ASSERT_TRUE(recorder.flush(kFlush));
  requests = transport_.requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(requests[4].method, Method::kPatch);
  EXPECT_EQ(requests[4].path, requests[3].path);
  EXPECT_EQ(recorder.cachedCount(), 0u);

  // The same event now starts afresh: a new Event object.
  recorder.record(scheduled("pod-b"));
  ASSERT_TRUE(recorder.flush(kFlush));
  requests = transport_.requests();
  ASSERT_EQ(requests.size(), 6u);
  EXPECT_EQ(requests[5].method, Method::kPost);
  EXPECT_EQ(bodyOf(requests[5]).at("metadata").at("name"),
            json::value("pod-b." + hexNanos(kEventTime + 12min)));
}

TEST_F(EventRecorderTest, RetryableFailuresAreRetriedAfterRetrySleep) {
  EventRecorder::Options opts = options();
  opts.retrySleep = 10s;
  EventRecorder recorder(transport_, opts);
  transport_.queueResponse(Response{0, "", "connect: Connection refused"});
  transport_.queueResponse(Response{503, "", ""});
  transport_.queueResponse(Response{429, "", ""});
  recorder.record(scheduled("pod-a"));
  // The first retry waits a random part of retrySleep, the later ones all of it.
  for (std::size_t tries = 1; tries <= 3; ++tries) {
    ASSERT_TRUE(transport_.waitForRequests(tries));
    ASSERT_TRUE(clock_.waitIdle(1));
    EXPECT_EQ(transport_.requestCount(), tries);
    clock_.advance(10s);
  }
  ASSERT_TRUE(recorder.flush(kFlush));
  EXPECT_EQ(transport_.requestCount(), 4u);
  EXPECT_EQ(api_.paths(kEvents).size(), 1u);
  EXPECT_EQ(recorder.counters().written, 1u);
  EXPECT_EQ(recorder.counters().dropped, 0u);
}

TEST_F(EventRecorderTest, GivesUpAfterMaxTries) {
  EventRecorder::Options opts = options();
  opts.maxTries = 3;
  EventRecorder recorder(transport_, opts);
  transport_.answerAll(Response{500, "{}", ""});
  recorder.record(scheduled("pod-a"));
  ASSERT_TRUE(recorder.flush(kFlush));
  EXPECT_EQ(transport_.requestCount(), 3u);
  EXPECT_EQ(recorder.counters().dropped, 1u);
  EXPECT_EQ(recorder.counters().written, 0u);
}

TEST_F(EventRecorderTest, RejectedEventsAreDroppedWithoutRetry) {
  EventRecorder recorder(transport_, options());
  transport_.queueResponse(Response{400, R"({"reason":"BadRequest"})", ""});
  transport_.queueResponse(Response{403, R"({"reason":"Forbidden"})", ""});
  recorder.record(scheduled("pod-a"));
  recorder.record(scheduled("pod-b"));
  ASSERT_TRUE(recorder.flush(kFlush));
  EXPECT_EQ(transport_.requestCount(), 2u);
  EXPECT_EQ(recorder.counters().dropped, 2u);

  // 409 AlreadyExists on a create: the event is there already; dropped, not retried.
  KubeEvent other = scheduled("pod-c");
  clock_.advance(1s);
  const std::string name = "pod-c." + hexNanos(kEventTime + 1s);
  api_.put(kEvents + "/" + name, json::object{{"metadata", json::object{{"name", name}}}});
  recorder.record(other);
  ASSERT_TRUE(recorder.flush(kFlush));
  EXPECT_EQ(transport_.requestCount(), 3u);
  EXPECT_EQ(recorder.counters().dropped, 3u);
  EXPECT_EQ(recorder.counters().written, 0u);
}

TEST_F(EventRecorderTest, FullQueueDropsAndCounts) {
  EventRecorder::Options opts = options();
  opts.maxQueued = 2;
  EventRecorder recorder(transport_, opts);
  std::latch entered(1);
  std::latch release(1);
  std::atomic<bool> first{true};
  transport_.setBeforeRequest([&](const Request&) {
    if (first.exchange(false)) {
      entered.count_down();
      release.wait();
    }
  });
  recorder.record(scheduled("pod-0"));
  entered.wait();  // the worker holds pod-0; the queue is empty
  for (int i = 1; i <= 4; ++i) {
    recorder.record(scheduled("pod-" + std::to_string(i)));
  }
  EXPECT_EQ(recorder.counters().dropped, 2u);
  release.count_down();
  ASSERT_TRUE(recorder.flush(kFlush));
  const EventRecorder::Counters counters = recorder.counters();
  EXPECT_EQ(counters.recorded, 3u);
  EXPECT_EQ(counters.written, 3u);
  EXPECT_EQ(counters.dropped, 2u);
  EXPECT_EQ(api_.paths(kEvents).size(), 3u);
}

TEST_F(EventRecorderTest, StopEndsARetryWaitAndDropsWhatIsLeft) {
  EventRecorder::Options opts = options();
  opts.retrySleep = 10s;
  EventRecorder recorder(transport_, opts);
  transport_.answerAll(Response{503, "", ""});
  recorder.record(scheduled("pod-a"));
  recorder.record(scheduled("pod-b"));
  ASSERT_TRUE(transport_.waitForRequests(1));
  ASSERT_TRUE(clock_.waitIdle(1));  // waiting to retry pod-a
  recorder.stop();
  recorder.record(scheduled("pod-c"));
  const EventRecorder::Counters counters = recorder.counters();
  EXPECT_EQ(counters.recorded, 2u);
  EXPECT_EQ(counters.dropped, 3u);  // pod-a's write, pod-b still queued, pod-c after stop
  EXPECT_EQ(transport_.requestCount(), 1u);
  EXPECT_TRUE(recorder.flush(kFlush));
}

}  // namespace
}  // namespace sh::kube::event_recorder_test

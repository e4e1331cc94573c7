// sendWithRetry over a scripted transport: which answers are retried, the backoff and its
// jitter, Retry-After, the attempt limit and stop.
#include "host/connectors/kube/retry.h"

#include <gtest/gtest.h>

#include <deque>
#include <thread>
#include <vector>

namespace sh::kube::retry_test {
namespace {

using std::chrono::milliseconds;

class ScriptedTransport : public Transport {
 public:
  explicit ScriptedTransport(std::deque<Response> script) : script_(std::move(script)) {}
  Response send(const Request& request) override {
    paths.push_back(request.path);
    if (script_.empty()) return Response{200, "done", "", 0};
    Response next = script_.front();
    script_.pop_front();
    return next;
  }
  Response stream(const Request&, const BodySink&, std::stop_token) override { return {}; }
  std::string server() const override { return "https://scripted:443"; }

  std::vector<std::string> paths;

 private:
  std::deque<Response> script_;
};

Response status(int code, std::string body = {}) {
  Response response;
  response.status = code;
  response.body = std::move(body);
  return response;
}

struct Sleeps {
  std::vector<milliseconds> durations;
  RetrySleep sleep() {
    return [this](milliseconds duration, std::stop_token) {
      durations.push_back(duration);
      return true;
    };
  }
};

Request get() {
  Request request;
  request.path = "/api/v1/nodes";
  return request;
}

TEST(RetryTest, SuccessIsNotRetried) {
  ScriptedTransport transport({status(201, "made")});
  Sleeps sleeps;
  auto response = sendWithRetry(transport, get(), RetryPolicy{}, {}, sleeps.sleep());
  EXPECT_EQ(response.status, 201);
  EXPECT_EQ(response.body, "made");
  EXPECT_EQ(transport.paths.size(), 1u);
  EXPECT_TRUE(sleeps.durations.empty());
}

TEST(RetryTest, ClientErrorsAreNotRetried) {
  for (int code : {400, 404, 409, 422}) {
    ScriptedTransport transport({status(code)});
    auto response = sendWithRetry(transport, get(), RetryPolicy{}, {}, Sleeps().sleep());
    EXPECT_EQ(response.status, code);
    EXPECT_EQ(transport.paths.size(), 1u);
  }
}

TEST(RetryTest, ServerErrorsAndTransportErrorsBackOffExponentially) {
  Response refused;
  refused.error = "https://scripted:443: connect: Connection refused";
  ScriptedTransport transport({status(500), refused, status(503), status(200, "ok")});
  Sleeps sleeps;
  auto response = sendWithRetry(transport, get(), RetryPolicy{}, {}, sleeps.sleep());
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "ok");
  EXPECT_EQ(transport.paths.size(), 4u);
  ASSERT_EQ(sleeps.durations.size(), 3u);
  const milliseconds base[] = {milliseconds(10), milliseconds(50), milliseconds(250)};
  for (int i = 0; i < 3; ++i) {
    EXPECT_GE(sleeps.durations[i], base[i]);
    EXPECT_LE(sleeps.durations[i], base[i] + base[i] / 10);  // jitter 0.1
  }
}

TEST(RetryTest, GivesUpAfterAttemptsWithTheLastResponse) {
  ScriptedTransport transport({status(500, "1"), status(500, "2"), status(502, "3"),
                               status(503, "4"), status(504, "5"), status(200)});
  RetryPolicy policy;
  policy.jitter = 0;
  Sleeps sleeps;
  auto response = sendWithRetry(transport, get(), policy, {}, sleeps.sleep());
  EXPECT_EQ(response.status, 504);
  EXPECT_EQ(response.body, "5");
  EXPECT_EQ(transport.paths.size(), 5u);
  EXPECT_EQ(sleeps.durations, (std::vector<milliseconds>{milliseconds(10), milliseconds(50),
                                                         milliseconds(250), milliseconds(1250)}));
}

TEST(RetryTest, RetryAfterHonouredWhenLonger) {
  Response tooMany = status(429);
  tooMany.retryAfterSeconds = 2;
  Response shortWait = status(429);
  shortWait.retryAfterSeconds = 1;
  RetryPolicy policy;
  policy.jitter = 0;
  policy.initial = milliseconds(1500);
  ScriptedTransport transport({tooMany, shortWait, status(200)});
  Sleeps sleeps;
  auto response = sendWithRetry(transport, get(), policy, {}, sleeps.sleep());
  EXPECT_EQ(response.status, 200);
  // 2 s beats the 1.5 s backoff; 1 s does not beat the 7.5 s one.
  EXPECT_EQ(sleeps.durations, (std::vector<milliseconds>{milliseconds(2000), milliseconds(7500)}));
}

TEST(RetryTest, BackoffIsCapped) {
  RetryPolicy policy;
  EXPECT_EQ(retryBackoff(policy, 1), milliseconds(10));
  EXPECT_EQ(retryBackoff(policy, 4), milliseconds(1250));
  EXPECT_EQ(retryBackoff(policy, 6), milliseconds(30000));  // 31.25 s capped
  EXPECT_EQ(retryBackoff(policy, 50), milliseconds(30000));
}

TEST(RetryTest, StopEndsRetries) {
  ScriptedTransport transport({status(500, "first"), status(500, "second")});
  std::stop_source stop;
  int sleepsSeen = 0;
  auto response = sendWithRetry(transport, get(), RetryPolicy{}, stop.get_token(),
                                [&](milliseconds, std::stop_token) {
                                  ++sleepsSeen;
                                  stop.request_stop();
                                  return false;
                                });
  EXPECT_EQ(response.body, "first");
  EXPECT_EQ(transport.paths.size(), 1u);
  EXPECT_EQ(sleepsSeen, 1);
}

TEST(RetryTest, RealSleepIsInterruptedByStop) {
  ScriptedTransport transport({status(503, "busy")});
  RetryPolicy policy;
  policy.initial = milliseconds(60000);
  policy.cap = milliseconds(60000);
  std::stop_source stop;
  std::thread stopper([&] { stop.request_stop(); });
  const auto start = std::chrono::steady_clock::now();
  auto response = sendWithRetry(transport, get(), policy, stop.get_token());
  stopper.join();
  EXPECT_EQ(response.status, 503);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace sh::kube::retry_test

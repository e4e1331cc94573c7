#include "host/cycle/decision_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace sh::cycle::decision_log_test {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    out.push_back(line);
  }
  return out;
}

TEST(DecisionLogTest, BindingLine) {
  std::ostringstream out;
  DecisionLog log(out);
  log.binding({"ns/web-1", "n1", "default-scheduler", 3, 1, 0.42});
  EXPECT_EQ(out.str(),
            R"({"kind":"Binding","pod":"ns/web-1","node":"n1","profile":"default-scheduler",)"
            R"("generation":3,"attempts":1,"latencyMs":0.42})"
            "\n");
}

TEST(DecisionLogTest, StringsAreWrittenAsBoostJsonSerializesThem) {
  // Plain strings are copied, the others escaped; either way byte for byte what
  // boost::json::serialize writes for the same object.
  constexpr char kControl[] = "nul \0 bell \a esc \x1b del \x7f";
  const std::vector<std::string> messages = {
      "0/3 nodes are available: 3 Insufficient cpu.",
      "quote \" backslash \\ slash / tab \t newline \n cr \r",
      std::string(kControl, sizeof kControl - 1),
      "UTF-8 \xc3\xa9\xe2\x82\xac and a cut sequence \xe2\x82", ""};
  for (const std::string& m : messages) {
    std::ostringstream out;
    DecisionLog log(out);
    log.failedScheduling({"ns/p\"1", "default-scheduler", 2, 3, "Unschedulable", m});
    boost::json::object expected;
    expected["kind"] = "FailedScheduling";
    expected["pod"] = "ns/p\"1";
    expected["profile"] = "default-scheduler";
    expected["generation"] = 2;
    expected["attempts"] = 3;
    expected["reason"] = "Unschedulable";
    expected["message"] = m;
    EXPECT_EQ(out.str(), boost::json::serialize(expected) + "\n") << m;
  }
}

TEST(DecisionLogTest, ReloadLines) {
  std::ostringstream out;
  DecisionLog log(out);
  log.reload({4, true, {"default-scheduler/ImageLocality", "gpu"}, ""});
  log.reload({4, false, {}, "a.toml:3:1: error: unknown field \"x\""});
  EXPECT_EQ(out.str(), R"({"kind":"Reload","generation":4,"result":"Applied",)"
                       R"("changed":["default-scheduler/ImageLocality","gpu"]})"
                       "\n"
                       R"({"kind":"Reload","generation":4,"result":"Rejected","changed":[],)"
                       R"("error":"a.toml:3:1: error: unknown field \"x\""})"
                       "\n");
}

TEST(DecisionLogTest, FailedSchedulingLineEscapesTheMessage) {
  std::ostringstream out;
  DecisionLog log(out);
  const std::string message =
      "0/3 nodes are available: 3 node(s) had untolerated taint "
      "{\"dedicated\": gpu}.\npreemption: 0/3 nodes";
  log.failedScheduling({"ns/p", "batch", 1, 2, "Unschedulable", message});
  auto all = lines(out.str());
  ASSERT_EQ(all.size(), 1u) << "the newline in the message is escaped";
  auto v = boost::json::parse(all[0]).as_object();
  EXPECT_EQ(v.at("kind").as_string(), "FailedScheduling");
  EXPECT_EQ(v.at("pod").as_string(), "ns/p");
  EXPECT_EQ(v.at("profile").as_string(), "batch");
  EXPECT_EQ(v.at("generation").as_int64(), 1);
  EXPECT_EQ(v.at("attempts").as_int64(), 2);
  EXPECT_EQ(v.at("reason").as_string(), "Unschedulable");
  EXPECT_EQ(v.at("message").as_string(), message);
  // Keys in the documented order.
  std::vector<std::string> keys;
  for (const auto& kv : v) {
    keys.emplace_back(kv.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "pod", "profile", "generation", "attempts",
                                            "reason", "message"}));
}

TEST(DecisionLogTest, TheAttemptABatchRunGivesUpAfterSaysFinal) {
  std::ostringstream out;
  DecisionLog log(out);
  FailureDecision d{"ns/p", "batch", 1, 1, "SchedulerError", "no nodes available to schedule pods"};
  d.final = true;
  log.failedScheduling(d);
  EXPECT_EQ(out.str(), R"({"kind":"FailedScheduling","pod":"ns/p","profile":"batch",)"
                       R"("generation":1,"attempts":1,"reason":"SchedulerError",)"
                       R"("message":"no nodes available to schedule pods","final":true})"
                       "\n");
}

TEST(DecisionLogTest, SummaryLine) {
  std::ostringstream out;
  DecisionLog log(out);
  RunSummary s;
  s.scheduled = 90;
  s.unschedulable = 7;
  s.failed = 1;
  s.pending = 3;
  s.preemptions = 2;
  s.preemptionVictims = 5;
  s.elapsedSeconds = 1.2;
  s.attemptLatency = {100, 0.5, 3.25, 12.0};
  log.summary(s);
  // podsPerSecond = 90 / 1.2 = 75.
  EXPECT_EQ(out.str(),
            R"({"kind":"Summary","scheduled":90,"unschedulable":7,"failed":1,"pending":3,)"
            R"("preemptions":2,"preemptionVictims":5,)"
            R"("podsPerSecond":75,"elapsedSeconds":1.2,)"
            R"("attemptLatencyMs":{"p50":0.5,"p99":3.25,"max":12}})"
            "\n");
  EXPECT_EQ(summaryText(s),
            "scheduled 90, unschedulable 7, failed 1, pending 3 in 1.2 s (75 pods/s)\n"
            "preempted 5 pod(s) in 2 preemption(s)\n"
            "attempt latency: p50 0.5 ms, p99 3.25 ms, max 12 ms over 100 attempts\n");
}

TEST(DecisionLogTest, NumbersArePlainDecimalsRoundedToThreePlaces) {
  std::ostringstream out;
  DecisionLog log(out);
  log.binding({"a/b", "n", "p", 1, 3, 0.0004});     // rounds to 0
  log.binding({"a/b", "n", "p", 1, 3, 1234.5678});  // 1234.568
  log.binding({"a/b", "n", "p", 1, 3, 0.00051});    // 0.001
  auto all = lines(out.str());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_NE(all[0].find(R"("latencyMs":0})"), std::string::npos) << all[0];
  EXPECT_NE(all[1].find(R"("latencyMs":1234.568})"), std::string::npos) << all[1];
  EXPECT_NE(all[2].find(R"("latencyMs":0.001})"), std::string::npos) << all[2];
  RunSummary idle;  // no time passed: 0 pods/s, not a division by zero
  EXPECT_EQ(idle.podsPerSecond(), 0);
}

TEST(DecisionLogTest, LinesFromSeveralThreadsDoNotInterleave) {
  std::ostringstream out;
  DecisionLog log(out);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::string pod = "ns/p" + std::to_string(t) + "-" + std::to_string(i);
        if (i % 2 == 0) {
          log.binding({pod, "n1", "default-scheduler", 1, 1, i * 0.01});
        } else {
          log.failedScheduling({pod, "default-scheduler", 1, i, "Unschedulable", "no"});
        }
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  auto all = lines(out.str());
  ASSERT_EQ(all.size(), 800u);
  for (const auto& line : all) {
    boost::system::error_code ec;
    boost::json::parse(line, ec);
    EXPECT_FALSE(ec) << line;
  }
}

TEST(LatencyStatsTest, NearestRankPercentiles) {
  LatencyStats stats;
  EXPECT_EQ(stats.percentile(50), 0) << "nothing recorded";
  for (double v : {0.5, 3.0, 1.0, 9.0, 2.0, 7.0, 4.0, 8.0, 6.0, 5.0}) {
    stats.record(v);
  }
  // Sorted: [0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9], n = 10; rank = ceil(p/100 * n), 1-based.
  EXPECT_EQ(stats.percentile(50), 4.0);   // ceil(5.0) = 5th value = 4
  EXPECT_EQ(stats.percentile(90), 8.0);   // ceil(9.0) = 9th value = 8
  EXPECT_EQ(stats.percentile(99), 9.0);   // ceil(9.9) = 10th value = 9
  EXPECT_EQ(stats.percentile(10), 0.5);   // ceil(1.0) = 1st value = 0.5
  EXPECT_EQ(stats.percentile(11), 1.0);   // ceil(1.1) = 2nd value = 1
  EXPECT_EQ(stats.percentile(100), 9.0);  // the max
  LatencySummary s = stats.summary();
  EXPECT_EQ(s.count, 10u);
  EXPECT_EQ(s.p50, 4.0);
  EXPECT_EQ(s.p99, 9.0);
  EXPECT_EQ(s.max, 9.0);
}

TEST(LatencyStatsTest, HundredValuesGiveTheRankExactly) {
  std::vector<double> values;
  for (int i = 1; i <= 100; ++i) {
    values.push_back(i);
  }
  std::shuffle(values.begin(), values.end(), std::mt19937(42));
  LatencyStats stats;
  for (double v : values) {
    stats.record(v);
  }
  // n = 100: p50 -> rank 50 -> 50; p99 -> rank 99 -> 99 (99/100*100 computed as 99*100/100,
  // exactly 99, so no rounding pushes it to rank 100); max 100.
  LatencySummary s = stats.summary();
  EXPECT_EQ(s.p50, 50.0);
  EXPECT_EQ(s.p99, 99.0);
  EXPECT_EQ(s.max, 100.0);
  // Recording after a percentile keeps them exact (re-sorted).
  stats.record(0.25);
  // n = 101: p50 -> ceil(50.5) = 51st of [0.25, 1..100] = 50.
  EXPECT_EQ(stats.percentile(50), 50.0);
  EXPECT_EQ(stats.percentile(1), 1.0);  // ceil(1.01) = 2nd = 1
}

TEST(LatencyStatsTest, OneValueIsEveryPercentile) {
  LatencyStats stats;
  stats.record(7.5);
  EXPECT_EQ(stats.percentile(1), 7.5);
  EXPECT_EQ(stats.percentile(50), 7.5);
  EXPECT_EQ(stats.percentile(100), 7.5);
}

}  // namespace
}  // namespace sh::cycle::decision_log_test

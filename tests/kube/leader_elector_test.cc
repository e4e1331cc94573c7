// LeaderElector over a scripted API and a fake clock: acquiring, waiting, taking over an
// expired Lease, renewing, losing it, the 409 race, releasing, validation, and two electors
// on one Lease.
#include "host/connectors/kube/leader_elector.h"

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/kube/scripted_transport.h"

namespace sh::kube::leader_elector_test {
namespace {

using namespace std::chrono_literals;
using kubetest::FakeClock;
using kubetest::ScriptedApi;
using kubetest::ScriptedTransport;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace json = boost::json;

const TimePoint kStart = TimePoint(
    std::chrono::duration_cast<TimePoint::duration>(1795600800s));  // 2026-11-25T10:00:00Z
const std::string kLeases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const std::string kLease = kLeases + "/schedhost";

// What the callbacks saw, thread-safe.
struct Seen {
  std::mutex mutex;
  std::atomic<int> started{0};
  std::atomic<int> stopped{0};
  std::vector<std::string> leaders;

  LeaderElector::Callbacks callbacks() {
    return LeaderElector::Callbacks{[this] { ++started; }, [this] { ++stopped; },
                                    [this](const std::string& identity) {
                                      std::lock_guard lock(mutex);
                                      leaders.push_back(identity);
                                    }};
  }
  std::vector<std::string> newLeaders() {
    std::lock_guard lock(mutex);
    return leaders;
  }
};

json::object spec(const ScriptedApi& api) { return api.get(kLease)->at("spec").as_object(); }

json::value leaseHeldBy(const std::string& holder, int64_t transitions) {
  return json::object{
      {"apiVersion", "coordination.k8s.io/v1"},
      {"kind", "Lease"},
      {"metadata", json::object{{"name", "schedhost"}, {"namespace", "kube-system"}}},
      {"spec", json::object{{"holderIdentity", holder},
                            {"leaseDurationSeconds", 15},
                            {"acquireTime", "2026-11-25T09:00:00.000000Z"},
                            {"renewTime", "2026-11-25T09:59:59.000000Z"},
                            {"leaseTransitions", transitions}}}};
}

class LeaderElectorTest : public ::testing::Test {
 protected:
  LeaderElector::Options options(const std::string& identity) {
    LeaderElector::Options options;
    options.identity = identity;
    options.clock = &clock_;
    return options;
  }
  // Moves the clock in steps of `step` until `done`, letting `sleepers` threads settle after
  // each step (fewer once `exited` is set). False when it takes more than `maxSteps`.
  bool stepUntil(const std::function<bool()>& done, std::chrono::milliseconds step, int maxSteps,
                 std::size_t sleepers = 1) {
    for (int i = 0; i < maxSteps && !done(); ++i) {
      clock_.advance(step);
      if (!clock_.waitIdle(sleepers)) {
        return done();
      }
    }
    return done();
  }

  ScriptedApi api_;
  ScriptedTransport transport_{api_};
  FakeClock clock_{kStart};
};

TEST_F(LeaderElectorTest, AcquiresAMissingLeaseAndReleasesItOnStop) {
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));  // acquired, renewed once, waiting retryPeriod

  EXPECT_TRUE(elector.isLeader());
  EXPECT_EQ(elector.leader(), "me");
  EXPECT_EQ(seen.started, 1);
  EXPECT_THAT(seen.newLeaders(), ElementsAre("me"));
  const auto requests = transport_.requests();
  ASSERT_GE(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, Method::kGet);
  EXPECT_EQ(requests[0].path, kLease);
  EXPECT_EQ(requests[1].method, Method::kPost);
  EXPECT_EQ(requests[1].path, kLeases);
  const json::object created = json::parse(requests[1].body).as_object();
  EXPECT_EQ(created.at("metadata").at("name"), "schedhost");
  EXPECT_EQ(created.at("spec"), (json::object{{"holderIdentity", "me"},
                                              {"leaseDurationSeconds", 15},
                                              {"leaseTransitions", 0},
                                              {"acquireTime", "2026-11-25T10:00:00.000000Z"},
                                              {"renewTime", "2026-11-25T10:00:00.000000Z"}}));

  clock_.advance(3s);
  ASSERT_TRUE(clock_.waitIdle(1));
  runner.request_stop();
  runner.join();
  const json::object released = spec(api_);
  EXPECT_EQ(released.at("holderIdentity"), "");
  EXPECT_EQ(released.at("leaseDurationSeconds"), 1);
  EXPECT_EQ(released.at("leaseTransitions"), 0);
  EXPECT_EQ(released.at("renewTime"), "2026-11-25T10:00:03.000000Z");
  EXPECT_EQ(released.at("acquireTime"), "2026-11-25T10:00:03.000000Z");
  EXPECT_EQ(seen.stopped, 1);
  EXPECT_FALSE(elector.isLeader());
  EXPECT_THAT(seen.newLeaders(), ElementsAre("me", ""));
}

TEST_F(LeaderElectorTest, WithoutReleaseOnCancelTheLeaseIsLeftAsIs) {
  LeaderElector::Options opts = options("me");
  opts.releaseOnCancel = false;
  LeaderElector elector(transport_, opts);
  Seen seen;
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));
  const std::size_t before = transport_.requestCount();
  runner.request_stop();
  runner.join();
  EXPECT_EQ(transport_.requestCount(), before);
  EXPECT_EQ(spec(api_).at("holderIdentity"), "me");
  EXPECT_EQ(seen.stopped, 1);
}

TEST_F(LeaderElectorTest, WaitsWhileAnotherHoldsItAndTakesOverAfterExpiry) {
  api_.put(kLease, leaseHeldBy("other", 3));
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));
  EXPECT_FALSE(elector.isLeader());
  EXPECT_EQ(elector.leader(), "other");
  EXPECT_THAT(seen.newLeaders(), ElementsAre("other"));

  // 10 s: the renewTime written long ago does not matter; the lease is valid for 15 s from
  // when this elector saw it. The holder renews now, which restarts that count.
  clock_.advance(10s);
  ASSERT_TRUE(clock_.waitIdle(1));
  EXPECT_FALSE(elector.isLeader());
  json::value renewed = *api_.get(kLease);
  renewed.at("spec").as_object()["renewTime"] = "2026-11-25T10:00:10.000000Z";
  api_.put(kLease, renewed);
  clock_.advance(5s);  // 15 s: the retry due between 12 and 14.4 s runs and sees the change
  ASSERT_TRUE(clock_.waitIdle(1));
  const TimePoint seenChanged = clock_.now();
  clock_.advance(6s);  // 21 s: not 15 s since the change yet
  ASSERT_TRUE(clock_.waitIdle(1));
  EXPECT_FALSE(elector.isLeader());
  for (const Request& request : transport_.requests()) {
    EXPECT_EQ(request.method, Method::kGet);
  }

  // Nobody renews any more: taken over within leaseDuration plus one jittered retry period.
  ASSERT_TRUE(stepUntil([&] { return elector.isLeader(); }, 1s, 30));
  EXPECT_GE(clock_.now() - seenChanged, 15s);
  EXPECT_LE(clock_.now() - seenChanged, 15s + 5s);
  EXPECT_EQ(seen.started, 1);
  const json::object taken = spec(api_);
  EXPECT_EQ(taken.at("holderIdentity"), "me");
  EXPECT_EQ(taken.at("leaseTransitions"), 4);
  EXPECT_THAT(seen.newLeaders(), ElementsAre("other", "me"));
  // The takeover was a PUT of the Lease as read: its resourceVersion came back.
  const auto requests = transport_.requests();
  const auto put = std::find_if(requests.begin(), requests.end(),
                                [](const Request& r) { return r.method == Method::kPut; });
  ASSERT_NE(put, requests.end());
  EXPECT_TRUE(json::parse(put->body).at("metadata").as_object().contains("resourceVersion"));
}

TEST_F(LeaderElectorTest, RenewingKeepsTheLease) {
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));
  const json::object first = spec(api_);
  for (int i = 1; i <= 10; ++i) {
    clock_.advance(2s);
    ASSERT_TRUE(clock_.waitIdle(1));
    EXPECT_TRUE(elector.isLeader());
  }
  const json::object last = spec(api_);
  EXPECT_EQ(last.at("holderIdentity"), "me");
  EXPECT_EQ(last.at("acquireTime"), first.at("acquireTime"));
  EXPECT_EQ(last.at("renewTime"), "2026-11-25T10:00:20.000000Z");
  EXPECT_EQ(last.at("leaseTransitions"), 0);
  EXPECT_EQ(seen.started, 1);
  EXPECT_EQ(seen.stopped, 0);
  // Renewals take the fast path: one PUT each, no GET.
  const auto requests = transport_.requests();
  EXPECT_EQ(std::count_if(requests.begin(), requests.end(),
                          [](const Request& r) { return r.method == Method::kPut; }),
            11);
  EXPECT_EQ(std::count_if(requests.begin(), requests.end(),
                          [](const Request& r) { return r.method == Method::kGet; }),
            1);
}

TEST_F(LeaderElectorTest, RenewFailingForRenewDeadlineLosesLeadership) {
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  std::atomic<bool> returned{false};
  std::jthread runner([&](std::stop_token stop) {
    elector.run(stop, seen.callbacks());
    returned = true;
  });
  ASSERT_TRUE(clock_.waitIdle(1));
  transport_.answerAll(Response{0, "", "connect: Connection refused"});
  clock_.advance(2s);  // the first failed renewal starts the renewDeadline count
  ASSERT_TRUE(clock_.waitIdle(1));
  const TimePoint failingSince = clock_.now();
  std::chrono::nanoseconds leaderFor{};
  for (int i = 0; i < 20 && !returned; ++i) {
    if (elector.isLeader()) {
      leaderFor = clock_.now() - failingSince;
    }
    clock_.advance(1s);
    clock_.waitUntil([&](std::size_t idle) { return idle >= 1 || returned; });
  }
  ASSERT_TRUE(returned);
  EXPECT_EQ(seen.stopped, 1);
  EXPECT_FALSE(elector.isLeader());
  EXPECT_GE(leaderFor, 9s);  // still leading until renewDeadline (10 s) passed
  EXPECT_LT(clock_.now() - failingSince, 15s);
}

TEST_F(LeaderElectorTest, LosingTheUpdateRaceWaitsForTheWinner) {
  api_.put(kLease, leaseHeldBy("old", 7));
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  // Just before our takeover PUT, a rival writes the Lease first: our PUT gets 409.
  std::atomic<bool> raced{false};
  transport_.setBeforeRequest([&](const Request& request) {
    if (request.method == Method::kPut && !raced.exchange(true)) {
      json::value lease = *api_.get(kLease);
      lease.at("spec").as_object()["holderIdentity"] = "rival";
      lease.at("spec").as_object()["leaseTransitions"] = 8;
      api_.put(kLease, lease);
    }
  });
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));
  ASSERT_TRUE(stepUntil([&] { return raced.load(); }, 1s, 30));
  clock_.advance(5s);
  ASSERT_TRUE(clock_.waitIdle(1));
  EXPECT_FALSE(elector.isLeader());
  EXPECT_EQ(elector.leader(), "rival");
  EXPECT_EQ(seen.started, 0);
  EXPECT_EQ(spec(api_).at("holderIdentity"), "rival");
  EXPECT_THAT(seen.newLeaders(), ElementsAre("old", "rival"));
  runner.request_stop();
  runner.join();
  EXPECT_EQ(seen.stopped, 0);  // never led
  EXPECT_EQ(spec(api_).at("holderIdentity"), "rival");
}

TEST_F(LeaderElectorTest, AReleasedLeaseIsTakenAtOnce) {
  json::value released = leaseHeldBy("", 2);
  released.at("spec").as_object()["leaseDurationSeconds"] = 1;
  api_.put(kLease, released);
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));
  EXPECT_TRUE(elector.isLeader());
  EXPECT_EQ(spec(api_).at("leaseTransitions"), 3);
}

TEST_F(LeaderElectorTest, ValidationNamesTheField) {
  const auto check = [](auto change, const std::string& expected) {
    LeaderElector::Options options;
    options.identity = "me";
    change(options);
    EXPECT_EQ(LeaderElector::validate(options), expected);
  };
  check([](auto&) {}, "");
  check([](auto& o) { o.identity = ""; }, "identity must not be empty");
  check([](auto& o) { o.leaseName = ""; }, "leaseName must not be empty");
  check([](auto& o) { o.leaseNamespace = ""; }, "leaseNamespace must not be empty");
  check([](auto& o) { o.leaseDuration = 0ms; }, "leaseDuration must be greater than zero, got 0s");
  check([](auto& o) { o.renewDeadline = -1ms; },
        "renewDeadline must be greater than zero, got -1ms");
  check([](auto& o) { o.retryPeriod = 0ms; }, "retryPeriod must be greater than zero, got 0s");
  check([](auto& o) { o.leaseDuration = 10s; },
        "leaseDuration (10s) must be greater than renewDeadline (10s)");
  check([](auto& o) { o.retryPeriod = 8500ms; },
        "renewDeadline (10s) must be greater than 1.2 × retryPeriod (8500ms)");
  check([](auto& o) { o.renewDeadline = 2400ms; },
        "renewDeadline (2400ms) must be greater than 1.2 × retryPeriod (2s)");
  check([](auto& o) { o.renewDeadline = 2401ms; }, "");

  ScriptedApi api;
  ScriptedTransport transport(api);
  LeaderElector::Options bad;
  bad.leaseDuration = 5s;
  try {
    LeaderElector elector(transport, bad);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("leaseDuration (5s) must be greater than renewDeadline"));
  }
}

TEST_F(LeaderElectorTest, DefaultIdentityIsHostnameAndUuid) {
  const std::string a = defaultLeaderIdentity();
  const std::string b = defaultLeaderIdentity();
  EXPECT_NE(a, b);
  EXPECT_TRUE(a.starts_with(hostname() + "_")) << a;
  const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  EXPECT_TRUE(std::regex_match(a.substr(hostname().size() + 1), uuid)) << a;
  EXPECT_EQ(LeaderElector::Options{}.leaseName, "schedhost");
  EXPECT_EQ(LeaderElector::Options{}.leaseNamespace, "kube-system");
}

TEST_F(LeaderElectorTest, TwoElectorsOneLeaderAndFailover) {
  ScriptedTransport transportA(api_);
  ScriptedTransport transportB(api_);
  LeaderElector a(transportA, options("a"));
  LeaderElector b(transportB, options("b"));
  Seen seenA;
  Seen seenB;
  std::atomic<bool> aReturned{false};
  std::jthread runA([&](std::stop_token stop) {
    a.run(stop, seenA.callbacks());
    aReturned = true;
  });
  ASSERT_TRUE(clock_.waitIdle(1));
  ASSERT_TRUE(a.isLeader());
  std::jthread runB([&](std::stop_token stop) { b.run(stop, seenB.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(2));

  const auto settle = [&] {
    return clock_.waitUntil([&](std::size_t idle) { return idle >= (aReturned ? 1u : 2u); });
  };
  for (int i = 0; i < 60; ++i) {  // a minute: a keeps renewing, b keeps waiting
    clock_.advance(1s);
    ASSERT_TRUE(settle());
    ASSERT_TRUE(a.isLeader());
    ASSERT_FALSE(b.isLeader());
  }
  EXPECT_EQ(b.leader(), "a");

  // a is cut off from the API server: it stops leading after renewDeadline; b takes over
  // once leaseDuration has passed since it last saw the Lease change. Never both at once.
  transportA.answerAll(Response{0, "", "connect: Connection timed out"});
  const TimePoint cut = clock_.now();
  TimePoint aLostAt{};
  for (int i = 0; i < 40 && !b.isLeader(); ++i) {
    clock_.advance(1s);
    ASSERT_TRUE(settle());
    ASSERT_FALSE(a.isLeader() && b.isLeader()) << "two leaders at step " << i;
    if (!a.isLeader() && aLostAt == TimePoint{}) {
      aLostAt = clock_.now();
    }
  }
  ASSERT_TRUE(b.isLeader());
  EXPECT_TRUE(aReturned);
  EXPECT_EQ(seenA.stopped, 1);
  EXPECT_LE(aLostAt - cut, 13s);  // renewDeadline after its last renewal, plus a period
  EXPECT_GE(clock_.now() - cut, 15s);
  const json::object held = spec(api_);
  EXPECT_EQ(held.at("holderIdentity"), "b");
  EXPECT_EQ(held.at("leaseTransitions"), 1);
  EXPECT_THAT(seenB.newLeaders(), ElementsAre("a", "b"));
  EXPECT_EQ(seenB.started, 1);
}

// Every request of a renewing try carries what is left of the renew deadline (client-go runs the
// try under context.WithTimeout(ctx, RenewDeadline)) and run()'s stop token, GET and PUT alike.
TEST_F(LeaderElectorTest, RenewRequestsCarryWhatIsLeftOfTheRenewDeadline) {
  LeaderElector elector(transport_, options("me"));
  Seen seen;
  std::jthread runner([&](std::stop_token stop) { elector.run(stop, seen.callbacks()); });
  ASSERT_TRUE(clock_.waitIdle(1));
  transport_.answerAll(Response{0, "", "connect: Connection refused"});
  std::size_t before = transport_.requestCount();
  clock_.advance(2s);  // the first renewing try: the whole deadline is left
  ASSERT_TRUE(clock_.waitIdle(1));
  std::vector<Request> requests = transport_.requests();
  ASSERT_GT(requests.size(), before);
  for (std::size_t i = before; i < requests.size(); ++i) {
    EXPECT_GT(requests[i].timeout, 9000ms) << requests[i].path;
    EXPECT_LE(requests[i].timeout, 10000ms) << requests[i].path;
    EXPECT_TRUE(requests[i].stop.stop_possible());
  }
  before = requests.size();
  clock_.advance(2s);  // the second try, 2 s into the deadline
  ASSERT_TRUE(clock_.waitIdle(1));
  requests = transport_.requests();
  ASSERT_GT(requests.size(), before);
  for (std::size_t i = before; i < requests.size(); ++i) {
    EXPECT_GT(requests[i].timeout, 7000ms) << requests[i].path;
    EXPECT_LE(requests[i].timeout, 8000ms) << requests[i].path;
  }
  runner.request_stop();
  runner.join();
}

// The server stops answering while this elector leads: every request hangs until its own
// deadline. On the system clock, leadership ends at the renew deadline after the last renew,
// reported while the renewing request may still be waiting, and before the Lease could expire
// for another replica. Before, the renewing request waited for the transport's own timeout
// (here: for ever) and the leader went on leading.
TEST(LeaderElectorSystemClockTest, ALeaderWhoseRequestsHangLosesAtTheRenewDeadline) {
  ScriptedApi api;
  ScriptedTransport transport(api);
  LeaderElector::Options options;
  options.identity = "me";
  options.leaseDuration = 60s;  // another replica could take over only after this
  options.renewDeadline = 2s;
  options.retryPeriod = 500ms;
  LeaderElector elector(transport, options);
  Seen seen;
  std::atomic<bool> returned{false};
  std::jthread runner([&](std::stop_token stop) {
    elector.run(stop, seen.callbacks());
    returned = true;
  });
  const auto waitFor = [](const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(5ms);
    }
    return done();
  };
  ASSERT_TRUE(waitFor([&] { return seen.started == 1; }, 30s));
  const std::size_t before = transport.requestCount();
  transport.hang(true);
  const auto hung = std::chrono::steady_clock::now();
  ASSERT_TRUE(waitFor([&] { return seen.stopped == 1; }, 40s));
  // The renew deadline (2 s) and a generous margin, well inside the lease duration; the old
  // behaviour never got here.
  EXPECT_LT(std::chrono::steady_clock::now() - hung, 20s);
  EXPECT_FALSE(elector.isLeader());
  ASSERT_TRUE(waitFor([&] { return returned.load(); }, 50s));
  EXPECT_EQ(seen.stopped, 1);
  EXPECT_EQ(seen.started, 1);
  const std::vector<Request> requests = transport.requests();
  ASSERT_GT(requests.size(), before);
  for (std::size_t i = before; i < requests.size(); ++i) {
    EXPECT_GT(requests[i].timeout, 0ms) << requests[i].path;
    EXPECT_LE(requests[i].timeout, 2000ms) << requests[i].path;
  }
  EXPECT_EQ(transport.hangingNow(), 0u);
  transport.hang(false);
}

}  // namespace
}  // namespace sh::kube::leader_elector_test

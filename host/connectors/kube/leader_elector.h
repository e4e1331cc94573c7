// LeaderElector: leader election on a coordination.k8s.io/v1 Lease, with the rules of
// client-go's tools/leaderelection (leaderelection.go `Run`, `acquire`, `renew`,
// `tryAcquireOrRenew`, `release`; resourcelock/leaselock.go for the Lease's fields).
//
//   acquire   every retryPeriod plus a random jitter of up to 1.2 × retryPeriod
//             (wait.JitterUntil with JitterFactor 1.2): GET the Lease; 404 → POST it with us
//             as holder (leaseTransitions 0). Held by another whose lease has not expired →
//             wait. Expiry is judged on the local clock: the holder's leaseDurationSeconds
//             counted from when this elector last saw the Lease's spec change (upstream's
//             observedTime), never from the renewTime written by another machine. An empty
//             holder (a released Lease) is free at once. Expired or ours → PUT with the
//             resourceVersion read (409: another elector won the race; try again later),
//             leaseTransitions + 1 when the holder changes.
//   lead      onStartedLeading, then renew every retryPeriod: a PUT of our last Lease (the
//             fast path), falling back to GET + PUT. Each try runs under what is left of the
//             renew deadline (its requests carry that timeout and run()'s stop token, as
//             client-go renews under context.WithTimeout(ctx, RenewDeadline)), so a server
//             that stops answering Lease requests cannot hold a try past it. When renewing
//             fails for renewDeadline (tries every retryPeriod), leadership is lost:
//             onStoppedLeading, run() returns. On the system clock a watchdog also ends the
//             leadership at the deadline itself — renewDeadline after the last successful
//             renew — whatever the renewing thread is doing: isLeader() turns false and
//             onStoppedLeading is called from the watchdog's thread. Another replica can take
//             the Lease only after leaseDuration > renewDeadline, so two never lead at once.
//             onStoppedLeading is called once either way.
//   release   when run() ends while this elector holds the Lease and releaseOnCancel is
//             set: GET, then PUT holderIdentity "", leaseDurationSeconds 1, acquireTime and
//             renewTime now, the same leaseTransitions, both requests within 2 s (or
//             renewDeadline when shorter); then onStoppedLeading.
//   observe   onNewLeader(identity) whenever the observed holder changes (ourselves too).
//
// Callbacks run on run()'s thread (onStoppedLeading on the watchdog's when it fires) and must
// not block: onStartedLeading starts the work on a thread of its own (upstream calls it in a
// goroutine). Unlike upstream, onStoppedLeading is called only after onStartedLeading.
// isLeader() and leader() are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

#include "host/connectors/kube/kube_time.h"
#include "host/connectors/kube/transport.h"

namespace sh::kube {

// "<hostname>_<random v4 UUID>", upstream kube-scheduler's identity.
std::string defaultLeaderIdentity();

// The Lease's spec as leader election reads and writes it (upstream LeaderElectionRecord).
struct LeaseRecord {
  std::string holderIdentity;
  int64_t leaseDurationSeconds = 0;
  std::optional<TimePoint> acquireTime;
  std::optional<TimePoint> renewTime;
  int64_t leaseTransitions = 0;

  bool operator==(const LeaseRecord&) const = default;
};

class LeaderElector {
 public:
  struct Options {
    std::string leaseName = "schedhost";
    std::string leaseNamespace = "kube-system";
    std::string identity = defaultLeaderIdentity();
    std::chrono::milliseconds leaseDuration{15000};
    std::chrono::milliseconds renewDeadline{10000};
    std::chrono::milliseconds retryPeriod{2000};
    bool releaseOnCancel = true;
    Clock* clock = nullptr;  // nullptr: systemClock()
  };
  struct Callbacks {
    std::function<void()> onStartedLeading;
    std::function<void()> onStoppedLeading;
    std::function<void(const std::string& identity)> onNewLeader;
  };

  // Empty when valid; otherwise a one-line error naming the field, as upstream
  // NewLeaderElector: leaseDuration > renewDeadline > 1.2 × retryPeriod > 0, identity set.
  static std::string validate(const Options& options);

  // Throws std::invalid_argument with validate()'s message.
  LeaderElector(Transport& transport, Options options);

  // Campaigns until `stop` is requested or leadership is lost; see the top of the file.
  void run(std::stop_token stop, const Callbacks& callbacks);

  bool isLeader() const;
  // The /healthz check "leaderElection" (upstream HealthzAdaptor, LeaderElector.Check): ""
  // unless leading with the Lease last renewed longer ago than leaseDuration + `tolerance`
  // (kube-scheduler: 20 s), then why.
  std::string check(std::chrono::milliseconds tolerance) const;
  // The holder last observed ("" before the first read, or when released).
  std::string leader() const;
  const Options& options() const { return options_; }

 private:
  // The observed holder is us (upstream IsLeader, used inside the election).
  bool holdsObserved() const;
  bool tryAcquireOrRenew();
  // GET the Lease into lease_ and observe its spec; status of the GET (0: transport error or
  // a body that is not a Lease).
  int get();
  // PUT lease_ with `record` as spec; true when written (lease_ then holds the answer).
  bool update(const LeaseRecord& record);
  bool create(const LeaseRecord& record);
  void setObserved(const LeaseRecord& record);
  void reportTransition(const Callbacks& callbacks);
  void release();
  // Leadership lost: isLeader() false, the error logged, onStoppedLeading (once).
  void reportLost(const Callbacks& callbacks);
  // Gives `request` the timeout and stop token of the try under way.
  void bound(Request& request) const;
  std::string leasePath() const;
  std::string describe() const;

  Transport& transport_;
  Options options_;
  Clock& clock_;
  uint64_t random_;

  // The last Lease read or written (JSON), whose metadata (resourceVersion) a PUT sends back.
  std::string lease_;
  std::optional<LeaseRecord> rawObserved_;  // the spec as last read, to see it change

  mutable std::mutex mutex_;
  LeaseRecord observed_;  // what we believe the Lease holds
  TimePoint observedTime_;
  std::string reportedLeader_;
  bool leading_ = false;  // between onStartedLeading and the end of run()

  // Set by run() on its thread before each try: what the try's requests carry. Every request
  // of one try shares its deadline (max: none), as client-go's try shares one context.
  using SteadyClock = std::chrono::steady_clock;
  std::chrono::milliseconds requestTimeout_{0};
  SteadyClock::time_point requestDeadline_ = SteadyClock::time_point::max();
  std::stop_token requestStop_;
  // The last successful renew, steady-clock ticks: the watchdog's deadline is renewDeadline
  // after it.
  std::atomic<SteadyClock::rep> renewedAt_{0};
  std::atomic<bool> stoppedReported_{false};
};

}  // namespace sh::kube

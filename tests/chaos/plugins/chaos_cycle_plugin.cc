// ChaosCycle: faults in the scheduling cycle, for the chaos soak. Each fault is drawn from the
// dice of fault_dice.h (seeded by `seed`), per pod, attempt and site:
//
//   PreFilter  Error, Unschedulable, or an exception; counts the pod's attempts and stores the
//              number in the cycle state for the other chaos plugins. A pod labelled
//              chaos.schedhost.io/fault=error fails with Error on every attempt; one labelled
//              chaos.schedhost.io/fault=none is left alone at every point (attempt 0).
//   Filter     Unschedulable on one node; rarely, a slow call (`slowMs`).
//   Reserve    Error or an exception (the host then runs Unreserve).
//   Permit     an exception; or Wait, after which a thread of the plugin allows or rejects the
//              pod through the host a few milliseconds later, or nobody does and the Wait
//              times out.
//   PostBind   forgets the pod's attempt count.
//
// A rejected pod is retried on Node/Add, Node/Update and Pod/Delete (no hints: always Queue).
//
// args (probabilities per call, 0 when absent): {
//   "seed": 1, "statsFile": "/tmp/.../cycle.stats", "slowMs": 3,
//   "preFilterError": 0.005, "preFilterUnschedulable": 0.005, "preFilterThrow": 0.002,
//   "filterUnschedulable": 0.02, "filterSlow": 0.0001,
//   "reserveError": 0.003, "reserveThrow": 0.001,
//   "permitThrow": 0.001, "permitWait": 0.05,
//   "permitTimeout": 0.3,  // of the waits: left to time out (after 5 to 20 ms)
//   "permitReject": 0.3    // of the other waits: rejected instead of allowed
// }
// On destruction it writes its counts, one "kind count" line each, to `statsFile`.
//
// Extension points: PreFilter, Filter, Reserve, Permit, PostBind, EnqueueExtensions.
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <schedhost/plugin.hpp>

#include "fault_dice.h"

namespace {

constexpr const char* kName = "ChaosCycle";
constexpr const char* kFaultLabel = "chaos.schedhost.io/fault";

enum Kind : std::size_t {
  kPreFilterError,
  kPreFilterUnschedulable,
  kPreFilterThrow,
  kDoomedError,
  kFilterUnschedulable,
  kFilterSlow,
  kReserveError,
  kReserveThrow,
  kUnreserve,
  kPermitThrow,
  kPermitWaitAllow,
  kPermitWaitReject,
  kPermitWaitTimeout,
  kKinds
};
constexpr std::array<const char*, kKinds> kKindNames = {
    "prefilter.error",    "prefilter.unschedulable", "prefilter.throw",
    "doomed.error",       "filter.unschedulable",    "filter.slow",
    "reserve.error",      "reserve.throw",           "unreserve",
    "permit.throw",       "permit.wait.allow",       "permit.wait.reject",
    "permit.wait.timeout"};

class ChaosCycle : public schedhost::PreFilterPlugin,
                   public schedhost::FilterPlugin,
                   public schedhost::ReservePlugin,
                   public schedhost::PermitPlugin,
                   public schedhost::PostBindPlugin,
                   public schedhost::EnqueueExtensions {
 public:
  ChaosCycle(schedhost::Host& host, const schedhost::Args& args)
      : host_(host),
        dice_(static_cast<uint64_t>(args["seed"].asInt())),
        statsFile_(args["statsFile"].asString()),
        slow_(std::chrono::milliseconds(args["slowMs"].present() ? args["slowMs"].asInt() : 3)),
        preFilterError_(chaos::probability(args, "preFilterError", 0)),
        preFilterUnschedulable_(chaos::probability(args, "preFilterUnschedulable", 0)),
        preFilterThrow_(chaos::probability(args, "preFilterThrow", 0)),
        filterUnschedulable_(chaos::probability(args, "filterUnschedulable", 0)),
        filterSlow_(chaos::probability(args, "filterSlow", 0)),
        reserveError_(chaos::probability(args, "reserveError", 0)),
        reserveThrow_(chaos::probability(args, "reserveThrow", 0)),
        permitThrow_(chaos::probability(args, "permitThrow", 0)),
        permitWait_(chaos::probability(args, "permitWait", 0)),
        permitTimeout_(chaos::probability(args, "permitTimeout", 0)),
        permitReject_(chaos::probability(args, "permitReject", 0)),
        attemptKey_(host.intern(chaos::kAttemptKey)),
        resolver_([this] { resolve(); }) {}

  ~ChaosCycle() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    resolver_.join();
    counts_.write(statsFile_);
  }
  ChaosCycle(const ChaosCycle&) = delete;
  ChaosCycle& operator=(const ChaosCycle&) = delete;

  std::vector<schedhost::EventRegistration> eventsToRegister() const {
    return {{SH_RESOURCE_NODE, SH_ACTION_ADD | SH_ACTION_UPDATE, false},
            {SH_RESOURCE_POD, SH_ACTION_DELETE, false}};
  }

  schedhost::Status preFilter(schedhost::Cycle& cycle, const sh_pod& pod,
                              schedhost::PreFilterResult&) {
    const std::string_view fault = chaos::label(pod, kFaultLabel);
    if (fault == "error") {
      counts_.add(kDoomedError);
      return schedhost::Status::error("chaos: this pod fails on every attempt");
    }
    if (fault == "none") {
      return schedhost::Status();  // no attempt in the cycle state: no fault anywhere
    }
    const std::string uid(chaos::text(pod.uid));
    uint64_t attempt = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      attempt = ++attempts_[uid];
    }
    cycle.write(attemptKey_, std::make_unique<chaos::Attempt>(chaos::Attempt{attempt}));
    const double r = dice_.roll(uid, attempt, "prefilter");
    if (r < preFilterError_) {
      counts_.add(kPreFilterError);
      return schedhost::Status::error("chaos: injected PreFilter error");
    }
    if (r < preFilterError_ + preFilterUnschedulable_) {
      counts_.add(kPreFilterUnschedulable);
      return schedhost::Status::unschedulable("chaos: injected PreFilter rejection");
    }
    if (r < preFilterError_ + preFilterUnschedulable_ + preFilterThrow_) {
      counts_.add(kPreFilterThrow);
      throw std::runtime_error("chaos: thrown in PreFilter");
    }
    return schedhost::Status();
  }

  schedhost::Status filter(schedhost::Cycle& cycle, const sh_pod& pod, const sh_node_info& node) {
    const uint64_t attempt = attemptOf(cycle);
    if (attempt == 0) {
      return schedhost::Status();
    }
    const double r =
        dice_.roll(chaos::text(pod.uid), attempt, "filter", chaos::text(node.node->name));
    if (r < filterUnschedulable_) {
      counts_.add(kFilterUnschedulable);
      return schedhost::Status::unschedulable("chaos: injected Filter rejection");
    }
    if (r > 1 - filterSlow_) {
      counts_.add(kFilterSlow);
      std::this_thread::sleep_for(slow_);
    }
    return schedhost::Status();
  }

  schedhost::Status reserve(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view) {
    const uint64_t attempt = attemptOf(cycle);
    if (attempt == 0) {
      return schedhost::Status();
    }
    const double r = dice_.roll(chaos::text(pod.uid), attempt, "reserve");
    if (r < reserveError_) {
      counts_.add(kReserveError);
      return schedhost::Status::error("chaos: injected Reserve error");
    }
    if (r < reserveError_ + reserveThrow_) {
      counts_.add(kReserveThrow);
      throw std::runtime_error("chaos: thrown in Reserve");
    }
    return schedhost::Status();
  }
  void unreserve(schedhost::Cycle&, const sh_pod&, std::string_view) { counts_.add(kUnreserve); }

  schedhost::Status permit(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view,
                           int64_t& timeoutMs) {
    const std::string_view uid = chaos::text(pod.uid);
    const uint64_t attempt = attemptOf(cycle);
    if (attempt == 0) {
      return schedhost::Status();
    }
    const double r = dice_.roll(uid, attempt, "permit");
    if (r < permitThrow_) {
      counts_.add(kPermitThrow);
      throw std::runtime_error("chaos: thrown in Permit");
    }
    if (r > 1 - permitWait_) {
      const double how = dice_.roll(uid, attempt, "permit.how");
      const double when = dice_.roll(uid, attempt, "permit.when");
      if (how < permitTimeout_) {
        counts_.add(kPermitWaitTimeout);
        timeoutMs = 5 + static_cast<int64_t>(when * 15);
        return schedhost::Status(SH_WAIT);
      }
      const bool allow = how >= permitTimeout_ + (1 - permitTimeout_) * permitReject_;
      counts_.add(allow ? kPermitWaitAllow : kPermitWaitReject);
      timeoutMs = 10000;
      {
        std::lock_guard<std::mutex> lock(mu_);
        const auto at = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(500 + static_cast<int64_t>(when * 5000));
        pending_.emplace(at, Decision{std::string(uid), allow});
      }
      wake_.notify_one();
      return schedhost::Status(SH_WAIT);
    }
    return schedhost::Status();
  }

  void postBind(schedhost::Cycle&, const sh_pod& pod, std::string_view) {
    std::lock_guard<std::mutex> lock(mu_);
    attempts_.erase(std::string(chaos::text(pod.uid)));
  }

 private:
  struct Decision {
    std::string uid;
    bool allow = true;
  };

  // The pod's attempt; 0 (no fault) for a pod labelled fault=none.
  uint64_t attemptOf(const schedhost::Cycle& cycle) const {
    const auto* a = cycle.read<chaos::Attempt>(attemptKey_);
    return a == nullptr ? 0 : a->number;
  }

  // Allows or rejects the waiting pods when their time comes, through the host, as a gang
  // plugin would from another pod's cycle. A pod no longer waiting (deleted, or timed out) is
  // ignored by the host.
  void resolve() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      if (pending_.empty()) {
        wake_.wait(lock);
        continue;
      }
      const auto at = pending_.begin()->first;
      if (std::chrono::steady_clock::now() < at) {
        wake_.wait_until(lock, at);
        continue;
      }
      Decision d = std::move(pending_.begin()->second);
      pending_.erase(pending_.begin());
      lock.unlock();
      if (d.allow) {
        host_.allowWaitingPod(d.uid, kName);
      } else {
        host_.rejectWaitingPod(d.uid, kName, "chaos: Permit rejected after a wait");
      }
      lock.lock();
    }
  }

  schedhost::Host host_;
  chaos::Dice dice_;
  std::string statsFile_;
  std::chrono::milliseconds slow_;
  double preFilterError_, preFilterUnschedulable_, preFilterThrow_;
  double filterUnschedulable_, filterSlow_;
  double reserveError_, reserveThrow_;
  double permitThrow_, permitWait_, permitTimeout_, permitReject_;
  sh_id attemptKey_;
  chaos::Counts<kKinds> counts_{kKindNames};

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;                               // under mu_
  std::unordered_map<std::string, uint64_t> attempts_;  // under mu_: by uid, until bound
  std::multimap<std::chrono::steady_clock::time_point, Decision> pending_;  // under mu_
  std::thread resolver_;  // last: it starts once everything above is built
};

static_assert(std::is_base_of_v<schedhost::PermitPlugin, ChaosCycle>);

}  // namespace

SCHEDHOST_PLUGIN(ChaosCycle, kName, "0.0.1")

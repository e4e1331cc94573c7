#include "host/connectors/kube/leader_elector.h"

#include <algorithm>
#include <boost/json.hpp>
#include <condition_variable>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>

#include <spdlog/spdlog.h>

namespace sh::kube {
namespace {

namespace json = boost::json;

constexpr int64_t kJitterTenths = 12;  // upstream JitterFactor 1.2
// The Lease's release (both its requests), once the process is stopping.
constexpr std::chrono::milliseconds kReleaseTimeout{2000};

std::string durationText(std::chrono::milliseconds d) {
  return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + "s"
                               : std::to_string(d.count()) + "ms";
}

json::object specJson(const LeaseRecord& record) {
  json::object spec{{"holderIdentity", record.holderIdentity},
                    {"leaseDurationSeconds", record.leaseDurationSeconds},
                    {"leaseTransitions", record.leaseTransitions}};
  if (record.acquireTime) {
    spec["acquireTime"] = formatMicroTime(*record.acquireTime);
  }
  if (record.renewTime) {
    spec["renewTime"] = formatMicroTime(*record.renewTime);
  }
  return spec;
}

std::optional<TimePoint> timeField(const json::object& spec, std::string_view key) {
  const json::value* v = spec.if_contains(key);
  if (v == nullptr || !v->is_string()) {
    return std::nullopt;
  }
  return parseTime(std::string_view(v->get_string()));
}

int64_t intField(const json::object& spec, std::string_view key) {
  const json::value* v = spec.if_contains(key);
  if (v != nullptr && v->is_int64()) {
    return v->get_int64();
  }
  if (v != nullptr && v->is_uint64()) {
    return static_cast<int64_t>(v->get_uint64());
  }
  return 0;
}

// The spec of a Lease (upstream LeaseSpecToLeaderElectionRecord); nullopt when `body` is not a
// JSON object.
std::optional<LeaseRecord> parseLease(const std::string& body) {
  boost::system::error_code ec;
  json::value lease = json::parse(body, ec);
  if (ec || !lease.is_object()) {
    return std::nullopt;
  }
  LeaseRecord record;
  const json::value* spec = lease.as_object().if_contains("spec");
  if (spec == nullptr || !spec->is_object()) {
    return record;
  }
  const json::object& s = spec->as_object();
  if (const json::value* holder = s.if_contains("holderIdentity");
      holder != nullptr && holder->is_string()) {
    record.holderIdentity = std::string(holder->get_string());
  }
  record.leaseDurationSeconds = intField(s, "leaseDurationSeconds");
  record.leaseTransitions = intField(s, "leaseTransitions");
  record.acquireTime = timeField(s, "acquireTime");
  record.renewTime = timeField(s, "renewTime");
  return record;
}

std::string responseText(const Response& response) {
  if (response.status == 0) {
    return response.error;
  }
  return "HTTP " + std::to_string(response.status) +
         (response.body.empty() ? "" : ": " + response.body.substr(0, 200));
}

}  // namespace

std::string defaultLeaderIdentity() {
  std::random_device device;
  unsigned char bytes[16];
  for (unsigned char& b : bytes) {
    b = static_cast<unsigned char>(device() & 0xFF);
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  std::string uuid;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      uuid += '-';
    }
    uuid += kHex[bytes[i] >> 4];
    uuid += kHex[bytes[i] & 0x0F];
  }
  return hostname() + "_" + uuid;
}

std::string LeaderElector::validate(const Options& options) {
  if (options.leaseName.empty()) {
    return "leaseName must not be empty";
  }
  if (options.leaseNamespace.empty()) {
    return "leaseNamespace must not be empty";
  }
  if (options.identity.empty()) {
    return "identity must not be empty";
  }
  if (options.leaseDuration.count() <= 0) {
    return "leaseDuration must be greater than zero, got " + durationText(options.leaseDuration);
  }
  if (options.renewDeadline.count() <= 0) {
    return "renewDeadline must be greater than zero, got " + durationText(options.renewDeadline);
  }
  if (options.retryPeriod.count() <= 0) {
    return "retryPeriod must be greater than zero, got " + durationText(options.retryPeriod);
  }
  if (options.leaseDuration <= options.renewDeadline) {
    return "leaseDuration (" + durationText(options.leaseDuration) +
           ") must be greater than renewDeadline (" + durationText(options.renewDeadline) + ")";
  }
  if (options.renewDeadline.count() * 10 <= options.retryPeriod.count() * kJitterTenths) {
    return "renewDeadline (" + durationText(options.renewDeadline) +
           ") must be greater than 1.2 × retryPeriod (" + durationText(options.retryPeriod) + ")";
  }
  return "";
}

LeaderElector::LeaderElector(Transport& transport, Options options)
    : transport_(transport),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : systemClock()),
      random_(std::random_device{}() | 1) {
  if (std::string error = validate(options_); !error.empty()) {
    throw std::invalid_argument("leader election: " + error);
  }
}

bool LeaderElector::isLeader() const {
  std::lock_guard lock(mutex_);
  return leading_ && observed_.holderIdentity == options_.identity;
}

std::string LeaderElector::check(std::chrono::milliseconds tolerance) const {
  std::lock_guard lock(mutex_);
  if (!leading_ || observed_.holderIdentity != options_.identity) return "";
  if (clock_.now() - observedTime_ > options_.leaseDuration + tolerance) {
    return "failed election to renew leadership on lease " + options_.leaseName;
  }
  return "";
}

std::string LeaderElector::leader() const {
  std::lock_guard lock(mutex_);
  return observed_.holderIdentity;
}

bool LeaderElector::holdsObserved() const {
  std::lock_guard lock(mutex_);
  return observed_.holderIdentity == options_.identity;
}

std::string LeaderElector::leasePath() const {
  return "/apis/coordination.k8s.io/v1/namespaces/" + options_.leaseNamespace + "/leases/" +
         options_.leaseName;
}

std::string LeaderElector::describe() const {
  return options_.leaseNamespace + "/" + options_.leaseName;
}

void LeaderElector::setObserved(const LeaseRecord& record) {
  std::lock_guard lock(mutex_);
  observed_ = record;
  observedTime_ = clock_.now();
}

void LeaderElector::bound(Request& request) const {
  request.timeout = requestTimeout_;
  if (requestDeadline_ != SteadyClock::time_point::max()) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(requestDeadline_ - SteadyClock::now());
    request.timeout = std::clamp(left, std::chrono::milliseconds(1), requestTimeout_);
  }
  request.stop = requestStop_;
}

int LeaderElector::get() {
  Request request;
  request.path = leasePath();
  bound(request);
  const Response response = transport_.send(request);
  if (!response.ok()) {
    if (response.status != 404) {
      spdlog::warn("leader election: cannot read lease {}: {}", describe(), responseText(response));
    }
    return response.status;
  }
  std::optional<LeaseRecord> record = parseLease(response.body);
  if (!record) {
    spdlog::warn("leader election: lease {} from {} is not a JSON object", describe(),
                 transport_.server());
    return 0;
  }
  lease_ = response.body;
  if (!rawObserved_ || *rawObserved_ != *record) {
    setObserved(*record);
    rawObserved_ = std::move(record);
  }
  return response.status;
}

bool LeaderElector::create(const LeaseRecord& record) {
  json::object lease{{"apiVersion", "coordination.k8s.io/v1"},
                     {"kind", "Lease"},
                     {"metadata", json::object{{"name", options_.leaseName},
                                               {"namespace", options_.leaseNamespace}}},
                     {"spec", specJson(record)}};
  Request request;
  request.method = Method::kPost;
  request.path = "/apis/coordination.k8s.io/v1/namespaces/" + options_.leaseNamespace + "/leases";
  request.body = json::serialize(lease);
  bound(request);
  const Response response = transport_.send(request);
  if (!response.ok()) {
    spdlog::warn("leader election: cannot create lease {}: {}", describe(), responseText(response));
    return false;
  }
  lease_ = response.body;
  return true;
}

bool LeaderElector::update(const LeaseRecord& record) {
  boost::system::error_code ec;
  json::value lease = json::parse(lease_, ec);
  if (ec || !lease.is_object()) {
    return false;  // nothing read yet
  }
  lease.as_object()["spec"] = specJson(record);
  Request request;
  request.method = Method::kPut;
  request.path = leasePath();
  request.body = json::serialize(lease);
  bound(request);
  const Response response = transport_.send(request);
  if (!response.ok()) {
    if (response.status == 409) {
      spdlog::debug("leader election: lease {} changed meanwhile (409)", describe());
    } else {
      spdlog::warn("leader election: cannot update lease {}: {}", describe(),
                   responseText(response));
    }
    return false;
  }
  lease_ = response.body;
  return true;
}

bool LeaderElector::tryAcquireOrRenew() {
  const TimePoint now = clock_.now();
  LeaseRecord record;
  record.holderIdentity = options_.identity;
  record.leaseDurationSeconds =
      std::chrono::duration_cast<std::chrono::seconds>(options_.leaseDuration).count();
  record.acquireTime = now;
  record.renewTime = now;

  LeaseRecord observed;
  TimePoint observedTime;
  {
    std::lock_guard lock(mutex_);
    observed = observed_;
    observedTime = observedTime_;
  }
  // 1. The fast path: we hold a lease still valid; update what we last wrote.
  if (observed.holderIdentity == options_.identity &&
      observedTime + std::chrono::seconds(observed.leaseDurationSeconds) > now) {
    record.acquireTime = observed.acquireTime;
    record.leaseTransitions = observed.leaseTransitions;
    if (update(record)) {
      setObserved(record);
      return true;
    }
  }
  // 2. Read the Lease, or create it.
  const int status = get();
  if (status == 404) {
    if (!create(record)) {
      return false;
    }
    setObserved(record);
    return true;
  }
  if (status < 200 || status >= 300) {
    return false;
  }
  // 3. Held by another, and not expired on our clock since we saw it change?
  const LeaseRecord old = *rawObserved_;
  {
    std::lock_guard lock(mutex_);
    observedTime = observedTime_;
  }
  const bool ours = holdsObserved();
  const bool valid = observedTime + std::chrono::seconds(old.leaseDurationSeconds) > now;
  if (!old.holderIdentity.empty() && valid && !ours) {
    spdlog::debug("leader election: lease {} is held by {} and has not expired", describe(),
                  old.holderIdentity);
    return false;
  }
  // 4. Take it or keep it.
  if (ours) {
    record.acquireTime = old.acquireTime;
    record.leaseTransitions = old.leaseTransitions;
  } else {
    record.leaseTransitions = old.leaseTransitions + 1;
  }
  if (!update(record)) {
    return false;
  }
  setObserved(record);
  return true;
}

void LeaderElector::reportTransition(const Callbacks& callbacks) {
  std::string holder;
  {
    std::lock_guard lock(mutex_);
    if (observed_.holderIdentity == reportedLeader_) {
      return;
    }
    reportedLeader_ = observed_.holderIdentity;
    holder = reportedLeader_;
  }
  spdlog::info("leader election: the leader of {} is now {}", describe(),
               holder.empty() ? "nobody (released)" : holder);
  if (callbacks.onNewLeader) {
    callbacks.onNewLeader(holder);
  }
}

void LeaderElector::release() {
  if (!holdsObserved()) {
    return;
  }
  // The process is stopping: the run's stop token is requested by now, so the release's
  // requests go without it, each bounded on its own.
  requestStop_ = std::stop_token();
  requestTimeout_ = std::min<std::chrono::milliseconds>(options_.renewDeadline, kReleaseTimeout);
  requestDeadline_ = SteadyClock::now() + requestTimeout_;
  if (const int status = get(); status < 200 || status >= 300) {
    return;
  }
  if (!holdsObserved()) {
    return;  // taken by another meanwhile
  }
  const TimePoint now = clock_.now();
  LeaseRecord record;
  record.leaseDurationSeconds = 1;
  record.acquireTime = now;
  record.renewTime = now;
  {
    std::lock_guard lock(mutex_);
    record.leaseTransitions = observed_.leaseTransitions;
  }
  if (update(record)) {
    setObserved(record);
    spdlog::info("leader election: released the lease {}", describe());
  }
}

void LeaderElector::run(std::stop_token stop, const Callbacks& callbacks) {
  stoppedReported_.store(false);
  requestStop_ = stop;
  requestTimeout_ = options_.renewDeadline;
  requestDeadline_ = SteadyClock::time_point::max();
  // Acquire: every retryPeriod, jittered by up to 1.2 × retryPeriod.
  bool acquired = false;
  SteadyClock::time_point acquiredTry;
  while (!stop.stop_requested()) {
    acquiredTry = SteadyClock::now();
    acquired = tryAcquireOrRenew();
    reportTransition(callbacks);
    if (acquired) {
      break;
    }
    random_ ^= random_ << 13;
    random_ ^= random_ >> 7;
    random_ ^= random_ << 17;
    const double fraction = static_cast<double>(random_ >> 11) * 0x1.0p-53;
    const auto period = std::chrono::duration_cast<std::chrono::nanoseconds>(options_.retryPeriod);
    const auto jitter = std::chrono::nanoseconds(static_cast<int64_t>(
        static_cast<double>(period.count()) * fraction * kJitterTenths / 10.0));
    if (!clock_.sleepFor(period + jitter, stop)) {
      break;
    }
  }
  if (!acquired) {
    return;
  }
  {
    std::lock_guard lock(mutex_);
    leading_ = true;
  }
  spdlog::info("leader election: became leader of {} as {}", describe(), options_.identity);
  renewedAt_.store(acquiredTry.time_since_epoch().count());
  // On the system clock, a watchdog ends the leadership at the renew deadline itself, whatever
  // the renewing thread is doing (a request that does not return, a slow lookup).
  std::jthread watchdog;
  if (options_.clock == nullptr) {
    watchdog = std::jthread([this, &callbacks](std::stop_token watchStop) {
      std::mutex mutex;
      std::condition_variable_any wake;
      std::unique_lock lock(mutex);
      for (;;) {
        const SteadyClock::time_point until =
            SteadyClock::time_point(SteadyClock::duration(renewedAt_.load())) +
            options_.renewDeadline;
        wake.wait_until(lock, watchStop, until, [] { return false; });
        if (watchStop.stop_requested()) {
          return;
        }
        const SteadyClock::time_point renewed =
            SteadyClock::time_point(SteadyClock::duration(renewedAt_.load()));
        if (SteadyClock::now() >= renewed + options_.renewDeadline) {
          reportLost(callbacks);
          return;
        }
      }
    });
  }
  if (callbacks.onStartedLeading) {
    callbacks.onStartedLeading();
  }

  // Renew: every retryPeriod; tries every retryPeriod for up to renewDeadline before giving up.
  bool lost = false;
  while (!stop.stop_requested() && !lost && !stoppedReported_.load()) {
    const TimePoint start = clock_.now();
    bool renewed = false;
    while (!stop.stop_requested() && !stoppedReported_.load()) {
      // Each try within what is left of the renew deadline, as client-go's renew runs
      // tryAcquireOrRenew under context.WithTimeout(ctx, RenewDeadline).
      const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
          options_.renewDeadline - (clock_.now() - start));
      requestTimeout_ = std::max(remaining, std::chrono::milliseconds(1));
      requestDeadline_ = SteadyClock::now() + requestTimeout_;
      // The watchdog counts from the try's start, not its answer: the Lease was written no
      // earlier than that, and others wait leaseDuration (> renewDeadline) from the write.
      const SteadyClock::time_point tryStart = SteadyClock::now();
      renewed = tryAcquireOrRenew();
      reportTransition(callbacks);
      if (renewed) {
        renewedAt_.store(tryStart.time_since_epoch().count());
        break;
      }
      const auto elapsed = clock_.now() - start;
      if (elapsed >= options_.renewDeadline) {
        break;
      }
      const auto left = options_.renewDeadline - elapsed;
      if (!clock_.sleepFor(std::min<std::chrono::nanoseconds>(options_.retryPeriod, left), stop) ||
          clock_.now() - start >= options_.renewDeadline) {
        break;
      }
    }
    if (stop.stop_requested()) {
      break;
    }
    if (!renewed) {
      lost = true;
      break;
    }
    if (!clock_.sleepFor(options_.retryPeriod, stop)) {
      break;
    }
  }

  if (lost) {
    reportLost(callbacks);
    return;
  }
  if (watchdog.joinable()) {
    watchdog.request_stop();
    watchdog.join();
  }
  if (stoppedReported_.load()) {
    return;  // the watchdog found the deadline passed first
  }
  if (options_.releaseOnCancel) {
    release();
    reportTransition(callbacks);
  }
  {
    std::lock_guard lock(mutex_);
    leading_ = false;
  }
  spdlog::info("leader election: stopped leading {} as {}", describe(), options_.identity);
  if (!stoppedReported_.exchange(true) && callbacks.onStoppedLeading) {
    callbacks.onStoppedLeading();
  }
}

void LeaderElector::reportLost(const Callbacks& callbacks) {
  if (stoppedReported_.exchange(true)) {
    return;
  }
  {
    std::lock_guard lock(mutex_);
    leading_ = false;
  }
  spdlog::error("leader election: lost the lease {} as {}: could not renew it within {} ms",
                describe(), options_.identity, options_.renewDeadline.count());
  if (callbacks.onStoppedLeading) {
    callbacks.onStoppedLeading();
  }
}

}  // namespace sh::kube

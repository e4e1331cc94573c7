#include "host/connectors/kube/retry.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <random>

namespace sh::kube {
namespace {

bool waitFor(std::chrono::milliseconds duration, std::stop_token stop) {
  std::mutex mutex;
  std::condition_variable_any cv;
  std::unique_lock lock(mutex);
  cv.wait_for(lock, stop, duration, [] { return false; });
  return !stop.stop_requested();
}

double randomFraction() {
  thread_local std::minstd_rand generator{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(generator);
}

}  // namespace

std::chrono::milliseconds retryBackoff(const RetryPolicy& policy, int retry) {
  double ms = static_cast<double>(policy.initial.count());
  for (int i = 1; i < retry && ms < static_cast<double>(policy.cap.count()); ++i) {
    ms *= policy.factor;
  }
  ms = std::min(ms, static_cast<double>(policy.cap.count()));
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

Response sendWithRetry(Transport& transport, const Request& request, const RetryPolicy& policy,
                       std::stop_token stop, const RetrySleep& sleep) {
  Response response = transport.send(request);
  for (int attempt = 2; attempt <= policy.attempts && response.retryable(); ++attempt) {
    if (stop.stop_requested()) break;
    auto wait = retryBackoff(policy, attempt - 1);
    if (policy.jitter > 0) {
      wait += std::chrono::milliseconds(static_cast<long long>(static_cast<double>(wait.count()) *
                                                               policy.jitter * randomFraction()));
    }
    if (response.status == 429 && response.retryAfterSeconds > 0) {
      const std::chrono::milliseconds retryAfter = std::min<std::chrono::milliseconds>(
          std::chrono::seconds(response.retryAfterSeconds), std::max(policy.cap, wait));
      wait = std::max(wait, retryAfter);
    }
    const bool slept = sleep ? sleep(wait, stop) : waitFor(wait, stop);
    if (!slept) break;
    response = transport.send(request);
  }
  return response;
}

}  // namespace sh::kube

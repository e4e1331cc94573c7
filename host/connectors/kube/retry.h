// sendWithRetry: a request sent again while its answer says "later" — 429 Too Many Requests,
// a 5xx, or no answer at all (Response::retryable()) — with exponential backoff and jitter as
// client-go's `util/retry` `DefaultBackoff` (`wait.Backoff{Steps: 5, Duration: 10ms,
// Factor: 5.0, Jitter: 0.1}`). A 429's Retry-After is honoured when longer than the backoff
// (as rest.Request's `checkWait`). Gives up after `attempts` tries or when `stop` is
// requested, returning the last response.
#pragma once

#include <chrono>
#include <functional>
#include <stop_token>

#include "host/connectors/kube/transport.h"

namespace sh::kube {

struct RetryPolicy {
  int attempts = 5;  // tries in all, the first included
  std::chrono::milliseconds initial{10};
  double factor = 5.0;
  double jitter = 0.1;  // each wait is lengthened by up to this fraction, at random
  std::chrono::milliseconds cap{30000};
};

// Sleeps for `duration` or until `stop`; returns false when stopped.
using RetrySleep = std::function<bool(std::chrono::milliseconds duration, std::stop_token stop)>;

// The wait before try `retry` + 1 (retry = 1 for the first retry), before jitter:
// initial * factor^(retry-1), at most cap.
std::chrono::milliseconds retryBackoff(const RetryPolicy& policy, int retry);

// Empty `sleep`: a stop-aware wait on the steady clock.
Response sendWithRetry(Transport& transport, const Request& request, const RetryPolicy& policy,
                       std::stop_token stop, const RetrySleep& sleep = {});

}  // namespace sh::kube

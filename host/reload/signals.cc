#include "host/reload/signals.h"

#include <pthread.h>

#include <cerrno>
#include <ctime>

namespace sh::reload {
namespace {

sigset_t watchedSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

sigset_t SignalWatcher::blockSignals() {
  const sigset_t set = watchedSignals();
  sigset_t previous;
  sigemptyset(&previous);
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  return previous;
}

void SignalWatcher::restoreSignals(const sigset_t& previous) {
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

SignalWatcher::SignalWatcher(std::function<void()> onHangup,
                             std::function<void(int signal)> onTerminate)
    : onHangup_(std::move(onHangup)), onTerminate_(std::move(onTerminate)) {}

SignalWatcher::~SignalWatcher() { stop(); }

void SignalWatcher::start() {
  if (!thread_.joinable()) {
    thread_ = std::thread([this] { loop(); });
  }
}

void SignalWatcher::stop() {
  stopping_.store(true);
  if (thread_.joinable()) {
    thread_.join();
  }
}

void SignalWatcher::loop() {
  const sigset_t set = watchedSignals();
  // This thread must have them blocked too, or the kernel could deliver them elsewhere.
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  const timespec tick{0, 100'000'000};
  while (!stopping_.load()) {
    const int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig < 0) {
      continue;  // EAGAIN (the tick) or EINTR
    }
    if (sig == SIGHUP) {
      if (onHangup_) {
        onHangup_();
      }
    } else if (onTerminate_) {
      onTerminate_(sig);
    }
  }
}

}  // namespace sh::reload

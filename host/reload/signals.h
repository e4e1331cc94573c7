// SignalWatcher: SIGHUP (reload), SIGINT and SIGTERM (stop) taken by one ordinary thread with
// sigtimedwait, so what they trigger may lock, allocate and log — nothing runs in an
// asynchronous signal handler.
//
// blockSignals() must run on the main thread before any other thread starts: threads inherit
// the mask, and a signal blocked everywhere stays pending until the watcher takes it.
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <thread>

namespace sh::reload {

class SignalWatcher {
 public:
  // Blocks SIGHUP, SIGINT and SIGTERM on the calling thread (and the threads it starts from
  // now on); returns the mask it replaced.
  static sigset_t blockSignals();
  // Puts back a mask blockSignals() returned.
  static void restoreSignals(const sigset_t& previous);

  SignalWatcher(std::function<void()> onHangup, std::function<void(int signal)> onTerminate);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  void start();
  // Returns within about 100 ms. Idempotent.
  void stop();

 private:
  void loop();

  std::function<void()> onHangup_;
  std::function<void(int)> onTerminate_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace sh::reload

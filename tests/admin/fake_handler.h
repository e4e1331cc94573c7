// A Handler with canned answers for the admin server's tests, and a raw socket client for the
// requests a well-behaved client would never send.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "host/admin/server.h"

namespace sh::admin::testing {

class FakeHandler : public Handler {
 public:
  Probe health(std::stop_token) override {
    std::lock_guard lock(mutex_);
    return healthProbe;
  }
  Probe readiness(std::stop_token) override {
    std::lock_guard lock(mutex_);
    return readyProbe;
  }
  std::string configJson(std::stop_token) override { return R"({"parallelism":16})"; }
  std::string metricsText(std::stop_token) override {
    return "# TYPE schedhost_up gauge\nschedhost_up 1\n";
  }
  std::string statusJson(std::stop_token) override {
    std::lock_guard lock(mutex_);
    if (statusThrows) throw std::runtime_error("status exploded");
    return status;
  }
  ReloadOutcome reload(std::stop_token stop) override {
    reloadsStarted.fetch_add(1);
    {
      std::unique_lock lock(mutex_);
      if (blockReload) {
        // Waits until released or the server stops.
        cv_.wait(lock, stop, [&] { return !blockReload; });
        if (stop.stop_requested()) return {false, R"({"kind":"Reload","result":"Rejected"})"};
      }
      return reloadOutcome;
    }
  }
  void releaseReload() {
    {
      std::lock_guard lock(mutex_);
      blockReload = false;
    }
    cv_.notify_all();
  }
  void set(auto fn) {
    std::lock_guard lock(mutex_);
    fn(*this);
  }

  // Guarded by mutex_ once the server runs: change them through set().
  Probe healthProbe;
  Probe readyProbe;
  std::string status = R"({"generation":1,"ready":true})";
  bool statusThrows = false;
  bool blockReload = false;
  ReloadOutcome reloadOutcome{
      true,
      R"({"kind":"Reload","generation":2,"result":"Applied","changed":["default-scheduler"]})"};
  std::atomic<int> reloadsStarted{0};

 private:
  std::mutex mutex_;
  std::condition_variable_any cv_;
};

// A blocking socket with a receive timeout, for raw requests.
class RawSocket {
 public:
  static RawSocket tcp(uint16_t port) {
    RawSocket s(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s.connected_ = ::connect(s.fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    return s;
  }
  // From a given loopback source address (127.0.0.2, ...): another peer to the server.
  static RawSocket tcpFrom(uint16_t port, const char* source) {
    RawSocket s(::socket(AF_INET, SOCK_STREAM, 0));
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    if (::bind(s.fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) return s;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s.connected_ = ::connect(s.fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    return s;
  }
  static RawSocket local(const std::string& path) {
    RawSocket s(::socket(AF_UNIX, SOCK_STREAM, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    s.connected_ = ::connect(s.fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    return s;
  }
  RawSocket(RawSocket&& other) noexcept : fd_(other.fd_), connected_(other.connected_) {
    other.fd_ = -1;
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;
  RawSocket& operator=(RawSocket&&) = delete;
  ~RawSocket() { close(); }

  bool connected() const { return connected_; }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  bool send(const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }
  // Everything until the peer closes or `timeout` passes; `eof` tells which.
  std::string readAll(std::chrono::milliseconds timeout, bool* eof = nullptr) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string out;
    if (eof != nullptr) *eof = false;
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::microseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return out;
      timeval tv{};
      tv.tv_sec = static_cast<time_t>(left.count() / 1'000'000);
      tv.tv_usec = static_cast<suseconds_t>(left.count() % 1'000'000);
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      char buffer[4096];
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        if (eof != nullptr) *eof = true;
        return out;
      }
      if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
    }
  }

 private:
  explicit RawSocket(int fd) : fd_(fd) {}
  int fd_ = -1;
  bool connected_ = false;
};

// A fresh directory under the system's temporary directory, removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "schedhost-admin-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace sh::admin::testing

// A schedhost child process as an operator starts it: its arguments and environment, stdout and
// stderr in files, signals, and its exit. The destructor kills (SIGKILL) and reaps it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sh::kubetest {

class SchedhostProcess {
 public:
  // Starts `binary` with `args`; `env` entries ("NAME=value") are added to (or replace those
  // of) this process's environment. Output goes to `dir`/<name>.out and .err.
  SchedhostProcess(const std::string& binary, const std::vector<std::string>& args,
                   const std::filesystem::path& dir, const std::string& name,
                   const std::vector<std::string>& env = {});
  ~SchedhostProcess();
  SchedhostProcess(const SchedhostProcess&) = delete;
  SchedhostProcess& operator=(const SchedhostProcess&) = delete;

  bool started() const { return pid_ > 0 || exitStatus_.has_value(); }
  void signal(int sig) const;
  // Still running (not reaped).
  bool alive();
  // Waits for the exit: the exit code, or nullopt when it did not exit in time or died of a
  // signal.
  std::optional<int> waitExit(std::chrono::milliseconds deadline);
  std::string out() const;
  std::string err() const;

 private:
  pid_t pid_ = -1;
  std::optional<int> exitStatus_;
  std::filesystem::path out_, err_;
};

// Polls `done` every 10 ms until it holds or `deadline` passes; the last answer.
bool eventually(const std::function<bool()>& done, std::chrono::milliseconds deadline);

}  // namespace sh::kubetest

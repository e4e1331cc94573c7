#include "tests/kube/support/schedhost_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace sh::kubetest {

namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

SchedhostProcess::SchedhostProcess(const std::string& binary, const std::vector<std::string>& args,
                                   const std::filesystem::path& dir, const std::string& name,
                                   const std::vector<std::string>& env)
    : out_(dir / (name + ".out")), err_(dir / (name + ".err")) {
  std::vector<std::string> argv = {binary};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) {
    cargv.push_back(a.data());
  }
  cargv.push_back(nullptr);

  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (const std::string& mine : env) {
      replaced = replaced || mine.rfind(key, 0) == 0;
    }
    if (!replaced) {
      environment.push_back(std::move(entry));
    }
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> cenv;
  for (std::string& e : environment) {
    cenv.push_back(e.data());
  }
  cenv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawn(&pid, binary.c_str(), &actions, nullptr, cargv.data(), cenv.data()) == 0) {
    pid_ = pid;
  }
  posix_spawn_file_actions_destroy(&actions);
}

SchedhostProcess::~SchedhostProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

void SchedhostProcess::signal(int sig) const {
  if (pid_ > 0) {
    ::kill(pid_, sig);
  }
}

bool SchedhostProcess::alive() {
  if (pid_ <= 0) {
    return false;
  }
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    exitStatus_ = status;
    pid_ = -1;
    return false;
  }
  return true;
}

std::optional<int> SchedhostProcess::waitExit(std::chrono::milliseconds deadline) {
  if (!eventually([&] { return !alive(); }, deadline)) {
    return std::nullopt;
  }
  if (!exitStatus_ || !WIFEXITED(*exitStatus_)) {
    return std::nullopt;
  }
  return WEXITSTATUS(*exitStatus_);
}

std::string SchedhostProcess::out() const { return slurp(out_); }
std::string SchedhostProcess::err() const { return slurp(err_); }

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (true) {
    if (done()) {
      return true;
    }
    if (std::chrono::steady_clock::now() >= end) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace sh::kubetest

#include "host/plugin/permissions.h"

#include <unistd.h>

#include <filesystem>

namespace sh::plugin {
namespace {

void judge(const std::string& what, const struct stat& status, bool isDirectory,
           std::vector<std::string>& problems) {
  if (status.st_uid != 0 && status.st_uid != ::geteuid()) {
    problems.push_back(what + " is owned by uid " + std::to_string(status.st_uid) +
                       ", neither root nor the current user");
  }
  if (isDirectory && (status.st_mode & S_ISVTX) != 0) {
    return;
  }
  if ((status.st_mode & S_IWGRP) != 0) {
    problems.push_back(what + " is group-writable");
  }
  if ((status.st_mode & S_IWOTH) != 0) {
    problems.push_back(what + " is world-writable");
  }
}

}  // namespace

std::vector<std::string> permissionProblems(const std::string& canonicalPath,
                                            const struct stat& fileStatus) {
  std::vector<std::string> problems;
  judge("[" + canonicalPath + "]", fileStatus, false, problems);
  std::filesystem::path dir = std::filesystem::path(canonicalPath).parent_path();
  while (!dir.empty()) {
    struct stat status {};
    std::string shown = "directory [" + dir.string() + "]";
    if (::stat(dir.c_str(), &status) != 0) {
      problems.push_back(shown + " cannot be checked");
    } else {
      judge(shown, status, true, problems);
    }
    if (dir == dir.root_path()) {
      break;
    }
    dir = dir.parent_path();
  }
  return problems;
}

}  // namespace sh::plugin

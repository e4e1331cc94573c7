#include <iostream>

#include "host/cli/commands.h"

namespace sh::cli {

int runProfileCheck(const ProfileCheckArgs& args) {
  (void)args;
  std::cerr << "schedhost profile check: not wired yet\n";
  return 2;
}

}  // namespace sh::cli

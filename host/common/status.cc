#include "host/common/status.h"

namespace sh {

std::string_view codeName(sh_code code) {
  static constexpr std::string_view kNames[SH_CODE_COUNT] = {
      "Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable",
      "Wait",    "Skip",  "Pending"};
  auto i = static_cast<int>(code);
  if (i < 0 || i >= SH_CODE_COUNT) {
    return "Unknown";
  }
  return kNames[i];
}

std::string Status::message() const {
  std::string out;
  for (const std::string& r : reasons_) {
    if (!out.empty()) {
      out += ", ";
    }
    out += r;
  }
  return out;
}

void Status::wrap(std::string_view prefix) {
  std::string m(prefix);
  m += message();
  reasons_.clear();
  reasons_.push_back(std::move(m));
}

}  // namespace sh

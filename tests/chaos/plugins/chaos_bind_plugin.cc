// ChaosBind: faults in the binding cycle, for the chaos soak, drawn as ChaosCycle's are
// (fault_dice.h; the attempt number comes from ChaosCycle through the cycle state, and a pod
// without one, ChaosCycle left alone, gets no fault):
//
//   PreBind  Error, an exception, or a slow call (`slowMs`).
//   Bind     Error ("chaos: injected bind failure"); otherwise Skip, so the next Bind plugin
//            (DefaultBinder) binds. Enabled before DefaultBinder.
//
// args (probabilities per call, 0 when absent): {
//   "seed": 1, "statsFile": "/tmp/.../bind.stats", "slowMs": 3,
//   "preBindError": 0.005, "preBindThrow": 0.001, "preBindSlow": 0.002, "bindError": 0.01
// }
// On destruction it writes its counts, one "kind count" line each, to `statsFile`.
//
// Extension points: PreBind, Bind.
#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>

#include <schedhost/plugin.hpp>

#include "fault_dice.h"

namespace {

constexpr const char* kName = "ChaosBind";

enum Kind : std::size_t { kPreBindError, kPreBindThrow, kPreBindSlow, kBindError, kKinds };
constexpr std::array<const char*, kKinds> kKindNames = {"prebind.error", "prebind.throw",
                                                        "prebind.slow", "bind.error"};

class ChaosBind : public schedhost::PreBindPlugin, public schedhost::BindPlugin {
 public:
  ChaosBind(schedhost::Host& host, const schedhost::Args& args)
      : dice_(static_cast<uint64_t>(args["seed"].asInt())),
        statsFile_(args["statsFile"].asString()),
        slow_(std::chrono::milliseconds(args["slowMs"].present() ? args["slowMs"].asInt() : 3)),
        preBindError_(chaos::probability(args, "preBindError", 0)),
        preBindThrow_(chaos::probability(args, "preBindThrow", 0)),
        preBindSlow_(chaos::probability(args, "preBindSlow", 0)),
        bindError_(chaos::probability(args, "bindError", 0)),
        attemptKey_(host.intern(chaos::kAttemptKey)) {}

  ~ChaosBind() { counts_.write(statsFile_); }
  ChaosBind(const ChaosBind&) = delete;
  ChaosBind& operator=(const ChaosBind&) = delete;

  schedhost::Status preBind(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view) {
    const uint64_t attempt = attemptOf(cycle);
    if (attempt == 0) {
      return schedhost::Status();
    }
    const double r = dice_.roll(chaos::text(pod.uid), attempt, "prebind");
    if (r < preBindError_) {
      counts_.add(kPreBindError);
      return schedhost::Status::error("chaos: injected PreBind error");
    }
    if (r < preBindError_ + preBindThrow_) {
      counts_.add(kPreBindThrow);
      throw std::runtime_error("chaos: thrown in PreBind");
    }
    if (r > 1 - preBindSlow_) {
      counts_.add(kPreBindSlow);
      std::this_thread::sleep_for(slow_);
    }
    return schedhost::Status();
  }

  schedhost::Status bind(schedhost::Cycle& cycle, const sh_pod& pod, std::string_view) {
    const uint64_t attempt = attemptOf(cycle);
    if (attempt > 0 && dice_.roll(chaos::text(pod.uid), attempt, "bind") < bindError_) {
      counts_.add(kBindError);
      return schedhost::Status::error("chaos: injected bind failure");
    }
    return schedhost::Status::skip();
  }

 private:
  uint64_t attemptOf(const schedhost::Cycle& cycle) const {
    const auto* a = cycle.read<chaos::Attempt>(attemptKey_);
    return a == nullptr ? 0 : a->number;
  }

  chaos::Dice dice_;
  std::string statsFile_;
  std::chrono::milliseconds slow_;
  double preBindError_, preBindThrow_, preBindSlow_, bindError_;
  sh_id attemptKey_;
  chaos::Counts<kKinds> counts_{kKindNames};
};

static_assert(std::is_base_of_v<schedhost::BindPlugin, ChaosBind>);

}  // namespace

SCHEDHOST_PLUGIN(ChaosBind, kName, "0.0.1")

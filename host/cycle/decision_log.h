// The decision log: one JSON line per scheduling decision, for people and tools (jq)
// following a run. The lines, keys in this order:
//
//   {"kind":"Binding","pod":"ns/name","node":"n1","profile":"default-scheduler",
//    "generation":1,"attempts":1,"latencyMs":0.42}
//   {"kind":"FailedScheduling","pod":"ns/name","profile":"default-scheduler","generation":1,
//    "attempts":2,"reason":"Unschedulable","message":"0/3 nodes are available: 3 Insufficient
//    cpu."}
//   (the last attempt of a pod a batch run gives up on ends in ,"final":true})
//   {"kind":"Reload","generation":2,"result":"Applied","changed":["default-scheduler/ImageLocality"]}
//   {"kind":"Reload","generation":2,"result":"Rejected","changed":[],"error":"..."}
//   {"kind":"Event","type":"Normal","reason":"Scheduled","action":"Binding","pod":"ns/name",
//    "message":"Successfully assigned ns/name to n1"}
//   {"kind":"Summary","scheduled":N,"unschedulable":N,"failed":N,"pending":N,
//    "preemptions":N,"preemptionVictims":N,"podsPerSecond":X,"elapsedSeconds":X,
//    "attemptLatencyMs":{"p50":X,"p99":X,"max":X}}
//
// Numbers are written in plain decimal (0.42, not 4.2E-1), rounded to 3 decimals.
// Thread-safe: lines from several threads never interleave. Each line is flushed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "host/connectors/connector.h"
#include "host/cycle/latency_stats.h"

namespace sh::cycle {

struct BindingDecision {
  std::string pod;  // namespace/name
  std::string node;
  std::string profile;
  uint64_t generation = 0;  // the profile generation whose framework decided
  int attempts = 1;
  double latencyMs = 0;
};

struct FailureDecision {
  std::string pod;  // namespace/name
  std::string profile;
  uint64_t generation = 0;
  int attempts = 1;
  std::string reason;  // "Unschedulable" or "SchedulerError"
  std::string message;
  bool final = false;  // a batch run gives up on the pod (written only when true)
};

// A reload of the profiles (docs/operations.md). `generation` is the new generation when
// applied, the one still running when rejected.
struct ReloadDecision {
  uint64_t generation = 0;
  bool applied = false;
  std::vector<std::string> changed;  // profiles and profile/Plugin names that differ
  std::string error;                 // when rejected: every diagnostic, one per line
};
// The Reload line (also the body of the admin endpoint's POST /reload answer).
std::string reloadLine(const ReloadDecision& decision);

// Every pod the run was responsible for counts in one of scheduled, unschedulable, failed and
// pending.
struct RunSummary {
  std::size_t scheduled = 0;          // bound
  std::size_t unschedulable = 0;      // tried and rejected (or backing off after an error)
  std::size_t failed = 0;             // given up after an error (a batch run)
  std::size_t pending = 0;            // not tried yet, or held back by a PreEnqueue plugin
  std::size_t preemptions = 0;        // preemptions carried out
  std::size_t preemptionVictims = 0;  // pods they evicted
  double elapsedSeconds = 0;
  LatencySummary attemptLatency;  // LatencyStats::summary()

  // scheduled / elapsedSeconds; 0 when no time passed.
  double podsPerSecond() const;
};

class DecisionLog final : public connectors::EventSink {
 public:
  // `out` must outlive the log.
  explicit DecisionLog(std::ostream& out);

  void binding(const BindingDecision& decision);
  void failedScheduling(const FailureDecision& decision);
  void reload(const ReloadDecision& decision);
  void event(const connectors::EventRecord& event) override;
  void summary(const RunSummary& summary);

 private:
  void write(const std::string& line);

  std::mutex mu_;
  std::ostream& out_;
};

// The summary for people, two lines:
//   scheduled 95, unschedulable 3, failed 1, pending 2 in 1.25 s (76 pods/s)
//   attempt latency: p50 0.42 ms, p99 3.1 ms, max 12 ms over 101 attempts
std::string summaryText(const RunSummary& summary);

}  // namespace sh::cycle

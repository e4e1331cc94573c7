#include "host/cycle/decision_log.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string_view>

#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace sh::cycle {

namespace {

// Rounded to 3 decimals and written in shortest plain form ("0.42", "12", "0.001").
std::string number(double x) {
  if (!std::isfinite(x)) {
    return "0";
  }
  x = std::round(x * 1000.0) / 1000.0;
  if (x == 0) {
    return "0";  // no "-0"
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed);
  if (ec != std::errc()) {
    return "0";
  }
  return std::string(buf, end);
}

// `value` as a JSON string, exactly as boost::json::serialize writes it. Most values (pod
// keys, node and profile names) need no escape and are copied as they are; the others go
// through Boost's serializer.
void appendString(std::string& out, std::string_view value) {
  const bool plain = std::all_of(value.begin(), value.end(), [](char c) {
    return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  });
  if (plain) {
    out += '"';
    out += value;
    out += '"';
  } else {
    out += boost::json::serialize(boost::json::string(value));
  }
}

// A JSON object written member by member, keys in the order given.
class Line {
 public:
  Line() { text_.reserve(256); }
  Line& str(std::string_view key, std::string_view value) {
    open(key);
    appendString(text_, value);
    return *this;
  }
  Line& num(std::string_view key, double value) {
    open(key);
    text_ += number(value);
    return *this;
  }
  Line& boolean(std::string_view key, bool value) {
    open(key);
    text_ += value ? "true" : "false";
    return *this;
  }
  Line& count(std::string_view key, std::size_t value) {
    open(key);
    text_ += std::to_string(value);
    return *this;
  }
  Line& strings(std::string_view key, const std::vector<std::string>& values) {
    open(key);
    text_ += "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
      text_ += i == 0 ? "" : ",";
      appendString(text_, values[i]);
    }
    text_ += "]";
    return *this;
  }
  Line& object(std::string_view key, const Line& inner) {
    open(key);
    text_ += inner.done();
    return *this;
  }
  std::string done() const { return text_ + "}"; }

 private:
  void open(std::string_view key) {
    text_ += text_.size() == 1 ? "" : ",";
    appendString(text_, key);
    text_ += ":";
  }
  std::string text_ = "{";
};

std::size_t nonNegative(int n) { return n < 0 ? 0 : static_cast<std::size_t>(n); }

}  // namespace

double RunSummary::podsPerSecond() const {
  return elapsedSeconds > 0 ? static_cast<double>(scheduled) / elapsedSeconds : 0;
}

DecisionLog::DecisionLog(std::ostream& out) : out_(out) {}

void DecisionLog::binding(const BindingDecision& d) {
  write(Line()
            .str("kind", "Binding")
            .str("pod", d.pod)
            .str("node", d.node)
            .str("profile", d.profile)
            .count("generation", d.generation)
            .count("attempts", nonNegative(d.attempts))
            .num("latencyMs", d.latencyMs)
            .done());
}

void DecisionLog::failedScheduling(const FailureDecision& d) {
  Line line;
  line.str("kind", "FailedScheduling")
      .str("pod", d.pod)
      .str("profile", d.profile)
      .count("generation", d.generation)
      .count("attempts", nonNegative(d.attempts))
      .str("reason", d.reason)
      .str("message", d.message);
  if (d.final) {
    line.boolean("final", true);
  }
  write(line.done());
}

std::string reloadLine(const ReloadDecision& d) {
  Line line;
  line.str("kind", "Reload")
      .count("generation", d.generation)
      .str("result", d.applied ? "Applied" : "Rejected")
      .strings("changed", d.changed);
  if (!d.applied) {
    line.str("error", d.error);
  }
  return line.done();
}

void DecisionLog::reload(const ReloadDecision& d) { write(reloadLine(d)); }

void DecisionLog::event(const connectors::EventRecord& e) {
  write(Line()
            .str("kind", "Event")
            .str("type", e.type)
            .str("reason", e.reason)
            .str("action", e.action)
            .str("pod", e.podKey)
            .str("message", e.message)
            .done());
}

void DecisionLog::summary(const RunSummary& s) {
  Line latency;
  latency.num("p50", s.attemptLatency.p50)
      .num("p99", s.attemptLatency.p99)
      .num("max", s.attemptLatency.max);
  write(Line()
            .str("kind", "Summary")
            .count("scheduled", s.scheduled)
            .count("unschedulable", s.unschedulable)
            .count("failed", s.failed)
            .count("pending", s.pending)
            .count("preemptions", s.preemptions)
            .count("preemptionVictims", s.preemptionVictims)
            .num("podsPerSecond", s.podsPerSecond())
            .num("elapsedSeconds", s.elapsedSeconds)
            .object("attemptLatencyMs", latency)
            .done());
}

void DecisionLog::write(const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  out_.write(line.data(), static_cast<std::streamsize>(line.size()));
  out_.put('\n');
  out_.flush();
}

std::string summaryText(const RunSummary& s) {
  std::string out = "scheduled " + std::to_string(s.scheduled) + ", unschedulable " +
                    std::to_string(s.unschedulable) + ", failed " + std::to_string(s.failed) +
                    ", pending " + std::to_string(s.pending) + " in " + number(s.elapsedSeconds) +
                    " s (" + number(s.podsPerSecond()) + " pods/s)\n";
  if (s.preemptions > 0) {
    out += "preempted " + std::to_string(s.preemptionVictims) + " pod(s) in " +
           std::to_string(s.preemptions) + " preemption(s)\n";
  }
  const LatencySummary& l = s.attemptLatency;
  out += "attempt latency: p50 " + number(l.p50) + " ms, p99 " + number(l.p99) + " ms, max " +
         number(l.max) + " ms over " + std::to_string(l.count) + " attempts\n";
  return out;
}

}  // namespace sh::cycle

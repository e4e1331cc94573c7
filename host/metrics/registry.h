// Registry: the families of one process and the collectors computed at scrape time, rendered
// in the Prometheus text exposition format 0.0.4 (upstream prometheus/common expfmt:
// MetricFamilyToText).
//
//   # HELP <name> <help, with \ and newline escaped>
//   # TYPE <name> <counter|gauge|histogram>
//   <name>{<label>="<value, with \ " and newline escaped>",...} <value>
//
// Families are sorted by name and samples by label values; a histogram's child is its
// cumulative _bucket lines (le ascending, then le="+Inf"), _sum and _count. Numbers are
// written as upstream's Go client writes them: the shortest string that reads back as the same
// double, in Go's %g layout (0.001, 1.5e-05, 1e+06, +Inf).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "host/metrics/metric.h"

namespace sh::metrics {

// The number as upstream's Go client writes it (expfmt writeFloat).
std::string formatValue(double v);
// A label value inside its quotes: \ " and newline escaped.
std::string escapeLabelValue(std::string_view v);
// A HELP text: \ and newline escaped.
std::string escapeHelp(std::string_view v);

// Renders families (in the order given) in the text format.
std::string renderText(const std::vector<FamilySnapshot>& families);

// Adds families computed at scrape time: gauges or counters whose values live elsewhere.
using Collector = std::function<void(std::vector<FamilySnapshot>&)>;

class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Creates a family owned by the registry. Throws std::invalid_argument on a name already
  // taken or an invalid name.
  CounterFamily& counter(std::string name, std::string help,
                         std::vector<std::string> labelNames = {});
  // A counter family for increments from many threads at once (ShardedCounter).
  ShardedCounterFamily& shardedCounter(std::string name, std::string help,
                                       std::vector<std::string> labelNames = {});
  GaugeFamily& gauge(std::string name, std::string help, std::vector<std::string> labelNames = {});
  HistogramFamily& histogram(std::string name, std::string help,
                             std::vector<std::string> labelNames, std::vector<double> bounds);

  // Runs at every scrape, after the registry's own families are read. A collector's family
  // whose name a registered family already has is dropped.
  void addCollector(Collector fn);

  // Every family, sorted by name; labelled families without children are left out.
  std::vector<FamilySnapshot> gather() const;
  // gather() in the text format.
  std::string render() const;

  // The text format's content type.
  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  template <typename F, typename... Args>
  F& add(Args&&... args);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Family>> families_;
  std::vector<Collector> collectors_;
};

}  // namespace sh::metrics

#include "host/metrics/metric.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace sh::metrics {

std::string_view typeWord(MetricType type) {
  switch (type) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
  }
  return "untyped";
}

std::vector<double> exponentialBuckets(double start, double factor, std::size_t count) {
  if (count < 1 || start <= 0 || factor <= 1) {
    throw std::invalid_argument("exponentialBuckets needs count >= 1, start > 0 and factor > 1");
  }
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = start;
    start *= factor;
  }
  return out;
}

thread_local constinit int ShardedCounter::threadShard_ = -1;

int ShardedCounter::nextShard() {
  // Never reused: a shard below the last is written by its thread only, for good.
  static std::atomic<unsigned> next{0};
  const unsigned n = next.fetch_add(1, std::memory_order_relaxed);
  return static_cast<int>(std::min<unsigned>(n, kShards - 1));
}

uint64_t ShardedCounter::value() const {
  uint64_t sum = 0;
  for (const Shard& s : shards_) {
    sum += s.value.load(std::memory_order_relaxed);
  }
  return sum;
}

void Gauge::add(double delta) {
  double cur = value_.load(std::memory_order_relaxed);
  while (!value_.compare_exchange_weak(cur, cur + delta, std::memory_order_relaxed)) {
  }
}

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1])) {
      throw std::invalid_argument("histogram bounds must be finite and strictly increasing");
    }
  }
  buckets_ = std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1);
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    buckets_[i].store(0, std::memory_order_relaxed);
  }
}

void Histogram::observe(double v) {
  // The first bound >= v; past the end is the +Inf bucket (NaN lands there too).
  const std::size_t i = static_cast<std::size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  double cur = sum_.load(std::memory_order_relaxed);
  while (!sum_.compare_exchange_weak(cur, cur + v, std::memory_order_relaxed)) {
  }
}

std::vector<uint64_t> Histogram::bucketCounts() const {
  std::vector<uint64_t> out(bounds_.size() + 1);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = buckets_[i].load(std::memory_order_relaxed);
  }
  return out;
}

uint64_t Histogram::count() const {
  uint64_t n = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    n += buckets_[i].load(std::memory_order_relaxed);
  }
  return n;
}

namespace {

bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool validMetricName(std::string_view name) {
  if (name.empty()) {
    return false;
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(isAlpha(c) || c == '_' || c == ':' || (i > 0 && isDigit(c)))) {
      return false;
    }
  }
  return true;
}

bool validLabelName(std::string_view name) {
  if (name.empty() || name.substr(0, 2) == "__") {
    return false;
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(isAlpha(c) || c == '_' || (i > 0 && isDigit(c)))) {
      return false;
    }
  }
  return true;
}

template <typename T>
LabelledFamily<T>::LabelledFamily(FamilyDesc desc, std::vector<double> bounds)
    : Family(std::move(desc)), bounds_(std::move(bounds)) {
  if (!validMetricName(this->desc().name)) {
    throw std::invalid_argument("invalid metric name \"" + this->desc().name + "\"");
  }
  for (const std::string& l : this->desc().labelNames) {
    if (!validLabelName(l) || l == "le") {
      throw std::invalid_argument("invalid label name \"" + l + "\" in " + this->desc().name);
    }
  }
  if (this->desc().labelNames.empty()) {
    only_ = &with(Values{});
  }
}

template <typename T>
std::unique_ptr<T> LabelledFamily<T>::makeChild() const {
  if constexpr (std::is_same_v<T, Histogram>) {
    return std::make_unique<Histogram>(bounds_);
  } else {
    return std::make_unique<T>();
  }
}

template <typename T>
T& LabelledFamily<T>::with(const Values& labelValues) {
  if (labelValues.size() != desc().labelNames.size()) {
    throw std::invalid_argument(desc().name + " takes " + std::to_string(desc().labelNames.size()) +
                                " label values, not " + std::to_string(labelValues.size()));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = children_.find(labelValues);
  if (it == children_.end()) {
    it = children_.emplace(labelValues, makeChild()).first;
  }
  return *it->second;
}

template <typename T>
FamilySnapshot LabelledFamily<T>::snapshot() const {
  FamilySnapshot out;
  out.desc = desc();
  out.bounds = bounds_;
  std::lock_guard<std::mutex> lock(mu_);
  out.children.reserve(children_.size());
  for (const auto& [values, child] : children_) {
    ChildSnapshot c;
    c.labelValues = values;
    if constexpr (std::is_same_v<T, Histogram>) {
      std::vector<uint64_t> counts = child->bucketCounts();
      uint64_t running = 0;
      c.cumulative.reserve(counts.size());
      for (uint64_t n : counts) {
        running += n;
        c.cumulative.push_back(running);
      }
      c.sum = child->sum();
    } else {
      c.value = static_cast<double>(child->value());
    }
    out.children.push_back(std::move(c));
  }
  return out;
}

template class LabelledFamily<Counter>;
template class LabelledFamily<ShardedCounter>;
template class LabelledFamily<Gauge>;
template class LabelledFamily<Histogram>;

}  // namespace sh::metrics

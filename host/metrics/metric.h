// Prometheus primitives: Counter, Gauge, Histogram, and their labelled families.
//
// Recording (inc, set, observe) is lock-free with relaxed atomics: no lock, no allocation, no
// map lookup. A family resolves a child by label values under a mutex the first time and hands
// back a reference that stays valid for the family's life, so a hot path resolves its handle
// once and keeps it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace sh::metrics {

enum class MetricType { kCounter, kGauge, kHistogram };

// "counter", "gauge", "histogram": the word after `# TYPE name`.
std::string_view typeWord(MetricType type);

// `count` upper bounds start, start*factor, start*factor^2, ... (upstream client_golang:
// prometheus.ExponentialBuckets). Throws std::invalid_argument when count < 1, start <= 0 or
// factor <= 1.
std::vector<double> exponentialBuckets(double start, double factor, std::size_t count);

// A monotonically increasing integer count.
class Counter {
 public:
  void inc(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A counter incremented from many threads at once on a hot path (a Filter plugin's calls, one
// per node): the first kShards - 1 threads that increment any ShardedCounter each own a cache
// line of every one of them and add to it with a plain load and store (only the owner writes
// it; no locked instruction, no contention); later threads share the last line with atomic
// adds. value() sums the lines. Same exposition as Counter.
class ShardedCounter {
 public:
  static constexpr std::size_t kShards = 32;
  void inc(uint64_t n = 1) {
    const std::size_t s = shardIndex();
    std::atomic<uint64_t>& v = shards_[s].value;
    if (s + 1 < kShards) [[likely]] {
      v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
    } else {
      v.fetch_add(n, std::memory_order_relaxed);
    }
  }
  uint64_t value() const;

 private:
  struct alignas(64) Shard {
    std::atomic<uint64_t> value{0};
  };
  // The calling thread's shard.
  static std::size_t shardIndex() {
    if (threadShard_ < 0) [[unlikely]] {
      threadShard_ = nextShard();
    }
    return static_cast<std::size_t>(threadShard_);
  }
  static int nextShard();
  static thread_local constinit int threadShard_;
  Shard shards_[kShards];
};

// A value that goes up and down.
class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double delta);
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// Observations counted in buckets with fixed upper bounds (an observation v falls in the first
// bucket whose bound is >= v, as upstream's histogram), plus their sum. The count is the sum of
// the buckets, so a snapshot's +Inf bucket always equals its _count.
class Histogram {
 public:
  // `bounds`: strictly increasing, finite; the +Inf bucket is implicit. Throws
  // std::invalid_argument otherwise.
  explicit Histogram(std::vector<double> bounds);

  void observe(double v);

  const std::vector<double>& bounds() const { return bounds_; }
  // Per-bucket (not cumulative) counts, bounds().size() + 1 of them, the last one +Inf's.
  std::vector<uint64_t> bucketCounts() const;
  uint64_t count() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<double> sum_{0.0};
};

// Checks names: metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*
// and not starting with "__".
bool validMetricName(std::string_view name);
bool validLabelName(std::string_view name);

// What a family is, apart from its children.
struct FamilyDesc {
  std::string name;
  std::string help;
  MetricType type = MetricType::kCounter;
  std::vector<std::string> labelNames;
};

// One child at the moment of a scrape.
struct ChildSnapshot {
  std::vector<std::string> labelValues;
  double value = 0;                  // counter, gauge
  std::vector<uint64_t> cumulative;  // histogram: one per bound, then +Inf
  double sum = 0;                    // histogram
};

// A family at the moment of a scrape: what the registry renders.
struct FamilySnapshot {
  FamilyDesc desc;
  std::vector<double> bounds;  // histogram
  std::vector<ChildSnapshot> children;
};

// A family as the registry keeps it.
class Family {
 public:
  explicit Family(FamilyDesc desc) : desc_(std::move(desc)) {}
  virtual ~Family() = default;
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;

  const FamilyDesc& desc() const { return desc_; }
  virtual FamilySnapshot snapshot() const = 0;

 private:
  FamilyDesc desc_;
};

// Children keyed by label values. with() creates a child the first time (under the mutex) and
// returns a reference stable for the family's life. A family without labels has its one child
// from the start, so it is always exposed; a labelled family shows only the children created.
template <typename T>
class LabelledFamily : public Family {
 public:
  using Values = std::vector<std::string>;

  T& with(std::initializer_list<std::string_view> labelValues) {
    return with(Values(labelValues.begin(), labelValues.end()));
  }
  // Throws std::invalid_argument when the number of values is not the number of label names.
  T& with(const Values& labelValues);
  // The child without labels.
  T& only() { return *only_; }

  FamilySnapshot snapshot() const override;

 protected:
  LabelledFamily(FamilyDesc desc, std::vector<double> bounds);

 private:
  std::unique_ptr<T> makeChild() const;
  std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::map<Values, std::unique_ptr<T>> children_;
  T* only_ = nullptr;
};

class CounterFamily : public LabelledFamily<Counter> {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> labelNames)
      : LabelledFamily(
            {std::move(name), std::move(help), MetricType::kCounter, std::move(labelNames)}, {}) {}
};

class ShardedCounterFamily : public LabelledFamily<ShardedCounter> {
 public:
  ShardedCounterFamily(std::string name, std::string help, std::vector<std::string> labelNames)
      : LabelledFamily(
            {std::move(name), std::move(help), MetricType::kCounter, std::move(labelNames)}, {}) {}
};

class GaugeFamily : public LabelledFamily<Gauge> {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> labelNames)
      : LabelledFamily(
            {std::move(name), std::move(help), MetricType::kGauge, std::move(labelNames)}, {}) {}
};

class HistogramFamily : public LabelledFamily<Histogram> {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> labelNames,
                  std::vector<double> bounds)
      : LabelledFamily(
            {std::move(name), std::move(help), MetricType::kHistogram, std::move(labelNames)},
            std::move(bounds)) {}
};

extern template class LabelledFamily<Counter>;
extern template class LabelledFamily<ShardedCounter>;
extern template class LabelledFamily<Gauge>;
extern template class LabelledFamily<Histogram>;

}  // namespace sh::metrics

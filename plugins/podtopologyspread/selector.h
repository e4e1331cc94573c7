// Selector: a labels.Selector owned by the plugin, the AND of copied label selectors and extra
// key=value pairs (matchLabelKeys). `nothing` is labels.Nothing() (a constraint without
// labelSelector).
#ifndef SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_SELECTOR_H
#define SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_SELECTOR_H

#include <schedhost/helpers.hpp>
#include <schedhost/plugin.hpp>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace schedhost::plugins::podtopologyspread {

// Appends `v` to a binary cache key.
inline void appendKey(std::string& key, uint64_t v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Move-only: the requirements point into `values_`, whose buffers stay put on a move.
class Selector {
 public:
  Selector() = default;
  Selector(Selector&&) = default;
  Selector& operator=(Selector&&) = default;
  Selector(const Selector&) = delete;
  Selector& operator=(const Selector&) = delete;

  static Selector nothingSelector() {
    Selector s;
    s.nothing_ = true;
    return s;
  }

  // ANDs `sel` in. Returns false when a requirement would not parse
  // (metav1.LabelSelectorAsSelector fails).
  bool add(const sh_label_selector& sel) {
    for (uint32_t i = 0; i < sel.match_label_count; ++i) {
      labels_.push_back(sel.match_labels[i]);
    }
    bool ok = true;
    for (uint32_t i = 0; i < sel.match_expression_count; ++i) {
      sh_requirement r = sel.match_expressions[i];
      ok = ok && r.op != SH_OP_GT && r.op != SH_OP_LT && requirementValid(r);
      values_.emplace_back(r.values, r.values + r.value_count);
      r.values = values_.back().data();
      reqs_.push_back(r);
    }
    return ok;
  }
  void addLabel(const sh_label& label) { labels_.push_back(label); }

  bool isNothing() const noexcept { return nothing_; }
  // labels.Selector.Empty(): no requirement at all (Nothing is not empty).
  bool empty() const noexcept { return !nothing_ && labels_.empty() && reqs_.empty(); }

  bool matches(const sh_label* labels, uint32_t count) const noexcept {
    if (nothing_) {
      return false;
    }
    for (const sh_label& want : labels_) {
      const sh_label* have = findLabel(labels, count, want.key);
      if (have == nullptr || !sameId(have->value, want.value)) {
        return false;
      }
    }
    for (const sh_requirement& r : reqs_) {
      if (r.op == SH_OP_GT || r.op == SH_OP_LT || !requirementValid(r) ||
          !matchRequirement(r, labels, count)) {
        return false;
      }
    }
    return true;
  }
  bool matches(const sh_pod& pod) const noexcept { return matches(pod.labels, pod.label_count); }

  // Appends what decides matches(): two selectors with the same key match the same pods.
  void appendKeyTo(std::string& key) const {
    appendKey(key, nothing_ ? 1 : 0);
    appendKey(key, labels_.size());
    for (const sh_label& l : labels_) {
      appendKey(key, (static_cast<uint64_t>(l.key) << 32) | canonicalId(l.value));
    }
    appendKey(key, reqs_.size());
    for (const sh_requirement& r : reqs_) {
      appendKey(key, (static_cast<uint64_t>(r.key) << 32) | static_cast<uint32_t>(r.op));
      appendKey(key, (static_cast<uint64_t>(r.value_count) << 1) | (r.number_ok != 0 ? 1 : 0));
      appendKey(key, static_cast<uint64_t>(r.number));
      for (uint32_t i = 0; i < r.value_count; ++i) {
        appendKey(key, canonicalId(r.values[i]));
      }
    }
  }

 private:
  bool nothing_ = false;
  std::vector<sh_label> labels_;
  std::vector<sh_requirement> reqs_;
  std::deque<std::vector<sh_id>> values_;
};

}  // namespace schedhost::plugins::podtopologyspread

#endif  // SCHEDHOST_PLUGINS_PODTOPOLOGYSPREAD_SELECTOR_H

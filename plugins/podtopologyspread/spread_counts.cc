// Matching pods per topology domain, kept across cycles. Upstream: podtopologyspread/common.go
// (countPodsMatchSelector) and filtering.go (calPreFilterState), whose sums these are.
#include "spread_counts.h"

namespace schedhost::plugins::podtopologyspread {

CriticalPaths criticalPathsOf(const DomainMap& domains) {
  CriticalPaths paths;
  domains.forEach([&paths](uint64_t value, const Domain& d) {
    if (d.nodes > 0) {
      paths.update(static_cast<sh_id>(value), d.count);
    }
  });
  return paths;
}

int64_t countMatching(const sh_node_info& ni, const Selector& selector, std::string_view ns) {
  if (selector.empty()) {
    return 0;
  }
  int64_t count = 0;
  for (uint32_t i = 0; i < ni.pod_count; ++i) {
    const sh_pod& p = *ni.pods[i];
    if (p.deleting != 0 || view(p.namespace_) != ns) {
      continue;
    }
    if (selector.matches(p)) {
      ++count;
    }
  }
  return count;
}

std::string CountQuery::key() const {
  std::string key;
  key.reserve(128);
  selector->appendKeyTo(key);
  appendKey(key, ns.size());
  key.append(ns);
  appendKey(key, topologyKey);
  appendKey(key, requiredKeys->size());
  for (sh_id k : *requiredKeys) {
    appendKey(key, k);
  }
  return key;
}

namespace {

bool hasAllKeys(const sh_node& node, const std::vector<sh_id>& keys) noexcept {
  for (sh_id k : keys) {
    if (findLabel(node, k) == nullptr) {
      return false;
    }
  }
  return true;
}

}  // namespace

void MatchCounter::sync(const NodeScan& scan, const CountQuery& query) {
  nodes_.sync(
      scan, [this](const NodeCount& gone) { add(gone, -1); },
      [&](std::size_t i, NodeCount& fresh) {
        const sh_node_info& ni = scan.at(i);
        if (ni.node == nullptr || !hasAllKeys(*ni.node, *query.requiredKeys)) {
          return;  // not eligible: counts nowhere
        }
        fresh.eligible = true;
        const sh_label* label = findLabel(*ni.node, query.topologyKey);
        fresh.domain = label == nullptr ? SH_ID_NONE : canonicalId(label->value);
        fresh.count = countMatching(ni, *query.selector, query.ns);
        add(fresh, 1);
      });
  // Domains whose last node left stay as entries; drop them once they are the majority, so
  // that node churn does not grow the map for ever.
  if (domains_->size() > 2 * existing_ + 64) {
    auto live = std::make_shared<DomainMap>();
    domains_->forEach([&live](uint64_t value, const Domain& d) {
      if (d.nodes > 0) {
        (*live)[value] = d;
      }
    });
    domains_ = std::move(live);
    pathsStale_ = true;
  }
}

const CriticalPaths& MatchCounter::paths() {
  if (pathsStale_) {
    paths_ = criticalPathsOf(*domains_);
    pathsStale_ = false;
  }
  return paths_;
}

// Written in place only while this counter is its sole owner: no cycle state holds it any
// more, and all reads through the ones that did belonged to cycles that ended before this one.
DomainMap& MatchCounter::writableDomains() {
  if (domains_.use_count() > 1) {
    domains_ = std::make_shared<DomainMap>(*domains_);  // a cycle state still holds the old one
  }
  pathsStale_ = true;
  return *domains_;
}

void MatchCounter::add(const NodeCount& n, int64_t sign) {
  if (!n.eligible) {
    return;
  }
  Domain& d = writableDomains()[n.domain];
  if (d.nodes == 0) {
    ++existing_;
  }
  d.nodes += sign;
  d.count += sign * n.count;
  if (d.nodes == 0) {
    --existing_;
  }
}

MatchCounter& syncedCounter(SpreadCounts& counts, const CountQuery& query) {
  MatchCounter& counter = counts.counter(query.key(), [] { return MatchCounter(); });
  counter.sync(counts.lastScan(), query);
  return counter;
}

}  // namespace schedhost::plugins::podtopologyspread

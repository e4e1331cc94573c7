#include "host/metrics/registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <stdexcept>

namespace sh::metrics {

std::string formatValue(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  if (v == 0) {
    return "0";
  }
  // Go's strconv.FormatFloat(v, 'g', -1, 64): the shortest digits that round-trip, written
  // as %e when the decimal exponent is < -4 or >= 6 (Go strconv/ftoa.go: the shortest form
  // decides with precision 6), else as a plain decimal.
  char buf[64];
  auto sci = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view s(buf, static_cast<std::size_t>(sci.ptr - buf));
  const std::size_t e = s.find('e');
  const int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  if (exp < -4 || exp >= 6) {
    return std::string(s);  // d.ddde±XX, as Go writes it (at least two exponent digits)
  }
  auto fixed = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, fixed.ptr);
}

std::string escapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escapeHelp(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

void writeLabels(std::string& out, const FamilyDesc& desc, const ChildSnapshot& child,
                 const std::string* le) {
  if (desc.labelNames.empty() && le == nullptr) {
    return;
  }
  out += '{';
  bool first = true;
  for (std::size_t i = 0; i < desc.labelNames.size(); ++i) {
    if (!first) {
      out += ',';
    }
    first = false;
    out += desc.labelNames[i];
    out += "=\"";
    out += escapeLabelValue(child.labelValues[i]);
    out += '"';
  }
  if (le != nullptr) {
    if (!first) {
      out += ',';
    }
    out += "le=\"";
    out += *le;
    out += '"';
  }
  out += '}';
}

void writeSample(std::string& out, const FamilyDesc& desc, std::string_view suffix,
                 const ChildSnapshot& child, const std::string* le, const std::string& value) {
  out += desc.name;
  out += suffix;
  writeLabels(out, desc, child, le);
  out += ' ';
  out += value;
  out += '\n';
}

}  // namespace

std::string renderText(const std::vector<FamilySnapshot>& families) {
  std::string out;
  for (const FamilySnapshot& f : families) {
    const FamilyDesc& d = f.desc;
    out += "# HELP " + d.name + " " + escapeHelp(d.help) + "\n";
    out += "# TYPE " + d.name + " " + std::string(typeWord(d.type)) + "\n";
    std::vector<const ChildSnapshot*> children;
    children.reserve(f.children.size());
    for (const ChildSnapshot& c : f.children) {
      children.push_back(&c);
    }
    std::stable_sort(children.begin(), children.end(),
                     [](const ChildSnapshot* a, const ChildSnapshot* b) {
                       return a->labelValues < b->labelValues;
                     });
    for (const ChildSnapshot* c : children) {
      if (d.type != MetricType::kHistogram) {
        writeSample(out, d, "", *c, nullptr, formatValue(c->value));
        continue;
      }
      uint64_t count = c->cumulative.empty() ? 0 : c->cumulative.back();
      for (std::size_t i = 0; i < f.bounds.size() && i < c->cumulative.size(); ++i) {
        std::string le = formatValue(f.bounds[i]);
        writeSample(out, d, "_bucket", *c, &le, std::to_string(c->cumulative[i]));
      }
      std::string inf = "+Inf";
      writeSample(out, d, "_bucket", *c, &inf, std::to_string(count));
      writeSample(out, d, "_sum", *c, nullptr, formatValue(c->sum));
      writeSample(out, d, "_count", *c, nullptr, std::to_string(count));
    }
  }
  return out;
}

template <typename F, typename... Args>
F& Registry::add(Args&&... args) {
  auto family = std::make_unique<F>(std::forward<Args>(args)...);
  F& ref = *family;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& f : families_) {
    if (f->desc().name == ref.desc().name) {
      throw std::invalid_argument("metric \"" + ref.desc().name + "\" is already registered");
    }
  }
  families_.push_back(std::move(family));
  return ref;
}

CounterFamily& Registry::counter(std::string name, std::string help,
                                 std::vector<std::string> labelNames) {
  return add<CounterFamily>(std::move(name), std::move(help), std::move(labelNames));
}

ShardedCounterFamily& Registry::shardedCounter(std::string name, std::string help,
                                               std::vector<std::string> labelNames) {
  return add<ShardedCounterFamily>(std::move(name), std::move(help), std::move(labelNames));
}

GaugeFamily& Registry::gauge(std::string name, std::string help,
                             std::vector<std::string> labelNames) {
  return add<GaugeFamily>(std::move(name), std::move(help), std::move(labelNames));
}

HistogramFamily& Registry::histogram(std::string name, std::string help,
                                     std::vector<std::string> labelNames,
                                     std::vector<double> bounds) {
  return add<HistogramFamily>(std::move(name), std::move(help), std::move(labelNames),
                              std::move(bounds));
}

void Registry::addCollector(Collector fn) {
  std::lock_guard<std::mutex> lock(mu_);
  collectors_.push_back(std::move(fn));
}

std::vector<FamilySnapshot> Registry::gather() const {
  std::vector<FamilySnapshot> out;
  std::vector<Collector> collectors;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& f : families_) {
      FamilySnapshot s = f->snapshot();
      if (!s.children.empty()) {
        out.push_back(std::move(s));
      }
    }
    collectors = collectors_;
  }
  std::set<std::string> taken;
  for (const FamilySnapshot& s : out) {
    taken.insert(s.desc.name);
  }
  // Collectors run without the registry's lock: they read other layers' state.
  for (const Collector& c : collectors) {
    std::vector<FamilySnapshot> extra;
    c(extra);
    for (FamilySnapshot& s : extra) {
      if (taken.insert(s.desc.name).second) {
        out.push_back(std::move(s));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const FamilySnapshot& a, const FamilySnapshot& b) {
    return a.desc.name < b.desc.name;
  });
  return out;
}

std::string Registry::render() const { return renderText(gather()); }

}  // namespace sh::metrics

// Requirements, label selectors and topology terms of storage objects (upstream labels.Requirement,
// metav1.LabelSelectorAsSelector, v1helper.MatchTopologySelectorTerms).
#include "selectors.h"

#include <schedhost/helpers.hpp>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i > 0 ? "; " : "") + parts[i];
  }
  return out;
}

std::string child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

}  // namespace

std::string goStringSlice(const std::vector<std::string>& values, bool present) {
  if (!present) {
    return "[]string(nil)";
  }
  std::string out = "[]string{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    out += (i > 0 ? ", " : "") + quoted(values[i]);
  }
  return out + "}";
}

std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (const std::string& e : errors) {
    if (seen.insert(e).second) {
      unique.push_back(e);
    }
  }
  if (unique.size() == 1) {
    return unique[0];
  }
  std::string out = "[";
  for (std::size_t i = 0; i < unique.size(); ++i) {
    out += (i > 0 ? ", " : "") + unique[i];
  }
  return out + "]";
}

std::vector<RequirementText> readRequirements(const Json& list) {
  std::vector<RequirementText> out;
  for (std::size_t i = 0; i < list.size() && list.isArray(); ++i) {
    Json item = list.at(i);
    RequirementText r;
    r.key = std::string(item["key"].asString());
    r.op = std::string(item["operator"].asString());
    Json values = item["values"];
    r.valuesPresent = values.isArray();
    for (std::size_t j = 0; j < values.size() && values.isArray(); ++j) {
      r.values.emplace_back(values.at(j).asString());
    }
    out.push_back(std::move(r));
  }
  return out;
}

// labels.NewRequirement's checks, with the op already mapped to an sh_selector_op.
void RequirementSet::add(const Host& host, const RequirementText& r, const std::string& path,
                         std::vector<std::string>& errors) {
  const std::size_t before = errors.size();
  int32_t op = -1;
  if (r.op == "In") {
    op = SH_OP_IN;
  } else if (r.op == "NotIn") {
    op = SH_OP_NOT_IN;
  } else if (r.op == "Exists") {
    op = SH_OP_EXISTS;
  } else if (r.op == "DoesNotExist") {
    op = SH_OP_DOES_NOT_EXIST;
  } else if (r.op == "Gt") {
    op = SH_OP_GT;
  } else if (r.op == "Lt") {
    op = SH_OP_LT;
  }
  std::vector<std::string> keyErrors = qualifiedNameErrors(r.key);
  if (!keyErrors.empty()) {
    errors.push_back(child(path, "key") + ": " + invalidValue(quoted(r.key), joined(keyErrors)));
  }
  const std::string valuesPath = child(path, "values");
  const std::string slice = goStringSlice(r.values, r.valuesPresent);
  int64_t number = 0;
  switch (op) {
    case SH_OP_IN:
    case SH_OP_NOT_IN:
      if (r.values.empty()) {
        errors.push_back(
            valuesPath + ": " +
            invalidValue(slice, "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case SH_OP_EXISTS:
    case SH_OP_DOES_NOT_EXIST:
      if (!r.values.empty()) {
        errors.push_back(
            valuesPath + ": " +
            invalidValue(slice, "values set must be empty for exists and does not exist"));
      }
      break;
    case SH_OP_GT:
    case SH_OP_LT:
      if (r.values.size() != 1) {
        errors.push_back(
            valuesPath + ": " +
            invalidValue(slice, "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (std::size_t i = 0; i < r.values.size(); ++i) {
        int64_t n = 0;
        if (!parseInt64(r.values[i], n)) {
          errors.push_back(valuesPath + "[" + std::to_string(i) + "]: " +
                           invalidValue(quoted(r.values[i]),
                                        "for 'Gt', 'Lt' operators, the value must be an integer"));
        } else if (i == 0) {
          number = n;
        }
      }
      break;
    default:
      errors.push_back(
          child(path, "operator") + ": " +
          unsupportedValue(quoted(r.op), {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}));
      break;
  }
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    std::vector<std::string> valueErrors = labelValueErrors(r.values[i]);
    if (!valueErrors.empty()) {
      errors.push_back(valuesPath + "[" + std::to_string(i) + "][" + r.key +
                       "]: " + invalidValue(quoted(r.values[i]), joined(valueErrors)));
    }
  }
  if (errors.size() != before) {
    return;
  }
  Req req;
  req.key = host.intern(r.key);
  req.op = op;
  req.number = number;
  for (const std::string& v : r.values) {
    req.values.push_back(host.intern(v));
  }
  reqs_.push_back(std::move(req));
}

bool RequirementSet::matches(LabelView labels) const noexcept {
  for (const Req& r : reqs_) {
    const sh_label* label = findLabel(labels.labels, labels.count, r.key);
    bool ok = false;
    switch (r.op) {
      case SH_OP_IN:
        ok = label != nullptr &&
             containsId(r.values.data(), static_cast<uint32_t>(r.values.size()), label->value);
        break;
      case SH_OP_NOT_IN:
        ok = label == nullptr ||
             !containsId(r.values.data(), static_cast<uint32_t>(r.values.size()), label->value);
        break;
      case SH_OP_EXISTS:
        ok = label != nullptr;
        break;
      case SH_OP_DOES_NOT_EXIST:
        ok = label == nullptr;
        break;
      case SH_OP_GT:
      case SH_OP_LT: {
        int64_t v = 0;
        ok = label != nullptr && parseInt64(view(label->value_str), v) &&
             (r.op == SH_OP_GT ? v > r.number : v < r.number);
        break;
      }
      default:
        break;
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

LabelSelector LabelSelector::read(const Host& host, const Json& selector) {
  LabelSelector s;
  if (!selector.present() || selector.isNull()) {
    return s;  // labels.Nothing()
  }
  s.nothing_ = false;
  Json matchLabels = selector["matchLabels"];
  Json expressions = selector["matchExpressions"];
  if (matchLabels.size() + expressions.size() == 0) {
    s.everything_ = true;
    return s;
  }
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < matchLabels.size() && matchLabels.isObject() && errors.empty(); ++i) {
    RequirementText r;
    r.key = std::string(matchLabels.keyAt(i));
    r.op = "In";  // selection.Equals with one value matches as In does
    r.values.emplace_back(matchLabels.at(i).asString());
    r.valuesPresent = true;
    s.reqs_.add(host, r, "", errors);
  }
  for (const RequirementText& r : readRequirements(expressions)) {
    if (!errors.empty()) {
      break;
    }
    if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist") {
      errors.push_back(quoted(r.op) + " is not a valid label selector operator");
      break;
    }
    s.reqs_.add(host, r, "", errors);
  }
  if (!errors.empty()) {
    s.error_ = aggregate(errors);
  }
  return s;
}

TopologyTerms TopologyTerms::read(const Host& host, const Json& allowedTopologies) {
  TopologyTerms t;
  if (!allowedTopologies.isArray() || allowedTopologies.size() == 0) {
    return t;
  }
  t.any_ = false;
  for (std::size_t i = 0; i < allowedTopologies.size(); ++i) {
    Json expressions = allowedTopologies.at(i)["matchLabelExpressions"];
    if (expressions.size() == 0) {
      continue;  // an empty term selects nothing
    }
    RequirementSet term;
    std::vector<std::string> errors;
    for (std::size_t j = 0; j < expressions.size() && expressions.isArray(); ++j) {
      RequirementText r;
      r.key = std::string(expressions.at(j)["key"].asString());
      r.op = "In";
      Json values = expressions.at(j)["values"];
      r.valuesPresent = values.isArray();
      for (std::size_t k = 0; k < values.size() && values.isArray(); ++k) {
        r.values.emplace_back(values.at(k).asString());
      }
      term.add(host, r, "", errors);
    }
    if (errors.empty()) {
      t.terms_.push_back(std::move(term));
    }
  }
  return t;
}

bool TopologyTerms::matches(LabelView labels) const noexcept {
  if (any_) {
    return true;
  }
  for (const RequirementSet& term : terms_) {
    if (term.matches(labels)) {
      return true;
    }
  }
  return false;
}

}  // namespace schedhost::plugins::volumebinding

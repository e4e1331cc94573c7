// A PersistentVolume's node affinity, compiled once and matched by id (upstream
// CheckNodeAffinity over nodeaffinity.NewLazyErrorNodeSelector).
#include "node_affinity.h"

#include <schedhost/helpers.hpp>

#include <string>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

NodeAffinityText NodeAffinityText::read(const Json& nodeAffinity) {
  NodeAffinityText t;
  if (!nodeAffinity.isObject()) {
    return t;
  }
  t.present = true;
  Json required = nodeAffinity["required"];
  if (!required.isObject()) {
    return t;
  }
  t.requiredPresent = true;
  Json terms = required["nodeSelectorTerms"];
  for (std::size_t i = 0; i < terms.size() && terms.isArray(); ++i) {
    Term term;
    term.expressions = readRequirements(terms.at(i)["matchExpressions"]);
    term.fields = readRequirements(terms.at(i)["matchFields"]);
    t.terms.push_back(std::move(term));
  }
  return t;
}

VolumeNodeAffinity VolumeNodeAffinity::compile(const Host& host, const NodeAffinityText& text) {
  VolumeNodeAffinity a;
  a.required_ = text.present && text.requiredPresent;
  if (!a.required_) {
    return a;
  }
  for (std::size_t i = 0; i < text.terms.size(); ++i) {
    const NodeAffinityText::Term& in = text.terms[i];
    if (in.expressions.empty() && in.fields.empty()) {
      continue;  // nil or empty term selects no objects
    }
    const std::string path = "nodeSelectorTerms[" + std::to_string(i) + "]";
    Term term;
    // nodeSelectorRequirementsAsSelector: an unknown operator is reported before
    // labels.NewRequirement sees it.
    for (std::size_t j = 0; j < in.expressions.size(); ++j) {
      const RequirementText& r = in.expressions[j];
      const std::string p = path + ".matchExpressions[" + std::to_string(j) + "]";
      if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist" &&
          r.op != "Gt" && r.op != "Lt") {
        term.errors.push_back(
            p + ".operator: " +
            unsupportedValue(quoted(r.op), {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}));
        continue;
      }
      term.labels.add(host, r, p, term.errors);
    }
    // nodeSelectorRequirementsAsFieldSelector: checked, never matched (see the header).
    for (std::size_t j = 0; j < in.fields.size(); ++j) {
      const RequirementText& r = in.fields[j];
      const std::string p = path + ".matchFields[" + std::to_string(j) + "]";
      if (r.op == "In" || r.op == "NotIn") {
        if (r.values.size() != 1) {
          term.errors.push_back(
              p + ".values: " +
              invalidValue(goStringSlice(r.values, r.valuesPresent), "must have one element"));
        }
      } else {
        term.errors.push_back(p + ".operator: " + unsupportedValue(quoted(r.op), {"In", "NotIn"}));
      }
    }
    a.terms_.push_back(std::move(term));
  }
  return a;
}

bool VolumeNodeAffinity::matches(LabelView labels) const noexcept {
  if (!required_) {
    return true;
  }
  for (const Term& t : terms_) {
    if (t.errors.empty() && t.labels.matches(labels)) {
      return true;
    }
  }
  return false;
}

std::string VolumeNodeAffinity::mismatchError() const {
  std::vector<std::string> errors;
  for (const Term& t : terms_) {
    errors.insert(errors.end(), t.errors.begin(), t.errors.end());
  }
  return errors.empty() ? std::string("no matching NodeSelectorTerms") : aggregate(errors);
}

}  // namespace schedhost::plugins::volumebinding

// Parsing and validation of NodeAffinityArgs. Messages follow k8s.io/apimachinery's field
// errors ("Invalid value: ...", "Unsupported value: ..."); the host prefixes the args path.
#include "args.h"

#include <schedhost/helpers.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::nodeaffinity {

namespace {

const std::vector<std::string_view> kLabelOperators = {"In",           "NotIn", "Exists",
                                                       "DoesNotExist", "Gt",    "Lt"};
const std::vector<std::string_view> kFieldOperators = {"In", "NotIn"};

// Go's %#v of a []string, as field.Invalid prints it.
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

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i > 0 ? "; " : "") + parts[i];
  }
  return out;
}

int32_t operatorOf(std::string_view op) {
  for (std::size_t i = 0; i < kLabelOperators.size(); ++i) {
    if (kLabelOperators[i] == op) {
      return static_cast<int32_t>(i);  // the sh_selector_op order is the same
    }
  }
  return -1;
}

}  // namespace

// Builds the sh_* views of one term into the args' storage.
class TermBuilder {
 public:
  TermBuilder(const Host& host, NodeAffinityArgs& out) : host_(host), out_(out) {}

  // Parses a NodeSelectorTerm. A non-empty term is validated: nodeaffinity drops empty terms
  // before parsing them.
  sh_node_selector_term build(const Args& term) {
    sh_node_selector_term view{};
    if (!expectObject(term)) {
      return view;
    }
    rejectUnknownFields(term, {"matchExpressions", "matchFields"});
    Args exprs = term["matchExpressions"];
    Args fields = term["matchFields"];
    bool empty = exprs.size() == 0 && fields.size() == 0;
    std::vector<sh_requirement> labelReqs = requirements(exprs, false, !empty);
    std::vector<sh_requirement> fieldReqs = requirements(fields, true, !empty);
    view.match_expression_count = static_cast<uint32_t>(labelReqs.size());
    view.match_field_count = static_cast<uint32_t>(fieldReqs.size());
    out_.requirements_.push_back(std::move(labelReqs));
    view.match_expressions = out_.requirements_.back().data();
    out_.requirements_.push_back(std::move(fieldReqs));
    view.match_fields = out_.requirements_.back().data();
    return view;
  }

 private:
  std::vector<sh_requirement> requirements(const Args& list, bool field, bool validate) {
    std::vector<sh_requirement> reqs;
    if (!list.present() || !expectArray(list)) {
      return reqs;
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
      reqs.push_back(requirement(list.at(i), field, validate));
    }
    return reqs;
  }

  sh_requirement requirement(const Args& expr, bool field, bool validate) {
    sh_requirement r{};
    r.op = -1;
    if (!expectObject(expr)) {
      return r;
    }
    rejectUnknownFields(expr, {"key", "operator", "values"});
    std::string_view key = expr["key"].asString();
    std::string_view op = expr["operator"].asString();
    Args valuesNode = expr["values"];
    std::vector<std::string> values;
    if (valuesNode.present() && expectArray(valuesNode)) {
      for (std::size_t i = 0; i < valuesNode.size(); ++i) {
        values.emplace_back(valuesNode.at(i).asString());
      }
    }
    r.key = host_.intern(key);
    r.op = field ? (op == "In" ? SH_OP_IN : op == "NotIn" ? SH_OP_NOT_IN : -1) : operatorOf(op);
    std::vector<sh_id> ids;
    for (const std::string& v : values) {
      ids.push_back(host_.intern(v));
    }
    if ((r.op == SH_OP_GT || r.op == SH_OP_LT) && values.size() == 1) {
      r.number_ok = parseInt64(values[0], r.number) ? 1 : 0;
    }
    r.value_count = static_cast<uint32_t>(ids.size());
    out_.values_.push_back(std::move(ids));
    r.values = out_.values_.back().data();
    if (validate && field) {
      validateField(expr, op, values);
    } else if (validate) {
      validateLabel(expr, key, r, values, valuesNode.present());
    }
    return r;
  }

  // nodeaffinity.nodeSelectorRequirementsAsFieldSelector.
  void validateField(const Args& expr, std::string_view op, const std::vector<std::string>& v) {
    if (op != "In" && op != "NotIn") {
      errorAt(expr, "operator", unsupportedValue(quoted(op), kFieldOperators));
    } else if (v.size() != 1) {
      errorAt(expr, "values",
              invalidValue(goStringSlice(v, expr["values"].present()), "must have one element"));
    }
  }

  // nodeaffinity.nodeSelectorRequirementsAsSelector and labels.NewRequirement.
  void validateLabel(const Args& expr, std::string_view key, const sh_requirement& r,
                     const std::vector<std::string>& v, bool valuesPresent) {
    if (r.op < 0) {
      errorAt(expr, "operator",
              unsupportedValue(quoted(expr["operator"].asString()), kLabelOperators));
      return;
    }
    std::vector<std::string> keyErrs = qualifiedNameErrors(key);
    if (!keyErrs.empty()) {
      errorAt(expr, "key", invalidValue(quoted(key), joined(keyErrs)));
    }
    std::string slice = goStringSlice(v, valuesPresent);
    switch (r.op) {
      case SH_OP_IN:
      case SH_OP_NOT_IN:
        if (v.empty()) {
          errorAt(expr, "values",
                  invalidValue(slice, "for 'in', 'notin' operators, values set can't be empty"));
        }
        break;
      case SH_OP_EXISTS:
      case SH_OP_DOES_NOT_EXIST:
        if (!v.empty()) {
          errorAt(expr, "values",
                  invalidValue(slice, "values set must be empty for exists and does not exist"));
        }
        break;
      default:
        if (v.size() != 1) {
          errorAt(expr, "values",
                  invalidValue(slice, "for 'Gt', 'Lt' operators, exactly one value is required"));
        }
        for (std::size_t i = 0; i < v.size(); ++i) {
          int64_t n = 0;
          if (!parseInt64(v[i], n)) {
            expr["values"].at(i).error(invalidValue(
                quoted(v[i]), "for 'Gt', 'Lt' operators, the value must be an integer"));
          }
        }
        break;
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::vector<std::string> errs = labelValueErrors(v[i]);
      if (!errs.empty()) {
        expr["values"].at(i).error(invalidValue(quoted(v[i]), joined(errs)));
      }
    }
  }

  const Host& host_;
  NodeAffinityArgs& out_;
};

NodeAffinityArgs parseArgs(const Host& host, const Args& args) {
  NodeAffinityArgs out;
  if (!args.present()) {
    return out;
  }
  if (!expectObject(args)) {
    return out;
  }
  rejectUnknownFields(args, {"addedAffinity"});
  Args added = args["addedAffinity"];
  if (!added.present() || !expectObject(added)) {
    return out;
  }
  rejectUnknownFields(added, {"requiredDuringSchedulingIgnoredDuringExecution",
                              "preferredDuringSchedulingIgnoredDuringExecution"});
  TermBuilder builder(host, out);

  Args required = added["requiredDuringSchedulingIgnoredDuringExecution"];
  if (required.present() && expectObject(required)) {
    rejectUnknownFields(required, {"nodeSelectorTerms"});
    out.hasRequired_ = true;
    Args terms = required["nodeSelectorTerms"];
    if (terms.present() && expectArray(terms)) {
      for (std::size_t i = 0; i < terms.size(); ++i) {
        out.required_.push_back(builder.build(terms.at(i)));
      }
    }
  }

  Args preferred = added["preferredDuringSchedulingIgnoredDuringExecution"];
  if (preferred.present() && expectArray(preferred)) {
    out.hasPreferred_ = preferred.size() > 0;
    for (std::size_t i = 0; i < preferred.size(); ++i) {
      Args term = preferred.at(i);
      if (!expectObject(term)) {
        continue;
      }
      rejectUnknownFields(term, {"weight", "preference"});
      sh_preferred_term p{};
      Args weight = term["weight"];
      if (weight.present() && !weight.isInt()) {
        weight.error("Invalid value: expected an integer");
      }
      p.weight = static_cast<int32_t>(weight.asInt());
      Args preference = term["preference"];
      // Weight-0 terms are dropped unparsed, as upstream; an absent preference is empty.
      if (preference.present() && p.weight != 0) {
        p.preference = builder.build(preference);
      }
      out.preferred_.push_back(p);
    }
  }
  return out;
}

}  // namespace schedhost::plugins::nodeaffinity

#include "host/model/selector_parser.h"

#include <charconv>
#include <vector>

#include "host/common/limits.h"
#include "host/model/field_parsers.h"
#include "host/model/interner.h"

namespace sh::model {
namespace {

constexpr char kLabelOps[] = "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"";
constexpr char kNodeOps[] = "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"";

bool parseOperator(const Cursor& c, bool nodeOps, int32_t& out) {
  std::string_view op = c.requiredString();
  if (op.empty()) {
    return false;
  }
  if (op == "In") {
    out = SH_OP_IN;
  } else if (op == "NotIn") {
    out = SH_OP_NOT_IN;
  } else if (op == "Exists") {
    out = SH_OP_EXISTS;
  } else if (op == "DoesNotExist") {
    out = SH_OP_DOES_NOT_EXIST;
  } else if (nodeOps && op == "Gt") {
    out = SH_OP_GT;
  } else if (nodeOps && op == "Lt") {
    out = SH_OP_LT;
  } else {
    failUnsupported(c, op, nodeOps ? kNodeOps : kLabelOps);
    return false;
  }
  return true;
}

// strconv.ParseInt(s, 10, 64).
bool parseInt64(std::string_view s, int64_t& out) {
  if (!s.empty() && s.front() == '+') {
    s.remove_prefix(1);
    if (!s.empty() && s.front() == '-') {
      return false;
    }
  }
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && !s.empty();
}

std::vector<sh_requirement> parseRequirements(const Cursor& c, bool nodeOps, Arena& arena) {
  std::vector<sh_requirement> out;
  if (!c.atMost(limits::kMaxExpressionsPerSelector)) {
    return out;
  }
  c.eachObject([&](const Cursor& item) {
    sh_requirement r{};
    r.key = intern(item["key"].requiredString());
    bool opOk = parseOperator(item["operator"], nodeOps, r.op);
    std::vector<sh_id> values = parseInternedList(item["values"]);
    r.values = arena.array(values);
    r.value_count = static_cast<uint32_t>(values.size());
    if (nodeOps && (r.op == SH_OP_GT || r.op == SH_OP_LT) && values.size() == 1) {
      int64_t n = 0;
      if (parseInt64(interner().view(values[0]), n)) {
        r.number = n;
        r.number_ok = 1;
      }
    }
    if (opOk) {
      out.push_back(r);
    }
  });
  return out;
}

sh_pod_affinity_term parseAffinityTerm(const Cursor& c, Arena& arena) {
  sh_pod_affinity_term t{};
  t.label_selector = parseLabelSelector(c["labelSelector"], arena);
  t.namespace_selector = parseLabelSelector(c["namespaceSelector"], arena);
  std::vector<sh_str> namespaces = parseStringList(c["namespaces"], arena);
  t.namespaces = arena.array(namespaces);
  t.namespace_count = static_cast<uint32_t>(namespaces.size());
  t.topology_key = intern(c["topologyKey"].stringOr(""));
  std::vector<sh_str> match = parseStringList(c["matchLabelKeys"], arena);
  t.match_label_keys = arena.array(match);
  t.match_label_key_count = static_cast<uint32_t>(match.size());
  std::vector<sh_str> mismatch = parseStringList(c["mismatchLabelKeys"], arena);
  t.mismatch_label_keys = arena.array(mismatch);
  t.mismatch_label_key_count = static_cast<uint32_t>(mismatch.size());
  return t;
}

}  // namespace

const sh_label_selector* parseLabelSelector(const Cursor& c, Arena& arena) {
  if (!c.object()) {
    return nullptr;
  }
  sh_label_selector s{};
  std::vector<sh_label> labels = parseStringMap(c["matchLabels"]);
  s.match_labels = arena.array(labels);
  s.match_label_count = static_cast<uint32_t>(labels.size());
  std::vector<sh_requirement> exprs = parseRequirements(c["matchExpressions"], false, arena);
  s.match_expressions = arena.array(exprs);
  s.match_expression_count = static_cast<uint32_t>(exprs.size());
  return arena.one(s);
}

sh_node_selector_term parseNodeSelectorTerm(const Cursor& c, Arena& arena) {
  sh_node_selector_term t{};
  if (!c.object()) {
    return t;
  }
  std::vector<sh_requirement> exprs = parseRequirements(c["matchExpressions"], true, arena);
  t.match_expressions = arena.array(exprs);
  t.match_expression_count = static_cast<uint32_t>(exprs.size());
  std::vector<sh_requirement> fields = parseRequirements(c["matchFields"], true, arena);
  t.match_fields = arena.array(fields);
  t.match_field_count = static_cast<uint32_t>(fields.size());
  return t;
}

const sh_node_affinity* parseNodeAffinity(const Cursor& c, Arena& arena) {
  if (!c.object()) {
    return nullptr;
  }
  sh_node_affinity a{};
  Cursor required = c["requiredDuringSchedulingIgnoredDuringExecution"];
  if (required.object()) {
    a.has_required = 1;
    std::vector<sh_node_selector_term> terms;
    Cursor termList = required["nodeSelectorTerms"];
    if (!termList.atMost(limits::kMaxTermsPerAffinity)) {
      return nullptr;
    }
    termList.eachObject(
        [&](const Cursor& item) { terms.push_back(parseNodeSelectorTerm(item, arena)); });
    a.required = arena.array(terms);
    a.required_count = static_cast<uint32_t>(terms.size());
  }
  std::vector<sh_preferred_term> preferred;
  Cursor preferredList = c["preferredDuringSchedulingIgnoredDuringExecution"];
  if (!preferredList.atMost(limits::kMaxTermsPerAffinity)) {
    return nullptr;
  }
  preferredList.eachObject([&](const Cursor& item) {
    sh_preferred_term p{};
    p.weight = item["weight"].int32().value_or(0);
    p.preference = parseNodeSelectorTerm(item["preference"], arena);
    preferred.push_back(p);
  });
  a.preferred = arena.array(preferred);
  a.preferred_count = static_cast<uint32_t>(preferred.size());
  return arena.one(a);
}

const sh_pod_affinity* parsePodAffinity(const Cursor& c, Arena& arena) {
  if (!c.object()) {
    return nullptr;
  }
  sh_pod_affinity a{};
  Cursor requiredList = c["requiredDuringSchedulingIgnoredDuringExecution"];
  Cursor preferredList = c["preferredDuringSchedulingIgnoredDuringExecution"];
  if (!requiredList.atMost(limits::kMaxTermsPerAffinity) ||
      !preferredList.atMost(limits::kMaxTermsPerAffinity)) {
    return nullptr;
  }
  std::vector<sh_pod_affinity_term> required;
  requiredList.eachObject(
      [&](const Cursor& item) { required.push_back(parseAffinityTerm(item, arena)); });
  a.required = arena.array(required);
  a.required_count = static_cast<uint32_t>(required.size());
  std::vector<sh_weighted_pod_affinity_term> preferred;
  preferredList.eachObject([&](const Cursor& item) {
    sh_weighted_pod_affinity_term w{};
    w.weight = item["weight"].int32().value_or(0);
    Cursor term = item["podAffinityTerm"];
    if (term.object()) {
      w.term = parseAffinityTerm(term, arena);
    }
    preferred.push_back(w);
  });
  a.preferred = arena.array(preferred);
  a.preferred_count = static_cast<uint32_t>(preferred.size());
  return arena.one(a);
}

}  // namespace sh::model

#include "host/model/selector_parser.h"

#include <charconv>
#include <vector>

#include "host/model/field_parsers.h"
#include "host/model/interner.h"

namespace sh::model {
namespace {

constexpr char kLabelOps[] = "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"";
constexpr char kNodeOps[] = "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"";

bool parse_operator(const Cursor& c, bool node_ops, int32_t& out) {
  std::string_view op = c.required_string();
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
  } else if (node_ops && op == "Gt") {
    out = SH_OP_GT;
  } else if (node_ops && op == "Lt") {
    out = SH_OP_LT;
  } else {
    fail_unsupported(c, op, node_ops ? kNodeOps : kLabelOps);
    return false;
  }
  return true;
}

// strconv.ParseInt(s, 10, 64).
bool parse_int64(std::string_view s, int64_t& out) {
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

std::vector<sh_requirement> parse_requirements(const Cursor& c, bool node_ops, Arena& arena) {
  std::vector<sh_requirement> out;
  c.each_object([&](const Cursor& item) {
    sh_requirement r{};
    r.key = intern(item["key"].required_string());
    bool op_ok = parse_operator(item["operator"], node_ops, r.op);
    std::vector<sh_id> values = parse_interned_list(item["values"]);
    r.values = arena.array(values);
    r.value_count = static_cast<uint32_t>(values.size());
    if (node_ops && (r.op == SH_OP_GT || r.op == SH_OP_LT) && values.size() == 1) {
      int64_t n = 0;
      if (parse_int64(interner().view(values[0]), n)) {
        r.number = n;
        r.number_ok = 1;
      }
    }
    if (op_ok) {
      out.push_back(r);
    }
  });
  return out;
}

sh_pod_affinity_term parse_affinity_term(const Cursor& c, Arena& arena) {
  sh_pod_affinity_term t{};
  t.label_selector = parse_label_selector(c["labelSelector"], arena);
  t.namespace_selector = parse_label_selector(c["namespaceSelector"], arena);
  std::vector<sh_str> namespaces = parse_string_list(c["namespaces"], arena);
  t.namespaces = arena.array(namespaces);
  t.namespace_count = static_cast<uint32_t>(namespaces.size());
  t.topology_key = intern(c["topologyKey"].string_or(""));
  std::vector<sh_str> match = parse_string_list(c["matchLabelKeys"], arena);
  t.match_label_keys = arena.array(match);
  t.match_label_key_count = static_cast<uint32_t>(match.size());
  std::vector<sh_str> mismatch = parse_string_list(c["mismatchLabelKeys"], arena);
  t.mismatch_label_keys = arena.array(mismatch);
  t.mismatch_label_key_count = static_cast<uint32_t>(mismatch.size());
  return t;
}

}  // namespace

const sh_label_selector* parse_label_selector(const Cursor& c, Arena& arena) {
  if (!c.object()) {
    return nullptr;
  }
  sh_label_selector s{};
  std::vector<sh_label> labels = parse_string_map(c["matchLabels"]);
  s.match_labels = arena.array(labels);
  s.match_label_count = static_cast<uint32_t>(labels.size());
  std::vector<sh_requirement> exprs = parse_requirements(c["matchExpressions"], false, arena);
  s.match_expressions = arena.array(exprs);
  s.match_expression_count = static_cast<uint32_t>(exprs.size());
  return arena.one(s);
}

sh_node_selector_term parse_node_selector_term(const Cursor& c, Arena& arena) {
  sh_node_selector_term t{};
  if (!c.object()) {
    return t;
  }
  std::vector<sh_requirement> exprs = parse_requirements(c["matchExpressions"], true, arena);
  t.match_expressions = arena.array(exprs);
  t.match_expression_count = static_cast<uint32_t>(exprs.size());
  std::vector<sh_requirement> fields = parse_requirements(c["matchFields"], true, arena);
  t.match_fields = arena.array(fields);
  t.match_field_count = static_cast<uint32_t>(fields.size());
  return t;
}

const sh_node_affinity* parse_node_affinity(const Cursor& c, Arena& arena) {
  if (!c.object()) {
    return nullptr;
  }
  sh_node_affinity a{};
  Cursor required = c["requiredDuringSchedulingIgnoredDuringExecution"];
  if (required.object()) {
    a.has_required = 1;
    std::vector<sh_node_selector_term> terms;
    required["nodeSelectorTerms"].each_object(
        [&](const Cursor& item) { terms.push_back(parse_node_selector_term(item, arena)); });
    a.required = arena.array(terms);
    a.required_count = static_cast<uint32_t>(terms.size());
  }
  std::vector<sh_preferred_term> preferred;
  c["preferredDuringSchedulingIgnoredDuringExecution"].each_object([&](const Cursor& item) {
    sh_preferred_term p{};
    p.weight = item["weight"].int32().value_or(0);
    p.preference = parse_node_selector_term(item["preference"], arena);
    preferred.push_back(p);
  });
  a.preferred = arena.array(preferred);
  a.preferred_count = static_cast<uint32_t>(preferred.size());
  return arena.one(a);
}

const sh_pod_affinity* parse_pod_affinity(const Cursor& c, Arena& arena) {
  if (!c.object()) {
    return nullptr;
  }
  sh_pod_affinity a{};
  std::vector<sh_pod_affinity_term> required;
  c["requiredDuringSchedulingIgnoredDuringExecution"].each_object(
      [&](const Cursor& item) { required.push_back(parse_affinity_term(item, arena)); });
  a.required = arena.array(required);
  a.required_count = static_cast<uint32_t>(required.size());
  std::vector<sh_weighted_pod_affinity_term> preferred;
  c["preferredDuringSchedulingIgnoredDuringExecution"].each_object([&](const Cursor& item) {
    sh_weighted_pod_affinity_term w{};
    w.weight = item["weight"].int32().value_or(0);
    Cursor term = item["podAffinityTerm"];
    if (term.object()) {
      w.term = parse_affinity_term(term, arena);
    }
    preferred.push_back(w);
  });
  a.preferred = arena.array(preferred);
  a.preferred_count = static_cast<uint32_t>(preferred.size());
  return arena.one(a);
}

}  // namespace sh::model

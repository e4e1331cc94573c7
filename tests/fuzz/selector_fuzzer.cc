// Label selectors and affinity (model/selector_parser.cc): the input, one JSON value, is read
// as a LabelSelector, a NodeSelectorTerm, a NodeAffinity and a PodAffinity, each on its own.
// Every view a reader returns is walked to its last element (the sanitizers see any bad
// pointer or count), and an operator is one of the six the matchers know.
#include "host/model/arena.h"
#include "host/model/json_cursor.h"
#include "host/model/selector_parser.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::size_t walk(const sh_requirement* requirements, uint32_t count) {
  std::size_t sum = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const sh_requirement& r = requirements[i];
    sh::fuzz::check(r.op >= SH_OP_IN && r.op <= SH_OP_LT, "an operator the matchers know");
    sum += r.key;
    for (uint32_t j = 0; j < r.value_count; ++j) {
      sum += r.values[j];
    }
  }
  return sum;
}

std::size_t walk(const sh_label_selector* s) {
  if (s == nullptr) {
    return 0;
  }
  std::size_t sum = walk(s->match_expressions, s->match_expression_count);
  for (uint32_t i = 0; i < s->match_label_count; ++i) {
    sum += s->match_labels[i].key + s->match_labels[i].value;
  }
  return sum;
}

std::size_t walk(const sh_node_selector_term& t) {
  return walk(t.match_expressions, t.match_expression_count) +
         walk(t.match_fields, t.match_field_count);
}

std::size_t walk(const sh_pod_affinity_term& t) {
  std::size_t sum = walk(t.label_selector) + walk(t.namespace_selector) + t.topology_key;
  for (uint32_t i = 0; i < t.namespace_count; ++i) {
    sum += t.namespaces[i].len;
  }
  for (uint32_t i = 0; i < t.match_label_key_count; ++i) {
    sum += t.match_label_keys[i].len;
  }
  for (uint32_t i = 0; i < t.mismatch_label_key_count; ++i) {
    sum += t.mismatch_label_keys[i].len;
  }
  return sum;
}

// Only well-formed input is held to the operator rule: a reader that recorded an error may
// return what it had read so far.
template <typename Read>
void readAs(const boost::json::value& json, const Read& read) {
  sh::model::ParseContext context;
  sh::model::Arena arena;
  const sh::model::Cursor root(context, &json);
  read(root, arena, context);
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer's name
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sh::fuzz::quietLogs();
  const std::optional<boost::json::value> json = sh::fuzz::parseJson(sh::fuzz::asText(data, size));
  if (!json) {
    return 0;
  }
  readAs(*json,
         [](const sh::model::Cursor& c, sh::model::Arena& arena, sh::model::ParseContext& context) {
           const sh_label_selector* s = sh::model::parseLabelSelector(c, arena);
           if (context.ok()) {
             sh::fuzz::keep(walk(s));
           }
         });
  readAs(*json,
         [](const sh::model::Cursor& c, sh::model::Arena& arena, sh::model::ParseContext& context) {
           const sh_node_selector_term t = sh::model::parseNodeSelectorTerm(c, arena);
           if (context.ok()) {
             sh::fuzz::keep(walk(t));
           }
         });
  readAs(*json,
         [](const sh::model::Cursor& c, sh::model::Arena& arena, sh::model::ParseContext& context) {
           const sh_node_affinity* a = sh::model::parseNodeAffinity(c, arena);
           if (context.ok() && a != nullptr) {
             for (uint32_t i = 0; i < a->required_count; ++i) {
               sh::fuzz::keep(walk(a->required[i]));
             }
             for (uint32_t i = 0; i < a->preferred_count; ++i) {
               sh::fuzz::keep(walk(a->preferred[i].preference));
             }
           }
         });
  readAs(*json,
         [](const sh::model::Cursor& c, sh::model::Arena& arena, sh::model::ParseContext& context) {
           const sh_pod_affinity* a = sh::model::parsePodAffinity(c, arena);
           if (context.ok() && a != nullptr) {
             for (uint32_t i = 0; i < a->required_count; ++i) {
               sh::fuzz::keep(walk(a->required[i]));
             }
             for (uint32_t i = 0; i < a->preferred_count; ++i) {
               sh::fuzz::keep(walk(a->preferred[i].term));
             }
           }
         });
  return 0;
}

#include "host/connectors/json_patch.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace sh::connectors {

namespace json = boost::json;

namespace {

// ---- Values without recursion -------------------------------------------------------------

// Levels of objects and arrays in `v` (a scalar has 0), counted with a work list rather than
// recursion; stops counting once past `bound` and returns bound + 1.
std::size_t depthOf(const json::value& v, std::size_t bound) {
  std::size_t deepest = 0;
  std::vector<std::pair<const json::value*, std::size_t>> work{{&v, 0}};
  while (!work.empty()) {
    auto [node, depth] = work.back();
    work.pop_back();
    if (!node->is_object() && !node->is_array()) {
      continue;
    }
    deepest = std::max(deepest, depth + 1);
    if (deepest > bound) {
      return bound + 1;
    }
    if (node->is_object()) {
      for (const auto& member : node->as_object()) {
        work.emplace_back(&member.value(), depth + 1);
      }
    } else {
      for (const json::value& e : node->as_array()) {
        work.emplace_back(&e, depth + 1);
      }
    }
  }
  return deepest;
}

// A copy of `v` in `storage`. Boost.JSON copies recursively; this copy keeps a work list, so a
// sub-tree of any depth can be put into a target.
json::value copyOf(const json::value& v, json::storage_ptr storage) {
  json::value out(std::move(storage));
  std::vector<std::pair<const json::value*, json::value*>> work{{&v, &out}};
  while (!work.empty()) {
    auto [from, to] = work.back();
    work.pop_back();
    if (from->is_object()) {
      json::object& o = to->emplace_object();
      // Reserved first, so that the slots handed to the work list never move.
      o.reserve(from->as_object().size());
      for (const auto& member : from->as_object()) {
        work.emplace_back(&member.value(), &o.emplace(member.key(), nullptr).first->value());
      }
    } else if (from->is_array()) {
      json::array& a = to->emplace_array();
      a.resize(from->as_array().size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        work.emplace_back(&from->as_array()[i], &a[i]);
      }
    } else {
      *to = *from;
    }
  }
  return out;
}

// JSON equality as RFC 6902's test defines it: numbers equal by value whatever their
// representation (1, 1u and 1.0), objects regardless of member order. Recursion is bounded by
// the shallower side, which the callers keep within kMaxPatchDepth.
bool jsonEqual(const json::value& a, const json::value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_double() || b.is_double()) {
      return a.to_number<double>() == b.to_number<double>();
    }
    if (a.is_int64() && b.is_int64()) {
      return a.get_int64() == b.get_int64();
    }
    if (a.is_uint64() && b.is_uint64()) {
      return a.get_uint64() == b.get_uint64();
    }
    const json::value& i = a.is_int64() ? a : b;
    const json::value& u = a.is_int64() ? b : a;
    return i.get_int64() >= 0 && static_cast<std::uint64_t>(i.get_int64()) == u.get_uint64();
  }
  if (a.kind() != b.kind()) {
    return false;
  }
  if (a.is_object()) {
    const json::object& x = a.as_object();
    const json::object& y = b.as_object();
    if (x.size() != y.size()) {
      return false;
    }
    for (const auto& member : x) {
      const json::value* other = y.if_contains(member.key());
      if (other == nullptr || !jsonEqual(member.value(), *other)) {
        return false;
      }
    }
    return true;
  }
  if (a.is_array()) {
    const json::array& x = a.as_array();
    const json::array& y = b.as_array();
    if (x.size() != y.size()) {
      return false;
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!jsonEqual(x[i], y[i])) {
        return false;
      }
    }
    return true;
  }
  return a == b;
}

// std::erase_if for a json::array, which the standard library does not overload.
template <typename Predicate>
void eraseIf(json::array& a, Predicate pred) {
  a.erase(std::remove_if(a.begin(), a.end(), pred), a.end());
}

std::string tooDeep() { return "nested deeper than " + std::to_string(kMaxPatchDepth) + " levels"; }

// ---- RFC 7386 -------------------------------------------------------------------------------

void mergePatchAt(json::value& target, const json::value& patch, std::size_t depth) {
  // Past the bound the patch's sub-tree is taken whole (see json_patch.h).
  if (!patch.is_object() || depth >= kMaxPatchDepth) {
    target = copyOf(patch, target.storage());
    return;
  }
  if (!target.is_object()) {
    target.emplace_object();
  }
  json::object& members = target.as_object();
  for (const auto& member : patch.as_object()) {
    if (member.value().is_null()) {
      members.erase(member.key());
      continue;
    }
    json::value* slot = members.if_contains(member.key());
    if (slot == nullptr) {
      slot = &members.emplace(member.key(), nullptr).first->value();
    }
    mergePatchAt(*slot, member.value(), depth + 1);
  }
}

// ---- RFC 6901 pointers and RFC 6902 operations ----------------------------------------------

bool parsePointer(std::string_view text, std::vector<std::string>& tokens, std::string& why) {
  tokens.clear();
  if (text.empty()) {
    return true;
  }
  if (text.front() != '/') {
    why = "a JSON pointer must be empty or start with '/'";
    return false;
  }
  text.remove_prefix(1);
  std::string token;
  for (std::size_t i = 0;; ++i) {
    if (i == text.size() || text[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
      if (i == text.size()) {
        return true;
      }
      continue;
    }
    if (text[i] != '~') {
      token += text[i];
      continue;
    }
    // "~01" is "~1", not "/": each escape is decoded once, left to right.
    if (i + 1 < text.size() && (text[i + 1] == '0' || text[i + 1] == '1')) {
      token += text[i + 1] == '0' ? '~' : '/';
      ++i;
      continue;
    }
    why = "invalid escape in JSON pointer (\"~\" must be followed by 0 or 1)";
    return false;
  }
}

// The index `token` names in an array of `size` elements: digits without a leading zero, at
// most `size` when `forAdd` (which also takes "-" for the end), below it otherwise.
bool arrayIndex(std::string_view token, std::size_t size, bool forAdd, std::size_t& index,
                std::string& why) {
  if (forAdd && token == "-") {
    index = size;
    return true;
  }
  bool digits = !token.empty() && std::all_of(token.begin(), token.end(),
                                              [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || (token.size() > 1 && token.front() == '0')) {
    why = "invalid array index \"" + std::string(token) + "\"";
    return false;
  }
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (ec != std::errc() || index > size || (!forAdd && index == size)) {
    why = "array index " + std::string(token) + " out of range";
    return false;
  }
  return true;
}

// The value the first `count` tokens name, or null with `why`.
json::value* resolve(json::value& doc, std::span<const std::string> tokens, std::string& why) {
  json::value* at = &doc;
  for (const std::string& token : tokens) {
    if (at->is_object()) {
      at = at->as_object().if_contains(token);
    } else if (at->is_array()) {
      std::size_t index = 0;
      if (!arrayIndex(token, at->as_array().size(), false, index, why)) {
        return nullptr;
      }
      at = &at->as_array()[index];
    } else {
      at = nullptr;
    }
    if (at == nullptr) {
      why = "path not found";
      return nullptr;
    }
  }
  return at;
}

bool addAt(json::value& doc, std::span<const std::string> tokens, json::value value,
           std::string& why) {
  if (tokens.empty()) {
    doc = std::move(value);
    return true;
  }
  json::value* parent = resolve(doc, tokens.first(tokens.size() - 1), why);
  if (parent == nullptr) {
    return false;
  }
  const std::string& last = tokens.back();
  if (parent->is_object()) {
    parent->as_object()[last] = std::move(value);
    return true;
  }
  if (parent->is_array()) {
    json::array& a = parent->as_array();
    std::size_t index = 0;
    if (!arrayIndex(last, a.size(), true, index, why)) {
      return false;
    }
    a.insert(a.begin() + static_cast<std::ptrdiff_t>(index), std::move(value));
    return true;
  }
  why = "path not found";
  return false;
}

bool removeAt(json::value& doc, std::span<const std::string> tokens, json::value* removed,
              std::string& why) {
  if (tokens.empty()) {
    why = "cannot remove the whole document";
    return false;
  }
  json::value* parent = resolve(doc, tokens.first(tokens.size() - 1), why);
  if (parent == nullptr) {
    return false;
  }
  const std::string& last = tokens.back();
  if (parent->is_object()) {
    json::object& o = parent->as_object();
    auto it = o.find(last);
    if (it == o.end()) {
      why = "path not found";
      return false;
    }
    if (removed != nullptr) {
      *removed = std::move(it->value());
    }
    o.erase(it);
    return true;
  }
  if (parent->is_array()) {
    json::array& a = parent->as_array();
    std::size_t index = 0;
    if (!arrayIndex(last, a.size(), false, index, why)) {
      return false;
    }
    if (removed != nullptr) {
      *removed = std::move(a[index]);
    }
    a.erase(a.begin() + static_cast<std::ptrdiff_t>(index));
    return true;
  }
  why = "path not found";
  return false;
}

// A value added at `tokens` must keep the document within kMaxPatchDepth.
bool fitsAt(std::span<const std::string> tokens, const json::value& value, std::string& why) {
  if (tokens.size() + depthOf(value, kMaxPatchDepth) > kMaxPatchDepth) {
    why = "the result would be " + tooDeep();
    return false;
  }
  return true;
}

const json::string* stringMember(const json::object& op, std::string_view key) {
  const json::value* v = op.if_contains(key);
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

// One operation applied to `doc`; false with `why`.
bool applyOperation(json::value& doc, const json::object& op, std::string& why) {
  std::string_view name = op.at("op").as_string();
  std::vector<std::string> path;
  if (!parsePointer(op.at("path").as_string(), path, why)) {
    return false;
  }
  const json::value* value = op.if_contains("value");
  bool needsValue = name == "add" || name == "replace" || name == "test";
  if (needsValue && value == nullptr) {
    why = "missing \"value\"";
    return false;
  }
  if (value != nullptr && needsValue && depthOf(*value, kMaxPatchDepth) > kMaxPatchDepth) {
    why = "value " + tooDeep();
    return false;
  }
  if (name == "add") {
    return fitsAt(path, *value, why) && addAt(doc, path, json::value(*value, doc.storage()), why);
  }
  if (name == "remove") {
    return removeAt(doc, path, nullptr, why);
  }
  if (name == "replace") {
    json::value* at = resolve(doc, path, why);
    if (at == nullptr || !fitsAt(path, *value, why)) {
      return false;
    }
    *at = *value;
    return true;
  }
  if (name == "test") {
    json::value* at = resolve(doc, path, why);
    if (at == nullptr) {
      return false;
    }
    if (!jsonEqual(*at, *value)) {
      why = "test failed: the value differs";
      return false;
    }
    return true;
  }
  if (name != "move" && name != "copy") {
    why = "unknown operation";
    return false;
  }
  const json::string* fromText = stringMember(op, "from");
  if (fromText == nullptr) {
    why = "missing \"from\"";
    return false;
  }
  std::vector<std::string> from;
  if (!parsePointer(*fromText, from, why)) {
    return false;
  }
  json::value* source = resolve(doc, from, why);
  if (source == nullptr) {
    why = "from: path not found";
    return false;
  }
  if (!fitsAt(path, *source, why)) {
    return false;
  }
  if (name == "copy") {
    return addAt(doc, path, json::value(*source, doc.storage()), why);
  }
  if (from == path) {
    return true;
  }
  if (from.size() < path.size() && std::equal(from.begin(), from.end(), path.begin())) {
    why = "cannot move a value into one of its own children";
    return false;
  }
  json::value moved(doc.storage());
  return removeAt(doc, from, &moved, why) && addAt(doc, path, std::move(moved), why);
}

// ---- Strategic merge patch ------------------------------------------------------------------

// The lists upstream's types mark patchStrategy=merge, by field name and the name of the field
// holding them (k8s.io/api core/v1 types.go and meta/v1 types.go); an empty key merges a list
// of scalars as a set. Every list not named here is atomic: the patch replaces it whole, as it
// does spec.tolerations, spec.taints, spec.readinessGates and status.containerStatuses.
struct MergeList {
  std::string_view holder;
  std::string_view field;
  std::string_view key;
};
constexpr MergeList kMergeLists[] = {
    // ObjectMeta.
    {"metadata", "finalizers", ""},
    {"metadata", "ownerReferences", "uid"},
    // PodSpec (also a template's spec), NodeSpec, ServiceSpec.
    {"spec", "containers", "name"},
    {"spec", "initContainers", "name"},
    {"spec", "ephemeralContainers", "name"},
    {"spec", "volumes", "name"},
    {"spec", "imagePullSecrets", "name"},
    {"spec", "hostAliases", "ip"},
    {"spec", "schedulingGates", "name"},
    {"spec", "topologySpreadConstraints", "topologyKey"},
    {"spec", "resourceClaims", "name"},
    {"spec", "podCIDRs", ""},
    {"spec", "ports", "port"},
    // Container, in each of the three lists.
    {"containers", "env", "name"},
    {"containers", "ports", "containerPort"},
    {"containers", "volumeMounts", "mountPath"},
    {"containers", "volumeDevices", "devicePath"},
    {"initContainers", "env", "name"},
    {"initContainers", "ports", "containerPort"},
    {"initContainers", "volumeMounts", "mountPath"},
    {"initContainers", "volumeDevices", "devicePath"},
    {"ephemeralContainers", "env", "name"},
    {"ephemeralContainers", "ports", "containerPort"},
    {"ephemeralContainers", "volumeMounts", "mountPath"},
    {"ephemeralContainers", "volumeDevices", "devicePath"},
    // PodStatus, NodeStatus and the status of every kind with conditions.
    {"status", "conditions", "type"},
    {"status", "addresses", "type"},
    {"status", "podIPs", "ip"},
    {"status", "hostIPs", "ip"},
    {"status", "resourceClaimStatuses", "name"},
};

const MergeList* mergeListOf(std::string_view holder, std::string_view field) {
  for (const MergeList& m : kMergeLists) {
    if (m.holder == holder && m.field == field) {
      return &m;
    }
  }
  return nullptr;
}

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList/";
constexpr std::string_view kSetElementOrder = "$setElementOrder/";

// The kind of a list element as Go's decoder types it: all numbers are one kind.
int elementKind(const json::value& v) {
  return v.is_number() ? static_cast<int>(json::kind::double_) : static_cast<int>(v.kind());
}

class StrategicMerge {
 public:
  explicit StrategicMerge(std::string& error) : error_(error) {}

  // Merges `patch` into `slot` (an object, or replaced by one); `holder` is the name of the
  // field `slot` is (or, for a list element, the list's name).
  bool mergeMap(json::value& slot, const json::object& patch, std::string_view holder,
                std::size_t depth) {
    if (const json::value* directive = patch.if_contains(kDirective)) {
      if (*directive == "replace") {
        json::object rest(patch, slot.storage());
        rest.erase(kDirective);
        slot.emplace_object();
        return mergeMap(slot, rest, holder, depth);
      }
      if (*directive == "delete") {
        slot.emplace_object();
        return true;
      }
      return fail("unknown patch type: " + json::serialize(*directive) +
                  " in map: " + json::serialize(patch));
    }
    if (!slot.is_object()) {
      slot.emplace_object();
    }
    json::object& original = slot.as_object();
    for (const auto& member : patch) {
      std::string_view key = member.key();
      const json::value& value = member.value();
      if (key == kRetainKeys || key.starts_with(kSetElementOrder)) {
        continue;
      }
      if (key.starts_with(kDeleteFromPrimitiveList)) {
        if (!deleteFromPrimitiveList(original, key.substr(kDeleteFromPrimitiveList.size()),
                                     value)) {
          return false;
        }
        continue;
      }
      if (value.is_null()) {
        original.erase(key);
        continue;
      }
      const json::array* order = setElementOrder(patch, key);
      if (order == nullptr && !error_.empty()) {
        return false;
      }
      json::value* existing = original.if_contains(key);
      if (existing == nullptr || !sameShape(*existing, value)) {
        json::value& fresh = original[key];
        fresh = nullptr;
        if (!takeWhole(fresh, value, holder, key, depth + 1)) {
          return false;
        }
        continue;
      }
      if (value.is_object()) {
        if (!mergeMap(*existing, value.as_object(), key, depth + 1)) {
          return false;
        }
      } else if (value.is_array()) {
        const MergeList* list = mergeListOf(holder, key);
        if (list == nullptr) {
          *existing = copyOf(value, existing->storage());
        } else if (!mergeList(existing->as_array(), value.as_array(), *list, order, depth + 1)) {
          return false;
        }
      } else {
        *existing = value;
      }
    }
    return reorderUnpatchedLists(original, patch, holder);
  }

 private:
  bool fail(std::string why) {
    error_ = std::move(why);
    return false;
  }

  // A value that meets nothing in the target: maps and merged lists go through the merge
  // anyway, so their directives and nulls act on nothing instead of being stored.
  bool takeWhole(json::value& slot, const json::value& value, std::string_view holder,
                 std::string_view key, std::size_t depth) {
    if (value.is_object()) {
      return mergeMap(slot, value.as_object(), key, depth);
    }
    const MergeList* list = value.is_array() ? mergeListOf(holder, key) : nullptr;
    if (list == nullptr) {
      slot = copyOf(value, slot.storage());
      return true;
    }
    json::array& out = slot.emplace_array();
    for (const json::value& e : value.as_array()) {
      if (e.is_object() && e.as_object().contains(kDirective)) {
        continue;
      }
      out.emplace_back(nullptr);
      if (e.is_object()) {
        if (!mergeMap(out.back(), e.as_object(), key, depth + 1)) {
          return false;
        }
      } else {
        out.back() = copyOf(e, out.storage());
      }
    }
    return true;
  }

  // Whether an existing value and a patch value are merged (two maps, two lists) or the
  // patch's replaces it (scalars, or shapes that differ, as upstream compares Go types).
  static bool sameShape(const json::value& a, const json::value& b) {
    return (a.is_object() && b.is_object()) || (a.is_array() && b.is_array());
  }

  // The "$setElementOrder/<key>" list of `patch`, null when there is none; a malformed one
  // sets error_.
  const json::array* setElementOrder(const json::object& patch, std::string_view key) {
    std::string directive(kSetElementOrder);
    directive += key;
    const json::value* order = patch.if_contains(directive);
    if (order == nullptr) {
      return nullptr;
    }
    if (!order->is_array()) {
      fail("invalid patch format of setElementOrder list");
      return nullptr;
    }
    return &order->as_array();
  }

  bool deleteFromPrimitiveList(json::object& original, std::string_view key,
                               const json::value& values) {
    if (key.empty() || !values.is_array()) {
      return fail("invalid patch format of primitive list");
    }
    json::value* list = original.if_contains(key);
    if (list == nullptr || !list->is_array()) {
      return true;
    }
    json::array& a = list->as_array();
    eraseIf(a, [&](const json::value& e) {
      return std::any_of(values.as_array().begin(), values.as_array().end(),
                         [&](const json::value& d) { return jsonEqual(e, d); });
    });
    return true;
  }

  // "$setElementOrder/<key>" for a merged list the patch does not otherwise touch.
  bool reorderUnpatchedLists(json::object& original, const json::object& patch,
                             std::string_view holder) {
    for (const auto& member : patch) {
      std::string_view key = member.key();
      if (!key.starts_with(kSetElementOrder)) {
        continue;
      }
      std::string_view field = key.substr(kSetElementOrder.size());
      if (!member.value().is_array()) {
        return fail("invalid patch format of setElementOrder list");
      }
      const MergeList* list = mergeListOf(holder, field);
      json::value* existing = original.if_contains(field);
      if (list == nullptr || patch.contains(field) || existing == nullptr ||
          !existing->is_array()) {
        continue;
      }
      json::array& a = existing->as_array();
      json::array serverOrder(a);
      if (!normalizeOrder(a, member.value().as_array(), serverOrder, list->key)) {
        return false;
      }
    }
    return true;
  }

  // The value `e` is matched by: its merge key in a list of maps, itself in a list of scalars.
  static const json::value* identity(const json::value& e, std::string_view key) {
    if (key.empty()) {
      return &e;
    }
    return e.is_object() ? e.as_object().if_contains(key) : nullptr;
  }

  static std::size_t indexIn(const json::array& list, const json::value& e, std::string_view key) {
    const json::value* id = identity(e, key);
    for (std::size_t i = 0; id != nullptr && i < list.size(); ++i) {
      const json::value* other = identity(list[i], key);
      if (other != nullptr && jsonEqual(*id, *other)) {
        return i;
      }
    }
    return list.size();
  }

  // Upstream's normalizeElementOrder: the items `patchOrder` names, in its order, merged with
  // the others, in `serverOrder`'s order; a server item goes first only where the server's
  // order places it before the patch item it is compared with.
  bool normalizeOrder(json::array& merged, const json::array& patchOrder,
                      const json::array& serverOrder, std::string_view key) {
    std::vector<json::value> patched;
    std::vector<json::value> serverOnly;
    for (json::value& e : merged) {
      if (identity(e, key) == nullptr) {
        return fail("map: " + json::serialize(e) +
                    " does not contain declared merge key: " + std::string(key));
      }
      (indexIn(patchOrder, e, key) < patchOrder.size() ? patched : serverOnly)
          .push_back(std::move(e));
    }
    std::stable_sort(patched.begin(), patched.end(),
                     [&](const json::value& a, const json::value& b) {
                       return indexIn(patchOrder, a, key) < indexIn(patchOrder, b, key);
                     });
    std::stable_sort(serverOnly.begin(), serverOnly.end(),
                     [&](const json::value& a, const json::value& b) {
                       return indexIn(serverOrder, a, key) < indexIn(serverOrder, b, key);
                     });
    json::array out(merged.storage());
    out.reserve(patched.size() + serverOnly.size());
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < serverOnly.size() || j < patched.size()) {
      bool serverFirst = j == patched.size();
      if (!serverFirst && i < serverOnly.size()) {
        std::size_t si = indexIn(serverOrder, serverOnly[i], key);
        std::size_t pi = indexIn(serverOrder, patched[j], key);
        serverFirst = si < serverOrder.size() && pi < serverOrder.size() && si < pi;
      }
      out.push_back(std::move(serverFirst ? serverOnly[i++] : patched[j++]));
    }
    merged = std::move(out);
    return true;
  }

  bool mergeList(json::array& original, const json::array& patch, const MergeList& list,
                 const json::array* order, std::size_t depth) {
    if (original.empty() && patch.empty()) {
      return true;
    }
    int kind = -1;
    for (const json::array* side : {static_cast<const json::array*>(&original), &patch}) {
      for (const json::value& e : *side) {
        if (e.is_array()) {
          return fail("lists of lists are not supported");
        }
        if (kind != -1 && elementKind(e) != kind) {
          return fail("list element types are not identical: " + json::serialize(original) + ", " +
                      json::serialize(patch));
        }
        kind = elementKind(e);
      }
    }
    if (kind != static_cast<int>(json::kind::object)) {
      // Scalars merge as a set: the patch's values are added.
      json::array serverOrder(original);
      for (const json::value& e : patch) {
        if (indexIn(original, e, "") == original.size()) {
          original.push_back(e);
        }
      }
      return normalizeOrder(original, order != nullptr ? *order : patch, serverOrder, "");
    }
    if (list.key.empty()) {
      return fail("cannot merge lists without merge key for " + std::string(list.field));
    }
    // Elements with a directive first: deletions, or a replacement of the whole list.
    json::array items(patch.storage());
    bool replace = false;
    for (const json::value& e : patch) {
      const json::value* directive = e.as_object().if_contains(kDirective);
      if (directive == nullptr) {
        items.push_back(e);
      } else if (*directive == "delete") {
        const json::value* id = identity(e, list.key);
        if (id == nullptr) {
          return fail("map: " + json::serialize(e) +
                      " does not contain declared merge key: " + std::string(list.key));
        }
        eraseIf(original, [&](const json::value& o) {
          const json::value* other = identity(o, list.key);
          return other != nullptr && jsonEqual(*id, *other);
        });
      } else if (*directive == "replace") {
        replace = true;
      } else if (*directive == "merge") {
        return fail("merging lists cannot yet be specified in the patch");
      } else {
        return fail("unknown patch type: " + json::serialize(*directive) +
                    " in map: " + json::serialize(e));
      }
    }
    if (replace) {
      original.clear();
    }
    json::array serverOrder(original);
    for (const json::value& e : items) {
      const json::value* id = identity(e, list.key);
      if (id == nullptr) {
        return fail("map: " + json::serialize(e) +
                    " does not contain declared merge key: " + std::string(list.key));
      }
      std::size_t at = indexIn(original, e, list.key);
      if (at == original.size()) {
        original.emplace_back(nullptr);
      }
      if (!mergeMap(original[at], e.as_object(), list.field, depth + 1)) {
        return false;
      }
    }
    if (replace) {
      return true;
    }
    return normalizeOrder(original, order != nullptr ? *order : items, serverOrder, list.key);
  }

  std::string& error_;
};

}  // namespace

void applyMergePatch(json::value& target, const json::value& patch) {
  mergePatchAt(target, patch, 0);
}

bool applyJsonPatch(json::value& target, const json::value& patch, std::string& error) {
  if (!patch.is_array()) {
    error = "a JSON patch must be an array of operations";
    return false;
  }
  json::value doc = copyOf(target, target.storage());
  const json::array& ops = patch.as_array();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string prefix = "operation " + std::to_string(i);
    const json::object* op = ops[i].if_object();
    const json::string* name = op != nullptr ? stringMember(*op, "op") : nullptr;
    const json::string* path = op != nullptr ? stringMember(*op, "path") : nullptr;
    if (op == nullptr || name == nullptr || path == nullptr) {
      error = prefix + ": " +
              (op == nullptr     ? "not an object"
               : name == nullptr ? "missing \"op\""
                                 : "missing \"path\"");
      return false;
    }
    std::string why;
    if (!applyOperation(doc, *op, why)) {
      error = prefix + " (" + std::string(*name) + " " + std::string(*path) + "): " + why;
      return false;
    }
  }
  target = std::move(doc);
  return true;
}

bool applyStrategicMergePatch(json::value& target, const json::value& patch, std::string& error) {
  if (!patch.is_object()) {
    error = "a strategic merge patch must be a JSON object";
    return false;
  }
  if (depthOf(patch, kMaxPatchDepth) > kMaxPatchDepth) {
    error = "the patch is " + tooDeep();
    return false;
  }
  json::value result = copyOf(target, target.storage());
  std::string why;
  StrategicMerge merge(why);
  if (!merge.mergeMap(result, patch.as_object(), "", 0)) {
    error = why;
    return false;
  }
  target = std::move(result);
  return true;
}

}  // namespace sh::connectors

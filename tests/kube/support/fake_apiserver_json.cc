#include "tests/kube/support/fake_apiserver_json.h"

#include <algorithm>
#include <stdexcept>

namespace sh::kubetest {
namespace json = boost::json;
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::vector<std::string> splitPath(std::string_view path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    auto dot = path.find('.', start);
    out.emplace_back(path.substr(start, dot == std::string_view::npos ? path.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> splitTerms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      auto term = trim(text.substr(start, i - start));
      if (!term.empty()) out.push_back(term);
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return out;
}

const json::value* labelValue(const json::object& object, const std::string& key) {
  const auto* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) return nullptr;
  const auto* labels = metadata->as_object().if_contains("labels");
  if (labels == nullptr || !labels->is_object()) return nullptr;
  return labels->as_object().if_contains(key);
}

// The merge key of a list field under strategic merge patch, empty when lists replace.
std::string_view mergeKeyFor(std::string_view field) {
  struct Entry {
    std::string_view field, key;
  };
  static constexpr Entry kStrategicMergeKeys[] = {
      {"conditions", "type"},        {"containers", "name"},
      {"initContainers", "name"},    {"ephemeralContainers", "name"},
      {"volumes", "name"},           {"env", "name"},
      {"containerStatuses", "name"}, {"initContainerStatuses", "name"},
      {"ownerReferences", "uid"},    {"resourceClaims", "name"},
  };
  for (const auto& entry : kStrategicMergeKeys) {
    if (entry.field == field) return entry.key;
  }
  return {};
}

json::value strategicMerge(const json::value& target, const json::value& patch,
                           std::string_view field);

json::array mergeListByKey(const json::array& target, const json::array& patch,
                           std::string_view key) {
  json::array out = target;
  for (const auto& item : patch) {
    if (!item.is_object() || item.as_object().if_contains(key) == nullptr) {
      out.push_back(item);
      continue;
    }
    const auto& keyValue = item.as_object().at(key);
    auto found = std::find_if(out.begin(), out.end(), [&](const json::value& existing) {
      return existing.is_object() && existing.as_object().if_contains(key) != nullptr &&
             existing.as_object().at(key) == keyValue;
    });
    if (found == out.end()) {
      json::value merged = strategicMerge(json::object{}, item, "");
      out.push_back(std::move(merged));
    } else {
      *found = strategicMerge(*found, item, "");
    }
  }
  return out;
}

json::value strategicMerge(const json::value& target, const json::value& patch,
                           std::string_view field) {
  if (patch.is_array() && target.is_array()) {
    auto key = mergeKeyFor(field);
    if (!key.empty()) return mergeListByKey(target.as_array(), patch.as_array(), key);
    return patch;
  }
  if (!patch.is_object()) return patch;
  json::object out = target.is_object() ? target.as_object() : json::object{};
  for (const auto& [name, value] : patch.as_object()) {
    if (value.is_null()) {
      out.erase(name);
      continue;
    }
    const auto* existing = out.if_contains(name);
    out[name] = strategicMerge(existing != nullptr ? *existing : json::value(nullptr), value,
                               std::string_view(name.data(), name.size()));
  }
  return out;
}

}  // namespace

Selector Selector::parseFields(std::string_view text) {
  Selector selector;
  for (auto term : splitTerms(text)) {
    Term parsed;
    std::size_t at = 0;
    std::size_t width = 0;
    if ((at = term.find("!=")) != std::string_view::npos) {
      parsed.op = Op::kNotEquals;
      width = 2;
    } else if ((at = term.find("==")) != std::string_view::npos) {
      width = 2;
    } else if ((at = term.find('=')) != std::string_view::npos) {
      width = 1;
    } else {
      throw std::invalid_argument("invalid field selector term \"" + std::string(term) +
                                  "\": expected field=value, field==value or field!=value");
    }
    auto key = trim(term.substr(0, at));
    if (key.empty()) {
      throw std::invalid_argument("invalid field selector term \"" + std::string(term) +
                                  "\": empty field");
    }
    parsed.path = splitPath(key);
    parsed.values.emplace_back(trim(term.substr(at + width)));
    selector.terms_.push_back(std::move(parsed));
  }
  return selector;
}

Selector Selector::parseLabels(std::string_view text) {
  Selector selector;
  selector.labels_ = true;
  for (auto term : splitTerms(text)) {
    Term parsed;
    auto bad = [&](const char* why) {
      return std::invalid_argument("invalid label selector term \"" + std::string(term) +
                                   "\": " + why);
    };
    auto open = term.find('(');
    if (open != std::string_view::npos) {
      auto close = term.rfind(')');
      if (close == std::string_view::npos || close < open) throw bad("unbalanced parentheses");
      auto head = trim(term.substr(0, open));
      std::string_view key;
      if (head.size() > 6 && head.substr(head.size() - 6) == " notin") {
        parsed.op = Op::kNotIn;
        key = trim(head.substr(0, head.size() - 6));
      } else if (head.size() > 3 && head.substr(head.size() - 3) == " in") {
        parsed.op = Op::kIn;
        key = trim(head.substr(0, head.size() - 3));
      } else {
        throw bad("expected `in` or `notin`");
      }
      if (key.empty()) throw bad("empty key");
      parsed.path = {std::string(key)};
      for (auto value : splitTerms(term.substr(open + 1, close - open - 1))) {
        parsed.values.emplace_back(value);
      }
    } else if (auto at = term.find("!="); at != std::string_view::npos) {
      parsed.op = Op::kNotEquals;
      parsed.path = {std::string(trim(term.substr(0, at)))};
      parsed.values.emplace_back(trim(term.substr(at + 2)));
    } else if (auto eq = term.find('='); eq != std::string_view::npos) {
      std::size_t width = term.substr(eq, 2) == "==" ? 2 : 1;
      parsed.path = {std::string(trim(term.substr(0, eq)))};
      parsed.values.emplace_back(trim(term.substr(eq + width)));
    } else if (term.front() == '!') {
      parsed.op = Op::kNotExists;
      parsed.path = {std::string(trim(term.substr(1)))};
    } else {
      parsed.op = Op::kExists;
      parsed.path = {std::string(term)};
    }
    if (parsed.path.front().empty()) throw bad("empty key");
    selector.terms_.push_back(std::move(parsed));
  }
  return selector;
}

bool Selector::matches(const json::object& object) const {
  for (const auto& term : terms_) {
    if (!labels_) {
      bool equal = fieldValue(object, term.path) == term.values.front();
      if (equal != (term.op == Op::kEquals)) return false;
      continue;
    }
    const auto* value = labelValue(object, term.path.front());
    std::string text =
        value != nullptr && value->is_string() ? std::string(value->as_string()) : std::string();
    bool in = value != nullptr &&
              std::find(term.values.begin(), term.values.end(), text) != term.values.end();
    switch (term.op) {
      case Op::kEquals:
        if (!in) return false;
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        if (in) return false;
        break;
      case Op::kIn:
        if (!in) return false;
        break;
      case Op::kExists:
        if (value == nullptr) return false;
        break;
      case Op::kNotExists:
        if (value != nullptr) return false;
        break;
    }
  }
  return true;
}

std::string fieldValue(const json::object& object, const std::vector<std::string>& path) {
  const json::value* at = nullptr;
  const json::object* current = &object;
  for (const auto& part : path) {
    if (current == nullptr) return "";
    at = current->if_contains(part);
    if (at == nullptr) return "";
    current = at->if_object();
  }
  if (at == nullptr || at->is_null()) return "";
  if (at->is_string()) return std::string(at->as_string());
  return json::serialize(*at);
}

json::value mergePatch(const json::value& target, const json::value& patch) {
  if (!patch.is_object()) return patch;
  json::object out = target.is_object() ? target.as_object() : json::object{};
  for (const auto& [name, value] : patch.as_object()) {
    if (value.is_null()) {
      out.erase(name);
      continue;
    }
    const auto* existing = out.if_contains(name);
    out[name] = mergePatch(existing != nullptr ? *existing : json::value(nullptr), value);
  }
  return out;
}

json::value strategicMergePatch(const json::value& target, const json::value& patch) {
  return strategicMerge(target, patch, "");
}

std::string_view reasonFor(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

json::object statusBody(int code, std::string_view reason, std::string_view message,
                        const json::value& details) {
  json::object body;
  body["kind"] = "Status";
  body["apiVersion"] = "v1";
  body["metadata"] = json::object{};
  body["status"] = code < 300 ? "Success" : "Failure";
  if (!message.empty()) body["message"] = message;
  if (!reason.empty()) body["reason"] = reason;
  if (!details.is_null()) body["details"] = details;
  body["code"] = code;
  return body;
}

std::string stringAt(const json::object& object, std::initializer_list<std::string_view> path) {
  const json::object* current = &object;
  const json::value* at = nullptr;
  for (auto part : path) {
    if (current == nullptr) return "";
    at = current->if_contains(part);
    if (at == nullptr) return "";
    current = at->if_object();
  }
  if (at == nullptr || !at->is_string()) return "";
  return std::string(at->as_string());
}

}  // namespace sh::kubetest

#include "host/evaluate/expectations.h"

#include <cstdint>
#include <string_view>

#include <boost/json.hpp>

namespace sh::evaluate {
namespace {

namespace json = boost::json;

// The JSON types a leaf of an expectation may have.
enum class Kind { kString, kStringOrNull, kBool, kInteger, kStringArray };

const char* kindName(Kind kind) {
  switch (kind) {
    case Kind::kString:
      return "a string";
    case Kind::kStringOrNull:
      return "a string or null";
    case Kind::kBool:
      return "true or false";
    case Kind::kInteger:
      return "an integer";
    case Kind::kStringArray:
      return "an array of strings";
  }
  return "?";
}

bool isInteger(const json::value& v) {
  return v.is_int64() || (v.is_uint64() && v.get_uint64() <= INT64_MAX);
}

bool hasKind(const json::value& v, Kind kind) {
  switch (kind) {
    case Kind::kString:
      return v.is_string();
    case Kind::kStringOrNull:
      return v.is_string() || v.is_null();
    case Kind::kBool:
      return v.is_bool();
    case Kind::kInteger:
      return isInteger(v);
    case Kind::kStringArray:
      if (!v.is_array()) {
        return false;
      }
      for (const json::value& item : v.get_array()) {
        if (!item.is_string()) {
          return false;
        }
      }
      return true;
  }
  return false;
}

// Equal as evaluate's output means it: integers by value (43 written as uint64 or int64),
// everything else structurally.
bool sameValue(const json::value& expected, const json::value& actual) {
  if (isInteger(expected) && isInteger(actual)) {
    auto asInt = [](const json::value& v) {
      return v.is_int64() ? v.get_int64() : static_cast<int64_t>(v.get_uint64());
    };
    return asInt(expected) == asInt(actual);
  }
  return expected == actual;
}

const json::value* member(const json::value* object, std::string_view key) {
  if (object == nullptr || !object->is_object()) {
    return nullptr;
  }
  return object->get_object().if_contains(key);
}

std::string join(const std::string& path, std::string_view key) {
  if (key.empty()) {
    return path;
  }
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

class Checker {
 public:
  ExpectationCheck result;

  void root(const json::value& expect, const json::value& output) {
    if (!expect.is_object()) {
      error("", "must be an object");
      return;
    }
    for (const auto& [key, value] : expect.get_object()) {
      const json::value* actual = member(&output, key);
      if (key == "selected") {
        leaf("selected", value, Kind::kStringOrNull, actual);
      } else if (key == "message") {
        leaf("message", value, Kind::kString, actual);
      } else if (key == "preFilter") {
        statusMap("preFilter", value, actual, /*omittedIsSuccess=*/false);
      } else if (key == "nodes") {
        nodes(value, actual);
      } else if (key == "postFilter") {
        postFilter(value, actual);
      } else if (key == "bindingPlan") {
        subset("bindingPlan", value, actual);
      } else {
        unknown(key, "", "selected, message, preFilter, nodes, postFilter, bindingPlan");
      }
    }
  }

 private:
  const json::value success_ = json::object{{"code", "Success"}, {"reasons", json::array()}};

  void error(const std::string& path, const std::string& what) {
    result.errors.push_back(join("expect", path) + ": " + what);
  }

  void unknown(std::string_view key, const std::string& path, const char* allowed) {
    error(join(path, key), std::string("unknown key (expected one of: ") + allowed + ")");
  }

  bool object(const std::string& path, const json::value& value) {
    if (!value.is_object()) {
      error(path, "expected an object, found " + json::serialize(value));
      return false;
    }
    return true;
  }

  // A value compared whole. `actual` is null when the output has no such entry.
  void leaf(const std::string& path, const json::value& expected, Kind kind,
            const json::value* actual, const std::string& note = "") {
    if (!hasKind(expected, kind)) {
      error(path,
            std::string("expected ") + kindName(kind) + ", found " + json::serialize(expected));
      return;
    }
    if (actual != nullptr && sameValue(expected, *actual)) {
      return;
    }
    Mismatch m{path, expected, std::nullopt, note};
    if (actual != nullptr) {
      m.actual = *actual;
    }
    result.mismatches.push_back(std::move(m));
  }

  // Every member the expectation names, at any depth, as the output has it; arrays and other
  // values compared whole (bindingPlan: {"permit": {"Coscheduling": {"code": "Wait"}}}).
  void subset(const std::string& path, const json::value& expected, const json::value* actual) {
    if (!expected.is_object()) {
      leaf(path, expected,
           hasKind(expected, Kind::kStringArray) ? Kind::kStringArray
           : hasKind(expected, Kind::kInteger)   ? Kind::kInteger
           : hasKind(expected, Kind::kBool)      ? Kind::kBool
                                                 : Kind::kStringOrNull,
           actual);
      return;
    }
    if (actual == nullptr || !actual->is_object()) {
      Mismatch m{path, expected, std::nullopt, ""};
      if (actual != nullptr) {
        m.actual = *actual;
      }
      result.mismatches.push_back(std::move(m));
      return;
    }
    for (const auto& [key, value] : expected.get_object()) {
      subset(join(path, key), value, member(actual, key));
    }
  }

  // {"<plugin>": {"code": ..., "reasons": [...]}}. For Filter, an omitted plugin passed (or
  // did not run after an earlier one failed): it is compared as {"code": "Success"}, but only
  // when the node itself is in the output, so that a misspelt node name cannot pass.
  void statusMap(const std::string& path, const json::value& expected, const json::value* actual,
                 bool omittedIsSuccess) {
    if (!object(path, expected)) {
      return;
    }
    for (const auto& [plugin, status] : expected.get_object()) {
      std::string at = join(path, plugin);
      const json::value* got = member(actual, plugin);
      std::string note;
      if (got == nullptr && omittedIsSuccess && actual != nullptr) {
        got = &success_;
        note = "no entry: the plugin passed or did not run";
      }
      if (!object(at, status)) {
        continue;
      }
      for (const auto& [key, value] : status.get_object()) {
        std::string field = join(at, key);
        if (key == "code") {
          leaf(field, value, Kind::kString, member(got, key), note);
        } else if (key == "reasons") {
          leaf(field, value, Kind::kStringArray, member(got, key), note);
        } else if (key == "nodeNames" && !omittedIsSuccess) {
          leaf(field, value, Kind::kStringArray, member(got, key), note);
        } else {
          unknown(key, at, omittedIsSuccess ? "code, reasons" : "code, reasons, nodeNames");
        }
      }
    }
  }

  void nodes(const json::value& expected, const json::value* actual) {
    if (!object("nodes", expected)) {
      return;
    }
    for (const auto& [name, node] : expected.get_object()) {
      std::string at = join("nodes", name);
      if (!object(at, node)) {
        continue;
      }
      const json::value* got = member(actual, name);
      for (const auto& [key, value] : node.get_object()) {
        std::string field = join(at, key);
        if (key == "feasible") {
          leaf(field, value, Kind::kBool, member(got, key));
        } else if (key == "total") {
          leaf(field, value, Kind::kInteger, member(got, key));
        } else if (key == "filter") {
          statusMap(field, value, member(got, key), /*omittedIsSuccess=*/true);
        } else if (key == "scores") {
          if (!object(field, value)) {
            continue;
          }
          const json::value* scores = member(got, key);
          for (const auto& [plugin, score] : value.get_object()) {
            leaf(join(field, plugin), score, Kind::kInteger, member(scores, plugin));
          }
        } else {
          unknown(key, at, "feasible, filter, scores, total");
        }
      }
    }
  }

  void postFilter(const json::value& expected, const json::value* actual) {
    if (!object("postFilter", expected)) {
      return;
    }
    for (const auto& [key, value] : expected.get_object()) {
      std::string field = join("postFilter", key);
      if (key == "nominatedNodeName") {
        leaf(field, value, Kind::kStringOrNull, member(actual, key));
      } else if (key == "victims") {
        leaf(field, value, Kind::kStringArray, member(actual, key));
      } else {
        unknown(key, "postFilter", "nominatedNodeName, victims");
      }
    }
  }
};

}  // namespace

ExpectationCheck checkExpectations(const boost::json::value& expect,
                                   const boost::json::value& output) {
  Checker checker;
  checker.root(expect, output);
  return std::move(checker.result);
}

std::string describe(const Mismatch& mismatch) {
  std::string text = mismatch.path + ": expected " + boost::json::serialize(mismatch.expected) +
                     ", got " +
                     (mismatch.actual ? boost::json::serialize(*mismatch.actual) : "nothing");
  if (!mismatch.note.empty()) {
    text += " (" + mismatch.note + ")";
  }
  return text;
}

}  // namespace sh::evaluate
